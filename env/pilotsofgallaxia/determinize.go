package pilotsofgallaxia

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// DeterminizeError reports an observation that is not one of a valid
// position, so that no state can be built from it.
type DeterminizeError struct{ Reason string }

func (e *DeterminizeError) Error() string { return "pilotsofgallaxia: determinize: " + e.Reason }

func derr(format string, a ...any) error { return &DeterminizeError{fmt.Sprintf(format, a...)} }

// Determinize implements env.Determinizer: a complete state drawn from
// those consistent with obs, the observation of player. The public part
// (pieces, caravans, rings, supplies, points, piles, The Gambit, the
// phase and the move or raid in progress) is read from obs; the hidden
// part is sampled with a generator seeded from seed alone:
//
//   - the cards nobody has seen (the game's cards less the observer's
//     hand, the discard piles, the cards up and the cards on the table) are
//     dealt uniformly at random: the deck gets as many Gallaxia cards as it
//     holds (the Rekkoning among them when it is not in the discard pile),
//     the Captain's deck as many Captain's Cards, and the other pilots their
//     hand sizes from the rest;
//   - while the observer defends a raid, the raider's hidden card is none
//     or a uniformly drawn card of its sampled hand, with probability 1/2
//     each;
//   - the order of both decks and the chance generator.
//
// This is uniform over the hidden cards given the public information, not
// the exact posterior (which would weigh what the other pilots' play
// reveals). Observe(player) of the result writes obs again, and its mask
// is that of the true position. Not recovered: the turn count beyond 255
// (the observation saturates), and the raid, Teleprism and Rekkoning
// statistics of Info. It returns a *DeterminizeError for an observation
// of no valid position, and for a finished game.
func (g Game) Determinize(params env.Params, player int, obs []uint8, seed uint64, reuse env.State) (env.State, error) {
	c, err := NewConfigOf(g.Spec().ID, params)
	if err != nil {
		return nil, derr("%v", err)
	}
	s, _ := reuse.(*State)
	if s == nil {
		s = new(State)
	}
	if err := determinizeInto(s, c.c, player, obs, seed); err != nil {
		return nil, err
	}
	return s, nil
}

