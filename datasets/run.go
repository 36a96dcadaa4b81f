package datasets

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
	"github.com/galaxygym/galaxygym/version"
)

// DefaultEpisodesPerPart is the number of episodes of a part when
// Config.EpisodesPerPart is 0: about 5 MB of Parquet per part for the
// Galaxy Express heuristic (31 rows per episode, about 15 bytes per row),
// 100 parts for the default million episodes.
const DefaultEpisodesPerPart = 10000

// DefaultBenchChunk is the largest number of episodes a benchmark worker
// takes at a time when Config.EpisodesPerPart is 0; smaller runs are cut
// into at least four units per worker so that every worker plays.
const DefaultBenchChunk = 1000

// CodePermalink is the manifest's code_permalink.
const CodePermalink = "https://github.com/galaxygym/galaxygym"

// Config describes a run of [Generate] or [Bench].
type Config struct {
	// Env is the registered environment id, e.g. "galaxy-express-v1".
	Env string
	// EnvParams are the environment's parameters (nil for the defaults);
	// strings are parsed, as from --env-param name=value.
	EnvParams map[string]any
	// Agent is the registered agent name, e.g. "heuristic" or "random",
	// that plays every seat (one agent, as --agent). Leave it empty when
	// Seats is set.
	Agent string
	// AgentOptions are the agent's settings (--agent-opt key=value).
	AgentOptions agents.Options
	// Seats, when set, is the lineup instead of Agent: Seats[k] plays
	// player k (len NumPlayers), each seat its own agent, seeded by
	// [rollout.SeatSeed] (--seats A,B,...). The manifest, the footers and
	// the episodes table record each seat's agent.
	Seats []string
	// SeatOptions are the settings of the Seats agents, by agent name
	// (--agent-opt agent.key=value); every key must be one of Seats.
	SeatOptions map[string]agents.Options
	// Episodes is the number of episodes, at least 1.
	Episodes int64
	// Seed is the run seed; see [EpisodeSeeds].
	Seed uint64
	// EpisodesPerPart is the number of consecutive episodes per part file
	// (0: DefaultEpisodesPerPart). The files depend on it, so resuming
	// requires the same value. For Bench it is the work unit (0: Episodes
	// / (4 x Workers), at least 1 and at most DefaultBenchChunk).
	EpisodesPerPart int
	// Workers is the number of goroutines playing parts (0: runtime.NumCPU()).
	// The output does not depend on it.
	Workers int
	// Out is the output of Generate: a directory, or a bucket URL
	// (s3://bucket/prefix, gs://bucket/prefix, azblob://container/prefix,
	// file:///dir; see [OpenBucket]). Bench ignores it.
	Out string
	// Shards, when above 1, splits the parts of the run into Shards
	// consecutive ranges of parts, and Generate plays only range Shard
	// (0-based): the same episodes, seeds and bytes as those parts of a
	// run on one machine. A shard writes its parts, their checksum
	// records and job.json, not manifest.json: [Merge] writes it once
	// every shard is done. 0 or 1: the whole run.
	Shards int
	// Shard is the shard this run plays, 0 <= Shard < Shards.
	Shard int
	// ObsEncoding is the obs column's encoding ("": ObsPlain).
	ObsEncoding ObsEncoding
	// ZstdLevel is the compression effort ("": ZstdBetter).
	ZstdLevel ZstdLevel
	// Observe makes Bench encode every observation even when the agent
	// does not read them (Generate always does).
	Observe bool
	// DatasetID overrides the manifest's dataset_id.
	DatasetID string
	// Author is the manifest's author.
	Author string
	// CommandLine is recorded as the manifest's created_by; see
	// [Config.CanonicalCommand] for a default.
	CommandLine string
	// Progress, when set, receives cumulative progress: once when the
	// work is known, then about every 256 episodes per worker and after
	// every part. Calls are serialized; it must return quickly.
	Progress func(Progress)

	fs           fileSystem // nil: the operating system; tests give fakes
	dropObsPages bool       // tests only: see runMeta.dropObsPages
}

// Progress is a snapshot of a run, passed to Config.Progress.
type Progress struct {
	Episodes        int64 // episodes played by this run so far
	Steps           int64 // steps played by this run so far
	EpisodesToPlay  int64 // episodes this run plays (parts kept from an earlier run excluded)
	EpisodesResumed int64 // episodes in complete parts kept from an earlier run
	PartsDone       int   // complete parts, kept ones included
	PartsTotal      int
}

