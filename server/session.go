package server

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/server/wsconn"
	"github.com/galaxygym/galaxygym/version"
)

// session is one websocket connection: the handshake state and at most one
// batch of environments.
//
// Two goroutines serve it: the read loop (readLoop) reads the next message
// while the handler goroutine (run) handles the previous one, so that a
// connection that drops is seen at once, even during a long request: ctx
// is cancelled, which stops the work in flight (a reset between two
// environments, a step with opponents between two environments and inside
// their searches), and the slot is released once that work has stopped.
type session struct {
	srv    *Server
	ws     *wsconn.Conn // the websocket with its limits (read limit, deadlines, pings)
	remote string
	addr   string // the client IP counted against MaxSessionsPerAddr, or ""

	// ctx is cancelled when the client has gone (its read failed), when the
	// server shuts the session down, or when run returns; long requests
	// (a reset loading states) stop when it is.
	ctx    context.Context
	cancel context.CancelFunc

	// makeDeadline, set before run, closes the session when no make has
	// arrived within MakeTimeout; made records the first make.
	makeDeadline bool
	made         atomic.Bool

	// mu is held while a message is handled; goAway takes it so that a
	// step in flight finishes and its reply goes out before the close.
	mu      sync.Mutex
	closing bool
	done    chan struct{} // closed when run has returned

	// readerDone is closed when the read loop has returned (nil before
	// run); drain, once closed, makes the read loop discard messages
	// instead of handing them over (the session is closing).
	readerDone chan struct{}
	drain      chan struct{}
	drainOnce  sync.Once

	// registered is set by Server.register; releaseOnce frees the
	// session's slot (MaxSessions, MaxSessionsPerAddr) once: when the
	// session ends it (a "closed" reply or a close frame, from the handler,
	// after any work), before the client can see that end, so that a client
	// reconnecting at once is not refused for the slot it just gave back;
	// when the client drops, only once the message in flight has been
	// handled (run returns), so that the work of a session that is gone
	// still counts against MaxSessions until it has stopped.
	registered  bool
	releaseOnce sync.Once

	lastActive atomic.Int64 // unix nanoseconds of the last work message (see touch)

	hello bool
	b     *batch
	id    string
	steps prometheus.Counter
	reqs  prometheus.Counter
	out   []byte // reused JSON reply buffer (at most MaxReplyBytes)

	// reqID is the request id of the message being handled (a control
	// message's "id", a step request's trailer), echoed in its reply; nil
	// when the message carried none or could not be read.
	reqID *uint32
	idBuf uint32

	// Watching (watch.go): watchID, set by the first watch_key, is the
	// session's public watch id; watching is true while a watcher exists
	// (the only thing the step path reads when nobody watches); wmu guards
	// watchKey, watchB (the batch watched), watchers and watchEnded.
	watchID    string
	watching   atomic.Bool
	handling   atomic.Bool // a message is being handled (set and cleared under mu, before the publish)
	wmu        sync.Mutex
	watchKey   string
	watchB     *batch
	watchers   []*Watcher
	watchEnded bool
}

func newSession(s *Server, conn *websocket.Conn, remote string) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{srv: s, ws: wsconn.New(conn, s.ws), remote: remote, done: make(chan struct{}), drain: make(chan struct{}),
		ctx: ctx, cancel: cancel}
}

// release gives the session's slot back to the server; it is idempotent
// and a no-op for a session that was never registered.
func (ss *session) release() {
	if ss.registered {
		ss.releaseOnce.Do(func() { ss.srv.releaseSlot(ss) })
	}
}

// refuse sends err and closes with code, without running the session.
func (ss *session) refuse(code int, err *Error) {
	ss.srv.m.errors.WithLabelValues(string(err.Code)).Inc()
	_ = ss.ws.Write(websocket.TextMessage, errorJSON(err, nil))
	ss.closeAndDrain(code, err.Error())
	ss.cancel()
	close(ss.done)
}

// inMsg is one client message handed from the read loop to run.
type inMsg struct {
	mt  int
	buf []byte
}

