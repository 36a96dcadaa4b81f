package pilotsofgallaxia

import "github.com/galaxygym/galaxygym/env"

// The hidden part (env.HiddenObserver): a flat uint8 vector of HiddenSize
// = 433 bytes, the same for every number of players (seats past the
// number of players are all zero, as in the observation), in the
// observer's frame like the observation: relative seat r is the pilot r
// seats clockwise of the observer, and planet card 8r + n-1 is planet n of
// the sektor r sektors clockwise of the observer's (obsKind). It holds
// what the observer's observation does not show:
//
//   - every other pilot's hand, cards per kind (a hidden raid card on the
//     table is not in it: it is the raid field below);
//   - the raider's and the defender's card laid face down in a raid
//     (phases raidA and raidD), when the observer does not own it;
//   - the order of the Gallaxia deck and of the Captain's deck, position 0
//     the next card drawn.
//
// Not in it: the chance generator (dice, future shuffles of the discard
// piles), and what everyone sees: the piles, The Gambit, the cards
// revealed in a battle.
const (
	HidHands       = 0                                  // (MaxPlayers-1) x NumKinds: relative seat r (1-5) at row r-1
	HidRaiderCard  = HidHands + (MaxPlayers-1)*NumKinds // the raider's face-down card, kind + 1
	HidDefendCard  = HidRaiderCard + 1                  // the defender's face-down card, kind + 1
	HidDeck        = HidDefendCard + 1                  // deckSize codes: Gallaxia kind + 1, position 0 the top
	HidCaptainDeck = HidDeck + deckSize                 // captainSize codes: 1 Afterburner, 2 Deflector, 3 Salvage
	HiddenSize     = HidCaptainDeck + captainSize
)

// hiddenLayout names every byte of the hidden part.
var hiddenLayout = env.ObsLayout{
	env.Field("other_hands", HidHands, []int{MaxPlayers - 1, NumKinds},
		"per other relative seat r = 1-5 (row r-1; zero past the number of players): cards in hand per kind, "+
			"0 to the kind's copies (the layout of the observation's hand: planet card 8r+n-1 is planet n of the sektor "+
			"r sektors clockwise of the observer's; the Rekkoning always 0); a card laid face down in a raid is not counted"),
	env.CodeField("raider_hidden_card", HidRaiderCard, []int{1}, NumKinds+1,
		"the raider's card laid face down (phases raidA, raidD), kind + 1 in the observer's frame; 0 none, "+
			"no raid, or the observer's own card (the observation's own_raid_card)"),
	env.CodeField("defender_hidden_card", HidDefendCard, []int{1}, NumKinds+1,
		"the defender's card laid face down (phases raidA, raidD), kind + 1 in the observer's frame; 0 none, "+
			"no raid, or the observer's own card"),
	env.CodeField("deck", HidDeck, []int{deckSize}, numGallaxiaKinds+1,
		"the Gallaxia deck, position 0 the next card drawn: kind + 1 in the observer's frame (1-48 planet cards, "+
			"49-54 fuel 3-8, 55-62 Durriken 1-8, 63 the Rekkoning), 0 past the deck's end"),
	env.CodeField("captain_deck", HidCaptainDeck, []int{captainSize}, 4,
		"the Captain's deck, position 0 the next card drawn: 1 Afterburner, 2 Deflector, 3 Salvage, 0 past the deck's end"),
}

// HiddenLayout implements env.HiddenObserver: the fields of the hidden part
// (the same for every parameter set and both versions).
func (Game) HiddenLayout(env.Params) env.ObsLayout { return hiddenLayout.Clone() }

// HiddenHigh implements env.HiddenObserver: the inclusive upper bound of
// every byte of the hidden part.
func (Game) HiddenHigh(env.Params) []uint8 {
	h := make([]uint8, HiddenSize)
	for r := 0; r < MaxPlayers-1; r++ {
		for k := 0; k < NumKinds; k++ {
			if k != KindRekkoning {
				h[HidHands+r*NumKinds+k] = uint8(Copies(k))
			}
		}
	}
	h[HidRaiderCard], h[HidDefendCard] = NumKinds, NumKinds
	for i := 0; i < deckSize; i++ {
		h[HidDeck+i] = numGallaxiaKinds
	}
	for i := 0; i < captainSize; i++ {
		h[HidCaptainDeck+i] = 3
	}
	return h
}

// ObserveHidden implements env.HiddenState: player's hidden part
// (HiddenSize bytes, see HidHands) into dst. It allocates nothing.
func (s *State) ObserveHidden(player int, dst []uint8) {
	dst = dst[:HiddenSize]
	clear(dst)
	n := s.cfg.players
	sk := int(s.sek[player])
	for r := 1; r < n; r++ {
		h := &s.hand[(player+r)%n]
		o := HidHands + (r-1)*NumKinds
		for j := 0; j < NumSektors; j++ { // planet cards: sektor j's 8 to its relative place
			rel := 8 * int(obsSektor[sk][j])
			copy(dst[o+rel:o+rel+8], h[8*j:8*j+8])
		}
		copy(dst[o+KindFuel:o+NumKinds], h[KindFuel:])
	}
	if s.phase == PhRaidA || s.phase == PhRaidD {
		if s.rcard > 0 && owner(int(s.raider)) != player {
			dst[HidRaiderCard] = uint8(obsKind(int(s.rcard)-1, sk) + 1)
		}
		if s.dcard > 0 && owner(int(s.defender)) != player {
			dst[HidDefendCard] = uint8(obsKind(int(s.dcard)-1, sk) + 1)
		}
	}
	for i := 0; i < int(s.deckN); i++ {
		dst[HidDeck+i] = uint8(obsKind(int(s.deck[int(s.deckN)-1-i]), sk) + 1)
	}
	for i := 0; i < int(s.cdckN); i++ {
		dst[HidCaptainDeck+i] = s.cdeck[int(s.cdckN)-1-i] - KindAfterburner + 1
	}
}

var (
	_ env.HiddenObserver = Game{}
	_ env.HiddenState    = (*State)(nil)
)
