package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// Dataset is a finished dataset opened with [Open].
type Dataset struct {
	// Dir is the dataset directory.
	Dir string
	// Manifest is the parsed manifest.json.
	Manifest *Manifest

	fs fileSystem // where the files are: the operating system, or a bucket (OpenURL)
}

// Open reads the manifest of the dataset in dir. It returns an error
// wrapping [ErrNoManifest] when dir holds no finished dataset.
func Open(dir string) (*Dataset, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	return &Dataset{Dir: dir, Manifest: m, fs: osFS{}}, nil
}

// Episode is one row of the episodes table.
type Episode struct {
	ID        int64     // episode_id
	Seed      uint64    // the environment seed
	AgentSeed uint64    // the agent's seed (derived: EpisodeSeeds)
	Agent     string    // the agent's name (the seats' agents joined by commas for mixed seats)
	Seats     []string  // the agent of every seat, index = player
	Length    int       // steps T; the steps table holds T+1 rows
	Returns   []float64 // undiscounted return of every player
	Outcome   string    // "win", "loss", "draw" or "truncated"
	Scores    []float64 // every player's score (env.Info.Scores)
	Ranks     []int     // every player's rank, 1 = best, ties share
	Outcomes  []string  // every player's "win", "loss" or "draw"
	Info      string    // the env.Info JSON at the end of the episode
}

// Step is one row of the steps table; see docs/datasets.md for the final
// row of an episode (Action -1).
type Step struct {
	EpisodeID  int64
	Step       int       // 0..T
	Player     int       // whose observation Obs is
	Obs        []byte    // ObsSize bytes
	ActionMask []byte    // NumActions bytes, 1 = legal
	Action     int       // -1 on the final row
	Reward     float32   // the acting player's reward for the step
	Rewards    []float32 // every player's reward for the step
	Terminated bool
	Truncated  bool
	// SearchPolicy and SearchValue are the search columns of a dataset
	// generated with Config.RecordSearch (ColSearchPolicy: NumActions
	// visit fractions; ColSearchValue: the acting seat's root value, NaN
	// when unsearched); SearchPolicy is empty and SearchValue 0 otherwise.
	SearchPolicy []float32
	SearchValue  float32
}

