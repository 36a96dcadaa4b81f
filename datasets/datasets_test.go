package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

const testEnv = "galaxy-express-v1"

// smallConfig is a dataset of the random agent small enough for every test.
func smallConfig(out string) Config {
	return Config{Env: testEnv, Agent: "random", Episodes: 300, EpisodesPerPart: 100,
		Workers: 2, Seed: 7, Out: out}
}

// smallGroups makes row groups and obs pages small, so that the small test
// datasets cross both, and restores them at the end of the test.
func smallGroups(t testing.TB) {
	rg, pb := stepsRowGroupRows, obsPageBytes
	stepsRowGroupRows, obsPageBytes = 1000, 64*503+100
	t.Cleanup(func() { stepsRowGroupRows, obsPageBytes = rg, pb })
}

func generate(t testing.TB, cfg Config) *Result {
	t.Helper()
	res, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return res
}

// readTree returns every file under dir by relative path.
func readTree(t testing.TB, dir string) map[string][]byte {
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

func sameTree(t *testing.T, what string, a, b map[string][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d files vs %d: %v vs %v", what, len(a), len(b), slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s: %s differs", what, name)
		}
	}
}

func TestEpisodeSeeds(t *testing.T) {
	// SplitMix64 from state 0: its first two outputs are well known.
	e, a := EpisodeSeeds(0, 0)
	if e != 0xe220a8397b1dcdaf || a != 0x6e789e6aa1b965f4 {
		t.Errorf("EpisodeSeeds(0, 0) = %#x, %#x; want SplitMix64's first outputs", e, a)
	}
	seen := map[uint64]bool{}
	for i := int64(0); i < 1000; i++ {
		e, a := EpisodeSeeds(42, i)
		if seen[e] || seen[a] || e == a {
			t.Fatalf("episode %d: seed repeats", i)
		}
		seen[e], seen[a] = true, true
	}
}

func TestBSSMatchesParquetGo(t *testing.T) {
	for _, size := range []int{1, 3, 8, 9, 56, 503} {
		for _, n := range []int{0, 1, 7, 8, 9, 64, 1001} {
			src := make([]byte, n*size)
			for i := range src {
				src[i] = byte(i*7 + i/size)
			}
			want, err := parquet.ByteStreamSplit.EncodeFixedLenByteArray(nil, src, size)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(src))
			bssTranspose(got, src, n, size)
			if !bytes.Equal(got, want) {
				t.Errorf("size %d, n %d: differs from parquet-go", size, n)
			}
		}
	}
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	var ce *ConfigError
	for _, cfg := range []Config{
		{Env: testEnv, Agent: "random", Episodes: 0, Out: out},
		{Env: "no-such-env-v1", Agent: "random", Episodes: 1, Out: out},
		{Env: testEnv, Agent: "no-such-agent", Episodes: 1, Out: out},
		{Env: testEnv, Agent: "random", Episodes: 1, Out: out, EnvParams: map[string]any{"max_turns": "x"}},
		{Env: testEnv, Agent: "random", Episodes: 1, Out: out, ObsEncoding: "gzip"},
		{Env: testEnv, Agent: "random", Episodes: 1},
	} {
		if _, err := Generate(ctx, cfg); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "datasets: ") {
			t.Errorf("Generate(%+v) = %v, want a *ConfigError", cfg, err)
		}
	}
	if _, err := Generate(ctx, Config{Env: "no-such-env-v1", Agent: "random", Episodes: 1, Out: out}); !errors.Is(err, env.ErrUnknownEnv) {
		t.Errorf("unknown env: %v does not wrap env.ErrUnknownEnv", err)
	}
	if _, err := Bench(ctx, Config{Env: testEnv, Agent: "no-such-agent", Episodes: 1}); !errors.Is(err, agents.ErrUnknownAgent) {
		t.Errorf("unknown agent: %v does not wrap agents.ErrUnknownAgent", err)
	}
}

