package agents

import (
	"context"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// searchPosition returns a Galaxy Express position with more than one
// legal action: the observation and mask of the player to act.
func searchPosition(t *testing.T) (*env.Env, int, []uint8, []uint8) {
	t.Helper()
	e, err := env.Make(ge.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(7)
	for !e.Done() {
		legal := 0
		for _, x := range e.Mask() {
			legal += int(x)
		}
		if legal > 1 {
			break
		}
		if _, err := e.Step(firstLegal(e.Mask())); err != nil {
			t.Fatal(err)
		}
	}
	p := e.CurrentPlayer()
	obs := make([]uint8, e.Spec().ObsSize())
	if err := e.Observe(p, obs); err != nil {
		t.Fatal(err)
	}
	return e, p, obs, append([]uint8(nil), e.Mask()...)
}

// TestMCTSCancel: an mcts with a huge simulation count (a search of hours)
// returns a legal action soon after its context expires, with either
// search, and at once when the context is done before Act; a nil context
// removes the bound (checked with a small count).
func TestMCTSCancel(t *testing.T) {
	e, p, obs, mask := searchPosition(t)
	for _, search := range []string{SearchHalving, SearchISMCTS} {
		m, err := NewMCTS(e.Spec(), Options{"sims": "100000000", "search": search})
		if err != nil {
			t.Fatal(err)
		}
		m.Reset(1)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		SetContext(m, ctx)
		start := time.Now()
		a := m.Act(p, obs, mask)
		took := time.Since(start)
		cancel()
		if a < 0 || a >= len(mask) || mask[a] == 0 {
			t.Errorf("%s: cancelled search returned %d, not a legal action", search, a)
		}
		if took > 5*time.Second {
			t.Errorf("%s: the search went on %v after its context expired (want stopped within 5 s)", search, took)
		}
		if m.Stats().Simulations == 0 {
			t.Errorf("%s: no simulation ran before the deadline", search)
		}
		// A context already done: the prior, no simulation.
		before := m.Stats().Simulations
		done, stop := context.WithCancel(context.Background())
		stop()
		m.SetContext(done)
		if a := m.Act(p, obs, mask); a < 0 || mask[a] == 0 {
			t.Errorf("%s: done context: action %d", search, a)
		}
		if n := m.Stats().Simulations - before; n != 0 {
			t.Errorf("%s: %d simulations after the context was done", search, n)
		}
		// nil removes the bound.
		small, err := NewMCTS(e.Spec(), Options{"sims": "64", "search": search})
		if err != nil {
			t.Fatal(err)
		}
		small.SetContext(done)
		//lint:ignore SA1012 a nil context removes the bound (Cancellable)
		small.SetContext(nil)
		small.Act(p, obs, mask)
		if small.Stats().Simulations < 64 {
			t.Errorf("%s: after SetContext(nil) only %d simulations", search, small.Stats().Simulations)
		}
	}
}

// ctxProbe is a rollout agent that records the context it is given.
type ctxProbe struct {
	giver
	ctx context.Context
}

func (c *ctxProbe) SetContext(ctx context.Context) { c.ctx = ctx }

var lastProbe *ctxProbe

func init() {
	RegisterFor("mcts-duel-v0", "ctx-probe", "a giver that records its context (TestMCTSPassesContext)",
		func(*env.Spec, Options) (Agent, error) { lastProbe = &ctxProbe{}; return lastProbe, nil })
}

// TestMCTSPassesContext: mcts gives its context to its rollout agent.
func TestMCTSPassesContext(t *testing.T) {
	a, err := New("mcts", duelSpec, Options{"rollout": "ctx-probe"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	SetContext(a, ctx)
	if lastProbe == nil || lastProbe.ctx != ctx {
		t.Fatal("the rollout agent did not get mcts's context")
	}
	SetContext(a, nil)
	if lastProbe.ctx != nil {
		t.Fatal("SetContext(nil) was not passed on")
	}
}
