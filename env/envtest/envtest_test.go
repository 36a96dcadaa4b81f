package envtest_test

import (
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestConformance runs the suite on every registered game. The
// information-set test needs each game's options (its reveals, a retired
// version's known leak), so it runs in the game's own conformance test,
// not in this sweep.
func TestConformance(t *testing.T) {
	ids := env.IDs()
	if len(ids) == 0 {
		t.Fatal("no game registered; env/all links none")
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) { envtest.Run(t, id, envtest.InfoSetPositions(0)) })
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

// TestEveryTestPackageAcceptsUpdate keeps go test ./... -update working.
// go test passes -update to every test binary, and a test binary exits
// with "flag provided but not defined" on a flag it does not know. The flag
// is defined by package envtest, so every directory of the module with
// tests must import envtest from one of its files (or define an "update"
// flag itself, never both: a second definition panics).
func TestEveryTestPackageAcceptsUpdate(t *testing.T) {
	root := moduleRoot(t)
	const envtestPath = "github.com/galaxygym/galaxygym/env/envtest"
	ownFlag := regexp.MustCompile(`flag\.(Bool|BoolVar)\([^)]*"update"`)
	var missing, twice []string
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
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		hasTest, imports, defines := false, false, false
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				hasTest = true
			}
			src, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			if ownFlag.Match(src) {
				defines = true
			}
			af, _ := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if af == nil {
				continue
			}
			for _, im := range af.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); p == envtestPath {
					imports = true
				}
			}
		}
		rel, _ := filepath.Rel(root, path)
		rel = "./" + filepath.ToSlash(rel)
		switch {
		case filepath.Base(path) == "envtest" || !hasTest:
		case imports && defines:
			twice = append(twice, rel)
		case !imports && !defines:
			missing = append(missing, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("these packages have tests but do not import %s, so go test ./... -update fails in them "+
			"(flag provided but not defined: -update):\n  %s\nadd to one of their test files:\n"+
			"\timport _ %q", envtestPath, strings.Join(missing, "\n  "), envtestPath)
	}
	if len(twice) > 0 {
		t.Errorf("these packages import envtest and define an \"update\" flag too, which panics "+
			"(flag redefined: update); use envtest.Updating() instead:\n  %s", strings.Join(twice, "\n  "))
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
