package envtest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// leakID is a tiny two-player game with a hidden card per player, for the
// information-set test: each player is dealt a card, 0 or 1, seen only by
// its holder. In turn a player pokes or waits. A poke asks the other
// player to block (legal only with card 1, and shows the card: the
// public count of blocks grows) or let it happen. The game ends after
// eight steps; a block scores 1 for the blocker.
//
// Variants (leakGame.bug) break it the ways the test must catch:
//
//	"leak"       the block question is asked only of a holder of card 1
//	             (the others learn the card from the
//	             player to act, one step after the poke);
//	"no-reveals" the sound game without its Reveals method;
//	"asym"       Reveals reads the hidden card;
//	"render"     String shows both cards;
//	"notation"   LoadState refuses a position reached in play (a block);
//	"chance"     no hidden cards, but the next card of a seeded chance draw,
//	             shown after every poke (a chance-only game);
//	"scene"      the sound game presents itself (env.Presenter), each
//	             seat's card face up in its own private hand;
//	"scene-leak" as "scene", but the card lies face up, unmarked, in a
//	             public zone (the public part of the scene leaks it).
const leakID = "envtest-leak-v1"

type leakGame struct{ bug string }

var leakSpec = &env.Spec{
	ID:              leakID,
	Name:            "envtest leak",
	NumPlayers:      2,
	ActionNames:     []string{"poke", "wait", "block", "let"},
	ObsShape:        []int{6},
	ObsDType:        "uint8",
	ObsHigh:         []uint8{8, 1, 1, 1, 8, 1},
	MaxEpisodeSteps: 8,
	RewardRange:     [2]float64{0, 1},
	ReturnRange:     [2]float64{0, 8},
	Params: []env.ParamSpec{
		{Name: env.MaxTurnsParam, Kind: env.Int, Default: 0, Doc: "truncation (0: none)"},
	},
	Description: "A poke-and-block game for testing the information-set test.",
}

func (g *leakGame) Spec() *env.Spec { return leakSpec }

func (g *leakGame) NewState(p env.Params, seed uint64) env.State {
	s := &leakState{g: g, rng: seed | 1}
	if g.bug != "chance" {
		s.card = [2]uint8{uint8(s.next() & 1), uint8(s.next() & 1)}
	}
	return s
}

func (g *leakGame) LoadState(p env.Params, data []byte) (env.State, error) {
	var j leakJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, &env.StateError{Env: leakID, Reason: "malformed", Err: err}
	}
	if g.bug == "notation" && j.Blocks >= 1 {
		return nil, &env.StateError{Env: leakID, Reason: "invalid position", Err: errors.New("a block")}
	}
	return &leakState{g: g, n: j.N, cur: j.Cur, respond: j.Respond, card: j.Card, blocks: j.Blocks, shown: j.Shown, rng: j.RNG}, nil
}

// Determinize keeps what player sees and draws the other card (and the
// generator) from seed.
func (g *leakGame) Determinize(p env.Params, player int, obs []uint8, seed uint64, reuse env.State) (env.State, error) {
	s := &leakState{g: g, n: int(obs[0]), respond: obs[1] == 1, blocks: int(obs[4]), shown: obs[5], rng: seed | 1}
	s.cur = player
	if obs[2] == 0 {
		s.cur = 1 - player
	}
	if g.bug != "chance" {
		s.card[player] = obs[3]
		s.card[1-player] = uint8(s.next() & 1)
	}
	return s, nil
}

type leakState struct {
	g       *leakGame
	n, cur  int
	respond bool
	card    [2]uint8
	blocks  int
	shown   uint8 // chance: the card shown after the last poke
	rng     uint64
}

type leakJSON struct {
	N       int      `json:"n"`
	Cur     int      `json:"cur"`
	Respond bool     `json:"respond"`
	Card    [2]uint8 `json:"card"`
	Blocks  int      `json:"blocks"`
	Shown   uint8    `json:"shown"`
	RNG     uint64   `json:"rng"`
}

func (s *leakState) next() uint64 {
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	return s.rng >> 11
}

func (s *leakState) CurrentPlayer() int {
	if s.Terminal() {
		return env.Terminal
	}
	return s.cur
}

