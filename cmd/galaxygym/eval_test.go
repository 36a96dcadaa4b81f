package main

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/evaluate"
)

// runEval runs galaxygym eval with args, its flags first reset to their
// defaults (cobra keeps the values of an earlier Execute).
func runEval(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runFresh(t, "eval", args...)
}

func resetFlags(cmd *cobra.Command) {
	type replacer interface{ Replace([]string) error }
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if r, ok := f.Value.(replacer); ok {
			r.Replace(nil)
		} else {
			f.Value.Set(f.DefValue)
		}
		f.Changed = false
	})
}

func TestEvalCommand(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "returns.png")
	out, err := runEval(t, "--agents", "random,heuristic", "--episodes", "200", "--workers", "2", "--seed", "4",
		"--format", "csv", "--plot", png, "--agent-opt", "heuristic.scan_wrap=false")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("csv output (%v):\n%s", err, out)
	}
	want := []string{"agent", "episodes", "mean_return", "sd_return", "ci95_low", "ci95_high", "win_rate",
		"win_ci95_low", "win_ci95_high", "mean_length", "mean_deliveries", "mean_refuels", "mean_unspent_coins", "mean_turns"}
	if !reflect.DeepEqual(rows[0][:len(want)], want) || rows[0][len(rows[0])-1] != "seconds" ||
		rows[1][0] != "random" || rows[2][0] != "heuristic" || rows[2][1] != "200" {
		t.Errorf("csv:\n%s", out)
	}
	if data, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(data), "\x89PNG") {
		t.Errorf("plot: %v", err)
	}

	// The same episodes whatever --workers (timings aside).
	untimed := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			f := strings.Fields(l)
			out = append(out, strings.Join(f[:len(f)-2], " "))
		}
		return out
	}
	a, err1 := runEval(t, "--episodes", "150", "--workers", "1")
	b, err2 := runEval(t, "--episodes", "150", "--workers", "2")
	if err1 != nil || err2 != nil || !reflect.DeepEqual(untimed(a), untimed(b)) {
		t.Errorf("workers 1 and 2 differ (%v, %v):\n%s\n%s", err1, err2, a, b)
	}
}

func TestEvalDoc(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "benchmarks.md")
	os.WriteFile(doc, []byte("# Leaderboard\n\n"+evaluate.MarkerStart+"\nold\n"+evaluate.MarkerEnd+"\n"), 0o644)
	if out, err := runEval(t, "--episodes", "50", "--format", "markdown", "--doc", doc); err != nil {
		t.Fatalf("eval --doc: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(doc)
	s := string(data)
	if strings.Contains(s, "\nold\n") || !strings.Contains(s, "`galaxygym eval --env galaxy-express-v1 --agents random,heuristic --episodes 50 --seed 0`") ||
		!strings.Contains(s, "| heuristic | 50 | ") || !strings.HasSuffix(s, evaluate.MarkerEnd+"\n") {
		t.Errorf("doc:\n%s", s)
	}
	// A document without markers is refused before playing.
	os.WriteFile(doc, []byte("no markers\n"), 0o644)
	var me *evaluate.MarkerError
	if _, err := runEval(t, "--episodes", "50", "--doc", doc); !errors.As(err, &me) {
		t.Errorf("doc without markers: %v", err)
	}
}

func TestEvalErrors(t *testing.T) {
	var ue *agents.UnknownAgentError
	if _, err := runEval(t, "--agents", "random,nosuch", "--episodes", "10"); !errors.As(err, &ue) || ue.Name != "nosuch" {
		t.Errorf("unknown agent: %v", err)
	}
	var pe *evaluate.PlotPathError
	if _, err := runEval(t, "--episodes", "10", "--plot", filepath.Join(t.TempDir(), "x.gif")); !errors.As(err, &pe) {
		t.Errorf("--plot x.gif: %v", err)
	}
	var fe *evaluate.FormatError
	if _, err := runEval(t, "--episodes", "10", "--format", "xml"); !errors.As(err, &fe) {
		t.Errorf("--format xml: %v", err)
	}
	var ce *evaluate.ConfigError
	if _, err := runEval(t, "--agents", "random", "--episodes", "10", "--weights", "w.npz"); !errors.As(err, &ce) ||
		!strings.Contains(err.Error(), `"policy"`) {
		t.Errorf("--weights without the policy agent: %v", err)
	}
	var oe *agents.OptionError
	if _, err := runEval(t, "--agents", "heuristic", "--episodes", "10", "--agent-opt", "heuristic.scan_wrap=maybe"); !errors.As(err, &oe) {
		t.Errorf("bad agent option: %v", err)
	}
	for _, opt := range []string{"scan_wrap=true", "heuristic.=1", ".x=1", "novalue"} {
		if _, err := runEval(t, "--agents", "heuristic", "--episodes", "10", "--agent-opt", opt); err == nil {
			t.Errorf("--agent-opt %s accepted", opt)
		}
	}
	if _, err := runEval(t, "--agents", ",", "--episodes", "10"); err == nil {
		t.Error("--agents , accepted")
	}
}

// TestSpliceDocKeepsWhatChanged: eval --doc writes its section into the file
// as it is when the games end, so a section written meanwhile by another
// evaluation (make -j benchmarks) or a person's edit survives; the file keeps
// its mode and no temporary file is left; markers gone meanwhile are refused
// and the file is left as it was.
func TestSpliceDocKeepsWhatChanged(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "benchmarks.md")
	aStart, aEnd := evaluate.Markers("a")
	bStart, bEnd := evaluate.Markers("b")
	os.WriteFile(doc, []byte("intro\n"+aStart+"\nold a\n"+aEnd+"\n"+bStart+"\nold b\n"+bEnd+"\n"), 0o640)
	// While "a" is being evaluated, "b" is written and the intro edited.
	os.WriteFile(doc, []byte("intro, edited\n"+aStart+"\nold a\n"+aEnd+"\n"+bStart+"\nnew b\n"+bEnd+"\n"), 0o640)
	if err := spliceDoc(doc, "a", []byte("new a\n")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(doc)
	if s := string(data); !strings.Contains(s, "intro, edited") || !strings.Contains(s, "new a") ||
		!strings.Contains(s, "new b") || strings.Contains(s, "old") {
		t.Errorf("doc:\n%s", s)
	}
	if info, _ := os.Stat(doc); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", info.Mode().Perm())
	}
	os.WriteFile(doc, []byte("markers gone\n"), 0o640)
	var me *evaluate.MarkerError
	if err := spliceDoc(doc, "a", []byte("x\n")); !errors.As(err, &me) {
		t.Errorf("markers gone: %v, want a *evaluate.MarkerError", err)
	}
	if data, _ := os.ReadFile(doc); string(data) != "markers gone\n" {
		t.Errorf("a refused splice changed the file: %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %d files in the directory, want only the doc", len(entries))
	}
}
