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
	if err := checkObsHeader(cfg, player, obs); err != nil {
		return err
	}
	*s = State{cfg: cfg}
	s.rng.Seed(seed, rngStream)
	s.reset()
	v := obsFrame{obs: obs, player: player, n: cfg.players, sk: int(s.sek[player])}
	for _, read := range [...]func(*State, obsFrame) error{readSeats, readPieces, readRings, readTurnState, dealUnseen} {
		if err := read(s, v); err != nil {
			return err
		}
	}
	if err := s.validate(); err != nil {
		return derr("%v", err)
	}
	s.settle()
	s.rng.Seed(seed^0x9e3779b97f4a7c15, rngStream)
	return nil
}

// checkObsHeader checks an observation's size, the observer and its
// number of players against cfg.
func checkObsHeader(cfg *config, player int, obs []uint8) error {
	if len(obs) != ObsSize {
		return derr("observation has %d bytes, want %d", len(obs), ObsSize)
	}
	if player < 0 || player >= cfg.players {
		return derr("player %d of %d", player, cfg.players)
	}
	if int(obs[OffPlayers]) != cfg.players {
		return derr("observation of %d players, parameters say %d", obs[OffPlayers], cfg.players)
	}
	return nil
}

// obsFrame is an observation and its frame: the observer, the number of
// players and the observer's sektor (the board's rotation).
type obsFrame struct {
	obs       []uint8
	player, n int
	sk        int
}

// abs returns the absolute space of space i of the observer's frame.
func (v obsFrame) abs(i int) int { return rotate(i, v.sk) }

// pl returns the player at seat r relative to the observer.
func (v obsFrame) pl(r int) int { return (v.player + r) % v.n }

// unkind turns a card byte (kind + 1 in the observer's frame) into kind + 1
// (0 stays 0).
func (v obsFrame) unkind(b uint8) int8 {
	if b == 0 {
		return 0
	}
	return int8(obsKind(int(b)-1, (NumSektors-v.sk)%NumSektors) + 1)
}

