package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// tinyDataset generates a 2-episode dataset of 3-turn games into dir.
func tinyDataset(tb testing.TB, dir string) {
	tb.Helper()
	cfg := Config{Env: testEnv, Agent: "random", Episodes: 2, EpisodesPerPart: 2, Workers: 1, Seed: 1, Out: dir,
		EnvParams: map[string]any{"max_turns": 3}}
	if _, err := Generate(context.Background(), cfg); err != nil {
		tb.Fatal(err)
	}
}

// FuzzReadPart feeds arbitrary bytes to the dataset readers as a part file:
// the steps reader, the episodes reader and the footer reader (which one:
// kind % 3). Seeds: the two files of a tiny generated dataset. Every
// failure must be a *FormatError, never a panic.
func FuzzReadPart(f *testing.F) {
	dir := f.TempDir()
	tinyDataset(f, dir)
	for k, sub := range []string{StepsDir, EpisodesDir} {
		data, err := os.ReadFile(filepath.Join(dir, sub, partName(0)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(k), data)
		f.Add(uint8(2), data)
	}
	tmp := f.TempDir() // one per fuzzing process
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		path := filepath.Join(tmp, "part.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		check := func(err error) {
			var fe *FormatError
			if err != nil && !errors.As(err, &fe) {
				t.Fatalf("error %T %v is not a *FormatError", err, err)
			}
		}
		switch kind % 3 {
		case 0:
			for s, err := range ReadStepsFile(path) {
				check(err)
				if err == nil && (len(s.Rewards) == 0 || s.Step < 0) {
					t.Fatalf("step row %+v", s)
				}
			}
		case 1:
			check(readEpisodesFile(osFS{}, path, func(*episodeRow) error { return nil }))
		case 2:
			_, _, err := ReadFooter(path)
			check(err)
		}
	})
}

// FuzzReadManifest feeds arbitrary manifest.json bytes to Open and, when
// they parse, checks the parts with Verify against a real dataset's files:
// errors are typed, never a panic.
func FuzzReadManifest(f *testing.F) {
	dir := f.TempDir()
	tinyDataset(f, dir)
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"schema_version":1,"parts":[{"index":0,"steps":{"path":"../../etc/passwd"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Open(dir)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Open: error %T %v is not a *FormatError", err, err)
			}
			return
		}
		if err := d.Verify(); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Verify: error %T %v is not a *FormatError", err, err)
			}
		}
	})
}
