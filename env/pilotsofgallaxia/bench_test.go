package pilotsofgallaxia

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// BenchmarkRandomPlayout steps uniformly random four-pilot games through
// the Env wrapper without observations (envtest.BenchmarkRandomPlay). One
// op is one step.
func BenchmarkRandomPlayout(b *testing.B) { envtest.BenchmarkRandomPlay(b, ID, nil, false) }

// BenchmarkRandomPlayoutObserve also writes the acting pilot's observation
// every step.
func BenchmarkRandomPlayoutObserve(b *testing.B) { envtest.BenchmarkRandomPlay(b, ID, nil, true) }

// BenchmarkObserve writes one observation of a mid-game position.
func BenchmarkObserve(b *testing.B) {
	e, _ := env.Make(ID, nil)
	e.Reset(5)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300 && !e.Done(); i++ {
		var legal []int
		for a, m := range e.Mask() {
			if m != 0 {
				legal = append(legal, a)
			}
		}
		e.Step(legal[rng.IntN(len(legal))])
	}
	obs := make([]uint8, ObsSize)
	s := e.State()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Observe(i&3, obs)
	}
}

// BenchmarkActionFeatures computes the action features of the
// observations of the decisions where a starship is moving (the phases
// that have any), over random two-pilot games; one op is one observation.
func BenchmarkActionFeatures(b *testing.B) {
	e, _ := env.Make(ID, map[string]any{"players": 2})
	rng := rand.New(rand.NewPCG(3, 4))
	var moving [][]uint8
	for seed := uint64(0); len(moving) < 200 && seed < 50; seed++ {
		e.Reset(seed)
		for !e.Done() {
			obs := make([]uint8, ObsSize)
			e.Observe(e.CurrentPlayer(), obs)
			if obs[OffPhase+PhPath] == 1 && obs[OffMovingPiece] >= 1 && obs[OffMovingPiece] <= 2 {
				moving = append(moving, obs)
			}
			var legal []int
			for a, m := range e.Mask() {
				if m != 0 {
					legal = append(legal, a)
				}
			}
			e.Step(legal[rng.IntN(len(legal))])
		}
	}
	if len(moving) == 0 {
		b.Fatal("no decision of a moving starship")
	}
	dst := make([]uint8, NumActions*NumFeatures)
	PlanningDistances(ID) // built on first use, not in the loop
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		Game{}.ActionFeatures(moving[i%len(moving)], dst)
		i++
	}
}
