package pilotsofgallaxia

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// Observation layout: a flat uint8 vector of ObsSize = 7954 bytes, in the
// observer's frame. Spaces are turned so that the observer's sektor is
// sektor 0: board index i is space rotate(i, own sektor), i.e. the same
// numbering as the node actions. Relative seat r is the pilot r seats
// clockwise of the observer (r = (pilot - observer) mod players); seats
// beyond the number of players are all zero. Planet cards are turned the
// same way: card index 8r + n-1 names planet n of the sektor r sektors
// clockwise of the observer's.
//
// The fields, their offsets, shapes and meanings are named once below
// (the offset constants and layout, which Spec().ObservationLayout
// exports); the per-seat block's bytes are the Seat* constants.
//
// Hidden information never appears: other pilots' hands (only their
// sizes, which count a hidden raid card until the reveal), the deck order,
// the Captain's deck order, the other side's hidden raid card, the
// generator.
const (
	OffShips    = 0
	OffDurriken = OffShips + MaxPlayers*NumSpaces
	OffCaravans = OffDurriken + MaxPlayers*NumSpaces
	OffBlokk    = OffCaravans + MaxPlayers*NumSpaces
	OffRings    = OffBlokk + NumSpaces
	OffYellow   = OffRings + MaxPlayers*NumSpaces
	OffMover    = OffYellow + NumSpaces
	OffSeats    = OffMover + NumSpaces
	OffHand     = OffSeats + MaxPlayers*SeatBytes
	OffDiscard  = OffHand + NumKinds
	OffGambit   = OffDiscard + NumKinds
	OffPhase    = OffGambit + 4
	OffScored   = OffPhase + numPhases + 1
	// OffMisc is the first of the single-byte fields that follow.
	OffMisc          = OffScored + NumRoutes
	OffMovePoints    = OffMisc      // move points left
	OffMovingPiece   = OffMisc + 1  // piece moving, k + 1 (also the ship that landed, in phase land)
	OffRaided        = OffMisc + 2  // raided this move
	OffBought        = OffMisc + 3  // bought this turn
	OffSellFuel      = OffMisc + 4  // first fuel card sold, kind + 1
	OffWarpValue     = OffMisc + 5  // the Durriken card's value being warped
	OffOwnRaidCard   = OffMisc + 6  // the observer's own hidden raid card, kind + 1
	OffRaiderDie     = OffMisc + 7  // raider's die
	OffDefenderDie   = OffMisc + 8  // defender's die
	OffRaiderRand    = OffMisc + 9  // raider's Durriken random card, kind + 1
	OffDefenderRand  = OffMisc + 10 // defender's Durriken random card, kind + 1
	OffRaiderCard    = OffMisc + 11 // revealed raider's card, kind + 1, while the winner chooses
	OffDefenderCard  = OffMisc + 12 // revealed defender's card, kind + 1, while the winner chooses
	OffDeckSize      = OffMisc + 13 // Gallaxia deck size
	OffCaptainSize   = OffMisc + 14 // Captain's deck size
	OffTurns         = OffMisc + 15 // turns, 0-255 (saturating)
	OffMode          = OffMisc + 16 // 1: A New Life
	OffRaiderSeat    = OffMisc + 17 // raider's relative seat + 1
	OffRaiderPiece   = OffMisc + 18 // raider's piece k
	OffDefenderSeat  = OffMisc + 19 // defender's relative seat + 1
	OffDefenderPiece = OffMisc + 20 // defender's piece k
	OffRaiderWon     = OffMisc + 21 // the raider won (while the winner chooses)
	OffPlayers       = OffMisc + 22 // number of players
	OffLastFree      = OffMisc + 23 // the last free space the moving piece passed: 2 bytes, high and low, board index
	OffEndAfter      = OffMisc + 25 // the move ends after this claim (a slide-off)
	OffRekkoning     = OffMisc + 26 // the Rekkoning turned up in this battle
	ObsSize          = OffMisc + 27
)

