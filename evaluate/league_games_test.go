package evaluate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/evaluate"
	"github.com/galaxygym/galaxygym/rollout"
)

// TestLeagueGamesRoundTrip writes a league's games record, reads it back
// as a games file into a rate-only league of the same pool, deals and seed,
// and checks that the report is the same: ratings, intervals, the
// wide-prior ratings, tallies and head-to-head matrix. The league merges
// an external game too, which the record carries after its own.
func TestLeagueGamesRoundTrip(t *testing.T) {
	cfg := evaluate.LeagueConfig{Env: trio, Pool: []string{"random", "picker@k=0", "picker@k=3", "picker@k=1"},
		Deals: 8, Seed: 11, Workers: 2, Bootstrap: 30,
		External: []evaluate.ExternalGame{{Seats: []string{"outsider", "random", "picker@k=0"}, Scores: []float64{3, 2, 1}, Ranks: []int32{1, 2, 3}, Deal: 5}}}
	r, err := evaluate.RunLeague(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	if err := r.WriteGames(&rec); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(rec.String()), "\n")
	if int64(len(lines)) != r.Games+1 {
		t.Fatalf("%d lines for %d games and 1 external game", len(lines), r.Games)
	}
	// Game 1 is lineup 0 (random, picker@k=0, picker@k=3), deal 0, rotation 1.
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &first); err != nil {
		t.Fatal(err)
	}
	envSeed, _ := rollout.EpisodeSeeds(11, 0)
	want := map[string]any{"lineup": []any{"random", "picker@k=0", "picker@k=3"}, "rotation": 1.0, "deal": 0.0,
		"seed": float64(envSeed), "seats": []any{"picker@k=0", "picker@k=3", "random"}}
	for k, v := range want {
		if !reflect.DeepEqual(first[k], v) {
			t.Errorf("line 2 %s = %v, want %v", k, first[k], v)
		}
	}
	if len(first["scores"].([]any)) != 3 || len(first["ranks"].([]any)) != 3 {
		t.Errorf("line 2: %s", lines[1])
	}
	if !strings.Contains(lines[len(lines)-1], `"seats":["outsider","random","picker@k=0"]`) {
		t.Errorf("last line is not the external game: %s", lines[len(lines)-1])
	}

	games, err := evaluate.ReadExternalGames(&rec)
	if err != nil {
		t.Fatal(err)
	}
	back := evaluate.LeagueConfig{Env: trio, Pool: cfg.Pool, Deals: cfg.Deals, Seed: cfg.Seed, Bootstrap: cfg.Bootstrap,
		External: games, RateOnly: true}
	r2, err := evaluate.RunLeague(context.Background(), back)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Games != 0 || r2.ExternalGames != r.Games+1 {
		t.Fatalf("read back: %d games, %d external", r2.Games, r2.ExternalGames)
	}
	if !reflect.DeepEqual(r.Order, r2.Order) || len(r.Agents) != len(r2.Agents) {
		t.Fatalf("order %v, read back %v", r.Order, r2.Order)
	}
	for i, a := range r.Agents {
		b := r2.Agents[i]
		if a.Name != b.Name || a.Rating != b.Rating || a.CI != b.CI || a.RatingWidePrior != b.RatingWidePrior ||
			a.Games != b.Games || a.WinRate != b.WinRate || a.MeanRank != b.MeanRank || a.MeanScore != b.MeanScore {
			t.Errorf("agent %d: played %+v, read back %+v", i, *a, *b)
		}
	}
	same := func(x, y [][]float64) bool {
		for i := range x {
			for j := range x[i] {
				if x[i][j] != y[i][j] && !(math.IsNaN(x[i][j]) && math.IsNaN(y[i][j])) {
					return false
				}
			}
		}
		return true
	}
	if !same(r.Score, r2.Score) || !reflect.DeepEqual(r.Meetings, r2.Meetings) {
		t.Errorf("head to head differs:\n%v\n%v", r.Score, r2.Score)
	}
	// The read-back report writes the same games again.
	var again bytes.Buffer
	if err := r2.WriteGames(&again); err != nil {
		t.Fatal(err)
	}
	games2, err := evaluate.ReadExternalGames(&again)
	if err != nil || !reflect.DeepEqual(games, games2) {
		t.Errorf("record read back and written again differs (%v)", err)
	}
}

