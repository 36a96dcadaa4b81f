package galaxyfighters

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// commandObs returns the acting player's observations at the command
// decisions of n seeded four-player expert games played at random.
func commandObs(b *testing.B, n int) [][]uint8 {
	e, err := env.Make(ID, map[string]any{"mission": "expert"})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var all [][]uint8
	for g := 0; g < n; g++ {
		e.Reset(uint64(g))
		for !e.Done() {
			if e.State().(*State).Phase() == PhaseCommand {
				obs := make([]uint8, ObsSize)
				if err := e.Observe(e.CurrentPlayer(), obs); err != nil {
					b.Fatal(err)
				}
				all = append(all, obs)
			}
			var legal []int
			for a, m := range e.Mask() {
				if m != 0 {
					legal = append(legal, a)
				}
			}
			if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	return all
}

// BenchmarkViewLoad times View.Load over the command decisions of random
// games; one op is one observation.
func BenchmarkViewLoad(b *testing.B) {
	all := commandObs(b, 20)
	var v View
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.Load(all[i%len(all)])
	}
}
