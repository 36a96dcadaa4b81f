package galaxyfighters

// Observation layout: a flat uint8 vector of ObsSize = 4092 bytes. The
// board planes are 121 bytes each over the 11x11 grid turned to the
// observer's side (the observer's seat is the player's number: player p
// sits at seat p and sees the board from there, district at the bottom),
// index row*11+col, row 0 the far edge. Relative seat i is the seat i
// places to the observer's left (i = (seat - observer) mod 4): 0 the
// observer, 1 the left neighbour, 2 across, 3 the right neighbour. Facings
// are in the observer's frame: 0 away, 1 right, 2 toward the observer,
// 3 left.
//
//	offset  len  content
//	     0  1452  planes 0-11: top alien of each space, type*4 + facing (one-hot)
//	  1452  1452  planes 12-23: aliens of each type*4 + facing in the stack, 0-15 (saturating)
//	  2904   121  plane 24: stack height, 0-32
//	  3025   484  planes 25-28: the ship of relative seat 0-3
//	  3509   121  plane 29: drones
//	  3630   121  plane 30: Shielded Defense System tiles
//	  3751   121  plane 31: shielded ships
//	  3872   121  plane 32: the 85 board spaces (constant)
//	  3993    76  per relative seat, 19 bytes: model (3, one-hot: Astro Wing,
//	              Phalanx, Gladius), weapon (3), engine (3), bonus tile (3:
//	              fire, move, special), shielded, played by the observer now,
//	              acting now, refit pending, invaders 0-10, district invaded,
//	              SDS tiles placed 0-2
//	  4069     5  command symbols left: fire, move, special, fire-or-special
//	              (0-5 each), commands used this turn (0-5)
//	  4074     6  phase, one-hot: weapon, bonus, engine, command, spill, over
//	  4080     4  spill-over decision: relative seat of the full district (one-hot)
//	  4084     8  spawn cards left 0-25, shipyard left 0-5, districts invaded
//	              0-4, districts that lose 1-4, invader spaces (6 or 10),
//	              aliens waiting to spill 0-255, turns 0-255 (saturating),
//	              win_on clear (1) or last_card (0)
//
// Hidden information (the order of the spawn deck and of the shipyard, the
// generator) never appears: only the counts.
const (
	plane         = Cells
	OffTop        = 0
	OffCount      = OffTop + 12*plane
	OffHeight     = OffCount + 12*plane
	OffShips      = OffHeight + plane
	OffDrones     = OffShips + 4*plane
	OffSDS        = OffDrones + plane
	OffShield     = OffSDS + plane
	OffBoard      = OffShield + plane
	OffSeats      = OffBoard + plane
	seatBytes     = 19
	OffPool       = OffSeats + NumSeats*seatBytes
	OffPhase      = OffPool + 5
	OffSpillSeat  = OffPhase + 6
	OffCounters   = OffSpillSeat + 4
	ObsSize       = OffCounters + 8
	obsMaxCount   = 15
	obsMaxCounter = 255
)

// Observe writes player's observation into dst.
func (s *State) Observe(player int, dst []uint8) {
	dst = dst[:ObsSize]
	clear(dst)
	o := player // the observer's seat
	for g := 0; g < Cells; g++ {
		if !onBoard[g] {
			continue
		}
		l := Local(o, g)
		dst[OffBoard+l] = 1
		h := int(s.h[g])
		if h == 0 {
			continue
		}
		dst[OffHeight+l] = uint8(h)
		for i := 0; i < h; i++ {
			a := s.st[g][i]
			k := alienType(a)*4 + LocalDir(o, alienDir(a))
			if i == h-1 {
				dst[OffTop+k*plane+l] = 1
			}
			if p := &dst[OffCount+k*plane+l]; *p < obsMaxCount {
				*p++
			}
		}
	}
	for k := range s.ships {
		sh := &s.ships[k]
		rel := (k - o + NumSeats) % NumSeats
		dst[OffShips+rel*plane+Local(o, int(sh.cell))] = 1
		if sh.drone >= 0 {
			dst[OffDrones+Local(o, int(sh.drone))] = 1
		}
		for _, c := range sh.sds {
			if c >= 0 {
				dst[OffSDS+Local(o, int(c))] = 1
				dst[OffSeats+rel*seatBytes+18]++
			}
		}
		if sh.shielded {
			dst[OffShield+Local(o, int(sh.cell))] = 1
		}
		v := dst[OffSeats+rel*seatBytes:]
		v[sh.model] = 1
		if sh.weapon >= 0 {
			v[3+sh.weapon] = 1
		}
		if sh.engine >= 0 {
			v[6+sh.engine] = 1
		}
		if sh.bonus >= 0 {
			v[9+sh.bonus] = 1
		}
		if sh.shielded {
			v[12] = 1
		}
		if s.controller(k) == player {
			v[13] = 1
		}
		if k == int(s.cur) && s.phase != PhaseOver {
			v[14] = 1
		}
		if s.started && (sh.weapon < 0 || sh.engine < 0) {
			v[15] = 1
		}
		v[16] = uint8(s.invaders[k])
		if int(s.invaders[k]) >= s.cfg.invaderCap {
			v[17] = 1
		}
	}
	for f := 0; f < numFaces; f++ {
		dst[OffPool+f] = uint8(s.pool[f])
	}
	dst[OffPool+4] = uint8(s.used)
	dst[OffPhase+int(s.phase)] = 1
	if s.phase == PhaseSpill {
		dst[OffSpillSeat+(int(s.spillSrc)-o+NumSeats)%NumSeats] = 1
	}
	c := dst[OffCounters:]
	c[0] = uint8(s.deckN)
	c[1] = uint8(s.yardN)
	c[2] = uint8(s.DistrictsInvaded())
	c[3] = uint8(s.cfg.districtsToLose)
	c[4] = uint8(s.cfg.invaderCap)
	waiting := 0
	for _, n := range s.spill {
		waiting += int(n)
	}
	c[5] = uint8(min(waiting, obsMaxCounter))
	c[6] = uint8(min(int(s.turns), obsMaxCounter))
	if s.cfg.winOnClear {
		c[7] = 1
	}
}

// obsHigh returns the inclusive upper bound of every observation byte.
func obsHigh() []uint8 {
	h := make([]uint8, ObsSize)
	for i := range h {
		h[i] = 1
	}
	for i := 0; i < 12*plane; i++ {
		h[OffCount+i] = obsMaxCount
	}
	for i := 0; i < plane; i++ {
		h[OffHeight+i] = maxStack
	}
	for k := 0; k < NumSeats; k++ {
		h[OffSeats+k*seatBytes+16] = maxInvaders
		h[OffSeats+k*seatBytes+18] = maxSDS
	}
	for f := 0; f < 5; f++ {
		h[OffPool+f] = maxCommands
	}
	for i, v := range []uint8{maxDeckSize, maxBackup, NumSeats, NumSeats, maxInvaders, obsMaxCounter, obsMaxCounter, 1} {
		h[OffCounters+i] = v
	}
	return h
}
