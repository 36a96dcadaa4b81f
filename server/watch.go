package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/galaxygym/galaxygym/env"
)

// MsgWatchKey asks for (client) and answers with (server) the session's
// watch key: the secret with which the browser page of the same port
// shows the session's environments live (render_mode="human",
// docs/protocol.md "Watching a session").
const MsgWatchKey = "watch_key"

// MaxWatchers is how many watchers (page connections) one training
// session may have at once; one more gets a *WatchError with code
// "limit_exceeded".
const MaxWatchers = 4

// WatchInterval is the shortest time between two positions one watcher
// receives (at most 10 a second): the positions in between are dropped,
// the latest one is always delivered.
const WatchInterval = 100 * time.Millisecond

// WatchError is the error of [Server.Watch] and [Watcher.Next]. Code is
// "watch_denied" (no session with that id, or not its key: the two are
// not told apart), "bad_request" (an environment index out of range),
// "limit_exceeded" (MaxWatchers already watch) or "watch_ended" (the
// session ended, or made a new batch).
type WatchError struct {
	Code   string
	Reason string
}

func (e *WatchError) Error() string { return "server: watch: " + e.Reason }

// watchEnded is Next's error once the watched session is gone.
var watchEnded = &WatchError{Code: "watch_ended", Reason: "the training session ended (or made a new batch of environments)"}

// Watcher receives the positions of one environment of one training
// session, the latest one at most every WatchInterval. The session's
// step path never waits for it: after each message the session handles
// it only looks whether a watcher wants a position (an atomic flag), and
// clones the environment's state when one does; with no watcher it does
// nothing more than read one atomic boolean.
type Watcher struct {
	ss    *session
	b     *batch
	index int

	want    atomic.Bool
	changed chan struct{} // the position may have changed since the last one taken
	ready   chan struct{} // slot holds a position
	slot    env.State     // guarded by ss.wmu
	done    chan struct{} // closed when the watch ends
	last    time.Time
	first   bool
}

// Spec returns the watched environment's spec.
func (w *Watcher) Spec() *env.Spec { return w.b.spec }

// Params returns the watched environment's parameters.
func (w *Watcher) Params() env.Params { return w.b.params }

// Index returns the watched environment's index in the session's batch.
func (w *Watcher) Index() int { return w.index }

// Done is closed when the watch has ended: the session ended, made a new
// batch, or Close was called.
func (w *Watcher) Done() <-chan struct{} { return w.done }