// run reads messages until the connection ends, calling handle for each
// with the session lock held; handle returns false once it has closed the
// connection.
func (ss *session) run(handle func(mt int, msg []byte) bool) {
	defer close(ss.done)
	defer func() {
		ss.release()
		ss.cancel()
		ss.endWatch()
		ss.stopDelivery()
		ss.ws.Close()
	}()
	cfg := &ss.srv.cfg
	ss.touch()
	stop := make(chan struct{})
	defer close(stop)
	go ss.keepalive(stop)
	if ss.makeDeadline {
		t := time.AfterFunc(cfg.MakeTimeout, func() {
			if !ss.made.Load() {
				ss.srv.m.errors.WithLabelValues("make_timeout").Inc()
				ss.goAway(websocket.ClosePolicyViolation, "server: no make within "+cfg.MakeTimeout.String())
			}
		})
		defer t.Stop()
	}
	// Two buffers: one being handled, one being read.
	msgs := make(chan inMsg)
	free := make(chan []byte, 2)
	free <- nil
	free <- nil
	ss.readerDone = make(chan struct{})
	go ss.readLoop(msgs, free)
	for m := range msgs {
		ss.mu.Lock()
		if ss.closing {
			ss.mu.Unlock()
			return
		}
		ss.srv.inFlight.Add(1)
		ss.handling.Store(true)
		ok := handle(m.mt, m.buf)
		ss.handling.Store(false)
		if ss.watching.Load() {
			ss.publishWatchLocked(true)
		}
		ss.srv.inFlight.Add(-1)
		ss.mu.Unlock()
		free <- m.buf
		if !ok {
			return
		}
	}
}

// readLoop reads the client's messages and hands them to run. When a read
// fails (the client closed or dropped the connection, a deadline passed,
// a message was too big) it cancels the session's context at once, which
// stops the message being handled; run releases the slot once that
// handling has returned.
func (ss *session) readLoop(msgs chan<- inMsg, free chan []byte) {
	defer close(ss.readerDone)
	defer close(msgs)
	// The buffer for the next message, taken once it has begun (so that a
	// dropped connection is seen while both buffers are busy); nil when
	// the session is closing.
	next := func() []byte {
		select {
		case buf := <-free:
			return buf
		case <-ss.drain:
			return nil
		}
	}
	for {
		mt, buf, err := ss.ws.Read(next)
		if err != nil {
			if wsconn.IsTooBig(err) {
				ss.srv.m.errors.WithLabelValues("message_too_big").Inc() // gorilla has sent 1009
			}
			ss.cancel()
			return
		}
		select {
		case msgs <- inMsg{mt, buf}:
		case <-ss.drain: // closing: the message is dropped
		}
	}
}

// stopDelivery makes the read loop drop what it reads from now on.
func (ss *session) stopDelivery() { ss.drainOnce.Do(func() { close(ss.drain) }) }

// touch records work: the idle timeout counts from the last touch. Work
// is a make, reset, step, render, info, get_state or observe (an /echo
// message on that endpoint); hello, list, pings and pongs are not.
func (ss *session) touch() { ss.lastActive.Store(time.Now().UnixNano()) }

// keepalive pings the client every PingInterval and closes an idle session.
func (ss *session) keepalive(stop chan struct{}) {
	idle := ss.srv.cfg.IdleTimeout
	ss.ws.KeepAlive(stop, func(now time.Time) bool {
		if now.Sub(time.Unix(0, ss.lastActive.Load())) > idle {
			ss.srv.m.errors.WithLabelValues("idle_timeout").Inc()
			ss.goAway(websocket.ClosePolicyViolation, "server: idle timeout")
			return false
		}
		return true
	})
}

// goAway closes the session from outside its handler: it cancels the
// session's context (a long request stops and answers [CodeCancelled]),
// waits for the message being handled (a step finishes and its reply goes
// out), sends a close frame with code and reason, waits briefly for the
// client's close reply, then drops the connection.
func (ss *session) goAway(code int, reason string) {
	ss.cancel()
	ss.mu.Lock()
	already := ss.closing
	ss.closing = true
	ss.mu.Unlock()
	if already {
		return
	}
	ss.release()
	ss.ws.CloseHandshake(code, reason, ss.done)
}

// closeAndDrain sends a close frame from the handler and waits (a second
// at most) for the client's close reply, so that the client sees the
// code, then closes the connection.
func (ss *session) closeAndDrain(code int, reason string) {
	ss.release()
	if ss.readerDone == nil { // not running: the handshake reads the reply itself
		ss.ws.CloseHandshake(code, reason, nil)
		return
	}
	ss.stopDelivery() // the read loop reads the close reply
	ss.ws.CloseHandshake(code, reason, ss.readerDone)
}

