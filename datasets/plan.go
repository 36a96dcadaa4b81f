package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

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
	src      *Dataset      // Materialize: the compact dataset replayed, else nil

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
	switch cfg.Observations {
	case "", ObsStored, ObsNone:
	default:
		return nil, &ConfigError{Field: "Observations", Reason: fmt.Sprintf("%q: want %q or %q", cfg.Observations, ObsStored, ObsNone)}
	}
	if cfg.Observations == ObsNone && bench {
		return nil, &ConfigError{Field: "Observations", Reason: "Bench writes nothing; leave Observations empty"}
	}
	if cfg.RecordSearch && bench {
		return nil, &ConfigError{Field: "RecordSearch", Reason: "Bench writes nothing; leave RecordSearch unset"}
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
	loop, names, err := r.newLoop()
	if err != nil {
		return nil, err
	}
	e := loop.Env()
	spec := e.Spec()
	r.spec, r.params, r.loop0, r.names = spec, e.Params(), loop, names
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
		compact:         cfg.Observations == ObsNone,
		search:          cfg.RecordSearch,
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

// newLoop makes an environment and the agents of its seats, and returns
// the seats' agent names. Workers call it at once: it writes nothing of r.
func (r *run) newLoop() (*rollout.Loop, []string, error) {
	cfg := r.cfg
	if r.src != nil {
		return nil, nil, errors.New("datasets: a replay makes its loops with newReplayLoop")
	}
	e, err := env.Make(cfg.Env, cfg.EnvParams)
	if err != nil {
		return nil, nil, &ConfigError{Field: "Env", Reason: "cannot make " + strconv.Quote(cfg.Env), Err: err}
	}
	n := e.Spec().NumPlayers
	var seats []agents.Agent
	var names []string
	if len(cfg.Seats) == 0 {
		a, err := agents.New(cfg.Agent, e.Spec(), cfg.AgentOptions)
		if err != nil {
			return nil, nil, &ConfigError{Field: "Agent", Reason: "cannot make " + strconv.Quote(cfg.Agent), Err: err}
		}
		seats, names = rollout.Same(a, cfg.Agent, n)
	} else {
		if len(cfg.Seats) != n {
			return nil, nil, &ConfigError{Field: "Seats", Reason: fmt.Sprintf("%d agents for %d players", len(cfg.Seats), n)}
		}
		names = cfg.Seats
		for _, name := range cfg.Seats {
			a, err := agents.New(name, e.Spec(), cfg.SeatOptions[name])
			if err != nil {
				return nil, nil, &ConfigError{Field: "Seats", Reason: "cannot make " + strconv.Quote(name), Err: err}
			}
			seats = append(seats, a)
		}
	}
	if cfg.RecordSearch {
		if seats, err = searchSeats(seats); err != nil {
			return nil, nil, err
		}
	}
	l, err := rollout.New(e, seats, names)
	return l, names, err
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

// partRange returns the episodes [start, end) of part i.
func (r *run) partRange(i int) (start, end int64) {
	start = int64(i) * int64(r.partSize)
	return start, min(start+int64(r.partSize), r.cfg.Episodes)
}
