package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/server/wsconn"
)

// sendQueue is how many messages a page may leave unread before it is
// dropped.
const sendQueue = 64

// conn is one page's websocket. Its limits (read limit, pong timeout,
// write timeout, ping interval, close handshake) are the shared helper's
// (server/wsconn) with the handler's settings.
type conn struct {
	h    *Handler
	ws   *wsconn.Conn
	out  chan []byte
	seen atomic.Int64 // unix nanoseconds of the last message

	once     sync.Once
	quit     chan struct{} // closed when the connection ends: the writer and the pings stop
	readDone chan struct{} // closed when the read pump has returned
	gone     chan struct{} // closed once the connection is closed (after the close handshake)

	training trainingWatch // its watch of a training session (training.go)
}

func newConn(h *Handler, ws *websocket.Conn) *conn {
	c := &conn{h: h, ws: wsconn.New(ws, h.ws), out: make(chan []byte, sendQueue), quit: make(chan struct{}),
		readDone: make(chan struct{}), gone: make(chan struct{})}
	c.seen.Store(time.Now().UnixNano())
	return c
}

func (c *conn) lastSeen() time.Time { return time.Unix(0, c.seen.Load()) }

// close ends the connection, once, with the close handshake (code and
// reason, then the page's reply awaited a second at most); code 0 drops
// it without a close frame (it failed). It does not block: the handshake
// runs on its own goroutine, and gone is closed when it is over.
func (c *conn) close(code int, reason string) {
	c.once.Do(func() {
		close(c.quit)
		go func() {
			defer close(c.gone)
			if code == 0 {
				_ = c.ws.Close()
				return
			}
			c.ws.CloseHandshake(code, reason, c.readDone)
		}()
	})
}

// send queues a message; a page that does not read its messages is
// dropped rather than let the queue grow.
func (c *conn) send(b []byte) {
	select {
	case c.out <- b:
	case <-c.quit:
	default:
		go c.close(websocket.ClosePolicyViolation, "play: the page does not read its messages")
	}
}

// sendTable sends a table's status and the view (JSON) for c, with the
// seat's observation when c plays the view's seat (obs non-nil).
func (c *conn) sendTable(s status, view []byte, obs *SeatObservation) {
	m := map[string]any{"op": "table", "status": s, "view": json.RawMessage(orNull(view))}
	if obs != nil {
		m["observation"] = obs
	}
	c.send(mustJSON(m))
}

func orNull(b []byte) []byte {
	if b == nil {
		return []byte("null")
	}
	return b
}

func (c *conn) sendErr(req string, err error) {
	var re *RequestError
	if !errors.As(err, &re) {
		re = &RequestError{Code: "error", Message: err.Error()}
	}
	c.send(mustJSON(map[string]string{"op": "error", "req": req, "code": re.Code, "message": re.Message}))
}

// writer writes the queued messages, each under the write deadline; a
// failed write drops the connection.
func (c *conn) writer() {
	for {
		select {
		case <-c.quit:
			return
		case b := <-c.out:
			if err := c.ws.Write(websocket.TextMessage, b); err != nil {
				c.close(0, "")
				return
			}
		}
	}
}

// request is any message from a page; op says which fields it uses.
type request struct {
	Op      string  `json:"op"`
	Req     string  `json:"req"` // echoed in the reply, for the page's bookkeeping
	Lineup  *Lineup `json:"lineup"`
	Take    []int   `json:"take"`
	Table   string  `json:"table"`
	Seat    *int    `json:"seat"`
	Action  *int    `json:"action"`
	View    *int    `json:"view"`
	Delay   *int    `json:"delay_ms"`
	Paused  *bool   `json:"paused"`
	Advance int     `json:"advance"`
	Dataset string  `json:"dataset"`
	Episode *int64  `json:"episode"`
	Step    *int    `json:"step"`
	// Secret is a seat's secret (join) or the table creator's (watch):
	// the connection that presents it is that person.
	Secret string `json:"secret"`
	// Steps is the position an act answers: the status's steps when the
	// page showed the decision.
	Steps *int `json:"steps"`
	// From starts a new table at another table's or a replay's position
	// (op new: play from here, research.go).
	From *Origin `json:"from"`
	// Session, Key and Index name a training session's environment to
	// watch and present its watch key (op watch_training, training.go).
	Session string `json:"session"`
	Key     string `json:"key"`
	Index   *int   `json:"index"`
}

// serve is the read pump: it handles the page's messages until the
// connection ends (the page closed it, it went silent, neither message
// nor pong, for the pong timeout, or a message was over ReadLimit), then
// returns once the connection is closed. The pings go out on their own
// goroutine, every PingInterval.
func (c *conn) serve() {
	go c.writer()
	go func() {
		c.ws.KeepAlive(c.quit, nil)
		c.close(0, "") // a ping failed (or the connection had ended already)
	}()
	defer func() { <-c.gone }()
	defer c.close(websocket.CloseNormalClosure, "")
	defer close(c.readDone)
	for {
		typ, data, err := c.ws.Read(nil)
		if err != nil {
			if wsconn.IsTooBig(err) {
				c.close(websocket.CloseMessageTooBig, fmt.Sprintf("play: message over %d bytes", c.h.cfg.ReadLimit))
			}
			return
		}
		c.seen.Store(time.Now().UnixNano())
		if typ != websocket.TextMessage {
			c.sendErr("", &RequestError{Code: "bad_request", Message: "send JSON text messages"})
			continue
		}
		var r request
		if err := json.Unmarshal(data, &r); err != nil {
			c.sendErr("", &RequestError{Code: "bad_request", Message: "not a JSON request: " + err.Error()})
			continue
		}
		if err := c.handle(&r); err != nil {
			c.sendErr(r.Req, err)
		}
	}
}

func missing(field string) error {
	return &RequestError{Code: "bad_request", Message: "missing field " + field}
}

// handle answers one request of the page, each op by its own method.
func (c *conn) handle(r *request) error {
	switch r.Op {
	case "hello":
		return c.opHello(r)
	case "new":
		return c.opNew(r)
	case "rematch":
		return c.opRematch(r)
	case "join", "watch":
		return c.opJoinWatch(r)
	case "act":
		return c.opAct(r)
	case "hint":
		return c.opHint(r)
	case "control":
		return c.opControl(r)
	case "history":
		return c.opHistory(r)
	case "watch_training":
		return c.h.watchTraining(c, r)
	case "episodes":
		return c.opEpisodes(r)
	case "replay":
		return c.opReplay(r)
	}
	return &RequestError{Code: "unknown_op", Message: fmt.Sprintf("unknown op %q (hello, new, rematch, join, watch, act, hint, control, history, episodes, replay, watch_training)", r.Op)}
}
