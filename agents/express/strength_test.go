package express

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/agents"
)

// wilson returns the 95% Wilson interval of k successes in n trials.
func wilson(k, n float64) (lo, hi float64) {
	const z = 1.96
	p := k / n
	d := 1 + z*z/n
	c := (p + z*z/(2*n)) / d
	w := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / d
	return c - w, c + w
}

// TestStrength measures the heuristic and mcts over EXPRESS_EVAL games
// (seats rotated, seed = game index): the heuristic against three random
// players (4 players) and against one (2 players), and mcts (heuristic
// rollouts by default, EXPRESS_MCTS_SIMS simulations, default 64) against the
// heuristic in 2-player games (EXPRESS_EVAL_MCTS games, default
// EXPRESS_EVAL/20). It is skipped unless EXPRESS_EVAL is set:
//
//	EXPRESS_EVAL=10000 go test ./agents/express -run TestStrength -v -timeout 0
//
// A shared first place counts half a win.
func TestStrength(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("EXPRESS_EVAL"))
	if n <= 0 {
		t.Skip("set EXPRESS_EVAL=games to measure")
	}
	report := func(what string, r [2]float64, d time.Duration) {
		lo, hi := wilson(r[0], r[1])
		fmt.Printf("%s: %.2f %% [%.2f, %.2f] over %.0f games (%v)\n", what, 100*r[0]/r[1], 100*lo, 100*hi, r[1], d.Round(time.Second))
	}
	start := time.Now()
	res := playGames(t, 4, n, []string{Name, "random", "random", "random"}, nil)
	report("4 players, heuristic vs 3 random", res[Name], time.Since(start))
	start = time.Now()
	res = playGames(t, 2, n, []string{Name, "random"}, nil)
	report("2 players, heuristic vs random", res[Name], time.Since(start))
	nm, _ := strconv.Atoi(os.Getenv("EXPRESS_EVAL_MCTS"))
	if nm <= 0 {
		nm = max(n/20, 2)
	}
	sims := os.Getenv("EXPRESS_MCTS_SIMS")
	if sims == "" {
		sims = "64"
	}
	start = time.Now()
	res = playGames(t, 2, nm, []string{"mcts", Name}, agents.Options{"sims": sims})
	d := time.Since(start)
	report("2 players, mcts (sims="+sims+", heuristic rollouts) vs heuristic", res["mcts"], d)
	fmt.Printf("mcts: %.1f games/min on one goroutine\n", float64(nm)/d.Minutes())
}