// TestDeterministic checks that the files do not depend on the number of
// workers, and that the parts' size changes the files but not the rows.
func TestDeterministic(t *testing.T) {
	smallGroups(t)
	dir1, dir2, dir3 := t.TempDir(), t.TempDir(), t.TempDir()
	cfg := smallConfig(dir1)
	cfg.Workers = 1
	generate(t, cfg)
	cfg.Out, cfg.Workers = dir2, 3
	generate(t, cfg)
	sameTree(t, "workers 1 vs 3", readTree(t, dir1), readTree(t, dir2))

	cfg.Out, cfg.EpisodesPerPart = dir3, 64
	generate(t, cfg)
	a, b := allSteps(t, dir1), allSteps(t, dir3)
	if len(a) != len(b) {
		t.Fatalf("parts of 100 vs 64: %d rows vs %d", len(a), len(b))
	}
	for i := range a {
		if !equalStep(&a[i], &b[i]) {
			t.Fatalf("parts of 100 vs 64: row %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
	ea, eb := allEpisodes(t, dir1), allEpisodes(t, dir3)
	for i := range ea {
		if ea[i].Seed != eb[i].Seed || ea[i].Info != eb[i].Info || ea[i].Length != eb[i].Length {
			t.Fatalf("parts of 100 vs 64: episode %d differs", i)
		}
	}
}

func allSteps(t testing.TB, dir string) []Step {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Step
	for s, err := range d.Steps() {
		if err != nil {
			t.Fatal(err)
		}
		c := *s
		c.Obs = bytes.Clone(s.Obs)
		c.ActionMask = bytes.Clone(s.ActionMask)
		c.Rewards = slices.Clone(s.Rewards)
		c.SearchPolicy = slices.Clone(s.SearchPolicy)
		rows = append(rows, c)
	}
	return rows
}

func allEpisodes(t testing.TB, dir string) []*Episode {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var eps []*Episode
	for e, err := range d.Episodes() {
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, e)
	}
	return eps
}

func equalStep(a, b *Step) bool {
	return a.EpisodeID == b.EpisodeID && a.Step == b.Step && a.Player == b.Player &&
		bytes.Equal(a.Obs, b.Obs) && bytes.Equal(a.ActionMask, b.ActionMask) && a.Action == b.Action &&
		a.Reward == b.Reward && slices.Equal(a.Rewards, b.Rewards) &&
		a.Terminated == b.Terminated && a.Truncated == b.Truncated
}

// TestResume interrupts a run after its first part, then runs the same
// command again: the result is byte-identical to an uninterrupted run.
func TestResume(t *testing.T) {
	smallGroups(t)
	ref, dir := t.TempDir(), t.TempDir()
	cfg := smallConfig(ref)
	generate(t, cfg)
	want := readTree(t, ref)

	ctx, cancel := context.WithCancel(context.Background())
	cfg.Out, cfg.Workers = dir, 1
	cfg.Progress = func(p Progress) {
		if p.PartsDone >= 1 {
			cancel()
		}
	}
	_, err := Generate(ctx, cfg)
	var ie *InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) || !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted Generate = %v, want an *InterruptedError wrapping context.Canceled", err)
	}
	if ie.PartsDone != 1 || ie.PartsTotal != 3 {
		t.Errorf("interrupted: %d of %d parts done, want 1 of 3", ie.PartsDone, ie.PartsTotal)
	}
	got := readTree(t, dir)
	if _, ok := got[ManifestFile]; ok {
		t.Error("an interrupted run wrote manifest.json")
	}
	for name := range got {
		if strings.HasPrefix(name, ChecksumsDir+"/") {
			continue // the finished part's record
		}
		if strings.HasSuffix(name, ".tmp") {
			t.Errorf("an interrupted run left %s", name)
		}
		if want[name] == nil || !bytes.Equal(got[name], want[name]) {
			t.Errorf("an interrupted run left %s, which is not the finished file", name)
		}
	}
	// A crash (no cleanup at all) leaves temporary files: they are ignored.
	os.WriteFile(filepath.Join(dir, StepsDir, tmpName(1)), []byte("PAR1 truncated"), 0o644)
	os.WriteFile(filepath.Join(dir, EpisodesDir, tmpName(2)), nil, 0o644)

	cfg.Progress = nil
	res, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.PartsKept != 1 || res.PartsWritten != 2 || res.Episodes != 200 {
		t.Errorf("resumed: kept %d, wrote %d parts, played %d episodes; want 1, 2, 200",
			res.PartsKept, res.PartsWritten, res.Episodes)
	}
	sameTree(t, "resumed vs uninterrupted", want, readTree(t, dir))

	// Once more: everything is kept, nothing changes.
	res = generate(t, cfg)
	if res.PartsKept != 3 || res.Episodes != 0 {
		t.Errorf("third run: kept %d parts, played %d episodes; want 3, 0", res.PartsKept, res.Episodes)
	}
	sameTree(t, "complete rerun", want, readTree(t, dir))

	// A part whose file was damaged is written again.
	os.WriteFile(filepath.Join(dir, StepsDir, partName(2)), []byte("PAR1garbagePAR1"), 0o644)
	res = generate(t, cfg)
	if res.PartsKept != 2 || res.PartsWritten != 1 {
		t.Errorf("damaged part: kept %d, wrote %d; want 2, 1", res.PartsKept, res.PartsWritten)
	}
	sameTree(t, "repaired", want, readTree(t, dir))

	// More episodes extend the dataset: the last part changes range.
	cfg.Episodes = 350
	res = generate(t, cfg)
	if res.PartsKept != 3 || res.PartsWritten != 1 {
		t.Errorf("extended: kept %d, wrote %d; want 3, 1", res.PartsKept, res.PartsWritten)
	}
	if d, err := Open(dir); err != nil || d.Manifest.TotalEpisodes != 350 || d.Verify() != nil {
		t.Errorf("extended dataset: %v", err)
	}
}

