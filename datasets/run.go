package datasets

import (
	"context"
	"path/filepath"
	"time"

	"github.com/galaxygym/galaxygym/version"
)

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
	m.Search = r.meta.searchName()
	if r.meta.compact {
		m.Observations = string(ObsNone)
		m.Derive = &DeriveInfo{
			Method:      "replay",
			EnvID:       spec.ID,
			EnvVersion:  r.meta.envVersion,
			EnvParams:   r.params,
			Build:       version.Version,
			Command:     "galaxygym dataset materialize IN OUT",
			ObsEncoding: r.meta.obsEncoding.parquetName(),
		}
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

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