func (ss *session) write(mt int, data []byte) error { return ss.ws.Write(mt, data) }

// writeBinary writes a binary reply (step, reset) with the request id
// trailer: data's storage must have 4 bytes of capacity beyond its length.
func (ss *session) writeBinary(data []byte) bool {
	var id uint32
	if ss.reqID != nil {
		id = *ss.reqID
	}
	return ss.write(websocket.BinaryMessage, binary.LittleEndian.AppendUint32(data, id)) == nil
}

func (ss *session) writeJSON(v map[string]any) bool { return ss.writeJSONLimit(v, 0) }

// writeJSONLimit writes v with the request id added, or a
// CodeLimitExceeded error when limit > 0 and v's JSON is longer. The
// replies whose size a client chooses (get_state, observe; render and info
// through writeList) are limited; the fixed ones (hello, envs, made) are
// not.
func (ss *session) writeJSONLimit(v map[string]any, limit int) bool {
	if ss.reqID != nil {
		v["id"] = *ss.reqID
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ss.sendError(errorf(CodeInternal, "encoding reply: %v", err))
	}
	if limit > 0 && len(b) > limit {
		return ss.sendError(ss.tooLarge(len(b)))
	}
	return ss.write(websocket.TextMessage, b) == nil
}

func (ss *session) tooLarge(n int) *Error {
	return errorf(CodeLimitExceeded, "the reply would be over %d bytes (at least %d), this server's limit; ask for fewer environments",
		ss.srv.cfg.MaxReplyBytes, n)
}

// sendError sends an error reply; it returns false when the write failed.
func (ss *session) sendError(e *Error) bool {
	ss.srv.m.errors.WithLabelValues(string(e.Code)).Inc()
	return ss.write(websocket.TextMessage, errorJSON(e, ss.reqID)) == nil
}

// fail sends an error reply and closes the connection with code.
func (ss *session) fail(code int, e *Error) bool {
	ss.sendError(e)
	ss.closeAndDrain(code, e.Error())
	return false
}

// errorReply is the JSON form of an error reply.
type errorReply struct {
	Type    string  `json:"type"`
	Code    Code    `json:"code"`
	Message string  `json:"message"`
	Index   *int    `json:"index,omitempty"`
	Action  *int    `json:"action,omitempty"`
	ID      *uint32 `json:"id,omitempty"`
}

// errorJSON encodes an error reply with encoding/json, so that whatever
// bytes a message quotes (a position key, a NUL, invalid UTF-8, which
// becomes U+FFFD) the reply is valid JSON. id, when not nil, is the
// request id it answers.
func errorJSON(e *Error, id *uint32) []byte {
	r := errorReply{Type: MsgError, Code: e.Code, Message: e.Error(), ID: id}
	if e.Index >= 0 {
		r.Index = &e.Index
	}
	if e.Code == CodeIllegalAction {
		r.Action = &e.Action
	}
	b, err := json.Marshal(r)
	if err != nil { // unreachable: every field marshals
		return []byte(`{"type":"error","code":"internal","message":"server: internal: encoding an error reply"}`)
	}
	return b
}

// handle dispatches one message; it returns false once the connection is
// closed.
func (ss *session) handle(mt int, msg []byte) bool {
	ss.reqID = nil
	if mt == websocket.BinaryMessage {
		if !ss.hello {
			return ss.fail(websocket.CloseProtocolError, errorf(CodeHandshakeRequired, "the first message must be a hello"))
		}
		ss.touch()
		return ss.handleStep(msg)
	}
	c, perr := DecodeControl(msg)
	if c != nil {
		ss.reqID = c.ID
	}
	if !ss.hello && (perr != nil || c.Type != MsgHello) {
		return ss.fail(websocket.CloseProtocolError, errorf(CodeHandshakeRequired,
			`the first message must be {"type":"hello","version":%d}`, Version))
	}
	if perr != nil {
		return ss.sendError(perr.(*Error))
	}
	switch c.Type {
	case MsgMake, MsgReset, MsgRender, MsgInfo, MsgGetState, MsgObserve:
		ss.touch()
	}
	switch c.Type {
	case MsgHello:
		return ss.handleHello(c)
	case MsgList:
		return ss.handleList()
	case MsgMake:
		return ss.handleMake(c)
	case MsgReset:
		return ss.handleReset(c)
	case MsgRender:
		return ss.handleRender(c)
	case MsgInfo:
		return ss.handleInfo(c)
	case MsgGetState:
		return ss.handleGetState(c)
	case MsgObserve:
		return ss.handleObserve(c)
	case MsgWatchKey:
		return ss.handleWatchKey()
	case MsgClose:
		ss.release()
		ss.writeJSON(map[string]any{"type": MsgClosed})
		ss.closeAndDrain(websocket.CloseNormalClosure, "")
		return false
	}
	return ss.sendError(errorf(CodeUnknownMessage, "unknown control message type %q", c.Type))
}