// Bytes of a relative seat's block, which starts at OffSeats + r*SeatBytes.
const (
	SeatPresent  = 0  // 1 for a seat in play
	SeatSektor   = 1  // sektor, relative to the observer's, 0-5
	SeatHandSize = 2  // hand size, 0-101
	SeatCaravans = 3  // caravans left
	SeatBlokks   = 4  // BLOKKs left
	SeatHired    = 5  // Durriken hired
	SeatDeployed = 6  // Durriken deployed
	SeatCargo    = 7  // + ship k (0, 1): ring aboard, 0 none, 1 its own hostage, 2 a yellow ring
	SeatHome     = 9  // rings brought home
	SeatPoints   = 10 // countdown points, 0-255
	SeatFlags    = 11 // one-time point flags (bits: picked up own, brought home own, raid won by a starship, by the Durriken)
	SeatMoved    = 12 // pieces moved this turn (bits: ship 1, ship 2, Durriken; the acting pilot only)
	SeatTurn     = 13 // its turn now
	SeatRaidRole = 14 // 1 raider, 2 defender
	SeatOwnRing  = 15 // own hostage ring: 0 on the board, 1 aboard, 2 home
	SeatBytes    = 16
)

// layout names every byte of the observation; Spec().ObservationLayout
// holds a copy (the same for both versions).
var layout = func() env.ObsLayout {
	planes := []int{MaxPlayers, NumSpaces}
	l := env.ObsLayout{
		env.Field("ships", OffShips, planes, "per relative seat: its starships on each space (bit 0 ship 1, bit 1 ship 2: 3 for both in the hangar); spaces turned so the observer's sektor is sektor 0"),
		env.Field("durriken", OffDurriken, planes, "per relative seat: its Durriken (in its LAIR too)"),
		env.Field("caravans", OffCaravans, planes, "per relative seat: its caravans (BLOKKs included)"),
		env.Field("blokks", OffBlokk, []int{NumSpaces}, "BLOKKs"),
		env.Field("rings", OffRings, planes, "per relative seat: its hostage ring lying on the space"),
		env.Field("yellow_rings", OffYellow, []int{NumSpaces}, "yellow rings lying on the space, 0-12"),
		env.Field("mover", OffMover, []int{NumSpaces}, "the piece moving now (its current space)"),
		env.Field("seats", OffSeats, []int{MaxPlayers, SeatBytes}, "per relative seat (zero past the number of players): "+
			"0 present, 1 sektor (relative, 0-5), 2 hand size (0-101), 3 caravans left, 4 BLOKKs left, 5 Durriken hired, "+
			"6 Durriken deployed, 7-8 ring aboard ship 1 and ship 2 (0 none, 1 its own hostage, 2 a yellow ring), 9 rings brought home, "+
			"10 countdown points (0-255), 11 one-time point flags (bits: picked up own, brought home own, raid won by a starship, "+
			"by the Durriken), 12 pieces moved this turn (bits: ship 1, ship 2, Durriken; the acting pilot only), 13 its turn now, "+
			"14 raid role (1 raider, 2 defender), 15 own hostage ring (0 on the board, 1 aboard, 2 home)"),
		env.Field("hand", OffHand, []int{NumKinds}, "own hand: cards per kind (the layout of the card actions; planet card 8r+n-1 is planet n of the sektor r sektors clockwise of the observer's; the Rekkoning always 0)"),
		env.Field("discards", OffDiscard, []int{NumKinds}, "discard piles per kind (Gallaxia, then Captain's)"),
		env.CodeField("gambit", OffGambit, []int{3}, NumKinds+1, "The Gambit: the cards up in the order turned, kind + 1 (0 none)"),
		env.Field("gambit_count", OffGambit+3, []int{1}, "The Gambit: the number of cards up, 0-3"),
		env.Field("phase", OffPhase, []int{numPhases + 1}, "phase, one-hot (main, way, path, claim, dwarp, slide, land, sellfuel, ...), then \"discarding to 5\""),
		env.CodeField("scored", OffScored, []int{NumRoutes}, MaxPlayers+1, "A New Life: the trade routes scored, by route, relative seat + 1"),
	}
	// Codes ([env.ObsField.Classes]): a card kind + 1, a piece k (+ 1), a
	// relative seat + 1.
	const card, piece, seat = NumKinds + 1, 3, MaxPlayers + 1
	for _, f := range []struct {
		name    string
		off, n  int
		meaning string
		classes int
	}{
		{"move_points", OffMovePoints, 1, "move points left", 0},
		{"moving_piece", OffMovingPiece, 1, "piece moving, k + 1 (also the ship that landed, in phase land)", piece + 1},
		{"raided", OffRaided, 1, "raided this move", 0},
		{"bought", OffBought, 1, "bought this turn", 0},
		{"sell_fuel", OffSellFuel, 1, "first fuel card sold, kind + 1", card},
		{"warp_value", OffWarpValue, 1, "the Durriken card's value being warped", 0},
		{"own_raid_card", OffOwnRaidCard, 1, "the observer's own hidden raid card, kind + 1", card},
		{"raider_die", OffRaiderDie, 1, "raider's die", 0},
		{"defender_die", OffDefenderDie, 1, "defender's die", 0},
		{"raider_random_card", OffRaiderRand, 1, "raider's Durriken random card, kind + 1", card},
		{"defender_random_card", OffDefenderRand, 1, "defender's Durriken random card, kind + 1", card},
		{"raider_card", OffRaiderCard, 1, "revealed raider's card, kind + 1 (only while the winner chooses)", card},
		{"defender_card", OffDefenderCard, 1, "revealed defender's card, kind + 1 (only while the winner chooses)", card},
		{"deck_size", OffDeckSize, 1, "Gallaxia deck size", 0},
		{"captain_deck_size", OffCaptainSize, 1, "Captain's deck size", 0},
		{"turns", OffTurns, 1, "turns, 0-255 (saturating)", 0},
		{"mode", OffMode, 1, "1: A New Life", 0},
		{"raider_seat", OffRaiderSeat, 1, "raider's relative seat + 1", seat},
		{"raider_piece", OffRaiderPiece, 1, "raider's piece k", piece},
		{"defender_seat", OffDefenderSeat, 1, "defender's relative seat + 1", seat},
		{"defender_piece", OffDefenderPiece, 1, "defender's piece k", piece},
		{"raider_won", OffRaiderWon, 1, "the raider won (while the winner chooses)", 0},
		{"players", OffPlayers, 1, "number of players", 0},
		{"last_free", OffLastFree, 2, "the last free space the moving piece passed (high byte, low byte; board index)", 0},
		{"end_after", OffEndAfter, 1, "the move ends after this claim (a slide-off)", 0},
		{"rekkoning", OffRekkoning, 1, "the Rekkoning turned up in this battle", 0},
	} {
		if f.classes != 0 {
			l = append(l, env.CodeField(f.name, f.off, []int{f.n}, f.classes, f.meaning))
		} else {
			l = append(l, env.Field(f.name, f.off, []int{f.n}, f.meaning))
		}
	}
	return l
}()

