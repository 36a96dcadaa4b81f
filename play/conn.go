package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

const (
	writeTimeout = 10 * time.Second
	pingInterval = 30 * time.Second
	sendQueue    = 64
)

// conn is one page's websocket.
type conn struct {
	h    *Handler
	ws   *websocket.Conn
	out  chan []byte
	seen atomic.Int64 // unix nanoseconds of the last message

	once sync.Once
	quit chan struct{}
}

func newConn(h *Handler, ws *websocket.Conn) *conn {
	c := &conn{h: h, ws: ws, out: make(chan []byte, sendQueue), quit: make(chan struct{})}
	c.seen.Store(time.Now().UnixNano())
	return c
}

func (c *conn) lastSeen() time.Time { return time.Unix(0, c.seen.Load()) }

// close ends the connection with a close frame.
func (c *conn) close(code int, reason string) {
	c.once.Do(func() {
		_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		close(c.quit)
		_ = c.ws.Close()
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

// sendTable sends a table's status and the view (JSON) for c.
func (c *conn) sendTable(s status, view []byte) {
	b := mustJSON(map[string]any{"op": "table", "status": s, "view": json.RawMessage(orNull(view))})
	c.send(b)
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

func (c *conn) writer() {
	tick := time.NewTicker(pingInterval)
	defer tick.Stop()
	for {
		select {
		case <-c.quit:
			return
		case b := <-c.out:
			_ = c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
				c.close(websocket.CloseAbnormalClosure, "")
				return
			}
		case <-tick.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout)); err != nil {
				c.close(websocket.CloseAbnormalClosure, "")
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
}

func (c *conn) serve() {
	go c.writer()
	defer c.close(websocket.CloseNormalClosure, "")
	c.ws.SetReadLimit(c.h.cfg.ReadLimit)
	deadline := func() { _ = c.ws.SetReadDeadline(time.Now().Add(c.h.cfg.IdleTimeout + pingInterval)) }
	deadline()
	c.ws.SetPongHandler(func(string) error { deadline(); return nil })
	for {
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			if errors.Is(err, websocket.ErrReadLimit) {
				c.close(websocket.CloseMessageTooBig, fmt.Sprintf("play: message over %d bytes", c.h.cfg.ReadLimit))
			}
			return
		}
		deadline()
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

func (c *conn) handle(r *request) error {
	h := c.h
	switch r.Op {
	case "hello":
		c.send(mustJSON(map[string]any{"op": "hello", "req": r.Req, "envs": h.envList(), "datasets": h.datasetList(),
			"record": h.cfg.RecordDir != ""}))
		return nil
	case "new":
		if r.Lineup == nil {
			return missing("lineup")
		}
		t, err := h.newTable(*r.Lineup)
		if err != nil {
			return err
		}
		take := r.Take
		if take == nil {
			for k, s := range t.lineup.Seats {
				if s == Human {
					take = append(take, k)
				}
			}
		}
		for _, k := range take {
			if k < 0 || k >= len(t.seats) || t.lineup.Seats[k] != Human {
				return &RequestError{Code: "bad_seat", Message: fmt.Sprintf("seat %d is not a human seat", k)}
			}
			t.holder[k] = c
		}
		t.watch[c] = FaceUp
		if t.humans() && len(take) > 0 {
			t.watch[c] = take[0]
		} else if t.humans() {
			t.watch[c] = 0
		}
		if err := h.addTable(c, t); err != nil {
			return err
		}
		t.mu.Lock()
		t.broadcastLocked()
		t.mu.Unlock()
		return nil
	case "join", "watch":
		t, err := h.table(r.Table)
		if err != nil {
			return err
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		n := t.e.Spec().NumPlayers
		if r.Op == "join" {
			if r.Seat == nil {
				return missing("seat")
			}
			k := *r.Seat
			if k < 0 || k >= n {
				return &RequestError{Code: "bad_seat", Message: fmt.Sprintf("seat %d does not exist (0..%d)", k, n-1)}
			}
			if t.lineup.Seats[k] != Human {
				return &RequestError{Code: "bad_seat", Message: fmt.Sprintf("seat %d is played by %s", k, t.lineup.Seats[k])}
			}
			if t.holder[k] != nil && t.holder[k] != c {
				return &RequestError{Code: "seat_taken", Message: fmt.Sprintf("seat %d is taken", k)}
			}
			t.holder[k] = c
			t.watch[c] = k
		} else {
			v := FaceUp
			if r.View != nil {
				v = *r.View
			}
			if v < FaceUp || v >= n {
				return &RequestError{Code: "bad_seat", Message: fmt.Sprintf("view %d does not exist (-1 face up, 0..%d)", v, n-1)}
			}
			if v == FaceUp && t.humans() && !t.done {
				return &RequestError{Code: "hidden", Message: "every card face up is shown only when no person is seated"}
			}
			for k, hc := range t.holder {
				if hc == c {
					// A person watches their own seat only.
					return &RequestError{Code: "hidden", Message: fmt.Sprintf("you play seat %d here; you see its view", k)}
				}
			}
			t.watch[c] = v
		}
		t.broadcastLocked()
		return nil
	case "act":
		if r.Seat == nil {
			return missing("seat")
		}
		if r.Action == nil {
			return missing("action")
		}
		t, err := h.table(r.Table)
		if err != nil {
			return err
		}
		return t.act(c, *r.Seat, *r.Action)
	case "hint":
		if r.Seat == nil {
			return missing("seat")
		}
		t, err := h.table(r.Table)
		if err != nil {
			return err
		}
		return t.startHint(c, *r.Seat, r.Req)
	case "control":
		t, err := h.table(r.Table)
		if err != nil {
			return err
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if _, ok := t.watch[c]; !ok {
			return &RequestError{Code: "not_at_table", Message: "open the game first (watch or join)"}
		}
		if r.Delay != nil {
			if *r.Delay < 0 || *r.Delay > 60_000 {
				return &RequestError{Code: "bad_request", Message: "delay_ms must be within 0..60000"}
			}
			t.delay = time.Duration(*r.Delay) * time.Millisecond
		}
		if r.Paused != nil {
			t.paused = *r.Paused
		}
		if r.Advance < 0 || r.Advance > 1000 {
			return &RequestError{Code: "bad_request", Message: "advance must be within 0..1000"}
		}
		t.advance += r.Advance
		t.poke()
		t.broadcastLocked()
		return nil
	case "episodes":
		list, err := h.episodes(r.Dataset)
		if err != nil {
			return err
		}
		c.send(mustJSON(map[string]any{"op": "episodes", "req": r.Req, "dataset": r.Dataset, "episodes": list}))
		return nil
	case "replay":
		if r.Episode == nil {
			return missing("episode")
		}
		st, v := 0, FaceUp
		if r.Step != nil {
			st = *r.Step
		}
		if r.View != nil {
			v = *r.View
		}
		fr, err := h.replayFrame(r.Dataset, *r.Episode, st, v)
		if err != nil {
			return err
		}
		c.send(mustJSON(map[string]any{"op": "replay", "req": r.Req, "frame": fr}))
		return nil
	}
	return &RequestError{Code: "unknown_op", Message: fmt.Sprintf("unknown op %q (hello, new, join, watch, act, control, episodes, replay)", r.Op)}
}
