package agents_test

import (
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/galaxyexpress"
	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// BenchmarkPolicyAct times Act of a 503 -> 256 -> 256 -> 56 tanh policy
// (the notebook's default size) on the decisions of 200 Galaxy Express
// games played by the heuristic.
func BenchmarkPolicyAct(b *testing.B) {
	e, err := env.Make(ge.ID, nil)
	if err != nil {
		b.Fatal(err)
	}
	h, err := agents.New(agents.Heuristic, e.Spec(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var obsAll, maskAll [][]uint8
	for seed := range uint64(200) {
		e.Reset(seed)
		h.Reset(seed)
		for !e.Done() {
			obs := make([]uint8, ge.ObsSize)
			_ = e.Observe(0, obs)
			m := slices.Clone(e.Mask())
			obsAll, maskAll = append(obsAll, obs), append(maskAll, m)
			_, _ = e.Step(h.Act(0, obs, m))
		}
	}
	agents.BenchmarkPolicyActOn(b, obsAll, maskAll)
}
