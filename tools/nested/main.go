// Command nested measures a search whose rollouts are themselves searched
// (docs/learning-baselines.md, item 28): it registers the mcts agent under
// the name "search" as an agent of env, so that
// mcts@rollout=search@rollout.sims=N rolls out with an mcts of N
// simulations at every decision of every rollout (mcts refuses "mcts" as
// its own rollout agent, so that a client of `galaxygym serve` cannot ask
// for a nested search whose cost the server's caps do not see), then runs
// `galaxygym eval`'s evaluation (evaluate.Run: episode i from the seeds of
// eval's --seed, every agent on the same episodes, paired against the
// first) and prints its markdown table. A decision costs about the outer
// search's simulated steps times the inner search's decision:
// mcts@sims=128@rollout=search@rollout.sims=64 about 8 CPU seconds a
// Galaxy Express game.
//
//	go run ./tools/nested -agents heuristic,mcts@sims=128,mcts@sims=128@rollout=search@rollout.sims=64 -episodes 100
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/evaluate"
)

// Search is the name the mcts agent is registered under as a rollout agent.
const Search = "search"

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
}

// run parses args, registers Search for the environment and writes the
// evaluation's markdown table to stdout, progress to stderr.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("nested", flag.ContinueOnError)
	fs.SetOutput(stderr)
	envID := fs.String("env", "galaxy-express-v1", "environment id")
	list := fs.String("agents", "heuristic,mcts@sims=128,mcts@sims=128@rollout=search@rollout.sims=64",
		"agents to compare, comma-separated (the first is the paired reference); "+Search+" is mcts as a rollout agent")
	episodes := fs.Int64("episodes", 100, "episodes each agent plays")
	seed := fs.Uint64("seed", 0, "run seed, as eval's --seed")
	workers := fs.Int("workers", 2, "goroutines playing episodes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := register(*envID); err != nil {
		return err
	}
	rep, err := evaluate.Run(context.Background(), evaluate.Config{
		Env: *envID, Agents: strings.Split(*list, ","), Episodes: *episodes, Seed: *seed, Workers: *workers,
		Progress: func(p evaluate.Progress) {
			if p.Episodes%10 == 0 || p.Episodes == p.EpisodesToPlay {
				fmt.Fprintf(stderr, "%s: %d of %d episodes\n", p.Agent, p.Episodes, p.EpisodesToPlay)
			}
		},
	})
	if err != nil {
		return err
	}
	return rep.Write(stdout, evaluate.FormatMarkdown)
}

// register makes the mcts agent an agent of envID named Search, once.
func register(envID string) error {
	g, err := env.Lookup(envID)
	if err != nil {
		return err
	}
	if !agents.Plays(Search, g.Spec()) {
		agents.RegisterFor(envID, Search, "the mcts agent, as a rollout agent of a nested search (tools/nested)",
			func(spec *env.Spec, opts agents.Options) (agents.Agent, error) { return agents.NewMCTS(spec, opts) })
	}
	return nil
}
