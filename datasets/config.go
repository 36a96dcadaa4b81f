package datasets

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/galaxygym/galaxygym/agents"
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
	// ObsEncoding is the obs column's encoding ("": ObsPlain). A compact
	// dataset (Observations ObsNone) records it for the full dataset that
	// [Materialize] derives.
	ObsEncoding ObsEncoding
	// Observations is ObsStored ("" too: the default) for observation and
	// mask columns in the steps table, ObsNone for a compact dataset
	// without them, derived on read by replaying the episodes
	// ([Materialize], [Derive]; docs/datasets.md, "Compact datasets").
	Observations Observations
	// ZstdLevel is the compression effort ("": ZstdBetter).
	ZstdLevel ZstdLevel
	// RecordSearch adds the search columns to the steps table
	// (ColSearchPolicy, ColSearchValue; generate --record-search): at each
	// decision of a seat played by the mcts agent, its visit fractions over
	// the actions and its root value, from [agents.MCTS.ActExplained],
	// which plays the same moves as Act. Seats of other agents get 1 on the
	// action played and NaN. At least one seat must be an mcts agent;
	// Bench refuses it.
	RecordSearch bool
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
	if c.Observations == ObsNone {
		b.WriteString(" --observations none")
	}
	if c.RecordSearch {
		b.WriteString(" --record-search")
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