func sat(v int) uint8 {
	if v > 255 {
		return 255
	}
	if v < 0 {
		return 0
	}
	return uint8(v)
}

// obsKind returns kind k in the frame of sektor sk, as a card index 0-65.
func obsKind(k, sk int) int {
	if k < KindFuel {
		return int(obsSektor[sk][k/8])*8 + k%8
	}
	return k
}

// obsSektor[sk][j] is sektor j relative to sektor sk: (j - sk) mod 6.
var obsSektor = func() (t [NumSektors][NumSektors]uint8) {
	for sk := range t {
		for j := range t[sk] {
			t[sk][j] = uint8((j - sk + NumSektors) % NumSektors)
		}
	}
	return t
}()

// Observe writes player's observation (ObsSize bytes) into dst. Every
// byte is written whatever dst held: all but the hand and discards are
// cleared first, those two are copied by sektor blocks; the caravans are
// found in carSet, not by testing every space.
func (s *State) Observe(player int, dst []uint8) {
	dst = dst[:ObsSize]
	clear(dst[:OffHand])
	clear(dst[OffGambit:])
	n := s.cfg.players
	sk := int(s.sek[player])
	rot := NumSektors - sk
	shift := rot * SektorSize % NumSpaces // idx(sp) = sp + shift, less NumSpaces past the end
	idx := func(sp int) int {
		i := sp + shift
		if i >= NumSpaces {
			i -= NumSpaces
		}
		return i
	}
	var carPlane [MaxPlayers + 1]int // the caravan plane of owner c-1's relative seat
	for p := 0; p < n; p++ {
		r := (p - player + n) % n
		carPlane[p+1] = OffCaravans + r*NumSpaces
		for k := 0; k < 2; k++ {
			piece := 3*p + k
			if s.phase != PhOver && s.moving(piece) {
				continue
			}
			dst[OffShips+r*NumSpaces+idx(int(s.pos[piece]))] |= 1 << k
		}
		if !s.moving(3*p+2) || s.phase == PhOver {
			dst[OffDurriken+r*NumSpaces+idx(int(s.pos[3*p+2]))] = 1
		}
		o := OffSeats + r*SeatBytes
		dst[o+SeatPresent] = 1
		dst[o+SeatSektor] = obsSektor[sk][s.sek[p]]
		dst[o+SeatHandSize] = s.handN[p]
		dst[o+SeatCaravans] = uint8(s.carLeft[p])
		dst[o+SeatBlokks] = uint8(s.blkLeft[p])
		dst[o+SeatHired] = uint8(b2i(s.hired[p]))
		dst[o+SeatDeployed] = uint8(b2i(s.deployed[p]))
		for k := 0; k < 2; k++ {
			if c := s.cargo[3*p+k]; c > 0 {
				dst[o+SeatCargo+k] = 1 + uint8(b2i(s.ringOwner[c-1] < 0))
			}
		}
		dst[o+SeatHome] = uint8(s.delivered[p])
		dst[o+SeatPoints] = sat(int(s.points[p]))
		dst[o+SeatFlags] = s.flags[p]
		if p == int(s.cur) && !s.over {
			dst[o+SeatMoved] = s.moved
			dst[o+SeatTurn] = 1
		}
		if s.raider >= 0 && owner(int(s.raider)) == p && s.inRaid() {
			dst[o+SeatRaidRole] = 1
		}
		if s.defender >= 0 && owner(int(s.defender)) == p && s.inRaid() {
			dst[o+SeatRaidRole] = 2
		}
		dst[o+SeatOwnRing] = uint8(s.ringState[p])
	}
	// Caravans and BLOKKs: only the spaces holding one (carSet).
	for w, bs := range s.carSet {
		for ; bs != 0; bs &= bs - 1 {
			sp := 64*w + bits.TrailingZeros64(bs)
			i := idx(sp)
			dst[carPlane[uint8(s.car[sp])%(MaxPlayers+1)]+i] = 1
			if s.blokk[sp] {
				dst[OffBlokk+i] = 1
			}
		}
	}
	for r := 0; r < int(s.nRings); r++ {
		if s.ringState[r] != ringOnBoard {
			continue
		}
		i := idx(int(s.ringAt[r]))
		if o := int(s.ringOwner[r]); o >= 0 {
			dst[OffRings+((o-player+n)%n)*NumSpaces+i] = 1
		} else {
			dst[OffYellow+i]++
		}
	}
	if s.movingPhase() {
		dst[OffMover+idx(int(s.at))] = 1
	}
	h := &s.hand[player]
	for j := 0; j < NumSektors; j++ { // planet cards: sektor j's 8 to its relative place
		r := 8 * int(obsSektor[sk][j])
		copy(dst[OffHand+r:OffHand+r+8], h[8*j:8*j+8])
		copy(dst[OffDiscard+r:OffDiscard+r+8], s.disc[8*j:8*j+8])
	}
	copy(dst[OffHand+KindFuel:OffHand+NumKinds], h[KindFuel:])
	copy(dst[OffDiscard+KindFuel:OffDiscard+NumKinds], s.disc[KindFuel:])
	for i := 0; i < int(s.nexp); i++ {
		dst[OffGambit+i] = uint8(obsKind(int(s.exp[i]), sk) + 1)
	}
	dst[OffGambit+3] = uint8(s.nexp)
	dst[OffPhase+int(s.phase)] = 1
	if s.discarder >= 0 {
		dst[OffPhase+numPhases] = 1
	}
	if s.cfg.mode == ModeANewLife {
		for r, o := range s.routeScored {
			if o > 0 {
				dst[OffScored+int(theBoard.routeRot[r][rot%NumSektors])] = uint8((int(o)-1-player+n)%n + 1)
			}
		}
	}
	if s.phase == PhLand {
		dst[OffMovingPiece] = uint8(s.mover + 1)
	}
	if s.movingPhase() {
		dst[OffMovePoints] = uint8(s.budget)
		dst[OffMovingPiece] = uint8(s.mover + 1)
		dst[OffRaided] = uint8(b2i(s.raided))
		lf := idx(int(s.lastFree))
		dst[OffLastFree], dst[OffLastFree+1] = uint8(lf>>8), uint8(lf)
		dst[OffEndAfter] = uint8(b2i(s.endAfter))
	}
	if s.inRaid() {
		dst[OffRekkoning] = uint8(b2i(s.rekkEnd))
	}
	dst[OffBought] = uint8(b2i(s.bought))
	if s.sellFuel >= 0 && s.phase == PhSellFuel {
		dst[OffSellFuel] = uint8(s.sellFuel + 1)
	}
	if s.phase == PhDWarp {
		dst[OffWarpValue] = uint8(s.warpVal)
	}
	s.observeRaid(player, sk, n, dst)
	dst[OffDeckSize] = s.deckN
	dst[OffCaptainSize] = s.cdckN
	dst[OffTurns] = sat(int(s.turn))
	dst[OffMode] = uint8(s.cfg.mode)
	dst[OffPlayers] = uint8(n)
}