// Episodes iterates over the episodes table in episode order. Errors
// (unreadable files: [*FormatError]) end the iteration.
func (d *Dataset) Episodes() iter.Seq2[*Episode, error] {
	return func(yield func(*Episode, error) bool) {
		for _, p := range d.Manifest.Parts {
			stop := errors.New("stop")
			err := readEpisodesFile(d.fs, filepath.Join(d.Dir, filepath.FromSlash(p.Episodes.Path)), func(row *episodeRow) error {
				ep := &Episode{
					ID:        row.EpisodeID,
					Seed:      uint64(row.Seed),
					AgentSeed: agentSeedOf(d.Manifest.Seed, row.EpisodeID),
					Agent:     row.Agent,
					Length:    int(row.Length),
					Returns:   append([]float64(nil), row.Returns...),
					Outcome:   row.Outcome,
					Seats:     slices.Clone(row.SeatAgents),
					Scores:    slices.Clone(row.Scores),
					Outcomes:  slices.Clone(row.Outcomes),
					Info:      row.Info,
				}
				for _, r := range row.Ranks {
					ep.Ranks = append(ep.Ranks, int(r))
				}
				if !yield(ep, nil) {
					return stop
				}
				return nil
			})
			if err == stop {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
		}
	}
}

// Steps iterates over the steps table in order (episode by episode, step
// by step). The *Step and its slices are reused: they are valid until the
// next iteration. Errors ([*FormatError]) end the iteration.
func (d *Dataset) Steps() iter.Seq2[*Step, error] {
	return func(yield func(*Step, error) bool) {
		for _, p := range d.Manifest.Parts {
			for s, err := range readStepsFile(d.fs, filepath.Join(d.Dir, filepath.FromSlash(p.Steps.Path))) {
				if !yield(s, err) || err != nil {
					return
				}
			}
		}
	}
}

// ReadStepsFile iterates over the rows of one steps part file, like
// [Dataset.Steps].
func ReadStepsFile(path string) iter.Seq2[*Step, error] { return readStepsFile(osFS{}, path) }

func readStepsFile(fsys fileSystem, path string) iter.Seq2[*Step, error] {
	return func(yield func(*Step, error) bool) {
		f, err := fsys.Open(path)
		if err != nil {
			yield(nil, &FormatError{Path: path, Reason: "cannot open", Err: err})
			return
		}
		defer f.Close()
		pf, err := openParquet(f, path)
		if err != nil {
			yield(nil, err)
			return
		}
		cols, ok := stepsColumns(pf.Schema().Columns())
		if !ok {
			yield(nil, &FormatError{Path: path, Reason: "not a steps table"})
			return
		}
		var s Step
		buf := make([]parquet.Row, 128)
		for _, rg := range pf.RowGroups() {
			rows := rg.Rows()
			for {
				n, err := guardRead(path, func() (int, error) { return rows.ReadRows(buf) })
				for _, row := range buf[:n] {
					decodeStep(&s, row, cols)
					if !yield(&s, nil) {
						rows.Close()
						return
					}
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					rows.Close()
					yield(nil, &FormatError{Path: path, Reason: "cannot read rows", Err: err})
					return
				}
			}
			rows.Close()
		}
	}
}

// stepsColumns maps the leaf columns of a steps file to the col*
// constants: every column of a full steps table, or all but obs and
// action_mask for a compact one (Observations ObsNone).
func stepsColumns(leaves [][]string) ([]int, bool) {
	var cols []int
	for i, p := range columnPaths {
		if len(cols) < len(leaves) && slices.Equal(leaves[len(cols)], p) {
			cols = append(cols, i)
		} else if i != colObs && i != colActionMask && i < numStepColumns {
			return nil, false
		}
	}
	n := len(cols)
	if n > 0 && cols[n-1] >= numStepColumns {
		// The search columns come both or neither (RecordSearch).
		if n < 2 || cols[n-2] != colSearchPolicy {
			return nil, false
		}
		n -= 2
	}
	ok := len(cols) == len(leaves) && (n == numStepColumns || n == numStepColumns-2)
	return cols, ok
}

// decodeStep fills s from a row of the steps table whose leaf column i is
// cols[i]. A compact file's rows leave Obs and ActionMask empty.
func decodeStep(s *Step, row parquet.Row, cols []int) {
	s.Rewards = s.Rewards[:0]
	s.SearchPolicy = s.SearchPolicy[:0]
	if len(cols) <= colObs || cols[colObs] != colObs {
		s.Obs, s.ActionMask = s.Obs[:0], s.ActionMask[:0]
	}
	for _, v := range row {
		switch cols[v.Column()] {
		case colEpisodeID:
			s.EpisodeID = v.Int64()
		case colStep:
			s.Step = int(v.Int32())
		case colPlayer:
			s.Player = int(v.Int32())
		case colObs:
			s.Obs = append(s.Obs[:0], v.ByteArray()...)
		case colActionMask:
			s.ActionMask = append(s.ActionMask[:0], v.ByteArray()...)
		case colAction:
			s.Action = int(v.Int32())
		case colReward:
			s.Reward = v.Float()
		case colRewards:
			if !v.IsNull() {
				s.Rewards = append(s.Rewards, v.Float())
			}
		case colSearchPolicy:
			if !v.IsNull() {
				s.SearchPolicy = append(s.SearchPolicy, v.Float())
			}
		case colSearchValue:
			s.SearchValue = v.Float()
		case colTerminated:
			s.Terminated = v.Boolean()
		case colTruncated:
			s.Truncated = v.Boolean()
		}
	}
}

// openParquet opens a Parquet file for reading its footer and rows. A
// corrupt footer that makes parquet-go panic (it trusts some of the
// footer's sizes: a fuzzed part made it slice with a negative bound) is a
// *FormatError like any other unreadable file.
func openParquet(f readableFile, path string) (pf *parquet.File, err error) {
	size, err := f.Size()
	if err != nil {
		return nil, &FormatError{Path: path, Reason: "cannot stat", Err: err}
	}
	defer func() {
		if r := recover(); r != nil {
			pf, err = nil, &FormatError{Path: path, Reason: "not a readable Parquet file", Err: fmt.Errorf("parquet-go: %v", r)}
		}
	}()
	pf, err = parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &FormatError{Path: path, Reason: "not a readable Parquet file", Err: err}
	}
	return pf, nil
}

