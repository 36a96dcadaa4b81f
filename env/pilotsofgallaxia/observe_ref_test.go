package pilotsofgallaxia

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestObserveMatchesReference checks that Observe writes the bytes of the
// former clear-and-fill implementation (observeRef) in random games of
// both versions at 2-6 players and in A New Life, over a zeroed buffer
// and over dirty ones (envtest.ObserveMatches).
func TestObserveMatchesReference(t *testing.T) {
	for _, id := range []string{IDv1, ID} {
		envtest.ObserveMatches(t, id, nil, 2, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"players": 2, "max_turns": 60}, 2, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"players": 3, "max_turns": 60}, 2, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"players": 6, "max_turns": 60}, 2, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"players": 5, "mode": "a_new_life", "max_turns": 80}, 2, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"hideouts": true, "rings_to_win": 2, "caravans": 4, "blokks": 4, "max_turns": 60}, 1, observeRef)
	}
}

// TestCarSetFollowsCaravans checks State.carSet, which Observe reads in
// place of scanning car, against car in positions of random games, in
// those positions loaded from their notation, and in states determinized
// from an observation (into a reused state): in each the set bits are
// exactly the spaces with a caravan, and the observation is the
// reference one.
func TestCarSetFollowsCaravans(t *testing.T) {
	check := func(what string, s *State) {
		t.Helper()
		var want [carWords]uint64
		for sp, c := range s.car {
			if c > 0 {
				want[sp/64] |= 1 << (sp % 64)
			}
		}
		if s.carSet != want {
			t.Fatalf("%s: carSet %x, the caravans on car give %x", what, s.carSet, want)
		}
	}
	var reuse env.State
	obs, ref := make([]uint8, ObsSize), make([]uint8, ObsSize)
	caravans := 0
	for _, params := range []map[string]any{{"max_turns": 80}, {"players": 6, "caravans": 4, "blokks": 4, "max_turns": 60}} {
		step := 0
		envtest.RandomGames(t, ID, params, 2, rand.New(rand.NewPCG(3, 0)), func(e *env.Env) {
			step++
			s := e.State().(*State)
			check("random play", s)
			if step%9 != 0 {
				return
			}
			for _, c := range s.car {
				caravans += b2i(c > 0)
			}
			data, err := s.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			l, err := Game{}.LoadState(e.Params(), data)
			if err != nil {
				t.Fatal(err)
			}
			check("loaded", l.(*State))
			p := step % s.cfg.players
			l.Observe(p, obs)
			observeRef(s, p, ref)
			if !bytes.Equal(obs, ref) {
				t.Fatalf("step %d: the loaded state's observation differs from the reference", step)
			}
			if reuse, err = (Game{}).Determinize(e.Params(), p, obs, uint64(step), reuse); err != nil {
				t.Fatal(err)
			}
			check("determinized", reuse.(*State))
			reuse.Observe(p, obs)
			if !bytes.Equal(obs, ref) {
				t.Fatalf("step %d: the determinized state's observation differs from the reference", step)
			}
		})
	}
	if caravans == 0 {
		t.Fatal("no caravan on the board in any position checked")
	}
}

// refObsKind is the former obsKind: it returns kind k in the frame of sektor sk, as a card index 0-65.
func refObsKind(k, sk int) int {
	if k < KindFuel {
		return ((k/8-sk+NumSektors)%NumSektors)*8 + k%8
	}
	return k
}

// observeRef is the former Observe (clear, then fill), kept as the
// reference the optimized one must match byte for byte.
func observeRef(st env.State, player int, dst []uint8) {
	s := st.(*State)
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
		o := OffSeats + r*SeatBytes
		dst[o+SeatPresent] = 1
		dst[o+SeatSektor] = uint8((int(s.sek[p]) - sk + NumSektors) % NumSektors)
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
		dst[OffHand+refObsKind(k, sk)] = h[k]
		dst[OffDiscard+refObsKind(k, sk)] = s.disc[k]
	}
	for i := 0; i < int(s.nexp); i++ {
		dst[OffGambit+i] = uint8(refObsKind(int(s.exp[i]), sk) + 1)
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
	if s.inRaid() {
		if owner(int(s.raider)) == player && s.rcard > 0 && s.phase != PhRaidWin {
			dst[OffOwnRaidCard] = uint8(refObsKind(int(s.rcard)-1, sk) + 1)
		}
		if owner(int(s.defender)) == player && s.dcard > 0 && s.phase != PhRaidWin {
			dst[OffOwnRaidCard] = uint8(refObsKind(int(s.dcard)-1, sk) + 1)
		}
		r := (owner(int(s.raider)) - player + n) % n
		d := (owner(int(s.defender)) - player + n) % n
		dst[OffRaiderSeat], dst[OffRaiderPiece], dst[OffDefenderSeat], dst[OffDefenderPiece] = uint8(r+1), uint8(s.raider%3), uint8(d+1), uint8(s.defender%3)
	}
	if s.phase == PhRaidWin {
		dst[OffRaiderDie], dst[OffDefenderDie] = uint8(s.rdie), uint8(s.ddie)
		if s.rrand > 0 {
			dst[OffRaiderRand] = uint8(refObsKind(int(s.rrand)-1, sk) + 1)
		}
		if s.drand > 0 {
			dst[OffDefenderRand] = uint8(refObsKind(int(s.drand)-1, sk) + 1)
		}
		if s.rcard > 0 {
			dst[OffRaiderCard] = uint8(refObsKind(int(s.rcard)-1, sk) + 1)
		}
		if s.dcard > 0 {
			dst[OffDefenderCard] = uint8(refObsKind(int(s.dcard)-1, sk) + 1)
		}
		dst[OffRaiderWon] = uint8(b2i(s.rwin))
	}
	dst[OffDeckSize] = s.deckN
	dst[OffCaptainSize] = s.cdckN
	dst[OffTurns] = sat(int(s.turn))
	dst[OffMode] = uint8(s.cfg.mode)
	dst[OffPlayers] = uint8(n)
}
