package galaxyfighters

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestObserveMatchesReference checks that Observe writes the bytes of the
// former clear-and-fill implementation (observeRef) in random games of
// both versions and every mission, over a zeroed buffer and over dirty
// ones (envtest.ObserveMatches).
func TestObserveMatchesReference(t *testing.T) {
	for _, id := range []string{IDv1, ID} {
		envtest.ObserveMatches(t, id, nil, 6, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"players": 2}, 3, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"mission": "ace"}, 3, observeRef)
	}
}

// observeRef is the former Observe (clear, then fill every on-board
// cell), kept as the reference the optimized one must match byte for byte.
func observeRef(st env.State, player int, dst []uint8) {
	s := st.(*State)
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
				dst[OffSeats+rel*seatBytes+SeatSDSPlaced]++
			}
		}
		if sh.shielded {
			dst[OffShield+Local(o, int(sh.cell))] = 1
		}
		v := dst[OffSeats+rel*seatBytes:]
		v[SeatModel+sh.model] = 1
		if sh.weapon >= 0 {
			v[SeatWeapon+sh.weapon] = 1
		}
		if sh.engine >= 0 {
			v[SeatEngine+sh.engine] = 1
		}
		if sh.bonus >= 0 {
			v[SeatBonus+sh.bonus] = 1
		}
		if sh.shielded {
			v[SeatShielded] = 1
		}
		if s.controller(k) == player {
			v[SeatPlayedByMe] = 1
		}
		if k == int(s.cur) && s.phase != PhaseOver {
			v[SeatActing] = 1
		}
		if s.started && (sh.weapon < 0 || sh.engine < 0) {
			v[SeatRefit] = 1
		}
		v[SeatInvaders] = uint8(s.invaders[k])
		if int(s.invaders[k]) >= s.cfg.invaderCap {
			v[SeatFull] = 1
		}
	}
	for f := 0; f < numFaces; f++ {
		dst[OffPool+f] = uint8(s.pool[f])
	}
	dst[OffUsed] = uint8(s.used)
	dst[OffPhase+int(s.phase)] = 1
	if s.phase == PhaseSpill {
		dst[OffSpillSeat+(int(s.spillSrc)-o+NumSeats)%NumSeats] = 1
	}
	dst[OffDeckLeft] = uint8(s.deckN)
	dst[OffYardLeft] = uint8(s.yardN)
	dst[OffInvaded] = uint8(s.DistrictsInvaded())
	dst[OffToLose] = uint8(s.cfg.districtsToLose)
	dst[OffInvaderCap] = uint8(s.cfg.invaderCap)
	waiting := 0
	for _, n := range s.spill {
		waiting += int(n)
	}
	dst[OffSpillWaiting] = uint8(min(waiting, obsMaxCounter))
	dst[OffTurns] = uint8(min(int(s.turns), obsMaxCounter))
	if s.cfg.winOnClear {
		dst[OffWinOnClear] = 1
	}
}
