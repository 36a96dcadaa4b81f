package trio

import (
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/env"
)

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