func (s *leakState) LegalMask(dst []uint8) int {
	clear(dst)
	switch {
	case s.Terminal():
		return 0
	case s.respond:
		dst[3] = 1
		if s.card[s.cur] == 1 {
			dst[2] = 1
			return 2
		}
		return 1
	}
	dst[0], dst[1] = 1, 1
	return 2
}

func (s *leakState) Apply(a int, rewards []float64) {
	s.n++
	switch a {
	case 0: // poke
		other := 1 - s.cur
		if s.g.bug == "chance" {
			s.shown = uint8(s.next() & 1)
		}
		if s.g.bug == "leak" && s.card[other] == 0 {
			s.cur = other // nothing to ask: the turn passes
			return
		}
		s.cur, s.respond = other, true
	case 1: // wait
		s.cur = 1 - s.cur
	case 2: // block
		rewards[s.cur]++
		s.blocks++
		s.respond = false
	case 3: // let
		s.respond = false
	}
}

func (s *leakState) Terminal() bool     { return s.n >= 8 }
func (s *leakState) Turn() int          { return s.n }
func (s *leakState) Truncate([]float64) {}

func (s *leakState) Observe(player int, dst []uint8) {
	dst[0] = uint8(s.n)
	dst[1] = b2u(s.respond)
	dst[2] = b2u(s.cur == player)
	dst[3] = s.card[player]
	dst[4] = uint8(s.blocks)
	dst[5] = s.shown
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// Reveals: a block shows the blocker's card; in the chance game every
// poke shows a drawn card.
func (s *leakState) Reveals(player, action int) bool {
	switch s.g.bug {
	case "asym":
		return s.card[1-player] == 1
	case "chance":
		return action == 0
	}
	return action == 2
}

func (s *leakState) Info(dst *env.Info) {
	dst.Outcome = env.OutcomeOngoing
	if s.Terminal() {
		dst.SetTeamResult(2, env.OutcomeDraw, 0)
	}
}

func (s *leakState) Clone() env.State { c := *s; return &c }

func (s *leakState) String() string {
	t := fmt.Sprintf("step %d, player %d to act, respond %v, blocks %d, shown %d", s.n, s.cur, s.respond, s.blocks, s.shown)
	if s.g.bug == "render" {
		t += fmt.Sprintf(", cards %v", s.card)
	}
	return t
}

func (s *leakState) MarshalJSON() ([]byte, error) {
	return json.Marshal(leakJSON{s.n, s.cur, s.respond, s.card, s.blocks, s.shown, s.rng})
}

// leakGamePresenter is the leak game that presents itself: a zone per
// player holding its card, face up to its holder (private, or, with bug
// "scene-leak", public and unmarked), face down to the other.
type leakGamePresenter struct{ leakGame }

func (g *leakGamePresenter) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	sc := &env.Scene{Status: fmt.Sprintf("step %d, %d blocks", obs[0], obs[4])}
	for q := range 2 {
		z := env.Zone{ID: fmt.Sprintf("card-%d", q), Name: fmt.Sprintf("player %d's card", q), Owner: q,
			Cards: []env.Card{}, Count: 1}
		if q == seat {
			z.Cards, z.Count = []env.Card{{ID: fmt.Sprintf("card-%d-c", q), Code: fmt.Sprint(obs[3]), Name: fmt.Sprint("card ", obs[3])}}, 0
			z.Private = g.bug != "scene-leak"
		}
		sc.Zones = append(sc.Zones, z)
		sc.Seats = append(sc.Seats, env.SeatFacts{Name: fmt.Sprint("player ", q)})
	}
	if obs[0] >= 8 {
		sc.Ended = "eight steps played"
	}
	for _, a := range legal {
		sc.Moves = append(sc.Moves, env.Move{A: a, Name: leakSpec.ActionNames[a], Words: leakSpec.ActionNames[a]})
	}
	return sc, nil
}

func (g *leakGamePresenter) HowToPlay() string {
	return "Each player is dealt a card, 0 or 1, seen only by its holder. In turn a player pokes or waits. " +
		"A poke asks the other player to block, which only a holder of card 1 may do, showing the card, " +
		"or to let it happen. The game ends after eight steps; a block scores 1 for the blocker."
}

// leakNoReveals is the sound game without the Revealer method.
type leakNoReveals struct{ *leakState }

type leakGameNoReveals struct{ leakGame }

func (g *leakGameNoReveals) NewState(p env.Params, seed uint64) env.State {
	return leakNoReveals{g.leakGame.NewState(p, seed).(*leakState)}
}

