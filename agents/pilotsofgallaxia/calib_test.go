package pilotsofgallaxia

import (
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// TestCalibrationSelfPlay plays 400 four-pilot pilots-of-gallaxia-v1 games
// of heuristics against each other and checks that the seats are fair (the
// d6 picks the first pilot, L40): every seat wins 15-35 % of the games, and
// no game is truncated. The calibration measurements of
// docs/rules/pilots-of-gallaxia.md (other parameters, player counts, v2)
// are tools/pilotscalibrate's:
//
//	go run ./tools/pilotscalibrate --env pilots-of-gallaxia-v1 --players 4 --games 400 --param caravans=10
func TestCalibrationSelfPlay(t *testing.T) {
	const n = 400
	params := map[string]any{}
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
	if trunc > 0 {
		t.Errorf("%d games truncated", trunc)
	}
	for p, w := range wins[:len(seats)] {
		if r := float64(w) / float64(n); r < 0.15 || r > 0.35 {
			t.Errorf("seat %d won %.1f%% of the games, want 15-35%%", p, 100*r)
		}
	}
}
