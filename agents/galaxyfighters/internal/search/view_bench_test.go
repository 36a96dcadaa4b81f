package search

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// commandObs returns the acting player's observations at the command
// decisions of n seeded four-player expert games played at random.
func commandObs(b *testing.B, n int) [][]uint8 {
	var all [][]uint8
	envtest.RandomGames(b, gf.ID, map[string]any{"mission": "expert"}, n, rand.New(rand.NewPCG(1, 2)), func(e *env.Env) {
		if e.State().(*gf.State).Phase() != gf.PhaseCommand {
			return
		}
		obs := make([]uint8, gf.ObsSize)
		if err := e.Observe(e.CurrentPlayer(), obs); err != nil {
			b.Fatal(err)
		}
		all = append(all, obs)
	})
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
