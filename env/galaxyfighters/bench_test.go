package galaxyfighters

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// BenchmarkRandomPlayout steps uniformly random four-player games through
// the Env wrapper (mask, choice, Step; a Reset when an episode ends). One
// op is one step.
func BenchmarkRandomPlayout(b *testing.B) {
	benchPlayout(b, false)
}

// BenchmarkRandomPlayoutObserve also writes the acting player's observation
// every step.
func BenchmarkRandomPlayoutObserve(b *testing.B) {
	benchPlayout(b, true)
}

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