// Result summarizes a finished run.
type Result struct {
	Episodes     int64         // episodes played by this run
	Steps        int64         // steps (transitions) played by this run
	Rows         int64         // steps-table rows written by this run (Steps + Episodes)
	Elapsed      time.Duration // wall time of the run
	PartsWritten int           // parts written by this run
	PartsKept    int           // complete parts found in Out and kept
	Bytes        int64         // Generate: Parquet bytes of the whole dataset
	Manifest     *Manifest     // Generate: the manifest written
}

// StepsPerSecond returns Steps / Elapsed.
func (r *Result) StepsPerSecond() float64 { return float64(r.Steps) / max(r.Elapsed.Seconds(), 1e-9) }

// EpisodesPerSecond returns Episodes / Elapsed.
func (r *Result) EpisodesPerSecond() float64 {
	return float64(r.Episodes) / max(r.Elapsed.Seconds(), 1e-9)
}

// CanonicalCommand returns the galaxygym command line that reproduces the
// files of c: every flag that changes them, in a fixed order, and none that
// does not (--workers, progress). It is the default created_by.
func (c *Config) CanonicalCommand() string {
	var b strings.Builder
	who := "--agent " + c.Agent
	if len(c.Seats) > 0 {
		who = "--seats " + strings.Join(c.Seats, ",")
	}
	fmt.Fprintf(&b, "galaxygym generate --env %s %s --episodes %d --seed %d --episodes-per-part %d",
		c.Env, who, c.Episodes, c.Seed, c.partSize(false))
	for _, k := range slices.Sorted(maps.Keys(c.AgentOptions)) {
		fmt.Fprintf(&b, " --agent-opt %s=%s", k, c.AgentOptions[k])
	}
	for _, name := range slices.Sorted(maps.Keys(c.SeatOptions)) {
		for _, k := range slices.Sorted(maps.Keys(c.SeatOptions[name])) {
			fmt.Fprintf(&b, " --agent-opt %s.%s=%s", name, k, c.SeatOptions[name][k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.EnvParams)) {
		fmt.Fprintf(&b, " --env-param %s=%v", k, c.EnvParams[k])
	}
	if c.ObsEncoding != "" && c.ObsEncoding != ObsPlain {
		fmt.Fprintf(&b, " --obs-encoding %s", c.ObsEncoding)
	}
	if c.ZstdLevel != "" && c.ZstdLevel != ZstdBetter {
		fmt.Fprintf(&b, " --zstd-level %s", c.ZstdLevel)
	}
	if c.DatasetID != "" {
		fmt.Fprintf(&b, " --dataset-id %s", c.DatasetID)
	}
	return b.String()
}

func (c *Config) partSize(bench bool) int {
	switch {
	case c.EpisodesPerPart > 0:
		return c.EpisodesPerPart
	case bench:
		return int(max(1, min(DefaultBenchChunk, c.Episodes/(4*int64(c.NumWorkers())))))
	}
	return DefaultEpisodesPerPart
}

// NumWorkers returns the number of workers a run uses: Workers, or
// runtime.NumCPU() when it is 0.
func (c *Config) NumWorkers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.NumCPU()
}

// versioned is implemented by agents that declare a version; it is
// recorded as agent_version.
type versioned interface{ Version() string }

// run is the state shared by the workers of one run.
type run struct {
	cfg      *Config
	bench    bool
	spec     *env.Spec
	params   env.Params
	meta     *runMeta
	partSize int
	numParts int
	fs       fileSystem
	dir      string // Out, or "" for a bucket (r.fs then names objects relative to it)
	partLo   int    // the parts this run plays: [partLo, partHi) (a shard), else all
	partHi   int
	results  []*partResult // by part index; kept parts filled in before the workers start
	prev     *Manifest     // the manifest found in Out by scan, or nil
	names    []string      // the agent of each seat
	loop0    *rollout.Loop // made by prepare, given to the first worker

	mu       sync.Mutex // guards progress, err and loop0
	progress Progress
	err      error
}

// prepare validates cfg and builds the run.
func prepare(cfg *Config, bench bool) (*run, error) {
	if cfg.Episodes < 1 {
		return nil, &ConfigError{Field: "Episodes", Reason: fmt.Sprintf("%d: want at least 1", cfg.Episodes)}
	}
	if cfg.Workers < 0 {
		return nil, &ConfigError{Field: "Workers", Reason: fmt.Sprintf("%d: want 0 (all cores) or more", cfg.Workers)}
	}
	if cfg.EpisodesPerPart < 0 {
		return nil, &ConfigError{Field: "EpisodesPerPart", Reason: fmt.Sprintf("%d: want 0 (default) or more", cfg.EpisodesPerPart)}
	}
	switch cfg.ObsEncoding {
	case "", ObsSplit, ObsPlain:
	default:
		return nil, &ConfigError{Field: "ObsEncoding", Reason: fmt.Sprintf("%q: want %q or %q", cfg.ObsEncoding, ObsSplit, ObsPlain)}
	}
	switch cfg.ZstdLevel {
	case "", ZstdFastest, ZstdDefault, ZstdBetter:
	default:
		return nil, &ConfigError{Field: "ZstdLevel", Reason: fmt.Sprintf("%q: want %q, %q or %q", cfg.ZstdLevel, ZstdFastest, ZstdDefault, ZstdBetter)}
	}
	if !bench && cfg.Out == "" {
		return nil, &ConfigError{Field: "Out", Reason: "no output directory"}
	}
	if cfg.Shards < 0 || (cfg.Shards > 1 && (cfg.Shard < 0 || cfg.Shard >= cfg.Shards)) || (cfg.Shards <= 1 && cfg.Shard != 0) {
		return nil, &ConfigError{Field: "Shard", Reason: fmt.Sprintf("shard %d of %d: want 0 <= shard < shards", cfg.Shard, cfg.Shards)}
	}
	if (cfg.Agent == "") == (len(cfg.Seats) == 0) {
		return nil, &ConfigError{Field: "Agent", Reason: "want either Agent (one agent in every seat) or Seats (one per seat)"}
	}
	if len(cfg.Seats) == 0 && len(cfg.SeatOptions) > 0 {
		return nil, &ConfigError{Field: "SeatOptions", Reason: "options by agent name need Seats; use AgentOptions"}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.SeatOptions)) {
		if !slices.Contains(cfg.Seats, name) {
			return nil, &ConfigError{Field: "SeatOptions",
				Reason: fmt.Sprintf("options for %s, which is not one of the seats %v", strconv.Quote(name), cfg.Seats)}
		}
	}
	r := &run{cfg: cfg, bench: bench, fs: cfg.fs}
	loop, err := r.newLoop()
	if err != nil {
		return nil, err
	}
	e := loop.Env()
	spec := e.Spec()
	r.spec, r.params, r.loop0 = spec, e.Params(), loop
	if r.fs == nil {
		r.fs = osFS{}
	}
	r.partSize = cfg.partSize(bench)
	r.numParts = int((cfg.Episodes + int64(r.partSize) - 1) / int64(r.partSize))
	r.results = make([]*partResult, r.numParts)
	r.partLo, r.partHi = 0, r.numParts
	if cfg.Shards > 1 {
		r.partLo, r.partHi = shardParts(r.numParts, cfg.Shard, cfg.Shards)
	}
	r.dir = cfg.Out

	enc := cfg.ObsEncoding
	if enc == "" {
		enc = ObsPlain
	}
	var versions []string
	for k, a := range loop.Seats() {
		if k > 0 && len(cfg.Seats) == 0 {
			break // one agent: one version
		}
		v := ""
		if vv, ok := a.(versioned); ok {
			v = vv.Version()
		}
		versions = append(versions, v)
	}
	agentVersion := strings.Join(versions, ",")
	var opts any = cfg.AgentOptions
	if cfg.AgentOptions == nil {
		opts = agents.Options{}
	}
	seedRule := SeedRule
	if len(cfg.Seats) > 0 {
		opts = nonNilSeat(cfg.SeatOptions)
		seedRule += "; " + rollout.SeatSeedRule
	}
	r.meta = &runMeta{
		datasetID:       cfg.DatasetID,
		envID:           spec.ID,
		envVersion:      envVersion(spec.ID),
		envParams:       mustJSON(r.params),
		numPlayers:      spec.NumPlayers,
		obsShape:        mustJSON(spec.ObsShape),
		obsSize:         spec.ObsSize(),
		numActions:      spec.NumActions(),
		actionNames:     mustJSON(spec.ActionNames),
		agent:           r.agentName(),
		agentVersion:    agentVersion,
		seedRule:        seedRule,
		agentOptions:    mustJSON(opts),
		seed:            cfg.Seed,
		episodesPerPart: r.partSize,
		obsEncoding:     enc,
		zstdLevel:       cmp.Or(cfg.ZstdLevel, ZstdBetter),
		dropObsPages:    cfg.dropObsPages,
	}
	if r.meta.datasetID == "" {
		r.meta.datasetID = fmt.Sprintf("galaxygym/%s/%s-v%d", spec.ID, strings.ReplaceAll(r.agentName(), ",", "-"), SchemaVersion)
	}
	return r, nil
}

