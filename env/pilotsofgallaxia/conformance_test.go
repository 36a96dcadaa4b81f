package pilotsofgallaxia

import (
	"testing"

	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestConformance runs the shared suite on both versions at 2-6 players
// and on the variants. Random games last about 550 pilot turns (5,500
// steps) and the suite checks every step in depth, so the runs truncate
// with max_turns (the end-of-episode checks then run on a truncation);
// games played to a win are checked by the golden files and the rules
// tests.
func TestConformance(t *testing.T) {
	for _, id := range []string{IDv1, ID} {
		t.Run(id, func(t *testing.T) {
			envtest.Run(t, id, envtest.Episodes(1), envtest.MaxSteps(300), infoSetFor(id))
			envtest.Run(t, id, envtest.Params(map[string]any{"max_turns": 20}), envtest.Seed(10), envtest.Episodes(2), infoSetFor(id))
			envtest.Run(t, id, envtest.Params(map[string]any{"players": 2, "max_turns": 20}), envtest.Seed(20), envtest.Episodes(2), infoSetFor(id))
			envtest.Run(t, id, envtest.Params(map[string]any{"players": 3, "max_turns": 20}), envtest.Seed(30), envtest.Episodes(2), infoSetFor(id))
			envtest.Run(t, id, envtest.Params(map[string]any{"players": 6, "max_turns": 20}), envtest.Seed(60), envtest.Episodes(2), infoSetFor(id))
			envtest.Run(t, id, envtest.Params(map[string]any{"players": 5, "mode": "a_new_life", "max_turns": 20}),
				envtest.Seed(70), envtest.Episodes(1), infoSetFor(id))
			envtest.Run(t, id, envtest.Params(map[string]any{"hideouts": true, "rings_to_win": 2, "shaping": 0.1,
				"caravans": 4, "blokks": 4, "max_turns": 20}), envtest.Seed(80), envtest.Episodes(1), infoSetFor(id))
		})
	}
	envtest.Run(t, ID, envtest.Params(map[string]any{"scientist_warp": "card_sektor", "players": 4, "max_turns": 20}),
		envtest.Seed(90), envtest.Episodes(1), infoSetFor(ID))
}

// TestGolden checks the golden playthroughs of both versions (go test
// ./env/pilotsofgallaxia -update rewrites them; v1's must never change).
func TestGolden(t *testing.T) {
	envtest.Golden(t, IDv1, "", envtest.Episodes(1), envtest.MaxSteps(80))
	envtest.Golden(t, IDv1, "testdata/golden/pilots-of-gallaxia-v1-players-6.txt", envtest.Params(map[string]any{"players": 6}),
		envtest.Episodes(1), envtest.MaxSteps(40))
	envtest.Golden(t, IDv1, "testdata/golden/pilots-of-gallaxia-v1-a-new-life.txt",
		envtest.Params(map[string]any{"players": 2, "mode": "a_new_life"}), envtest.Episodes(1), envtest.MaxSteps(40))
	envtest.Golden(t, ID, "", envtest.Episodes(1), envtest.MaxSteps(80))
	envtest.Golden(t, ID, "testdata/golden/pilots-of-gallaxia-v2-players-2.txt", envtest.Params(map[string]any{"players": 2}),
		envtest.Episodes(1), envtest.MaxSteps(60))
	envtest.Golden(t, ID, "testdata/golden/pilots-of-gallaxia-v2-players-6.txt", envtest.Params(map[string]any{"players": 6}),
		envtest.Episodes(1), envtest.MaxSteps(40))
	envtest.Golden(t, ID, "testdata/golden/pilots-of-gallaxia-v2-a-new-life.txt",
		envtest.Params(map[string]any{"players": 2, "mode": "a_new_life"}), envtest.Episodes(1), envtest.MaxSteps(40))
}
