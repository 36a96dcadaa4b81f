package express

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
	ex "github.com/galaxygym/galaxygym/env/express"
)

// BenchmarkHeuristicEpisode plays 4-player heuristic self-play through
// env.Env with every decision's observation: one op is one step
// (observation, decision, Step).
func BenchmarkHeuristicEpisode(b *testing.B) {
	e, err := env.Make(ex.ID, nil)
	if err != nil {
		b.Fatal(err)
	}
	ags := make([]*Heuristic, 4)
	for i := range ags {
		a, _ := New(e.Spec(), nil)
		ags[i] = a.(*Heuristic)
		ags[i].Reset(uint64(i))
	}
	obs := make([]uint8, ex.ObsSize)
	seed := uint64(0)
	e.Reset(seed)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if e.Done() {
			seed++
			e.Reset(seed)
		}
		p := e.CurrentPlayer()
		_ = e.Observe(p, obs)
		if _, err := e.Step(ags[p].Act(p, obs, e.Mask())); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
