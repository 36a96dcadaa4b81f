package envtest_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestConformance runs the suite on every registered game. The
// information-set test needs each game's options (its reveals, a retired
// version's known leak), so it runs in the game's own conformance test,
// not in this sweep; so do the scenes (each game's first playout).
func TestConformance(t *testing.T) {
	ids := env.IDs()
	if len(ids) == 0 {
		t.Fatal("no game registered; env/all links none")
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) { envtest.Run(t, id, envtest.InfoSetPositions(0), envtest.SceneEpisodes(0)) })
	}
}

// TestGoldenFiles fails for a registered game without a golden playthrough
// at the conventional path, and replays every golden file.
func TestGoldenFiles(t *testing.T) {
	for _, id := range env.IDs() {
		t.Run(id, func(t *testing.T) {
			path, err := envtest.GoldenPath(id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("game %s has no golden playthrough: %v\n"+
					"add to its package's tests: func TestGolden(t *testing.T) { envtest.Golden(t, ID, \"\") }\n"+
					"then run go test ./... -update", id, err)
			}
			if envtest.Updating() {
				t.Skip("-update: the game's own test rewrites the file")
			}
			envtest.CheckGoldenFile(t, path)
		})
	}
}

// TestGoldenPackagesDeclareUpdate: the -update flag is declared where it
// is used, as go/printer's tests do: every package whose tests write golden
// files (envtest.Golden, envtest.Updating) declares
//
//	var _ = flag.Bool("update", false, "rewrite golden files")
//
// in one of its test files, so that go test ./env/<game> -update rewrites
// them; envtest reads it through Updating and declares nothing itself.
func TestGoldenPackagesDeclareUpdate(t *testing.T) {
	root := moduleRoot(t)
	ownFlag := regexp.MustCompile(`flag\.(Bool|BoolVar)\([^)]*"update"`)
	uses := regexp.MustCompile(`envtest\.(Golden|Updating)\(`)
	var missing []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		files, _ := filepath.Glob(filepath.Join(path, "*_test.go"))
		using, defines := false, false
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			defines = defines || ownFlag.Match(src)
			using = using || uses.Match(src)
		}
		if using && !defines && filepath.Base(path) != "envtest" {
			rel, _ := filepath.Rel(root, path)
			missing = append(missing, "./"+filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("these packages write golden files but do not declare the -update flag, so "+
			"go test -update fails in them (flag provided but not defined: -update):\n  %s\nadd to one of their test files:\n"+
			"\tvar _ = flag.Bool(\"update\", false, \"rewrite golden files\")", strings.Join(missing, "\n  "))
	}
}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod found")
		}
		dir = parent
	}
}

// TestSuiteCatchesBugs runs the suite on deliberately broken games, each in
// a child test process, and checks that it fails for the right reason.
func TestSuiteCatchesBugs(t *testing.T) {
	if os.Getenv("ENVTEST_BUG") != "" {
		t.Skip("child process")
	}
	cases := []struct{ bug, want string }{
		{"", "PASS"},
		{"clone", "stepping a clone changed the original"},
		{"json", "does not round-trip through the game's notation"},
		{"seed", "same seed"},
		{"obs", "ObsHigh"},
		{"obs-unwritten", "unwritten"},
		{"mask-count", "State.LegalMask returns"},
		{"score", "Info.Score"},
		{"endless", "MaxEpisodeSteps"},
		{"reward-range", "RewardRange"},
		{"info", "Info.Outcome"},
		{"no-legal", "no legal action"},
		{"results-early", "per-player results before the end"},
		{"ranks", "do not follow scores"},
		{"scene-moves", "moves for"},
		{"scene-ended", "scene's Ended"},
		{"scene-leak", "the public part (env.PublicScene) of seat 1's scene differs"},
		{"public-leak", "look the same to every other seat, but their public words differ"},
		{"hidden-high", "> HiddenHigh"},
		{"hidden-load", "hidden parts (env.HiddenObserver) differ"},
	}
	for _, c := range cases {
		t.Run("bug="+c.bug, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenGame$", "-test.v")
			cmd.Env = append(os.Environ(), "ENVTEST_BUG="+c.bug, "ENVTEST_CHILD=1")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if c.bug == "" {
				if err != nil {
					t.Fatalf("the sound fake game fails the suite: %v\n%s", err, out)
				}
				return
			}
			if !errors.As(err, &ee) {
				t.Fatalf("the suite passed a game with bug %q (err %v):\n%s", c.bug, err, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Fatalf("bug %q: the suite failed, but without %q:\n%s", c.bug, c.want, out)
			}
		})
	}
}

// TestBrokenGame is the child of TestSuiteCatchesBugs.
func TestBrokenGame(t *testing.T) {
	if os.Getenv("ENVTEST_CHILD") == "" {
		t.Skip("run by TestSuiteCatchesBugs")
	}
	fake := &fakeGame{bug: os.Getenv("ENVTEST_BUG")}
	env.Register(fake)
	envtest.Run(t, fakeID, envtest.Episodes(3))
}
