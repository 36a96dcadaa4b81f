package evaluate_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/env/envtest/trio"
	"github.com/galaxygym/galaxygym/evaluate"
)

const trio = "envtest-trio-v1"

// TestSeatsRotation plays a rotated lineup of the three-player test game
// and checks the bookkeeping: every deal appears once per rotation for
// every seat of an agent, the results do not depend on the number of
// workers, and the searching agent beats the random ones head to head.
func TestSeatsRotation(t *testing.T) {
	cfg := evaluate.Config{Env: trio, Seats: []string{"random", "mcts", "random"}, Rotate: true, Episodes: 30, Seed: 8,
		AgentOptions: map[string]agents.Options{"mcts": {"sims": "30"}}, Workers: 1}
	r1, err := evaluate.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 2
	r2, err := evaluate.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Agents) != 2 || r1.Agents[0].Name != "random" || r1.Agents[1].Name != "mcts" {
		t.Fatalf("rows %v, want random then mcts", names(r1))
	}
	for i, ar := range r1.Agents {
		seats := map[string]int64{"random": 2, "mcts": 1}[ar.Name]
		if ar.Summary.Episodes != 30*3*seats || int64(len(ar.Deals)) != ar.Summary.Episodes {
			t.Fatalf("%s: %d games, want %d", ar.Name, ar.Summary.Episodes, 30*3*seats)
		}
		count := map[int64]int64{}
		for _, d := range ar.Deals {
			count[d]++
		}
		for d := range int64(30) {
			if count[d] != 3*seats {
				t.Fatalf("%s plays deal %d %d times, want %d", ar.Name, d, count[d], 3*seats)
			}
		}
		b := r2.Agents[i]
		if !reflect.DeepEqual(ar.Scores, b.Scores) || !reflect.DeepEqual(ar.Ranks, b.Ranks) || ar.Summary.WinRate != b.Summary.WinRate {
			t.Fatalf("%s: the results depend on the number of workers", ar.Name)
		}
	}
	m := r1.Agents[1].Summary
	if r1.Agents[0].Summary.DiffVsFirst != nil || m.DiffVsFirst == nil || !(m.DiffVsFirst.CI.Low > 0) ||
		!(m.Rank.Mean < r1.Agents[0].Summary.Rank.Mean) || !(m.Score.CI.Low <= m.Score.Mean && m.Score.Mean <= m.Score.CI.High) {
		t.Fatalf("mcts %+v, random %+v", m, r1.Agents[0].Summary)
	}
}

func names(r *evaluate.Report) []string {
	var out []string
	for _, a := range r.Agents {
		out = append(out, a.Name)
	}
	return out
}

// TestSeatsConfigErrors checks that lineups that cannot be played are
// *ConfigErrors naming the field.
func TestSeatsConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg   evaluate.Config
		field string
	}{
		{evaluate.Config{Env: trio, Seats: []string{"random", "random"}, Episodes: 2}, "Seats"},
		{evaluate.Config{Env: trio, Seats: []string{"random", "random", "random"}, Agents: []string{"random"}, Episodes: 2}, "Seats"},
		{evaluate.Config{Env: trio, Agents: []string{"random"}, Rotate: true, Episodes: 2}, "Rotate"},
		{evaluate.Config{Env: trio, Seats: []string{"random", "random", "random"}, Episodes: 2,
			AgentOptions: map[string]agents.Options{"mcts": {"sims": "3"}}}, "AgentOptions"},
		{evaluate.Config{Env: trio, Seats: []string{"random", "nosuch", "random"}, Episodes: 2}, "Seats"},
	} {
		_, err := evaluate.Run(context.Background(), c.cfg)
		var ce *evaluate.ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("Run(%+v): err = %v, want a *ConfigError for %s", c.cfg, err, c.field)
		}
	}
}

// TestSeatsInstances plays two instances of one agent with different
// options (name@key=value): each is its own row, labelled by its spec, with
// its own options over the shared ones, and the stronger instance scores
// higher on the same deals.
func TestSeatsInstances(t *testing.T) {
	cfg := evaluate.Config{Env: trio, Seats: []string{"mcts@sims=2", "mcts@sims=60", "random"}, Rotate: true, Episodes: 40, Seed: 3,
		AgentOptions: map[string]agents.Options{"mcts": {"rollout": "random"}}, Workers: 2}
	r, err := evaluate.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r); !reflect.DeepEqual(got, []string{"mcts@sims=2", "mcts@sims=60", "random"}) {
		t.Fatalf("rows %v", got)
	}
	if o := r.Agents[1].Options; o["sims"] != "60" || o["rollout"] != "random" {
		t.Fatalf("options of mcts@sims=60: %v", o)
	}
	if o := r.Agents[0].Options; o["sims"] != "2" {
		t.Fatalf("options of mcts@sims=2: %v", o)
	}
	for _, ar := range r.Agents {
		if ar.Summary.Episodes != 40*3 {
			t.Fatalf("%s: %d games", ar.Name, ar.Summary.Episodes)
		}
	}
	if r.Agents[1].Summary.Score.Mean <= r.Agents[2].Summary.Score.Mean {
		t.Fatalf("mcts@sims=60 scores %v, random %v", r.Agents[1].Summary.Score.Mean, r.Agents[2].Summary.Score.Mean)
	}
	for _, bad := range []string{"@sims=3", "mcts@sims", "mcts@sims=1@sims=2", "nosuch@x=1"} {
		cfg.Seats = []string{bad, "random", "random"}
		var ce *evaluate.ConfigError
		if _, err := evaluate.Run(context.Background(), cfg); !errors.As(err, &ce) {
			t.Fatalf("%q: %v, want a *ConfigError", bad, err)
		}
	}
}
