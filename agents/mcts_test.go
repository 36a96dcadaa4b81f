package agents

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

func newMCTS(t testing.TB, opts Options) (*env.Env, *MCTS) {
	t.Helper()
	e, err := env.Make(ge.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New("mcts", e.Spec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, a.(*MCTS)
}

// mctsSearches are small-budget settings of both search algorithms.
var mctsSearches = []Options{
	{"sims": "12"},
	{"sims": "12", "search": "ismcts"},
	{"sims": "12", "search": "ismcts", "depth": "1"},
}

// playPositions plays games of galaxy-express-v1 (random play for odd
// seeds, the heuristic for even ones) and calls visit on every decision.
func playPositions(t *testing.T, games int, visit func(e *env.Env, obs []uint8)) {
	t.Helper()
	e, h := newHeuristicEnv(t)
	r := NewRandom()
	obs := make([]uint8, ge.ObsSize)
	for seed := uint64(0); seed < uint64(games); seed++ {
		e.Reset(seed + 5000)
		var pol Agent = h
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
	var ms []*MCTS
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
				t.Fatalf("%s: illegal action %d in\n%v", m.search, a, e)
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
		run := func(ag Agent, seed uint64) []int { return playEpisode(t, e, ag, seed, obs) }
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
	e, m := newMCTS(t, Options{"sims": "0"})
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
	e, m := newMCTS(t, Options{"sims": "32"})
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
	a, err := New("mcts", e.Spec(), Options{"scan_wrap": "true", "max_turns": "40", "sims": "16"})
	if err != nil {
		t.Fatal(err)
	}
	m := a.(*MCTS)
	if h := m.rollout.(*Heuristic); h.scanWrap != 1 || m.maxTurns != 40 || !m.params.Bool("scan_wrap") {
		t.Fatalf("options not passed on: rollout scan_wrap %d, max_turns %d, params %v", h.scanWrap, m.maxTurns, m.params)
	}
	obs := make([]uint8, ge.ObsSize)
	for seed := uint64(0); seed < 10; seed++ {
		playEpisode(t, e, a, seed, obs)
	}
}

func TestMCTSOptions(t *testing.T) {
	spec := ge.Game{}.Spec()
	for _, opts := range []Options{{"sims": "-1"}, {"sims": "x"}, {"c": "-2"}, {"z": "NaN"}, {"ms": "inf"},
		{"search": "alphabeta"}, {"rollout": "mcts"}, {"depth": "-1"}, {"bogus": "1"}, {"scan_wrap": "maybe"},
		{"max_turns": "0"}} {
		var oe *OptionError
		if _, err := New("mcts", spec, opts); !errors.As(err, &oe) {
			t.Errorf("options %v: got %v, want *OptionError", opts, err)
		}
	}
	if _, err := New("mcts", spec, Options{"rollout": "nobody"}); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("unknown rollout agent: got %v", err)
	}
	if _, err := New("mcts", spec, Options{"rollout.depth": "3"}); err == nil {
		t.Error("a bad rollout option accepted")
	}
	a, err := New("mcts", spec, Options{"rollout": "random", "scan_wrap": "true", "sims": "5", "ms": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if m := a.(*MCTS); m.sims != 5 || m.budget == 0 || m.rollout.Name() != "random" {
		t.Errorf("options not applied: %+v", m)
	}
}

// TestMCTSTimeBudget checks the ms option bounds a decision's time loosely
// and still plays legal moves.
func TestMCTSTimeBudget(t *testing.T) {
	for _, search := range []string{SearchHalving, SearchISMCTS} {
		e, m := newMCTS(t, Options{"ms": "2", "search": search})
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

// fakeGame is a tiny game for the generic paths: one player, five turns,
// three actions worth 0, 1 and 2 points (action 2 is illegal on odd
// turns); the observation is the turn. With determinize it implements
// env.Determinizer (the state is public).
type fakeGame struct {
	id          string
	determinize bool
}

type fakeState struct{ turn int }

var fakeSpec = func(id string) *env.Spec {
	return &env.Spec{ID: id, Name: "fake", NumPlayers: 1, ActionNames: []string{"a0", "a1", "a2"},
		ObsShape: []int{1}, ObsDType: "uint8", ObsHigh: []uint8{5}, MaxEpisodeSteps: 5,
		RewardRange: [2]float64{0, 2}, ReturnRange: [2]float64{0, 10}}
}

func (g fakeGame) Spec() *env.Spec                               { return fakeSpec(g.id) }
func (fakeGame) NewState(env.Params, uint64) env.State           { return &fakeState{} }
func (fakeGame) LoadState(env.Params, []byte) (env.State, error) { return nil, errors.New("no") }

func (s *fakeState) CurrentPlayer() int {
	if s.turn >= 5 {
		return env.Terminal
	}
	return 0
}
func (s *fakeState) LegalMask(dst []uint8) int {
	clear(dst)
	if s.turn >= 5 {
		return 0
	}
	dst[0], dst[1] = 1, 1
	if s.turn%2 == 0 {
		dst[2] = 1
		return 3
	}
	return 2
}
func (s *fakeState) Apply(a int, r []float64)     { r[0] += float64(a); s.turn++ }
func (s *fakeState) Terminal() bool               { return s.turn >= 5 }
func (s *fakeState) Turn() int                    { return s.turn }
func (s *fakeState) Truncate([]float64)           {}
func (s *fakeState) Observe(_ int, dst []uint8)   { dst[0] = uint8(s.turn) }
func (s *fakeState) Info(*env.Info)               {}
func (s *fakeState) Clone() env.State             { c := *s; return &c }
func (s *fakeState) String() string               { return strings.Repeat("*", s.turn) }
func (s *fakeState) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

type fakeDetGame struct{ fakeGame }

func (fakeDetGame) Determinize(_ env.Params, _ int, obs []uint8, _ uint64, reuse env.State) (env.State, error) {
	s, _ := reuse.(*fakeState)
	if s == nil {
		s = new(fakeState)
	}
	s.turn = int(obs[0])
	return s, nil
}

func init() {
	env.Register(fakeGame{id: "mcts-fake-v0"})
	env.Register(fakeDetGame{fakeGame{id: "mcts-fake-det-v0"}})
}

// TestMCTSUnsupportedEnv checks the refusal of games without
// env.Determinizer, of unregistered ids and of a nil spec.
func TestMCTSUnsupportedEnv(t *testing.T) {
	for _, spec := range []*env.Spec{fakeSpec("mcts-fake-v0"), fakeSpec("tic-tac-toe-v0"), nil} {
		_, err := New("mcts", spec, nil)
		var ue *UnsupportedEnvError
		if !errors.As(err, &ue) || ue.Agent != "mcts" || !slices.Contains(ue.Supported, ge.ID) ||
			slices.Contains(ue.Supported, "mcts-fake-v0") {
			t.Errorf("spec %v: got %v, want *UnsupportedEnvError", spec, err)
		}
	}
}

// TestMCTSGenericGame plays the fake determinizable game with the default
// rollout agent (random): the search finds the 2-point action whenever it
// is legal, with either algorithm.
func TestMCTSGenericGame(t *testing.T) {
	for _, search := range []string{SearchHalving, SearchISMCTS} {
		e, err := env.Make("mcts-fake-det-v0", nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := New("mcts", e.Spec(), Options{"search": search, "sims": "64", "margin": "0", "c": "2", "pw": "0"})
		if err != nil {
			t.Fatal(err)
		}
		if a.(*MCTS).rollout.Name() != "random" {
			t.Fatalf("rollout agent %s, want random", a.(*MCTS).rollout.Name())
		}
		obs := make([]uint8, 1)
		for seed := uint64(0); seed < 20; seed++ {
			playEpisode(t, e, a, seed, obs)
			if r := e.Returns()[0]; r != 8 {
				t.Fatalf("%s seed %d: return %v, want 8", search, seed, r)
			}
		}
	}
}

// BenchmarkMCTSDecision times a decision at the default budget over the
// decisions of heuristic games (positions replayed in order); ns/op is per
// decision, single-action decisions included (they are not searched).
func BenchmarkMCTSDecision(b *testing.B) {
	for _, o := range []Options{{}, {"search": "ismcts", "sims": "128"}} {
		name := "halving-256"
		if o["search"] != "" {
			name = "ismcts-128"
		}
		b.Run(name, func(b *testing.B) {
			e, h := newHeuristicEnv(b)
			_, m := newMCTS(b, o)
			var obsAll, maskAll [][]uint8
			for seed := uint64(0); seed < 50; seed++ {
				e.Reset(seed)
				h.Reset(seed)
				for !e.Done() {
					obs := make([]uint8, ge.ObsSize)
					_ = e.Observe(0, obs)
					mask := slices.Clone(e.Mask())
					obsAll, maskAll = append(obsAll, obs), append(maskAll, mask)
					_, _ = e.Step(h.Act(0, obs, mask))
				}
			}
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
