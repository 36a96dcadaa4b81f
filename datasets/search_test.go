package datasets

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// searchConfig is a small dataset of the mcts agent with the search
// columns, over several parts, row groups and search_policy pages.
func searchConfig(out string) Config {
	return Config{Env: testEnv, Agent: "mcts", AgentOptions: map[string]string{"sims": "8"}, Episodes: 40,
		EpisodesPerPart: 15, Workers: 2, Seed: 5, RecordSearch: true, Out: out}
}

// TestRecordSearch (issue 35): generate --record-search writes, at every
// decision, the visit fractions of the search (a distribution on the legal
// mask) and its root value, the same for stored and compact datasets and
// whatever the workers; the moves are those of a run without the columns;
// the final rows hold zeros and NaN.
func TestRecordSearch(t *testing.T) {
	smallGroups(t)
	root := t.TempDir()
	cfg := searchConfig(filepath.Join(root, "a"))
	res := generate(t, cfg)
	if res.Manifest.Search != SearchVisits || !strings.Contains(res.Manifest.CreatedBy, "--record-search") {
		t.Fatalf("manifest search %q, created_by %q", res.Manifest.Search, res.Manifest.CreatedBy)
	}
	one := cfg
	one.Out, one.Workers = filepath.Join(root, "b"), 1
	generate(t, one)
	sameTree(t, "1 vs 2 workers", readTree(t, cfg.Out), readTree(t, one.Out))

	plain := cfg
	plain.Out, plain.RecordSearch = filepath.Join(root, "plain"), false
	generate(t, plain)
	compact := cfg
	compact.Out, compact.Observations = filepath.Join(root, "compact"), ObsNone
	generate(t, compact)

	rows, plainRows, compactRows := allSteps(t, cfg.Out), allSteps(t, plain.Out), allSteps(t, compact.Out)
	if len(rows) != len(plainRows) || len(rows) != len(compactRows) {
		t.Fatalf("%d rows, %d without the search columns, %d compact", len(rows), len(plainRows), len(compactRows))
	}
	searched := 0
	for i, s := range rows {
		if !equalStep(&s, &plainRows[i]) || len(plainRows[i].SearchPolicy) != 0 {
			t.Fatalf("row %d: %+v with the search columns, %+v without", i, s, plainRows[i])
		}
		c := compactRows[i]
		if !equalFloats(c.SearchPolicy, s.SearchPolicy) || !equalFloats([]float32{c.SearchValue}, []float32{s.SearchValue}) {
			t.Fatalf("row %d: compact search %v %v, stored %v %v", i, c.SearchPolicy, c.SearchValue, s.SearchPolicy, s.SearchValue)
		}
		if len(s.SearchPolicy) != len(s.ActionMask) {
			t.Fatalf("row %d: search_policy of %d, %d actions", i, len(s.SearchPolicy), len(s.ActionMask))
		}
		nan := math.IsNaN(float64(s.SearchValue))
		if s.Action < 0 {
			if !nan || !equalFloats(s.SearchPolicy, make([]float32, len(s.SearchPolicy))) {
				t.Fatalf("final row %d: search %v %v, want zeros and NaN", i, s.SearchPolicy, s.SearchValue)
			}
			continue
		}
		sum, nonzero := 0.0, 0
		for a, p := range s.SearchPolicy {
			if p < 0 || (p > 0 && s.ActionMask[a] == 0) {
				t.Fatalf("row %d: search_policy[%d] = %v, legal %d", i, a, p, s.ActionMask[a])
			}
			if p > 0 {
				nonzero++
			}
			sum += float64(p)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("row %d: search_policy sums to %v", i, sum)
		}
		if nan {
			if nonzero != 1 || s.SearchPolicy[s.Action] != 1 {
				t.Fatalf("row %d unsearched: search_policy %v, action %d", i, s.SearchPolicy, s.Action)
			}
			continue
		}
		searched++
		// A return from the decision on: Galaxy Express's are within [0, 200].
		if s.SearchValue < 0 || s.SearchValue > 200 {
			t.Fatalf("row %d: search_value %v", i, s.SearchValue)
		}
	}
	if searched < len(rows)/4 {
		t.Fatalf("%d of %d rows searched", searched, len(rows))
	}
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestRecordSearchResumeAndRefusals: an interrupted run with the search
// columns resumes to the same bytes; a directory written without them is
// refused, as are RecordSearch without an mcts seat, in Bench, and the
// materialization of such a dataset.
func TestRecordSearchResumeAndRefusals(t *testing.T) {
	smallGroups(t)
	root := t.TempDir()
	cfg := searchConfig(filepath.Join(root, "a"))
	cfg.Episodes = 20
	generate(t, cfg)
	want := readTree(t, cfg.Out)
	// Lose the manifest and a part, as a kill would leave the run.
	for _, f := range []string{ManifestFile, "steps/part-00001.parquet", "episodes/part-00001.parquet"} {
		if err := os.Remove(filepath.Join(cfg.Out, f)); err != nil {
			t.Fatal(err)
		}
	}
	res := generate(t, cfg)
	if res.PartsWritten == 0 {
		t.Fatalf("resume wrote no part")
	}
	sameTree(t, "resumed", want, readTree(t, cfg.Out))

	other := cfg
	other.RecordSearch = false
	var me *MismatchError
	if _, err := Generate(context.Background(), other); !errors.As(err, &me) || me.Field != "search" {
		t.Fatalf("resume without RecordSearch: %v, want a *MismatchError on search", err)
	}
	heur := cfg
	heur.Agent, heur.AgentOptions, heur.Out = "heuristic", nil, filepath.Join(root, "h")
	var ce *ConfigError
	if _, err := Generate(context.Background(), heur); !errors.As(err, &ce) || ce.Field != "RecordSearch" {
		t.Fatalf("RecordSearch with the heuristic: %v, want a *ConfigError", err)
	}
	if _, err := Bench(context.Background(), cfg); !errors.As(err, &ce) || ce.Field != "RecordSearch" {
		t.Fatalf("Bench with RecordSearch: %v, want a *ConfigError", err)
	}
	compact := cfg
	compact.Out, compact.Observations = filepath.Join(root, "c"), ObsNone
	generate(t, compact)
	_, err := Materialize(context.Background(), MaterializeConfig{In: compact.Out, Out: filepath.Join(root, "m")})
	if !errors.As(err, &ce) {
		t.Fatalf("Materialize of a dataset with the search columns: %v, want a *ConfigError", err)
	}
}

// TestRecordSearchShardsMerge: a run with the search columns split in
// shards and merged is the run on one machine, byte for byte, and apache
// arrow-go reads the search columns as parquet-go does.
func TestRecordSearchShardsMerge(t *testing.T) {
	smallGroups(t)
	root := t.TempDir()
	one := searchConfig(filepath.Join(root, "one"))
	one.Episodes, one.EpisodesPerPart = 30, 10
	generate(t, one)
	want := readTree(t, one.Out)
	sharded := filepath.Join(root, "sharded")
	for shard := range 3 {
		cfg := one
		cfg.Out, cfg.Shard, cfg.Shards = sharded, shard, 3
		generate(t, cfg)
	}
	if _, err := Merge(context.Background(), sharded); err != nil {
		t.Fatalf("Merge: %v", err)
	}
	sameTree(t, "merged shards vs one run", want, readTree(t, sharded))

	rows := allSteps(t, one.Out)
	d, err := Open(one.Out)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, p := range d.Manifest.Parts {
		tbl, kv := arrowFile(t, filepath.Join(one.Out, p.Steps.Path))
		if kv[KeySearch] != SearchVisits {
			t.Fatalf("footer search %q", kv[KeySearch])
		}
		pols := column[*array.List](t, tbl, ColSearchPolicy)
		vals := column[*array.Float32](t, tbl, ColSearchValue)
		for c := range pols {
			flat := pols[c].ListValues().(*array.Float32).Float32Values()
			for j := 0; j < pols[c].Len(); j++ {
				lo, hi := pols[c].ValueOffsets(j)
				w := rows[i]
				if !equalFloats(flat[lo:hi], w.SearchPolicy) ||
					math.Float32bits(vals[c].Value(j)) != math.Float32bits(w.SearchValue) {
					t.Fatalf("row %d: arrow-go %v %v, parquet-go %v %v", i, flat[lo:hi], vals[c].Value(j), w.SearchPolicy, w.SearchValue)
				}
				i++
			}
		}
	}
	if i != len(rows) {
		t.Fatalf("arrow-go read %d rows, parquet-go %d", i, len(rows))
	}
}

// TestRecordSearchFollow: a decision where mcts played its policy's move
// instead of the search's (option follow) is recorded as unsearched (1 on
// the move, NaN value), so that the search columns always describe the
// search that chose the move played: follow=1 leaves no searched row,
// follow=0.5 about half of follow=0's.
func TestRecordSearchFollow(t *testing.T) {
	w, err := filepath.Abs(filepath.Join("..", "notebooks", "weights", "galaxy-express-v1-bc.npz"))
	if err != nil {
		t.Fatal(err)
	}
	searched := map[string]int{}
	for _, follow := range []string{"0", "0.5", "1"} {
		cfg := Config{Env: "galaxy-express-v1", Agent: "mcts", Episodes: 6, Workers: 2, Seed: 5, RecordSearch: true,
			AgentOptions: map[string]string{"sims": "8", "search": "halving", "prior": "rollout", "weights": w,
				"follow": follow},
			Out: filepath.Join(t.TempDir(), "f"+follow)}
		generate(t, cfg)
		for _, s := range allSteps(t, cfg.Out) {
			if s.Action < 0 {
				continue
			}
			if !math.IsNaN(float64(s.SearchValue)) {
				searched[follow]++
			} else if s.SearchPolicy[s.Action] != 1 {
				t.Fatalf("follow=%s: an unsearched row's policy %v, want 1 on its action %d", follow, s.SearchPolicy, s.Action)
			}
		}
	}
	t.Logf("searched rows by follow: %v", searched)
	if searched["1"] != 0 || searched["0"] < 50 || searched["0.5"] <= searched["0"]/5 || searched["0.5"] >= searched["0"]*4/5 {
		t.Errorf("searched rows by follow: %v; want none at 1 and about half of follow=0's at 0.5", searched)
	}
}