func TestResumeRefusesOtherParameters(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	cfg.Episodes = 150
	generate(t, cfg)
	before := readTree(t, dir)
	for field, change := range map[string]func(*Config){
		"seed":              func(c *Config) { c.Seed++ },
		"agent_options":     func(c *Config) { c.AgentOptions = agents.Options{"x": "1"} },
		"episodes_per_part": func(c *Config) { c.EpisodesPerPart = 50 },
		"env_params":        func(c *Config) { c.EnvParams = map[string]any{"max_turns": "100"} },
		"obs_encoding":      func(c *Config) { c.ObsEncoding = ObsSplit },
		"zstd_level":        func(c *Config) { c.ZstdLevel = ZstdDefault },
		"dataset_id":        func(c *Config) { c.DatasetID = "other" },
		"episodes":          func(c *Config) { c.Episodes = 50 },
	} {
		c := smallConfig(dir)
		c.Episodes = 150
		change(&c)
		_, err := Generate(context.Background(), c)
		var me *MismatchError
		if !errors.As(err, &me) || !errors.Is(err, ErrMismatch) || me.Field != field {
			t.Errorf("%s changed: Generate = %v, want a *MismatchError on %s", field, err, field)
		}
	}
	// Without the manifest (an interrupted run), the parts' footers refuse.
	os.Remove(filepath.Join(dir, ManifestFile))
	c := smallConfig(dir)
	c.Episodes, c.Seed = 150, 99
	var me *MismatchError
	if _, err := Generate(context.Background(), c); !errors.As(err, &me) || me.Field != "seed" {
		t.Errorf("seed changed, no manifest: Generate = %v, want a *MismatchError on seed", err)
	}
	after := readTree(t, dir)
	delete(before, ManifestFile)
	sameTree(t, "refused runs", before, after)
}

// failFS is the OS file system with a disk that fills up after limit bytes.
type failFS struct {
	osFS
	limit int64
}

type failFile struct {
	*os.File
	fs *failFS
}

func (f *failFS) Create(name string) (writableFile, error) {
	file, err := osFS{}.Create(name)
	if err != nil {
		return nil, err
	}
	return &failFile{file.(*os.File), f}, nil
}

