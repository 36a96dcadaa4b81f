package agents_test

import (
	"math"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

// explainGame plays up to n decisions of id with two instances of the
// agent seeded alike, one through Act and one through ActExplained, fails
// when they differ, and calls check on every explained decision.
func explainGame(t *testing.T, id string, params map[string]any, name string, opts agents.Options, n int,
	check func(a agents.Agent, mask []uint8, act int, th *agents.Thoughts)) {
	t.Helper()
	e, err := env.Make(id, params)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := agents.New(name, e.Spec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.New(name, e.Spec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	x, ok := a.(agents.Explainer)
	if !ok {
		t.Fatalf("%s on %s is not an agents.Explainer", name, id)
	}
	e.Reset(7)
	plain.Reset(11)
	a.Reset(11)
	obs := make([]uint8, e.Spec().ObsSize())
	var th agents.Thoughts
	for i := 0; i < n && !e.Done(); i++ {
		p := e.CurrentPlayer()
		if err := e.Observe(p, obs); err != nil {
			t.Fatal(err)
		}
		mask := e.Mask()
		want := plain.Act(p, obs, mask)
		got := x.ActExplained(p, obs, mask, &th)
		if got != want {
			t.Fatalf("%s %s decision %d: ActExplained chose %d, Act %d", id, name, i, got, want)
		}
		check(a, mask, got, &th)
		if _, err := e.Step(got); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMCTSExplains(t *testing.T) {
	for _, search := range []string{agents.SearchHalving, agents.SearchISMCTS} {
		for _, id := range []string{"galaxy-express-v1", "pilots-of-gallaxia-v2"} {
			searched := 0
			var sims int64
			explainGame(t, id, nil, "mcts", agents.Options{"sims": "24", "search": search}, 25,
				func(a agents.Agent, mask []uint8, act int, th *agents.Thoughts) {
					m := a.(*agents.MCTS)
					total := 0
					for i, v := range th.Visits {
						total += v
						if v > 0 && (mask[i] == 0 || math.IsNaN(th.Values[i])) {
							t.Errorf("%s %s: action %d: %d visits, legal %d, value %v", id, search, i, v, mask[i], th.Values[i])
						}
						if v == 0 && !math.IsNaN(th.Values[i]) {
							t.Errorf("%s %s: action %d: no visit but value %v", id, search, i, th.Values[i])
						}
					}
					now := m.Stats().Simulations
					if total > 0 {
						searched++
						if th.Visits[act] == 0 {
							t.Errorf("%s %s: chose %d, never simulated", id, search, act)
						}
						if search == agents.SearchHalving && int64(total) != now-sims {
							t.Errorf("%s halving: %d visits, %d simulations", id, total, now-sims)
						}
						if search == agents.SearchISMCTS && total != 24 {
							t.Errorf("%s ismcts: %d root visits for 24 simulations", id, total)
						}
					}
					sims = now
				})
			if searched == 0 {
				t.Errorf("%s %s: no decision searched", id, search)
			}
		}
	}
}

func TestHeuristicsExplain(t *testing.T) {
	for _, c := range []struct {
		id     string
		params map[string]any
	}{{"galaxy-express-v1", nil}, {"galaxy-fighters-v2", map[string]any{"players": 2}}, {"galaxy-fighters-v1", nil},
		{"pilots-of-gallaxia-v2", map[string]any{"players": 3}}, {"pilots-of-gallaxia-v1", nil}} {
		valued := 0
		explainGame(t, c.id, c.params, "heuristic", nil, 400, func(_ agents.Agent, mask []uint8, act int, th *agents.Thoughts) {
			best := math.Inf(-1)
			for i, v := range th.Values {
				if !math.IsNaN(v) {
					if mask[i] == 0 {
						t.Errorf("%s: illegal action %d valued %v", c.id, i, v)
					}
					best = max(best, v)
				}
			}
			if math.IsInf(best, -1) {
				return
			}
			valued++
			// The choice is in the argmax set (values are float32).
			if v := th.Values[act]; math.IsNaN(v) || v < best-1e-6*max(1, math.Abs(best)) {
				t.Errorf("%s: chose %d valued %v, the best is %v", c.id, act, v, best)
			}
		})
		if valued == 0 {
			t.Errorf("%s: no decision valued", c.id)
		}
	}
}
