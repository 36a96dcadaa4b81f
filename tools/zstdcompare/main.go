// Command zstdcompare measures how zstd implementations compress the
// Galaxy Express observation column as galaxygym generate writes it
// (BYTE_STREAM_SPLIT pages of about 1 MiB): bytes per observation and
// nanoseconds per observation on one core, for klauspost/compress (the
// pure-Go zstd the project uses) at its levels and for the C reference
// library through cgo (github.com/DataDog/zstd) at several levels.
//
// It is a separate module so that the project itself needs neither cgo
// nor the C library:
//
//	cd tools/zstdcompare && go run . -episodes 20000
//
// docs/performance.md records what it printed and why it matters for the
// random agent's generate target.
package main

import (
	"flag"
	"fmt"
	"log"
	"time"

	dd "github.com/DataDog/zstd"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

func main() {
	episodes := flag.Int64("episodes", 20000, "random-agent episodes to record")
	agent := flag.String("agent", "random", "agent playing the episodes")
	pageRows := flag.Int("page", 2085, "observations per page (the generator's: 1 MiB / 503 bytes)")
	rounds := flag.Int("rounds", 3, "timing rounds; the fastest counts")
	flag.Parse()

	e, err := env.Make("galaxy-express-v1", nil)
	if err != nil {
		log.Fatal(err)
	}
	size := e.Spec().ObsSize()
	a, err := agents.New(*agent, e.Spec(), nil)
	if err != nil {
		log.Fatal(err)
	}
	// Every row the steps table holds: T observations and the final one.
	var obs []byte
	buf := make([]byte, size)
	for i := int64(0); i < *episodes; i++ {
		es, as := datasets.EpisodeSeeds(0, i)
		e.Reset(es)
		a.Reset(as)
		for !e.Done() {
			p := e.CurrentPlayer()
			e.Observe(p, buf)
			obs = append(obs, buf...)
			if _, err := e.Step(a.Act(p, buf, e.Mask())); err != nil {
				log.Fatal(err)
			}
		}
		e.Observe(0, buf)
		obs = append(obs, buf...)
	}
	rows := len(obs) / size
	var pages [][]byte
	for r := 0; r+*pageRows <= rows; r += *pageRows {
		p, err := parquet.ByteStreamSplit.EncodeFixedLenByteArray(nil, obs[r*size:(r+*pageRows)*size], size)
		if err != nil {
			log.Fatal(err)
		}
		pages = append(pages, p)
	}
	n := len(pages) * *pageRows
	fmt.Printf("%d observations of %d bytes, %d pages of %d\n\n", n, size, len(pages), *pageRows)
	fmt.Println("| compressor | level | bytes/obs | ns/obs |")
	fmt.Println("| --- | --- | --- | --- |")

	measure := func(name, level string, compress func(dst, src []byte) []byte) {
		best := time.Duration(1 << 62)
		total := 0
		out := make([]byte, 0, dd.CompressBound(len(pages[0])))
		for range *rounds {
			total = 0
			t0 := time.Now()
			for _, p := range pages {
				out = compress(out[:0], p)
				total += len(out)
			}
			best = min(best, time.Since(t0))
		}
		fmt.Printf("| %s | %s | %.2f | %.0f |\n", name, level, float64(total)/float64(n), float64(best.Nanoseconds())/float64(n))
	}
	for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
		// The generator's options (datasets/stepsfile.go).
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithWindowSize(2<<20),
			zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
		if err != nil {
			log.Fatal(err)
		}
		measure("klauspost/compress (Go)", l.String(), func(dst, src []byte) []byte { return enc.EncodeAll(src, dst) })
	}
	ctx := dd.NewCtx()
	for _, l := range []int{1, 3, 4, 5, 6, 9} {
		measure("libzstd 1.5.7 (C, cgo: DataDog/zstd)", fmt.Sprint(l), func(dst, src []byte) []byte {
			out, err := ctx.CompressLevel(dst[:cap(dst)], src, l)
			if err != nil {
				log.Fatal(err)
			}
			return out
		})
	}
}