func (ss *session) handleHello(c *Control) bool {
	if c.Version == nil || *c.Version != Version {
		got := "none"
		if c.Version != nil {
			got = strconv.Itoa(*c.Version)
		}
		return ss.fail(websocket.CloseProtocolError, errorf(CodeVersionMismatch,
			"client speaks protocol version %s; this server speaks version %d (a client and the server it runs ship together: "+
				"upgrade the older one; version 3 added request ids)", got, Version))
	}
	ss.hello = true
	cfg := &ss.srv.cfg
	return ss.writeJSON(map[string]any{
		"type":    MsgHello,
		"version": Version,
		"server":  "galaxygym",
		// The release of the serving binary (version.Version), e.g. "0.1.0".
		"server_version": version.Version,
		"limits": map[string]any{
			"max_envs":          cfg.MaxEnvs,
			"max_sessions":      cfg.MaxSessions,
			"max_message_bytes": cfg.ReadLimit,
			"idle_timeout_s":    cfg.IdleTimeout.Seconds(),
			"make_timeout_s":    cfg.MakeTimeout.Seconds(),
			"max_reply_bytes":   cfg.MaxReplyBytes,
			"max_session_bytes": cfg.MaxSessionBytes,
			"ping_interval_s":   cfg.PingInterval.Seconds(),
			"pong_timeout_s":    cfg.PongTimeout.Seconds(),
			"max_agent_sims":    cfg.MaxAgentSims,
			"max_agent_time_s":  cfg.MaxAgentTime.Seconds(),
		},
		"envs": env.IDs(),
	})
}

// WireSpec is the JSON form of an [env.Spec] in list and made replies: the
// Spec's fields (obs_high is an array of integers) plus, in a made reply,
// the session's autoreset mode.
type WireSpec struct {
	*env.Spec
	AutoresetMode string `json:"autoreset_mode,omitempty"`
}

func wireSpec(s *env.Spec, mode string) WireSpec { return WireSpec{s, mode} }

func (ss *session) handleList() bool {
	specs := []WireSpec{}
	for _, id := range env.IDs() {
		g, err := env.Lookup(id)
		if err == nil {
			specs = append(specs, wireSpec(g.Spec(), ""))
		}
	}
	return ss.writeJSON(map[string]any{"type": MsgEnvs, "specs": specs})
}

func (ss *session) handleMake(c *Control) bool {
	cfg := &ss.srv.cfg
	if c.Env == "" {
		return ss.sendError(errorf(CodeBadRequest, `make needs "env"`))
	}
	n := 1
	if c.NumEnvs != nil {
		n = *c.NumEnvs
	}
	if n < 1 {
		return ss.sendError(errorf(CodeBadRequest, "num_envs %d: want at least 1", n))
	}
	if n > cfg.MaxEnvs {
		return ss.sendError(errorf(CodeTooManyEnvs, "num_envs %d is over this server's maximum of %d", n, cfg.MaxEnvs))
	}
	mode, err := ParseAutoresetMode(c.AutoresetMode)
	if err != nil {
		return ss.sendError(errorf(CodeBadRequest, "autoreset_mode %q is not one of %v", c.AutoresetMode, modeNames))
	}
	budget := cfg.MaxSessionBytes - cfg.ReadLimit - int64(cfg.MaxReplyBytes)
	b, perr := newLearnerBatch(ss.ctx, c.Env, n, c.Params, mode, ss.srv.newSeed, cfg.Workers, budget, &c.Opponents, cfg.AgentLimits(), c.ActionFeatures)
	if perr != nil {
		return ss.sendError(perr)
	}
	ss.b, ss.id = b, c.Env
	ss.rewatchLocked()
	ss.made.Store(true)
	ss.steps = ss.srv.m.envSteps.WithLabelValues(c.Env)
	ss.reqs = ss.srv.m.stepRequests.WithLabelValues(c.Env)
	made := map[string]any{
		"type":               MsgMade,
		"env":                c.Env,
		"num_envs":           n,
		"autoreset_mode":     mode.String(),
		"params":             b.params,
		"spec":               wireSpec(b.spec, mode.String()),
		"layout":             b.lay,
		"step_request_bytes": StepRequestSize(n),
	}
	if b.plan != nil {
		made["opponents"] = b.plan.wire()
	}
	if b.feat != nil {
		made["action_feature_names"] = b.feat.ActionFeatureNames()
	}
	return ss.writeJSON(made)
}

