package pilotsofgallaxia

import (
	"os"
	"strconv"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// TestCalibrationSelfPlay plays pilots-of-gallaxia-v1 games of heuristics
// against each other (v2 is measured by tools/pilotscalibrate) and checks
// that the seats are fair (the d6 picks the first pilot, L40):
// every seat wins 15-35 % of 400 four-pilot games, and every game ends by a
// win. With CALIB=n it plays n games, and P_<param>=<value> sets
// parameters: the calibration runs of docs/rules/pilots-of-gallaxia.md,
// which read the logged wins by position in the turn order and by seat,
// game length and raids.
func TestCalibrationSelfPlay(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CALIB"))
	check := n == 0
	if check {
		n = 400
	}
	params := map[string]any{}
	for _, kv := range []string{"caravans", "blokks", "scientist_warp", "hideouts", "rings_to_win", "players"} {
		if v := os.Getenv("P_" + kv); v != "" {
			params[kv] = v
		}
	}
	e, err := env.Make(pog.IDv1, params)
	if err != nil {
		t.Fatal(err)
	}
	seats := make([]agents.Agent, e.Spec().NumPlayers)
	var byOrder [6]int
	for i := range seats {
		seats[i], _ = New(e.Spec(), nil)
	}
	var wins [6]int
	turns, raids, trunc := 0, 0, 0
	for g := 0; g < n; g++ {
		e.Reset(uint64(g))
		first := e.CurrentPlayer()
		match(t, e, uint64(g), seats)
		in := e.Info()
		for p, o := range in.Outcomes {
			if o == env.OutcomeWin {
				byOrder[(p-first+len(seats))%len(seats)]++
			}
		}
		for p, o := range in.Outcomes {
			if o == env.OutcomeWin {
				wins[p]++
			}
		}
		w, _ := in.Stat("winner")
		_ = w
		turns += e.State().Turn()
		r, _ := in.Stat("raids")
		raids += int(r)
		if e.Truncated() {
			trunc++
		}
	}
	t.Logf("params %v: %d games: wins by position in the turn order %v, by seat %v, %.1f pilot turns, %.2f raids a game, %d truncated", params, n, byOrder[:len(seats)], wins[:len(seats)],
		float64(turns)/float64(n), float64(raids)/float64(n), trunc)
	if !check {
		return
	}
	if trunc > 0 {
		t.Errorf("%d games truncated", trunc)
	}
	for p, w := range wins[:len(seats)] {
		if r := float64(w) / float64(n); r < 0.15 || r > 0.35 {
			t.Errorf("seat %d won %.1f%% of the games, want 15-35%%", p, 100*r)
		}
	}
}
