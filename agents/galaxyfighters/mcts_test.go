package galaxyfighters_test

import (
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// TestMCTSPlaysGalaxyFighters: through the game's env.Determinizer the
// generic mcts agent plays both versions (three players here, so the
// determinizations must recover who flies the fourth ship) to the end with
// legal actions only.
func TestMCTSPlaysGalaxyFighters(t *testing.T) {
	for _, id := range []string{galaxyfighters.ID, galaxyfighters.IDv1} {
		e, err := env.Make(id, map[string]any{"players": 3, "mission": "ace", "max_turns": 10})
		if err != nil {
			t.Fatal(err)
		}
		a, err := agents.New("mcts", e.Spec(), agents.Options{"sims": "2", "rollout": "heuristic",
			"mission": "ace", "max_turns": "10", "players": "3"})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		e.Reset(5)
		a.Reset(5)
		obs := make([]uint8, galaxyfighters.ObsSize)
		for !e.Done() {
			p := e.CurrentPlayer()
			e.Observe(p, obs)
			x := a.Act(p, obs, e.Mask())
			if x < 0 || x >= galaxyfighters.NumActions || e.Mask()[x] == 0 {
				t.Fatalf("%s: illegal action %d", id, x)
			}
			if _, err := e.Step(x); err != nil {
				t.Fatal(err)
			}
		}
		if s, ok := a.(interface{ Stats() agents.MCTSStats }); ok && s.Stats().Simulations == 0 {
			t.Errorf("%s: mcts ran no simulation (determinizations failed?)", id)
		}
	}
}
