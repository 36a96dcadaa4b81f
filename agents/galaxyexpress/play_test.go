package galaxyexpress

import (
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// playEpisode plays one episode of the one-player environment e from seed,
// with ag reset to the same seed, observing into obs (len ObsSize), and
// returns the actions ag chose. An illegal action fails the test.
func playEpisode(t testing.TB, e *env.Env, ag agents.Agent, seed uint64, obs []uint8) []int {
	t.Helper()
	var acts []int
	e.Reset(seed)
	ag.Reset(seed)
	for !e.Done() {
		_ = e.Observe(0, obs)
		act := ag.Act(0, obs, e.Mask())
		acts = append(acts, act)
		if _, err := e.Step(act); err != nil {
			t.Fatal(err)
		}
	}
	return acts
}

// heuristicDecisions plays seeds 0..games-1 with the heuristic and returns
// the observation and legal mask of every decision, in order (the
// positions the Act benchmarks replay).
func heuristicDecisions(tb testing.TB, games int) (obsAll, maskAll [][]uint8) {
	tb.Helper()
	e, h := newHeuristicEnv(tb)
	for seed := range uint64(games) {
		e.Reset(seed)
		h.Reset(seed)
		for !e.Done() {
			obs := make([]uint8, ge.ObsSize)
			if err := e.Observe(0, obs); err != nil {
				tb.Fatal(err)
			}
			mask := slices.Clone(e.Mask())
			obsAll, maskAll = append(obsAll, obs), append(maskAll, mask)
			if _, err := e.Step(h.Act(0, obs, mask)); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return obsAll, maskAll
}
