package evaluate_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/evaluate"
)

var update = flag.Bool("update", false, "rewrite testdata/committed-exit.json from this build")

// committedExit is one expert-iteration file (notebooks/weights/<env>-exit.npz,
// notebooks/weights/make_exit.sh) and the two short seeded evaluations
// TestCommittedExit plays with it: the policy alone (greedy) and the search
// it guides.
type committedExit struct {
	env string
	// file is the weights file when it is not <env>-exit.npz: a warm start
	// without a value head (noValue), whose guided search rolls out to the
	// end; its rows are keyed by the file's name.
	file    string
	noValue bool
	params  map[string]any
	// policy and guided are Config.Agents (one-player and cooperative
	// games) or Config.Seats with Rotate (competitive games); FILE stands
	// for the weights file's path.
	policy, guided []string
	seats          bool
	// episodes of the policy's evaluation and of the guided search's (deals
	// with seats).
	episodes, guidedEpisodes int64
}

var committedExits = []committedExit{
	{env: "galaxy-express-v1", policy: []string{"heuristic", "policy@weights=FILE@greedy=true"},
		guided: []string{"mcts@sims=8@weights=FILE@leaf=rollout"}, episodes: 200, guidedEpisodes: 6},
	// The heuristic's wider DAgger clone (notebooks/weights/make_bc.sh, docs/learning-baselines.md,
	// item 10), and the search it guides best: sequential halving between the heuristic's move and
	// the clone's two most probable others.
	{env: "galaxy-express-v1", file: "galaxy-express-v1-dagger.npz", noValue: true,
		policy:   []string{"heuristic", "policy@weights=FILE@greedy=true"},
		guided:   []string{"mcts@sims=8@weights=FILE@search=halving@prior=rollout@top=2@leaf=rollout"},
		episodes: 200, guidedEpisodes: 6},
	// The same clone reading the game's action features (weights format version 5; item 11).
	{env: "galaxy-express-v1", file: "galaxy-express-v1-features.npz", noValue: true,
		policy:   []string{"heuristic", "policy@weights=FILE@greedy=true"},
		guided:   []string{"mcts@sims=8@weights=FILE@search=halving@prior=rollout@top=2@leaf=rollout"},
		episodes: 200, guidedEpisodes: 6},
	// That clone taught by the search's mean return per action (item 15).
	{env: "galaxy-express-v1", file: "galaxy-express-v1-mcts-values.npz", noValue: true,
		policy:   []string{"heuristic", "policy@weights=FILE@greedy=true"},
		guided:   []string{"mcts@sims=8@weights=FILE@search=halving@prior=rollout@top=2@leaf=rollout"},
		episodes: 200, guidedEpisodes: 6},
	// That file reading the game's fourth feature, trap, taught again by the search's values (item
	// 21), the best Galaxy Express policy.
	{env: "galaxy-express-v1", file: "galaxy-express-v1-trap.npz", noValue: true,
		policy:   []string{"heuristic", "policy@weights=FILE@greedy=true"},
		guided:   []string{"mcts@sims=8@weights=FILE@search=halving@prior=rollout@top=2@leaf=rollout"},
		episodes: 200, guidedEpisodes: 6},
	{env: "express-v2", params: map[string]any{"players": 2}, seats: true,
		policy: []string{"policy@weights=FILE@greedy=true", "heuristic"},
		guided: []string{"mcts@sims=8@weights=FILE@leaf=rollout", "heuristic"}, episodes: 50, guidedEpisodes: 3},
	{env: "pilots-of-gallaxia-v2", params: map[string]any{"players": 2}, seats: true,
		policy: []string{"policy@weights=FILE@greedy=true", "heuristic"},
		guided: []string{"mcts@sims=8@weights=FILE@leaf=rollout", "heuristic"}, episodes: 20, guidedEpisodes: 2},
	// The heuristic's DAgger clone reading the codes one-hot and the game's action features (format
	// version 5; docs/learning-baselines.md, item 12), and the search it guides as the exit file's.
	{env: "pilots-of-gallaxia-v2", file: "pilots-of-gallaxia-v2-dagger.npz", noValue: true,
		params: map[string]any{"players": 2}, seats: true,
		policy:   []string{"policy@weights=FILE@greedy=true", "heuristic"},
		guided:   []string{"mcts@sims=8@weights=FILE@leaf=rollout@search=halving@prior=rollout@top=1", "heuristic"},
		episodes: 20, guidedEpisodes: 2},
	// That clone taught by the search: DAgger rounds labelled by mcts@sims=32 (item 13), the
	// Pilots policy that beats the heuristic, and the search it guides.
	{env: "pilots-of-gallaxia-v2", file: "pilots-of-gallaxia-v2-mcts-dagger.npz", noValue: true,
		params: map[string]any{"players": 2}, seats: true,
		policy:   []string{"policy@weights=FILE@greedy=true", "heuristic"},
		guided:   []string{"mcts@sims=8@weights=FILE@leaf=rollout@search=halving@prior=rollout@top=1", "heuristic"},
		episodes: 20, guidedEpisodes: 2},
	{env: "galaxy-fighters-v2", params: map[string]any{"mission": "expert"},
		policy: []string{"policy@weights=FILE@greedy=true"},
		guided: []string{"mcts@sims=8@weights=FILE@leaf=rollout"}, episodes: 100, guidedEpisodes: 3},
	// The heuristic's DAgger clone, the Galaxy Fighters team policy that beats the heuristic, and the
	// search it guides that beats the clone (docs/learning-baselines.md, item 7): sequential halving
	// between its two most probable actions, each judged by rollouts of the clone itself.
	{env: "galaxy-fighters-v2", file: "galaxy-fighters-v2-dagger.npz", noValue: true, params: map[string]any{"mission": "expert"},
		policy:   []string{"policy@weights=FILE@greedy=true"},
		guided:   []string{"mcts@sims=4@weights=FILE@search=halving@prior=policy@top=1@leaf=rollout@rollout=policy@rollout.weights=FILE@rollout.greedy=true"},
		episodes: 100, guidedEpisodes: 2},
}