// guardRead calls read, a parquet-go read of rows, and turns a panic of the
// library on corrupt pages (it trusts some encoded counts: a fuzzed part
// made it panic with a negative number of values) into a *FormatError.
func guardRead(path string, read func() (int, error)) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, &FormatError{Path: path, Reason: "cannot read rows", Err: fmt.Errorf("parquet-go: %v", r)}
		}
	}()
	return read()
}

// ReadFooter returns the key/value metadata of a part file's footer (the
// Key* constants) and its number of rows.
func ReadFooter(path string) (map[string]string, int64, error) { return readFooter(osFS{}, path) }

func readFooter(fsys fileSystem, path string) (map[string]string, int64, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, 0, &FormatError{Path: path, Reason: "cannot open", Err: err}
	}
	defer f.Close()
	pf, err := openParquet(f, path)
	if err != nil {
		return nil, 0, err
	}
	kv := make(map[string]string)
	for _, e := range pf.Metadata().KeyValueMetadata {
		kv[e.Key] = e.Value
	}
	if kv[KeySchemaVersion] == "" {
		return nil, 0, &FormatError{Path: path, Reason: "no " + KeySchemaVersion + " in the footer"}
	}
	return kv, pf.NumRows(), nil
}

// readEpisodesFile calls fn for every row of an episodes part file, in
// order; the row is reused.
func readEpisodesFile(fsys fileSystem, path string, fn func(*episodeRow) error) error {
	f, err := fsys.Open(path)
	if err != nil {
		return &FormatError{Path: path, Reason: "cannot open", Err: err}
	}
	defer f.Close()
	pf, err := openParquet(f, path)
	if err != nil {
		return err
	}
	if _, ok := pf.Schema().Lookup("outcome"); !ok {
		return &FormatError{Path: path, Reason: "not an episodes table"}
	}
	r := parquet.NewGenericReader[episodeRow](pf)
	defer r.Close()
	buf := make([]episodeRow, 256)
	for {
		n, err := guardRead(path, func() (int, error) { return r.Read(buf) })
		for i := range buf[:n] {
			if ferr := fn(&buf[i]); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &FormatError{Path: path, Reason: "cannot read rows", Err: err}
		}
	}
}

// hashFile returns the hex SHA-256 and size of a file.
func hashFile(fsys fileSystem, path string) (string, int64, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// Verify checks every part of the dataset against the manifest: sizes,
// SHA-256 checksums, row counts and footer ranges. It returns the first
// problem as a [*FormatError].
func (d *Dataset) Verify() error {
	for _, p := range d.Manifest.Parts {
		for _, fi := range []FileInfo{p.Steps, p.Episodes} {
			path := filepath.Join(d.Dir, filepath.FromSlash(fi.Path))
			sum, size, err := hashFile(d.fs, path)
			if err != nil {
				return &FormatError{Path: path, Reason: "cannot read", Err: err}
			}
			if size != fi.Bytes || sum != fi.SHA256 {
				return &FormatError{Path: path, Reason: fmt.Sprintf("size %d sha256 %s, manifest says %d %s", size, sum, fi.Bytes, fi.SHA256)}
			}
			kv, rows, err := readFooter(d.fs, path)
			if err != nil {
				return err
			}
			if rows != fi.Rows || kv[KeyEpisodeStart] != strconv.FormatInt(p.EpisodeStart, 10) ||
				kv[KeyEpisodeEnd] != strconv.FormatInt(p.EpisodeEnd, 10) {
				return &FormatError{Path: path, Reason: "rows or episode range differ from the manifest"}
			}
		}
	}
	return nil
}

func agentSeedOf(seed uint64, ep int64) uint64 {
	_, a := EpisodeSeeds(seed, ep)
	return a
}
