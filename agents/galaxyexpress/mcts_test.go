package galaxyexpress

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// The generic mcts agent on Galaxy Express, with this package's heuristic
// as its rollout agent and prior.

func newMCTS(t testing.TB, opts agents.Options) (*env.Env, *agents.MCTS) {
	t.Helper()
	e, err := env.Make(ge.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.New("mcts", e.Spec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, a.(*agents.MCTS)
}

// mctsSearches are small-budget settings of both search algorithms.
var mctsSearches = []agents.Options{
	{"sims": "12"},
	{"sims": "12", "search": "ismcts"},
	{"sims": "12", "search": "ismcts", "depth": "1"},
}

// playPositions plays games of galaxy-express-v1 (random play for odd
// seeds, the heuristic for even ones) and calls visit on every decision.
func playPositions(t *testing.T, games int, visit func(e *env.Env, obs []uint8)) {
	t.Helper()
	e, h := newHeuristicEnv(t)
	r := agents.NewRandom()
	obs := make([]uint8, ge.ObsSize)
	for seed := uint64(0); seed < uint64(games); seed++ {
		e.Reset(seed + 5000)
		var pol agents.Agent = h
		if seed%2 == 1 {
			pol = r
		}
		pol.Reset(seed)
		for !e.Done() {
			_ = e.Observe(0, obs)
			visit(e, obs)
			if _, err := e.Step(pol.Act(0, obs, e.Mask())); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestMCTSLegalActions asks both searches for actions on the positions of
// random and heuristic games and checks they are legal.
func TestMCTSLegalActions(t *testing.T) {
	var ms []*agents.MCTS
	for _, o := range mctsSearches {
		_, m := newMCTS(t, o)
		m.Reset(1)
		ms = append(ms, m)
	}
	n := 0
	playPositions(t, 40, func(e *env.Env, obs []uint8) {
		for _, m := range ms {
			mask := slices.Clone(e.Mask())
			if a := m.Act(0, obs, mask); a < 0 || a >= len(mask) || mask[a] == 0 {
				t.Fatalf("%v: illegal action %d in\n%v", m, a, e)
			}
			if !slices.Equal(mask, e.Mask()) {
				t.Fatal("Act modified the mask")
			}
		}
		n++
	})
	t.Logf("%d positions", n)
}

// TestDeterminizeHeuristicPositions checks the determinization round trip
// (galaxyexpress.Determinize) on the positions of heuristic and random
// games: the same observation and legal mask.
func TestDeterminizeHeuristicPositions(t *testing.T) {
	obs2 := make([]uint8, ge.ObsSize)
	mask := make([]uint8, ge.NumActions)
	var d ge.State
	i := uint64(0)
	playPositions(t, 200, func(e *env.Env, obs []uint8) {
		i++
		if err := ge.DeterminizeInto(&d, obs, false, i); err != nil {
			t.Fatalf("%v\n%v", err, e)
		}
		d.Observe(0, obs2)
		d.LegalMask(mask)
		if !slices.Equal(obs, obs2) || !slices.Equal(mask, e.Mask()) {
			t.Fatalf("determinization differs:\n%s\n%s", e.State().(*ge.State).Position(), d.Position())
		}
	})
}

// TestMCTSDeterministic checks that the same seed replays the same
// actions, after other episodes and on a second agent.
func TestMCTSDeterministic(t *testing.T) {
	for _, o := range mctsSearches {
		e, a := newMCTS(t, o)
		_, b := newMCTS(t, o)
		obs := make([]uint8, ge.ObsSize)
		run := func(ag agents.Agent, seed uint64) []int { return playEpisode(t, e, ag, seed, obs) }
		for seed := uint64(0); seed < 6; seed++ {
			first := run(a, seed)
			run(a, seed+1000)
			if again := run(a, seed); !slices.Equal(first, again) {
				t.Fatalf("%v seed %d: replay differs:\n%v\n%v", o, seed, first, again)
			}
			if other := run(b, seed); !slices.Equal(first, other) {
				t.Fatalf("%v seed %d: second agent differs:\n%v\n%v", o, seed, first, other)
			}
		}
	}
}

// TestMCTSPublicInformationOnly checks that positions differing only in
// hidden information (hiddenVariant) get the same action from agents reset
// with the same seed.
func TestMCTSPublicInformationOnly(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	obs2 := make([]uint8, ge.ObsSize)
	mask2 := make([]uint8, ge.NumActions)
	for _, o := range mctsSearches {
		_, a := newMCTS(t, o)
		_, b := newMCTS(t, o)
		n := 0
		playPositions(t, 12, func(e *env.Env, obs []uint8) {
			pos := e.State().(*ge.State).Position()
			v, err := ge.ParsePosition(hiddenVariant(t, pos, r), false)
			if err != nil {
				t.Fatal(err)
			}
			v.Observe(0, obs2)
			v.LegalMask(mask2)
			if !slices.Equal(obs, obs2) || !slices.Equal(e.Mask(), mask2) {
				t.Fatalf("variant observes differently:\n%s\n%s", pos, v.Position())
			}
			seed := uint64(n)
			n++
			a.Reset(seed)
			b.Reset(seed)
			if x, y := a.Act(0, obs, e.Mask()), b.Act(0, obs2, mask2); x != y {
				t.Fatalf("%v: same observation, actions %d and %d:\n%s\n%s", o, x, y, pos, v.Position())
			}
		})
	}
}

// TestMCTSSimsZeroIsRollout checks that sims=0 plays exactly like the
// rollout agent reset with the same seed.
func TestMCTSSimsZeroIsRollout(t *testing.T) {
	e, m := newMCTS(t, agents.Options{"sims": "0"})
	_, h := newHeuristicEnv(t)
	obs := make([]uint8, ge.ObsSize)
	for seed := uint64(0); seed < 50; seed++ {
		e.Reset(seed)
		m.Reset(seed)
		h.Reset(seed)
		for !e.Done() {
			_ = e.Observe(0, obs)
			x, y := m.Act(0, obs, e.Mask()), h.Act(0, obs, e.Mask())
			if x != y {
				t.Fatalf("seed %d step %d: mcts %d, heuristic %d", seed, e.Steps(), x, y)
			}
			if _, err := e.Step(x); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestMCTSMeanScore is a smoke test of strength on 40 games.
func TestMCTSMeanScore(t *testing.T) {
	e, m := newMCTS(t, agents.Options{"sims": "32"})
	obs := make([]uint8, ge.ObsSize)
	sum := 0.0
	const n = 40
	for seed := uint64(0); seed < n; seed++ {
		e.Reset(seed)
		m.Reset(seed)
		for !e.Done() {
			_ = e.Observe(0, obs)
			if _, err := e.Step(m.Act(0, obs, e.Mask())); err != nil {
				t.Fatal(err)
			}
		}
		sum += e.Returns()[0]
	}
	t.Logf("mean score %.2f over %d games", sum/n, n)
	if sum/n < 100 {
		t.Errorf("mean score %.2f, want >= 100", sum/n)
	}
}

// TestMCTSActDoesNotAllocate checks the steady state: once the buffers
// have grown, a decision allocates nothing.
func TestMCTSActDoesNotAllocate(t *testing.T) {
	for _, o := range mctsSearches {
		e, m := newMCTS(t, o)
		obs := make([]uint8, ge.ObsSize)
		step := func() {
			if e.Done() {
				e.Reset(3)
			}
			_ = e.Observe(0, obs)
			if _, err := e.Step(m.Act(0, obs, e.Mask())); err != nil {
				t.Fatal(err)
			}
		}
		e.Reset(3)
		m.Reset(3)
		for i := 0; i < 200; i++ {
			step()
		}
		if allocs := testing.AllocsPerRun(100, step); allocs != 0 {
			t.Errorf("%v: %.2f allocations per decision, want 0", o, allocs)
		}
	}
}

// TestMCTSScanWrap plays the scan_wrap variant with the option, which the
// rollout heuristic receives too.
func TestMCTSScanWrap(t *testing.T) {
	e, err := env.Make(ge.ID, map[string]any{"scan_wrap": true, "max_turns": 40})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.New("mcts", e.Spec(), agents.Options{"scan_wrap": "true", "max_turns": "40", "sims": "16"})
	if err != nil {
		t.Fatal(err)
	}
	m := a.(*agents.MCTS)
	p := m.Params()
	if h := m.RolloutAgent().(*Heuristic); h.scanWrap != 1 || p.Int("max_turns") != 40 || !p.Bool("scan_wrap") {
		t.Fatalf("options not passed on: rollout scan_wrap %d, params %v", h.scanWrap, p)
	}
	obs := make([]uint8, ge.ObsSize)
	for seed := uint64(0); seed < 10; seed++ {
		playEpisode(t, e, a, seed, obs)
	}
}

// TestMCTSTimeBudget checks the ms option bounds a decision's time loosely
// and still plays legal moves.
func TestMCTSTimeBudget(t *testing.T) {
	for _, search := range []string{agents.SearchHalving, agents.SearchISMCTS} {
		e, m := newMCTS(t, agents.Options{"ms": "2", "search": search})
		obs := make([]uint8, ge.ObsSize)
		e.Reset(1)
		m.Reset(1)
		for !e.Done() {
			_ = e.Observe(0, obs)
			if _, err := e.Step(m.Act(0, obs, e.Mask())); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// BenchmarkMCTSDecision times a decision at the default budget over the
// decisions of heuristic games (positions replayed in order); ns/op is per
// decision, single-action decisions included (they are not searched).
func BenchmarkMCTSDecision(b *testing.B) {
	for _, o := range []agents.Options{{}, {"search": "ismcts", "sims": "128"}} {
		name := "halving-256"
		if o["search"] != "" {
			name = "ismcts-128"
		}
		b.Run(name, func(b *testing.B) {
			_, m := newMCTS(b, o)
			obsAll, maskAll := heuristicDecisions(b, 50)
			m.Reset(1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := i % len(obsAll)
				m.Act(0, obsAll[k], maskAll[k])
			}
		})
	}
}