func determinizeInto(s *State, cfg *config, player int, obs []uint8, seed uint64) error {
	if len(obs) != ObsSize {
		return derr("observation has %d bytes, want %d", len(obs), ObsSize)
	}
	n := cfg.players
	if player < 0 || player >= n {
		return derr("player %d of %d", player, n)
	}
	if int(obs[OffPlayers]) != n {
		return derr("observation of %d players, parameters say %d", obs[OffPlayers], n)
	}
	*s = State{cfg: cfg}
	s.rng.Seed(seed, rngStream)
	s.reset()
	sk := int(s.sek[player])
	abs := func(i int) int { return rotate(i, sk) }
	pl := func(r int) int { return (player + r) % n }
	phase := -1
	for i := 0; i < numPhases; i++ {
		if obs[OffPhase+i] == 1 {
			phase = i
		}
	}
	if phase < 0 {
		return derr("no phase")
	}
	if phase == PhOver {
		return derr("the game is over")
	}
	s.phase = int8(phase)
	s.rekk = obs[OffPhase+numPhases] == 1
	s.rwin = s.phase == PhRaidWin && obs[OffRaiderWon] == 1
	s.cur = -1
	for r := 0; r < n; r++ {
		o := OffSeats + r*SeatBytes
		p := pl(r)
		if obs[o+SeatPresent] != 1 || int(obs[o+SeatSektor]) != (int(s.sek[p])-sk+NumSektors)%NumSektors {
			return derr("seat %d does not match the sektors of %d players", r, n)
		}
		s.handN[p] = obs[o+SeatHandSize]
		s.carLeft[p], s.blkLeft[p] = int8(obs[o+SeatCaravans]), int8(obs[o+SeatBlokks])
		s.hired[p], s.deployed[p] = obs[o+SeatHired] == 1, obs[o+SeatDeployed] == 1
		s.delivered[p] = int8(obs[o+SeatHome])
		s.points[p] = int16(obs[o+SeatPoints])
		s.flags[p] = obs[o+SeatFlags]
		if obs[o+SeatTurn] == 1 {
			s.cur = int8(p)
			s.moved = obs[o+SeatMoved]
		}
	}
	if s.cur < 0 {
		return derr("nobody's turn")
	}
	s.mover = int8(obs[OffMovingPiece]) - 1
	if s.movingPhase() && s.mover < 0 {
		return derr("a move without a piece")
	}
	if s.mover < 0 {
		s.mover = 0
	}
	// Pieces.
	found := [3 * MaxPlayers]bool{}
	for r := 0; r < n; r++ {
		p := pl(r)
		for i := 0; i < NumSpaces; i++ {
			if v := obs[OffShips+r*NumSpaces+i]; v != 0 {
				for k := 0; k < 2; k++ {
					if v&(1<<k) != 0 {
						s.pos[3*p+k], found[3*p+k] = int16(abs(i)), true
					}
				}
			}
			if obs[OffDurriken+r*NumSpaces+i] == 1 {
				s.pos[3*p+2], found[3*p+2] = int16(abs(i)), true
			}
		}
	}
	for i := 0; i < NumSpaces; i++ {
		if obs[OffMover+i] == 1 {
			s.at = int16(abs(i))
		}
	}
	if s.movingPhase() {
		piece := 3*int(s.cur) + int(s.mover)
		s.pos[piece], found[piece] = s.at, true
		s.budget, s.raided = int8(obs[OffMovePoints]), obs[OffRaided] == 1
		s.lastFree = int16(abs(int(obs[OffLastFree])<<8 | int(obs[OffLastFree+1])))
		s.endAfter = obs[OffEndAfter] == 1
	}
	for piece := 0; piece < 3*n; piece++ {
		if !found[piece] {
			return derr("piece %s is nowhere", pieceName(piece))
		}
	}
	// Caravans, rings.
	for r := 0; r < n; r++ {
		for i := 0; i < NumSpaces; i++ {
			if obs[OffCaravans+r*NumSpaces+i] == 1 {
				sp := abs(i)
				s.car[sp] = int8(pl(r) + 1)
				s.blokk[sp] = obs[OffBlokk+i] == 1
			}
		}
	}
	for r := 0; r < n; r++ {
		p := pl(r)
		st := obs[OffSeats+r*SeatBytes+SeatOwnRing]
		s.ringOwner[p], s.ringState[p] = int8(p), int8(st)
		for i := 0; i < NumSpaces; i++ {
			if obs[OffRings+r*NumSpaces+i] == 1 {
				s.ringAt[p] = int16(abs(i))
				s.ringsOn[abs(i)]++
			}
		}
	}
	s.nRings = int8(n)
	yellowHome := 0
	for p := 0; p < n; p++ {
		yellowHome += int(s.delivered[p]) - b2i(s.ringState[p] == ringDelivered)
	}
	addYellow := func(st int8, at int16) {
		r := s.nRings
		s.nRings++
		s.ringOwner[r], s.ringState[r], s.ringAt[r] = -1, st, at
	}
	for i := 0; i < yellowHome; i++ {
		addYellow(ringDelivered, 0)
	}
	for i := 0; i < NumSpaces; i++ {
		for c := 0; c < int(obs[OffYellow+i]); c++ {
			addYellow(ringOnBoard, int16(abs(i)))
			s.ringsOn[abs(i)]++
		}
	}
	for r := 0; r < n; r++ {
		p := pl(r)
		for k := 0; k < 2; k++ {
			switch obs[OffSeats+r*SeatBytes+SeatCargo+k] {
			case 1:
				s.cargo[3*p+k] = int8(p + 1)
			case 2:
				addYellow(ringAboard, 0)
				s.cargo[3*p+k] = s.nRings
			}
		}
	}
	if int(s.nRings) > maxRings {
		return derr("%d rings", s.nRings)
	}
	for r := 0; r < NumRoutes; r++ {
		if o := obs[OffScored+int(theBoard.routeRot[r][(NumSektors-sk)%NumSektors])]; o > 0 {
			s.routeScored[r] = int8(pl(int(o)-1) + 1)
		}
	}
	// Turn state.
	s.bought = obs[OffBought] == 1
	s.sellFuel = int8(obs[OffSellFuel]) - 1
	s.warpVal = int8(obs[OffWarpValue])
	s.turn = int32(obs[OffTurns])
	unkind := func(b uint8) int8 { // a card byte (kind + 1 in the observer's frame) to kind + 1
		if b == 0 {
			return 0
		}
		return int8(obsKind(int(b)-1, (NumSektors-sk)%NumSektors) + 1)
	}
	if s.inRaid() {
		s.raider = int8(3*pl(int(obs[OffRaiderSeat])-1) + int(obs[OffRaiderPiece]))
		s.defender = int8(3*pl(int(obs[OffDefenderSeat])-1) + int(obs[OffDefenderPiece]))
		s.rekkEnd = obs[OffRekkoning] == 1
		if owner(int(s.raider)) == player && s.phase != PhRaidWin {
			s.rcard = unkind(obs[OffOwnRaidCard])
		}
		if owner(int(s.defender)) == player && s.phase != PhRaidWin {
			s.dcard = unkind(obs[OffOwnRaidCard])
		}
		if s.phase == PhRaidWin {
			s.rdie, s.ddie = int8(obs[OffRaiderDie]), int8(obs[OffDefenderDie])
			s.rrand, s.drand = unkind(obs[OffRaiderRand]), unkind(obs[OffDefenderRand])
			s.rcard, s.dcard = unkind(obs[OffRaiderCard]), unkind(obs[OffDefenderCard])
			s.rwin = obs[OffRaiderWon] == 1
		}
	}
	s.nexp = int8(obs[OffGambit+3])
	for i := 0; i < int(s.nexp); i++ {
		s.exp[i] = uint8(unkind(obs[OffGambit+i]) - 1)
	}
	// Cards: the observer's hand and the piles are seen; the rest is dealt.
	var count [NumKinds]int
	for i := 0; i < NumKinds; i++ {
		k := int(unkind(uint8(i+1))) - 1
		s.hand[player][k] = obs[OffHand+i]
		s.disc[k] = obs[OffDiscard+i]
		count[k] += int(obs[OffHand+i]) + int(obs[OffDiscard+i])
	}
	s.countInPlay(&count)
	var gal, capt []uint8
	for k := 0; k < NumKinds; k++ {
		left := Copies(k) - count[k]
		if left < 0 {
			return derr("%d cards %s seen, the game has %d", count[k], CardName(k), Copies(k))
		}
		for i := 0; i < left; i++ {
			if k >= KindAfterburner {
				capt = append(capt, uint8(k))
			} else if k != KindRekkoning {
				gal = append(gal, uint8(k))
			}
		}
	}
	rekkUnseen := count[KindRekkoning] == 0
	deckN, cdckN := int(obs[OffDeckSize]), int(obs[OffCaptainSize])
	s.shuffle(gal)
	s.shuffle(capt)
	need := deckN - b2i(rekkUnseen)
	if need < 0 || need > len(gal) || cdckN > len(capt) {
		return derr("deck of %d and Captain's deck of %d cards from %d and %d unseen", deckN, cdckN, len(gal), len(capt))
	}
	copy(s.deck[:], gal[:need])
	if rekkUnseen {
		s.deck[need] = KindRekkoning
	}
	s.deckN = uint8(deckN)
	s.shuffle(s.deck[:deckN])
	copy(s.cdeck[:], capt[:cdckN])
	s.cdckN = uint8(cdckN)
	rest := append(gal[need:len(gal):len(gal)], capt[cdckN:]...)
	s.shuffle(rest)
	own := 0
	for _, c := range s.hand[player] {
		own += int(c)
	}
	if s.rcard > 0 && owner(int(s.raider)) == player && (s.phase == PhRaidA || s.phase == PhRaidD) {
		own++
	}
	if s.dcard > 0 && owner(int(s.defender)) == player && s.phase == PhRaidD {
		own++
	}
	if own != int(s.handN[player]) {
		return derr("own hand of %d cards, hand size %d", own, s.handN[player])
	}
	i := 0
	for p := 0; p < n; p++ {
		if p == player {
			continue
		}
		for j := 0; j < int(s.handN[p]); j++ {
			if i == len(rest) {
				return derr("too few unseen cards for the hands")
			}
			s.hand[p][rest[i]]++
			i++
		}
	}
	if i != len(rest) {
		return derr("%d unseen cards left over", len(rest)-i)
	}
	// The raider's hidden card, when the observer defends.
	if s.phase == PhRaidD && owner(int(s.defender)) == player {
		rp := owner(int(s.raider))
		if s.handN[rp] > 0 && s.intN(2) == 0 {
			j := s.intN(int(s.handN[rp]))
			for k := 0; k < NumKinds; k++ {
				if j < int(s.hand[rp][k]) {
					if k != KindAfterburner && k != KindSalvage {
						s.hand[rp][k]--
						s.rcard = int8(k + 1)
					}
					break
				}
				j -= int(s.hand[rp][k])
			}
		}
	}
	if err := s.validate(); err != nil {
		return derr("%v", err)
	}
	s.settle()
	s.rng.Seed(seed^0x9e3779b97f4a7c15, rngStream)
	return nil
}
