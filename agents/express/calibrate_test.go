package express

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	ex "github.com/galaxygym/galaxygym/env/express"
)

// TestCalibrate measures, in heuristic self-play over EXPRESS_CALIBRATE
// games per setting, what the invented parameters do (docs/rules/express.md,
// A8 and A19): hands a game, the share of hands that end with a player going
// out (the rest end with the draw pile exhausted), turns a hand, and seat
// 0's win rate against the fair share. Skipped unless EXPRESS_CALIBRATE is
// set:
//
//	EXPRESS_CALIBRATE=400 go test ./agents/express -run TestCalibrate -v
func TestCalibrate(t *testing.T) {
	games, _ := strconv.Atoi(os.Getenv("EXPRESS_CALIBRATE"))
	if games <= 0 {
		t.Skip("set EXPRESS_CALIBRATE=games to measure")
	}
	fmt.Println("| setting | hands/game | hands ending by going out | turns/hand | seat 0 wins (fair) |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, params := range []map[string]any{
		{"players": 2}, {"players": 3}, {"players": 4}, {"players": 4, "reshuffles": 0}, {"players": 4, "reshuffles": 2},
		{"players": 4, "opening_hand": 8}, {"players": 5, "opening_hand": 12}, {"players": 5},
		{"players": 6, "opening_hand": 12}, {"players": 6, "opening_hand": 12, "reshuffles": 3},
		{"players": 6, "opening_hand": 10}, {"players": 6}, {"players": 6, "reshuffles": 2},
	} {
		e, err := env.Make(ex.ID, params)
		if err != nil {
			t.Fatal(err)
		}
		n := e.Spec().NumPlayers
		obs := make([]uint8, ex.ObsSize)
		ags := make([]agents.Agent, n)
		var hands, out, turns, seat0 float64
		for g := 0; g < games; g++ {
			for i := range ags {
				ags[i], _ = New(e.Spec(), nil)
				ags[i].Reset(uint64(g*10 + i))
			}
			e.Reset(uint64(g))
			for !e.Done() {
				p := e.CurrentPlayer()
				_ = e.Observe(p, obs)
				if _, err := e.Step(ags[p].Act(p, obs, e.Mask())); err != nil {
					t.Fatal(err)
				}
			}
			in := e.Info()
			h, _ := in.Stat("hands")
			o, _ := in.Stat("went_out")
			tu, _ := in.Stat("turns")
			hands, out, turns = hands+h, out+o, turns+tu
			switch in.Outcomes[0] {
			case env.OutcomeWin:
				seat0++
			case env.OutcomeDraw:
				seat0 += 0.5
			}
		}
		fmt.Printf("| %v | %.2f | %.0f %% | %.1f | %.3f (%.3f) |\n", params, hands/float64(games), 100*out/hands,
			turns/hands, seat0/float64(games), 1/float64(n))
	}
}
