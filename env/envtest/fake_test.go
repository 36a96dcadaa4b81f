package envtest_test

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/galaxygym/galaxygym/env"
)

// fakeID is a tiny two-player game that TestSuiteCatchesBugs breaks in
// chosen ways: players alternate adding 0, 1 or 2 to a shared sum for six
// moves; adding 2 is legal only when a seeded coin says so. Each player is
// rewarded what they add.
const fakeID = "envtest-fake-v1"

type fakeGame struct{ bug string }

var seedCounter uint64

func (g *fakeGame) Spec() *env.Spec {
	if g.bug == "score" {
		return fakeSpec1
	}
	return fakeSpec
}

// fakeSpec1 is the one-player variant, whose Info.Score must equal the
// return.
var fakeSpec1 = func() *env.Spec {
	s := *fakeSpec
	s.NumPlayers = 1
	return &s
}()

func (g *fakeGame) players() int { return g.Spec().NumPlayers }

var fakeSpec = &env.Spec{
	ID:              fakeID,
	Name:            "envtest fake",
	NumPlayers:      2,
	ActionNames:     []string{"add-0", "add-1", "add-2"},
	ObsShape:        []int{3},
	ObsDType:        "uint8",
	ObsHigh:         []uint8{6, 12, 1},
	MaxEpisodeSteps: 6,
	RewardRange:     [2]float64{0, 2},
	ReturnRange:     [2]float64{0, 12},
	Params: []env.ParamSpec{
		{Name: env.MaxTurnsParam, Kind: env.Int, Default: 0, Doc: "truncation (0: none)"},
	},
	Description: "A counting game for testing the conformance suite.",
}

func (g *fakeGame) NewState(p env.Params, seed uint64) env.State {
	if g.bug == "seed" {
		seedCounter++
		seed += seedCounter
	}
	return &fakeState{g: g, rng: seed, shared: &fakeShared{}}
}

func (g *fakeGame) LoadState(p env.Params, data []byte) (env.State, error) {
	var j fakeJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, &env.StateError{Env: fakeID, Reason: "bad", Err: err}
	}
	return &fakeState{g: g, n: j.N, rng: j.RNG, shared: &fakeShared{j.Sum}, loaded: true}, nil
}

type fakeShared struct{ sum int }

type fakeState struct {
	g      *fakeGame
	n      int
	rng    uint64
	shared *fakeShared
	loaded bool // read by LoadState (bug "hidden-load")
}

type fakeJSON struct {
	N   int    `json:"n"`
	Sum int    `json:"sum"`
	RNG uint64 `json:"rng,omitempty"`
}

func (s *fakeState) moves() int {
	if s.g.bug == "endless" {
		return 1000
	}
	return 6
}

func (s *fakeState) CurrentPlayer() int {
	if s.Terminal() {
		return env.Terminal
	}
	return s.n % s.g.players()
}

func (s *fakeState) LegalMask(dst []uint8) int {
	clear(dst)
	if s.Terminal() {
		return 0
	}
	if s.g.bug == "no-legal" && s.n == 3 {
		return 0
	}
	dst[0], dst[1] = 1, 1
	n := 2
	if s.rng&1 == 1 {
		dst[2] = 1
		n++
	}
	if s.g.bug == "mask-count" {
		n++
	}
	return n
}

func (s *fakeState) Apply(a int, rewards []float64) {
	p := s.n % s.g.players()
	rewards[p] += float64(a)
	if s.g.bug == "reward-range" && a == 1 {
		rewards[p] += 5
	}
	s.shared.sum += a
	s.n++
	s.rng = s.rng*6364136223846793005 + 1442695040888963407
	s.rng ^= s.rng >> 29
}

func (s *fakeState) Terminal() bool     { return s.n >= s.moves() }
func (s *fakeState) Turn() int          { return s.n }
func (s *fakeState) Truncate([]float64) {}

func (s *fakeState) Observe(player int, dst []uint8) {
	if s.g.bug != "obs-unwritten" {
		dst[2] = uint8(player)
	}
	dst[0] = uint8(s.n)
	dst[1] = uint8(s.shared.sum)
	if s.g.bug == "public-leak" {
		dst[1] = 0 // the sum is secret: nobody sees what was added
	}
	if s.g.bug == "obs" && s.n == 2 {
		dst[0] = 200
	}
}