func TestLeagueRateOnlyErrors(t *testing.T) {
	var ce *evaluate.ConfigError
	_, err := evaluate.RunLeague(context.Background(), evaluate.LeagueConfig{Env: trio, Pool: []string{"random", "picker@k=0"}, Deals: 1, RateOnly: true})
	if !errors.As(err, &ce) || ce.Field != "RateOnly" {
		t.Errorf("rate-only without games: %v, want a *ConfigError on RateOnly", err)
	}
	if err := (&evaluate.LeagueReport{}).WriteGames(&bytes.Buffer{}); !errors.Is(err, evaluate.ErrNoGames) {
		t.Errorf("WriteGames of a hand-built report: %v", err)
	}
}

// TestLeagueNotes checks the explanation lines under the ratings table:
// the anchor and its [0, 0] interval, the bootstrap, the prior and its
// pull on an agent that never wins.
func TestLeagueNotes(t *testing.T) {
	r := &evaluate.LeagueReport{
		Deals: 12, Bootstrap: 200,
		Agents: []*evaluate.LeagueAgent{
			{Name: "random", Games: 96, MeanRank: 2, RatingWidePrior: 0},
			{Name: "heuristic", Rating: 912.4, RatingWidePrior: 1290.2, CI: evaluate.Interval{Low: 850, High: 990}, Games: 96, WinRate: 0.9, MeanRank: 1.1},
			{Name: "mcts", Rating: 930, RatingWidePrior: 1301, CI: evaluate.Interval{Low: 860, High: 1000}, Games: 96, WinRate: 0.95, MeanRank: 1.05},
		},
		Order:    []int{2, 1, 0},
		Score:    [][]float64{{math.NaN(), 0, 0}, {1, math.NaN(), 0.4}, {1, 0.6, math.NaN()}},
		Meetings: [][]int64{{0, 96, 96}, {96, 0, 96}, {96, 96, 0}},
	}
	want := []string{
		"rating: Plackett-Luce rating in Elo points relative to the anchor, random (the pool's first agent), rated 0 by definition: its interval is [0, 0], and every other interval holds the anchor's uncertainty too.",
		"ci95_low, ci95_high: 95% bootstrap percentile interval over the deals (200 resamples of the 12 deals, every game of a drawn deal counted as often as it is drawn).",
		"prior: each agent's log-worth has a N(0, 3²) prior (SD 521 Elo) that keeps the fit finite: between an agent that never wins and one that beats it, the games alone put an infinite gap, so the prior sets that gap, not the games, and no resample of the deals widens its interval.",
		"never won: random (0 of 96 games).",
		"with the prior twice as wide (SD 1042 Elo): mcts 1301 (now 930), heuristic 1290 (now 912); these ratings are set by the prior, the others move by less than 25 Elo.",
	}
	if got := r.Notes(); !reflect.DeepEqual(got, want) {
		t.Fatalf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var table, md, js bytes.Buffer
	if err := r.Write(&table, evaluate.FormatTable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "\n\n"+strings.Join(want, "\n")+"\n\nHead-to-head") {
		t.Errorf("table lacks the notes between the ratings and the head-to-head matrix:\n%s", table.String())
	}
	if err := r.Write(&md, evaluate.FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "\n- "+want[0]+"\n- "+want[1]+"\n") {
		t.Errorf("markdown lacks the notes as a list:\n%s", md.String())
	}
	if err := r.Write(&js, evaluate.FormatJSON); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Anchor     string    `json:"anchor"`
		PriorSDElo float64   `json:"prior_sd_elo"`
		Wide       []float64 `json:"rating_wide_prior"`
		Notes      []string  `json:"notes"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Anchor != "random" || math.Abs(doc.PriorSDElo-521.1) > 0.1 || !reflect.DeepEqual(doc.Wide, []float64{1301, 1290.2, 0}) || !reflect.DeepEqual(doc.Notes, want) {
		t.Errorf("json: %+v", doc)
	}

	// No bootstrap, no agent without a win, nothing the prior sets.
	r.Bootstrap = -1
	r.Agents[0].WinRate = 0.1
	r.Agents[1].RatingWidePrior, r.Agents[2].RatingWidePrior = 920, 940
	got := r.Notes()
	want = []string{want[0], "ci95_low, ci95_high: none (no bootstrap).", want[2],
		"with the prior twice as wide (SD 1042 Elo) no rating moves by 25 Elo or more: the games set them."}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
