package server

import (
	"io"
	"sync"
)

// pool runs batch chunks on a fixed set of goroutines.
type pool struct {
	work chan *chunk
	once sync.Once
}

func newPool(n int) *pool {
	p := &pool{work: make(chan *chunk)}
	for i := 0; i < n; i++ {
		go func() {
			for c := range p.work {
				c.run()
			}
		}()
	}
	return p
}

// submit hands c to an idle worker; it returns false (the caller runs c)
// when none is idle.
func (p *pool) submit(c *chunk) (ok bool) {
	defer func() {
		if recover() != nil { // stopped
			ok = false
		}
	}()
	select {
	case p.work <- c:
		return true
	default:
		return false
	}
}

func (p *pool) stop() { p.once.Do(func() { close(p.work) }) }

// readAll reads r into buf's storage, growing it as needed.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
