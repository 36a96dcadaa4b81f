package play

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/server"
)

// serving is a server and a page on one port, started as `galaxygym
// serve` starts them (Handler.ListenAndServe).
type serving struct {
	srv  *server.Server
	h    *Handler
	addr string
	errc chan error // ListenAndServe's result
}

func startServing(t *testing.T, cfg server.Config, pcfg Config) *serving {
	t.Helper()
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pcfg.Websocket = srv.Config().Websocket() // as serve does
	pcfg.Training = srv                       // as serve does
	h, err := New(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &serving{srv: srv, h: h, errc: make(chan error, 1)}
	addrc := make(chan string, 1)
	go func() {
		s.errc <- h.ListenAndServe(srv, "127.0.0.1:0", func(a net.Addr) { addrc <- a.String() })
	}()
	select {
	case s.addr = <-addrc:
	case err := <-s.errc:
		t.Fatalf("ListenAndServe: %v", err)
	}
	t.Cleanup(func() { s.shutdown(t) })
	return s
}

// shutdown stops both faces as serve does; it is idempotent.
func (s *serving) shutdown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.h.Shutdown(ctx)
	if err := s.srv.Shutdown(ctx); err != nil {
		t.Errorf("server shutdown: %v", err)
	}
}

// get sends a GET for path on conn and reads the response; it returns an
// error when no response came (the connection was closed).
func get(conn net.Conn, addr, path string) (*http.Response, error) {
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}

// closedByServer waits (10 s at most) for the server to close conn: it
// returns nil once a read ends other than by the client's own deadline.
func closedByServer(conn net.Conn) error {
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, conn)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errors.New("still open after 10 s")
	}
	return nil
}

// facePaths alternate between the page (GET /) and the training protocol
// (/healthz).
var facePaths = []string{"/", "/healthz"}

// TestServeLimitsBothFaces (issue 33): the one port of serve, started as
// serve starts it, holds the HTTP limits for both faces: idle keep-alive
// connections to the page and to the training protocol are closed after
// KeepAliveTimeout; connections over MaxConnsPerAddr are closed at once,
// whatever they ask for; a closed connection's place is given back; a
// request header that does not arrive is cut at HandshakeTimeout.
func TestServeLimitsBothFaces(t *testing.T) {
	const bound = 10
	s := startServing(t, server.Config{KeepAliveTimeout: time.Second, HandshakeTimeout: time.Second,
		LimitLoopback: true, MaxSessionsPerAddr: 2, MaxConnsPerAddr: bound}, Config{})
	dial := func() net.Conn {
		conn, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	var held []net.Conn
	for i := 0; i < bound; i++ {
		conn := dial()
		path := facePaths[i%2]
		resp, err := get(conn, s.addr, path)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("connection %d within the bound, GET %s: %v %v", i, path, resp, err)
		}
		held = append(held, conn)
	}
	for i := 0; i < 2*bound; i++ {
		path := facePaths[i%2]
		if resp, err := get(dial(), s.addr, path); err == nil {
			t.Fatalf("connection %d over the bound of %d per address was served: GET %s answered %s", bound+i, bound, path, resp.Status)
		}
	}
	var wg sync.WaitGroup
	for i, conn := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := closedByServer(conn); err != nil {
				t.Errorf("idle keep-alive connection %d (GET %s) with a 1 s keep-alive timeout: %v", i, facePaths[i%2], err)
			}
		}()
	}
	wg.Wait()
	for _, path := range facePaths {
		var err error
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			conn := dial()
			var resp *http.Response
			if resp, err = get(conn, s.addr, path); err == nil && resp.StatusCode != http.StatusOK {
				err = errors.New(resp.Status)
			}
			conn.Close()
			if err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("GET %s once the idle connections were closed: %v", path, err)
		}
	}
	for _, path := range facePaths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := dial()
			if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n", path, s.addr); err != nil {
				t.Error(err)
				return
			}
			if err := closedByServer(conn); err != nil {
				t.Errorf("a header of GET %s that never ends, with a 1 s handshake timeout: %v", path, err)
			}
		}()
	}
	wg.Wait()
}

// pump reads c's messages into a channel (closed when the read fails),
// answering and counting the server's pings.
func pump(c *websocket.Conn) (<-chan []byte, *atomic.Int64) {
	msgs := make(chan []byte, 64)
	var pings atomic.Int64
	c.SetPingHandler(func(data string) error {
		pings.Add(1)
		return c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	go func() {
		defer close(msgs)
		for {
			_, b, err := c.ReadMessage()
			if err != nil {
				return
			}
			msgs <- b
		}
	}()
	return msgs, &pings
}

// await returns the next message holding want, failing after 10 s or when
// the connection ends.
func await(t *testing.T, msgs <-chan []byte, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case b, ok := <-msgs:
			if !ok {
				t.Fatalf("the connection ended while waiting for %s", want)
			}
			if bytes.Contains(b, []byte(want)) {
				return
			}
		case <-timeout:
			t.Fatalf("no %s within 10 s", want)
		}
	}
}

