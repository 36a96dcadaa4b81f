package agents

import (
	"errors"
	"fmt"
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
// turns); the observation is the turn. It implements env.Determinizer
// (the state is public).
type fakeGame struct {
	id string
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

// duelGame is a small competitive game for the multi-player paths: 2 or 3
// players (the standard players parameter, default 2), eight turns whose
// player to act follows duelOrder (a player may move twice in a row, or
// out of turn); a move is "take" (2 points to the mover) or "give" (1 to
// the mover, 4 to every other player). Each player's best reply is take,
// while give would raise the players' total. The observation is the turn
// and the scores; the state is public, so it is its own determinization.
type duelGame struct{}

var duelOrder = [8]int{0, 1, 1, 0, 2, 1, 0, 0}

type duelState struct {
	n, turn int
	scores  [3]float64
}

var duelSpec = &env.Spec{ID: "mcts-duel-v0", Name: "duel", NumPlayers: 2, MinPlayers: 2, MaxPlayers: 3,
	ActionNames: []string{"take", "give"}, ObsShape: []int{4}, ObsDType: "uint8",
	ObsHigh: []uint8{8, 32, 32, 32}, MaxEpisodeSteps: 8,
	RewardRange: [2]float64{0, 4}, ReturnRange: [2]float64{0, 32}}

func (duelGame) Spec() *env.Spec { return duelSpec }
func (duelGame) NewState(p env.Params, _ uint64) env.State {
	return &duelState{n: p.Int(env.PlayersParam)}
}
func (duelGame) LoadState(env.Params, []byte) (env.State, error) { return nil, errors.New("no") }
func (duelGame) Determinize(p env.Params, _ int, obs []uint8, _ uint64, reuse env.State) (env.State, error) {
	s, _ := reuse.(*duelState)
	if s == nil {
		s = new(duelState)
	}
	*s = duelState{n: p.Int(env.PlayersParam), turn: int(obs[0])}
	for i := range s.n {
		s.scores[i] = float64(obs[1+i])
	}
	return s, nil
}

func (s *duelState) CurrentPlayer() int {
	if s.Terminal() {
		return env.Terminal
	}
	return duelOrder[s.turn] % s.n
}
func (s *duelState) LegalMask(dst []uint8) int {
	if s.Terminal() {
		clear(dst)
		return 0
	}
	dst[0], dst[1] = 1, 1
	return 2
}
func (s *duelState) Apply(a int, r []float64) {
	p := s.CurrentPlayer()
	for i := range s.n {
		g := 0.0
		switch {
		case i == p && a == 0:
			g = 2
		case i == p:
			g = 1
		case a == 1:
			g = 4
		}
		s.scores[i] += g
		r[i] += g
	}
	s.turn++
}
func (s *duelState) Terminal() bool     { return s.turn >= len(duelOrder) }
func (s *duelState) Turn() int          { return s.turn }
func (s *duelState) Truncate([]float64) {}
func (s *duelState) Observe(_ int, dst []uint8) {
	clear(dst)
	dst[0] = uint8(s.turn)
	for i := range s.n {
		dst[1+i] = uint8(s.scores[i])
	}
}
func (s *duelState) Info(in *env.Info) {
	if s.Terminal() {
		in.RankByScore(s.scores[:s.n])
	}
}
func (s *duelState) Clone() env.State             { c := *s; return &c }
func (s *duelState) String() string               { return fmt.Sprint(s.turn, s.scores[:s.n]) }
func (s *duelState) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

func init() { env.Register(duelGame{}) }

// giver always gives: the duel game's rollout agent in TestMCTSCompetitive,
// so that the prior is the wrong move and rollouts are noiseless.
type giver struct{}

func (giver) Name() string                { return "giver" }
func (giver) Reset(uint64)                {}
func (giver) Act(_ int, _, m []uint8) int { return 1 }

func init() {
	RegisterFor("mcts-duel-v0", "giver", "always gives",
		func(*env.Spec, Options) (Agent, error) { return giver{}, nil })
}

// TestMCTSCompetitive plays the duel game with mcts in every seat (one
// agent per seat): every player, the ones moving out of turn included,
// takes its own 2 points rather than giving the others 4, with either
// search, for 2 and 3 players. The rollout agent (the prior) always gives,
// so the search must overturn it; one that maximised the players' total,
// or player 0's return, would not.
func TestMCTSCompetitive(t *testing.T) {
	for _, players := range []int{2, 3} {
		for _, search := range []string{SearchHalving, SearchISMCTS} {
			e, err := env.Make("mcts-duel-v0", map[string]any{"players": players})
			if err != nil {
				t.Fatal(err)
			}
			seats := make([]Agent, players)
			for i := range seats {
				if seats[i], err = New("mcts", e.Spec(), Options{"search": search, "sims": "64", "rollout": "giver"}); err != nil {
					t.Fatal(err)
				}
				if m := seats[i].(*MCTS); m.Params().Int(env.PlayersParam) != players || len(m.rewards) != players {
					t.Fatalf("%d players: mcts determinizes with %v, rewards for %d", players, m.Params(), len(m.rewards))
				}
			}
			obs := make([]uint8, e.Spec().ObsSize())
			for seed := uint64(0); seed < 10; seed++ {
				e.Reset(seed)
				for i, a := range seats {
					a.Reset(seed*10 + uint64(i))
				}
				for !e.Done() {
					p := e.CurrentPlayer()
					_ = e.Observe(p, obs)
					a := seats[p].Act(p, obs, e.Mask())
					if a != 0 {
						t.Fatalf("%d players, %s, seed %d, turn %d: player %d gives (action %d), want take",
							players, search, seed, e.Steps(), p, a)
					}
					if _, err := e.Step(a); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// TestMCTSPlayers checks the player count: taken from the spec when not
// given, and a players option that contradicts the spec is an
// *OptionError.
func TestMCTSPlayers(t *testing.T) {
	e, err := env.Make("mcts-duel-v0", map[string]any{"players": 3})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New("mcts", e.Spec(), Options{"players": "3"})
	if err != nil || a.(*MCTS).Params().Int(env.PlayersParam) != 3 {
		t.Fatalf("players=3 on a 3-player spec: %v", err)
	}
	var oe *OptionError
	if _, err := New("mcts", e.Spec(), Options{"players": "2"}); !errors.As(err, &oe) || oe.Key != env.PlayersParam {
		t.Errorf("players=2 on a 3-player spec: %v, want an *OptionError", err)
	}
}

// The agents of the test games: the duel has a heuristic, and a copy of
// the fake determinizable game both a heuristic and a rollout agent.
func init() {
	env.Register(fakeDetGame{fakeGame{id: "mcts-fake-det-own-v0"}})
	named := func(name string) Factory {
		return func(*env.Spec, Options) (Agent, error) { return &namedRandom{name: name}, nil }
	}
	RegisterFor("mcts-fake-det-own-v0", Heuristic, "test", named("fake heuristic"))
	RegisterFor("mcts-fake-det-own-v0", Rollout, "test", named("fake rollout"))
	RegisterFor(duelSpec.ID, Heuristic, "test", named("duel heuristic"))
}

// TestMCTSRolloutAgent checks how mcts finds its rollout agent through the
// registry: a game's own "rollout" agent, else its "heuristic", else
// random; option rollout overrides.
func TestMCTSRolloutAgent(t *testing.T) {
	rollout := func(spec *env.Spec, opts Options) string {
		t.Helper()
		a, err := New("mcts", spec, opts)
		if err != nil {
			t.Fatal(err)
		}
		r := a.(*MCTS).RolloutAgent()
		if m, ok := r.(*namedRandom); ok {
			return m.name
		}
		return r.Name()
	}
	for _, c := range []struct {
		spec      *env.Spec
		opts      Options
		want, why string
	}{
		{fakeSpec("mcts-fake-det-v0"), nil, "random", "no agents of the game's own"},
		{duelSpec, nil, "duel heuristic", "a game heuristic"},
		{duelSpec, Options{"rollout": "random"}, "random", "option rollout"},
		{fakeSpec("mcts-fake-det-own-v0"), nil, "fake rollout", "a game rollout agent and heuristic"},
	} {
		if got := rollout(c.spec, c.opts); got != c.want {
			t.Errorf("%s: rollout agent %q, want %q", c.why, got, c.want)
		}
	}
}

// namedRandom is a random agent standing in for a game's own agent.
type namedRandom struct {
	Random
	name string
}
