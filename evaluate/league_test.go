package evaluate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/evaluate"
)

// picker plays Trio taking the k-th most valuable legal card (option k,
// 0 = the best): its strength falls with k, known in advance.
type picker struct{ k int }

func (p *picker) Name() string { return "picker" }
func (p *picker) Reset(uint64) {}
func (p *picker) Act(_ int, obs, mask []uint8) int {
	var legal []int
	for a, m := range mask {
		if m == 1 {
			legal = append(legal, a)
		}
	}
	// stable sort by value, highest first
	for i := 1; i < len(legal); i++ {
		for j := i; j > 0 && obs[legal[j]] > obs[legal[j-1]]; j-- {
			legal[j], legal[j-1] = legal[j-1], legal[j]
		}
	}
	return legal[min(p.k, len(legal)-1)]
}

func init() {
	agents.RegisterFor(trio, "picker", "takes the k-th most valuable legal card (test agent)",
		func(_ *env.Spec, opts agents.Options) (agents.Agent, error) {
			k, err := strconv.Atoi(opts["k"])
			if err != nil {
				return nil, &agents.OptionError{Agent: "picker", Reason: "k: " + err.Error()}
			}
			return &picker{k: k}, nil
		})
}

func TestLineups(t *testing.T) {
	for _, c := range []struct {
		m, n int
		want [][]int
	}{
		{3, 3, [][]int{{0, 1, 2}}},
		{4, 2, [][]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}},
		{2, 4, [][]int{{0, 0, 0, 1}, {0, 0, 1, 1}, {0, 1, 1, 1}}},
		{3, 4, [][]int{{0, 0, 1, 2}, {0, 1, 1, 2}, {0, 1, 2, 2}}},
	} {
		if got := evaluate.Lineups(c.m, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Lineups(%d, %d) = %v, want %v", c.m, c.n, got, c.want)
		}
	}
	if got := len(evaluate.Lineups(5, 4)); got != 5 {
		t.Errorf("5 agents, 4 seats: %d lineups, want 5", got)
	}
}

