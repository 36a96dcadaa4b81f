package datasets

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// arrowFile reads a Parquet file with apache arrow-go, an implementation
// independent of the writer's.
func arrowFile(t *testing.T, path string) (arrow.Table, map[string]string) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("arrow-go cannot open %s: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("arrow-go cannot read %s: %v", path, err)
	}
	kv := map[string]string{}
	md := pf.MetaData().KeyValueMetadata()
	for i, k := range md.Keys() {
		kv[k] = md.Values()[i]
	}
	return tbl, kv
}

// column returns the chunks of the named column cast to A.
func column[A arrow.Array](t *testing.T, tbl arrow.Table, name string) []A {
	t.Helper()
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %q in %v", name, tbl.Schema())
	}
	var out []A
	for _, c := range tbl.Column(idx[0]).Data().Chunks() {
		a, ok := c.(A)
		if !ok {
			t.Fatalf("column %s is %T", name, c)
		}
		out = append(out, a)
	}
	return out
}

// arrowStep is a steps row as arrow-go read it.
type arrowStep struct {
	ep                  int64
	step, player, act   int32
	obs, mask           []byte
	reward              float32
	rewards             []float32
	terminated, trunced bool
}

func arrowSteps(t *testing.T, tbl arrow.Table) []arrowStep {
	rows := make([]arrowStep, tbl.NumRows())
	fill := func(set func(i int, a arrow.Array, j int), chunks []arrow.Array) {
		i := 0
		for _, c := range chunks {
			for j := 0; j < c.Len(); j++ {
				set(i, c, j)
				i++
			}
		}
	}
	asArrays := func(xs any) []arrow.Array {
		var out []arrow.Array
		switch v := xs.(type) {
		case []*array.Int64:
			for _, a := range v {
				out = append(out, a)
			}
		case []*array.Int32:
			for _, a := range v {
				out = append(out, a)
			}
		case []*array.FixedSizeBinary:
			for _, a := range v {
				out = append(out, a)
			}
		case []*array.Float32:
			for _, a := range v {
				out = append(out, a)
			}
		case []*array.List:
			for _, a := range v {
				out = append(out, a)
			}
		case []*array.Boolean:
			for _, a := range v {
				out = append(out, a)
			}
		}
		return out
	}
	fill(func(i int, a arrow.Array, j int) { rows[i].ep = a.(*array.Int64).Value(j) },
		asArrays(column[*array.Int64](t, tbl, ColEpisodeID)))
	fill(func(i int, a arrow.Array, j int) { rows[i].step = a.(*array.Int32).Value(j) },
		asArrays(column[*array.Int32](t, tbl, ColStep)))
	fill(func(i int, a arrow.Array, j int) { rows[i].player = a.(*array.Int32).Value(j) },
		asArrays(column[*array.Int32](t, tbl, ColPlayer)))
	fill(func(i int, a arrow.Array, j int) { rows[i].act = a.(*array.Int32).Value(j) },
		asArrays(column[*array.Int32](t, tbl, ColAction)))
	fill(func(i int, a arrow.Array, j int) { rows[i].obs = bytes.Clone(a.(*array.FixedSizeBinary).Value(j)) },
		asArrays(column[*array.FixedSizeBinary](t, tbl, ColObs)))
	fill(func(i int, a arrow.Array, j int) { rows[i].mask = bytes.Clone(a.(*array.FixedSizeBinary).Value(j)) },
		asArrays(column[*array.FixedSizeBinary](t, tbl, ColActionMask)))
	fill(func(i int, a arrow.Array, j int) { rows[i].reward = a.(*array.Float32).Value(j) },
		asArrays(column[*array.Float32](t, tbl, ColReward)))
	fill(func(i int, a arrow.Array, j int) {
		l := a.(*array.List)
		lo, hi := l.ValueOffsets(j)
		vals := l.ListValues().(*array.Float32)
		for k := lo; k < hi; k++ {
			rows[i].rewards = append(rows[i].rewards, vals.Value(int(k)))
		}
	}, asArrays(column[*array.List](t, tbl, ColRewards)))
	fill(func(i int, a arrow.Array, j int) { rows[i].terminated = a.(*array.Boolean).Value(j) },
		asArrays(column[*array.Boolean](t, tbl, ColTerminated)))
	fill(func(i int, a arrow.Array, j int) { rows[i].trunced = a.(*array.Boolean).Value(j) },
		asArrays(column[*array.Boolean](t, tbl, ColTruncated)))
	return rows
}

