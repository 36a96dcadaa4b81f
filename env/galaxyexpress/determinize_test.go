package galaxyexpress

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

var _ env.Determinizer = Game{}

// determinizePositions plays random and courier games (both scan_wrap
// settings, max_turns 60 so that truncations happen too) and calls visit on
// every position, the final one included.
func determinizePositions(t *testing.T, games int, visit func(s *State, wrap bool)) {
	t.Helper()
	for _, wrap := range []bool{false, true} {
		for _, pol := range []string{"random", "courier"} {
			e, err := env.Make(ID, map[string]any{"scan_wrap": wrap, "max_turns": 60})
			if err != nil {
				t.Fatal(err)
			}
			for g := 0; g < games; g++ {
				seed := uint64(g) + 1000*uint64(len(pol))
				e.Reset(seed)
				rng := rand.New(rand.NewPCG(seed, 99))
				for {
					visit(e.State().(*State), wrap)
					if e.Done() {
						break
					}
					var a int
					if pol == "courier" {
						a = courierPolicy(e, rng)
					} else {
						var legal []int
						for a, m := range e.Mask() {
							if m != 0 {
								legal = append(legal, a)
							}
						}
						a = legal[rng.IntN(len(legal))]
					}
					if _, err := e.Step(a); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// publicSkeleton is what a position shows, coin values aside: it must
// agree between the true state and a determinization after any action.
type publicSkeleton struct {
	phase, ship, speed, delivered, refuels, turns int8
	lost                                          bool
	known, planets                                uint64
	upN, deckN, spentN                            [2]int
}

func skeleton(s *State) publicSkeleton {
	k := publicSkeleton{phase: int8(s.phase), ship: s.ship, speed: s.speed, delivered: s.delivered,
		refuels: int8(s.refuels), turns: int8(s.turns), lost: s.lost, known: s.known, planets: s.planets}
	for suit := 0; suit < 2; suit++ {
		k.upN[suit] = bits.OnesCount8(s.up[suit])
		k.deckN[suit] = int(s.deckN[suit])
		k.spentN[suit] = bits.OnesCount8(s.spent[suit])
	}
	return k
}

// TestDeterminizeReproducesObservation checks, over every position of
// random and courier games, that a determinization observes exactly like
// the true state, has its legal mask, is a valid position (its notation
// parses back), and that every action leads both to the same public
// skeleton (the owed replacement coin included).
func TestDeterminizeReproducesObservation(t *testing.T) {
	obs := make([]uint8, ObsSize)
	obs2 := make([]uint8, ObsSize)
	mask := make([]uint8, NumActions)
	mask2 := make([]uint8, NumActions)
	var d State
	n, phases := 0, map[int8]int{}
	r1, r2 := []float64{0}, []float64{0}
	determinizePositions(t, 60, func(s *State, wrap bool) {
		s.Observe(0, obs)
		seed := uint64(n)*7919 + 1
		if err := DeterminizeInto(&d, obs, wrap, seed); err != nil {
			t.Fatalf("%v\n%s", err, s.Position())
		}
		n++
		phases[int8(s.phase)]++
		d.Observe(0, obs2)
		s.LegalMask(mask)
		d.LegalMask(mask2)
		if !slices.Equal(obs, obs2) || !slices.Equal(mask, mask2) || s.Terminal() != d.Terminal() ||
			s.CurrentPlayer() != d.CurrentPlayer() || s.cfg != d.cfg {
			t.Fatalf("determinization differs:\n%s\n%s", s.Position(), d.Position())
		}
		if p, err := ParsePosition(d.Position(), wrap); err != nil || p.Position() != d.Position() {
			t.Fatalf("determinization is not a valid position (%v):\n%s", err, d.Position())
		}
		for a, m := range mask {
			if m == 0 {
				continue
			}
			x, y := *s, d
			r1[0], r2[0] = 0, 0
			x.Apply(a, r1)
			y.Apply(a, r2)
			if skeleton(&x) != skeleton(&y) || r1[0] != r2[0] {
				t.Fatalf("action %s: public outcome differs (rewards %v, %v):\n%s\n->\n%s\nvs\n%s\n->\n%s",
					spec.ActionNames[a], r1[0], r2[0], s.Position(), x.Position(), d.Position(), y.Position())
			}
		}
	})
	t.Logf("%d positions, by phase %v", n, phases)
	if phases[int8(PhaseStart)] == 0 || phases[int8(PhaseCoin)] == 0 || phases[int8(PhaseRefuel)] == 0 || phases[int8(PhaseOver)] == 0 {
		t.Errorf("positions miss a phase: %v", phases)
	}
}

// TestDeterminizeIgnoresHiddenState checks that states differing only in
// hidden information (built by determinizing with other seeds, so that
// planet numbers, queue, stacks and generator differ) determinize to the
// same state for the same seed: the sample depends on the observation only.
func TestDeterminizeIgnoresHiddenState(t *testing.T) {
	obs := make([]uint8, ObsSize)
	obs2 := make([]uint8, ObsSize)
	differ := 0
	i := 0
	determinizePositions(t, 20, func(s *State, wrap bool) {
		i++
		s.Observe(0, obs)
		v, err := Determinize(obs, wrap, uint64(i)+1e6)
		if err != nil {
			t.Fatal(err)
		}
		if v.Position() != s.Position() {
			differ++
		}
		v.Observe(0, obs2)
		a, err1 := Determinize(obs, wrap, uint64(i))
		b, err2 := Determinize(obs2, wrap, uint64(i))
		if err1 != nil || err2 != nil || a.Position() != b.Position() {
			t.Fatalf("same observation, different determinizations (%v, %v):\n%s\n%s", err1, err2, s.Position(), v.Position())
		}
	})
	if differ < i/2 {
		t.Errorf("only %d of %d variants differ in hidden information", differ, i)
	}
}

// TestDeterminizeUniform checks, on a position with three unscanned
// planets, four crowns below the top (one of them the bottom crown) and
// four face-down coins in each suit, that each hidden part is uniform over
// its possibilities.
func TestDeterminizeUniform(t *testing.T) {
	const pos = `. . . . . . . .
. . . @4 1? . . .
. 3? . . . . . .
. . . . . . 0 .
2? . . . . . . 5
. . . . . . . .
speed=2 queue=0,1,2,3,5,4 bottom=4 thrust=3,5/0,1,2,4 brake=1,3/0,2,4,5`
	s := mustParse(t, pos, false)
	obs := make([]uint8, ObsSize)
	s.Observe(0, obs)
	const n = 48000
	numbers := map[string]int{}
	queue := map[string]int{}
	deck := [2]map[string]int{{}, {}}
	var d State
	for i := 0; i < n; i++ {
		if err := DeterminizeInto(&d, obs, false, uint64(i)); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, sq := range []int{sq("e2"), sq("b3"), sq("a5")} {
			b.WriteByte(byte('0' + d.numAt[sq]))
		}
		numbers[b.String()]++
		if d.queue[0] != 0 || d.queue[5] != 4 || d.delivered != 0 {
			t.Fatalf("queue top or bottom moved: %v", d.queue)
		}
		queue[string(intList(d.queue[1:5]))]++
		for suit := 0; suit < 2; suit++ {
			deck[suit][string(intList(d.deck[suit][:d.deckN[suit]]))]++
		}
	}
	check := func(what string, counts map[string]int, k int) {
		t.Helper()
		if len(counts) != k {
			t.Errorf("%s: %d outcomes, want %d: %v", what, len(counts), k, counts)
		}
		want := float64(n) / float64(k)
		chi := 0.0
		for _, c := range counts {
			chi += (float64(c) - want) * (float64(c) - want) / want
		}
		// chi-square with k-1 degrees of freedom: mean k-1, sd sqrt(2(k-1)).
		if lim := float64(k-1) + 6*math.Sqrt(2*float64(k-1)); chi > lim {
			t.Errorf("%s: chi-square %.1f over %d outcomes (limit %.1f): %v", what, chi, k, lim, counts)
		}
	}
	check("unscanned numbers", numbers, 6)
	check("queue below the top", queue, 24)
	check("thrust stack", deck[0], 24)
	check("brake stack", deck[1], 24)
}

// TestDeterminizeAllocation checks the Game method's reuse and that
// DeterminizeInto does not allocate.
func TestDeterminizeAllocation(t *testing.T) {
	s := newState(&configs[0], 5)
	obs := make([]uint8, ObsSize)
	s.Apply(ActionStart+2, []float64{0})
	s.Observe(0, obs)
	p := env.Params{"scan_wrap": false, "max_turns": 200}
	st, err := Game{}.Determinize(p, 0, obs, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	st2, err := Game{}.Determinize(p, 0, obs, 2, st)
	if err != nil || st2 != st {
		t.Fatalf("reuse not honoured: %v", err)
	}
	if _, err := (Game{}).Determinize(p, 1, obs, 1, nil); err == nil {
		t.Error("player 1 accepted")
	}
	var d State
	if allocs := testing.AllocsPerRun(100, func() { _ = DeterminizeInto(&d, obs, false, 3) }); allocs != 0 {
		t.Errorf("DeterminizeInto allocates %.1f times", allocs)
	}
}

// TestDeterminizeRejectsInvalid corrupts observations in ways no position
// can show and expects a *DeterminizeError.
func TestDeterminizeRejectsInvalid(t *testing.T) {
	const pos = `. . . . . . . .
. . . @4 1? . . .
. 3? . . . . . .
. . . . . . 0 .
2? . . . . . . 5
. . . . . . . .
speed=2 queue=0,1,2,3,5,4 bottom=4 thrust=3,5/0,1,2,4 brake=1,3/0,2,4,5`
	s := mustParse(t, pos, false)
	good := make([]uint8, ObsSize)
	s.Observe(0, good)
	if _, err := Determinize(good, false, 1); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(o []uint8) []uint8{
		"short":             func(o []uint8) []uint8 { return o[:ObsSize-1] },
		"byte 2":            func(o []uint8) []uint8 { o[OffUnscanned] = 2; return o },
		"two ships":         func(o []uint8) []uint8 { o[OffShip] = 1; return o },
		"seventh planet":    func(o []uint8) []uint8 { o[OffUnscanned] = 1; return o },
		"planet twice":      func(o []uint8) []uint8 { o[OffPlanet+Squares*0+1] = 1; return o },
		"planet missing":    func(o []uint8) []uint8 { o[OffUnscanned+sq("e2")] = 0; return o },
		"two speeds":        func(o []uint8) []uint8 { o[OffSpeed+5] = 1; return o },
		"no speed":          func(o []uint8) []uint8 { o[OffSpeed+2] = 0; return o },
		"two phases":        func(o []uint8) []uint8 { o[OffPhase+2] = 1; return o },
		"coin twice":        func(o []uint8) []uint8 { o[OffSpent+0] = 1; return o },
		"coin missing":      func(o []uint8) []uint8 { o[OffDown+0] = 0; return o },
		"three face up":     func(o []uint8) []uint8 { o[OffDown+0], o[OffUp+0] = 0, 1; return o },
		"deliveries 7":      func(o []uint8) []uint8 { o[OffDeliveries] = 7; return o },
		"deliveries count":  func(o []uint8) []uint8 { o[OffDeliveries] = 1; return o },
		"no target":         func(o []uint8) []uint8 { o[OffTargetNum+0] = 0; return o },
		"target plane":      func(o []uint8) []uint8 { o[OffTarget+sq("g4")] = 0; return o },
		"bottom unscanned":  func(o []uint8) []uint8 { o[OffBottom+4], o[OffBottom+1] = 0, 1; return o },
		"two bottoms":       func(o []uint8) []uint8 { o[OffBottom+5] = 1; return o },
		"target delivered":  func(o []uint8) []uint8 { o[OffDelivered+0], o[OffDeliveries] = 1, 1; return o },
		"unscanned at ship": func(o []uint8) []uint8 { o[OffShip+sq("d2")], o[OffShip+sq("e2")] = 0, 1; return o },
		"refuel at speed 2": func(o []uint8) []uint8 { o[OffPhase+1], o[OffPhase+2] = 0, 1; return o },
		"launch after play": func(o []uint8) []uint8 { o[OffPhase+1], o[OffPhase+0] = 0, 1; return o },
	}
	for name, corrupt := range cases {
		o := corrupt(slices.Clone(good))
		_, err := Determinize(o, false, 1)
		var de *DeterminizeError
		if !errors.As(err, &de) || !strings.HasPrefix(err.Error(), "galaxyexpress: ") {
			t.Errorf("%s: got %v, want a *DeterminizeError", name, err)
		}
	}
}

// BenchmarkDeterminize samples determinizations of the positions of random
// games (one per op).
func BenchmarkDeterminize(b *testing.B) {
	var obsAll [][]uint8
	for seed := uint64(0); seed < 200; seed++ {
		s := newState(&configs[0], seed)
		rng := rand.New(rand.NewPCG(seed, 1))
		mask := make([]uint8, NumActions)
		for !s.Terminal() {
			obs := make([]uint8, ObsSize)
			s.Observe(0, obs)
			obsAll = append(obsAll, obs)
			var legal []int
			s.LegalMask(mask)
			for a, m := range mask {
				if m != 0 {
					legal = append(legal, a)
				}
			}
			s.Apply(legal[rng.IntN(len(legal))], []float64{0})
		}
	}
	var d State
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := DeterminizeInto(&d, obsAll[i%len(obsAll)], false, uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
}