// observeRaid writes the raid's part of player's observation (sk the
// player's sektor, n the players): the seats and pieces of a raid, the
// player's own raid card, and at PhRaidWin the dice and cards shown. It
// writes only into bytes Observe has cleared.
func (s *State) observeRaid(player, sk, n int, dst []uint8) {
	if s.inRaid() {
		if owner(int(s.raider)) == player && s.rcard > 0 && s.phase != PhRaidWin {
			dst[OffOwnRaidCard] = uint8(obsKind(int(s.rcard)-1, sk) + 1)
		}
		if owner(int(s.defender)) == player && s.dcard > 0 && s.phase != PhRaidWin {
			dst[OffOwnRaidCard] = uint8(obsKind(int(s.dcard)-1, sk) + 1)
		}
		r := (owner(int(s.raider)) - player + n) % n
		d := (owner(int(s.defender)) - player + n) % n
		dst[OffRaiderSeat], dst[OffRaiderPiece], dst[OffDefenderSeat], dst[OffDefenderPiece] = uint8(r+1), uint8(s.raider%3), uint8(d+1), uint8(s.defender%3)
	}
	if s.phase == PhRaidWin {
		dst[OffRaiderDie], dst[OffDefenderDie] = uint8(s.rdie), uint8(s.ddie)
		if s.rrand > 0 {
			dst[OffRaiderRand] = uint8(obsKind(int(s.rrand)-1, sk) + 1)
		}
		if s.drand > 0 {
			dst[OffDefenderRand] = uint8(obsKind(int(s.drand)-1, sk) + 1)
		}
		if s.rcard > 0 {
			dst[OffRaiderCard] = uint8(obsKind(int(s.rcard)-1, sk) + 1)
		}
		if s.dcard > 0 {
			dst[OffDefenderCard] = uint8(obsKind(int(s.dcard)-1, sk) + 1)
		}
		dst[OffRaiderWon] = uint8(b2i(s.rwin))
	}
}