// TestArrowReadBack writes a small dataset and reads it back with apache
// arrow-go, checking the schema, the footer, the row counts, and every row
// against a replay of the same seeds through env.Make.
func TestArrowReadBack(t *testing.T) {
	smallGroups(t) // several row groups and obs pages per part
	for _, enc := range []ObsEncoding{ObsSplit, ObsPlain} {
		t.Run(string(enc), func(t *testing.T) { testArrowReadBack(t, enc) })
	}
}

func testArrowReadBack(t *testing.T, enc ObsEncoding) {
	dir := t.TempDir()
	cfg := smallConfig(dir)
	cfg.ObsEncoding = enc
	generate(t, cfg)
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := env.Make(testEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := e.Spec()
	a, _ := agents.New("random", spec, nil)
	obs := make([]byte, spec.ObsSize())
	zeros := make([]byte, spec.NumActions())

	wantSchema := map[string]arrow.DataType{
		ColEpisodeID:  arrow.PrimitiveTypes.Int64,
		ColStep:       arrow.PrimitiveTypes.Int32,
		ColPlayer:     arrow.PrimitiveTypes.Int32,
		ColObs:        &arrow.FixedSizeBinaryType{ByteWidth: spec.ObsSize()},
		ColActionMask: &arrow.FixedSizeBinaryType{ByteWidth: spec.NumActions()},
		ColAction:     arrow.PrimitiveTypes.Int32,
		ColReward:     arrow.PrimitiveTypes.Float32,
		ColTerminated: arrow.FixedWidthTypes.Boolean,
		ColTruncated:  arrow.FixedWidthTypes.Boolean,
	}
	for _, p := range d.Manifest.Parts {
		tbl, kv := arrowFile(t, filepath.Join(dir, p.Steps.Path))
		ep, ekv := arrowFile(t, filepath.Join(dir, p.Episodes.Path))
		if n := tbl.Schema().NumFields(); n != numStepColumns {
			t.Fatalf("steps schema has %d fields: %v", n, tbl.Schema())
		}
		for i, name := range []string{ColEpisodeID, ColStep, ColPlayer, ColObs, ColActionMask, ColAction,
			ColReward, ColRewards, ColTerminated, ColTruncated} {
			f := tbl.Schema().Field(i)
			if f.Name != name {
				t.Errorf("field %d is %s, want %s", i, f.Name, name)
			}
			if want, ok := wantSchema[name]; ok && !arrow.TypeEqual(f.Type, want) {
				t.Errorf("field %s is %v, want %v", name, f.Type, want)
			}
		}
		if lt, ok := tbl.Schema().Field(7).Type.(*arrow.ListType); !ok || lt.Elem().ID() != arrow.FLOAT32 {
			t.Errorf("rewards is %v, want list<float32>", tbl.Schema().Field(7).Type)
		}
		for k, want := range map[string]string{
			KeySchemaVersion: strconv.Itoa(SchemaVersion), KeyTable: "steps", KeyEnvID: testEnv, KeyEnvVersion: "1",
			KeyObsShape: "[503]", KeyObsDType: "uint8", KeyNumActions: "56", KeyAgent: "random",
			KeySeed: "7", KeyEpisodesPerPart: "100", KeyPart: strconv.Itoa(p.Index),
			KeyEpisodeStart: strconv.FormatInt(p.EpisodeStart, 10), KeyEpisodeEnd: strconv.FormatInt(p.EpisodeEnd, 10),
			KeyNumSteps: strconv.FormatInt(p.NumSteps, 10), KeyNumRows: strconv.FormatInt(p.Steps.Rows, 10),
			KeyObsEncoding: enc.parquetName(), KeySeedRule: SeedRule,
			KeyEnvParams: `{"max_turns":200,"scan_wrap":false}`, KeyAgentOptions: "{}",
		} {
			if kv[k] != want {
				t.Errorf("steps footer %s = %q, want %q", k, kv[k], want)
			}
		}
		if ekv[KeyTable] != "episodes" || ekv[KeyEpisodeStart] != kv[KeyEpisodeStart] || ekv[KeyDatasetID] != d.Manifest.DatasetID {
			t.Errorf("episodes footer: %v", ekv)
		}
		if tbl.NumRows() != p.Steps.Rows || ep.NumRows() != p.EpisodeEnd-p.EpisodeStart {
			t.Fatalf("part %d: %d steps rows, %d episodes; manifest %d, %d", p.Index, tbl.NumRows(), ep.NumRows(),
				p.Steps.Rows, p.EpisodeEnd-p.EpisodeStart)
		}

		rows := arrowSteps(t, tbl)
		lengths := column[*array.Int32](t, ep, "length")
		returns := column[*array.List](t, ep, "returns")
		seeds := column[*array.Int64](t, ep, "seed")
		scores := column[*array.List](t, ep, "scores")
		ranks := column[*array.List](t, ep, "ranks")
		outcomes := column[*array.List](t, ep, "outcomes")
		seatAgents := column[*array.List](t, ep, "seat_agents")
		for name, typ := range map[string]arrow.Type{"scores": arrow.FLOAT64, "ranks": arrow.INT32,
			"outcomes": arrow.STRING, "seat_agents": arrow.STRING} {
			f, _ := ep.Schema().FieldsByName(name)
			if lt, ok := f[0].Type.(*arrow.ListType); !ok || lt.Elem().ID() != typ {
				t.Errorf("episodes column %s is %v, want list<%v>", name, f[0].Type, typ)
			}
		}
		if len(lengths) != 1 || len(returns) != 1 || len(seeds) != 1 || len(scores) != 1 || len(ranks) != 1 ||
			len(outcomes) != 1 || len(seatAgents) != 1 {
			t.Fatal("episodes table in several chunks")
		}
		r := 0
		for i := 0; i < int(ep.NumRows()); i++ {
			id := p.EpisodeStart + int64(i)
			envSeed, agentSeed := EpisodeSeeds(cfg.Seed, id)
			if uint64(seeds[0].Value(i)) != envSeed {
				t.Fatalf("episode %d: seed %d, want %d", id, seeds[0].Value(i), envSeed)
			}
			e.Reset(envSeed)
			a.Reset(agentSeed)
			var sum float64
			last := 0
			for t0 := 0; ; t0++ {
				row := &rows[r]
				r++
				if row.ep != id || int(row.step) != t0 {
					t.Fatalf("row %d: episode %d step %d, want %d %d", r-1, row.ep, row.step, id, t0)
				}
				if e.Done() {
					e.Observe(last, obs)
					if row.act != -1 || int(row.player) != last || !bytes.Equal(row.obs, obs) ||
						!bytes.Equal(row.mask, zeros) || row.reward != 0 || len(row.rewards) != 1 ||
						row.rewards[0] != 0 || row.terminated || row.trunced {
						t.Fatalf("episode %d: final row %+v", id, row)
					}
					if int(lengths[0].Value(i)) != t0 {
						t.Fatalf("episode %d: length %d, want %d", id, lengths[0].Value(i), t0)
					}
					break
				}
				p := e.CurrentPlayer()
				e.Observe(p, obs)
				act := a.Act(p, obs, e.Mask())
				if int(row.player) != p || !bytes.Equal(row.obs, obs) || !bytes.Equal(row.mask, e.Mask()) || int(row.act) != act {
					t.Fatalf("episode %d step %d: row differs from the replay", id, t0)
				}
				res, err := e.Step(act)
				if err != nil {
					t.Fatal(err)
				}
				if row.reward != float32(res.Rewards[p]) || len(row.rewards) != 1 || row.rewards[0] != float32(res.Rewards[0]) ||
					row.terminated != res.Terminated || row.trunced != res.Truncated {
					t.Fatalf("episode %d step %d: reward/flags %+v, replay %+v", id, t0, row, res)
				}
				sum += float64(row.rewards[0])
				last = p
			}
			lo, hi := returns[0].ValueOffsets(i)
			ret := returns[0].ListValues().(*array.Float64)
			if hi-lo != 1 || ret.Value(int(lo)) != sum || sum != e.Returns()[0] {
				t.Fatalf("episode %d: returns %v, summed rewards %v, env %v", id, ret.Value(int(lo)), sum, e.Returns())
			}
			// The per-player results: the env's Info at the end, player 0's.
			in := e.Info()
			lo, hi = scores[0].ValueOffsets(i)
			sc := scores[0].ListValues().(*array.Float64)
			rlo, rhi := ranks[0].ValueOffsets(i)
			rk := ranks[0].ListValues().(*array.Int32)
			olo, ohi := outcomes[0].ValueOffsets(i)
			oc := outcomes[0].ListValues().(*array.String)
			alo, ahi := seatAgents[0].ValueOffsets(i)
			ag := seatAgents[0].ListValues().(*array.String)
			if hi-lo != 1 || rhi-rlo != 1 || ohi-olo != 1 || ahi-alo != 1 || sc.Value(int(lo)) != in.Scores[0] ||
				int(rk.Value(int(rlo))) != in.Ranks[0] || oc.Value(int(olo)) != in.Outcomes[0].String() ||
				ag.Value(int(alo)) != "random" {
				t.Fatalf("episode %d: per-player results differ from the env's info %s", id, in.AppendJSON(nil))
			}
		}
		if r != len(rows) {
			t.Fatalf("part %d: %d rows left over", p.Index, len(rows)-r)
		}
		tbl.Release()
		ep.Release()
	}
}
