// Command expresscalibrate measures what Express's invented parameters do
// (docs/rules/express.md, A8 and A19), in heuristic self-play over --games
// games per setting (seats as dealt, seed = game index): hands a game, the
// share of hands that end with a player going out (the rest end with the
// draw pile exhausted), turns a hand, and seat 0's win rate against the
// fair share. It prints the markdown table of docs/rules/express.md's
// Calibration section:
//
//	go run ./tools/expresscalibrate --games 400
//
// A shared first place counts half a win. The heuristic's strength against
// random players and mcts is measured by galaxygym eval (the benchmarks
// target of the Makefile), not here.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	ex "github.com/galaxygym/galaxygym/env/express"
)

// settings are the parameter sets of the table, in its order.
var settings = []map[string]any{
	{"players": 2}, {"players": 3}, {"players": 4}, {"players": 4, "reshuffles": 0}, {"players": 4, "reshuffles": 2},
	{"players": 4, "opening_hand": 8}, {"players": 5, "opening_hand": 12}, {"players": 5},
	{"players": 6, "opening_hand": 12}, {"players": 6, "opening_hand": 12, "reshuffles": 3},
	{"players": 6, "opening_hand": 10}, {"players": 6}, {"players": 6, "reshuffles": 2},
}

func main() {
	games := flag.Int("games", 400, "games per setting")
	id := flag.String("env", ex.ID, "express-v1 or express-v2")
	agent := flag.String("agent", "heuristic", "the agent every seat plays")
	flag.Parse()
	if err := run(os.Stdout, *id, *agent, *games); err != nil {
		fmt.Fprintln(os.Stderr, "expresscalibrate:", err)
		os.Exit(1)
	}
}

// run writes the table of every setting to w.
func run(w io.Writer, id, agent string, games int) error {
	if games <= 0 {
		return fmt.Errorf("--games %d: want at least 1", games)
	}
	fmt.Fprintln(w, "| setting | hands/game | hands ending by going out | turns/hand | seat 0 wins (fair) |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, params := range settings {
		r, err := measure(id, agent, params, games)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "| %v | %.2f | %.0f %% | %.1f | %.3f (%.3f) |\n", params, r.hands/float64(games), 100*r.out/r.hands,
			r.turns/r.hands, r.seat0/float64(games), 1/float64(r.players))
	}
	return nil
}

// result sums one setting's games.
type result struct {
	players                  int
	hands, out, turns, seat0 float64
}

// measure plays games of id under params, every seat agent.
func measure(id, agent string, params map[string]any, games int) (result, error) {
	e, err := env.Make(id, params)
	if err != nil {
		return result{}, err
	}
	n := e.Spec().NumPlayers
	r := result{players: n}
	obs := make([]uint8, e.Spec().ObsSize())
	ags := make([]agents.Agent, n)
	for i := range ags {
		if ags[i], err = agents.New(agent, e.Spec(), nil); err != nil {
			return result{}, err
		}
	}
	for g := 0; g < games; g++ {
		for i, a := range ags {
			a.Reset(uint64(g*10 + i))
		}
		e.Reset(uint64(g))
		for !e.Done() {
			p := e.CurrentPlayer()
			if err := e.Observe(p, obs); err != nil {
				return result{}, err
			}
			if _, err := e.Step(ags[p].Act(p, obs, e.Mask())); err != nil {
				return result{}, err
			}
		}
		in := e.Info()
		h, _ := in.Stat("hands")
		o, _ := in.Stat("went_out")
		tu, _ := in.Stat("turns")
		r.hands, r.out, r.turns = r.hands+h, r.out+o, r.turns+tu
		switch in.Outcomes[0] {
		case env.OutcomeWin:
			r.seat0++
		case env.OutcomeDraw:
			r.seat0 += 0.5
		}
	}
	return r, nil
}