// agentName is the run's agent: Agent, or the seats' agents joined by
// commas.
func (r *run) agentName() string {
	if len(r.cfg.Seats) > 0 {
		return strings.Join(r.cfg.Seats, ",")
	}
	return r.cfg.Agent
}

// newLoop makes an environment and the agents of its seats.
func (r *run) newLoop() (*rollout.Loop, error) {
	cfg := r.cfg
	e, err := env.Make(cfg.Env, cfg.EnvParams)
	if err != nil {
		return nil, &ConfigError{Field: "Env", Reason: "cannot make " + strconv.Quote(cfg.Env), Err: err}
	}
	n := e.Spec().NumPlayers
	var seats []agents.Agent
	var names []string
	if len(cfg.Seats) == 0 {
		a, err := agents.New(cfg.Agent, e.Spec(), cfg.AgentOptions)
		if err != nil {
			return nil, &ConfigError{Field: "Agent", Reason: "cannot make " + strconv.Quote(cfg.Agent), Err: err}
		}
		seats, names = rollout.Same(a, cfg.Agent, n)
	} else {
		if len(cfg.Seats) != n {
			return nil, &ConfigError{Field: "Seats", Reason: fmt.Sprintf("%d agents for %d players", len(cfg.Seats), n)}
		}
		names = cfg.Seats
		for _, name := range cfg.Seats {
			a, err := agents.New(name, e.Spec(), cfg.SeatOptions[name])
			if err != nil {
				return nil, &ConfigError{Field: "Seats", Reason: "cannot make " + strconv.Quote(name), Err: err}
			}
			seats = append(seats, a)
		}
	}
	r.names = names
	return rollout.New(e, seats, names)
}

