package pilotsofgallaxia

import (
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// BenchmarkHeuristicEpisode plays four heuristics through the Env wrapper
// (observation, decision, step). One op is one step.
func BenchmarkHeuristicEpisode(b *testing.B) {
	e, _ := env.Make(pog.ID, nil)
	seats := make([]agents.Agent, 4)
	for i := range seats {
		seats[i], _ = New(e.Spec(), nil)
	}
	obs := make([]uint8, pog.ObsSize)
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
		e.Observe(p, obs)
		if _, err := e.Step(seats[p].Act(p, obs, e.Mask())); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
