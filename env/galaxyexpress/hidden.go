package galaxyexpress

import "github.com/galaxygym/galaxygym/env"

// The hidden part (env.HiddenObserver): a flat uint8 vector of HiddenSize
// = 65 bytes of codes, everything the observation leaves face down that
// the deal has already decided:
//
//   - the number of every unscanned planet (the observation shows where
//     they are, not which is which);
//   - the delivery queue below its top (the observation shows the top,
//     the delivered numbers and the crown moved at launch);
//   - the order of both face-down coin stacks, position 0 the next coin
//     turned face up (the observation shows which coins are face down).
//
// With the observation it is the whole position but for the chance
// generator, which a refuel's reshuffle draws from: a player who sees it
// plays the omniscient game (about 112 points, docs/learning-baselines.md).
// It is for critics trained offline; no policy reads it.
const (
	HidNumbers = 0                         // Squares codes: number+1 of the unscanned planet on the square
	HidQueue   = HidNumbers + Squares      // numPlanets-1 codes: the queue below its top, number+1
	HidDown    = HidQueue + numPlanets - 1 // 2 x numValues codes: face-down coins, value+1
	HiddenSize = HidDown + 2*numValues     // 65
)

// hiddenLayout names every byte of the hidden part.
var hiddenLayout = env.ObsLayout{
	env.CodeField("unscanned_number", HidNumbers, []int{Rows, Cols}, numPlanets+1,
		"the number + 1 (1..6) of the unscanned planet on each square, row-major as the observation's planes; "+
			"0 where there is no planet or it is scanned (its number is in the observation's planet planes)"),
	env.CodeField("queue", HidQueue, []int{numPlanets - 1}, numPlanets+1,
		"the delivery queue below its top (the observation's target_number), position 0 the next target: "+
			"planet number + 1 (1..6), 0 past the queue's end"),
	env.CodeField("face_down", HidDown, []int{2, numValues}, numValues+1,
		"the face-down coins by suit (Thrust, Brake), position 0 the next coin turned face up: value + 1 "+
			"(1 null .. 6 five), 0 past the stack's end (the observation's down field is the same coins unordered)"),
}

// HiddenLayout implements env.HiddenObserver: the fields of the hidden
// part, the same for every parameter set.
func (Game) HiddenLayout(env.Params) env.ObsLayout { return hiddenLayout.Clone() }

// HiddenHigh implements env.HiddenObserver: the inclusive upper bound of
// every byte of the hidden part.
func (Game) HiddenHigh(env.Params) []uint8 {
	h := make([]uint8, HiddenSize)
	for _, f := range hiddenLayout {
		for i := f.Offset; i < f.End(); i++ {
			h[i] = uint8(f.Classes - 1)
		}
	}
	return h
}

// ObserveHidden implements env.HiddenState: the hidden part (HiddenSize
// bytes, see the layout above) into dst; player is 0, the only seat. It
// allocates nothing.
func (s *State) ObserveHidden(player int, dst []uint8) {
	dst = dst[:HiddenSize]
	clear(dst)
	for b := s.planets &^ s.known; b != 0; b &= b - 1 {
		sq := trailing(b)
		dst[HidNumbers+sq] = uint8(s.numAt[sq] + 1)
	}
	for i := int(s.delivered) + 1; i < numPlanets; i++ {
		dst[HidQueue+i-int(s.delivered)-1] = uint8(s.queue[i] + 1)
	}
	for suit := Thrust; suit <= Brake; suit++ {
		n := int(s.deckN[suit])
		for i := 0; i < n; i++ {
			dst[HidDown+int(suit)*numValues+i] = uint8(s.deck[suit][n-1-i] + 1)
		}
	}
}

var (
	_ env.HiddenObserver = Game{}
	_ env.HiddenState    = (*State)(nil)
)
