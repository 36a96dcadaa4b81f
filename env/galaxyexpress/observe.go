package galaxyexpress

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// Observation layout: a flat uint8 vector of ObsSize = 503 bytes, named
// once by the fields of layout (offsets below, shapes and meanings there),
// which Spec().ObservationLayout exports. The board planes are 48 bytes
// each, row-major (index row*8+col, row 0 at the top). Everything is 0/1
// except the three counters at the end.
//
// Nothing hidden leaks: unscanned planet numbers, the queue below its top
// and the order of the face-down coins never appear. The observation is a
// complete information state: nothing a player can remember adds to it.
const (
	OffShip       = 0
	OffUnscanned  = 48
	OffPlanet     = 96
	OffTarget     = 384
	OffSpeed      = 432
	OffTargetNum  = 443
	OffDelivered  = 449
	OffBottom     = 455
	OffUp         = 461 // + suit*6
	OffSpent      = 473 // + suit*6
	OffDown       = 485 // + suit*6
	OffPhase      = 497
	OffDeliveries = 500
	OffRefuels    = 501
	OffTurns      = 502
	ObsSize       = 503
)

// layout names every byte of the observation; Spec().ObservationLayout
// holds a copy.
var layout = env.ObsLayout{
	env.Field("ship", OffShip, []int{Rows, Cols}, "the Starship's square, one-hot (all zero before launch)"),
	env.Field("unscanned", OffUnscanned, []int{Rows, Cols}, "planets not yet scanned (face down)"),
	env.Field("planet", OffPlanet, []int{6, Rows, Cols}, "plane n: the scanned planet numbered n (0..5)"),
	env.Field("target", OffTarget, []int{Rows, Cols}, "the target: the scanned planet whose number is the queue top (zero while unscanned or after the last delivery)"),
	env.Field("speed", OffSpeed, []int{maxSpeed + 1}, "speed, one-hot 0..10"),
	env.Field("target_number", OffTargetNum, []int{6}, "target number (queue top), one-hot; zero after the sixth delivery"),
	env.Field("delivered", OffDelivered, []int{6}, "planet numbers already delivered"),
	env.Field("bottom", OffBottom, []int{6}, "the crown moved to the queue bottom at launch, one-hot"),
	env.Field("up", OffUp, []int{2, 6}, "face-up coins by suit (Thrust, Brake) and value (null=0, ace=1 .. 5)"),
	env.Field("spent", OffSpent, []int{2, 6}, "spent coins by suit (Thrust, Brake) and value"),
	env.Field("down", OffDown, []int{2, 6}, "face-down coins by suit (Thrust, Brake) and value (order unknown)"),
	env.Field("phase", OffPhase, []int{3}, "phase, one-hot: launch, play a coin, refuel decision"),
	env.Field("deliveries", OffDeliveries, []int{1}, "deliveries made, 0..6"),
	env.Field("refuels", OffRefuels, []int{1}, "refuels, 0..255 (saturating)"),
	env.Field("turns", OffTurns, []int{1}, "turns played, 0..255 (saturating)"),
}

// Observe writes the observation (see the layout above) into dst.
func (s *State) Observe(player int, dst []uint8) {
	clear(dst[:ObsSize])
	if s.ship >= 0 {
		dst[OffShip+int(s.ship)] = 1
	}
	for b := s.planets &^ s.known; b != 0; b &= b - 1 {
		dst[OffUnscanned+trailing(b)] = 1
	}
	for b := s.known; b != 0; b &= b - 1 {
		sq := trailing(b)
		dst[OffPlanet+Squares*int(s.numAt[sq])+sq] = 1
	}
	if t := s.Target(); t >= 0 {
		dst[OffTargetNum+t] = 1
		if sq := s.sqOf[t]; s.known&(1<<sq) != 0 {
			dst[OffTarget+int(sq)] = 1
		}
	}
	for i := 0; i < int(s.delivered); i++ {
		dst[OffDelivered+int(s.queue[i])] = 1
	}
	if s.bottom >= 0 {
		dst[OffBottom+int(s.bottom)] = 1
	}
	dst[OffSpeed+int(s.speed)] = 1
	// Six coin fields of six bytes each, written in ascending offset order
	// with 8-byte stores: the two zero bytes past each field land on the next
	// field, written next, or on the phase bytes, written below.
	up, spent := s.up, s.spent
	le := binary.LittleEndian
	le.PutUint64(dst[OffUp:], spread6[up[Thrust]])
	le.PutUint64(dst[OffUp+numValues:], spread6[up[Brake]])
	le.PutUint64(dst[OffSpent:], spread6[spent[Thrust]])
	le.PutUint64(dst[OffSpent+numValues:], spread6[spent[Brake]])
	le.PutUint64(dst[OffDown:], spread6[allValues&^spent[Thrust]&^up[Thrust]])
	le.PutUint64(dst[OffDown+numValues:], spread6[allValues&^spent[Brake]&^up[Brake]])
	if s.phase < PhaseOver {
		dst[OffPhase+int(s.phase)] = 1
	}
	dst[OffDeliveries] = uint8(s.delivered)
	dst[OffRefuels] = uint8(min(int(s.refuels), 255))
	dst[OffTurns] = uint8(min(int(s.turns), 255))
}

