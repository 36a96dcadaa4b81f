package datasets

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	pzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// createdBy is the Parquet footer's created_by. It names no library version
// so that files are byte-identical across builds that write the same data.
const createdBy = "galaxygym datasets"

// workerCodec compresses the episodes table with the worker's own zstd
// encoder (the steps table's). parquet-go's shared codec keeps its encoders
// in a pool emptied by every garbage collection, and re-creating them (with
// their 8 MiB history buffers) cost more than writing the table.
type workerCodec struct{ enc *zstd.Encoder }

var zstdDecoder = &pzstd.Codec{}

func (c workerCodec) String() string                            { return "ZSTD" }
func (c workerCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }
func (c workerCodec) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}
func (c workerCodec) Decode(dst, src []byte) ([]byte, error) { return zstdDecoder.Decode(dst, src) }

// partName returns the file name of part index.
func partName(index int) string { return fmt.Sprintf("part-%05d.parquet", index) }

// tmpName returns the temporary name a part is written under: unique to
// this process, so that two processes writing the same part (a shard
// retried while its first pod still runs) never write into one file; the
// last rename wins, and both wrote the same bytes.
func tmpName(index int) string { return "." + partName(index) + "." + procToken + ".tmp" }

// procToken tells this process's temporary files from another's.
var procToken = fmt.Sprintf("%d-%08x", os.Getpid(), rand.Uint32())

// runMeta is what every part's footer records about the run.
type runMeta struct {
	datasetID       string
	envID           string
	envVersion      string
	envParams       string // JSON
	numPlayers      int
	obsShape        string // JSON
	obsSize         int
	numActions      int
	actionNames     string // JSON
	agent           string
	agentVersion    string
	agentOptions    string // JSON
	seedRule        string
	seed            uint64
	episodesPerPart int
	obsEncoding     ObsEncoding
	zstdLevel       ZstdLevel
	// dropObsPages makes the steps writer transpose each obs page and
	// then drop it, so that a benchmark times everything else; the files
	// are then invalid. Only BenchmarkGenerateRandomObsDropped sets it,
	// through Config.dropObsPages (unexported: no caller outside this
	// package's tests can).
	dropObsPages bool
	// compact is set for Observations ObsNone: the steps table has no obs
	// and action_mask columns, and the footers say observations=none.
	compact bool
	// search is set for Config.RecordSearch: the steps table has the
	// search_policy and search_value columns, and the footers say
	// search=visits.
	search bool
}

// footer returns the key/value metadata of a part, in a fixed order.
func (m *runMeta) footer(table string, part int, start, end int64) [][2]string {
	kv := [][2]string{
		{KeySchemaVersion, strconv.Itoa(SchemaVersion)},
		{KeyTable, table},
		{KeyDatasetID, m.datasetID},
		{KeyEnvID, m.envID},
		{KeyEnvVersion, m.envVersion},
		{KeyEnvParams, m.envParams},
		{KeyNumPlayers, strconv.Itoa(m.numPlayers)},
		{KeyObsShape, m.obsShape},
		{KeyObsDType, "uint8"},
		{KeyObsEncoding, m.obsEncoding.parquetName()},
		{KeyZstdLevel, string(m.zstdLevel)},
		{KeyNumActions, strconv.Itoa(m.numActions)},
		{KeyActionNames, m.actionNames},
		{KeyAgent, m.agent},
		{KeyAgentVersion, m.agentVersion},
		{KeyAgentOptions, m.agentOptions},
		{KeySeed, strconv.FormatUint(m.seed, 10)},
		{KeySeedRule, m.seedRule},
		{KeyEpisodesPerPart, strconv.Itoa(m.episodesPerPart)},
		{KeyPart, strconv.Itoa(part)},
		{KeyEpisodeStart, strconv.FormatInt(start, 10)},
		{KeyEpisodeEnd, strconv.FormatInt(end, 10)},
	}
	if m.compact {
		kv = append(kv, [2]string{KeyObservations, string(ObsNone)})
	}
	if m.search {
		kv = append(kv, [2]string{KeySearch, SearchVisits})
	}
	return kv
}

// observations returns the Observations of m's dataset.
func (m *runMeta) observations() Observations {
	if m.compact {
		return ObsNone
	}
	return ObsStored
}

// searchName returns the footers' and manifest's search value of m's
// dataset: SearchVisits or "".
func (m *runMeta) searchName() string {
	if m.search {
		return SearchVisits
	}
	return ""
}

