package express

import "github.com/galaxygym/galaxygym/env"

// The hidden part (env.HiddenObserver): what a player's observation does
// not show and the position already holds, for critics trained with the
// whole state. A flat uint8 vector of HiddenSize bytes, the same size for
// every number of players (the seats past the number of players are
// zero, as in the observation's player blocks), seat-relative: row j of
// the per-seat fields is the player j+1 seats after the observer,
// clockwise. The observer's own hand and locomotives are in the
// observation and not repeated; the cards known to be in another hand
// (A26) are counted in that hand again, so that a row is the whole hand.
// The generator (later shuffles: a rebuilt draw pile, the set-aside cards
// going back) is not part of it.
const (
	// HidHands: the other players' hands, count per kind (MaxPlayers-1 rows
	// of NumKinds; 0 to the kind's count in the deck).
	HidHands = 0
	// HidLocos: the other players' locomotives, kind+1 per train slot, 0 no
	// train (MaxPlayers-1 rows of MaxTrains).
	HidLocos = HidHands + (MaxPlayers-1)*NumKinds
	// HidDeck: the draw pile in drawing order, kind+1 per position
	// (position 0 the next card drawn), 0 past its size (DeckSize).
	HidDeck = HidLocos + (MaxPlayers-1)*MaxTrains
	// HidDiscards: the discard pile below its RecentDiscards newest cards
	// (those are in the observation), newest first, kind+1 per position,
	// 0 past its size (DeckSize-RecentDiscards): the order in which taking
	// the top discard brings cards into view.
	HidDiscards = HidDeck + DeckSize
	// HiddenSize is the size of the hidden part (328 bytes).
	HiddenSize = HidDiscards + DeckSize - RecentDiscards
)

// hiddenLayout names every byte of the hidden part, from the offsets
// above (one layout for every number of players and both versions).
var hiddenLayout = env.ObsLayout{
	env.Field("other_hands", HidHands, []int{MaxPlayers - 1, NumKinds},
		"the other players' hands, count per card kind (0 to the kind's count in the deck); row j the player j+1 seats "+
			"after the observer, clockwise; rows past the number of players zero; cards known to be in a hand included"),
	env.CodeField("other_locos", HidLocos, []int{MaxPlayers - 1, MaxTrains}, NumKinds+1,
		"the other players' face-down locomotives, kind+1 per train slot, 0 no train; row j the player j+1 seats "+
			"after the observer, clockwise; rows past the number of players zero"),
	env.CodeField("deck_order", HidDeck, []int{DeckSize}, NumKinds+1,
		"the draw pile in drawing order: kind+1 per position, position 0 the next card drawn, 0 past the pile's size"),
	env.CodeField("discard_order", HidDiscards, []int{DeckSize - RecentDiscards}, NumKinds+1,
		"the discard pile below its newest recent_discards cards, newest first: kind+1 per position, "+
			"position 0 the card under the observation's last recent discard, 0 past the pile's size"),
}

// hiddenHigh is the inclusive upper bound of every byte of the hidden part.
var hiddenHigh = func() []uint8 {
	h := make([]uint8, HiddenSize)
	for j := 0; j < MaxPlayers-1; j++ {
		for k := 0; k < NumKinds; k++ {
			h[HidHands+j*NumKinds+k] = uint8(kinds[k].Count)
		}
	}
	for i := HidLocos; i < HiddenSize; i++ {
		h[i] = NumKinds
	}
	return h
}()

var (
	_ env.HiddenObserver = Game{}
	_ env.HiddenState    = (*State)(nil)
)

// HiddenLayout implements env.HiddenObserver: the layout of the hidden
// part (HiddenSize bytes, whatever the parameters), a new copy.
func (g Game) HiddenLayout(p env.Params) env.ObsLayout { return hiddenLayout.Clone() }

// HiddenHigh implements env.HiddenObserver: the inclusive upper bound of
// every byte of the hidden part (len HiddenSize), a new slice.
func (g Game) HiddenHigh(p env.Params) []uint8 { return append([]uint8(nil), hiddenHigh...) }

// ObserveHidden implements env.HiddenState: it writes player's hidden part
// (see HidHands) into dst (len HiddenSize). It allocates nothing.
func (s *State) ObserveHidden(player int, dst []uint8) {
	dst = dst[:HiddenSize]
	clear(dst)
	for j, q := 0, player; j < s.n-1; j++ {
		if q++; q == s.n {
			q = 0
		}
		p := &s.pl[q]
		copy(dst[HidHands+j*NumKinds:], p.hand[:])
		for t := range p.trains {
			if l := p.trains[t].loco; l >= 0 {
				dst[HidLocos+j*MaxTrains+t] = uint8(l + 1)
			}
		}
	}
	for i := 0; i < s.deckN; i++ {
		dst[HidDeck+i] = s.deck[s.deckN-1-i] + 1
	}
	for i := 0; i < s.discN-RecentDiscards; i++ {
		dst[HidDiscards+i] = s.disc[s.discN-1-RecentDiscards-i] + 1
	}
}
