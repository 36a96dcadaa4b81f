package galaxyfighters

import "github.com/galaxygym/galaxygym/env"

// The hidden part (env.HiddenObserver): a flat uint8 vector of HiddenSize
// = 31 bytes, the same for every number of players and both versions (the
// four ships always play; the players parameter changes only who controls
// them). It holds what the observer's observation does not show and
// another seat's observation may (or will) depend on:
//
//   - the order of the spawn deck, position 0 the next card drawn (the
//     observation counts it, deck_left);
//   - the order of the shipyard, position 0 the next replacement ship
//     (the observation counts it, yard_left);
//   - with 3 players, the player now controlling the fourth ship (seat 3),
//     as a relative seat: the observation shows only whether it is the
//     observer, and from turn 255 on (its turns byte saturates) the
//     observer cannot tell which of the other two it is, while they see it.
//
// Not in it: the chance generator (dice, v2's reinforcement cards); the
// ship cards left in the box (never drawn, and not kept in the state); and
// public information the observation leaves out for every seat alike: the
// order of the aliens under each stack's top and per-kind counts past 15
// (the observation gives the top, the height and saturating counts), the
// split of the aliens waiting to spill over among the full districts (the
// observation gives their total), the last spawn card drawn, the turn
// count past 255 and the episode statistics.
const (
	HidDeck         = 0                     // maxDeckSize codes: pool card number 1-25, position 0 the next card drawn
	HidYard         = HidDeck + maxDeckSize // maxBackup codes: model + 1, position 0 the next ship
	HidFourthPlayer = HidYard + maxBackup   // 3 players: relative seat of the fourth ship's controller + 1
	HiddenSize      = HidFourthPlayer + 1
)

// hiddenLayout names every byte of the hidden part.
var hiddenLayout = env.ObsLayout{
	env.CodeField("spawn_deck", HidDeck, []int{maxDeckSize}, poolCards+1,
		"the spawn deck, position 0 the next card drawn: the spawn card's number 1-25 (the notation's deck= "+
			"numbers, which it lists from the bottom), 0 past the deck's end (deck_left cards are in it); the same for every observer"),
	env.CodeField("shipyard", HidYard, []int{maxBackup}, numModels+1,
		"the shipyard, position 0 the next ship to replace a destroyed one: 1 Astro Wing, 2 Phalanx, 3 Gladius, "+
			"0 past its end (yard_left ships are in it); the same for every observer"),
	env.CodeField("fourth_ship_player", HidFourthPlayer, []int{1}, NumSeats+1,
		"3 players only: the player controlling the fourth ship (seat 3, passed round in turn) as the relative seat "+
			"of that player's seat + 1 (1 the observer, 2 the left neighbour, 3 across, 4 the right neighbour); "+
			"0 with 2 or 4 players, whose controllers are fixed"),
}

// HiddenLayout implements env.HiddenObserver: the fields of the hidden part
// (the same for every parameter set and both versions).
func (Game) HiddenLayout(env.Params) env.ObsLayout { return hiddenLayout.Clone() }

// HiddenHigh implements env.HiddenObserver: the inclusive upper bound of
// every byte of the hidden part.
func (Game) HiddenHigh(env.Params) []uint8 {
	h := make([]uint8, HiddenSize)
	for i := 0; i < maxDeckSize; i++ {
		h[HidDeck+i] = poolCards
	}
	for i := 0; i < maxBackup; i++ {
		h[HidYard+i] = numModels
	}
	h[HidFourthPlayer] = NumSeats
	return h
}

// ObserveHidden implements env.HiddenState: player's hidden part
// (HiddenSize bytes: the spawn deck from HidDeck, the shipyard from
// HidYard, the fourth ship's controller at HidFourthPlayer) into dst. It
// allocates nothing.
func (s *State) ObserveHidden(player int, dst []uint8) {
	dst = dst[:HiddenSize]
	clear(dst)
	for i := 0; i < int(s.deckN); i++ {
		dst[HidDeck+i] = uint8(s.deck[int(s.deckN)-1-i])
	}
	for i := 0; i < int(s.yardN); i++ {
		dst[HidYard+i] = uint8(s.yard[int(s.yardN)-1-i] + 1)
	}
	if s.cfg.players == 3 {
		dst[HidFourthPlayer] = uint8((s.controller(NumSeats-1)-player+NumSeats)%NumSeats + 1)
	}
}

var (
	_ env.HiddenObserver = Game{}
	_ env.HiddenState    = (*State)(nil)
)
