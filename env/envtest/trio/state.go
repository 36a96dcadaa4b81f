package trio

import (
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/env"
)

// ID is the environment id.
const ID = "envtest-trio-v1"

// The game's constants.
const (
	Slots      = 5 // cards in the row
	MaxValue   = 9 // cards are worth 1..MaxValue
	Takes      = 4 // cards each player takes
	MaxPlayers = 4
	ObsSize    = 12
)

// State is a position: the row, the locked slot, the scores and the chance
// generator.
type State struct {
	players int
	row     [Slots]uint8
	locked  int8 // the slot the next player may not take, -1 for none
	scores  [MaxPlayers]uint8
	taken   uint8 // cards taken so far
	rng     *rand.PCG
}

// newState deals a game of n players from seed.
func newState(n int, seed uint64) *State {
	s := &State{players: n, locked: -1, rng: rand.NewPCG(seed, 0x7472696f)} // "trio"
	for i := range s.row {
		s.row[i] = s.draw()
	}
	return s
}

// draw returns the next card, uniform in 1..MaxValue.
func (s *State) draw() uint8 {
	return uint8(1 + s.rng.Uint64()%MaxValue)
}

// Game is Trio's env.Game.
type Game struct{}

func init() { env.Register(Game{}) }

var spec = &env.Spec{
	ID:         ID,
	Name:       "Trio",
	NumPlayers: 3,
	MinPlayers: 2,
	MaxPlayers: MaxPlayers,
	ActionNames: []string{
		"take-0", "take-1", "take-2", "take-3", "take-4",
	},
	ObsShape:        []int{ObsSize},
	ObsDType:        "uint8",
	ObsHigh:         []uint8{9, 9, 9, 9, 9, Slots, 36, 36, 36, 36, Takes * MaxPlayers, MaxPlayers},
	MaxEpisodeSteps: Takes * MaxPlayers,
	RewardRange:     [2]float64{0, MaxValue},
	ReturnRange:     [2]float64{0, Takes * MaxValue},
	Params: []env.ParamSpec{
		{Name: env.MaxTurnsParam, Kind: env.Int, Default: 0, Min: 0, Max: Takes * MaxPlayers,
			Doc: "truncate after this many takes (0: never)"},
	},
	Description: "A card-taking race for 2-4 players that ranks by score: the test game of the seats and per-player results.",
}

// Spec returns the environment description.
func (Game) Spec() *env.Spec { return spec }

// NewState deals a new game from seed.
func (Game) NewState(p env.Params, seed uint64) env.State {
	return newState(p.Int(env.PlayersParam), seed)
}

// LoadState reads a state written by MarshalJSON ({"position": notation});
// errors are *env.StateError.
func (Game) LoadState(p env.Params, data []byte) (env.State, error) {
	return env.UnmarshalPosition(ID, data, func(text string) (*State, error) {
		s, err := ParsePosition(text)
		if err == nil && s.players != p.Int(env.PlayersParam) {
			err = perr("%d players, the environment has %d", s.players, p.Int(env.PlayersParam))
		}
		return s, err
	})
}

// MarshalJSON serializes the state as {"position": notation}.
func (s *State) MarshalJSON() ([]byte, error) { return env.MarshalPosition(s.Position()) }

// Clone returns an independent copy.
func (s *State) Clone() env.State {
	c := *s
	r := *s.rng
	c.rng = &r
	return &c
}

// WithSeed returns a copy of s whose chance generator is seeded from seed,
// for tests of hidden information.
func WithSeed(s *State, seed uint64) *State {
	c := s.Clone().(*State)
	c.rng.Seed(seed, 0x7472696f)
	return c
}
