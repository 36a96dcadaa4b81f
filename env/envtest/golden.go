package envtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// goldenHeader is the fixed first line of a golden file, followed by the id.
const goldenHeader = "# galaxygym golden playthrough of "

// replayHeader starts the line that records the options, as JSON.
const replayHeader = "# replay: "

// goldenStream is the PCG stream of the golden policy's generator.
const goldenStream = 0x676f6c64656e // "golden"

// goldenOptions is the JSON form of the options a golden file records.
type goldenOptions struct {
	Episodes int            `json:"episodes"`
	Seed     uint64         `json:"seed"`
	Params   map[string]any `json:"params"`
	MaxSteps int            `json:"max_steps"`
	Policy   string         `json:"policy"`
}

// GoldenPath returns the conventional golden file of the registered game
// id: testdata/golden/<id>.txt in the directory of the Go package that
// defines the game's type, found from the module root (the nearest go.mod
// above the working directory).
func GoldenPath(id string) (string, error) {
	g, err := env.Lookup(id)
	if err != nil {
		return "", err
	}
	typ := reflect.TypeOf(g)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	root, module, err := moduleRoot()
	if err != nil {
		return "", err
	}
	pkg := typ.PkgPath()
	rel, ok := strings.CutPrefix(pkg, module+"/")
	if !ok {
		return "", fmt.Errorf("envtest: game %s is defined in %q, outside module %s", id, pkg, module)
	}
	return filepath.Join(root, filepath.FromSlash(rel), "testdata", "golden", id+".txt"), nil
}