func (f *failFile) Write(p []byte) (int, error) {
	if int64(len(p)) > f.fs.limit {
		n, _ := f.File.Write(p[:f.fs.limit])
		f.fs.limit = 0
		return n, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	f.fs.limit -= int64(len(p))
	return f.File.Write(p)
}

// TestFullDisk fills the disk (an injected ENOSPC) at several points of a
// run: the error names the file, only whole parts are left, and once
// there is room again the same command resumes to a dataset
// byte-identical to an uninterrupted run. (A real tiny tmpfs would need
// mount privileges, which neither CI nor a developer's test run has: the
// failing writer stands in for it, at the same place the OS error would
// surface.)
func TestFullDisk(t *testing.T) {
	smallGroups(t)
	ref := t.TempDir()
	refCfg := smallConfig(ref)
	refCfg.Workers = 1
	generate(t, refCfg)
	want := readTree(t, ref)
	var total int64
	for _, b := range want {
		total += int64(len(b))
	}
	for _, limit := range []int64{0, 3, 20000, 60000, total * 2 / 3, total - 100} {
		dir := t.TempDir()
		cfg := smallConfig(dir)
		cfg.Workers = 1
		cfg.fs = &failFS{limit: limit}
		_, err := Generate(context.Background(), cfg)
		var we *WriteError
		if !errors.As(err, &we) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("limit %d: Generate = %v, want a *WriteError wrapping ENOSPC", limit, err)
		}
		t.Logf("limit %d: %v", limit, err)
		final := filepath.Join(dir, StepsDir, partName(0))
		if want := "datasets: write " + final + ": no space left on device"; limit == 20000 && err.Error() != want {
			t.Errorf("limit %d: error %q, want %q", limit, err, want)
		}
		if !strings.HasPrefix(err.Error(), "datasets: write "+dir) || !strings.Contains(err.Error(), "part-0000") && !strings.Contains(err.Error(), ManifestFile) {
			t.Errorf("limit %d: error %q does not name the file", limit, err)
		}
		// Whatever is left under a final name is a complete part.
		for name := range readTree(t, dir) {
			if strings.HasPrefix(name, ChecksumsDir+"/") {
				continue // finished parts' records
			}
			if strings.HasSuffix(name, ".tmp") || name == ManifestFile {
				t.Errorf("limit %d: a failed run left %s", limit, name)
			} else if _, _, err := ReadFooter(filepath.Join(dir, name)); err != nil {
				t.Errorf("limit %d: a failed run left %s: %v", limit, name, err)
			}
		}
		// Room again: the same command finishes the dataset.
		cfg.fs = nil
		generate(t, cfg)
		sameTree(t, fmt.Sprintf("limit %d, resumed vs uninterrupted", limit), want, readTree(t, dir))
	}
}

// TestBenchMatchesGenerate checks that Bench plays the same episodes.
func TestBenchMatchesGenerate(t *testing.T) {
	cfg := smallConfig(t.TempDir())
	gen := generate(t, cfg)
	for _, observe := range []bool{false, true} {
		cfg.Observe = observe
		b, err := Bench(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if b.Steps != gen.Steps || b.Episodes != gen.Episodes {
			t.Errorf("Bench: %d steps, %d episodes; Generate: %d, %d", b.Steps, b.Episodes, gen.Steps, gen.Episodes)
		}
	}
}

func TestManifest(t *testing.T) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	cfg.Author = "tester"
	res := generate(t, cfg)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Verify(); err != nil {
		t.Fatal(err)
	}
	m := d.Manifest
	if m.TotalEpisodes != 300 || m.TotalSteps != res.Steps || len(m.Parts) != 3 || m.Author != "tester" ||
		m.DatasetID != "galaxygym/galaxy-express-v1/random-v2" || m.Seed != 7 || m.EpisodesPerPart != 100 ||
		m.ObservationSpace.Shape[0] != 503 || m.ActionSpace.N != 56 || m.AlgorithmName != "random" ||
		m.CreatedBy != cfg.CanonicalCommand() || m.ObsEncoding != "PLAIN" {
		t.Errorf("manifest: %+v", m)
	}
	var bytes int64
	for i, p := range m.Parts {
		if p.Index != i || p.EpisodeStart != int64(i*100) || p.EpisodeEnd != int64(i*100+100) ||
			p.Steps.Rows != p.NumSteps+100 || p.Episodes.Rows != 100 {
			t.Errorf("part %d: %+v", i, p)
		}
		bytes += p.Steps.Bytes + p.Episodes.Bytes
	}
	if bytes != res.Bytes {
		t.Errorf("Result.Bytes %d, parts %d", res.Bytes, bytes)
	}
	var n int64
	for _, c := range m.Stats.Outcomes {
		n += c
	}
	if n != 300 || m.Stats.LengthMin > m.Stats.LengthMax || len(m.Stats.ReturnMean) != 1 {
		t.Errorf("stats: %+v", m.Stats)
	}
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrNoManifest) {
		t.Errorf("Open(empty dir) = %v, want ErrNoManifest", err)
	}
}

