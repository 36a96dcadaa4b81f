package datasets

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/galaxygym/galaxygym/agents"
)

// JobFile is the record every shard of a sharded run writes at the root of
// the output (see Config.Shards): the run's parameters, which [Merge]
// reads back. Merge removes it once manifest.json is written.
const JobFile = "job.json"

// JobSpec is the content of [JobFile]: every Config field that changes the
// files, and the command line recorded as the manifest's created_by. All
// shards of one run write the same bytes.
type JobSpec struct {
	Env             string                    `json:"env"`
	EnvParams       map[string]any            `json:"env_params,omitempty"`
	Agent           string                    `json:"agent,omitempty"`
	AgentOptions    agents.Options            `json:"agent_options,omitempty"`
	Seats           []string                  `json:"seats,omitempty"`
	SeatOptions     map[string]agents.Options `json:"seat_options,omitempty"`
	Episodes        int64                     `json:"episodes"`
	Seed            uint64                    `json:"seed"`
	EpisodesPerPart int                       `json:"episodes_per_part"`
	ObsEncoding     ObsEncoding               `json:"obs_encoding,omitempty"`
	Observations    Observations              `json:"observations,omitempty"`
	RecordSearch    bool                      `json:"record_search,omitempty"`
	ZstdLevel       ZstdLevel                 `json:"zstd_level,omitempty"`
	DatasetID       string                    `json:"dataset_id,omitempty"`
	Author          string                    `json:"author,omitempty"`
	CommandLine     string                    `json:"command_line,omitempty"`
	Shards          int                       `json:"shards"`
}

// jobSpec returns the JobSpec of c.
func (c *Config) jobSpec() JobSpec {
	return JobSpec{Env: c.Env, EnvParams: c.EnvParams, Agent: c.Agent, AgentOptions: c.AgentOptions,
		Seats: c.Seats, SeatOptions: c.SeatOptions, Episodes: c.Episodes, Seed: c.Seed,
		EpisodesPerPart: c.partSize(false), ObsEncoding: c.ObsEncoding, ZstdLevel: c.ZstdLevel,
		Observations: c.Observations, RecordSearch: c.RecordSearch, DatasetID: c.DatasetID, Author: c.Author,
		CommandLine: c.CommandLine, Shards: c.Shards}
}

// config returns the Config a JobSpec stands for, writing to out.
func (j *JobSpec) config(out string) Config {
	return Config{Env: j.Env, EnvParams: j.EnvParams, Agent: j.Agent, AgentOptions: j.AgentOptions,
		Seats: j.Seats, SeatOptions: j.SeatOptions, Episodes: j.Episodes, Seed: j.Seed,
		EpisodesPerPart: j.EpisodesPerPart, ObsEncoding: j.ObsEncoding, ZstdLevel: j.ZstdLevel,
		Observations: j.Observations, RecordSearch: j.RecordSearch, DatasetID: j.DatasetID, Author: j.Author,
		CommandLine: j.CommandLine, Out: out}
}

// writeJob writes job.json, or checks that the one there (another shard's)
// describes the same run.
func (r *run) writeJob() error {
	data, err := compactJSON(r.cfg.jobSpec())
	if err != nil {
		return err
	}
	data = append(data, '\n')
	name := filepath.Join(r.dir, JobFile)
	if have, err := r.fs.ReadFile(name); err == nil {
		if string(have) == string(data) {
			return nil
		}
		return &MismatchError{Dir: r.cfg.Out, File: JobFile, Field: "job",
			Have: strings.TrimSpace(string(have)), Want: strings.TrimSpace(string(data))}
	} else if !isNotExist(err) {
		return &FormatError{Path: r.cfg.Out + "/" + JobFile, Reason: "cannot read", Err: err}
	}
	return writeAtomic(r.fs, name, data)
}

// MissingPartsError reports a [Merge] of a sharded run whose parts are not
// all complete (a shard has not finished, or a part failed its checksum).
type MissingPartsError struct {
	Out    string
	Parts  []int // the missing parts
	Shards []int // the shards that write them
}

func (e *MissingPartsError) Error() string {
	parts := fmt.Sprint(e.Parts)
	if len(e.Parts) > 20 {
		parts = fmt.Sprint(e.Parts[:20]) + fmt.Sprintf(" and %d more", len(e.Parts)-20)
	}
	return fmt.Sprintf("datasets: %s: %d parts missing or not matching their checksums: %s; rerun shards %v",
		e.Out, len(e.Parts), parts, e.Shards)
}

// Merge finishes a sharded run in out (a directory or a bucket URL): it
// reads job.json, checks every part of every shard (footers, rows and the
// SHA-256 recorded when it was written) and writes manifest.json, then
// removes the records it replaces (checksums/, job.json). The result is
// the dataset one Generate of the same parameters writes, byte for byte.
// Parts missing or failing their checks give a [*MissingPartsError]
// naming the shards to run again; no manifest is written then.
func Merge(ctx context.Context, out string) (*Result, error) {
	t0 := time.Now()
	var fsys fileSystem = osFS{}
	dir := out
	if IsURL(out) {
		bfs, err := openBlobFS(ctx, out)
		if err != nil {
			return nil, err
		}
		defer bfs.close()
		fsys, dir = bfs, ""
	}
	data, err := fsys.ReadFile(filepath.Join(dir, JobFile))
	if err != nil {
		if isNotExist(err) {
			if m, merr := readManifest(fsys, dir); merr == nil {
				return &Result{Manifest: m, PartsKept: len(m.Parts)}, nil // merged already
			}
		}
		return nil, &FormatError{Path: out + "/" + JobFile, Reason: "cannot read the job record of a sharded run", Err: err}
	}
	var job JobSpec
	if err := json.Unmarshal(data, &job); err != nil {
		return nil, &FormatError{Path: out + "/" + JobFile, Reason: "malformed job record", Err: err}
	}
	cfg := job.config(out)
	r, err := prepare(&cfg, false)
	if err != nil {
		return nil, err
	}
	r.fs, r.dir = fsys, dir
	if err := r.scan(); err != nil {
		return nil, err
	}
	var missing MissingPartsError
	missing.Out = out
	for i, pr := range r.results {
		if pr == nil {
			missing.Parts = append(missing.Parts, i)
			for s := range max(job.Shards, 1) {
				if lo, hi := shardParts(r.numParts, s, max(job.Shards, 1)); i >= lo && i < hi &&
					(len(missing.Shards) == 0 || missing.Shards[len(missing.Shards)-1] != s) {
					missing.Shards = append(missing.Shards, s)
				}
			}
		}
	}
	if len(missing.Parts) > 0 {
		return nil, &missing
	}
	res := &Result{PartsKept: r.numParts}
	if err := r.finish(res); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(t0)
	return res, nil
}

// shardParts returns the parts [lo, hi) of shard i of n among numParts:
// consecutive ranges whose sizes differ by at most one.
func shardParts(numParts, i, n int) (lo, hi int) {
	return i * numParts / n, (i + 1) * numParts / n
}

// ShardParts returns the part indices [lo, hi) that shard i of n plays in a
// run of numParts parts (see Config.Shards).
func ShardParts(numParts, i, n int) (lo, hi int) { return shardParts(numParts, i, n) }
