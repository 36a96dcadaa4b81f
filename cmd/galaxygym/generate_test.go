package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/version"
)

// runCLI executes the root command with args and returns its output.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&out)
	rootCmd.SetArgs(args)
	defer rootCmd.SetArgs(nil)
	err := rootCmd.ExecuteContext(context.Background())
	return out.String(), err
}

func TestGenerateCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	args := []string{"generate", "--agent", "random", "--episodes", "50", "--workers", "2", "--seed", "3",
		"--episodes-per-part", "20", "--env-param", "max_turns=150", "--out", dir}
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`^50 episodes, \d+ steps, \d+ rows, \d+ bytes, [\d.]+ bytes/row, \d+ steps/s, \d+ episodes/s .* -> ` + regexp.QuoteMeta(dir) + "\n$").MatchString(out) {
		t.Errorf("generate summary: %q", out)
	}
	d, err := datasets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := d.Manifest
	if m.TotalEpisodes != 50 || len(m.Parts) != 3 || m.Seed != 3 || m.GalaxygymVersion != version.Version || m.EnvParams["max_turns"] != 150.0 ||
		!strings.Contains(m.CreatedBy, "--env-param max_turns=150") || d.Verify() != nil {
		t.Errorf("manifest: %+v", m)
	}
	// The same command again keeps everything; another seed is refused.
	if out, err := runCLI(t, args...); err != nil || !strings.Contains(out, "3 parts kept") {
		t.Errorf("rerun: %v %q", err, out)
	}
	args[8] = "4"
	if _, err := runCLI(t, args...); !errors.Is(err, datasets.ErrMismatch) {
		t.Errorf("another seed: %v, want ErrMismatch", err)
	}
	if _, err := runCLI(t, "generate", "--agent-opt", "novalue", "--out", dir); err == nil {
		t.Error("--agent-opt without '=' accepted")
	}
}

func TestBenchCommand(t *testing.T) {
	last := regexp.MustCompile(`^\d+ steps/s \d+ episodes/s$`)
	for _, args := range [][]string{
		{"bench", "--agent", "random", "--episodes", "200", "--workers", "2"},
		{"bench", "--agent", "random", "--episodes", "200", "--workers", "1", "--obs", "--seed", "5"},
	} {
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if !last.MatchString(lines[len(lines)-1]) {
			t.Errorf("%v: last line %q", args, lines[len(lines)-1])
		}
	}
}