// moduleRoot returns the directory holding the nearest go.mod above the
// working directory, and the module path it declares.
func moduleRoot() (dir, module string, err error) {
	dir, err = os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`), nil
				}
			}
			return "", "", fmt.Errorf("envtest: %s/go.mod has no module line", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("envtest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Transcript plays the golden playthrough of game id and returns its text:
// Episodes (default 3) seeded episodes from Seed (default 1), each with
// the environment seeded s and actions drawn by [Uniform] from a PCG
// seeded (s, "golden"). Before every step it writes the position
// (String), the player to act, the legal actions and a hash of every
// observation; then the action by name and the rewards; at the end the
// flags, the returns and the Info.
func Transcript(id string, opts ...Option) (string, error) {
	c := newConfig(3, opts)
	if c.policyName != "uniform" {
		return "", fmt.Errorf("envtest: golden playthroughs use the uniform policy only, not %q", c.policyName)
	}
	e, err := env.Make(id, c.params)
	if err != nil {
		return "", err
	}
	spec := e.Spec()
	params := c.params
	if params == nil {
		params = map[string]any{}
	}
	rj, err := json.Marshal(goldenOptions{c.episodes, c.seed, params, c.maxSteps, c.policyName})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s (%s)\n", goldenHeader, id, spec.Name)
	fmt.Fprintf(&b, "%s%s\n", replayHeader, rj)
	b.WriteString("# Episode k uses env seed S = seed+k-1 and picks uniformly among the legal actions\n")
	b.WriteString("# with a PCG seeded (S, \"golden\"). Observations are shown as FNV-1a 64 hashes.\n")
	b.WriteString("# Regenerate with: go test ./... -update\n")

	obs := make([]uint8, spec.ObsSize())
	mask := make([]uint8, spec.NumActions())
	for k := 1; k <= c.episodes; k++ {
		seed := c.seed + uint64(k-1)
		e.Reset(seed)
		rng := rand.New(rand.NewPCG(seed, goldenStream))
		fmt.Fprintf(&b, "\n=== episode %d: seed %d\n", k, seed)
		for !e.Done() && (c.maxSteps == 0 || e.Steps() < c.maxSteps) {
			fmt.Fprintf(&b, "\n--- step %d: player %d to act\n", e.Steps(), e.CurrentPlayer())
			writePosition(&b, e, obs)
			if err := e.LegalMask(mask); err != nil {
				return "", err
			}
			var legal []string
			for a, m := range mask {
				if m != 0 {
					legal = append(legal, spec.ActionNames[a])
				}
			}
			fmt.Fprintf(&b, "legal (%d): %s\n", len(legal), strings.Join(legal, " "))
			a := Uniform(e, rng)
			name := e.ActionName(a) // before the step: names are of this position
			res, err := e.Step(a)
			if err != nil {
				return "", fmt.Errorf("envtest: %s seed %d step %d: %w", id, seed, e.Steps(), err)
			}
			fmt.Fprintf(&b, "action: %s (%d)  rewards: %v", name, a, res.Rewards)
			if res.Terminated {
				b.WriteString("  terminated")
			}
			if res.Truncated {
				b.WriteString("  truncated")
			}
			b.WriteByte('\n')
		}
		end := "stopped by max_steps"
		switch {
		case e.Terminated():
			end = "terminated"
		case e.Truncated():
			end = "truncated"
		}
		fmt.Fprintf(&b, "\n=== episode %d over: %s after %d steps, returns %v\n", k, end, e.Steps(), e.Returns())
		writePosition(&b, e, obs)
		in := e.Info()
		fmt.Fprintf(&b, "info: %s\n", in.AppendJSON(nil))
	}
	return b.String(), nil
}

func writePosition(b *strings.Builder, e *env.Env, obs []uint8) {
	text := strings.TrimRight(e.String(), "\n")
	b.WriteString(text)
	b.WriteByte('\n')
	for p := 0; p < e.Spec().NumPlayers; p++ {
		_ = e.Observe(p, obs)
		h := fnv.New64a()
		h.Write(obs)
		fmt.Fprintf(b, "obs[%d]: %016x\n", p, h.Sum64())
	}
}

// Golden compares the transcript of game id (see [Transcript]; opts as
// there) with the golden file at path, "" meaning [GoldenPath](id). Under
// -update ([Updating]) it writes the file instead.
func Golden(t *testing.T, id, path string, opts ...Option) {
	t.Helper()
	if path == "" {
		var err error
		if path, err = GoldenPath(id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Transcript(id, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	compareGolden(t, path, got)
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no golden file %s; create it with go test -update", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(want) == got {
		return
	}
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	line := func(l []string, i int) string {
		if i < len(l) {
			return l[i]
		}
		return "<end of file>"
	}
	from := max(0, i-6)
	t.Fatalf("%s differs from the playthrough at line %d:\n  context:\n    %s\n  golden: %s\n  now:    %s\n"+
		"If the change of behaviour is intended (and the env version bumped where it must be), rerun with -update.",
		path, i+1, strings.Join(gl[from:i], "\n    "), line(wl, i), line(gl, i))
}

// CheckGoldenFile replays the golden file at path: it reads the game id
// and options from the header, plays the transcript again and compares.
func CheckGoldenFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	var first, second string
	if sc.Scan() {
		first = sc.Text()
	}
	if sc.Scan() {
		second = sc.Text()
	}
	f.Close()
	rest, ok := strings.CutPrefix(first, goldenHeader)
	if !ok {
		t.Fatalf("%s: first line %q does not start with %q", path, first, goldenHeader)
	}
	id, _, _ := strings.Cut(rest, " ")
	raw, ok := strings.CutPrefix(second, replayHeader)
	if !ok {
		t.Fatalf("%s: second line %q does not start with %q", path, second, replayHeader)
	}
	var o goldenOptions
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		t.Fatalf("%s: replay options: %v", path, err)
	}
	if o.Policy != "uniform" {
		t.Fatalf("%s: policy %q cannot be replayed", path, o.Policy)
	}
	got, err := Transcript(id, Episodes(o.Episodes), Seed(o.Seed), Params(o.Params), MaxSteps(o.MaxSteps))
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, path, got)
}
