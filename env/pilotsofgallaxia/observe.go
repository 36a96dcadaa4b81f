package pilotsofgallaxia

// Observation layout: a flat uint8 vector of ObsSize = 7954 bytes, in the
// observer's frame. Spaces are turned so that the observer's sektor is
// sektor 0: board index i is space rotate(i, own sektor), i.e. the same
// numbering as the node actions. Relative seat r is the pilot r seats
// clockwise of the observer (r = (pilot - observer) mod players); seats
// beyond the number of players are all zero. Planet cards are turned the
// same way: card index 8r + n-1 names planet n of the sektor r sektors
// clockwise of the observer's.
//
//	offset  len   content
//	     0  1692  planes 0-5: starships of relative seat 0-5 on each space (bit 0
//	              ship 1, bit 1 ship 2: 3 for both in the hangar)
//	  1692  1692  planes 6-11: the Durriken of relative seat 0-5 (in its LAIR too)
//	  3384  1692  planes 12-17: caravans of relative seat 0-5 (BLOKKs included)
//	  5076   282  plane 18: BLOKKs
//	  5358  1692  planes 19-24: the hostage ring of relative seat 0-5 lying on the space
//	  7050   282  plane 25: yellow rings lying on the space (0-12)
//	  7332   282  plane 26: the piece moving now (its current space)
//	  7614    96  per relative seat, 16 bytes: present, sektor (relative, 0-5),
//	              hand size (0-101), caravans left, BLOKKs left, Durriken
//	              hired, Durriken deployed, ring aboard ship 1 and ship 2
//	              (0 none, 1 its own hostage, 2 a yellow ring), rings brought home, countdown points (0-255),
//	              one-time point flags (bits: picked up own, brought home
//	              own, raid won by a starship, by the Durriken), pieces
//	              moved this turn (bits: ship 1, ship 2, Durriken; the
//	              acting pilot only), its turn now, raid role (1 raider,
//	              2 defender), own hostage ring (0 on the board, 1 aboard,
//	              2 home)
//	  7710    66  own hand: cards per kind (the layout of the card actions,
//	              kind 62, the Rekkoning, always 0)
//	  7776    66  discard piles per kind (Gallaxia, then Captain's)
//	  7842     4  The Gambit: the cards up, kind + 1 (0 none), and their number
//	  7846    15  phase, one-hot (PhaseNames order), then "discarding to 5"
//	  7861    66  A New Life: the trade routes scored, by route, relative seat + 1
//	  7927    27  move points left, piece moving (k + 1; also the ship that
//	              landed, in phase land), raided this move,
//	              bought this turn, first fuel card sold (kind + 1), the
//	              Durriken card's value being warped, the observer's own
//	              hidden raid card (kind + 1), raider's die, defender's die,
//	              raider's and defender's Durriken random cards (kind + 1),
//	              revealed raider's and defender's cards (kind + 1, only while
//	              the winner chooses), Gallaxia deck size, Captain's deck
//	              size, turns (0-255, saturating), mode (1: A New Life),
//	              raider's relative seat + 1, raider's piece k, defender's
//	              relative seat + 1, defender's piece k, the raider won
//	              (while the winner chooses), number of players, the last
//	              free space the moving piece passed (2 bytes, high and low,
//	              board index), the move ends after this claim (a
//	              slide-off), the Rekkoning turned up in this battle
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
	seatBytes   = 16
	OffHand     = OffSeats + MaxPlayers*seatBytes
	OffDiscard  = OffHand + NumKinds
	OffGambit   = OffDiscard + NumKinds
	OffPhase    = OffGambit + 4
	OffScored   = OffPhase + numPhases + 1
	OffMisc     = OffScored + NumRoutes
	miscBytes   = 27
	ObsSize     = OffMisc + miscBytes
)

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
		return ((k/8-sk+NumSektors)%NumSektors)*8 + k%8
	}
	return k
}

