package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

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
		{"observations", cmp.Or(m.Observations, string(ObsStored)), string(m0.observations())},
		{"search", m.Search, m0.searchName()},
	}
	for _, c := range checks {
		if err := r.compare(ManifestFile, c[0], c[1], c[2]); err != nil {
			return err
		}
	}
	return nil
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
			{"observations", cmp.Or(kv[KeyObservations], string(ObsStored)), string(m.observations())},
			{"search", kv[KeySearch], m.searchName()},
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
