package pilotsofgallaxia

import (
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// TestMCTSPlays: the generic mcts agent plays Pilots of Gallaxia through
// the game's env.Determinizer (random rollouts), every move legal.
func TestMCTSPlays(t *testing.T) {
	e, err := env.Make(pog.ID, map[string]any{"players": 2, "max_turns": 12})
	if err != nil {
		t.Fatal(err)
	}
	m, err := agents.New("mcts", e.Spec(), agents.Options{"sims": "16", "rollout": "random"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := agents.New("random", e.Spec(), nil)
	match(t, e, 1, []agents.Agent{m, r})
	if !e.Done() {
		t.Fatal("the game did not end")
	}
}
