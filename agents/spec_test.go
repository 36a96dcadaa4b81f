package agents

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	ge "github.com/galaxygym/galaxygym/env/galaxyexpress"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
	}{
		{"random", Spec{Label: "random", Name: "random"}},
		{" mcts@sims=64 ", Spec{Label: "mcts@sims=64", Name: "mcts", Options: Options{"sims": "64"}}},
		{"policy@weights=a.npz@greedy= true", Spec{Label: "policy@weights=a.npz@greedy= true", Name: "policy",
			Options: Options{"weights": "a.npz", "greedy": "true"}}},
		{"mcts@rollout.x=a=b", Spec{Label: "mcts@rollout.x=a=b", Name: "mcts", Options: Options{"rollout.x": "a=b"}}},
	} {
		got, err := ParseSpec(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "@sims=1", "mcts@sims", "mcts@=3", "mcts@sims=1@sims=2", "mcts@"} {
		var se *SpecError
		if _, err := ParseSpec(in); !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "agents: agent ") {
			t.Errorf("ParseSpec(%q): got %v, want a *SpecError", in, err)
		}
	}
	if sp := SpecOf("mcts", Options{"sims": "5", "search": "ismcts"}); sp.Label != "mcts@search=ismcts@sims=5" || sp.Name != "mcts" {
		t.Errorf("SpecOf: %+v", sp)
	}
}

// TestLimitsCaps: mcts's sims and ms are refused over their caps, with
// the cap in the error; the default sims counts; ms alone gets sims capped.
func TestLimitsCaps(t *testing.T) {
	l := Limits{MaxMCTSSims: 1000, MaxMCTSTime: 2 * time.Second}
	for _, c := range []struct {
		spec, want string
	}{
		{"mcts@sims=100000000", "1000 simulations per decision"},
		{"mcts@sims=1001", "1000 simulations per decision"},
		{"mcts@ms=2001", "2000 ms per decision"},
		{"mcts@ms=5000@sims=10", "2000 ms per decision"},
	} {
		sp, _ := ParseSpec(c.spec)
		_, err := l.Check(sp)
		var le *LimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "agents: mcts: ") {
			t.Errorf("%s: got %v, want a *LimitError naming %q", c.spec, err, c.want)
		}
	}
	for _, c := range []struct {
		spec string
		want Options
	}{
		{"mcts@sims=1000", Options{"sims": "1000"}},
		{"mcts", Options{}},
		{"mcts@ms=2000", Options{"ms": "2000", "sims": "1000"}},
		{"mcts@ms=0", Options{"ms": "0"}}, // no time budget: the default count
		{"heuristic", Options{}},
		{"random@sims=1000000", Options{"sims": "1000000"}}, // not mcts: its own options are its own
	} {
		sp, _ := ParseSpec(c.spec)
		got, err := l.Check(sp)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.spec, got, err, c.want)
		}
	}
	// The default (DefaultMCTSSims) must fit a cap below it.
	sp, _ := ParseSpec("mcts")
	if _, err := (Limits{MaxMCTSSims: DefaultMCTSSims - 1}).Check(sp); err == nil || !strings.Contains(err.Error(), "the default") {
		t.Errorf("default sims over the cap: got %v", err)
	}
	// Bad numbers are option errors, not silently passed.
	for _, bad := range []string{"mcts@sims=lots", "mcts@ms=inf", "mcts@ms=-1"} {
		sp, _ = ParseSpec(bad)
		var oe *OptionError
		if _, err := l.Check(sp); !errors.As(err, &oe) {
			t.Errorf("%s: got %v, want an *OptionError", bad, err)
		}
	}
	// The zero Limits caps nothing.
	sp, _ = ParseSpec("mcts@sims=100000000")
	if _, err := (Limits{}).Check(sp); err != nil {
		t.Errorf("zero Limits: %v", err)
	}
	// Limits.New builds the agent with the checked options.
	a, opts, err := l.New(ge.Game{}.Spec(), Spec{Name: "mcts", Options: Options{"ms": "5"}})
	if err != nil || a.(*MCTS).sims != 1000 || opts["sims"] != "1000" {
		t.Errorf("Limits.New: %v %v %v", a, opts, err)
	}
}

// TestResolveWeights: names resolve inside the folder, symlinks resolved;
// absolute names, "..", missing files, folders and links that leave the
// folder are refused (for every weights key, rollout.weights included).
func TestResolveWeights(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "weights")
	outside := filepath.Join(root, "secret.npz")
	for _, p := range []string{filepath.Join(dir, "sub"), filepath.Join(dir, "folder.npz")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(dir, "a.npz"), filepath.Join(dir, "sub", "b.npz"), outside,
		filepath.Join(dir, "galaxy-express-v1-x.npz")} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "galaxy-express-v1-link.npz")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.npz", filepath.Join(dir, "galaxy-express-v1-in.npz")); err != nil {
		t.Fatal(err)
	}
	l := Limits{WeightsDir: dir}
	real, _ := filepath.EvalSymlinks(dir)
	for name, want := range map[string]string{"a.npz": "a.npz", "sub/b.npz": "sub/b.npz", "galaxy-express-v1-in.npz": "a.npz"} {
		got, err := l.ResolveWeights(name)
		if err != nil || got != filepath.Join(real, want) {
			t.Errorf("%s: got %q, %v", name, got, err)
		}
	}
	for _, name := range []string{"../secret.npz", outside, "galaxy-express-v1-link.npz", "missing.npz", "folder.npz", "", "sub/../../secret.npz"} {
		var we *WeightsError
		if _, err := l.ResolveWeights(name); !errors.As(err, &we) {
			t.Errorf("%q: got %v, want a *WeightsError", name, err)
		}
	}
	if _, err := (Limits{}).ResolveWeights("a.npz"); err == nil || !strings.Contains(err.Error(), "serves no weights") {
		t.Errorf("no folder: %v", err)
	}
	if got := l.WeightsFor("galaxy-express-v1"); !reflect.DeepEqual(got, []string{"galaxy-express-v1-in.npz", "galaxy-express-v1-x.npz"}) {
		t.Errorf("WeightsFor: %v (the link out of the folder must be left out)", got)
	}
	for _, spec := range []string{"policy@weights=galaxy-express-v1-link.npz", "mcts@rollout=policy@rollout.weights=../secret.npz"} {
		sp, _ := ParseSpec(spec)
		var we *WeightsError
		if _, err := l.Check(sp); !errors.As(err, &we) {
			t.Errorf("%s: got %v, want a *WeightsError", spec, err)
		}
	}
	sp, _ := ParseSpec("mcts@rollout=policy@rollout.weights=a.npz")
	if opts, err := l.Check(sp); err != nil || opts["rollout.weights"] != filepath.Join(real, "a.npz") || sp.Options["rollout.weights"] != "a.npz" {
		t.Errorf("rollout.weights: %v, %v (spec %v)", opts, err, sp.Options)
	}
}
