package trio

import (
	"fmt"
	"strings"
)

// Observe writes player's view (see the package documentation's layout):
// the whole position but the chance generator.
func (s *State) Observe(player int, dst []uint8) {
	copy(dst[0:Slots], s.row[:])
	dst[5] = uint8(s.locked + 1)
	for k := range MaxPlayers {
		dst[6+k] = 0
		if k < s.players {
			dst[6+k] = s.scores[(player+k)%s.players]
		}
	}
	dst[10] = s.taken
	dst[11] = uint8(s.players)
}

// String renders the position for people: the row (the locked slot in
// brackets), the scores and the player to move; never the generator.
func (s *State) String() string {
	var b strings.Builder
	b.WriteString("row")
	for i, v := range s.row {
		if i == int(s.locked) {
			fmt.Fprintf(&b, " [%d]", v)
		} else {
			fmt.Fprintf(&b, " %d", v)
		}
	}
	b.WriteString(" | scores")
	for p := range s.players {
		fmt.Fprintf(&b, " %d", s.scores[p])
	}
	if s.Terminal() {
		b.WriteString(" | over")
	} else {
		fmt.Fprintf(&b, " | player %d to take, card %d of %d", s.CurrentPlayer(), s.taken+1, Takes*s.players)
	}
	return b.String()
}