func nonNilSeat(m map[string]agents.Options) map[string]agents.Options {
	if m == nil {
		return map[string]agents.Options{}
	}
	return m
}

// envVersion returns the N of an id ending in "-vN", or "".
func envVersion(id string) string {
	i := strings.LastIndex(id, "-v")
	if i < 0 {
		return ""
	}
	if _, err := strconv.Atoi(id[i+2:]); err != nil {
		return ""
	}
	return id[i+2:]
}

func mustJSON(v any) string {
	b, err := compactJSON(v)
	if err != nil {
		panic(err) // only maps of plain values and slices reach here
	}
	return string(b)
}

// shardParts returns the parts [lo, hi) of shard i of n among numParts:
// consecutive ranges whose sizes differ by at most one.
func shardParts(numParts, i, n int) (lo, hi int) {
	return i * numParts / n, (i + 1) * numParts / n
}

// ShardParts returns the part indices [lo, hi) that shard i of n plays in a
// run of numParts parts (see Config.Shards).
func ShardParts(numParts, i, n int) (lo, hi int) { return shardParts(numParts, i, n) }

// partRange returns the episodes [start, end) of part i.
func (r *run) partRange(i int) (start, end int64) {
	start = int64(i) * int64(r.partSize)
	return start, min(start+int64(r.partSize), r.cfg.Episodes)
}

