package agents

import (
	"errors"
	"fmt"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// marginGame is a win/loss race in one move, for option score: player 0
// scores 1 point (action "one") or 5 (action "five"), then player 1 its
// only action ("pass", 0 points); the higher score wins (+1) and the other
// loses (-1). Player 0 wins whichever it plays, so a search of the return
// alone has nothing to choose between its moves; its score margin (1 or 5)
// does. The state is public (its own determinization).
type marginGame struct{}

type marginState struct {
	turn   int
	scores [2]float64
}

var marginSpec = &env.Spec{ID: "mcts-margin-v0", Name: "margin", NumPlayers: 2, MinPlayers: 2, MaxPlayers: 2,
	ActionNames: []string{"one", "five"}, ObsShape: []int{3}, ObsDType: "uint8",
	ObsHigh: []uint8{2, 5, 5}, MaxEpisodeSteps: 2,
	RewardRange: [2]float64{-1, 1}, ReturnRange: [2]float64{-1, 1}}

func (marginGame) Spec() *env.Spec                                 { return marginSpec }
func (marginGame) NewState(env.Params, uint64) env.State           { return &marginState{} }
func (marginGame) LoadState(env.Params, []byte) (env.State, error) { return nil, errors.New("no") }
func (marginGame) Determinize(_ env.Params, _ int, obs []uint8, _ uint64, reuse env.State) (env.State, error) {
	s, _ := reuse.(*marginState)
	if s == nil {
		s = new(marginState)
	}
	*s = marginState{turn: int(obs[0]), scores: [2]float64{float64(obs[1]), float64(obs[2])}}
	return s, nil
}

func (s *marginState) CurrentPlayer() int {
	if s.Terminal() {
		return env.Terminal
	}
	return s.turn
}
func (s *marginState) LegalMask(dst []uint8) int {
	clear(dst)
	switch s.turn {
	case 0:
		dst[0], dst[1] = 1, 1
		return 2
	case 1:
		dst[0] = 1
		return 1
	}
	return 0
}
func (s *marginState) Apply(a int, r []float64) {
	if s.turn == 0 {
		s.scores[0] = float64(1 + 4*a)
	}
	s.turn++
	if s.Terminal() {
		w := 0
		if s.scores[1] > s.scores[0] {
			w = 1
		}
		r[w]++
		r[1-w]--
	}
}
func (s *marginState) Terminal() bool     { return s.turn >= 2 }
func (s *marginState) Turn() int          { return s.turn }
func (s *marginState) Truncate([]float64) {}
func (s *marginState) Observe(_ int, dst []uint8) {
	dst[0], dst[1], dst[2] = uint8(s.turn), uint8(s.scores[0]), uint8(s.scores[1])
}
func (s *marginState) Info(in *env.Info) {
	if s.Terminal() {
		in.RankByScore(s.scores[:])
	}
}
func (s *marginState) Clone() env.State             { c := *s; return &c }
func (s *marginState) String() string               { return fmt.Sprint(s.turn, s.scores) }
func (s *marginState) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

// firstMover plays the lowest legal action: the margin game's rollout
// agent, so that the prior is "one".
type firstMover struct{}

func (firstMover) Name() string                { return "first" }
func (firstMover) Reset(uint64)                {}
func (firstMover) Act(_ int, _, m []uint8) int { return firstLegal(m) }

func init() {
	env.Register(marginGame{})
	RegisterFor(marginSpec.ID, "first", "plays the lowest legal action",
		func(*env.Spec, Options) (Agent, error) { return firstMover{}, nil })
}

// TestMCTSScore checks option score: a rollout's value is its return plus
// W times the player's score margin at the end (the margin game: a win
// by 5 is worth 1 + 5W, a loss by 5 -1 - 5W), nothing where the game's
// Info gives no scores (the fake game) or the player is alone; without
// it both searches keep the prior ("one": a win either way), with it both
// play "five", the wider win.
func TestMCTSScore(t *testing.T) {
	e, err := env.Make(marginSpec.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(opts Options) *MCTS {
		t.Helper()
		opts["rollout"] = "first"
		a, err := New("mcts", e.Spec(), opts)
		if err != nil {
			t.Fatal(err)
		}
		return a.(*MCTS)
	}
	m := mk(Options{"score": "0.25"})
	for _, c := range []struct {
		player, action int
		want           float64
	}{
		{0, 0, 1 + 0.25*1},
		{0, 1, 1 + 0.25*5},
		{1, 1, -1 - 0.25*5},
	} {
		if got := m.roll(&marginState{}, c.player, c.action, 1); got != c.want {
			t.Errorf("score=0.25: player %d's rollout after %s returns %v, want %v",
				c.player, marginSpec.ActionNames[c.action], got, c.want)
		}
	}
	if got := mk(Options{}).roll(&marginState{}, 0, 1, 1); got != 1 {
		t.Errorf("without score the rollout returns %v, want the return 1", got)
	}
	if got := m.String(); got != "mcts(search=halving sims=256 rollout=first score=0.25)" {
		t.Errorf("String() = %q", got)
	}

	obs := make([]uint8, 3)
	mask := []uint8{1, 1}
	for _, search := range []string{SearchHalving, SearchISMCTS} {
		for _, c := range []struct {
			score string
			want  int
		}{{"", 0}, {"0", 0}, {"0.1", 1}} {
			opts := Options{"search": search, "sims": "32"}
			if c.score != "" {
				opts["score"] = c.score
			}
			a := mk(opts)
			a.Reset(7)
			if got := a.Act(0, obs, mask); got != c.want {
				t.Errorf("%s score=%q: plays %s, want %s", search, c.score,
					marginSpec.ActionNames[got], marginSpec.ActionNames[c.want])
			}
		}
	}

	// No scores in Info (the fake game): the rollout's return alone.
	fe, err := env.Make("mcts-fake-det-v0", nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New("mcts", fe.Spec(), Options{"score": "3"})
	if err != nil {
		t.Fatal(err)
	}
	fe.Reset(0)
	if got := f.(*MCTS).scoreBonus(fe.State(), 0); got != 0 {
		t.Errorf("a game whose Info has no scores: bonus %v, want 0", got)
	}

	var oe *OptionError
	for _, bad := range []string{"-1", "x", "NaN", "Inf"} {
		if _, err := New("mcts", e.Spec(), Options{"score": bad}); !errors.As(err, &oe) || oe.Key != "score" {
			t.Errorf("score=%s: %v, want an *OptionError for score", bad, err)
		}
	}
}
