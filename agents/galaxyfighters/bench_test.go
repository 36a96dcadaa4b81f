package galaxyfighters_test

import (
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// BenchmarkHeuristicAct times Act alone over the recorded decisions of 20
// four-player expert games played by the heuristic (observations and
// masks replayed in order); ns/op is per decision.
func BenchmarkHeuristicAct(b *testing.B) {
	e, err := env.Make(gf.ID, nil)
	if err != nil {
		b.Fatal(err)
	}
	a, err := agents.New(agents.Heuristic, e.Spec(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var obsAll, maskAll [][]uint8
	var players []int
	for i := range int64(20) {
		es, as := datasets.EpisodeSeeds(0, i)
		e.Reset(es)
		a.Reset(as)
		for !e.Done() {
			p := e.CurrentPlayer()
			obs := make([]uint8, e.Spec().ObsSize())
			if err := e.Observe(p, obs); err != nil {
				b.Fatal(err)
			}
			m := slices.Clone(e.Mask())
			obsAll, maskAll, players = append(obsAll, obs), append(maskAll, m), append(players, p)
			if _, err := e.Step(a.Act(p, obs, m)); err != nil {
				b.Fatal(err)
			}
		}
	}
	a.Reset(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(obsAll)
		a.Act(players[k], obsAll[k], maskAll[k])
	}
}
