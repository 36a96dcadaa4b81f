package play

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/server"
)

// Training is what the page needs of the training server whose sessions
// it shows (render_mode="human"): [server.Server] implements it.
type Training interface {
	// Watch starts watching environment index of the session with watch
	// id session, presenting its watch key; errors are *server.WatchError.
	Watch(session, key string, index int) (*server.Watcher, error)
}

// trainingWatch is a connection's watch of a training session: at most
// one a connection (a new one replaces it).
type trainingWatch struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

// stop ends the connection's watch, if any.
func (tw *trainingWatch) stop() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.cancel != nil {
		tw.cancel()
		tw.cancel = nil
	}
}

// watchTraining starts c's watch of environment r.Index (default 0) of
// the training session r.Session with the watch key r.Key (op
// watch_training): from then on c receives op "training" messages, each
// with the environment's latest position as the face-up view (every
// card face up: the training client owns every seat), read-only (no
// actions), at most one every server.WatchInterval, built on the page's
// pool; then one op "training_ended" when the session ends. The watch
// stops when c leaves or starts another.
func (h *Handler) watchTraining(c *conn, r *request) error {
	if h.cfg.Training == nil {
		return &RequestError{Code: "no_training", Message: "this page is not served beside a training server (galaxygym serve serves both)"}
	}
	if r.Session == "" || r.Key == "" {
		return missing("session and key (the URL the training client printed)")
	}
	idx := 0
	if r.Index != nil {
		idx = *r.Index
	}
	c.training.stop()
	w, err := h.cfg.Training.Watch(r.Session, r.Key, idx)
	if err != nil {
		var we *server.WatchError
		if errors.As(err, &we) {
			return &RequestError{Code: we.Code, Message: we.Reason}
		}
		return err
	}
	cl := h.clientOf(c)
	parent := h.ctx
	if cl != nil {
		parent = cl.ctx
	}
	ctx, cancel := context.WithCancel(parent)
	c.training.mu.Lock()
	c.training.cancel = cancel
	c.training.mu.Unlock()
	session, req := r.Session, r.Req
	go func() {
		defer cancel()
		defer w.Close()
		go func() {
			select {
			case <-c.quit: // the tab left
				cancel()
			case <-ctx.Done():
			}
		}()
		for {
			st, err := w.Next(ctx)
			if err != nil {
				if ctx.Err() == nil {
					c.send(mustJSON(map[string]any{"op": "training_ended", "req": req, "session": session, "env": idx,
						"message": err.Error()}))
				}
				return
			}
			var msg []byte
			perr := h.pool.do(ctx, h.pool.moves, func() {
				v, err := FaceUpView(w.Spec(), w.Params(), st)
				if err != nil {
					msg = mustJSON(map[string]any{"op": "error", "req": req, "code": "view", "message": err.Error()})
					return
				}
				v.Actions = []Action{} // read-only: nobody plays from the page
				if v.Scene != nil {
					v.Scene.Moves = []env.Move{}
				}
				msg = mustJSON(map[string]any{"op": "training", "req": req, "session": session, "env": idx,
					"banner": trainingBanner(session, idx), "view": v})
			})
			if perr != nil {
				return
			}
			c.send(msg)
		}
	}()
	return nil
}

// trainingBanner is the banner's text of a watched training session: its
// id's first 8 digits (enough to tell sessions apart on one screen).
func trainingBanner(session string, idx int) string {
	if len(session) > 8 {
		session = session[:8] + "…"
	}
	return fmt.Sprintf("watching training session %s, env %d", session, idx)
}