// TestFitPlackettLuce draws rankings from the Plackett-Luce model with
// known strengths and checks the fit recovers them.
func TestFitPlackettLuce(t *testing.T) {
	theta := []float64{0, 1, -0.5, 2}
	rng := rand.New(rand.NewPCG(1, 2))
	var games []evaluate.RankedGame
	for range 3000 {
		left := []int32{0, 1, 2, 3}
		g := evaluate.RankedGame{Weight: 1}
		for rank := int32(1); len(left) > 0; rank++ {
			var sum float64
			for _, a := range left {
				sum += math.Exp(theta[a])
			}
			u := rng.Float64() * sum
			pick := len(left) - 1
			for i, a := range left {
				if u -= math.Exp(theta[a]); u < 0 {
					pick = i
					break
				}
			}
			g.Agents = append(g.Agents, left[pick])
			g.Ranks = append(g.Ranks, rank)
			left = append(left[:pick], left[pick+1:]...)
		}
		games = append(games, g)
	}
	got, err := evaluate.FitPlackettLuce(games, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range theta {
		if d := (got[i] - got[0]) - theta[i]; math.Abs(d) > 0.15 {
			t.Fatalf("fit %v, want %v up to a constant", got, theta)
		}
	}
}

// TestLeague plays a league of agents of known strength on Trio and checks
// that the ratings put them in order, the reference is 0, the intervals
// hold the ratings, the head-to-head scores agree, and the report is the
// same with another number of workers.
func TestLeague(t *testing.T) {
	cfg := evaluate.LeagueConfig{Env: trio, Pool: []string{"random", "picker@k=3", "picker@k=0", "picker@k=1"},
		Deals: 60, Seed: 5, Workers: 1, Bootstrap: 50}
	r, err := evaluate.RunLeague(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, i := range r.Order {
		order = append(order, r.Agents[i].Name)
	}
	if want := []string{"picker@k=0", "picker@k=1", "random", "picker@k=3"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if len(r.Lineups) != 4 || r.Games != 4*60*3 {
		t.Fatalf("%d lineups, %d games", len(r.Lineups), r.Games)
	}
	for _, a := range r.Agents {
		if !(a.CI.Low <= a.Rating && a.Rating <= a.CI.High) || a.Games != 3*60*3 {
			t.Fatalf("%s: rating %v, interval %v, %d games", a.Name, a.Rating, a.CI, a.Games)
		}
	}
	if r.Agents[0].Rating != 0 {
		t.Fatalf("reference rating %v", r.Agents[0].Rating)
	}
	best, worst := 2, 1
	if s := r.Score[best][worst]; !(s > 0.9) || math.Abs(s+r.Score[worst][best]-1) > 1e-12 {
		t.Fatalf("head to head %v / %v", s, r.Score[worst][best])
	}
	cfg.Workers = 3
	r2, err := evaluate.RunLeague(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var md, js, js2 bytes.Buffer
	if err := r2.Write(&js2, evaluate.FormatJSON); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(&md, evaluate.FormatMarkdown); err != nil || !strings.Contains(md.String(), "| 1 | picker@k=0 |") {
		t.Fatalf("markdown (%v):\n%s", err, md.String())
	}
	if err := r.Write(&js, evaluate.FormatJSON); err != nil {
		t.Fatal(err)
	}
	if js.String() != js2.String() || !reflect.DeepEqual(r.Agents, r2.Agents) {
		t.Fatalf("the report depends on the number of workers:\n%s\n%s", js.String(), js2.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc["agents"].([]any)) != 4 {
		t.Fatalf("json (%v): %s", err, js.String())
	}
	png := filepath.Join(t.TempDir(), "league.png")
	if err := r.Plot(png); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Fatalf("plot: %v", err)
	}
}

func TestLeagueErrors(t *testing.T) {
	for _, cfg := range []evaluate.LeagueConfig{
		{Env: trio, Pool: []string{"random"}, Deals: 1},
		{Env: trio, Pool: []string{"random", "random"}, Deals: 1},
		{Env: trio, Pool: []string{"random", "mcts"}, Deals: 0},
		{Env: trio, Pool: []string{"random", "nosuch"}, Deals: 1},
	} {
		var ce *evaluate.ConfigError
		if _, err := evaluate.RunLeague(context.Background(), cfg); !errors.As(err, &ce) {
			t.Errorf("%v: %v, want a *ConfigError", cfg.Pool, err)
		}
	}
}

// TestLeagueWriteNoNegativeZero checks that a bound that rounds to zero is
// written without a minus sign: a bootstrap bound of -1e-9 Elo is "0",
// not "-0" (seen in a real league where an agent played exactly like the
// reference).
func TestLeagueWriteNoNegativeZero(t *testing.T) {
	r := &evaluate.LeagueReport{
		Agents: []*evaluate.LeagueAgent{
			{Name: "heuristic", Games: 4, WinRate: 0.5, MeanRank: 1.5},
			{Name: "clone", Rating: -1e-9, CI: evaluate.Interval{Low: -1e-9, High: 1e-9}, Games: 4, WinRate: 0.5, MeanRank: 1.5},
			{Name: "weak", Rating: -0.6, CI: evaluate.Interval{Low: -12.3, High: -0.4}, Games: 4, MeanRank: 2},
		},
		Order:    []int{0, 1, 2},
		Score:    [][]float64{{math.NaN(), 0.5, 1}, {0.5, math.NaN(), 1}, {0, 0, math.NaN()}},
		Meetings: [][]int64{{0, 4, 4}, {4, 0, 4}, {4, 4, 0}},
	}
	var b strings.Builder
	if err := r.Write(&b, evaluate.FormatMarkdown); err != nil {
		t.Fatal(err)
	}
	want := []string{"| 2 | clone | 0 | 0 | 0 | 4 |", "| 3 | weak | -1 | -12 | 0 | 4 |"}
	for _, w := range want {
		if !strings.Contains(b.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, b.String())
		}
	}
	if strings.Contains(b.String(), "| -0 |") {
		t.Errorf("markdown has a negative zero:\n%s", b.String())
	}
}