// Generate plays cfg.Episodes episodes on cfg.Workers goroutines and
// writes the dataset under cfg.Out (see docs/datasets.md): the parts, then
// manifest.json. Parts already complete in cfg.Out from an earlier run with
// the same parameters are kept, so running the same command again resumes;
// different parameters give a [*MismatchError]. A cancelled ctx stops the
// workers, removes their unfinished files and returns an
// [*InterruptedError]. Write failures (a full disk) are [*WriteError]s
// naming the file; bad settings are [*ConfigError]s; an agent playing an
// illegal action is a *[rollout.AgentError].
func Generate(ctx context.Context, cfg Config) (*Result, error) {
	t0 := time.Now()
	r, err := prepare(&cfg, false)
	if err != nil {
		return nil, err
	}
	if err := r.openOut(ctx); err != nil {
		return nil, err
	}
	defer r.closeOut()
	if err := r.scan(); err != nil {
		return nil, err
	}
	if cfg.Shards > 1 {
		if err := r.writeJob(); err != nil {
			return nil, err
		}
	}
	res, err := r.play(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Shards > 1 {
		for _, pr := range r.results[r.partLo:r.partHi] {
			res.Bytes += pr.info.Steps.Bytes + pr.info.Episodes.Bytes
		}
		res.Elapsed = time.Since(t0)
		return res, nil
	}
	if err := r.finish(res); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(t0)
	return res, nil
}

// finish writes the manifest of a run whose parts are all complete and
// removes the records it replaces (checksums/, job.json).
func (r *run) finish(res *Result) error {
	m := r.manifest()
	if err := writeManifest(r.fs, r.dir, m); err != nil {
		return err
	}
	// The manifest now records every part's checksums.
	if err := r.fs.RemoveAll(filepath.Join(r.dir, ChecksumsDir)); err != nil {
		return &WriteError{"remove", r.cfg.Out + "/" + ChecksumsDir, err}
	}
	if err := r.fs.Remove(filepath.Join(r.dir, JobFile)); err != nil && !isNotExist(err) {
		return &WriteError{"remove", r.cfg.Out + "/" + JobFile, err}
	}
	res.Manifest = m
	for _, p := range m.Parts {
		res.Bytes += p.Steps.Bytes + p.Episodes.Bytes
	}
	return nil
}

// Bench plays cfg.Episodes episodes like [Generate] but writes nothing:
// observations are encoded only when the agent reads them or cfg.Observe
// is set. It measures rollout throughput with the same code path.
func Bench(ctx context.Context, cfg Config) (*Result, error) {
	t0 := time.Now()
	r, err := prepare(&cfg, true)
	if err != nil {
		return nil, err
	}
	res, err := r.play(ctx)
	if err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(t0)
	return res, nil
}

// play runs the workers over every part without a result.
func (r *run) play(ctx context.Context) (*Result, error) {
	t0 := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	jobs := make(chan int, r.numParts)
	res := &Result{}
	for i := r.partLo; i < r.partHi; i++ {
		if pr := r.results[i]; pr != nil {
			res.PartsKept++
			r.progress.EpisodesResumed += pr.info.EpisodeEnd - pr.info.EpisodeStart
			continue
		}
		s, e := r.partRange(i)
		r.progress.EpisodesToPlay += e - s
		jobs <- i
	}
	close(jobs)
	r.progress.PartsDone = res.PartsKept
	r.progress.PartsTotal = r.partHi - r.partLo
	r.report(0, 0, false)

	workers := min(r.cfg.NumWorkers(), len(jobs))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := r.newWorker()
			if err != nil {
				r.fail(err)
				cancel()
				return
			}
			for i := range jobs {
				if ctx.Err() != nil {
					return
				}
				if err := w.part(ctx, i); err != nil {
					r.fail(err)
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()

	r.mu.Lock()
	err := r.err
	p := r.progress
	r.mu.Unlock()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			dir := r.cfg.Out
			if r.bench {
				dir = ""
			}
			return nil, &InterruptedError{Dir: dir, PartsDone: p.PartsDone, PartsTotal: p.PartsTotal, Err: err}
		}
		return nil, err
	}
	res.Episodes = p.Episodes
	res.Steps = p.Steps
	res.Rows = p.Episodes + p.Steps
	res.PartsWritten = r.partHi - r.partLo - res.PartsKept
	res.Elapsed = time.Since(t0)
	return res, nil
}

// fail records the first error of the run.
func (r *run) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil || errors.Is(r.err, context.Canceled) {
		r.err = err
	}
}

// report adds a worker's progress and calls Config.Progress.
func (r *run) report(episodes, steps int64, partDone bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress.Episodes += episodes
	r.progress.Steps += steps
	if partDone {
		r.progress.PartsDone++
	}
	if r.cfg.Progress != nil {
		r.cfg.Progress(r.progress)
	}
}

// worker plays parts with its own environment and agents.
type worker struct {
	r       *run
	loop    *rollout.Loop
	rec     recorder
	info    env.Info
	infoBuf []byte
	zenc    *zstd.Encoder // created with the first part written
	steps   *stepsFile    // reused from part to part
}

func (r *run) newWorker() (*worker, error) {
	r.mu.Lock()
	l := r.loop0
	r.loop0 = nil
	r.mu.Unlock()
	if l == nil {
		var err error
		if l, err = r.newLoop(); err != nil {
			return nil, err
		}
	}
	return &worker{r: r, loop: l}, nil
}

// recorder writes the steps of an episode into a part's steps table.
type recorder struct {
	sw   *stepsFile
	ep   int64
	t    int32
	last int32 // the last player to act
}

// Before returns the observation slot of the next row and copies the mask.
func (rc *recorder) Before(_ int, mask []uint8) []uint8 {
	copy(rc.sw.maskSlot(), mask)
	return rc.sw.obsSlot()
}

// After commits the row.
func (rc *recorder) After(p, act int, res env.StepResult) error {
	if err := rc.sw.commit(rc.ep, rc.t, int32(p), int32(act), res.Rewards, res.Terminated, res.Truncated); err != nil {
		return &stepsError{err}
	}
	rc.last = int32(p)
	rc.t++
	return nil
}

// stepsError marks an error of the steps writer, returned through the
// rollout loop.
type stepsError struct{ err error }

func (e *stepsError) Error() string { return e.err.Error() }

// progressEvery is how many episodes a worker plays between progress
// reports and context checks.
const progressEvery = 256

