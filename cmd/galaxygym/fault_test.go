package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/datasets"
)

// faultArgsEnv carries the command line of a child process run by
// TestGenerateKill9: the test binary re-executed as the galaxygym command.
const faultArgsEnv = "GALAXYGYM_FAULT_CHILD_ARGS"

// TestFaultChild is the child process's body; it does nothing in a normal
// run.
func TestFaultChild(t *testing.T) {
	args := os.Getenv(faultArgsEnv)
	if args == "" {
		t.Skip("runs only as the child of TestGenerateKill9")
	}
	out, err := runCLI(t, strings.Split(args, "\x1f")...)
	os.Stdout.WriteString(out)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(exitCode(err)) // as main

	}
	os.Exit(0)
}

// child returns the command that runs galaxygym with args in a child
// process whose working directory is dir.
func child(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultChild$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), faultArgsEnv+"="+strings.Join(args, "\x1f"))
	return cmd
}

// tree returns every file under dir by relative path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(t *testing.T, what string, want, got map[string][]byte) {
	t.Helper()
	for name, data := range want {
		if !bytes.Equal(data, got[name]) {
			t.Errorf("%s: %s differs from the uninterrupted run's", what, name)
		}
	}
	for name := range got {
		if want[name] == nil {
			t.Errorf("%s: extra file %s", what, name)
		}
	}
}

// TestGenerateKill9 kills `galaxygym generate` with SIGKILL at random
// moments (seeded), resuming each time in the same directory, then lets it
// finish; then corrupts a finished part in the middle and runs it again.
// Every time the result is byte-identical to an uninterrupted run (issue
// 16). Bounded: six kills of a run of about a second.
func TestGenerateKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command in child processes")
	}
	// The same relative --out in two directories: the manifest records the
	// command line.
	kill9(t, 18, "generate", "--agent", "random", "--episodes", "360", "--episodes-per-part", "20",
		"--workers", "2", "--seed", "5", "--out", "ds")
}

// TestGenerateCompactKill9 is TestGenerateKill9 for a compact dataset
// (--observations none, issue 37): more episodes, as each costs less.
func TestGenerateCompactKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command in child processes")
	}
	kill9(t, 20, "generate", "--agent", "random", "--episodes", "2000", "--episodes-per-part", "100",
		"--workers", "2", "--seed", "5", "--observations", "none", "--out", "ds")
}

// kill9 runs args (a generate of parts parts writing to ds) killed at six
// random moments and resumed, then with a part corrupted, and compares
// each result with an uninterrupted run's.
func kill9(t *testing.T, parts int, args ...string) {
	refDir, runDir := t.TempDir(), t.TempDir()
	ref, dir := filepath.Join(refDir, "ds"), filepath.Join(runDir, "ds")
	t0 := time.Now()
	if out, err := child(refDir, args...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	full := time.Since(t0)
	want := tree(t, ref)
	if _, ok := want[datasets.ManifestFile]; !ok {
		t.Fatal("the uninterrupted run wrote no manifest")
	}

	rng := rand.New(rand.NewPCG(16, 9))
	kills := 0
	for i := 0; i < 6; i++ {
		cmd := child(runDir, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Early enough that most runs are killed, and at every stage: at
		// start-up, mid-part, between parts, at the manifest.
		delay := full/20 + time.Duration(rng.Int64N(int64(full/3)))
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-time.After(delay):
			cmd.Process.Kill() // SIGKILL
			<-done
			kills++
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d ended with %v before its kill", i, err)
			}
		}
		// Whatever a kill leaves, finished parts are whole: if there is a
		// manifest, the dataset verifies.
		if d, err := datasets.Open(dir); err == nil {
			if err := d.Verify(); err != nil {
				t.Fatalf("after kill %d the manifest does not verify: %v", i, err)
			}
		}
	}
	if out, err := child(runDir, args...).CombinedOutput(); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	t.Logf("%d of 6 runs killed (a full run takes %v)", kills, full)
	sameFiles(t, "killed and resumed", want, tree(t, dir))

	// A byte flipped mid-part, footer intact: the part is written again.
	path := filepath.Join(dir, datasets.StepsDir, "part-00003.parquet")
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 1
	os.WriteFile(path, b, 0o644)
	if out, err := child(runDir, args...).CombinedOutput(); err != nil || !strings.Contains(string(out), fmt.Sprintf("%d parts kept", parts-1)) {
		t.Fatalf("run after corruption: %v\n%s", err, out)
	}
	sameFiles(t, "corrupted and resumed", want, tree(t, dir))
}
