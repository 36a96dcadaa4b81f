package wsconn

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// serveOne upgrades one connection with s and hands it to f.
func serveOne(t *testing.T, s Settings, f func(c *Conn)) *websocket.Conn {
	t.Helper()
	up := Upgrader(s, nil, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		f(New(ws, s))
	}))
	t.Cleanup(ts.Close)
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestReadLimitAndCloseHandshake: a message within the read limit is read
// and echoed, one over it ends the read pump (IsTooBig) and the peer sees
// 1009; a close handshake delivers its code and reason.
func TestReadLimitAndCloseHandshake(t *testing.T) {
	errc := make(chan error, 1)
	c := serveOne(t, Settings{ReadLimit: 16}, func(c *Conn) {
		for {
			mt, msg, err := c.Read(nil)
			if err != nil {
				errc <- err
				return
			}
			_ = c.Write(mt, msg)
		}
	})
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := c.WriteMessage(websocket.TextMessage, []byte("sixteen bytes ok")); err != nil {
		t.Fatal(err)
	}
	if _, b, err := c.ReadMessage(); err != nil || string(b) != "sixteen bytes ok" {
		t.Fatalf("echo: %q %v", b, err)
	}
	_ = c.WriteMessage(websocket.TextMessage, []byte("seventeen bytes!!"))
	if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Fatalf("a message over the read limit: %v, want close 1009", err)
	}
	select {
	case err := <-errc:
		if !IsTooBig(err) {
			t.Fatalf("the read pump ended with %v, want the read limit", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read pump did not end")
	}

	c = serveOne(t, Settings{}, func(c *Conn) { c.CloseHandshake(websocket.CloseGoingAway, "bye", nil) })
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _, err := c.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway || ce.Text != "bye" {
		t.Fatalf("close handshake: %v, want 1001 bye", err)
	}
}

// TestSilentPeerDropped: a peer that answers no ping is dropped after the
// pong timeout; one that answers stays well past it.
func TestSilentPeerDropped(t *testing.T) {
	for _, answers := range []bool{false, true} {
		s := Settings{PingInterval: 50 * time.Millisecond, PongTimeout: 300 * time.Millisecond}
		if answers { // generous: the pongs must come in time on a loaded machine
			s = Settings{PingInterval: 100 * time.Millisecond, PongTimeout: 1500 * time.Millisecond}
		}
		errc := make(chan error, 1)
		c := serveOne(t, s, func(c *Conn) {
			stop := make(chan struct{})
			defer close(stop)
			go c.KeepAlive(stop, nil)
			_, _, err := c.Read(nil)
			errc <- err
		})
		if answers {
			go func() {
				for {
					if _, _, err := c.ReadMessage(); err != nil {
						return
					}
				}
			}()
			select {
			case err := <-errc:
				t.Fatalf("a peer that answers pings was dropped: %v", err)
			case <-time.After(4 * time.Second): // over two pong timeouts
			}
			continue
		}
		select {
		case err := <-errc:
			if err == nil {
				t.Fatal("a message arrived")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a peer that answers no ping is still connected 10 s later (pong timeout 300 ms)")
		}
	}
}

// TestCloseReason: a long reason is cut to fit a close frame without
// splitting a UTF-8 sequence.
func TestCloseReason(t *testing.T) {
	r := CloseReason(strings.Repeat("é", 100)) // 200 bytes
	if len(r) > 123 || !utf8.ValidString(r) {
		t.Fatalf("CloseReason gave %d bytes, valid UTF-8 %v", len(r), utf8.ValidString(r))
	}
	if CloseReason("short") != "short" {
		t.Fatal("a short reason changed")
	}
}
