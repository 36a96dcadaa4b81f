package server

import "sync"

// pool runs batch chunks on a fixed set of goroutines. submit never
// blocks: a chunk no idle worker takes is run by its caller. stop ends the
// workers by closing quit; the work channel is never closed, so a submit
// racing with stop cannot send on a closed channel.
type pool struct {
	work chan *chunk
	quit chan struct{}
	once sync.Once
}

func newPool(n int) *pool {
	p := &pool{work: make(chan *chunk), quit: make(chan struct{})}
	for i := 0; i < n; i++ {
		go func() {
			for {
				select {
				case c := <-p.work:
					c.run()
				case <-p.quit:
					return
				}
			}
		}()
	}
	return p
}

// submit hands c to an idle worker; it returns false (the caller runs c)
// when none is idle, or once the pool is stopped.
func (p *pool) submit(c *chunk) bool {
	select {
	case <-p.quit:
		return false
	default:
	}
	select {
	case p.work <- c:
		return true
	default:
		return false
	}
}

// stop ends the workers; it is idempotent. Chunks submitted afterwards run
// on their callers.
func (p *pool) stop() { p.once.Do(func() { close(p.quit) }) }