func trailing(b uint64) int { return bits.TrailingZeros64(b) }

// spread6[m] holds bit v of the 6-bit set m in byte v (little-endian).
var spread6 = func() (t [64]uint64) {
	for m := range t {
		for v := 0; v < numValues; v++ {
			t[m] |= uint64(m>>v&1) << (8 * v)
		}
	}
	return t
}()

// obsHigh returns the inclusive upper bound of every observation element.
func obsHigh() []uint8 {
	h := make([]uint8, ObsSize)
	for i := range h {
		h[i] = 1
	}
	h[OffDeliveries] = MaxDeliveries
	h[OffRefuels] = 255
	h[OffTurns] = 255
	return h
}

// Rating categories of the printed rules' scoring.
const (
	RatingEmployee = "Employee of the Year!!"                            // 100 or more
	RatingNice     = "Nice going, kid!"                                  // 90 to 99
	RatingRookie   = "Not bad ... for a rookie!"                         // 80 to 89
	RatingAcademy  = "Maybe you need to spend more time at the Academy!" // less than 80
)

// Rating returns the seed's category for a score.
func Rating(score int) string {
	switch {
	case score >= 100:
		return RatingEmployee
	case score >= 90:
		return RatingNice
	case score >= 80:
		return RatingRookie
	}
	return RatingAcademy
}

var phaseLabels = [...]string{"launch", "play a coin", "refuel?", "over"}

// String renders what the player sees: the Star Chart (. empty, ? planet not
// scanned, 0-5 scanned planet, @ the Starship, * marks the target) and the
// gauges. Hidden information is not shown.
func (s *State) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Galaxy Express  phase: %s  turn %d  speed %d  deliveries %d  refuels %d  score %d\n",
		phaseLabels[s.phase], s.turns, s.speed, s.delivered, s.refuels, s.Score())
	if t := s.Target(); t >= 0 {
		fmt.Fprintf(&b, "target: planet %d", t)
	} else {
		b.WriteString("target: none (all delivered)")
	}
	if s.lost {
		b.WriteString("  LOST IN SPACE")
	}
	b.WriteString("\n   a b c d e f g h\n")
	for r := 0; r < Rows; r++ {
		fmt.Fprintf(&b, "%d ", r+1)
		for c := 0; c < Cols; c++ {
			sq := r*Cols + c
			mark, cell := byte(' '), byte('.')
			if s.planets&(1<<sq) != 0 {
				cell = '?'
				if s.known&(1<<sq) != 0 {
					cell = byte('0' + s.numAt[sq])
					if int(s.numAt[sq]) == s.Target() {
						mark = '*'
					}
				}
			}
			if int(s.ship) == sq {
				mark = '@'
			}
			b.WriteByte(mark)
			b.WriteByte(cell)
		}
		b.WriteByte('\n')
	}
	for suit := Thrust; suit <= Brake; suit++ {
		fmt.Fprintf(&b, "%-6s face up %s  face down %d  spent %s\n", suit,
			valueList(s.up[suit]), s.deckN[suit], valueList(s.spent[suit]))
	}
	return b.String()
}

func valueList(set uint8) string {
	var parts []string
	for v := 0; v < numValues; v++ {
		if set&(1<<v) != 0 {
			parts = append(parts, fmt.Sprint(v))
		}
	}
	if parts == nil {
		return "-"
	}
	return strings.Join(parts, ",")
}
