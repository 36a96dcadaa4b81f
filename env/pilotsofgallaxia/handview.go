package pilotsofgallaxia

import (
	"fmt"
	"strings"
)

// StringFor renders the position as player sees it at the table: String
// (public information only) followed by player's own hand, card by card in
// the notation of CardName (planet cards as their space, f3..f8 fuel,
// d1..d8 Durriken, R the Rekkoning, and the Captain's Cards by name). The
// browser page of galaxygym serve shows it to that player's seat.
func (s *State) StringFor(player int) string {
	var b strings.Builder
	b.WriteString(s.String())
	if player < 0 || player >= s.cfg.players {
		return b.String()
	}
	var cards []string
	for k := 0; k < NumKinds; k++ {
		for range int(s.hand[player][k]) {
			cards = append(cards, CardName(k))
		}
	}
	fmt.Fprintf(&b, "your hand (pilot %d): %s\n", player, strings.Join(cards, " "))
	return b.String()
}
