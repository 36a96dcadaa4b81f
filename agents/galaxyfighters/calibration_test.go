package galaxyfighters_test

import (
	"context"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env/galaxyfighters"
	"github.com/galaxygym/galaxygym/evaluate"
)

// TestCalibrationBands checks the difficulty ladder of galaxy-fighters-v2
// under its default parameters on a sample of the seeded games the
// calibration used (galaxygym eval --agents random,heuristic, seed 0): the
// heuristic's 95% Wilson interval must reach each mission's band (Rookie at
// least 90% won, Expert 50-80%, Ace 15-45%; measured over 10,000 games in
// docs/rules/galaxy-fighters.md) and random play wins almost nothing at Ace.
func TestCalibrationBands(t *testing.T) {
	n := int64(300)
	if testing.Short() {
		n = 100
	}
	for _, tc := range []struct {
		mission string
		lo, hi  float64
	}{{"rookie", 0.90, 1}, {"expert", 0.50, 0.80}, {"ace", 0.15, 0.45}} {
		r, err := evaluate.Run(context.Background(), evaluate.Config{Env: galaxyfighters.ID,
			EnvParams: map[string]any{"mission": tc.mission}, Agents: []string{"random", "heuristic"},
			AgentOptions: map[string]agents.Options{}, Episodes: n, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		h, rnd := r.Agents[1].Summary, r.Agents[0].Summary
		if h.WinCI.High < tc.lo || h.WinCI.Low > tc.hi {
			t.Errorf("%s: heuristic wins %.3f [%.3f, %.3f] of %d games, outside the band %.2f-%.2f", tc.mission,
				h.WinRate, h.WinCI.Low, h.WinCI.High, n, tc.lo, tc.hi)
		}
		if tc.mission == "ace" && rnd.WinRate > 0.02 {
			t.Errorf("ace: random play wins %.3f", rnd.WinRate)
		}
	}
}
