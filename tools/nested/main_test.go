package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// TestNested checks that the nested agent rolls out with an mcts search of
// the inner options, and that run prints one row per agent of a tiny
// evaluation.
func TestNested(t *testing.T) {
	const id = "galaxy-express-v1"
	if err := register(id); err != nil {
		t.Fatal(err)
	}
	if err := register(id); err != nil { // twice: no second registration
		t.Fatal(err)
	}
	e, err := env.Make(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.New("mcts", e.Spec(), agents.Options{"sims": "4", "rollout": Search, "rollout.sims": "2"})
	if err != nil {
		t.Fatal(err)
	}
	inner, ok := a.(*agents.MCTS).RolloutAgent().(*agents.MCTS)
	if !ok {
		t.Fatalf("rollout agent %T, want *agents.MCTS", a.(*agents.MCTS).RolloutAgent())
	}
	if got := inner.String(); !strings.Contains(got, "sims=2 ") {
		t.Errorf("inner search %q, want sims=2", got)
	}

	var out, progress bytes.Buffer
	nested := "mcts@sims=4@rollout=search@rollout.sims=2"
	if err := run([]string{"-agents", "heuristic," + nested, "-episodes", "2", "-workers", "1"}, &out, &progress); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| heuristic | 2 |", "| " + nested + " | 2 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(progress.String(), nested+": 2 of 2 episodes") {
		t.Errorf("progress %q", progress.String())
	}
	if err := run([]string{"-env", "no-such-env-v0"}, &out, &progress); err == nil {
		t.Error("an unknown environment: no error")
	}
}
