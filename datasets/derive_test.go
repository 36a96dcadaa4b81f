package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// memRows is a RowWriter into two byte slices, as the Python reader's
// arrays; it records every range it gets.
type memRows struct {
	mu              sync.Mutex
	obs, masks      []byte
	obsSize, masksW int
	rows            int64
	written         []bool
	layoutErr       error
	calls           int
}

func (m *memRows) Layout(rows int64, obsSize, numActions int) error {
	if m.layoutErr != nil {
		return m.layoutErr
	}
	m.obs, m.masks = make([]byte, rows*int64(obsSize)), make([]byte, rows*int64(numActions))
	m.obsSize, m.masksW, m.rows, m.written = obsSize, numActions, rows, make([]bool, rows)
	return nil
}

func (m *memRows) WriteRows(row int64, obs, masks []byte) error {
	n := int64(len(masks) / m.masksW)
	if len(obs) != int(n)*m.obsSize || row < 0 || row+n > m.rows {
		return fmt.Errorf("bad range %d+%d (%d obs bytes)", row, n, len(obs))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	for r := row; r < row+n; r++ {
		if m.written[r] {
			return fmt.Errorf("row %d written twice", r)
		}
		m.written[r] = true
	}
	copy(m.obs[row*int64(m.obsSize):], obs)
	copy(m.masks[row*int64(m.masksW):], masks)
	return nil
}

// derivePair generates the same episodes compact and full, in three parts.
func derivePair(t *testing.T) (compact, full string) {
	t.Helper()
	root := t.TempDir()
	cfg := Config{Env: testEnv, Agent: "heuristic", Episodes: 120, EpisodesPerPart: 50, Workers: 1, Seed: 5,
		Observations: ObsNone, Out: filepath.Join(root, "compact")}
	generate(t, cfg)
	cfg.Observations, cfg.Out = "", filepath.Join(root, "full")
	generate(t, cfg)
	return filepath.Join(root, "compact"), cfg.Out
}

// TestDeriveRowsEveryWorkerCount: the parts are split into runs of
// episodes replayed in parallel; with Rows every row is written once, at
// its offset, and with any number of workers the arrays are the full
// dataset's, as the stream's are; NoObs gives the same masks.
func TestDeriveRowsEveryWorkerCount(t *testing.T) {
	compact, full := derivePair(t)
	steps := allSteps(t, full)
	for _, workers := range []int{1, 2, 3, 7} {
		for _, noObs := range []bool{false, true} {
			t.Run(fmt.Sprintf("workers=%d noObs=%v", workers, noObs), func(t *testing.T) {
				m := &memRows{}
				if err := DeriveTo(context.Background(), DeriveConfig{In: compact, Workers: workers, NoObs: noObs, Rows: m}); err != nil {
					t.Fatal(err)
				}
				if m.rows != int64(len(steps)) || (noObs && m.obsSize != 0) {
					t.Fatalf("layout %d rows of %d obs bytes, want %d rows", m.rows, m.obsSize, len(steps))
				}
				if workers > 1 && m.calls < 2*workers {
					t.Errorf("%d ranges written by %d workers: the parts were not split", m.calls, workers)
				}
				for i, s := range steps {
					if !m.written[i] {
						t.Fatalf("row %d not written", i)
					}
					if !bytes.Equal(m.masks[i*m.masksW:(i+1)*m.masksW], s.ActionMask) ||
						(!noObs && !bytes.Equal(m.obs[i*m.obsSize:(i+1)*m.obsSize], s.Obs)) {
						t.Fatalf("row %d differs from the full dataset's", i)
					}
				}
				var stream bytes.Buffer
				if err := DeriveTo(context.Background(), DeriveConfig{In: compact, Workers: workers, NoObs: noObs, Out: &stream}); err != nil {
					t.Fatal(err)
				}
				d, err := Open(compact)
				if err != nil {
					t.Fatal(err)
				}
				spec := *d.Manifest.EnvSpec
				if noObs {
					spec.ObsShape = []int{0}
				}
				obs, masks := readDeriveStream(t, &stream, &spec)
				if len(masks) != len(steps) {
					t.Fatalf("streamed %d rows, want %d", len(masks), len(steps))
				}
				for i, s := range steps {
					if !bytes.Equal(masks[i], s.ActionMask) || (!noObs && !bytes.Equal(obs[i], s.Obs)) {
						t.Fatalf("streamed row %d differs from the full dataset's", i)
					}
				}
			})
		}
	}
}

// TestDeriveRowGroupsAsRead: a part's chunks are cut as each row group
// of its steps table is read, episodes running on from one row group into
// the next (97 rows a group): every row is written once, equal to the
// full dataset's, with any number of workers.
func TestDeriveRowGroupsAsRead(t *testing.T) {
	rg := stepsRowGroupRows
	stepsRowGroupRows = 97
	t.Cleanup(func() { stepsRowGroupRows = rg })
	compact, full := derivePair(t)
	steps := allSteps(t, full)
	groups := 0
	err := readReplayPartGroups(mustOpen(t, compact), &mustOpen(t, compact).Manifest.Parts[0], func(rp *replayPart, final bool) error {
		groups++
		return nil
	})
	if err != nil || groups < 5 {
		t.Fatalf("the first part was read in %d row groups (%v), want several", groups, err)
	}
	for _, workers := range []int{1, 2, 5} {
		m := &memRows{}
		if err := DeriveTo(context.Background(), DeriveConfig{In: compact, Workers: workers, Rows: m}); err != nil {
			t.Fatal(err)
		}
		if workers > 1 && m.calls < 2*workers {
			t.Errorf("%d ranges written by %d workers: the parts were not split", m.calls, workers)
		}
		for i, s := range steps {
			if !m.written[i] || !bytes.Equal(m.masks[i*m.masksW:(i+1)*m.masksW], s.ActionMask) ||
				!bytes.Equal(m.obs[i*m.obsSize:(i+1)*m.obsSize], s.Obs) {
				t.Fatalf("workers %d: row %d not written or differs from the full dataset's", workers, i)
			}
		}
	}
}

func mustOpen(t *testing.T, dir string) *Dataset {
	t.Helper()
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDeriveFirstDivergenceWins: of two divergences in different runs of
// episodes, the first in row order is reported, whatever the workers and
// the output; a later one alone is reported where it is.
func TestDeriveFirstDivergenceWins(t *testing.T) {
	compact, full := derivePair(t)
	steps := allSteps(t, full)
	d, err := Open(compact)
	if err != nil {
		t.Fatal(err)
	}
	illegalAt := func(row int) int {
		for a, ok := range steps[row].ActionMask {
			if ok == 0 {
				return a
			}
		}
		t.Fatalf("every action legal at row %d", row)
		return -1
	}
	// A step of the last episode of part 0, far from row 2.
	last := int(d.Manifest.Parts[0].Steps.Rows) - 3
	for steps[last].Action < 0 {
		last--
	}
	lateEp, lateStep := steps[last].EpisodeID, steps[last].Step
	late := filepath.Join(t.TempDir(), "late")
	copyDir(t, compact, late)
	rewriteAction(t, late, last, illegalAt(last))
	both := filepath.Join(t.TempDir(), "both")
	copyDir(t, late, both)
	rewriteAction(t, both, 2, illegalAt(2))
	for _, workers := range []int{1, 2, 4} {
		for _, rows := range []bool{false, true} {
			cfg := DeriveConfig{Workers: workers}
			check := func(dir string, ep int64, step int) {
				t.Helper()
				cfg.In, cfg.Out, cfg.Rows = dir, nil, nil
				if rows {
					cfg.Rows = &memRows{}
				} else {
					cfg.Out = &bytes.Buffer{}
				}
				err := DeriveTo(context.Background(), cfg)
				var de *DeriveError
				if !errors.As(err, &de) || de.Field != "action" || de.Episode != ep || de.Step != step {
					t.Fatalf("workers=%d rows=%v: %v, want an illegal action at episode %d step %d", workers, rows, err, ep, step)
				}
			}
			check(both, 0, 2)
			check(late, lateEp, lateStep)
		}
	}
}

// TestDeriveLayoutRefused: a RowWriter whose arrays do not fit refuses the
// derive before any row is written.
func TestDeriveLayoutRefused(t *testing.T) {
	compact, _ := derivePair(t)
	refused := errors.New("arrays of another size")
	m := &memRows{layoutErr: refused}
	if err := DeriveTo(context.Background(), DeriveConfig{In: compact, Rows: m}); !errors.Is(err, refused) || m.calls != 0 {
		t.Fatalf("DeriveTo: %v after %d writes, want the Layout error before any", err, m.calls)
	}
	var ce *ConfigError
	if err := DeriveTo(context.Background(), DeriveConfig{In: compact}); !errors.As(err, &ce) {
		t.Fatalf("DeriveTo without an output: %v, want a *ConfigError", err)
	}
}

// TestReadReplayPartColumns: the column-by-column read of a compact part
// holds what the row reader reads.
func TestReadReplayPartColumns(t *testing.T) {
	compact, _ := derivePair(t)
	d, err := Open(compact)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Manifest.Parts {
		p := &d.Manifest.Parts[i]
		rp, err := readReplayPart(d, p)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for s, err := range ReadStepsFile(filepath.Join(compact, filepath.FromSlash(p.Steps.Path))) {
			if err != nil {
				t.Fatal(err)
			}
			np := rp.numPlayer
			if rp.ep[k] != s.EpisodeID || int(rp.step[k]) != s.Step || int(rp.player[k]) != s.Player || int(rp.action[k]) != s.Action ||
				!slices.Equal(rp.rewards[k*np:(k+1)*np], s.Rewards) || rp.term[k] != s.Terminated || rp.trunc[k] != s.Truncated {
				t.Fatalf("part %d row %d: columns differ from the row reader's %+v", i, k, *s)
			}
			k++
		}
		eps, err := rp.episodesTable()
		if err != nil {
			t.Fatal(err)
		}
		if k != len(rp.ep) || len(eps) != int(p.EpisodeEnd-p.EpisodeStart) || eps[0].EpisodeID != p.EpisodeStart {
			t.Fatalf("part %d: %d rows and %d episodes read, want %d and %d", i, len(rp.ep), len(eps), k, p.EpisodeEnd-p.EpisodeStart)
		}
	}
}

// TestSameEpisodeRowIsDeepEqual: the replay's check of the episodes table
// decides as reflect.DeepEqual, for every field changed and nil slices.
func TestSameEpisodeRowIsDeepEqual(t *testing.T) {
	base := episodeRow{EpisodeID: 3, Seed: -7, Agent: "heuristic", SeatAgents: []string{"a", "b"}, Length: 12,
		Returns: []float64{1, -1}, Outcome: "win", Scores: []float64{3, 2}, Ranks: []int32{1, 2},
		Outcomes: []string{"win", "loss"}, Info: `{"x":1}`}
	clone := func() episodeRow {
		c := base
		c.SeatAgents, c.Returns, c.Scores = slices.Clone(base.SeatAgents), slices.Clone(base.Returns), slices.Clone(base.Scores)
		c.Ranks, c.Outcomes = slices.Clone(base.Ranks), slices.Clone(base.Outcomes)
		return c
	}
	edits := []func(*episodeRow){
		func(*episodeRow) {},
		func(r *episodeRow) { r.EpisodeID++ },
		func(r *episodeRow) { r.Seed++ },
		func(r *episodeRow) { r.Agent = "random" },
		func(r *episodeRow) { r.SeatAgents[1] = "c" },
		func(r *episodeRow) { r.SeatAgents = r.SeatAgents[:1] },
		func(r *episodeRow) { r.Length++ },
		func(r *episodeRow) { r.Returns[0] = 0.5 },
		func(r *episodeRow) { r.Outcome = "draw" },
		func(r *episodeRow) { r.Scores = nil },
		func(r *episodeRow) { r.Ranks = []int32{} },
		func(r *episodeRow) { r.Outcomes[0] = "draw" },
		func(r *episodeRow) { r.Info = "{}" },
	}
	for i, edit := range edits {
		a, b := clone(), clone()
		edit(&b)
		if got, want := sameEpisodeRow(&a, &b), reflect.DeepEqual(&a, &b); got != want || (i == 0) != got {
			t.Errorf("edit %d: sameEpisodeRow %v, reflect.DeepEqual %v", i, got, want)
		}
	}
	a, b := clone(), clone()
	a.Ranks, b.Ranks = nil, []int32{}
	if sameEpisodeRow(&a, &b) != reflect.DeepEqual(&a, &b) {
		t.Error("nil and empty Ranks decided otherwise than reflect.DeepEqual")
	}
}

// TestDeriveEpisodesTableUnreadable: the episodes table is read while the
// episodes are replayed; an unreadable one still fails the derive (and
// materialize) with its *FormatError, for any number of workers.
func TestDeriveEpisodesTableUnreadable(t *testing.T) {
	compact, _ := derivePair(t)
	d, err := Open(compact)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(compact, filepath.FromSlash(d.Manifest.Parts[1].Episodes.Path))
	if err := os.WriteFile(path, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		err := DeriveTo(context.Background(), DeriveConfig{In: compact, Workers: workers, Rows: &memRows{}})
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Path != path {
			t.Fatalf("workers=%d: %v, want a *FormatError on %s", workers, err, path)
		}
	}
	if _, err := Materialize(context.Background(), MaterializeConfig{In: compact, Out: filepath.Join(t.TempDir(), "m"), Workers: 2}); err == nil {
		t.Fatal("Materialize of a dataset with an unreadable episodes table succeeded")
	}
}

// TestReadEpisodeColumns: the column-by-column read of the episodes table
// gives the rows parquet-go's generic reader gives, for every game (mixed
// seats included).
func TestReadEpisodeColumns(t *testing.T) {
	for _, c := range compactCases(t) {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Observations, cfg.Out, cfg.Workers = ObsNone, filepath.Join(t.TempDir(), "c"), 1
			generate(t, cfg)
			d, err := Open(cfg.Out)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range d.Manifest.Parts {
				path := filepath.Join(cfg.Out, filepath.FromSlash(p.Episodes.Path))
				var want []episodeRow
				err := readEpisodesFile(osFS{}, path, func(r *episodeRow) error {
					c := *r
					c.SeatAgents, c.Returns, c.Scores = slices.Clone(r.SeatAgents), slices.Clone(r.Returns), slices.Clone(r.Scores)
					c.Ranks, c.Outcomes = slices.Clone(r.Ranks), slices.Clone(r.Outcomes)
					want = append(want, c)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				got, err := readEpisodeColumns(osFS{}, path)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) || len(got) == 0 {
					t.Fatalf("%d rows, want %d", len(got), len(want))
				}
				for i := range want {
					if !reflect.DeepEqual(got[i], want[i]) || !sameEpisodeRow(&got[i], &want[i]) {
						t.Fatalf("row %d: %+v, want %+v", i, got[i], want[i])
					}
				}
			}
			stepsPath := filepath.Join(cfg.Out, filepath.FromSlash(d.Manifest.Parts[0].Steps.Path))
			var fe *FormatError
			if _, err := readEpisodeColumns(osFS{}, stepsPath); !errors.As(err, &fe) {
				t.Fatalf("a steps file read as episodes: %v, want a *FormatError", err)
			}
		})
	}
}
