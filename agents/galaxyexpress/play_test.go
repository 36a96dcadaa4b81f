package galaxyexpress

import (
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
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
