package trio

import (
	"fmt"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// Observation layout: a flat uint8 vector of ObsSize bytes, named once by
// the fields of layout (offsets below, shapes and meanings there), which
// Spec().ObservationLayout exports. Everything but the chance generator
// is public.
const (
	OffRow     = 0                      // the row's values
	OffLocked  = OffRow + Slots         // the locked slot + 1
	OffScores  = OffLocked + 1          // seat-relative scores
	OffTaken   = OffScores + MaxPlayers // cards taken so far
	OffPlayers = OffTaken + 1           // the number of players
)

// layout names every byte of the observation; Spec().ObservationLayout
// holds a copy.
var layout = env.ObsLayout{
	env.Field("row", OffRow, []int{Slots}, "the row's card values, 1-9, slot by slot"),
	env.Field("locked", OffLocked, []int{1}, "the locked slot + 1 (0: none)"),
	env.Field("scores", OffScores, []int{MaxPlayers}, "the scores of the observer, then of the players after it in turn order (0 for absent seats)"),
	env.Field("taken", OffTaken, []int{1}, "cards taken so far by all players (0-16)"),
	env.Field("players", OffPlayers, []int{1}, "the number of players"),
}

// Observe writes player's view (see layout): the whole position but the
// chance generator.
func (s *State) Observe(player int, dst []uint8) {
	copy(dst[OffRow:OffRow+Slots], s.row[:])
	dst[OffLocked] = uint8(s.locked + 1)
	for k := range MaxPlayers {
		dst[OffScores+k] = 0
		if k < s.players {
			dst[OffScores+k] = s.scores[(player+k)%s.players]
		}
	}
	dst[OffTaken] = s.taken
	dst[OffPlayers] = uint8(s.players)
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
