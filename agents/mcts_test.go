package agents

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

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