func dialWS(t *testing.T, addr, path string) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws://"+addr+path, nil)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (HTTP %d)", path, err, code)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestWebsocketsOutliveHTTPTimeouts (issue 33): the HTTP server's read and
// write timeouts do not reach an upgraded connection: a page and a
// training session kept open four times longer than WriteTimeout,
// HandshakeTimeout and KeepAliveTimeout still work, kept alive by the
// pings they answer, which come every PingInterval of the server's config
// on both faces.
func TestWebsocketsOutliveHTTPTimeouts(t *testing.T) {
	const short = 300 * time.Millisecond
	s := startServing(t, server.Config{WriteTimeout: short, HandshakeTimeout: short, KeepAliveTimeout: short,
		PingInterval: 100 * time.Millisecond, PongTimeout: 5 * time.Second}, Config{})
	page := dialWS(t, s.addr, "/play/ws")
	training := dialWS(t, s.addr, "/")
	pageMsgs, pagePings := pump(page)
	trainingMsgs, trainingPings := pump(training)
	time.Sleep(4 * short)
	if err := page.WriteJSON(map[string]any{"op": "hello"}); err != nil {
		t.Fatalf("page: %v", err)
	}
	await(t, pageMsgs, `"op":"hello"`)
	if err := training.WriteJSON(map[string]any{"type": "hello", "version": server.Version}); err != nil {
		t.Fatalf("training: %v", err)
	}
	await(t, trainingMsgs, `"type":"hello"`)
	if n := pagePings.Load(); n < 2 {
		t.Errorf("the page got %d pings in %v with a ping interval of 100 ms", n, 4*short)
	}
	if n := trainingPings.Load(); n < 2 {
		t.Errorf("the training session got %d pings in %v with a ping interval of 100 ms", n, 4*short)
	}
}

// TestSilentPageDropped (issue 33): a page that answers no ping is
// dropped after the server's PongTimeout, like a training session.
func TestSilentPageDropped(t *testing.T) {
	s := startServing(t, server.Config{PingInterval: 100 * time.Millisecond, PongTimeout: 500 * time.Millisecond}, Config{})
	page := dialWS(t, s.addr, "/play/ws") // never read: its pings go unanswered
	defer page.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.h.mu.Lock()
		n := len(s.h.conns)
		s.h.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a page that answers no ping is still connected 10 s later (pong timeout 500 ms)")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeRefusesOtherWebsocketSettings: a page whose websocket timeouts
// are not the server's is not served.
func TestServeRefusesOtherWebsocketSettings(t *testing.T) {
	srv, err := server.New(server.Config{PingInterval: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	err = h.ListenAndServe(srv, "127.0.0.1:0", func(net.Addr) { t.Error("listening") })
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("ListenAndServe with other ping intervals = %v, want a *ConfigError", err)
	}
}

// TestServeShutdownClosesBothFaces: serve's shutdown (the page's, then the
// server's) closes a page and a training session with 1001 (going away)
// and ends ListenAndServe with http.ErrServerClosed.
func TestServeShutdownClosesBothFaces(t *testing.T) {
	s := startServing(t, server.Config{}, Config{})
	page := dialWS(t, s.addr, "/play/ws")
	training := dialWS(t, s.addr, "/")
	if err := page.WriteJSON(map[string]any{"op": "hello"}); err != nil {
		t.Fatal(err)
	}
	pageMsgs, _ := pump(page)
	await(t, pageMsgs, `"op":"hello"`)
	s.shutdown(t)
	for name, c := range map[string]*websocket.Conn{"page": page, "training session": training} {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var err error
		if name == "page" {
			for range pageMsgs {
			}
			_, _, err = c.NextReader() // the pump's error again
		} else {
			for err == nil {
				_, _, err = c.ReadMessage()
			}
		}
		if !websocket.IsCloseError(err, websocket.CloseGoingAway) {
			t.Errorf("%s at shutdown: %v, want close 1001", name, err)
		}
	}
	select {
	case err := <-s.errc:
		if !errors.Is(err, http.ErrServerClosed) {
			t.Fatalf("ListenAndServe returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe still serving 10 s after shutdown")
	}
}