// moving reports whether piece is lifted for a move now.
func (s *State) moving(piece int) bool {
	return s.movingPhase() && piece == 3*int(s.cur)+int(s.mover)
}

// movingPhase reports whether a piece of the pilot whose turn it is is
// lifted (between the choice of the piece and the end of its move).
func (s *State) movingPhase() bool {
	switch s.phase {
	case PhWay, PhPath, PhClaim, PhDWarp, PhSlide, PhRaidA, PhRaidD:
		return true
	case PhRaidWin:
		return s.rwin
	}
	return false
}

func (s *State) inRaid() bool {
	return s.phase == PhRaidA || s.phase == PhRaidD || s.phase == PhRaidWin
}

// obsHigh returns the inclusive upper bound of every observation byte.
func obsHigh() []uint8 {
	h := make([]uint8, ObsSize)
	fill := func(off, n int, v uint8) {
		for i := off; i < off+n; i++ {
			h[i] = v
		}
	}
	fill(OffShips, MaxPlayers*NumSpaces, 3)
	fill(OffDurriken, MaxPlayers*NumSpaces, 1)
	fill(OffCaravans, MaxPlayers*NumSpaces, 1)
	fill(OffBlokk, NumSpaces, 1)
	fill(OffRings, MaxPlayers*NumSpaces, 1)
	fill(OffYellow, NumSpaces, 2*MaxPlayers)
	fill(OffMover, NumSpaces, 1)
	for r := 0; r < MaxPlayers; r++ {
		o := OffSeats + r*SeatBytes
		copy(h[o:], []uint8{1, 5, maxHand, maxCaravans, maxCaravans, 1, 1, 2, 2, 1 + 2*MaxPlayers, 255, 15, 7, 1, 2, 2})
	}
	for k := 0; k < NumKinds; k++ {
		if k != KindRekkoning {
			h[OffHand+k] = uint8(Copies(k))
		}
		h[OffDiscard+k] = uint8(Copies(k))
	}
	fill(OffGambit, 3, NumKinds)
	h[OffGambit+3] = 3
	fill(OffPhase, numPhases+1, 1)
	fill(OffScored, NumRoutes, MaxPlayers)
	copy(h[OffMisc:], []uint8{afterburnerPoints, 3, 1, 1, NumKinds, 8, NumKinds, 6, 6, NumKinds, NumKinds,
		NumKinds, NumKinds, deckSize, captainSize, 255, 1, MaxPlayers, 2, MaxPlayers, 2, 1, MaxPlayers,
		NumSpaces >> 8, 255, 1, 1})
	return h
}

