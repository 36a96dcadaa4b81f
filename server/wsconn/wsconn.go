// Package wsconn is the websocket helper that both faces of galaxygym
// serve (the training protocol's sessions in server and the page's
// connections in play): the upgrader, the read pump (read limit, read
// deadline pushed on by every message and pong), the write path (every
// write under the write deadline), the ping interval and the close
// handshake, with their settings in one place ([Settings], whose defaults
// are server.Config's).
//
// A [Conn] is used by one reading goroutine (Read, and the pong handler
// it runs), one writing goroutine (Write), and any number of goroutines
// sending control frames (Ping, SendClose, CloseHandshake), which gorilla
// websocket allows concurrently with the rest.
package wsconn

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Defaults of [Settings], used where a field is zero. server.Config's
// defaults are these.
const (
	DefaultPingInterval     = 20 * time.Second
	DefaultPongTimeout      = 60 * time.Second // at least 3 ping intervals
	DefaultWriteTimeout     = 10 * time.Second
	DefaultHandshakeTimeout = 10 * time.Second
)

// CloseWait is how long a close handshake waits for the peer's close
// reply (or for the connection's reader to end) before it drops the
// connection.
const CloseWait = time.Second

// maxCloseReason is the longest close reason in bytes: a close frame's
// payload is at most 125 bytes, 2 of them the code.
const maxCloseReason = 120

// Settings are a websocket connection's limits.
type Settings struct {
	// ReadLimit is the largest message read, in bytes; a larger one is
	// answered with close code 1009 and ends the read pump. Each face has
	// its own (server.Config.ReadLimit, play.Config.ReadLimit); 0: no
	// limit.
	ReadLimit int64
	// PingInterval is how often [Conn.KeepAlive] pings the peer.
	PingInterval time.Duration
	// PongTimeout ends the read pump (its read fails) when nothing, neither
	// a message nor a pong, arrived for this long.
	PongTimeout time.Duration
	// WriteTimeout bounds every write: a message, a ping, a close frame.
	WriteTimeout time.Duration
	// HandshakeTimeout bounds the upgrade's reply (the upgrader's).
	HandshakeTimeout time.Duration
	// ReadBufferSize and WriteBufferSize are the upgrader's I/O buffer
	// sizes in bytes (0: gorilla's default, 4 KiB): large for the
	// training protocol's batched replies, small for the page's.
	ReadBufferSize, WriteBufferSize int
}

// WithDefaults returns s with every zero timeout set to its default; the
// pong timeout defaults to the larger of DefaultPongTimeout and three ping
// intervals.
func (s Settings) WithDefaults() Settings {
	if s.PingInterval <= 0 {
		s.PingInterval = DefaultPingInterval
	}
	if s.PongTimeout <= 0 {
		s.PongTimeout = max(DefaultPongTimeout, 3*s.PingInterval)
	}
	if s.WriteTimeout <= 0 {
		s.WriteTimeout = DefaultWriteTimeout
	}
	if s.HandshakeTimeout <= 0 {
		s.HandshakeTimeout = DefaultHandshakeTimeout
	}
	return s
}

// Upgrader returns the websocket upgrader of s: its handshake timeout and
// buffer sizes, checkOrigin (nil: gorilla's same-host rule) and onError
// (nil: gorilla's plain HTTP error reply).
func Upgrader(s Settings, checkOrigin func(*http.Request) bool,
	onError func(w http.ResponseWriter, r *http.Request, status int, reason error)) websocket.Upgrader {
	s = s.WithDefaults()
	return websocket.Upgrader{
		HandshakeTimeout: s.HandshakeTimeout,
		ReadBufferSize:   s.ReadBufferSize,
		WriteBufferSize:  s.WriteBufferSize,
		CheckOrigin:      checkOrigin,
		Error:            onError,
	}
}

// Conn is an upgraded websocket with the limits of its [Settings]. Create
// it with [New].
type Conn struct {
	ws       *websocket.Conn
	s        Settings
	deadline time.Time // the current read deadline (the reading goroutine's)
}

// New takes over ws (just upgraded) with the settings s (zero timeouts
// take their defaults): it sets the read limit, and a read deadline of
// PongTimeout from now that every message and pong pushes on, replacing
// whatever deadline the HTTP server left on the connection.
func New(ws *websocket.Conn, s Settings) *Conn {
	c := &Conn{ws: ws, s: s.WithDefaults()}
	if c.s.ReadLimit > 0 {
		ws.SetReadLimit(c.s.ReadLimit)
	}
	c.extend(time.Now())
	ws.SetPongHandler(func(string) error {
		c.extend(time.Now())
		return nil
	})
	return c
}