func (ss *session) handleReset(c *Control) bool {
	if ss.b == nil {
		return ss.sendError(errorf(CodeNotMade, "reset before make"))
	}
	reply, perr := ss.b.reset(ss.ctx, c)
	if perr != nil {
		return ss.sendError(perr)
	}
	ss.srv.m.resets.WithLabelValues(ss.id).Inc()
	return ss.writeBinary(reply)
}

func (ss *session) handleStep(msg []byte) bool {
	start := time.Now()
	b := ss.b
	if b == nil {
		if len(msg) >= 4 && msg[0] == Magic[0] && msg[1] == Magic[1] && msg[3] == KindStep {
			return ss.sendError(errorf(CodeNotMade, "step before make"))
		}
		return ss.fail(websocket.CloseUnsupportedData, errorf(CodeUnsupportedFrame, "binary frame is not a step request"))
	}
	id, err := DecodeStepRequest(msg, b.actions)
	if err == nil {
		ss.idBuf = id
		ss.reqID = &ss.idBuf
	} else {
		e := err.(*Error)
		switch e.Code {
		case CodeUnsupportedFrame:
			return ss.fail(websocket.CloseUnsupportedData, e)
		case CodeVersionMismatch:
			return ss.fail(websocket.CloseProtocolError, e)
		}
		return ss.sendError(e)
	}
	if e := b.validateStep(); e != nil {
		return ss.sendError(e)
	}
	if hook := ss.srv.stepHook; hook != nil {
		hook()
	}
	reply, perr := b.step(ss.srv.pool)
	if perr != nil {
		return ss.sendError(perr)
	}
	ok := ss.writeBinary(reply)
	ss.steps.Add(float64(b.lay.N))
	ss.reqs.Inc()
	ss.srv.m.stepDuration.Observe(time.Since(start).Seconds())
	return ok
}