// Observe writes player's observation (ObsSize bytes) into dst.
func (s *State) Observe(player int, dst []uint8) {
	dst = dst[:ObsSize]
	clear(dst)
	n := s.cfg.players
	sk := int(s.sek[player])
	rot := NumSektors - sk
	idx := func(sp int) int { return (sp + rot*SektorSize) % NumSpaces }
	for p := 0; p < n; p++ {
		r := (p - player + n) % n
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
		o := OffSeats + r*seatBytes
		dst[o] = 1
		dst[o+1] = uint8((int(s.sek[p]) - sk + NumSektors) % NumSektors)
		dst[o+2] = s.handN[p]
		dst[o+3] = uint8(s.carLeft[p])
		dst[o+4] = uint8(s.blkLeft[p])
		dst[o+5] = uint8(b2i(s.hired[p]))
		dst[o+6] = uint8(b2i(s.deployed[p]))
		for k := 0; k < 2; k++ {
			if c := s.cargo[3*p+k]; c > 0 {
				dst[o+7+k] = 1 + uint8(b2i(s.ringOwner[c-1] < 0))
			}
		}
		dst[o+9] = uint8(s.delivered[p])
		dst[o+10] = sat(int(s.points[p]))
		dst[o+11] = s.flags[p]
		if p == int(s.cur) && !s.over {
			dst[o+12] = s.moved
			dst[o+13] = 1
		}
		if s.raider >= 0 && owner(int(s.raider)) == p && s.inRaid() {
			dst[o+14] = 1
		}
		if s.defender >= 0 && owner(int(s.defender)) == p && s.inRaid() {
			dst[o+14] = 2
		}
		dst[o+15] = uint8(s.ringState[p])
	}
	for sp := 0; sp < NumSpaces; sp++ {
		if c := s.car[sp]; c > 0 {
			r := (int(c) - 1 - player + n) % n
			dst[OffCaravans+r*NumSpaces+idx(sp)] = 1
			if s.blokk[sp] {
				dst[OffBlokk+idx(sp)] = 1
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
	for k := 0; k < NumKinds; k++ {
		dst[OffHand+obsKind(k, sk)] = h[k]
		dst[OffDiscard+obsKind(k, sk)] = s.disc[k]
	}
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
	m := dst[OffMisc : OffMisc+miscBytes]
	if s.phase == PhLand {
		m[1] = uint8(s.mover + 1)
	}
	if s.movingPhase() {
		m[0] = uint8(s.budget)
		m[1] = uint8(s.mover + 1)
		m[2] = uint8(b2i(s.raided))
		lf := idx(int(s.lastFree))
		m[23], m[24] = uint8(lf>>8), uint8(lf)
		m[25] = uint8(b2i(s.endAfter))
	}
	if s.inRaid() {
		m[26] = uint8(b2i(s.rekkEnd))
	}
	m[3] = uint8(b2i(s.bought))
	if s.sellFuel >= 0 && s.phase == PhSellFuel {
		m[4] = uint8(s.sellFuel + 1)
	}
	if s.phase == PhDWarp {
		m[5] = uint8(s.warpVal)
	}
	if s.inRaid() {
		if owner(int(s.raider)) == player && s.rcard > 0 && s.phase != PhRaidWin {
			m[6] = uint8(obsKind(int(s.rcard)-1, sk) + 1)
		}
		if owner(int(s.defender)) == player && s.dcard > 0 && s.phase != PhRaidWin {
			m[6] = uint8(obsKind(int(s.dcard)-1, sk) + 1)
		}
		r := (owner(int(s.raider)) - player + n) % n
		d := (owner(int(s.defender)) - player + n) % n
		m[17], m[18], m[19], m[20] = uint8(r+1), uint8(s.raider%3), uint8(d+1), uint8(s.defender%3)
	}
	if s.phase == PhRaidWin {
		m[7], m[8] = uint8(s.rdie), uint8(s.ddie)
		if s.rrand > 0 {
			m[9] = uint8(obsKind(int(s.rrand)-1, sk) + 1)
		}
		if s.drand > 0 {
			m[10] = uint8(obsKind(int(s.drand)-1, sk) + 1)
		}
		if s.rcard > 0 {
			m[11] = uint8(obsKind(int(s.rcard)-1, sk) + 1)
		}
		if s.dcard > 0 {
			m[12] = uint8(obsKind(int(s.dcard)-1, sk) + 1)
		}
		m[21] = uint8(b2i(s.rwin))
	}
	m[13] = s.deckN
	m[14] = s.cdckN
	m[15] = sat(int(s.turn))
	m[16] = uint8(s.cfg.mode)
	m[22] = uint8(n)
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
		o := OffSeats + r*seatBytes
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
