package pilotsofgallaxia

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// BenchmarkRandomPlayout steps uniformly random four-player games through
// the Env wrapper (mask, choice, Step; a Reset when an episode ends),
// without observations. One op is one step.
func BenchmarkRandomPlayout(b *testing.B) { benchPlayout(b, false) }

// BenchmarkRandomPlayoutObserve also writes the acting pilot's observation
// every step.
func BenchmarkRandomPlayoutObserve(b *testing.B) { benchPlayout(b, true) }

func benchPlayout(b *testing.B, observe bool) {
	e, err := env.Make(ID, nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seed := uint64(0)
	e.Reset(seed)
	obs := make([]uint8, ObsSize)
	var legal [NumActions]int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if e.Done() {
			seed++
			e.Reset(seed)
		}
		if observe {
			e.Observe(e.CurrentPlayer(), obs)
		}
		n := 0
		for a, m := range e.Mask() {
			if m != 0 {
				legal[n] = a
				n++
			}
		}
		if _, err := e.Step(legal[rng.IntN(n)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

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
