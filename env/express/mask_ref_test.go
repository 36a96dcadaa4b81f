package express

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestLegalMaskMatchesReference checks that LegalMask writes the mask and
// count of the former implementation (legalMaskRef: the hand's kinds
// tested one by one for every train) in random games of 2 to 6 players of
// both versions, over a zeroed and a dirty buffer, and that it allocates
// nothing.
func TestLegalMaskMatchesReference(t *testing.T) {
	want, got := make([]uint8, NumActions), make([]uint8, NumActions)
	rng := rand.New(rand.NewPCG(3, 4))
	melds := 0
	for _, v2 := range []bool{false, true} {
		for players := 2; players <= MaxPlayers; players++ {
			cfg := DefaultConfig(players).c
			if v2 {
				cfg = DefaultConfigV2(players).c
			}
			r := make([]float64, players)
			for seed := uint64(0); seed < 6; seed++ {
				s := newState(cfg, seed)
				for steps := 0; !s.Terminal() && steps < 3000; steps++ {
					clear(want)
					nw := legalMaskRef(s, want)
					for _, fill := range []uint8{0, 0xFF} {
						for i := range got {
							got[i] = fill
						}
						if ng := s.LegalMask(got); ng != nw || !bytes.Equal(got, want) {
							t.Fatalf("v2=%v players %d seed %d step %d: LegalMask differs (%d legal, want %d)", v2, players, seed, steps, ng, nw)
						}
					}
					if s.phase == PhaseMeld {
						melds++
					}
					s.Apply(pickRandom(s, got, rng), r)
				}
			}
		}
	}
	if melds < 1000 {
		t.Fatalf("only %d meld positions checked", melds)
	}
	states := randomPositions(16, 4)
	if a := testing.AllocsPerRun(100, func() {
		for _, s := range states {
			s.LegalMask(got)
		}
	}); a != 0 {
		t.Fatalf("LegalMask allocates %v times per call", a)
	}
}

// legalMaskRef and the functions below are the former LegalMask, kept as
// the reference the optimized one must match.
func legalMaskRef(s *State, dst []uint8) int {
	clear(dst)
	switch s.phase {
	case PhaseDraw:
		dst[ActDraw] = 1
		if s.discN > 0 {
			dst[ActTake] = 1
			return 2
		}
		return 1
	case PhaseBlock:
		dst[ActLet] = 1
		if s.cfg.v2 && s.pl[s.pend.on].hand[LightCrane+int(s.pend.kind)] == 0 {
			return 1 // v2 asks without the Way Car in hand (A29)
		}
		dst[ActBlock] = 1
		return 2
	case PhaseMeld:
		return meldMaskRef(s, dst)
	}
	return 0
}

func firstCarMaskRef(h *[NumKinds]uint8, t int, dst []uint8) int {
	n := 0
	for k := 0; k <= Diesel; k++ {
		if h[k] > 0 {
			dst[ActAdd+t*addKinds+k] = 1
			n++
		}
	}
	if h[Wild] > 0 {
		h[Wild]--
		for ty := 0; ty < numTypes; ty++ {
			if wildFollows(h, ty) {
				dst[ActWild+t*wildRoles+ty] = 1
				n++
			}
		}
		h[Wild]++
	}
	return n
}

func extendMaskRef(h *[NumKinds]uint8, tr *train, t int, dst []uint8) int {
	if tr.n >= MaxCars || tr.cars[tr.n-1] == Caboose+1 {
		return 0
	}
	n := 0
	open := tr.cars[tr.n-1] == carWildOpen
	sec := secType(tr)
	for k := 0; k <= Diesel; k++ {
		if h[k] > 0 && (open || typeOf(k) == sec) {
			dst[ActAdd+t*addKinds+k] = 1
			n++
		}
	}
	if h[Caboose] > 0 {
		dst[ActAdd+t*addKinds+11] = 1
		n++
	}
	if h[Wild] > 0 {
		if tr.n == 1 {
			dst[ActWild+t*wildRoles+sec] = 1
		} else {
			dst[ActWild+t*wildRoles+wildOpen] = 1
		}
		n++
	}
	return n
}

func meldMaskRef(s *State, dst []uint8) int {
	p := &s.pl[s.cur]
	h := &p.hand
	if s.pendT >= 0 {
		t := int(s.pendT)
		tr := &p.trains[t]
		if tr.n == 0 {
			return firstCarMaskRef(h, t, dst)
		}
		return extendMaskRef(h, tr, t, dst) // a Wild first: its second car
	}
	reduce, n := 0, 0
	free := false
	for t := 0; t < MaxTrains; t++ {
		tr := &p.trains[t]
		if tr.loco < 0 {
			free = true
			continue
		}
		if tr.n == 0 {
			reduce += firstCarMaskRef(h, t, dst)
		} else {
			reduce += extendMaskRef(h, tr, t, dst)
		}
		if !s.swapped {
			for k := 0; k < NumKinds; k++ {
				if h[k] > 0 && k != int(tr.loco) {
					dst[ActSwap+t*NumKinds+k] = 1
					n++
				}
			}
		}
	}
	if free {
		for k := 0; k < NumKinds; k++ {
			if h[k] > 0 {
				h[k]--
				if canStart(h) {
					dst[ActStart+k] = 1
					reduce++
				}
				h[k]++
			}
		}
	}
	for w := 0; w < numWayKinds; w++ {
		if h[LightCrane+w] > 0 {
			dst[ActWay+w] = 1
			reduce++
		}
	}
	n += reduce
	switch hn := p.handN; {
	case hn == 0:
		dst[ActEndMeld] = 1
		n++
	case hn <= 6:
		for k := 0; k < NumKinds; k++ {
			if h[k] > 0 {
				dst[ActDiscard+k] = 1
				n++
			}
		}
		if h[Turntable] > 0 {
			dst[ActTurntable] = 1
			n++
		}
		if !s.firstRound() {
			n += s.disasterMask(dst)
		}
	default:
		if reduce == 0 {
			dst[ActStuck] = 1
			n++
		}
	}
	return n
}

// TestHeldKindsMatchesReference checks heldKinds (the hand read as words)
// against the former loop over the kinds (heldKindsRef): every count 0-255
// at every kind beside a random hand, and random hands with zeros.
func TestHeldKindsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var h [NumKinds]uint8
	for i := 0; i < 2000; i++ {
		for k := range h {
			if h[k] = uint8(rng.IntN(256)); rng.IntN(2) == 0 {
				h[k] = 0
			}
		}
		for k := 0; k < NumKinds; k++ {
			old := h[k]
			for v := 0; v < 256; v += 1 + i%7 {
				h[k] = uint8(v)
				if got, want := heldKinds(&h), heldKindsRef(&h); got != want {
					t.Fatalf("hand %v: heldKinds %#x, want %#x", h, got, want)
				}
			}
			h[k] = old
		}
	}
}

// heldKindsRef is the former heldKinds: one test per kind.
func heldKindsRef(h *[NumKinds]uint8) uint32 {
	var m uint32
	for k := 0; k < NumKinds; k++ {
		if h[k] > 0 {
			m |= 1 << k
		}
	}
	return m
}
