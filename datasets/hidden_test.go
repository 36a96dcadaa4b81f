package datasets

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest/trio"
)

// TestDeriveHidden: with Hidden every row holds its player's hidden part
// (env.HiddenObserver) at the position of the row, for a compact and a
// full dataset alike, with any number of workers, through Rows and Out;
// the masks are the dataset's.
func TestDeriveHidden(t *testing.T) {
	compact, full := derivePair(t)
	steps := allSteps(t, full)
	d, err := Open(full)
	if err != nil {
		t.Fatal(err)
	}
	// The reference: every row's hidden part, replayed here from the seeds
	// and the actions.
	e, err := env.Make(testEnv, d.Manifest.EnvParams)
	if err != nil {
		t.Fatal(err)
	}
	h := e.HiddenSize()
	want := make([]byte, 0, len(steps)*h)
	buf := make([]byte, h)
	for _, s := range steps {
		if s.Step == 0 {
			seed, _ := EpisodeSeeds(d.Manifest.Seed, s.EpisodeID)
			e.Reset(seed)
		}
		if err := e.ObserveHidden(s.Player, buf); err != nil {
			t.Fatal(err)
		}
		want = append(want, buf...)
		if s.Action >= 0 {
			if _, err := e.Step(s.Action); err != nil {
				t.Fatal(err)
			}
		}
	}
	if bytes.Count(want, []byte{0}) == len(want) {
		t.Fatal("every hidden byte is 0: the reference tests nothing")
	}
	for _, in := range []string{compact, full} {
		for _, workers := range []int{1, 3} {
			m := &memRows{}
			if err := DeriveTo(context.Background(), DeriveConfig{In: in, Workers: workers, Hidden: true, Rows: m}); err != nil {
				t.Fatal(err)
			}
			if m.obsSize != h || m.rows != int64(len(steps)) {
				t.Fatalf("%s: layout %d rows of %d bytes, want %d of %d", in, m.rows, m.obsSize, len(steps), h)
			}
			for i, s := range steps {
				if !bytes.Equal(m.obs[i*h:(i+1)*h], want[i*h:(i+1)*h]) || !bytes.Equal(m.masks[i*m.masksW:(i+1)*m.masksW], s.ActionMask) {
					t.Fatalf("%s, %d workers: row %d (episode %d step %d) differs from its position's hidden part", in, workers, i, s.EpisodeID, s.Step)
				}
			}
		}
		var stream bytes.Buffer
		if err := DeriveTo(context.Background(), DeriveConfig{In: in, Workers: 2, Hidden: true, Out: &stream}); err != nil {
			t.Fatal(err)
		}
		spec := *d.Manifest.EnvSpec
		spec.ObsShape = []int{h}
		got, _ := readDeriveStream(t, &stream, &spec)
		for i := range steps {
			if !bytes.Equal(got[i], want[i*h:(i+1)*h]) {
				t.Fatalf("%s: streamed row %d differs", in, i)
			}
		}
	}
	layout, high, err := HiddenLayout(context.Background(), compact)
	if err != nil || layout.Check(h) != nil || len(high) != h {
		t.Fatalf("HiddenLayout: %v, %d bounds", err, len(high))
	}
}

// TestDeriveHiddenRefused: Hidden with NoObs, and a game without a hidden
// part, are configuration errors; a full dataset without Hidden is still
// refused.
func TestDeriveHiddenRefused(t *testing.T) {
	compact, full := derivePair(t)
	var ce *ConfigError
	var out bytes.Buffer
	if err := DeriveTo(context.Background(), DeriveConfig{In: compact, Hidden: true, NoObs: true, Out: &out}); !errors.As(err, &ce) || ce.Field != "Hidden" {
		t.Errorf("Hidden with NoObs: %v, want a *ConfigError on Hidden", err)
	}
	if err := DeriveTo(context.Background(), DeriveConfig{In: full, Out: &out}); !errors.As(err, &ce) {
		t.Errorf("a full dataset without Hidden: %v, want a *ConfigError", err)
	}
	// Trio is a game of perfect information: only the generator's future
	// draws are unknown, so it declares no hidden part.
	dir := filepath.Join(t.TempDir(), "trio")
	generate(t, Config{Env: trio.ID, Agent: "random", Episodes: 3, Workers: 1, Seed: 1, Out: dir})
	if err := DeriveTo(context.Background(), DeriveConfig{In: dir, Hidden: true, Out: &out}); !errors.As(err, &ce) || ce.Field != "Hidden" {
		t.Errorf("a game without a hidden part: %v, want a *ConfigError on Hidden", err)
	}
	if _, _, err := HiddenLayout(context.Background(), dir); !errors.As(err, &ce) {
		t.Errorf("HiddenLayout of a game without one: %v", err)
	}
}
