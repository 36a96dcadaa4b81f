package galaxyexpress

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

var _ env.ActionFeaturer = Game{}

// TestActionFeaturesMatchTheRules plays random games and, at every
// decision, checks each legal action's features, computed from the
// observation alone, against what the rules do when the action is played
// on a copy of the full state: lost is the game ending Lost in Space,
// orbit the ship at rest on a planet (the refuel decision, or the win),
// deliver a delivery made, trap the share of the face-down coins that,
// stacked on top and revealed by the move, leave every legal next move
// lost. Illegal actions have no features.
func TestActionFeaturesMatchTheRules(t *testing.T) {
	obs := make([]uint8, ObsSize)
	mask := make([]uint8, NumActions)
	feat := make([]uint8, NumActions*NumFeatures)
	rng := rand.New(rand.NewPCG(7, 11))
	count := [NumFeatures]int{}
	decisions := 0
	for seed := range uint64(300) {
		s := newState(&configs[seed%2], seed)
		r := []float64{0}
		for !s.Terminal() {
			s.Observe(0, obs)
			n := s.LegalMask(mask)
			decisions++
			if err := checkFeatures(s, obs, mask, feat, &count); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			// Play a random legal action, preferring not to lose at once so
			// that games run long.
			a := -1
			for try := 0; try < 4 && (a < 0 || feat[a*NumFeatures+FeatureLost] != 0); try++ {
				k := rng.IntN(n)
				for b, m := range mask {
					if m != 0 {
						if k == 0 {
							a = b
							break
						}
						k--
					}
				}
			}
			s.Apply(a, r)
		}
	}
	// The test must have seen every feature set, and many times.
	for k, c := range count {
		if c < 50 {
			t.Errorf("feature %s set only %d times in %d decisions", featureNames[k], c, decisions)
		}
	}
	t.Logf("%d decisions; features set: lost %d, orbit %d, deliver %d, trap (sum) %d", decisions, count[0], count[1], count[2], count[3])
}

// checkFeatures computes the features of s's observation into feat (obs,
// mask: scratch) and checks each legal action's against what the rules do
// when it is played on a copy of the full state (see
// TestActionFeaturesMatchTheRules); count, when not nil, adds them up.
func checkFeatures(s *State, obs, mask, feat []uint8, count *[NumFeatures]int) error {
	s.Observe(0, obs)
	Game{}.ActionFeatures(obs, feat)
	s.LegalMask(mask)
	for a := range NumActions {
		f := feat[a*NumFeatures : (a+1)*NumFeatures]
		if mask[a] == 0 {
			if f[0]|f[1]|f[2]|f[3] != 0 {
				return fmt.Errorf("illegal action %s has features %v\n%s", spec.ActionNames[a], f, s)
			}
			continue
		}
		c := s.Clone().(*State)
		before := c.delivered
		c.Apply(a, []float64{0})
		want := [NumFeatures]uint8{}
		if c.Lost() {
			want[FeatureLost] = 1
		}
		if s.phase == PhaseCoin && (c.phase == PhaseRefuel || c.phase == PhaseOver && !c.lost && c.delivered == MaxDeliveries) {
			want[FeatureOrbit] = 1
		}
		if c.delivered > before {
			want[FeatureDeliver] = 1
		}
		if !c.Lost() && c.phase == PhaseCoin {
			want[FeatureTrap] = trapByRules(s, a)
		}
		if [NumFeatures]uint8(f) != want {
			return fmt.Errorf("%s: features %v, the rules give %v\n%s", spec.ActionNames[a], f, want, s)
		}
		if count != nil {
			for k, x := range f {
				count[k] += int(x)
			}
		}
	}
	return nil
}

// FuzzActionFeatures: whatever the bytes of an observation (a corrupted
// dataset's, or one no game reaches), ActionFeatures neither panics nor
// writes outside the features' ranges: 0 or 1 for lost, orbit and
// deliver, 0..TrapScale for trap.
func FuzzActionFeatures(f *testing.F) {
	s := newState(&configs[0], 3)
	obs := make([]uint8, ObsSize)
	s.Observe(0, obs)
	f.Add(slices.Clone(obs))
	s.Apply(ActionStart, []float64{0})
	s.Observe(0, obs)
	f.Add(slices.Clone(obs))
	f.Add([]byte{1, 2, 3})
	feat := make([]uint8, NumActions*NumFeatures)
	f.Fuzz(func(t *testing.T, b []byte) {
		o := make([]uint8, ObsSize)
		copy(o, b)
		Game{}.ActionFeatures(o, feat)
		for a := range NumActions {
			x := feat[a*NumFeatures : (a+1)*NumFeatures]
			if x[0] > 1 || x[1] > 1 || x[2] > 1 || x[3] > TrapScale {
				t.Fatalf("action %d: features %v", a, x)
			}
		}
	})
}

// trapByRules plays a (a launch, or a coin that neither loses nor puts the
// ship in orbit) on copies of the full state s, once with each face-down
// coin of the played suit moved to the top of its stack (so that the move
// reveals it; declining to refuel reveals the coin of the suit the
// orbiting turn played), and returns TrapScale times the share of them
// after which every legal move ends the game Lost in Space. Refuelling
// reshuffles: one draw is tried.
func trapByRules(s *State, a int) uint8 {
	if s.phase == PhaseStart {
		c := s.Clone().(*State)
		c.Apply(a, []float64{0})
		if strandedByRules(c) {
			return TrapScale
		}
		return 0
	}
	if a == ActionRefuel {
		c := s.Clone().(*State)
		c.Apply(a, []float64{0})
		if strandedByRules(c) { // one draw of the reshuffle: never stranded
			return TrapScale
		}
		return 0
	}
	suit, _, _, _ := DecodeCoinAction(a)
	if a == ActionNoRefuel {
		if s.pendingRev < 0 {
			panic("a refuel decision without a pending reveal")
		}
		suit = Suit(s.pendingRev)
	}
	n := int(s.deckN[suit])
	if n == 0 {
		c := s.Clone().(*State)
		c.Apply(a, []float64{0})
		if strandedByRules(c) {
			return TrapScale
		}
		return 0
	}
	k := 0
	for p := range n {
		c := s.Clone().(*State)
		d := &c.deck[suit]
		d[p], d[n-1] = d[n-1], d[p]
		c.Apply(a, []float64{0})
		if strandedByRules(c) {
			k++
		}
	}
	return uint8(TrapScale * k / n)
}

// strandedByRules reports whether every legal move of s loses at once.
func strandedByRules(s *State) bool {
	mask := make([]uint8, NumActions)
	s.LegalMask(mask)
	for b, m := range mask {
		if m == 0 {
			continue
		}
		c := s.Clone().(*State)
		c.Apply(b, []float64{0})
		if !c.Lost() {
			return false
		}
	}
	return true
}

func BenchmarkActionFeatures(b *testing.B) {
	s := newState(&configs[0], 3)
	obs := make([]uint8, ObsSize)
	feat := make([]uint8, NumActions*NumFeatures)
	s.Apply(ActionStart, []float64{0})
	s.Observe(0, obs)
	b.ReportAllocs()
	for b.Loop() {
		Game{}.ActionFeatures(obs, feat)
	}
}