// Next returns the environment's next position (a State of its own, which
// the caller may keep): the current one on the first call, then, at least
// WatchInterval after the previous one, the latest position once it has
// changed. It blocks until then; it returns ctx's error when ctx ends
// first, a *WatchError with code "watch_ended" once the watch has ended.
// One goroutine at a time may call it.
func (w *Watcher) Next(ctx context.Context) (env.State, error) {
	if !w.first {
		if wait := time.Until(w.last.Add(WatchInterval)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-w.done:
				t.Stop()
				return nil, watchEnded
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		select {
		case <-w.changed:
		case <-w.done:
			return nil, watchEnded
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	w.first = false
	w.want.Store(true)
	select { // a change signalled before want was set is in the position taken now
	case <-w.changed:
	default:
	}
	// An idle session (no message in flight) publishes now, from here; a
	// busy one publishes once its message has been handled (the handler
	// clears handling before it publishes, so a message seen in flight
	// here has not published yet and sees want). The lock may also be
	// held for a moment by another watcher's publish or by goAway: then
	// try again shortly.
	for {
		if w.ss.mu.TryLock() {
			if !w.ss.closing {
				w.ss.publishWatchLocked(false)
			}
			w.ss.mu.Unlock()
			break
		}
		if w.ss.handling.Load() {
			break
		}
		t := time.NewTimer(time.Millisecond)
		select {
		case <-w.ready:
			t.Stop()
			w.ready <- struct{}{} // taken below
		case <-t.C:
			continue
		case <-w.done:
			t.Stop()
			return nil, watchEnded
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		break
	}
	select {
	case <-w.ready:
	case <-w.done:
		return nil, watchEnded
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	w.ss.wmu.Lock()
	st := w.slot
	w.slot = nil
	w.ss.wmu.Unlock()
	w.last = time.Now()
	return st, nil
}

// Close ends the watch and frees its place among the session's
// MaxWatchers. It is idempotent.
func (w *Watcher) Close() {
	ss := w.ss
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	ss.dropWatcherLocked(w)
}

// dropWatcherLocked ends w and removes it (ss.wmu held).
func (ss *session) dropWatcherLocked(w *Watcher) {
	for i, o := range ss.watchers {
		if o == w {
			ss.watchers = append(ss.watchers[:i], ss.watchers[i+1:]...)
			close(w.done)
			break
		}
	}
	ss.watching.Store(len(ss.watchers) > 0)
}

// Watch starts watching environment index of the training session whose
// watch id is session, presenting its watch key (both from the session's
// watch_key reply). Errors: *WatchError ("watch_denied" for an unknown
// session or a wrong key, compared in constant time; "bad_request";
// "limit_exceeded").
func (s *Server) Watch(session, key string, index int) (*Watcher, error) {
	s.mu.Lock()
	ss := s.watchable[session]
	s.mu.Unlock()
	denied := &WatchError{Code: "watch_denied", Reason: "no training session with that id and watch key (the client prints both in the URL; the session may have ended)"}
	if ss == nil {
		// Compare anyway, so that an unknown id and a wrong key take alike.
		var zero [watchKeyBytes * 2]byte
		subtle.ConstantTimeCompare([]byte(key), zero[:])
		return nil, denied
	}
	if subtle.ConstantTimeCompare([]byte(key), []byte(ss.watchKey)) != 1 {
		return nil, denied
	}
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	if ss.watchEnded || ss.watchB == nil {
		return nil, watchEnded
	}
	if index < 0 || index >= len(ss.watchB.envs) {
		return nil, &WatchError{Code: "bad_request", Reason: fmt.Sprintf("environment %d out of range [0, %d)", index, len(ss.watchB.envs))}
	}
	if len(ss.watchers) >= MaxWatchers {
		return nil, &WatchError{Code: "limit_exceeded", Reason: fmt.Sprintf("%d pages already watch this session (at most %d)", len(ss.watchers), MaxWatchers)}
	}
	w := &Watcher{ss: ss, b: ss.watchB, index: index, changed: make(chan struct{}, 1), ready: make(chan struct{}, 1),
		done: make(chan struct{}), first: true}
	ss.watchers = append(ss.watchers, w)
	ss.watching.Store(true)
	return w, nil
}

// watchKeyBytes is the watch key's length in random bytes (hex: twice).
const watchKeyBytes = 32

// handleWatchKey answers the session's watch id and key, registering the
// session as watchable on the first request.
func (ss *session) handleWatchKey() bool {
	if ss.b == nil {
		return ss.sendError(errorf(CodeNotMade, "watch_key before make"))
	}
	if ss.watchID == "" {
		var id [16]byte
		var key [watchKeyBytes]byte
		if _, err := rand.Read(id[:]); err != nil {
			return ss.sendError(errorf(CodeInternal, "watch key: %v", err))
		}
		if _, err := rand.Read(key[:]); err != nil {
			return ss.sendError(errorf(CodeInternal, "watch key: %v", err))
		}
		ss.wmu.Lock()
		ss.watchKey = hex.EncodeToString(key[:])
		ss.watchB = ss.b
		ss.wmu.Unlock()
		ss.watchID = hex.EncodeToString(id[:])
		s := ss.srv
		s.mu.Lock()
		if s.watchable == nil {
			s.watchable = map[string]*session{}
		}
		s.watchable[ss.watchID] = ss
		s.mu.Unlock()
	}
	return ss.writeJSON(map[string]any{"type": MsgWatchKey, "session": ss.watchID, "key": ss.watchKey,
		"page": "/play/", "max_watchers": MaxWatchers, "interval_s": WatchInterval.Seconds()})
}

// rewatchLocked follows a new make: the watchers of the old batch end and
// new ones watch the new batch (ss.mu held).
func (ss *session) rewatchLocked() {
	if ss.watchID == "" {
		return
	}
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	for len(ss.watchers) > 0 {
		ss.dropWatcherLocked(ss.watchers[0])
	}
	ss.watchB = ss.b
}

// publishWatchLocked runs after each message the session handles (ss.mu
// held) while a watcher exists, and from a watcher's Next on an idle
// session: a watcher that wants a position gets a clone of its
// environment's state; after a message (handled), the others are told
// it may have changed.
func (ss *session) publishWatchLocked(handled bool) {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	for _, w := range ss.watchers {
		if w.b != ss.b {
			continue
		}
		st := ss.b.envs[w.index].State()
		if st != nil && w.want.CompareAndSwap(true, false) {
			w.slot = st.Clone()
			select {
			case w.ready <- struct{}{}:
			default:
			}
			continue
		}
		if handled {
			select {
			case w.changed <- struct{}{}:
			default:
			}
		}
	}
}

// endWatch ends every watcher and forgets the session's watch id; the
// session has ended.
func (ss *session) endWatch() {
	if ss.watchID != "" {
		s := ss.srv
		s.mu.Lock()
		delete(s.watchable, ss.watchID)
		s.mu.Unlock()
	}
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	ss.watchEnded = true
	for len(ss.watchers) > 0 {
		ss.dropWatcherLocked(ss.watchers[0])
	}
}
