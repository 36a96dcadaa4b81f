package pilotsofgallaxia

import (
	"math"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

var _ env.ActionFeaturer = pog.Game{}

// TestActionFeaturesAreTheHeuristicsDistances: in 2- and 4-player games of
// the heuristic (v2 and v1), wherever the heuristic values the spaces a
// moving starship may go to (ActionValues: minus the spaces still to go),
// the game's togo feature of each valued space is that distance, nearer is
// set exactly for the spaces valued above the stop, and the stop's togo is
// the space the ship is on's; outside such decisions no feature is set.
func TestActionFeaturesAreTheHeuristicsDistances(t *testing.T) {
	checked, nearer := 0, 0
	var movingObs []uint8 // a v2 decision of a moving starship
	for _, c := range []struct {
		id      string
		players int
	}{{pog.ID, 2}, {pog.ID, 4}, {pog.IDv1, 2}} {
		e, err := env.Make(c.id, map[string]any{"players": c.players})
		if err != nil {
			t.Fatal(err)
		}
		spec := e.Spec()
		h, err := New(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		heur := h.(*Heuristic)
		f := env.ActionFeaturesOf(c.id)
		obs := make([]uint8, spec.ObsSize())
		feat := make([]uint8, spec.NumActions()*pog.NumFeatures)
		q := make([]float32, spec.NumActions())
		for seed := range uint64(4) {
			e.Reset(seed)
			heur.Reset(seed)
			for !e.Done() {
				p := e.CurrentPlayer()
				e.Observe(p, obs)
				mask := e.Mask()
				a := heur.ActionValues(obs, mask, q)
				f.ActionFeatures(obs, feat)
				phase := -1
				for i := range 14 {
					if obs[pog.OffPhase+i] == 1 {
						phase = i
					}
				}
				mover := int(obs[pog.OffMovingPiece]) - 1
				moving := obs[pog.OffPhase+14] == 0 && mover >= 0 && mover < 2 &&
					(phase == pog.PhPath || phase == pog.PhSlide || phase == pog.PhDWarp)
				if !moving {
					for k, x := range feat {
						if x != 0 {
							t.Fatalf("%s seed %d: phase %d mover %d: feature %d of action %d set", c.id, seed, phase, mover, k%2, k/2)
						}
					}
				} else {
					if movingObs == nil && c.id == pog.ID {
						movingObs = slices.Clone(obs)
					}
					stop := math.Inf(-1)
					if mask[pog.ActStop] == 1 && !math.IsNaN(float64(q[pog.ActStop])) {
						stop = float64(q[pog.ActStop]) - 0.5 // stopPreference
						if got := feat[pog.ActStop*pog.NumFeatures]; int(got) != int(-stop) {
							t.Fatalf("%s seed %d: stop togo %d, the heuristic's %v", c.id, seed, got, -stop)
						}
					}
					for sp := range pog.NumSpaces {
						v := float64(q[sp])
						if mask[sp] == 0 || math.IsNaN(v) || -v > pog.NoGoal {
							continue
						}
						checked++
						if got := feat[sp*pog.NumFeatures+pog.FeatureToGo]; int(got) != int(-v) {
							t.Fatalf("%s seed %d: space %d togo %d, the heuristic's %v", c.id, seed, sp, got, -v)
						}
						if n := feat[sp*pog.NumFeatures+pog.FeatureNearer]; !math.IsInf(stop, -1) && (n == 1) != (v > stop) {
							t.Fatalf("%s seed %d: space %d nearer %d, valued %v against the stop's %v", c.id, seed, sp, n, v, stop)
						}
						nearer += int(feat[sp*pog.NumFeatures+pog.FeatureNearer])
					}
				}
				if _, err := e.Step(a); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// Computing them for a moving starship allocates nothing.
	feat := make([]uint8, pog.NumActions*pog.NumFeatures)
	f := env.ActionFeaturesOf(pog.ID)
	if n := testing.AllocsPerRun(50, func() { f.ActionFeatures(movingObs, feat) }); n != 0 {
		t.Errorf("ActionFeatures: %.1f allocations, want 0", n)
	}
	if checked < 1000 || nearer < 100 {
		t.Fatalf("only %d valued spaces checked (%d nearer)", checked, nearer)
	}
	t.Logf("%d valued spaces checked, %d nearer", checked, nearer)
}
