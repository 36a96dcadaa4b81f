package galaxyfighters

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// BenchmarkRandomPlayout steps uniformly random four-player games of each
// version through the Env wrapper (mask, choice, Step; a Reset when an
// episode ends). One op is one step.
func BenchmarkRandomPlayout(b *testing.B) {
	for _, id := range []string{IDv1, ID} {
		b.Run(id, func(b *testing.B) { benchPlayout(b, id, false) })
	}
}

// BenchmarkRandomPlayoutObserve also writes the acting player's observation
// every step.
func BenchmarkRandomPlayoutObserve(b *testing.B) {
	for _, id := range []string{IDv1, ID} {
		b.Run(id, func(b *testing.B) { benchPlayout(b, id, true) })
	}
}

// BenchmarkDeterminize samples one hidden state from an observation of a
// v2 Ace game in its command phase (the work of one mcts simulation's
// start), reusing the state.
func BenchmarkDeterminize(b *testing.B) {
	e, err := env.Make(ID, map[string]any{"mission": "ace"})
	if err != nil {
		b.Fatal(err)
	}
	e.Reset(3)
	for steps := 0; steps < 60 && !e.Done(); steps++ {
		a := 0
		for e.Mask()[a] == 0 {
			a++
		}
		e.Step(a)
	}
	obs := make([]uint8, ObsSize)
	p := e.CurrentPlayer()
	e.Observe(p, obs)
	var st env.State
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if st, err = (Game{}).Determinize(e.Params(), p, obs, uint64(i), st); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPlayout(b *testing.B, id string, observe bool) {
	e, err := env.Make(id, nil)
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
