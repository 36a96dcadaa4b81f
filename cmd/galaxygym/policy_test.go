package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/datasets"
)

// policyWeights is the policy agent's test fixture (agents/testdata/policy).
var policyWeights = filepath.Join("..", "..", "agents", "testdata", "policy", "tanh.npz")

// resetSubcommandFlags puts a subcommand's flags back to their defaults: the tests
// share rootCmd, whose flags keep the values of an earlier execution.
func resetSubcommandFlags(t *testing.T, name string) {
	t.Helper()
	cmd, _, err := rootCmd.Find([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	reset := func() {
		for _, c := range []string{"agent-opt", "env-param", "weights", "agent", "out", "episodes", "seed", "workers"} {
			f := cmd.Flags().Lookup(c)
			if f == nil {
				continue
			}
			if sv, ok := f.Value.(interface{ Replace([]string) error }); ok {
				_ = sv.Replace(nil)
			} else {
				_ = f.Value.Set(f.DefValue)
			}
			f.Changed = false
		}
	}
	reset()
	t.Cleanup(reset)
}

func TestGeneratePolicy(t *testing.T) {
	resetSubcommandFlags(t, "generate")
	data, err := os.ReadFile(policyWeights)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	dir := filepath.Join(t.TempDir(), "ds")
	out, err := runCLI(t, "generate", "--agent", "policy", "--weights", policyWeights, "--episodes", "20",
		"--workers", "2", "--seed", "4", "--out", dir)
	if err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "20 episodes, ") {
		t.Errorf("generate summary: %q", out)
	}
	d, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := d.Manifest
	if m.TotalEpisodes != 20 || m.Agent.Name != "policy" || m.Agent.Options["weights"] != policyWeights ||
		m.Agent.Version != "sha256:"+hex.EncodeToString(sum[:]) ||
		!strings.Contains(m.CreatedBy, "--agent policy ") || !strings.Contains(m.CreatedBy, "--agent-opt weights="+policyWeights) ||
		d.Verify() != nil {
		t.Errorf("manifest: agent %+v, created_by %q", m.Agent, m.CreatedBy)
	}
	// The manifest's command line reproduces the dataset: its parts are kept.
	args := strings.Fields(strings.TrimPrefix(m.CreatedBy, "galaxygym "))
	resetSubcommandFlags(t, "generate")
	if out, err := runCLI(t, args...); err != nil || !strings.Contains(out, "1 parts kept") {
		t.Errorf("%v: %v %q", args, err, out)
	}
}

func TestPolicyWeightsFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the error
	}{
		{[]string{"generate", "--agent", "random", "--weights", policyWeights}, "--weights is an option of --agent policy"},
		{[]string{"bench", "--agent", "heuristic", "--weights", policyWeights}, "--weights is an option of --agent policy"},
		{[]string{"generate", "--agent", "policy", "--weights", policyWeights, "--agent-opt", "weights=other.npz"}, "disagree"},
		{[]string{"generate", "--agent", "policy"}, `agents: policy: option "weights": required`},
		{[]string{"bench", "--agent", "policy", "--weights", "absent.npz"}, "agents: policy: absent.npz: cannot read"},
	} {
		resetSubcommandFlags(t, tc.args[0])
		args := append(tc.args, "--episodes", "5", "--out", filepath.Join(t.TempDir(), "ds"))
		if tc.args[0] == "bench" {
			args = args[:len(args)-2]
		}
		if _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
	resetSubcommandFlags(t, "bench")
	out, err := runCLI(t, "bench", "--agent", "policy", "--weights", policyWeights, "--episodes", "50", "--workers", "2")
	if err != nil || !regexp.MustCompile(`(?m)^\d+ steps/s \d+ episodes/s$`).MatchString(out) {
		t.Errorf("bench --agent policy: %v\n%s", err, out)
	}
	// mcts takes --weights too: the search guided by the policy.
	resetSubcommandFlags(t, "bench")
	out, err = runCLI(t, "bench", "--agent", "mcts", "--agent-opt", "sims=2", "--weights", policyWeights, "--episodes", "4", "--workers", "2")
	if err != nil || !regexp.MustCompile(`(?m)^\d+ steps/s \d+ episodes/s$`).MatchString(out) {
		t.Errorf("bench --agent mcts --weights: %v\n%s", err, out)
	}
}
