package datasets

import (
	"context"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// benchGenerate generates episodes with agent on 2 workers (GG_BENCH_WORKERS;
// GG_BENCH_ZSTD and GG_BENCH_OBS set the zstd level and obs encoding)
// per iteration and reports steps/s, CPU time per step and Parquet bytes per
// steps-table row (bytes/row, the dataset's size measure) and per step.
func benchGenerate(b *testing.B, agent string, episodes int64, dropObs bool) {
	if !slices.Contains(agents.Names(), agent) {
		b.Skipf("agent %q is not registered", agent)
	}
	// Build the agent once outside the timing: an agent may build tables
	// on first use (the heuristic's take about a second).
	e, _ := env.Make("galaxy-express-v1", nil)
	if _, err := agents.New(agent, e.Spec(), nil); err != nil {
		b.Fatal(err)
	}
	var steps, rows, bytes int64
	var secs float64
	cpu0 := cpuTime()
	for b.Loop() {
		dir := b.TempDir()
		res, err := Generate(context.Background(), Config{Env: "galaxy-express-v1", Agent: agent,
			Episodes: episodes, EpisodesPerPart: int(episodes / 4), Workers: benchWorkers, Out: dir,
			ZstdLevel: ZstdLevel(os.Getenv("GG_BENCH_ZSTD")), ObsEncoding: ObsEncoding(os.Getenv("GG_BENCH_OBS")),
			dropObsPages: dropObs})
		if err != nil {
			b.Fatal(err)
		}
		steps += res.Steps
		rows += res.Rows
		bytes += res.Bytes
		secs += res.Elapsed.Seconds()
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1e9/float64(steps), "cpu-ns/step")
	b.ReportMetric(float64(steps)/secs, "steps/s")
	b.ReportMetric(float64(bytes)/float64(rows), "bytes/row")
	b.ReportMetric(float64(bytes)/float64(steps), "bytes/step")
}

func BenchmarkGenerateRandom(b *testing.B)    { benchGenerate(b, "random", 40000, false) }
func BenchmarkGenerateHeuristic(b *testing.B) { benchGenerate(b, "heuristic", 20000, false) }

// BenchmarkGenerateRandomObsDropped is BenchmarkGenerateRandom with the obs
// pages transposed but neither compressed nor written: the CPU that
// everything else takes (docs/performance.md; its bytes/row mean nothing).
func BenchmarkGenerateRandomObsDropped(b *testing.B) {
	benchGenerate(b, "random", 40000, true)
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchWorkers = envInt("GG_BENCH_WORKERS", 2)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// recRow is a steps row recorded for the writer benchmarks.
type recRow struct {
	ep           int64
	step, player int32
	obs          [503]byte
	mask         [56]byte
	action       int32
	reward       float32
	term, trunc  bool
}

// recordRows plays random episodes and returns their first n rows.
func recordRows(n int) []recRow {
	e, _ := env.Make("galaxy-express-v1", nil)
	a, _ := agents.New("random", e.Spec(), nil)
	rows := make([]recRow, 0, n)
	for ep := int64(0); len(rows) < n; ep++ {
		es, as := EpisodeSeeds(0, ep)
		e.Reset(es)
		a.Reset(as)
		t := int32(0)
		for !e.Done() {
			var r recRow
			r.ep, r.step = ep, t
			e.Observe(0, r.obs[:])
			copy(r.mask[:], e.Mask())
			act := a.Act(0, r.obs[:], e.Mask())
			res, _ := e.Step(act)
			r.action, r.reward, r.term, r.trunc = int32(act), float32(res.Rewards[0]), res.Terminated, res.Truncated
			rows = append(rows, r)
			t++
		}
		var r recRow
		r.ep, r.step, r.action = ep, t, -1
		e.Observe(0, r.obs[:])
		rows = append(rows, r)
	}
	return rows[:n]
}

// BenchmarkStepsWriter measures the steps writer alone (zstd included) on
// recorded random-agent rows.
func BenchmarkStepsWriter(b *testing.B) {
	rows := recordRows(200000)
	m := &runMeta{obsSize: 503, numActions: 56, numPlayers: 1, obsEncoding: ObsSplit}
	rw := []float64{0}
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		sw := newStepsFile(newTrackingFile(nopFile{}), newZstdEncoder(ZstdBetter), m)
		for i := range rows {
			r := &rows[i]
			copy(sw.obsSlot(), r.obs[:])
			copy(sw.maskSlot(), r.mask[:])
			rw[0] = float64(r.reward)
			if err := sw.commit(r.ep, r.step, r.player, r.action, rw, r.term, r.trunc); err != nil {
				b.Fatal(err)
			}
		}
		if err := sw.close(); err != nil {
			b.Fatal(err)
		}
		n += len(rows)
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1e9/float64(n), "cpu-ns/row")
}

// BenchmarkBSS measures the byte-stream-split transpose of one obs page.
func BenchmarkBSS(b *testing.B) {
	rows := recordRows(4096)
	src := make([]byte, 2048*503)
	dst := make([]byte, 2048*503)
	for i := 0; i < 2048; i++ {
		copy(src[i*503:], rows[i].obs[:])
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		bssTranspose(dst, src, 2048, 503)
	}
}

// nopFile discards what is written.
type nopFile struct{}

func (nopFile) Write(p []byte) (int, error) { return len(p), nil }
func (nopFile) Sync() error                 { return nil }
func (nopFile) Close() error                { return nil }