// readSeats reads the phase, each seat's public counts and whose turn it
// is.
func readSeats(s *State, v obsFrame) error {
	phase := -1
	for i := 0; i < numPhases; i++ {
		if v.obs[OffPhase+i] == 1 {
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
	s.rekk = v.obs[OffPhase+numPhases] == 1
	s.rwin = s.phase == PhRaidWin && v.obs[OffRaiderWon] == 1
	s.cur = -1
	for r := 0; r < v.n; r++ {
		o := OffSeats + r*SeatBytes
		p := v.pl(r)
		if v.obs[o+SeatPresent] != 1 || int(v.obs[o+SeatSektor]) != (int(s.sek[p])-v.sk+NumSektors)%NumSektors {
			return derr("seat %d does not match the sektors of %d players", r, v.n)
		}
		s.handN[p] = v.obs[o+SeatHandSize]
		s.carLeft[p], s.blkLeft[p] = int8(v.obs[o+SeatCaravans]), int8(v.obs[o+SeatBlokks])
		s.hired[p], s.deployed[p] = v.obs[o+SeatHired] == 1, v.obs[o+SeatDeployed] == 1
		s.delivered[p] = int8(v.obs[o+SeatHome])
		s.points[p] = int16(v.obs[o+SeatPoints])
		s.flags[p] = v.obs[o+SeatFlags]
		if v.obs[o+SeatTurn] == 1 {
			s.cur = int8(p)
			s.moved = v.obs[o+SeatMoved]
		}
	}
	if s.cur < 0 {
		return derr("nobody's turn")
	}
	s.mover = int8(v.obs[OffMovingPiece]) - 1
	if s.movingPhase() && s.mover < 0 {
		return derr("a move without a piece")
	}
	if s.mover < 0 {
		s.mover = 0
	}
	return nil
}

// readPieces places every piece: starships, Durrikens and the moving
// piece.
func readPieces(s *State, v obsFrame) error {
	found := [3 * MaxPlayers]bool{}
	for r := 0; r < v.n; r++ {
		p := v.pl(r)
		for i := 0; i < NumSpaces; i++ {
			if b := v.obs[OffShips+r*NumSpaces+i]; b != 0 {
				for k := 0; k < 2; k++ {
					if b&(1<<k) != 0 {
						s.pos[3*p+k], found[3*p+k] = int16(v.abs(i)), true
					}
				}
			}
			if v.obs[OffDurriken+r*NumSpaces+i] == 1 {
				s.pos[3*p+2], found[3*p+2] = int16(v.abs(i)), true
			}
		}
	}
	for i := 0; i < NumSpaces; i++ {
		if v.obs[OffMover+i] == 1 {
			s.at = int16(v.abs(i))
		}
	}
	if s.movingPhase() {
		piece := 3*int(s.cur) + int(s.mover)
		s.pos[piece], found[piece] = s.at, true
		s.budget, s.raided = int8(v.obs[OffMovePoints]), v.obs[OffRaided] == 1
		s.lastFree = int16(v.abs(int(v.obs[OffLastFree])<<8 | int(v.obs[OffLastFree+1])))
		s.endAfter = v.obs[OffEndAfter] == 1
	}
	for piece := 0; piece < 3*v.n; piece++ {
		if !found[piece] {
			return derr("piece %s is nowhere", pieceName(piece))
		}
	}
	return nil
}

// readRings reads the caravans, BLOKKs, every ring (own, yellow, aboard)
// and the scored routes.
func readRings(s *State, v obsFrame) error {
	for r := 0; r < v.n; r++ {
		for i := 0; i < NumSpaces; i++ {
			if v.obs[OffCaravans+r*NumSpaces+i] == 1 {
				sp := v.abs(i)
				s.setCar(sp, int8(v.pl(r)+1))
				s.blokk[sp] = v.obs[OffBlokk+i] == 1
			}
		}
	}
	for r := 0; r < v.n; r++ {
		p := v.pl(r)
		st := v.obs[OffSeats+r*SeatBytes+SeatOwnRing]
		s.ringOwner[p], s.ringState[p] = int8(p), int8(st)
		for i := 0; i < NumSpaces; i++ {
			if v.obs[OffRings+r*NumSpaces+i] == 1 {
				s.ringAt[p] = int16(v.abs(i))
				s.ringsOn[v.abs(i)]++
			}
		}
	}
	s.nRings = int8(v.n)
	yellowHome := 0
	for p := 0; p < v.n; p++ {
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
		for c := 0; c < int(v.obs[OffYellow+i]); c++ {
			addYellow(ringOnBoard, int16(v.abs(i)))
			s.ringsOn[v.abs(i)]++
		}
	}
	for r := 0; r < v.n; r++ {
		p := v.pl(r)
		for k := 0; k < 2; k++ {
			switch v.obs[OffSeats+r*SeatBytes+SeatCargo+k] {
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
		if o := v.obs[OffScored+int(theBoard.routeRot[r][(NumSektors-v.sk)%NumSektors])]; o > 0 {
			s.routeScored[r] = int8(v.pl(int(o)-1) + 1)
		}
	}
	return nil
}

// readTurnState reads the turn's state: purchases, warp, the raid's cards
// and dice, the Gambit cards.
func readTurnState(s *State, v obsFrame) error {
	s.bought = v.obs[OffBought] == 1
	s.sellFuel = int8(v.obs[OffSellFuel]) - 1
	s.warpVal = int8(v.obs[OffWarpValue])
	s.turn = int32(v.obs[OffTurns])
	if s.inRaid() {
		s.raider = int8(3*v.pl(int(v.obs[OffRaiderSeat])-1) + int(v.obs[OffRaiderPiece]))
		s.defender = int8(3*v.pl(int(v.obs[OffDefenderSeat])-1) + int(v.obs[OffDefenderPiece]))
		s.rekkEnd = v.obs[OffRekkoning] == 1
		if owner(int(s.raider)) == v.player && s.phase != PhRaidWin {
			s.rcard = v.unkind(v.obs[OffOwnRaidCard])
		}
		if owner(int(s.defender)) == v.player && s.phase != PhRaidWin {
			s.dcard = v.unkind(v.obs[OffOwnRaidCard])
		}
		if s.phase == PhRaidWin {
			s.rdie, s.ddie = int8(v.obs[OffRaiderDie]), int8(v.obs[OffDefenderDie])
			s.rrand, s.drand = v.unkind(v.obs[OffRaiderRand]), v.unkind(v.obs[OffDefenderRand])
			s.rcard, s.dcard = v.unkind(v.obs[OffRaiderCard]), v.unkind(v.obs[OffDefenderCard])
			s.rwin = v.obs[OffRaiderWon] == 1
		}
	}
	s.nexp = int8(v.obs[OffGambit+3])
	for i := 0; i < int(s.nexp); i++ {
		s.exp[i] = uint8(v.unkind(v.obs[OffGambit+i]) - 1)
	}
	return nil
}

// dealUnseen deals the cards the observer has not seen: the observer's
// hand and the piles are seen; the decks and the other hands are shuffled
// from the rest, and the raider's hidden card drawn when the observer
// defends.
func dealUnseen(s *State, v obsFrame) error {
	// Cards: the observer's hand and the piles are seen; the rest is dealt.
	var count [NumKinds]int
	for i := 0; i < NumKinds; i++ {
		k := int(v.unkind(uint8(i+1))) - 1
		s.hand[v.player][k] = v.obs[OffHand+i]
		s.disc[k] = v.obs[OffDiscard+i]
		count[k] += int(v.obs[OffHand+i]) + int(v.obs[OffDiscard+i])
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
	deckN, cdckN := int(v.obs[OffDeckSize]), int(v.obs[OffCaptainSize])
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
	for _, c := range s.hand[v.player] {
		own += int(c)
	}
	if s.rcard > 0 && owner(int(s.raider)) == v.player && (s.phase == PhRaidA || s.phase == PhRaidD) {
		own++
	}
	if s.dcard > 0 && owner(int(s.defender)) == v.player && s.phase == PhRaidD {
		own++
	}
	if own != int(s.handN[v.player]) {
		return derr("own hand of %d cards, hand size %d", own, s.handN[v.player])
	}
	i := 0
	for p := 0; p < v.n; p++ {
		if p == v.player {
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
	if s.phase == PhRaidD && owner(int(s.defender)) == v.player {
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
	return nil
}