// TestBenchWorkUnit checks that a small benchmark is cut into enough work
// units for every worker, and a large one into DefaultBenchChunk units.
func TestBenchWorkUnit(t *testing.T) {
	for _, c := range []struct {
		episodes int64
		workers  int
		want     int
	}{{1000, 2, 125}, {2000, 2, 250}, {1_000_000, 2, DefaultBenchChunk}, {3, 2, 1}, {100, 1, 25}} {
		cfg := Config{Episodes: c.episodes, Workers: c.workers}
		if got := cfg.partSize(true); got != c.want {
			t.Errorf("%d episodes on %d workers: work unit %d, want %d", c.episodes, c.workers, got, c.want)
		}
		if got := cfg.partSize(false); got != DefaultEpisodesPerPart {
			t.Errorf("generate's part size %d, want %d", got, DefaultEpisodesPerPart)
		}
	}
}

// flipMiddle flips one bit in the middle of a file, leaving its Parquet
// footer intact.
func flipMiddle(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFooter(path); err != nil {
		t.Fatalf("the flip broke the footer: %v", err)
	}
}

// TestResumeRegeneratesCorruptedPart: a part with one byte flipped
// mid-file (footer intact) is made again on resume, not kept with the
// manifest rewritten to the corrupted file's sha256.
func TestResumeRegeneratesCorruptedPart(t *testing.T) {
	smallGroups(t)
	ref := t.TempDir()
	generate(t, smallConfig(ref))
	want := readTree(t, ref)

	// A finished dataset: the manifest is the record.
	dir := t.TempDir()
	cfg := smallConfig(dir)
	generate(t, cfg)
	for _, sub := range []string{StepsDir, EpisodesDir} {
		flipMiddle(t, filepath.Join(dir, sub, partName(1)))
		res := generate(t, cfg)
		if res.PartsKept != 2 || res.PartsWritten != 1 {
			t.Errorf("%s of part 1 flipped: kept %d, wrote %d parts; want 2, 1", sub, res.PartsKept, res.PartsWritten)
		}
		sameTree(t, sub+" flipped, resumed vs uninterrupted", want, readTree(t, dir))
		d, err := Open(dir)
		if err != nil || d.Verify() != nil {
			t.Fatalf("resumed dataset does not verify: %v", err)
		}
	}

	// An interrupted run: the .checksums records are the record.
	dir = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cfg = smallConfig(dir)
	cfg.Workers = 1
	cfg.Progress = func(p Progress) {
		if p.PartsDone >= 2 {
			cancel()
		}
	}
	if _, err := Generate(ctx, cfg); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted Generate = %v", err)
	}
	cfg.Progress = nil
	flipMiddle(t, filepath.Join(dir, StepsDir, partName(0)))
	os.Remove(checksumPath(dir, 1)) // a part without a record is written again too
	res := generate(t, cfg)
	if res.PartsKept != 0 || res.PartsWritten != 3 {
		t.Errorf("interrupted, part 0 flipped, part 1 unrecorded: kept %d, wrote %d; want 0, 3", res.PartsKept, res.PartsWritten)
	}
	sameTree(t, "interrupted, flipped, resumed vs uninterrupted", want, readTree(t, dir))
}
