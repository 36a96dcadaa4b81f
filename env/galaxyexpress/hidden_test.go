package galaxyexpress

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

func TestHiddenLayout(t *testing.T) {
	e, err := env.Make(ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	layout, high := e.HiddenLayout()
	if err := layout.Check(HiddenSize); err != nil || e.HiddenSize() != HiddenSize || len(high) != HiddenSize {
		t.Fatalf("layout %v, size %d, %d bounds; want %d bytes", err, e.HiddenSize(), len(high), HiddenSize)
	}
	for name, off := range map[string]int{"unscanned_number": HidNumbers, "queue": HidQueue, "face_down": HidDown} {
		if layout.Offset(name) != off {
			t.Errorf("field %s at %d, want %d", name, layout.Offset(name), off)
		}
	}
	if high[HidNumbers] != 6 || high[HidQueue] != 6 || high[HiddenSize-1] != 6 {
		t.Errorf("bounds %v", high)
	}
}

// TestHiddenPredictsPlay plays seeded games and checks that the hidden
// part before each step names what the step turns face up: the number of
// every planet the step scans, the coin each stack turns face up
// (position 0 of the suit), the next target after a delivery (position 0
// of the queue), until a refuel reshuffles the coins.
func TestHiddenPredictsPlay(t *testing.T) {
	e, err := env.Make(ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := make([]uint8, HiddenSize)
	var scans, coins, targets int
	for seed := uint64(1); seed <= 40; seed++ {
		e.Reset(seed)
		rng := rand.New(rand.NewPCG(seed, 7))
		for !e.Done() {
			if err := e.ObserveHidden(0, h); err != nil {
				t.Fatal(err)
			}
			before := *e.State().(*State)
			a := courierPolicy(e, rng)
			if _, err := e.Step(a); err != nil {
				t.Fatal(err)
			}
			after := e.State().(*State)
			for b := after.known &^ before.known; b != 0; b &= b - 1 {
				sq := trailing(b)
				if got := int(h[HidNumbers+sq]) - 1; got != int(after.numAt[sq]) {
					t.Fatalf("seed %d: square %d scanned as planet %d, the hidden part said %d", seed, sq, after.numAt[sq], got)
				}
				scans++
			}
			if after.delivered > before.delivered && after.delivered < numPlanets {
				if got := int(h[HidQueue]) - 1; got != after.Target() {
					t.Fatalf("seed %d: the next target is %d, the hidden part said %d", seed, after.Target(), got)
				}
				targets++
			}
			if a == ActionRefuel {
				continue
			}
			for suit := Thrust; suit <= Brake; suit++ {
				turned := after.up[suit] &^ before.up[suit]
				if turned == 0 {
					continue
				}
				if got := int(h[HidDown+int(suit)*numValues]) - 1; turned != 1<<got {
					t.Fatalf("seed %d: %v turned coins %06b face up, the hidden part said value %d next", seed, suit, turned, got)
				}
				coins++
			}
		}
	}
	t.Logf("%d scans, %d coins turned, %d targets foreseen", scans, coins, targets)
	if scans < 100 || coins < 100 || targets < 20 {
		t.Errorf("the games exercised too little: %d scans, %d coins, %d targets", scans, coins, targets)
	}
}

// TestHiddenCompletesPosition checks that the hidden part is the rest of
// the position: a twin drawn by Determinize from the observation has the
// same hidden part exactly when it is the same position (the generator
// aside), and its hidden part is never the true one's when the deal
// differs.
func TestHiddenCompletesPosition(t *testing.T) {
	p := env.Params{"max_turns": 200, "scan_wrap": false}
	obs := make([]uint8, ObsSize)
	ha, hb := make([]uint8, HiddenSize), make([]uint8, HiddenSize)
	same, differ := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		s := Game{}.NewState(p, seed).(*State)
		rng := rand.New(rand.NewPCG(seed, 9))
		mask := make([]uint8, NumActions)
		for k := rng.IntN(12); k > 0 && !s.Terminal(); k-- {
			n := s.LegalMask(mask)
			pick := rng.IntN(n)
			for a, m := range mask {
				if m == 1 {
					if pick == 0 {
						s.Apply(a, []float64{0})
						break
					}
					pick--
				}
			}
		}
		s.Observe(0, obs)
		s.ObserveHidden(0, ha)
		tw, err := Game{}.Determinize(p, 0, obs, seed*31, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := tw.(*State)
		b.ObserveHidden(0, hb)
		equal := withoutRNG(t, s) == withoutRNG(t, b)
		if equal != (string(ha) == string(hb)) {
			t.Fatalf("seed %d: positions equal %v, hidden parts equal %v\n%s", seed, equal, !equal, s)
		}
		if equal {
			same++
		} else {
			differ++
		}
	}
	t.Logf("%d twins the same position, %d different", same, differ)
	if differ == 0 {
		t.Error("every twin was the true position: the test compares nothing")
	}
}

func TestObserveHiddenAllocs(t *testing.T) {
	s := Game{}.NewState(env.Params{"max_turns": 200, "scan_wrap": false}, 3).(*State)
	dst := make([]uint8, HiddenSize)
	if n := testing.AllocsPerRun(100, func() { s.ObserveHidden(0, dst) }); n != 0 {
		t.Errorf("ObserveHidden allocates %v times", n)
	}
}

// withoutRNG is the position's notation without its generator.
func withoutRNG(t *testing.T, s *State) string {
	j, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return rngField.ReplaceAllString(string(j), "")
}

var rngField = regexp.MustCompile(`rng=[0-9a-f:]+`)

// TestEnvObserveHiddenAllocs: Env.ObserveHidden, which dataset derive
// calls at every row, allocates nothing once the Env knows its size.
func TestEnvObserveHiddenAllocs(t *testing.T) {
	e, err := env.Make(ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(2)
	dst := make([]uint8, e.HiddenSize())
	if n := testing.AllocsPerRun(100, func() { _ = e.ObserveHidden(0, dst) }); n != 0 {
		t.Errorf("Env.ObserveHidden allocates %v times", n)
	}
}
