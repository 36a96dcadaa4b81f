package play

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// hintSeed seeds a hint agent before every hint, so that a hint depends on
// the seat's observation alone.
const hintSeed = 0x6_1e7_0f_5ea7

// think asks agent a for player's move and, when show is set (no person at
// the table) and a is an [agents.Explainer], what it thought of each legal
// action: an mcts's visit counts and mean returns, a policy's
// probabilities, a heuristic's action values. It returns the action, the
// thoughts (nil when the agent shows none, or show is off) and what the
// values are. Thinking aloud does not change the move: ActExplained
// returns what Act would.
func think(spec *env.Spec, a agents.Agent, player int, obs, mask []uint8, show bool) (int, []Action, string) {
	x, ok := a.(agents.Explainer)
	if !show || !ok {
		return a.Act(player, obs, mask), nil, ""
	}
	var th agents.Thoughts
	act := x.ActExplained(player, obs, mask, &th)
	return act, thoughtActions(spec, mask, &th), th.ValueUnit
}

// thoughtActions lists the legal actions of mask with th's numbers about
// each; nil when th holds none.
func thoughtActions(spec *env.Spec, mask []uint8, th *agents.Thoughts) []Action {
	if len(th.Visits) == 0 && len(th.Values) == 0 && len(th.Probs) == 0 {
		return nil
	}
	var out []Action
	has := false
	for i, m := range mask {
		if m == 0 {
			continue
		}
		a := Action{A: i, Name: spec.ActionNames[i], Words: Describe(spec.ActionNames[i])}
		if i < len(th.Probs) {
			p := th.Probs[i]
			a.P, has = &p, true
		}
		if i < len(th.Values) && !math.IsNaN(th.Values[i]) && !math.IsInf(th.Values[i], 0) {
			v := th.Values[i]
			a.V, has = &v, true
		}
		if i < len(th.Visits) {
			n := th.Visits[i]
			a.N = &n
			has = has || n > 0
		}
		out = append(out, a)
	}
	if !has {
		return nil // e.g. a decision mcts did not search
	}
	return out
}

// hinter is the agent a table's people may ask for hints about their own
// decisions (Lineup.Hint), with a lock of its own: a hint is worked out
// outside the table's lock.
type hinter struct {
	mu sync.Mutex
	a  agents.Agent
}

// newHinter makes the hint agent of a lineup; nil when it offers none.
func (h *Handler) newHinter(spec *env.Spec, l Lineup) (*hinter, error) {
	if l.Hint == "" {
		return nil, nil
	}
	if l.Hint == Human || l.Hint == "random" {
		return nil, &RequestError{Code: "bad_lineup", Message: "hint: " + l.Hint + " gives no hints"}
	}
	opts, err := h.agentOptions(spec, l.Hint, l.AgentOpts[l.Hint])
	if err != nil {
		return nil, err
	}
	a, err := agents.New(l.Hint, spec, opts)
	if err != nil {
		return nil, &RequestError{Code: "bad_lineup", Message: "hint: " + err.Error()}
	}
	return &hinter{a: a}, nil
}