func (s *fakeState) Info(dst *env.Info) {
	dst.Outcome = env.OutcomeOngoing
	if s.Terminal() || (s.g.bug == "results-early" && s.n == 2) {
		dst.SetTeamResult(s.g.players(), env.OutcomeDraw, float64(s.shared.sum))
		if s.g.bug == "ranks" {
			dst.Ranks[len(dst.Ranks)-1] = 2
		}
		if !s.Terminal() {
			dst.Outcome = env.OutcomeOngoing // only the per-player results leak
		}
	}
	if s.g.bug == "info" && s.n == 1 {
		dst.Outcome = env.OutcomeWin
	}
	dst.Score = float64(s.shared.sum)
	if s.g.bug == "score" {
		dst.Score++
	}
	dst.Stats = append(dst.Stats, env.Stat{Name: "moves", Value: float64(s.n)})
}

func (s *fakeState) Clone() env.State {
	c := *s
	if s.g.bug != "clone" {
		c.shared = &fakeShared{s.shared.sum}
	}
	return &c
}

func (s *fakeState) String() string {
	return fmt.Sprintf("moves %d sum %d next-add-2 %v", s.n, s.shared.sum, s.rng&1 == 1)
}

func (s *fakeState) MarshalJSON() ([]byte, error) {
	j := fakeJSON{N: s.n, Sum: s.shared.sum, RNG: s.rng}
	if s.g.bug == "json" {
		j.RNG = 0
	}
	return json.Marshal(j)
}

// Present is the fake game's env.Presenter: a counter piece on one space
// and one move per legal add. Bugs "scene-moves" (a legal action without a
// move) and "scene-ended" (no end text at the end) break it, and
// "scene-leak" shows the hidden coin face up in a public zone to the seat
// whose legal actions tell it (the others see it face down).
func (g *fakeGame) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	sc := &env.Scene{Width: 10, Height: 10,
		Spaces: []env.Space{{ID: "sum", W: 10, H: 10, Shape: "rect", Owner: -1}},
		Pieces: []env.Piece{{ID: "counter", At: "sum", Shape: "disc", Owner: -1, Label: fmt.Sprint(obs[1])}}}
	for s := range g.players() {
		sc.Seats = append(sc.Seats, env.SeatFacts{Name: fmt.Sprint("player ", s)})
	}
	if g.bug == "scene-leak" {
		coin := env.Zone{ID: "coin", Name: "the coin", Owner: -1, Cards: []env.Card{env.FaceDown("coin-card")}}
		if slices.Contains(legal, 2) {
			coin.Cards[0] = env.Card{ID: "coin-card", Code: "2", Name: "adding 2 is allowed", Class: "coin"}
		}
		sc.Zones = append(sc.Zones, coin)
	}
	if obs[0] >= 6 && g.bug != "scene-ended" {
		sc.Ended = "six moves made"
	}
	for i, a := range legal {
		if g.bug == "scene-moves" && i == 1 {
			continue
		}
		sc.Moves = append(sc.Moves, env.Move{A: a, Name: fakeSpec.ActionNames[a], Words: fmt.Sprint("add ", a), Target: []string{"sum"}})
	}
	return sc, nil
}

// HowToPlay is the fake game's rules in words.
func (g *fakeGame) HowToPlay() string {
	return "Two players take turns adding 0, 1 or 2 to a shared sum, six moves in all; each scores what they add. " +
		"Adding 2 is allowed only when a coin, tossed in secret by the table before each move, says so. " +
		"Nothing else happens: the game exists to test the conformance suite."
}

// PublicWords is the fake game's env.PublicMover: every add is public (the
// sum is observed), so the words name it. Bug "public-leak" hides the sum
// from every observation while the words still name what was added (a
// hidden choice leaked in words).
func (g *fakeGame) PublicWords(p env.Params, mover, action int) string {
	return fmt.Sprintf("player %d adds %d", mover, action)
}

// fakeHidden is the fake game's hidden part (env.HiddenObserver): one
// byte, the coin that says whether adding 2 is allowed now. Bug
// "hidden-high" writes it past its bound; bug "hidden-load" reads the
// generator's next coin on a state loaded from JSON, so that a snapshot's
// hidden part differs from the original's.
var fakeHidden = env.ObsLayout{env.Field("coin", 0, []int{1}, "1: adding 2 is allowed now")}

func (g *fakeGame) HiddenLayout(env.Params) env.ObsLayout { return fakeHidden }
func (g *fakeGame) HiddenHigh(env.Params) []uint8         { return []uint8{1} }

func (s *fakeState) ObserveHidden(player int, dst []uint8) {
	dst[0] = uint8(s.rng & 1)
	switch {
	case s.g.bug == "hidden-high" && s.n == 3:
		dst[0] = 2
	case s.g.bug == "hidden-load" && s.loaded:
		dst[0] = uint8(s.rng >> 1 & 1)
	}
}
