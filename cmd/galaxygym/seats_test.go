package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/datasets"
	_ "github.com/galaxygym/galaxygym/env/envtest/trio" // envtest-trio-v1, the competitive test game
)

// TestEvalSeats plays the three-player test game with a lineup of two
// distinct agents, rotated: every deal is played once per rotation, so
// mcts (one seat) plays 3 games a deal and random (two seats) 6; mcts,
// which searches, ranks better than random, and the score difference
// paired by deal says so.
func TestEvalSeats(t *testing.T) {
	const deals = 40
	out, err := runEval(t, "--env", "envtest-trio-v1", "--seats", "mcts,random,random", "--rotate",
		"--episodes", strconv.Itoa(deals), "--workers", "2", "--agent-opt", "mcts.sims=40", "--format", "csv")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("want a header and one row per distinct agent (%v):\n%s", err, out)
	}
	want := []string{"agent", "games", "win_rate", "win_ci95_low", "win_ci95_high", "mean_score", "score_ci95_low",
		"score_ci95_high", "mean_rank", "rank_ci95_low", "rank_ci95_high", "mean_return", "mean_length",
		"score_diff_vs_first", "score_diff_ci95_low", "score_diff_ci95_high"}
	if !reflect.DeepEqual(rows[0], want) {
		t.Fatalf("columns %v, want %v", rows[0], want)
	}
	num := func(r []string, col string) float64 {
		f, err := strconv.ParseFloat(r[slicesIndex(want, col)], 64)
		if err != nil {
			t.Fatalf("%s = %q", col, r[slicesIndex(want, col)])
		}
		return f
	}
	m, r := rows[1], rows[2]
	if m[0] != "mcts" || r[0] != "random" || num(m, "games") != 3*deals || num(r, "games") != 6*deals {
		t.Fatalf("rows:\n%s", out)
	}
	for _, row := range rows[1:] {
		if lo, w, hi := num(row, "win_ci95_low"), num(row, "win_rate"), num(row, "win_ci95_high"); !(lo <= w && w <= hi) {
			t.Errorf("%s: win rate %v outside its interval [%v, %v]", row[0], w, lo, hi)
		}
		if rk := num(row, "mean_rank"); rk < 1 || rk > 3 {
			t.Errorf("%s: mean rank %v outside [1, 3]", row[0], rk)
		}
		if l := num(row, "mean_length"); l != 12 {
			t.Errorf("%s: mean length %v, want 12 (4 takes for 3 players)", row[0], l)
		}
	}
	// Every game has one best rank at least: wins over all appearances are
	// at most one per game.
	if wins := num(m, "win_rate")*3*deals + num(r, "win_rate")*6*deals; wins > 3*deals+1e-6 {
		t.Errorf("%v wins in %d games", wins, 3*deals)
	}
	if num(m, "mean_rank") >= num(r, "mean_rank") || num(m, "win_rate") <= num(r, "win_rate") {
		t.Errorf("mcts does not beat random:\n%s", out)
	}
	if d := num(r, "score_diff_ci95_high"); d >= 0 {
		t.Errorf("random's score minus mcts's, paired by deal, has an interval reaching %v >= 0:\n%s", d, out)
	}

	// The JSON form carries the lineup and the same columns.
	js, err := runEval(t, "--env", "envtest-trio-v1", "--seats", "random,random,random", "--episodes", "5",
		"--workers", "1", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Seats   []string         `json:"seats"`
		Rotate  bool             `json:"rotate"`
		Columns []string         `json:"columns"`
		Agents  []map[string]any `json:"agents"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Agents) != 1 || doc.Agents[0]["games"] != 15.0 ||
		len(doc.Seats) != 3 || doc.Rotate || !reflect.DeepEqual(doc.Columns, want) {
		t.Fatalf("json (%v):\n%s", err, js)
	}

	// Bad lineups are clear errors.
	for _, args := range [][]string{
		{"--seats", "random,random"},
		{"--seats", "random,random,random", "--agents", "random"},
		{"--rotate"},
		{"--seats", "random,nosuch,random"},
	} {
		if out, err := runEval(t, append([]string{"--env", "envtest-trio-v1", "--episodes", "2"}, args...)...); err == nil {
			t.Errorf("eval %v succeeded:\n%s", args, out)
		}
	}
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// runFresh runs a galaxygym command with its flags reset to their defaults.
func runFresh(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	cmd, _, err := rootCmd.Find([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	resetFlags(cmd)
	return runCLI(t, append([]string{name}, args...)...)
}

// TestGenerateSeats writes a dataset of a mixed lineup: the manifest
// records the seats and their options, the episodes table every seat's
// agent and every player's result; the same command resumes, and bench
// plays the same lineup.
func TestGenerateSeats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	args := []string{"--env", "envtest-trio-v1", "--seats", "mcts,random,random", "--agent-opt", "mcts.sims=20",
		"--episodes", "12", "--episodes-per-part", "5", "--workers", "2", "--seed", "9", "--out", dir}
	if out, err := runFresh(t, "generate", args...); err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	d, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := d.Manifest
	if !reflect.DeepEqual(m.Seats, []string{"mcts", "random", "random"}) || m.Agent.Name != "mcts,random,random" ||
		m.SeatOptions["mcts"]["sims"] != "20" || !strings.Contains(m.CreatedBy, "--seats mcts,random,random") ||
		!strings.Contains(m.SeedRule, "seat_seed") || m.TotalEpisodes != 12 || d.Verify() != nil {
		t.Fatalf("manifest: %+v", m)
	}
	n := 0
	for ep, err := range d.Episodes() {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if !reflect.DeepEqual(ep.Seats, m.Seats) || len(ep.Scores) != 3 || len(ep.Ranks) != 3 || len(ep.Outcomes) != 3 {
			t.Fatalf("episode %d: %+v", ep.ID, ep)
		}
		for k := range 3 {
			if ep.Scores[k] != ep.Returns[k] {
				t.Fatalf("episode %d: scores %v, returns %v (Trio's score is the return)", ep.ID, ep.Scores, ep.Returns)
			}
		}
	}
	if n != 12 {
		t.Fatalf("%d episodes read", n)
	}
	if out, err := runFresh(t, "generate", args...); err != nil || !strings.Contains(out, "3 parts kept") {
		t.Fatalf("rerun: %v %q", err, out)
	}
	other := append([]string(nil), args...)
	other[3] = "random,mcts,random" // another lineup into the same directory
	if _, err := runFresh(t, "generate", other...); !errors.Is(err, datasets.ErrMismatch) {
		t.Fatalf("another lineup: %v, want ErrMismatch", err)
	}
	if out, err := runFresh(t, "generate", "--env", "envtest-trio-v1", "--agent", "random", "--seats", "random,random,random",
		"--episodes", "2", "--out", t.TempDir()); err == nil {
		t.Fatalf("--agent with --seats accepted:\n%s", out)
	}
	out, err := runFresh(t, "bench", "--env", "envtest-trio-v1", "--seats", "random,mcts,random", "--agent-opt", "mcts.sims=10",
		"--episodes", "20", "--workers", "1")
	if err != nil || !strings.Contains(out, "agent random,mcts,random") || !strings.Contains(out, "20 episodes, 240 steps") {
		t.Fatalf("bench --seats: %v\n%s", err, out)
	}
}

// TestEvalInstances evaluates two policy instances with different weights
// files (name@key=value): one row each, labelled as written, with
// different results.
func TestEvalInstances(t *testing.T) {
	tanh := "policy@weights=" + policyWeights
	relu := "policy@weights=" + filepath.Join("..", "..", "agents", "testdata", "policy", "relu.npz")
	out, err := runEval(t, "--env", "galaxy-express-v1", "--agents", tanh+","+relu, "--episodes", "30",
		"--workers", "1", "--format", "csv")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][0] != tanh || rows[2][0] != relu {
		t.Fatalf("want one row per instance (%v):\n%s", err, out)
	}
	if reflect.DeepEqual(rows[1][1:], rows[2][1:]) {
		t.Fatalf("both instances played alike: the weights were not their own\n%s", out)
	}
}

// TestEvalLeague runs eval --league on the three-player test game: a
// ratings row per pool agent (the searching agent first, random the
// reference at 0), the head-to-head matrix, the plot and the --doc section.
func TestEvalLeague(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "b.md")
	if err := os.WriteFile(doc, []byte("x\n<!-- league:start -->\n<!-- league:end -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, "r.png")
	out, err := runEval(t, "--env", "envtest-trio-v1", "--league", "random,mcts@sims=40,mcts@sims=2",
		"--episodes", "30", "--workers", "2", "--bootstrap", "40", "--format", "csv", "--plot", png,
		"--doc", doc, "--doc-section", "league")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 4 || rows[1][1] != "mcts@sims=40" {
		t.Fatalf("want the ratings, best first (%v):\n%s", err, out)
	}
	for _, r := range rows[1:] {
		if r[1] == "random" && r[2] != "0" {
			t.Fatalf("random is the reference, rated %s", r[2])
		}
	}
	md, err := os.ReadFile(doc)
	if err != nil || !strings.Contains(string(md), "galaxygym eval --env envtest-trio-v1 --league random,mcts@sims=40,mcts@sims=2") ||
		!strings.Contains(string(md), "Head-to-head") {
		t.Fatalf("doc (%v):\n%s", err, md)
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Fatalf("plot: %v", err)
	}
	if _, err := runEval(t, "--env", "envtest-trio-v1", "--league", "random,mcts", "--seats", "random,mcts,mcts"); err == nil {
		t.Fatal("--league with --seats: no error")
	}
}