// WS returns the underlying gorilla connection.
func (c *Conn) WS() *websocket.Conn { return c.ws }

// Settings returns the connection's settings, defaults filled in.
func (c *Conn) Settings() Settings { return c.s }

// extend pushes the read deadline to now + PongTimeout; it skips the
// system call when the deadline would move by less than a quarter of the
// timeout (at most a second), so that a busy connection does not pay one
// per message. It runs on the reading goroutine only.
func (c *Conn) extend(now time.Time) {
	d := now.Add(c.s.PongTimeout)
	if d.Sub(c.deadline) >= min(time.Second, c.s.PongTimeout/4) {
		c.deadline = d
		_ = c.ws.SetReadDeadline(d)
	}
}

// Read is the read pump's step: it waits for the next message, reads it
// into the storage of the buffer buf returns (buf is called once the
// message has begun, so that a dropped connection is seen while the
// caller's buffers are all busy; nil or a nil buffer: a new one), and
// pushes the read deadline on. Its error is the connection's end: the
// peer closed or dropped it, the pong timeout passed, or the message was
// over ReadLimit ([IsTooBig]; the peer has been sent close code 1009).
func (c *Conn) Read(buf func() []byte) (messageType int, msg []byte, err error) {
	mt, r, err := c.ws.NextReader()
	if err != nil {
		return 0, nil, err
	}
	var b []byte
	if buf != nil {
		b = buf()
	}
	if b, err = ReadAll(r, b); err != nil {
		return 0, nil, err
	}
	c.extend(time.Now())
	return mt, b, nil
}

// IsTooBig reports whether err (from [Conn.Read]) says a message was over
// the read limit.
func IsTooBig(err error) bool { return errors.Is(err, websocket.ErrReadLimit) }

// ReadAll reads r into buf's storage, growing it as needed, and returns
// the bytes read.
func ReadAll(r io.Reader, buf []byte) ([]byte, error) {
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

// Write writes one message (websocket.TextMessage or BinaryMessage)
// under the write deadline. One goroutine at a time may write messages.
func (c *Conn) Write(messageType int, data []byte) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.s.WriteTimeout))
	return c.ws.WriteMessage(messageType, data)
}

// Ping sends a ping under the write deadline.
func (c *Conn) Ping(now time.Time) error {
	return c.ws.WriteControl(websocket.PingMessage, nil, now.Add(c.s.WriteTimeout))
}

// KeepAlive pings the peer every PingInterval until stop is closed or a
// ping fails. Before each ping it calls tick (when not nil) with the
// time; when tick returns false it returns without pinging (tick has
// closed the connection, say for idleness).
func (c *Conn) KeepAlive(stop <-chan struct{}, tick func(now time.Time) bool) {
	t := time.NewTicker(c.s.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			if tick != nil && !tick(now) {
				return
			}
			if c.Ping(now) != nil {
				return
			}
		}
	}
}

// CloseReason cuts reason to what a close frame holds (125 bytes with the
// code) without splitting a UTF-8 sequence.
func CloseReason(reason string) string {
	if len(reason) > maxCloseReason {
		reason = strings.ToValidUTF8(reason[:maxCloseReason], "")
	}
	return reason
}

// SendClose sends a close frame with code and reason (cut to fit) under
// the write deadline, without closing the connection.
func (c *Conn) SendClose(code int, reason string) error {
	return c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, CloseReason(reason)),
		time.Now().Add(c.s.WriteTimeout))
}

// CloseHandshake ends the connection the way the protocol asks, so that
// the peer sees code and reason: it sends the close frame, waits at most
// [CloseWait] for the peer's close reply, then closes the connection.
// When the connection has a read pump, done is a channel closed once the
// pump has ended (its read saw the reply or failed), and CloseHandshake
// waits on it; with done nil there is none, and CloseHandshake reads (and
// drops) what arrives until the reply itself.
func (c *Conn) CloseHandshake(code int, reason string, done <-chan struct{}) {
	_ = c.SendClose(code, reason)
	if done != nil {
		t := time.NewTimer(CloseWait)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	} else {
		c.ws.SetPongHandler(nil) // a pong must not push the deadline on
		_ = c.ws.SetReadDeadline(time.Now().Add(CloseWait))
		for {
			if _, _, err := c.ws.NextReader(); err != nil {
				break
			}
		}
	}
	_ = c.ws.Close()
}

// Close drops the connection at once, without a close frame.
func (c *Conn) Close() error { return c.ws.Close() }