func (g *leakGameNoReveals) LoadState(p env.Params, data []byte) (env.State, error) {
	s, err := g.leakGame.LoadState(p, data)
	if err != nil {
		return nil, err
	}
	return leakNoReveals{s.(*leakState)}, nil
}

func (g *leakGameNoReveals) Determinize(p env.Params, player int, obs []uint8, seed uint64, reuse env.State) (env.State, error) {
	s, err := g.leakGame.Determinize(p, player, obs, seed, reuse)
	if err != nil {
		return nil, err
	}
	return leakNoReveals{s.(*leakState)}, nil
}

func (s leakNoReveals) Clone() env.State { return leakNoReveals{s.leakState.Clone().(*leakState)} }

// Reveals is hidden: leakNoReveals does not implement envtest.Revealer.
func (s leakNoReveals) Reveals() {}

// TestInfoSetCatchesLeaks runs the suite on the variants of the leak game,
// each in a child test process, and checks the verdict: the sound game
// passes, a leak one step after the poke fails the suite (and passes
// under KnownLeak, which in turn fails on the sound game), and so on.
func TestInfoSetCatchesLeaks(t *testing.T) {
	if os.Getenv("ENVTEST_LEAK") != "" {
		t.Skip("child process")
	}
	cases := []struct{ bug, opts, want string }{
		{"", "", "PASS"},
		{"leak", "", "tells the twins apart after poke"},
		{"leak", "", "hidden information leaks"},
		{"leak", "known", "PASS"},
		{"", "known", "no information-set test of this test found a leak"},
		{"no-reveals", "", "PASS"}, // the walks end at the first divergence, a block
		{"no-reveals-leak", "", "declares no reveals"},
		{"asym", "", "must depend only on what the player sees"},
		{"render", "", "String"},
		{"render", "renders", "PASS"},
		{"notation", "", "does not round-trip through the game's notation"},
		{"notation", "noroundtrip", "PASS"},
		{"chance", "", "PASS"},
		{"scene", "", "PASS"},
		{"scene-leak", "", "the public part (env.PublicScene) of seat"},
		// Without the scene checks of the playouts, the twins catch it.
		{"scene-leak", "noscenes", "the public part (env.PublicScene) of seat"},
		{"scene-leak", "noscenes", "tells apart from the true one"},
	}
	for _, c := range cases {
		t.Run("bug="+c.bug+",opts="+c.opts, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLeakGame$", "-test.v")
			cmd.Env = append(os.Environ(), "ENVTEST_LEAK=1", "ENVTEST_LEAK_BUG="+c.bug, "ENVTEST_LEAK_OPTS="+c.opts)
			out, err := cmd.CombinedOutput()
			if c.want == "PASS" {
				if err != nil {
					t.Fatalf("the suite fails: %v\n%s", err, out)
				}
				return
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("the suite passed (err %v):\n%s", err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Fatalf("the suite failed, but without %q:\n%s", c.want, out)
			}
		})
	}
}

// TestLeakGame is the child of TestInfoSetCatchesLeaks.
func TestLeakGame(t *testing.T) {
	if os.Getenv("ENVTEST_LEAK") == "" {
		t.Skip("run by TestInfoSetCatchesLeaks")
	}
	bug := os.Getenv("ENVTEST_LEAK_BUG")
	switch bug {
	case "no-reveals":
		env.Register(&leakGameNoReveals{leakGame{}})
	case "no-reveals-leak":
		env.Register(&leakGameNoReveals{leakGame{bug: "leak"}})
	case "scene", "scene-leak":
		env.Register(&leakGamePresenter{leakGame{bug: bug}})
	default:
		env.Register(&leakGame{bug: bug})
	}
	opts := []envtest.Option{envtest.Episodes(3)}
	switch os.Getenv("ENVTEST_LEAK_OPTS") {
	case "known":
		opts = append(opts, envtest.KnownLeak("the block question is asked only of a holder"))
	case "renders":
		opts = append(opts, envtest.RendersShowMore("String shows both cards"))
	case "noroundtrip":
		opts = append(opts, envtest.NoRoundTrip("a block"))
	case "noscenes":
		opts = append(opts, envtest.SceneEpisodes(0))
	}
	envtest.Run(t, leakID, opts...)
}