// Hint is what a hint agent thinks of seat's decision, worked out from
// seat's observation obs alone: the position is rebuilt from it as the
// seat's view is ([View]; the legal actions are the view's), and the agent
// is reset to a fixed seed first, so two positions the seat cannot tell
// apart get the same hint. It returns the legal actions with the agent's
// numbers (nil for an agent that is not an [agents.Explainer], or that
// weighed nothing), the action it would play and what its values are. It
// returns a
// *ViewError when the game has no determinizer, and a *RequestError when
// the seat is not to act.
func Hint(spec *env.Spec, params env.Params, a agents.Agent, seat int, obs []uint8) ([]Action, int, string, error) {
	g, err := env.Lookup(spec.ID)
	if err != nil {
		return nil, -1, "", err
	}
	det, ok := g.(env.Determinizer)
	if !ok {
		return nil, -1, "", &ViewError{Env: spec.ID, Reason: "the game has no determinizer"}
	}
	d, err := det.Determinize(params, seat, obs, viewSeed, nil)
	if err != nil {
		return nil, -1, "", &ViewError{Env: spec.ID, Reason: err.Error()}
	}
	if d.Terminal() || d.CurrentPlayer() != seat {
		return nil, -1, "", &RequestError{Code: "out_of_turn", Message: fmt.Sprintf("seat %d is not to act", seat)}
	}
	mask := make([]uint8, spec.NumActions())
	d.LegalMask(mask)
	a.Reset(hintSeed)
	x, ok := a.(agents.Explainer)
	if !ok {
		return nil, a.Act(seat, obs, mask), "", nil
	}
	var th agents.Thoughts
	act := x.ActExplained(seat, obs, mask, &th)
	return thoughtActions(spec, mask, &th), act, th.ValueUnit, nil
}

// startHint checks a person's request for a hint about their seat's
// decision and has it worked out on the page's pool, within c's and the
// server's hint budgets ([Limits]); the answer (op hint) or the error
// comes later, tagged req. The hint is cancelled when c drops, and bounded
// by HintTimeout.
func (t *table) startHint(c *conn, seat int, req string) error {
	h := t.h
	cl := h.clientOf(c)
	if cl == nil {
		return &RequestError{Code: "shutting_down", Message: "the connection is closing"}
	}
	work, err := t.prepareHint(c, seat)
	if err != nil {
		return err
	}
	if err := h.startHint(cl); err != nil {
		return err
	}
	go func() {
		defer h.endHint(cl)
		ctx, cancel := context.WithTimeout(cl.ctx, h.cfg.Limits.HintTimeout)
		defer cancel()
		var msg map[string]any
		var herr error
		if err := h.pool.do(ctx, h.pool.hints, func() { msg, herr = work(ctx) }); err != nil && msg == nil && herr == nil {
			herr = &RequestError{Code: "limit_exceeded", Message: fmt.Sprintf("the server was too busy to start the hint within %v", h.cfg.Limits.HintTimeout)}
		}
		if cl.ctx.Err() != nil {
			return // the page left
		}
		if herr != nil {
			c.sendErr(req, herr)
			return
		}
		msg["req"] = req
		c.send(mustJSON(msg))
	}()
	return nil
}

// prepareHint checks that c may ask for a hint about seat now and returns
// the work that answers it: what the hint agent thinks of the seat's
// decision, bounded by ctx (through agents.SetContext).
func (t *table) prepareHint(c *conn, seat int) (func(ctx context.Context) (map[string]any, error), error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.hinter == nil {
		return nil, &RequestError{Code: "no_hints", Message: "this game was set up without hints"}
	}
	spec := t.e.Spec()
	if !t.plays(c, seat) {
		return nil, &RequestError{Code: "not_your_seat", Message: fmt.Sprintf("seat %d is not yours", seat)}
	}
	if t.done || t.e.Done() || t.e.CurrentPlayer() != seat {
		return nil, &RequestError{Code: "out_of_turn", Message: fmt.Sprintf("seat %d is not to act", seat)}
	}
	obs := make([]uint8, spec.ObsSize())
	if err := t.e.Observe(seat, obs); err != nil {
		return nil, err
	}
	steps, params, hn := len(t.history), t.e.Params(), t.hinter
	return func(ctx context.Context) (map[string]any, error) {
		hn.mu.Lock()
		defer hn.mu.Unlock()
		agents.SetContext(hn.a, ctx)
		defer agents.SetContext(hn.a, nil)
		list, act, unit, err := Hint(spec, params, hn.a, seat, obs)
		if err != nil {
			return nil, err
		}
		return map[string]any{"op": "hint", "table": t.id, "seat": seat, "steps": steps, "agent": t.lineup.Hint,
			"thought": list, "choice": act, "unit": unit}, nil
	}, nil
}
