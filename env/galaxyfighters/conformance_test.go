package galaxyfighters

import (
	"testing"

	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestConformance runs the shared suite on the three player counts and on
// the other readings of the rules' parameters.
func TestConformance(t *testing.T) {
	envtest.Run(t, ID)
	envtest.Run(t, ID3P, envtest.Seed(50), envtest.Episodes(4))
	envtest.Run(t, ID2P, envtest.Seed(60), envtest.Episodes(4))
	envtest.Run(t, ID, envtest.Params(map[string]any{"mission": "rookie", "invader_spaces": 6, "win_on": "last_card",
		"shaping": 0.05}), envtest.Seed(100), envtest.Episodes(4))
	envtest.Run(t, ID, envtest.Params(map[string]any{"mission": "ace", "max_turns": 12}), envtest.Seed(200), envtest.Episodes(3))
	envtest.Run(t, ID2P, envtest.Params(map[string]any{"districts_to_lose": 4, "backup_ships": 0, "spawn_deck": 25,
		"shaping": 0.1}), envtest.Seed(300), envtest.Episodes(3))
}

// TestGolden checks the golden playthroughs (go test ./env/galaxyfighters -update rewrites them).
func TestGolden(t *testing.T) {
	envtest.Golden(t, ID, "", envtest.Episodes(1), envtest.MaxSteps(40))
	envtest.Golden(t, ID3P, "", envtest.Episodes(1), envtest.MaxSteps(20))
	envtest.Golden(t, ID2P, "", envtest.Episodes(1), envtest.MaxSteps(20))
}