// exitReference is one agent row of a seeded evaluation, as
// testdata/committed-exit.json keeps it: the agent's spec with the file's
// path written FILE, its episodes, and its mean return and win rate printed
// to 9 significant digits.
type exitReference struct {
	Agent      string `json:"agent"`
	Episodes   int64  `json:"episodes"`
	MeanReturn string `json:"mean_return"`
	WinRate    string `json:"win_rate"`
}

// TestCommittedExit plays every committed expert-iteration file
// (notebooks/weights/<env>-exit.npz; and Galaxy Fighters' DAgger clone,
// whose guided search is the one that beats its policy) natively: its meta
// names its environment with that environment's observation shape and
// number of actions, it has the value head of format version 3 (the clone:
// none), and two short seeded evaluations (the greedy policy, and the
// search it guides, committedExit.guided) give exactly the rows recorded in
// testdata/committed-exit.json (go test -run TestCommittedExit -update
// rewrites them, after a deliberate change of a file or an agent). The full
// evaluations are in each file's .json and docs/benchmarks.md.
func TestCommittedExit(t *testing.T) {
	refPath := filepath.Join("testdata", "committed-exit.json")
	want := map[string][]exitReference{}
	if !*update {
		raw, err := os.ReadFile(refPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", refPath, err)
		}
	}
	got := map[string][]exitReference{}
	for _, c := range committedExits {
		file, name := c.env+"-exit.npz", c.env
		if c.file != "" {
			file, name = c.file, strings.TrimSuffix(c.file, ".npz")
		}
		path := filepath.Join("..", "notebooks", "weights", file)
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("committed weights: %v", err)
			}
			e, err := env.Make(c.env, c.params)
			if err != nil {
				t.Fatal(err)
			}
			spec := e.Spec()
			checkMeta(t, path, spec)
			p, err := agents.NewPolicy(spec, agents.Options{"weights": path, "greedy": "true"})
			if err != nil {
				t.Fatalf("NewPolicy: %v", err)
			}
			heads := 1
			if c.noValue {
				heads = 0
			}
			if p.ValueOutputs() != heads {
				t.Fatalf("%s: %d value outputs, want %d (an exit file: the value head of format version 3)", file, p.ValueOutputs(), heads)
			}
			for _, kind := range []string{"policy", "guided"} {
				lineup, episodes := c.policy, c.episodes
				if kind == "guided" {
					lineup, episodes = c.guided, c.guidedEpisodes
				}
				labels := make([]string, len(lineup))
				for i, l := range lineup {
					labels[i] = strings.ReplaceAll(l, "FILE", path)
				}
				cfg := evaluate.Config{Env: c.env, EnvParams: c.params, Episodes: episodes, Seed: 7, Workers: 2}
				if c.seats {
					cfg.Seats, cfg.Rotate = labels, true
				} else {
					cfg.Agents = labels
				}
				r := run(t, cfg)
				var rows []exitReference
				for _, a := range r.Agents {
					rows = append(rows, exitReference{Agent: strings.ReplaceAll(a.Name, path, "FILE"),
						Episodes: a.Summary.Episodes, MeanReturn: fmt.Sprintf("%.9g", a.Summary.Return.Mean),
						WinRate: fmt.Sprintf("%.9g", a.Summary.WinRate)})
				}
				key := name + "/" + kind
				got[key] = rows
				t.Logf("%s: %+v", key, rows)
				if !*update && !slices.Equal(rows, want[key]) {
					t.Errorf("%s: seeded evaluation (seed 7)\n got %+v\nwant %+v (testdata/committed-exit.json; -update after a deliberate change)",
						key, rows, want[key])
				}
			}
		})
	}
	if *update && !t.Failed() {
		raw, err := json.MarshalIndent(got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(refPath, append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
