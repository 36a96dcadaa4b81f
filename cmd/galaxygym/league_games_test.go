package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/evaluate"
)

// TestEvalLeagueGames merges a games file into eval --league: "outside",
// which only the file holds and which ranks first in every one of its
// games (seats rotated), is rated above the pool; the JSON report counts
// the external games. Malformed or mismatched files are refused with the
// file's line.
func TestEvalLeagueGames(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "games.jsonl")
	var b strings.Builder
	for d := range 10 {
		for r := range 3 {
			seats := []string{"outside", "random", "mcts@sims=2"}
			ranks := []int{1, 2, 3}
			if d%2 == 1 {
				ranks = []int{1, 3, 2}
			}
			fmt.Fprintf(&b, `{"seats": [%q, %q, %q], "scores": [%d, %d, %d], "ranks": [%d, %d, %d], "deal": %d}`+"\n",
				seats[r], seats[(r+1)%3], seats[(r+2)%3], 4-ranks[r], 4-ranks[(r+1)%3], 4-ranks[(r+2)%3],
				ranks[r], ranks[(r+1)%3], ranks[(r+2)%3], d)
		}
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runEval(t, "--env", "envtest-trio-v1", "--league", "random,mcts@sims=2", "--games", file,
		"--episodes", "10", "--workers", "2", "--bootstrap", "20", "--format", "json")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	var rep struct {
		ExternalGames int `json:"external_games"`
		Agents        []struct {
			Agent    string   `json:"agent"`
			Rating   float64  `json:"rating"`
			Low      *float64 `json:"ci95_low"`
			Games    int      `json:"games"`
			MeanRank float64  `json:"mean_rank"`
		} `json:"agents"`
		HeadToHead struct {
			Agents []string     `json:"agents"`
			Score  [][]*float64 `json:"score"`
		} `json:"head_to_head"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.ExternalGames != 30 || len(rep.Agents) != 3 || rep.Agents[0].Agent != "outside" || rep.Agents[0].Games != 30 ||
		rep.Agents[0].MeanRank != 1 || rep.Agents[0].Low == nil || *rep.Agents[0].Low <= 0 {
		t.Fatalf("want outside rated first over 30 games:\n%s", out)
	}
	if rep.HeadToHead.Agents[0] != "outside" || *rep.HeadToHead.Score[0][1] != 1 || *rep.HeadToHead.Score[0][2] != 1 {
		t.Fatalf("head to head:\n%s", out)
	}

	for _, c := range []struct{ line, want string }{
		{`{"seats": ["a", "random", "random"], "scores": [1, 2, 3], "ranks": [3, 2, 1], "deal": 0, "extra": 1}`, `line 2: json: unknown field "extra"`},
		{`{"seats": ["a", "random"], "scores": [1, 2], "ranks": [2, 1], "deal": 0}`, "line 2: 2 seats for a 3-player game"},
		{`{"seats": ["a", "random", "random"], "scores": [1, NaN, 3], "ranks": [3, 2, 1], "deal": 0}`, "line 2: non-finite score"},
		{`{"seats": ["a", "random", "random"], "scores": [1, 2, 3], "ranks": [3, 2, 1], "deal": 10}`, "line 2: deal 10 outside 0..9"},
	} {
		bad := filepath.Join(dir, "bad.jsonl")
		first := strings.SplitN(b.String(), "\n", 2)[0]
		if err := os.WriteFile(bad, []byte(first+"\n"+c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := runEval(t, "--env", "envtest-trio-v1", "--league", "random,mcts@sims=2", "--games", bad, "--episodes", "10")
		var ee *evaluate.ExternalGameError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an *ExternalGameError with %q", c.line, err, c.want)
		}
	}
	if _, err := runEval(t, "--env", "envtest-trio-v1", "--seats", "random,random,random", "--games", file); err == nil ||
		!strings.Contains(err.Error(), "give --league") {
		t.Errorf("--games without --league: %v", err)
	}
	if _, err := runEval(t, "--env", "envtest-trio-v1", "--league", "random,mcts", "--games", filepath.Join(dir, "none")); err == nil {
		t.Error("a missing --games file: no error")
	}
}

// TestEvalLeagueGamesOut writes a league's games with --games-out, one
// JSON object a game, and rates them again with --games --rate-only: the
// same report, playing nothing. The table explains the anchor, the
// intervals and the prior under the ratings.
func TestEvalLeagueGamesOut(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "games.jsonl")
	args := []string{"--env", "envtest-trio-v1", "--league", "random,mcts@sims=2,mcts@sims=8", "--episodes", "6",
		"--seed", "3", "--bootstrap", "20", "--format", "json"}
	played, err := runEval(t, append(args, "--workers", "2", "--games-out", rec)...)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, played)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var first struct {
		Lineup   []string `json:"lineup"`
		Rotation *int     `json:"rotation"`
		Deal     *int     `json:"deal"`
		Seed     *uint64  `json:"seed"`
		Seats    []string `json:"seats"`
		Ranks    []int    `json:"ranks"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || len(first.Lineup) != 3 || first.Rotation == nil ||
		first.Deal == nil || first.Seed == nil || len(first.Seats) != 3 || len(first.Ranks) != 3 {
		t.Fatalf("first record (%v): %s", err, lines[0])
	}
	// One lineup (3 agents, 3 seats), 6 deals, 3 rotations.
	if len(lines) != 18 {
		t.Fatalf("%d records, want 18", len(lines))
	}
	again, err := runEval(t, append(args, "--games", rec, "--rate-only")...)
	if err != nil {
		t.Fatalf("eval --rate-only: %v\n%s", err, again)
	}
	var p, q map[string]any
	if err := json.Unmarshal([]byte(played), &p); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(again), &q); err != nil {
		t.Fatal(err)
	}
	if q["games"].(float64) != 0 || q["external_games"].(float64) != 18 {
		t.Fatalf("rate-only: %v games, %v external", q["games"], q["external_games"])
	}
	for _, k := range []string{"agents", "head_to_head", "rating_wide_prior", "notes", "anchor"} {
		pj, _ := json.Marshal(p[k])
		qj, _ := json.Marshal(q[k])
		if string(pj) != string(qj) {
			t.Errorf("%s: played %s, read back %s", k, pj, qj)
		}
	}
	table, err := runEval(t, "--env", "envtest-trio-v1", "--league", "random,mcts@sims=2,mcts@sims=8", "--episodes", "6",
		"--seed", "3", "--bootstrap", "20", "--games", rec, "--rate-only")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"relative to the anchor, random (the pool's first agent), rated 0 by definition: its interval is [0, 0]",
		"95% bootstrap percentile interval over the deals (20 resamples of the 6 deals", "N(0, 3²) prior (SD 521 Elo)"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if _, err := runEval(t, "--env", "envtest-trio-v1", "--league", "random,mcts", "--rate-only"); err == nil ||
		!strings.Contains(err.Error(), "--rate-only") {
		t.Errorf("--rate-only without --games: %v", err)
	}
	if _, err := runEval(t, "--env", "envtest-trio-v1", "--seats", "random,random,random", "--games-out", rec); err == nil ||
		!strings.Contains(err.Error(), "give --league") {
		t.Errorf("--games-out without --league: %v", err)
	}
}