// partStats accumulates a part's episode statistics in episode order, the
// same whether the part was just written or read back on resume.
type partStats struct {
	episodes   int64
	steps      int64
	lengthMin  int64
	lengthMax  int64
	returnSum  []float64
	returnMin  []float64
	returnMax  []float64
	outcomes   map[string]int64
	numPlayers int
}

func newPartStats(numPlayers int) *partStats {
	return &partStats{
		returnSum:  make([]float64, numPlayers),
		returnMin:  make([]float64, numPlayers),
		returnMax:  make([]float64, numPlayers),
		outcomes:   map[string]int64{},
		numPlayers: numPlayers,
		lengthMin:  math.MaxInt64,
		lengthMax:  -1,
	}
}

func (p *partStats) add(length int64, returns []float64, outcome string) {
	if p.episodes == 0 {
		copy(p.returnMin, returns)
		copy(p.returnMax, returns)
	}
	p.episodes++
	p.steps += length
	p.lengthMin = min(p.lengthMin, length)
	p.lengthMax = max(p.lengthMax, length)
	for i, r := range returns {
		p.returnSum[i] += r
		p.returnMin[i] = min(p.returnMin[i], r)
		p.returnMax[i] = max(p.returnMax[i], r)
	}
	p.outcomes[outcome]++
}

// partResult is a finished part: its manifest entry and statistics.
type partResult struct {
	info  PartInfo
	stats *partStats
}

// partWriter writes one part: the steps and episodes files, each under a
// temporary name in its final directory, synced and renamed into place by
// finish. A part that is not finished leaves no file under a final name.
type partWriter struct {
	fs    fileSystem
	dir   string
	index int
	start int64
	end   int64
	meta  *runMeta

	stepsFile, episodesFile *trackingFile
	steps                   *stepsFile
	episodes                *parquet.GenericWriter[episodeRow]
	epBatch                 []episodeRow
	stats                   *partStats
}

// paths returns the final and temporary names of a part's file.
func partPaths(dir, sub string, index int) (final, tmp string) {
	return filepath.Join(dir, sub, partName(index)), filepath.Join(dir, sub, tmpName(index))
}

// newPartWriter starts part index, episodes [start, end). steps is the
// worker's steps writer from an earlier part of the same run, or nil.
func newPartWriter(fsys fileSystem, dir string, index int, start, end int64, meta *runMeta, zenc *zstd.Encoder, steps *stepsFile) (*partWriter, error) {
	p := &partWriter{fs: fsys, dir: dir, index: index, start: start, end: end, meta: meta,
		stats: newPartStats(meta.numPlayers)}
	sf, st := partPaths(dir, StepsDir, index)
	f, err := fsys.Create(st)
	if err != nil {
		return nil, &WriteError{"create", sf, unwrapPath(err)}
	}
	p.stepsFile = newTrackingFile(f)
	ef, et := partPaths(dir, EpisodesDir, index)
	f, err = fsys.Create(et)
	if err != nil {
		p.abort()
		return nil, &WriteError{"create", ef, unwrapPath(err)}
	}
	p.episodesFile = newTrackingFile(f)

	if steps == nil {
		steps = newStepsFile(p.stepsFile, zenc, meta)
	} else {
		steps.reset(p.stepsFile)
	}
	p.steps = steps
	for _, kv := range meta.footer("steps", index, start, end) {
		p.steps.setKeyValue(kv[0], kv[1])
	}
	p.episodes = parquet.NewGenericWriter[episodeRow](p.episodesFile,
		&parquet.WriterConfig{CreatedBy: createdBy},
		parquet.Compression(workerCodec{zenc}))
	for _, kv := range meta.footer("episodes", index, start, end) {
		p.episodes.SetKeyValueMetadata(kv[0], kv[1])
	}
	p.epBatch = make([]episodeRow, 0, 64)
	return p, nil
}

// unwrapPath strips the *fs.PathError or *os.LinkError around err, whose
// name is the temporary file's: the caller names the final one.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// fileErr turns an error of a part file into a *WriteError naming the
// file, with the I/O cause when there was one.
func (p *partWriter) fileErr(sub string, t *trackingFile, op string, err error) error {
	final, _ := partPaths(p.dir, sub, p.index)
	if t.err != nil {
		err = t.err
	}
	return &WriteError{op, final, err}
}

