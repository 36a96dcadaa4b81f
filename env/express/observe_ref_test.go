package express

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestObserveMatchesReference checks that Observe writes the bytes of the
// former implementation (observeRef) in random games of both versions at
// 2-6 players, over a zeroed buffer and over dirty ones
// (envtest.ObserveMatches).
func TestObserveMatchesReference(t *testing.T) {
	for _, id := range []string{ID, IDv2} {
		envtest.ObserveMatches(t, id, nil, 3, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"players": 2}, 3, observeRef)
		envtest.ObserveMatches(t, id, map[string]any{"players": 6}, 2, observeRef)
	}
}

// observeRef is the former Observe, kept as the reference the optimized
// one must match byte for byte.
func observeRef(st env.State, player int, dst []uint8) {
	s := st.(*State)
	clear(dst[:ObsSize])
	n := s.n
	rel := func(q int) uint8 { return uint8((q - player + n) % n) }
	dst[OffPhase] = uint8(s.phase)
	if s.phase != PhaseOver {
		dst[OffActor] = rel(s.CurrentPlayer())
	}
	if s.dir < 0 {
		dst[OffDir] = 1
	}
	dst[OffRound] = uint8(min(s.hturns/n+1, 255))
	dst[OffHandNo] = uint8(min(s.hand+1, 255))
	if s.firstRound() {
		dst[OffFirst] = 1
	}
	dst[OffDeck] = uint8(s.deckN)
	dst[OffDiscN] = uint8(s.discN)
	if s.discN > 0 {
		dst[OffTopDisc] = s.disc[s.discN-1] + 1
	}
	dst[OffTopSlot] = uint8(s.top + 1)
	dst[OffTT] = uint8(s.tt)
	dst[OffResh] = uint8(s.resh)
	if s.trans {
		dst[OffTrans] = 1
	}
	if s.swapped {
		dst[OffSwapped] = 1
	}
	if s.pend.kind >= 0 {
		dst[OffPendKind] = uint8(BrokenCar + int(s.pend.kind) + 1)
		dst[OffPendBy] = rel(int(s.pend.by))
		dst[OffPendTrain] = uint8(s.pend.train + 1)
		dst[OffPendOwn] = uint8(s.pend.own + 1)
	}
	dst[OffPlayers] = uint8(n)
	ht := min(s.hturns, 65535)
	dst[OffHTurns], dst[OffHTurns+1] = uint8(ht), uint8(ht>>8)
	tu := min(s.turns, 65535)
	dst[OffTurns], dst[OffTurns+1] = uint8(tu), uint8(tu>>8)
	if s.phase == PhaseMeld {
		dst[OffPendT] = uint8(s.pendT + 1)
	}
	me := &s.pl[player]
	copy(dst[OffHand:OffHand+NumKinds], me.hand[:])
	for i := 0; i < s.discN; i++ {
		dst[OffDiscards+int(s.disc[i])]++
	}
	for i := 0; i < RecentDiscards && i < s.discN; i++ {
		dst[OffRecent+i] = s.disc[s.discN-1-i] + 1
	}
	copy(dst[OffSlot:OffSlot+NumKinds], s.slot[:])
	copy(dst[OffAside:OffAside+NumKinds], s.aside[:])
	for j := 0; j < n; j++ {
		q := (player + j) % n
		p := &s.pl[q]
		b := dst[OffPlayer+j*PlayerBytes : OffPlayer+(j+1)*PlayerBytes]
		b[PPresent] = 1
		b[PHandSize] = p.handN
		sc := uint16(int32(p.score) + 32768)
		b[PScore], b[PScore+1] = uint8(sc), uint8(sc>>8)
		b[PDerail] = p.derail
		if p.played {
			b[PPlayed] = 1
		}
		copy(b[PWay:PWay+numWayKinds], p.way[:])
		for w := 0; w < numWayKinds; w++ {
			if p.perm&(1<<w) != 0 {
				b[PPerm+w] = 1
			}
		}
		copy(b[PKnown:PKnown+NumKinds], p.known[:])
		for t := range p.trains {
			tr := &p.trains[t]
			if tr.loco < 0 {
				continue
			}
			b[PTrains]++
			o := b[PTrain+t*TrainBytes : PTrain+(t+1)*TrainBytes]
			o[TLoco] = 1
			if q == player {
				o[TLoco] = uint8(2 + tr.loco)
			}
			o[TLen] = tr.n
			o[TFlags] = tr.flags
			copy(o[TCars:], tr.cars[:tr.n])
		}
	}
}