// part plays and (for Generate) writes part i.
func (w *worker) part(ctx context.Context, i int) (err error) {
	r := w.r
	start, end := r.partRange(i)
	var pw *partWriter
	if !r.bench {
		if w.zenc == nil {
			w.zenc = newZstdEncoder(r.meta.zstdLevel)
		}
		pw, err = newPartWriter(r.fs, r.dir, i, start, end, r.meta, w.zenc, w.steps)
		if err != nil {
			return err
		}
		w.steps = pw.steps
		defer func() {
			if err != nil {
				pw.abort()
			}
		}()
	}
	var episodes, steps int64
	for ep := start; ep < end; ep++ {
		if episodes == progressEvery {
			if err := ctx.Err(); err != nil {
				return err
			}
			r.report(episodes, steps, false)
			episodes, steps = 0, 0
		}
		t, err := w.episode(ep, pw)
		if err != nil {
			return err
		}
		episodes++
		steps += int64(t)
	}
	if pw != nil {
		pr, err := pw.finish()
		if err != nil {
			return err
		}
		r.results[i] = pr
	}
	r.report(episodes, steps, true)
	return nil
}

// episode plays episode ep, writing its rows to pw when not nil, and
// returns its length.
func (w *worker) episode(ep int64, pw *partWriter) (int32, error) {
	l := w.loop
	envSeed, agentSeed := EpisodeSeeds(w.r.cfg.Seed, ep)
	if pw == nil {
		return l.Play(ep, envSeed, agentSeed, w.r.cfg.Observe, nil)
	}
	sw := pw.steps
	w.rec = recorder{sw: sw, ep: ep}
	t, err := l.Play(ep, envSeed, agentSeed, false, &w.rec)
	if err != nil {
		var se *stepsError
		if errors.As(err, &se) {
			return t, pw.stepErr(se.err)
		}
		return t, err
	}
	// The final row: the last observation, seen by the last player to act.
	e, last := l.Env(), w.rec.last
	e.Observe(int(last), sw.obsSlot())
	clear(sw.maskSlot())
	if err := sw.commit(ep, t, last, -1, nil, false, false); err != nil {
		return t, pw.stepErr(err)
	}
	e.FillInfo(&w.info)
	w.infoBuf = w.info.AppendJSON(w.infoBuf[:0])
	row := episodeRow{
		EpisodeID:  ep,
		Seed:       int64(envSeed),
		Agent:      w.r.meta.agent,
		SeatAgents: w.r.names,
		Length:     t,
		Returns:    append([]float64(nil), e.Returns()...),
		Outcome:    w.info.Outcome.String(),
		Scores:     append([]float64(nil), w.info.Scores...),
		Ranks:      make([]int32, len(w.info.Ranks)),
		Outcomes:   make([]string, len(w.info.Outcomes)),
		Info:       string(w.infoBuf),
	}
	for i, r := range w.info.Ranks {
		row.Ranks[i] = int32(r)
	}
	for i, o := range w.info.Outcomes {
		row.Outcomes[i] = o.String()
	}
	return t, pw.endEpisode(row)
}

// scan prepares Out for Generate: it creates the directories, removes
// temporary files left by an interrupted run, refuses a directory holding
// another dataset, and keeps the parts that are already complete.
func (r *run) scan() error {
	out := r.dir
	for _, sub := range []string{StepsDir, EpisodesDir, ChecksumsDir} {
		dir := filepath.Join(out, sub)
		if err := r.fs.MkdirAll(dir); err != nil {
			return &WriteError{"mkdir", dir, unwrapPath(err)}
		}
	}
	if m, err := readManifest(r.fs, out); err == nil {
		if err := r.compareManifest(m); err != nil {
			return err
		}
		r.prev = m
	} else if !errors.Is(err, ErrNoManifest) {
		return err
	}
	r.fs.Remove(filepath.Join(out, "."+ManifestFile+".tmp"))
	present := map[int]int{} // part index -> files present
	for _, sub := range []string{StepsDir, EpisodesDir} {
		dir := filepath.Join(out, sub)
		entries, err := r.fs.ReadDir(dir)
		if err != nil {
			return &FormatError{Path: r.cfg.Out + "/" + sub, Reason: "cannot list", Err: err}
		}
		for _, name := range entries {
			if strings.HasPrefix(name, ".part-") && strings.HasSuffix(name, ".tmp") {
				r.fs.Remove(filepath.Join(dir, name)) // left by an interrupted run
				continue
			}
			var idx int
			if n, _ := fmt.Sscanf(name, "part-%05d.parquet", &idx); n == 1 && name == partName(idx) {
				present[idx]++
				if idx >= r.numParts {
					have := "unknown"
					if kv, _, err := readFooter(r.fs, filepath.Join(dir, name)); err == nil {
						have = kv[KeyEpisodeEnd]
					}
					return &MismatchError{Dir: out, File: filepath.Join(sub, name), Field: "episodes",
						Have: "at least " + have, Want: strconv.FormatInt(r.cfg.Episodes, 10)}
				}
			}
		}
	}
	for idx, n := range present {
		if n != 2 || idx < r.partLo || idx >= r.partHi {
			continue // half a part: rewritten
		}
		pr, err := r.verifyPart(idx)
		if err != nil {
			return err
		}
		r.results[idx] = pr // nil when the part must be rewritten
	}
	return nil
}

