package play

import (
	"context"
	"fmt"
	"time"
)

// opHello answers hello: the games, datasets and whether games are recorded.
func (c *conn) opHello(r *request) error {
	h := c.h
	c.send(mustJSON(map[string]any{"op": "hello", "req": r.Req, "envs": h.envList(), "datasets": h.datasetList(),
		"record": h.cfg.RecordDir != ""}))
	return nil
}

// opNew opens a table (op new), seats the person at the human seats they take
// (each with its secret) and makes them its creator.
func (c *conn) opNew(r *request) error {
	h := c.h
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
	return c.open(t, r.Req)
}

// open starts t, charged to c's budget, and sends each person their
// secrets: the creator's to c, each seat's to its person's connections.
func (c *conn) open(t *table, req string) error {
	if err := c.h.addTable(c, t); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c.send(secretMsg(req, t.id, FaceUp, t.creator))
	for k, p := range t.holder {
		if p == nil {
			continue
		}
		for pc := range p.conns {
			pc.send(secretMsg(req, t.id, k, p))
		}
	}
	t.broadcastLocked()
	return nil
}

// opRematch opens the rematch of a table (op rematch): the same lineup, the
// next seed, the seats rotated, each person's secret moving with them; a
// new table charged to this connection's budget like op new. Asked twice,
// it answers rematch_started with the same table.
func (c *conn) opRematch(r *request) error {
	h := c.h
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
	if err := c.open(t, r.Req); err != nil {
		return err
	}
	old.mu.Lock()
	old.rematch = t.id
	old.mu.Unlock()
	return nil
}

// opJoinWatch takes a seat (op join, with the seat's secret or a free human
// seat) or watches a view (op watch, within what spectators may see).
func (c *conn) opJoinWatch(r *request) error {
	h := c.h
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
}

// opAct plays a seated person's move (op act) at the decision it names.
func (c *conn) opAct(r *request) error {
	h := c.h
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
}

// opHint starts a hint for a seated person (op hint).
func (c *conn) opHint(r *request) error {
	h := c.h
	if r.Seat == nil {
		return missing("seat")
	}
	t, err := h.table(r.Table)
	if err != nil {
		return err
	}
	return t.startHint(c, *r.Seat, r.Req)
}

// opControl pauses, steps or changes the speed of a table (op control), for
// the people seated or, while nobody is, its creator.
func (c *conn) opControl(r *request) error {
	h := c.h
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
}

// opHistory answers op history: page work, run on the pool under the page's
// CPU share, like a hint.
func (c *conn) opHistory(r *request) error {
	h := c.h
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
}

// opEpisodes lists a served dataset's episodes (op episodes).
func (c *conn) opEpisodes(r *request) error {
	h := c.h
	list, err := h.episodes(r.Dataset)
	if err != nil {
		return err
	}
	c.send(mustJSON(map[string]any{"op": "episodes", "req": r.Req, "dataset": r.Dataset, "episodes": list}))
	return nil
}

// opReplay draws one step of a served episode (op replay).
func (c *conn) opReplay(r *request) error {
	h := c.h
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