// indices resolves an optional index list against the batch: every index
// in range and none repeated, so that a reply lists each environment at
// most once.
func (ss *session) indices(list []int) ([]int, *Error) {
	n := ss.b.lay.N
	if list == nil {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	if len(list) > n {
		return nil, errorf(CodeBadRequest, "%d indices; the session holds %d environments", len(list), n)
	}
	seen := make([]bool, n)
	for _, i := range list {
		if i < 0 || i >= n {
			return nil, errorf(CodeBadRequest, "index %d out of range [0, %d)", i, n)
		}
		if seen[i] {
			e := errorf(CodeBadRequest, "index %d is repeated", i)
			e.Index = i
			return nil, e
		}
		seen[i] = true
	}
	return list, nil
}

// writeList answers a render or info request: {"type":typ,"key":[...]}
// with one element per index, appended by elem; it stops with
// CodeLimitExceeded as soon as the reply would pass MaxReplyBytes.
func (ss *session) writeList(typ, key string, idx []int, elem func(b []byte, i int) []byte) bool {
	limit := ss.srv.cfg.MaxReplyBytes
	b := append(ss.out[:0], `{"type":`...)
	q, _ := json.Marshal(typ) // a string always marshals
	b = append(b, q...)
	if ss.reqID != nil {
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, uint64(*ss.reqID), 10)
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	for k, i := range idx {
		if ss.ctx.Err() != nil { // the client went away, or the session is closing
			return ss.sendError(errorf(CodeCancelled, "%s stopped after %d of %d environments: the session is closing", typ, k, len(idx)))
		}
		if k > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
		if len(b) > limit {
			return ss.sendError(ss.tooLarge(len(b)))
		}
	}
	b = append(b, "]}"...)
	if len(b) > limit {
		return ss.sendError(ss.tooLarge(len(b)))
	}
	ss.out = b
	return ss.write(websocket.TextMessage, b) == nil
}

func (ss *session) handleRender(c *Control) bool {
	if ss.b == nil {
		return ss.sendError(errorf(CodeNotMade, "render before make"))
	}
	idx, perr := ss.indices(c.Indices)
	if perr != nil {
		return ss.sendError(perr)
	}
	switch c.Mode {
	case "", RenderANSI:
		return ss.writeList(MsgRender, "frames", idx, func(b []byte, i int) []byte {
			q, _ := json.Marshal(ss.b.envs[i].String()) // a string always marshals
			return append(b, q...)
		})
	case RenderRGB:
		return ss.renderRGB(idx)
	}
	return ss.sendError(errorf(CodeBadRequest, "render mode %q: want %q or %q", c.Mode, RenderANSI, RenderRGB))
}

// renderHook, set by tests, runs before each frame of an rgb_array render
// is encoded, with the session's context.
var renderHook func(ctx context.Context, k int)

func (ss *session) handleInfo(c *Control) bool {
	if ss.b == nil {
		return ss.sendError(errorf(CodeNotMade, "info before make"))
	}
	idx, perr := ss.indices(c.Indices)
	if perr != nil {
		return ss.sendError(perr)
	}
	var in env.Info
	return ss.writeList(MsgInfo, "infos", idx, func(b []byte, i int) []byte {
		e := ss.b.envs[i]
		e.FillInfo(&in)
		b = in.AppendJSON(b)
		// Every player's return so far (the finished episode's, once it is
		// over), beside the game's own info.
		if n := len(b); n > 0 && b[n-1] == '}' {
			b = append(b[:n-1], `,"returns":[`...)
			for k, r := range e.Returns() {
				if k > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendFloat(b, r, 'g', -1, 64)
			}
			b = append(b, "]}"...)
		}
		return b
	})
}

// handleObserve answers one player's observation of one environment, for
// clients (PettingZoo's AEC observe) that need the view of a player who is
// not the one to act; the step reply carries only the acting player's.
func (ss *session) handleObserve(c *Control) bool {
	if ss.b == nil {
		return ss.sendError(errorf(CodeNotMade, "observe before make"))
	}
	if c.Index == nil || c.Player == nil {
		return ss.sendError(errorf(CodeBadRequest, `observe needs "index" and "player"`))
	}
	i, p := *c.Index, *c.Player
	if i < 0 || i >= ss.b.lay.N {
		return ss.sendError(errorf(CodeBadRequest, "index %d out of range [0, %d)", i, ss.b.lay.N))
	}
	if p < 0 || p >= ss.b.lay.P {
		return ss.sendError(errorf(CodeBadRequest, "player %d out of range [0, %d)", p, ss.b.lay.P))
	}
	obs := make([]uint8, ss.b.lay.O)
	if err := ss.b.envs[i].Observe(p, obs); err != nil {
		perr := fromEnvError(err)
		perr.Index = i
		return ss.sendError(perr)
	}
	ints := make([]int, len(obs)) // a JSON array of numbers, not base64
	for k, v := range obs {
		ints[k] = int(v)
	}
	return ss.writeJSONLimit(map[string]any{"type": MsgObs, "index": i, "player": p, "obs": ints}, ss.srv.cfg.MaxReplyBytes)
}

func (ss *session) handleGetState(c *Control) bool {
	if ss.b == nil {
		return ss.sendError(errorf(CodeNotMade, "get_state before make"))
	}
	if c.Index == nil {
		return ss.sendError(errorf(CodeBadRequest, `get_state needs "index"`))
	}
	i := *c.Index
	if i < 0 || i >= ss.b.lay.N {
		return ss.sendError(errorf(CodeBadRequest, "index %d out of range [0, %d)", i, ss.b.lay.N))
	}
	snap, err := ss.b.envs[i].MarshalJSON()
	if err != nil {
		perr := fromEnvError(err)
		perr.Index = i
		return ss.sendError(perr)
	}
	return ss.writeJSONLimit(map[string]any{"type": MsgState, "index": i, "state": json.RawMessage(snap)}, ss.srv.cfg.MaxReplyBytes)
}