// compare checks one parameter recorded in file against this run's.
func (r *run) compare(file, field, have, want string) error {
	if have != want {
		return &MismatchError{Dir: r.cfg.Out, File: file, Field: field, Have: have, Want: want}
	}
	return nil
}

// compareManifest refuses an existing manifest of other parameters.
func (r *run) compareManifest(m *Manifest) error {
	m0 := r.meta
	checks := [][3]string{
		{"dataset_id", m.DatasetID, m0.datasetID},
		{"env_id", m.EnvID, m0.envID},
		{"env_params", mustJSON(m.EnvParams), m0.envParams},
		{"agent", m.Agent.Name, m0.agent},
		{"seats", strings.Join(m.Seats, ","), strings.Join(r.cfg.Seats, ",")},
		{"agent_version", m.Agent.Version, m0.agentVersion},
		{"agent_options", m.agentOptionsJSON(), m0.agentOptions},
		{"seed", strconv.FormatUint(m.Seed, 10), strconv.FormatUint(m0.seed, 10)},
		{"episodes_per_part", strconv.Itoa(m.EpisodesPerPart), strconv.Itoa(m0.episodesPerPart)},
		{"obs_encoding", m.ObsEncoding, m0.obsEncoding.parquetName()},
		{"zstd_level", m.ZstdLevel, string(m0.zstdLevel)},
	}
	for _, c := range checks {
		if err := r.compare(ManifestFile, c[0], c[1], c[2]); err != nil {
			return err
		}
	}
	return nil
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// verifyPart checks the two files of part idx. It returns the part's
// result when both are complete, belong to this run and match the
// checksums recorded when they were written (the part's record under
// [ChecksumsDir], or the manifest of the run that finished them); nil when
// the part must be written again (no record or another checksum, another
// episode range, wrong row counts, an unreadable file); and a
// *MismatchError when they were written with other parameters.
func (r *run) verifyPart(idx int) (*partResult, error) {
	start, end := r.partRange(idx)
	var kvs [2]map[string]string
	var rows [2]int64
	for j, sub := range []string{StepsDir, EpisodesDir} {
		path, _ := partPaths(r.dir, sub, idx)
		kv, n, err := readFooter(r.fs, path)
		if err != nil {
			return nil, nil
		}
		rel := filepath.Join(sub, partName(idx))
		m := r.meta
		for _, c := range [][3]string{
			{"schema_version", kv[KeySchemaVersion], strconv.Itoa(SchemaVersion)},
			{"dataset_id", kv[KeyDatasetID], m.datasetID},
			{"env_id", kv[KeyEnvID], m.envID},
			{"env_params", kv[KeyEnvParams], m.envParams},
			{"agent", kv[KeyAgent], m.agent},
			{"agent_version", kv[KeyAgentVersion], m.agentVersion},
			{"agent_options", kv[KeyAgentOptions], m.agentOptions},
			{"seed", kv[KeySeed], strconv.FormatUint(m.seed, 10)},
			{"episodes_per_part", kv[KeyEpisodesPerPart], strconv.Itoa(m.episodesPerPart)},
			{"obs_encoding", kv[KeyObsEncoding], m.obsEncoding.parquetName()},
			{"zstd_level", kv[KeyZstdLevel], string(m.zstdLevel)},
		} {
			if err := r.compare(rel, c[0], c[1], c[2]); err != nil {
				return nil, err
			}
		}
		if kv[KeyTable] != sub || kv[KeyPart] != strconv.Itoa(idx) ||
			kv[KeyEpisodeStart] != strconv.FormatInt(start, 10) || kv[KeyEpisodeEnd] != strconv.FormatInt(end, 10) {
			return nil, nil // another range (the episode count changed): rewrite
		}
		kvs[j], rows[j] = kv, n
	}
	if rows[1] != end-start || kvs[0][KeyNumRows] != strconv.FormatInt(rows[0], 10) ||
		kvs[0][KeyNumSteps] != kvs[1][KeyNumSteps] || kvs[1][KeyNumRows] != kvs[0][KeyNumRows] {
		return nil, nil
	}
	epPath, _ := partPaths(r.dir, EpisodesDir, idx)
	stats := newPartStats(r.meta.numPlayers)
	next := start
	err := readEpisodesFile(r.fs, epPath, func(row *episodeRow) error {
		if row.EpisodeID != next || len(row.Returns) != r.meta.numPlayers {
			return errors.New("episode rows out of order")
		}
		next++
		stats.add(int64(row.Length), row.Returns, row.Outcome)
		return nil
	})
	if err != nil || next != end || strconv.FormatInt(stats.steps, 10) != kvs[0][KeyNumSteps] ||
		stats.steps+stats.episodes != rows[0] {
		return nil, nil
	}
	info := PartInfo{Index: idx, EpisodeStart: start, EpisodeEnd: end, NumSteps: stats.steps}
	records := []*PartInfo{readChecksum(r.fs, r.dir, idx)}
	if r.prev != nil {
		for k := range r.prev.Parts {
			if r.prev.Parts[k].Index == idx {
				records = append(records, &r.prev.Parts[k])
			}
		}
	}
	for j, sub := range []string{StepsDir, EpisodesDir} {
		path, _ := partPaths(r.dir, sub, idx)
		sum, size, err := hashFile(r.fs, path)
		if err != nil {
			return nil, nil
		}
		fi := FileInfo{Path: sub + "/" + partName(idx), Rows: rows[j], Bytes: size, SHA256: sum}
		if j == 0 {
			info.Steps = fi
		} else {
			info.Episodes = fi
		}
	}
	for _, rec := range records {
		if rec != nil && *rec == info {
			return &partResult{info, stats}, nil
		}
	}
	return nil, nil // no record of these bytes: written again
}

// manifest builds the manifest from the parts' results.
func (r *run) manifest() *Manifest {
	spec := r.spec
	m := &Manifest{
		DatasetID:     r.meta.datasetID,
		EnvSpec:       spec,
		AlgorithmName: r.meta.agent,
		Author:        r.cfg.Author,
		CodePermalink: CodePermalink,
		DataFormat:    "parquet",

		SchemaVersion:    SchemaVersion,
		GalaxygymVersion: version.Version,
		EnvID:            spec.ID,
		EnvParams:        r.params,
		ActionNames:      spec.ActionNames,
		NumPlayers:       spec.NumPlayers,
		Agent: AgentInfo{Name: r.meta.agent, Version: r.meta.agentVersion,
			Options: nonNil(r.cfg.AgentOptions)},
		Seats:           r.cfg.Seats,
		SeatOptions:     r.cfg.SeatOptions,
		Seed:            r.cfg.Seed,
		SeedRule:        r.meta.seedRule,
		EpisodesPerPart: r.partSize,
		ObsEncoding:     r.meta.obsEncoding.parquetName(),
		Compression:     "ZSTD",
		ZstdLevel:       string(r.meta.zstdLevel),
		RowGroupRows:    stepsRowGroupRows,
		CreatedBy:       r.cfg.CommandLine,
	}
	if m.CreatedBy == "" {
		m.CreatedBy = r.cfg.CanonicalCommand()
	}
	low := make([]int, spec.ObsSize())
	high := make([]int, spec.ObsSize())
	for i := range high {
		high[i] = 255
		if i < len(spec.ObsHigh) {
			high[i] = int(spec.ObsHigh[i])
		}
	}
	m.ObservationSpace = Space{Type: "Box", DType: "uint8", Shape: spec.ObsShape, Low: low, High: high}
	m.ActionSpace = Space{Type: "Discrete", DType: "int64", N: spec.NumActions()}

	total := newPartStats(spec.NumPlayers)
	first := true
	for _, pr := range r.results {
		m.Parts = append(m.Parts, pr.info)
		s := pr.stats
		m.TotalEpisodes += s.episodes
		m.TotalSteps += s.steps
		for i := range total.returnSum {
			total.returnSum[i] += s.returnSum[i]
			if first || s.returnMin[i] < total.returnMin[i] {
				total.returnMin[i] = s.returnMin[i]
			}
			if first || s.returnMax[i] > total.returnMax[i] {
				total.returnMax[i] = s.returnMax[i]
			}
		}
		first = false
		total.lengthMin = min(total.lengthMin, s.lengthMin)
		total.lengthMax = max(total.lengthMax, s.lengthMax)
		for k, v := range s.outcomes {
			total.outcomes[k] += v
		}
	}
	n := float64(m.TotalEpisodes)
	mean := make([]float64, spec.NumPlayers)
	for i, s := range total.returnSum {
		mean[i] = s / n
	}
	m.Stats = Stats{
		ReturnMean: mean,
		ReturnMin:  total.returnMin,
		ReturnMax:  total.returnMax,
		LengthMean: float64(m.TotalSteps) / n,
		LengthMin:  total.lengthMin,
		LengthMax:  total.lengthMax,
		Outcomes:   total.outcomes,
	}
	return m
}