// endEpisode records an episode's row of the episodes table.
func (p *partWriter) endEpisode(row episodeRow) error {
	p.stats.add(int64(row.Length), row.Returns, row.Outcome)
	p.epBatch = append(p.epBatch, row)
	if len(p.epBatch) == cap(p.epBatch) {
		return p.flushEpisodes()
	}
	return nil
}

func (p *partWriter) flushEpisodes() error {
	if len(p.epBatch) == 0 {
		return nil
	}
	if _, err := p.episodes.Write(p.epBatch); err != nil {
		return p.fileErr(EpisodesDir, p.episodesFile, "write", err)
	}
	clear(p.epBatch)
	p.epBatch = p.epBatch[:0]
	return nil
}

// stepErr wraps an error of the steps writer.
func (p *partWriter) stepErr(err error) error {
	if err == nil {
		return nil
	}
	return p.fileErr(StepsDir, p.stepsFile, "write", err)
}

// finish closes both files, syncs them and renames them to their final
// names (episodes first: a part counts as present only when both are).
func (p *partWriter) finish() (*partResult, error) {
	if err := p.flushEpisodes(); err != nil {
		return nil, err
	}
	rows := p.stats.steps + p.stats.episodes
	p.steps.setKeyValue(KeyNumSteps, strconv.FormatInt(p.stats.steps, 10))
	p.steps.setKeyValue(KeyNumRows, strconv.FormatInt(rows, 10))
	p.episodes.SetKeyValueMetadata(KeyNumSteps, strconv.FormatInt(p.stats.steps, 10))
	p.episodes.SetKeyValueMetadata(KeyNumRows, strconv.FormatInt(rows, 10))
	if err := p.steps.close(); err != nil {
		return nil, p.stepErr(err)
	}
	if p.steps.rows != rows {
		return nil, p.stepErr(fmt.Errorf("wrote %d rows, want %d", p.steps.rows, rows))
	}
	if err := p.episodes.Close(); err != nil {
		return nil, p.fileErr(EpisodesDir, p.episodesFile, "write", err)
	}
	files := [2]struct {
		sub string
		t   *trackingFile
	}{{EpisodesDir, p.episodesFile}, {StepsDir, p.stepsFile}}
	for _, f := range files {
		if err := f.t.f.Sync(); err != nil {
			return nil, p.fileErr(f.sub, f.t, "sync", err)
		}
		err := f.t.f.Close()
		f.t.f = nil
		if err != nil {
			return nil, p.fileErr(f.sub, f.t, "close", err)
		}
	}
	info := PartInfo{
		Index:        p.index,
		EpisodeStart: p.start,
		EpisodeEnd:   p.end,
		NumSteps:     p.stats.steps,
		Steps: FileInfo{
			Path:   StepsDir + "/" + partName(p.index),
			Rows:   p.steps.rows,
			Bytes:  p.stepsFile.n,
			SHA256: hex.EncodeToString(p.stepsFile.h.Sum(nil)),
		},
		Episodes: FileInfo{
			Path:   EpisodesDir + "/" + partName(p.index),
			Rows:   p.stats.episodes,
			Bytes:  p.episodesFile.n,
			SHA256: hex.EncodeToString(p.episodesFile.h.Sum(nil)),
		},
	}
	// The record goes first: a part renamed into place always has one.
	if err := writeChecksum(p.fs, p.dir, &info); err != nil {
		return nil, err
	}
	for _, f := range files {
		final, tmp := partPaths(p.dir, f.sub, p.index)
		if err := p.fs.Rename(tmp, final); err != nil {
			return nil, &WriteError{"rename", final, unwrapPath(err)}
		}
	}
	for _, sub := range []string{EpisodesDir, StepsDir} {
		if err := p.fs.SyncDir(filepath.Join(p.dir, sub)); err != nil {
			return nil, &WriteError{"sync", filepath.Join(p.dir, sub), unwrapPath(err)}
		}
	}
	return &partResult{info, p.stats}, nil
}

// abort closes and removes the temporary files of an unfinished part.
func (p *partWriter) abort() {
	for _, f := range [2]struct {
		sub string
		t   *trackingFile
	}{{StepsDir, p.stepsFile}, {EpisodesDir, p.episodesFile}} {
		if f.t == nil {
			continue
		}
		if f.t.f != nil {
			f.t.f.Close()
			f.t.f = nil
		}
		_, tmp := partPaths(p.dir, f.sub, p.index)
		p.fs.Remove(tmp)
	}
}