// String renders the position without hidden information: pieces, rings,
// caravans, hand sizes, piles, The Gambit and the phase.
func (s *State) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Pilots of Gallaxia (%s, %d pilots), turn %d, pilot %d to play, phase %s",
		modeNames[s.cfg.mode], s.cfg.players, s.turn+1, s.cur, phaseNames[s.phase])
	if s.discarder >= 0 {
		fmt.Fprintf(&b, " (pilot %d discards down to %d)", s.discarder, handLimit)
	}
	b.WriteByte('\n')
	for p := 0; p < s.cfg.players; p++ {
		var ships [2]string
		for k := 0; k < 2; k++ {
			piece := 3*p + k
			ships[k] = SpaceName(int(s.pos[piece]))
			if s.moving(piece) {
				ships[k] = SpaceName(int(s.at)) + "(moving)"
			}
			if s.cargo[piece] > 0 {
				ships[k] += "+ring"
			}
		}
		dur := SpaceName(int(s.pos[3*p+2]))
		if s.moving(3*p + 2) {
			dur = SpaceName(int(s.at)) + "(moving)"
		}
		if !s.hired[p] {
			dur += "(not hired)"
		}
		fmt.Fprintf(&b, "pilot %d sektor %d: ships %s %s, Durriken %s, %d cards, caravans %d (BLOKKs %d), home %d",
			p, s.sek[p]+1, ships[0], ships[1], dur, s.handN[p], s.carLeft[p], s.blkLeft[p], s.delivered[p])
		if s.cfg.mode == ModeANewLife {
			fmt.Fprintf(&b, ", points %d", s.points[p])
		}
		b.WriteByte('\n')
	}
	var rings []string
	for r := 0; r < int(s.nRings); r++ {
		if s.ringState[r] == ringOnBoard {
			o := "yellow"
			if s.ringOwner[r] >= 0 {
				o = fmt.Sprintf("pilot %d", s.ringOwner[r])
			}
			rings = append(rings, o+" "+SpaceName(int(s.ringAt[r])))
		}
	}
	fmt.Fprintf(&b, "rings on the board: %s\n", strings.Join(rings, ", "))
	var cars []string
	for sp := 0; sp < NumSpaces; sp++ {
		if s.car[sp] > 0 {
			c := fmt.Sprintf("%s:%d", SpaceName(sp), s.car[sp]-1)
			if s.blokk[sp] {
				c += "!"
			}
			cars = append(cars, c)
		}
	}
	fmt.Fprintf(&b, "caravans: %s\n", strings.Join(cars, " "))
	fmt.Fprintf(&b, "deck %d, Captain's deck %d, discards %s", s.deckN, s.cdckN, countList(&s.disc))
	if s.nexp > 0 {
		fmt.Fprintf(&b, ", Gambit %s", cardList(s.exp[:s.nexp]))
	}
	if s.movingPhase() {
		fmt.Fprintf(&b, ", moving piece %d at %s with %d points", s.mover+1, SpaceName(int(s.at)), s.budget)
	}
	if s.inRaid() {
		fmt.Fprintf(&b, ", raid %s on %s", pieceName(int(s.raider)), pieceName(int(s.defender)))
		if s.phase == PhRaidWin {
			fmt.Fprintf(&b, " (cards %s vs %s, dice %d vs %d, raider won %v)", optCard(s.rcard), optCard(s.dcard),
				s.rdie, s.ddie, s.rwin)
		}
	}
	if s.over {
		fmt.Fprintf(&b, "; pilot %d won", s.winner)
	}
	b.WriteByte('\n')
	return b.String()
}
