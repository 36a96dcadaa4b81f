package play

import (
	"context"
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
		t, err := h.newTableFrom(c, *r.Lineup, r.From)
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
		// The person who starts the table gets a secret for each seat they
		// take, and the creator's (control while nobody is seated).
		t.creator = newPerson(c)
		var taken []int
		for _, k := range take {
			if k < 0 || k >= len(t.seats) || t.lineup.Seats[k] != Human {
				return &RequestError{Code: "bad_seat", Message: fmt.Sprintf("seat %d is not a human seat", k)}
			}
			if t.holder[k] == nil {
				t.holder[k] = newPerson(c)
				taken = append(taken, k)
			}
		}
		t.watch[c] = FaceUp
		if len(taken) > 0 {
			t.watch[c] = taken[0]
		} else if t.humans() {
			t.watch[c] = Public
		}
		if err := h.addTable(c, t); err != nil {
			return err
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		c.send(secretMsg(r.Req, t.id, FaceUp, t.creator))
		for _, k := range taken {
			c.send(secretMsg(r.Req, t.id, k, t.holder[k]))
		}
		t.broadcastLocked()
		return nil
	case "rematch":
		// The same lineup, the next seed, the seats rotated: a new table,
		// charged to this connection's budget like op new. Asked twice, it
		// answers with the same table.
		old, err := h.table(r.Table)
		if err != nil {
			return err
		}
		old.mu.Lock()
		if old.rematch != "" {
			id := old.rematch
			old.mu.Unlock()
			return &RequestError{Code: "rematch_started", Message: "the rematch is table " + id}
		}
		l, movers, err := old.rematchLocked(c)
		creator := old.creator
		old.mu.Unlock()
		if err != nil {
			return err
		}
		t, err := h.newTable(l)
		if err != nil {
			return err
		}
		t.creator = &person{secret: newPerson(nil).secret, conns: map[*conn]struct{}{c: {}}}
		if creator != nil {
			t.creator.secret = creator.secret
		}
		t.watch[c] = FaceUp
		if t.humans() {
			t.watch[c] = Public
		}
		for k, p := range movers {
			if p == nil {
				continue
			}
			t.holder[k] = p
			for pc := range p.conns {
				if w, ok := t.watch[pc]; !ok || w < 0 {
					t.watch[pc] = k
				}
			}
		}
		if err := h.addTable(c, t); err != nil {
			return err
		}
		old.mu.Lock()
		old.rematch = t.id
		old.mu.Unlock()
		t.mu.Lock()
		defer t.mu.Unlock()
		c.send(secretMsg(r.Req, t.id, FaceUp, t.creator))
		for k, p := range t.holder {
			if p == nil {
				continue
			}
			for pc := range p.conns {
				pc.send(secretMsg(r.Req, t.id, k, p))
			}
		}
		t.broadcastLocked()
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
			p, err := t.claimLocked(c, k, r.Secret)
			if err != nil {
				return err
			}
			t.watch[c] = k
			if p != nil { // a new person: their secret, to this connection only
				c.send(secretMsg(r.Req, t.id, k, p))
			}
		} else {
			if r.Secret != "" {
				if !t.creator.knows(r.Secret) {
					return &RequestError{Code: "bad_secret", Message: "that is not this table's creator's secret (a seat's secret joins its seat: op join)"}
				}
				t.creator.attach(c)
			}
			v := FaceUp
			if t.hidden() {
				v = Public
			}
			if r.View != nil {
				v = *r.View
			}
			if v < Public || v >= n {
				return &RequestError{Code: "bad_seat", Message: fmt.Sprintf("view %d does not exist (-2 public, -1 face up, 0..%d)", v, n-1)}
			}
			for k := range t.holder {
				if t.plays(c, k) {
					// A person watches their own seat only.
					return &RequestError{Code: "hidden", Message: fmt.Sprintf("you play seat %d here; you see its view", k)}
				}
			}
			if v != Public && t.hidden() {
				return &RequestError{Code: "hidden", Message: "while a person is seated and the game is not over, spectators see the public view only (view -2): no seat's view, no card face up"}
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
		if r.Steps == nil {
			return missing("steps (the status's steps of the decision the move answers)")
		}
		t, err := h.table(r.Table)
		if err != nil {
			return err
		}
		return t.act(c, *r.Seat, *r.Action, *r.Steps)
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
		if !t.mayControl(c) {
			return &RequestError{Code: "not_allowed", Message: "only the people seated at this game (or, while nobody is seated, the person who started it) pause it, step it or change its speed"}
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
	case "history":
		// A history replays the game and draws a view: page work, so it runs
		// on the pool under the page's CPU share, like a hint.
		cl := h.clientOf(c)
		ctx, cancel := context.WithTimeout(cl.ctx, h.cfg.Limits.HintTimeout)
		defer cancel()
		var msg map[string]any
		var err error
		if perr := h.pool.do(ctx, h.pool.hints, func() { msg, err = h.historyOp(c, r) }); perr != nil && msg == nil && err == nil {
			err = &RequestError{Code: "limit_exceeded", Message: fmt.Sprintf("the server was too busy to answer the history within %v", h.cfg.Limits.HintTimeout)}
		}
		if err != nil {
			return err
		}
		c.send(mustJSON(msg))
		return nil
	case "watch_training":
		return h.watchTraining(c, r)
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
	return &RequestError{Code: "unknown_op", Message: fmt.Sprintf("unknown op %q (hello, new, join, watch, act, control, history, episodes, replay, watch_training)", r.Op)}
}
