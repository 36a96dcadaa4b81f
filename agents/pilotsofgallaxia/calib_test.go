package pilotsofgallaxia

import (
	"os"
	"strconv"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// TestCalibrationSelfPlay (run with CALIB=n) plays n games of four
// heuristics and logs the win rate by seat and the length of a game.
func TestCalibrationSelfPlay(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CALIB"))
	if n == 0 {
		t.Skip("set CALIB=games")
	}
	params := map[string]any{}
	for _, kv := range []string{"caravans", "blokks", "scientist_warp", "hideouts", "rings_to_win", "players"} {
		if v := os.Getenv("P_" + kv); v != "" {
			params[kv] = v
		}
	}
	e, err := env.Make(pog.ID, params)
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
	_ = byOrder
}
