package datasets

import (
	"context"
	"os"
	"testing"
)

// BenchmarkGenerateCost breaks down generate's CPU per steps-table row for
// every game, heuristic in every seat, one worker (docs/performance.md):
//
//   - play: Bench without observations the agent does not read (the game
//     and the agent);
//   - observe: Bench with every observation and mask encoded;
//   - write-no-obs: Generate with the obs pages dropped (everything but
//     compressing and writing the obs column);
//   - generate: Generate (the real cost);
//   - zstd-obs: the bare zstd encoder at the same level over the same
//     observation stream, in pages of the same size (the limit);
//   - zstd-mask: the same over the action-mask stream (1 MiB pages).
//
// Each is reported as cpu-ns/row; GG_COST_SCALE multiplies the episodes.
func BenchmarkGenerateCost(b *testing.B) {
	games := []struct {
		env      string
		episodes int64
	}{
		{"galaxy-express-v1", 4000},
		{"express-v1", 400},
		{"pilots-of-gallaxia-v1", 300},
		{"galaxy-fighters-v2", 150},
	}
	scale := int64(envInt("GG_COST_SCALE", 1))
	for _, g := range games {
		b.Run(g.env, func(b *testing.B) {
			cfg := Config{Env: g.env, Agent: "heuristic", Episodes: g.episodes * scale, Workers: 1, Seed: 1,
				EpisodesPerPart: int(g.episodes * scale)}
			// Agents may build tables on first use: not part of the rows.
			warm := cfg
			warm.Episodes, warm.EpisodesPerPart = 1, 1
			if _, err := Bench(context.Background(), warm); err != nil {
				b.Fatal(err)
			}
			measure := func(name string, f func() int64) {
				t0 := cpuTime()
				rows := f()
				b.ReportMetric(float64((cpuTime()-t0).Nanoseconds())/float64(rows), name+"-ns/row")
			}
			for b.Loop() {
				var rows int64
				measure("play", func() int64 {
					res, err := Bench(context.Background(), cfg)
					if err != nil {
						b.Fatal(err)
					}
					rows = res.Rows
					return rows
				})
				measure("observe", func() int64 {
					c := cfg
					c.Observe = true
					if _, err := Bench(context.Background(), c); err != nil {
						b.Fatal(err)
					}
					return rows
				})
				measure("write-no-obs", func() int64 {
					c := cfg
					c.Out, c.dropObsPages = b.TempDir(), true
					if _, err := Generate(context.Background(), c); err != nil {
						b.Fatal(err)
					}
					return rows
				})
				dir := b.TempDir()
				measure("generate", func() int64 {
					c := cfg
					c.Out = dir
					if _, err := Generate(context.Background(), c); err != nil {
						b.Fatal(err)
					}
					return rows
				})
				// The observation stream as the writer saw it.
				var pages, masks [][]byte
				page := make([]byte, 0, obsPageBytes)
				mpage := make([]byte, 0, obsPageBytes)
				for s, err := range ReadStepsFile(dir + "/steps/part-00000.parquet") {
					if err != nil {
						b.Fatal(err)
					}
					if len(page)+len(s.Obs) > obsPageBytes {
						pages = append(pages, page)
						page = make([]byte, 0, obsPageBytes)
					}
					page = append(page, s.Obs...)
					if len(mpage)+len(s.ActionMask) > obsPageBytes {
						masks = append(masks, mpage)
						mpage = make([]byte, 0, obsPageBytes)
					}
					mpage = append(mpage, s.ActionMask...)
				}
				pages, masks = append(pages, page), append(masks, mpage)
				enc := newZstdEncoder(ZstdBetter)
				var out []byte
				measure("zstd-obs", func() int64 {
					for _, p := range pages {
						out = enc.EncodeAll(p, out[:0])
					}
					return rows
				})
				measure("zstd-mask", func() int64 {
					for _, p := range masks {
						out = enc.EncodeAll(p, out[:0])
					}
					return rows
				})
				os.RemoveAll(dir)
			}
		})
	}
}
