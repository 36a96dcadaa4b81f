package server

import (
	"net"
	"sync"
)

// limitConns wraps l so that at most MaxConnsPerAddr connections from one
// client IP are open at a time (loopback exempt unless LimitLoopback): a
// connection over the bound is closed as soon as it is accepted, before
// any byte is read. Keep-alive HTTP connections (/healthz needs no token)
// count like sessions, so one address cannot hold the server's file
// descriptors.
func (s *Server) limitConns(l net.Listener) net.Listener {
	return &connLimiter{Listener: l, s: s, open: map[string]int{}}
}

type connLimiter struct {
	net.Listener
	s    *Server
	mu   sync.Mutex
	open map[string]int
}

// Accept returns the next connection within the per-address bound.
func (cl *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := cl.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := cl.s.limitedAddr(c.RemoteAddr().String())
		if addr == "" {
			return c, nil
		}
		cl.mu.Lock()
		over := cl.open[addr] >= cl.s.cfg.MaxConnsPerAddr
		if !over {
			cl.open[addr]++
		}
		cl.mu.Unlock()
		if over {
			cl.s.m.errors.WithLabelValues("too_many_connections").Inc()
			c.Close()
			continue
		}
		return &limitedConn{Conn: c, cl: cl, addr: addr}, nil
	}
}

// limitedConn gives its address's count back once, when closed.
type limitedConn struct {
	net.Conn
	cl   *connLimiter
	addr string
	once sync.Once
}

// Close closes the connection and frees its place in the bound.
func (c *limitedConn) Close() error {
	c.once.Do(func() {
		c.cl.mu.Lock()
		if c.cl.open[c.addr]--; c.cl.open[c.addr] <= 0 {
			delete(c.cl.open, c.addr)
		}
		c.cl.mu.Unlock()
	})
	return c.Conn.Close()
}
