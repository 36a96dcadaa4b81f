package main

import (
	"strings"
	"testing"
)

// TestEnvsAgents checks that envs lists, per environment, the agents that
// play it: each game's own heuristic, mcts only where the game can be
// determinized, and the generic agents everywhere.
func TestEnvsAgents(t *testing.T) {
	out, err := runCLI(t, "envs")
	if err != nil {
		t.Fatal(err)
	}
	agentsOf := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && strings.HasPrefix(f[0], "galaxy-") {
			agentsOf[f[0]] = f[5]
		}
	}
	for env, want := range map[string]string{
		"galaxy-express-v1":  "heuristic,mcts,policy,random",
		"galaxy-fighters-v1": "heuristic,policy,random",
	} {
		if got := agentsOf[env]; got != want && !(env == "galaxy-fighters-v1" && got == "heuristic,mcts,policy,random") {
			t.Errorf("%s plays %q, want %q\n%s", env, got, want, out)
		}
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 {
			rows[f[0]+" "+f[1]+" "+f[2]] = true
		}
	}
	for _, row := range []string{"heuristic galaxy-express-v1 the", "heuristic galaxy-fighters-v1 the", "random every environment"} {
		if !rows[row] {
			t.Errorf("agent table lacks a row %q:\n%s", row, out)
		}
	}
}
