package rollout_test

import (
	"fmt"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// One learner seat (rotated per episode) in the three-player test game
// against two random opponents: the rewards it is handed sum to its return.
func ExampleLearnerEnv() {
	e, _ := env.Make("envtest-trio-v1", nil)
	spec := e.Spec()
	opp, _ := agents.New("random", spec, nil)
	learner, _ := agents.New("random", spec, nil) // stands for a policy
	le, _ := rollout.NewLearnerEnv(e, []agents.Agent{nil, opp, opp}, []string{"learner", "random", "random"},
		rollout.SeatsRotate)
	obs := make([]uint8, spec.ObsSize())
	for ep := range int64(3) {
		envSeed, agentSeed := rollout.EpisodeSeeds(0, ep)
		le.Reset(ep, envSeed, agentSeed)
		learner.Reset(agentSeed)
		seat := le.Player()
		var sum float64
		decisions := 0
		for !le.Done() {
			le.Observe(obs)
			st, _ := le.Step(learner.Act(le.Player(), obs, le.Mask()))
			decisions++
			if st.Done() {
				sum += le.FinalRewards()[seat]
			} else {
				sum += st.Reward
			}
		}
		fmt.Printf("episode %d: seat %d, %d decisions, rewards %g, return %g\n", ep, seat, decisions, sum, e.Returns()[seat])
	}
	// Output:
	// episode 0: seat 1, 4 decisions, rewards 18, return 18
	// episode 1: seat 2, 4 decisions, rewards 23, return 23
	// episode 2: seat 1, 4 decisions, rewards 20, return 20
}
