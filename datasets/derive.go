package datasets

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
	"github.com/galaxygym/galaxygym/version"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

func buildVersion() string { return version.Version }

var timeNow = time.Now

// A compact dataset (Config.Observations ObsNone) stores every column but
// the observations and action masks. The environments are deterministic:
// an episode is its environment id, parameters, seed and actions, so the
// missing columns are derived by replaying each episode. [Materialize]
// writes the full dataset (the files `generate --observations stored`
// writes, byte for byte); [Derive] streams the observations and masks to
// a reader (galaxygym.datasets.load). Both refuse, with a *[DeriveError], a
// dataset this build cannot replay faithfully.

// ErrUnderivable is wrapped by [*DeriveError]; test with errors.Is.
var ErrUnderivable = errors.New("datasets: cannot derive the observations of a compact dataset")

// DeriveError reports a compact dataset whose observations this build
// cannot derive: another environment version or parameter set, or a
// recorded episode this build's environment does not replay (an illegal
// action, another player to act, other rewards or another result). No
// observation is derived from such a dataset.
type DeriveError struct {
	Dir     string // the compact dataset
	Field   string // what differs: "env_id", "env_params", "env_spec.params", "action", "player", "rewards", ...
	Have    string // its value in the dataset
	Want    string // its value under this build
	Episode int64  // the episode, or -1 for the dataset as a whole
	Step    int    // the step in the episode (with Episode >= 0)
}

func (e *DeriveError) Error() string {
	where := ""
	if e.Episode >= 0 {
		where = fmt.Sprintf(" at episode %d step %d", e.Episode, e.Step)
	}
	return fmt.Sprintf("datasets: cannot derive the observations of the compact dataset %s: %s%s is %s in the dataset but %s under this build (galaxygym %s); "+
		"derive it with the build that wrote it (its manifest's galaxygym_version)",
		e.Dir, e.Field, where, e.Have, e.Want, buildVersion())
}

// Unwrap returns [ErrUnderivable].
func (e *DeriveError) Unwrap() error { return ErrUnderivable }

// checkDerivable makes the compact dataset's environment and refuses it
// when this build's differs from the one that wrote d: an id this build
// does not have, parameters it resolves otherwise (a parameter added or
// removed), or another spec (a changed default, observation shape, action
// names, bounds).
func checkDerivable(d *Dataset, dir string) (*env.Env, error) {
	return CheckDerivable(d.Manifest, dir)
}

// CheckDerivable makes the environment of the compact dataset dir whose
// manifest is m, and returns a *[DeriveError] when this build's differs
// from the one that wrote it (an id it does not have, parameters it
// resolves otherwise, another spec: a changed default, observation shape,
// action names or bounds; the observation layout, which only describes the
// bytes, may differ), a *[ConfigError] for a full dataset. Replaying the
// episodes still checks every step.
func CheckDerivable(m *Manifest, dir string) (*env.Env, error) {
	return checkReplayable(m, dir, false)
}

// checkReplayable is [CheckDerivable]; full accepts a full dataset too
// (its hidden parts are derived as a compact one's observations are).
func checkReplayable(m *Manifest, dir string, full bool) (*env.Env, error) {
	if !m.Compact() && !full {
		return nil, &ConfigError{Field: "In", Reason: dir + " stores its observations (not a compact dataset): nothing to derive"}
	}
	de := func(field, have, want string) error {
		return &DeriveError{Dir: dir, Field: field, Have: have, Want: want, Episode: -1}
	}
	e, err := env.Make(m.EnvID, m.EnvParams)
	if err != nil {
		var ue *env.UnknownEnvError
		if errors.As(err, &ue) {
			return nil, de("env_id", m.EnvID, "not registered (this build has "+strings.Join(ue.Known, ", ")+")")
		}
		return nil, de("env_params", mustJSON(m.EnvParams), "refused: "+err.Error())
	}
	if have, want := mustJSON(m.EnvParams), mustJSON(e.Params()); have != want {
		return nil, de("env_params", have, want)
	}
	have, want := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(mustJSON(m.EnvSpec)), &have); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(mustJSON(e.Spec())), &want); err != nil {
		return nil, err
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	for k := range have {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if k == "observation_layout" {
			// The layout names the observation's bytes; it does not make
			// them. A later build may describe them better (a field split
			// in two, codes declared) without changing a byte, which the
			// id's version guarantees (other bytes are another id), and
			// replaying checks every step.
			continue
		}
		if string(have[k]) != string(want[k]) {
			if k == "params" {
				h, w := paramDiff(have[k], want[k])
				return nil, de("env_spec.params", h, w)
			}
			return nil, de("env_spec."+k, string(have[k]), string(want[k]))
		}
	}
	return e, nil
}

// replayPart is the content of one compact part, read whole (a part of
// 10,000 Express episodes, 4 million rows, takes about 60 MB), or the
// rows of it read so far ([readReplayPartGroups]).
type replayPart struct {
	ep        []int64
	step      []int32
	player    []int32
	action    []int32
	rewards   []float32 // numPlayers per row
	term      []bool
	trunc     []bool
	eps       *partEpisodes
	numPlayer int
}

// partEpisodes is a part's episodes table, read alongside its steps.
type partEpisodes struct {
	rows []episodeRow // once done is closed, or err
	err  error
	done chan struct{}
}

// readReplayPart reads part p of the compact dataset d: its steps table
// column by column (typed reads of each page, no per-row boxing), each
// column in a goroutine of its own, and its episodes table alongside: the
// part is returned once the steps columns are read, the episodes table
// (read column by column too; needed at the end of every episode,
// [replayPart.episodesTable]) may still be loading.
func readReplayPart(d *Dataset, p *PartInfo) (*replayPart, error) {
	var rp *replayPart
	err := readReplayPartGroups(d, p, func(got *replayPart, final bool) error {
		if final {
			rp = got
		}
		return nil
	})
	return rp, err
}

// readReplayPartGroups is [readReplayPart] a row group at a time: after
// each row group of the steps table it calls fn with the rows read so far
// (a replayPart of its own, which later row groups do not change; the
// episodes table is the whole part's), final true with the last. fn's
// error ends the read and is returned.
func readReplayPartGroups(d *Dataset, p *PartInfo, fn func(rp *replayPart, final bool) error) error {
	eps := &partEpisodes{done: make(chan struct{})}
	path := filepath.Join(d.Dir, filepath.FromSlash(p.Steps.Path))
	go func() {
		defer close(eps.done)
		epPath := filepath.Join(d.Dir, filepath.FromSlash(p.Episodes.Path))
		eps.rows, eps.err = readEpisodeColumns(d.fs, epPath)
		if eps.err == nil && int64(len(eps.rows)) != p.EpisodeEnd-p.EpisodeStart {
			eps.err = &FormatError{Path: epPath, Reason: "rows or episodes differ from the manifest"}
		}
	}()
	rp := &replayPart{numPlayer: d.Manifest.NumPlayers, eps: eps}
	return readReplayColumns(d.fs, path, rp, func(final bool) error {
		if final && int64(len(rp.ep)) != p.Steps.Rows {
			return &FormatError{Path: path, Reason: "rows or episodes differ from the manifest"}
		}
		snap := *rp
		return fn(&snap, final)
	})
}

// episodesTable waits for the part's episodes table and returns it.
func (rp *replayPart) episodesTable() ([]episodeRow, error) {
	<-rp.eps.done
	return rp.eps.rows, rp.eps.err
}

// readReplayColumns reads the columns of the steps file path a replay
// needs (all but obs, action_mask and reward) into rp, a row group at a
// time, each column of it in a goroutine of its own, and calls done after
// each row group (final true after the last; done's error ends the read).
// Every row must hold rp.numPlayer rewards. The columns' capacity is the
// file's rows, so that what done saw of them is never moved.
func readReplayColumns(fsys fileSystem, path string, rp *replayPart, done func(final bool) error) error {
	f, err := fsys.Open(path)
	if err != nil {
		return &FormatError{Path: path, Reason: "cannot open", Err: err}
	}
	defer f.Close()
	pf, err := openParquet(f, path)
	if err != nil {
		return err
	}
	cols, ok := stepsColumns(pf.Schema().Columns())
	if !ok {
		return &FormatError{Path: path, Reason: "not a steps table"}
	}
	leaf := make(map[int]int, len(cols)) // col* constant -> leaf index
	for i, c := range cols {
		leaf[c] = i
	}
	n := int(pf.NumRows())
	rp.ep, rp.step, rp.player, rp.action = make([]int64, 0, n), make([]int32, 0, n), make([]int32, 0, n), make([]int32, 0, n)
	rp.rewards = make([]float32, 0, n*rp.numPlayer)
	rp.term, rp.trunc = make([]bool, 0, n), make([]bool, 0, n)
	np := rp.numPlayer
	reads := []func(parquet.ColumnChunk) error{
		func(c parquet.ColumnChunk) (err error) { rp.ep, err = readInt64Column(path, c, rp.ep); return err },
		func(c parquet.ColumnChunk) (err error) { rp.step, err = readInt32Column(path, c, rp.step); return err },
		func(c parquet.ColumnChunk) (err error) {
			rp.player, err = readInt32Column(path, c, rp.player)
			return err
		},
		func(c parquet.ColumnChunk) (err error) {
			rp.action, err = readInt32Column(path, c, rp.action)
			return err
		},
		func(c parquet.ColumnChunk) (err error) {
			rp.rewards, err = readListColumn(path, c, rp.rewards, np)
			return err
		},
		func(c parquet.ColumnChunk) (err error) { rp.term, err = readBoolColumn(path, c, rp.term); return err },
		func(c parquet.ColumnChunk) (err error) { rp.trunc, err = readBoolColumn(path, c, rp.trunc); return err },
	}
	which := []int{colEpisodeID, colStep, colPlayer, colAction, colRewards, colTerminated, colTruncated}
	errs := make([]error, len(reads))
	groups := pf.RowGroups()
	rows := 0
	for g, rg := range groups {
		var wg sync.WaitGroup
		for k, read := range reads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[k] = read(rg.ColumnChunks()[leaf[which[k]]])
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		rows += int(rg.NumRows())
		for _, l := range []int{len(rp.ep), len(rp.step), len(rp.player), len(rp.action), len(rp.term), len(rp.trunc), len(rp.rewards) / max(1, np)} {
			if l != rows || len(rp.rewards) != rows*np {
				return &FormatError{Path: path, Reason: fmt.Sprintf("a column holds %d rows, the row groups %d", l, rows)}
			}
		}
		if err := done(g == len(groups)-1); err != nil {
			return err
		}
	}
	if rows != n {
		return &FormatError{Path: path, Reason: fmt.Sprintf("the row groups hold %d rows, the file %d", rows, n)}
	}
	if len(groups) == 0 {
		return done(true)
	}
	return nil
}

// readPages calls fn with every page of column chunk c, in order; a
// panic of parquet-go on a corrupt page is a *FormatError.
func readPages(path string, c parquet.ColumnChunk, fn func(parquet.Page) error) (err error) {
	pages := c.Pages()
	defer pages.Close()
	defer func() {
		if r := recover(); r != nil {
			err = &FormatError{Path: path, Reason: "cannot read rows", Err: fmt.Errorf("parquet-go: %v", r)}
		}
	}()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &FormatError{Path: path, Reason: "cannot read rows", Err: err}
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}

// readValues appends the values of page p through conv: the slow path of
// the typed column reads (an encoding parquet-go gives no typed reader
// for, such as a dictionary's indexes).
func readValues[T any](path string, p parquet.Page, dst []T, conv func(parquet.Value) T) ([]T, error) {
	buf := make([]parquet.Value, 1024)
	r := p.Values()
	for {
		n, err := r.ReadValues(buf)
		for _, v := range buf[:n] {
			dst = append(dst, conv(v))
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, &FormatError{Path: path, Reason: "cannot read rows", Err: err}
		}
	}
}

// readTyped appends the values of page p with read, a typed reader's
// method, into dst grown by the page's number of values.
func readTyped[T any](path string, p parquet.Page, dst []T, read func([]T) (int, error)) ([]T, error) {
	k := int(p.NumValues())
	dst = slices.Grow(dst, k)
	got := 0
	for got < k {
		n, err := read(dst[len(dst)+got : len(dst)+k])
		got += n
		if err == io.EOF {
			break
		}
		if err != nil {
			return dst, &FormatError{Path: path, Reason: "cannot read rows", Err: err}
		}
		if n == 0 {
			break
		}
	}
	if got != k {
		return dst, &FormatError{Path: path, Reason: fmt.Sprintf("a page holds %d values, its header %d", got, k)}
	}
	return dst[:len(dst)+k], nil
}

func readInt64Column(path string, c parquet.ColumnChunk, dst []int64) ([]int64, error) {
	err := readPages(path, c, func(p parquet.Page) (err error) {
		if r, ok := p.Values().(parquet.Int64Reader); ok && p.NumNulls() == 0 {
			dst, err = readTyped(path, p, dst, r.ReadInt64s)
		} else {
			dst, err = readValues(path, p, dst, parquet.Value.Int64)
		}
		return err
	})
	return dst, err
}

// dictValues returns the indexes of the values of page p, a page of a
// required column without repetition, into its dictionary and the
// dictionary's values (decoded by vals), or ok false for another page.
func dictValues[T any](p parquet.Page, kind encoding.Kind, vals func(*encoding.Values) []T) (idx []int32, dict []T, ok bool) {
	dt := p.Dictionary()
	if dt == nil || p.NumNulls() != 0 || len(p.RepetitionLevels()) != 0 {
		return nil, nil, false
	}
	data, dv := p.Data(), dt.Page().Data()
	if data.Kind() != encoding.Int32 || dv.Kind() != kind {
		return nil, nil, false
	}
	idx, dict = data.Int32(), vals(&dv)
	if int64(len(idx)) != p.NumValues() {
		return nil, nil, false
	}
	return idx, dict, true
}

// appendDict appends dict[i] for every index i of idx, refusing one
// outside the dictionary.
func appendDict[T any](path string, dst []T, idx []int32, dict []T) ([]T, error) {
	for _, i := range idx {
		if uint32(i) >= uint32(len(dict)) {
			return dst, &FormatError{Path: path, Reason: fmt.Sprintf("dictionary index %d of %d values", i, len(dict))}
		}
		dst = append(dst, dict[i])
	}
	return dst, nil
}

func readInt32Column(path string, c parquet.ColumnChunk, dst []int32) ([]int32, error) {
	err := readPages(path, c, func(p parquet.Page) (err error) {
		if idx, dict, ok := dictValues(p, encoding.Int32, (*encoding.Values).Int32); ok {
			dst, err = appendDict(path, dst, idx, dict)
		} else if r, ok := p.Values().(parquet.Int32Reader); ok && p.NumNulls() == 0 {
			dst, err = readTyped(path, p, dst, r.ReadInt32s)
		} else {
			dst, err = readValues(path, p, dst, parquet.Value.Int32)
		}
		return err
	})
	return dst, err
}

func readBoolColumn(path string, c parquet.ColumnChunk, dst []bool) ([]bool, error) {
	err := readPages(path, c, func(p parquet.Page) (err error) {
		if r, ok := p.Values().(parquet.BooleanReader); ok && p.NumNulls() == 0 {
			dst, err = readTyped(path, p, dst, r.ReadBooleans)
		} else {
			dst, err = readValues(path, p, dst, parquet.Value.Boolean)
		}
		return err
	})
	return dst, err
}

// readListValues is readListColumn's slow path for page p: values one by
// one, nulls skipped.
func readListValues(path string, p parquet.Page, dst *[]float32, inRow *int, n int) error {
	buf := make([]parquet.Value, 1024)
	r := p.Values()
	for {
		k, err := r.ReadValues(buf)
		for _, v := range buf[:k] {
			if v.RepetitionLevel() == 0 {
				if *inRow >= 0 && *inRow != n {
					return &FormatError{Path: path, Reason: fmt.Sprintf("%d rewards in a row, want %d", *inRow, n)}
				}
				*inRow = 0
			}
			if !v.IsNull() {
				*dst = append(*dst, v.Float())
				*inRow++
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

// readListColumn appends the values of the list<float> column chunk c,
// whose every row must hold exactly n values, to dst.
func readListColumn(path string, c parquet.ColumnChunk, dst []float32, n int) ([]float32, error) {
	inRow := -1 // values in the current row; -1 before the first
	bad := func() error {
		return &FormatError{Path: path, Reason: fmt.Sprintf("%d rewards in a row, want %d", inRow, n)}
	}
	err := readPages(path, c, func(p parquet.Page) error {
		rep := p.RepetitionLevels()
		if p.NumNulls() != 0 || len(rep) != int(p.NumValues()) {
			return readListValues(path, p, &dst, &inRow, n)
		}
		var vals, dict []float32
		var idx []int32
		if dt := p.Dictionary(); dt != nil {
			data, dv := p.Data(), dt.Page().Data()
			if data.Kind() != encoding.Int32 || dv.Kind() != encoding.Float {
				return readListValues(path, p, &dst, &inRow, n)
			}
			idx, dict = data.Int32(), dv.Float()
		} else if data := p.Data(); data.Kind() == encoding.Float {
			vals = data.Float()
		} else {
			return readListValues(path, p, &dst, &inRow, n)
		}
		if len(vals)+len(idx) != len(rep) {
			return readListValues(path, p, &dst, &inRow, n)
		}
		for _, r := range rep {
			if r == 0 {
				if inRow >= 0 && inRow != n {
					return bad()
				}
				inRow = 0
			}
			inRow++
		}
		if idx != nil {
			var err error
			dst, err = appendDict(path, dst, idx, dict)
			return err
		}
		dst = append(dst, vals...)
		return nil
	})
	if err == nil && inRow >= 0 && inRow != n {
		err = bad()
	}
	return dst, err
}

// replayCursor walks a replayPart row by row as its episodes are replayed;
// it is the action source of every seat and checks every step's result.
type replayCursor struct {
	dir  string
	part *replayPart
	pos  int   // the next row
	stop int   // the end of the rows it may read
	ep   int64 // the episode being replayed
	t    int   // its step
	err  error // the first divergence
}

// reset starts reading rows [from, to) of part.
func (c *replayCursor) reset(part *replayPart, from, to int) {
	c.part, c.pos, c.stop = part, from, to
}

// fail records the first divergence of the episode.
func (c *replayCursor) fail(field, have, want string) {
	if c.err == nil {
		c.err = &DeriveError{Dir: c.dir, Field: field, Have: have, Want: want, Episode: c.ep, Step: c.t}
	}
}

// start begins episode ep: its first row must be next.
func (c *replayCursor) start(ep int64) {
	c.ep, c.t, c.err = ep, 0, nil
	if c.pos >= c.stop || c.part.ep[c.pos] != ep || c.part.step[c.pos] != 0 {
		c.fail("episode rows", "missing or out of order", "episode "+strconv.FormatInt(ep, 10)+" next")
	}
}

// act returns the recorded action of the next row for player, -1 (which
// every environment refuses, ending the replay) after a divergence.
func (c *replayCursor) act(player int, mask []uint8) int {
	if c.err != nil {
		return -1
	}
	i := c.pos
	if i >= c.stop || c.part.ep[i] != c.ep || c.part.action[i] < 0 {
		c.fail("episode length", strconv.Itoa(c.t)+" steps", "more steps (the game is not over)")
		return -1
	}
	if int(c.part.player[i]) != player {
		c.fail("player", strconv.Itoa(int(c.part.player[i])), strconv.Itoa(player)+" to act")
		return -1
	}
	a := int(c.part.action[i])
	if a >= len(mask) || mask[a] == 0 {
		c.fail("action", strconv.Itoa(a), "illegal (not in the legal-action mask)")
		return -1
	}
	return a
}

// after checks the step's result against the row and moves to the next.
func (c *replayCursor) after(res env.StepResult) {
	i := c.pos
	np := c.part.numPlayer
	for k, r := range res.Rewards {
		if k >= np || math.Float32bits(float32(r)) != math.Float32bits(c.part.rewards[i*np+k]) {
			c.fail("rewards", fmt.Sprint(c.part.rewards[i*np:(i+1)*np]), fmt.Sprint(res.Rewards))
			break
		}
	}
	if res.Terminated != c.part.term[i] || res.Truncated != c.part.trunc[i] {
		c.fail("terminated/truncated", fmt.Sprint(c.part.term[i], "/", c.part.trunc[i]), fmt.Sprint(res.Terminated, "/", res.Truncated))
	}
	c.pos++
	c.t++
}

// end checks the episode's final row and its episodes-table row, and
// moves past them.
func (c *replayCursor) end(t int32, last int32, row *episodeRow) error {
	if c.err != nil {
		return c.err
	}
	i := c.pos
	if i >= c.stop || c.part.ep[i] != c.ep || c.part.action[i] != -1 || c.part.step[i] != t {
		c.fail("episode length", "more steps", strconv.Itoa(int(t))+" steps (the game is over)")
		return c.err
	}
	if c.part.player[i] != last {
		c.fail("player", strconv.Itoa(int(c.part.player[i])), strconv.Itoa(int(last))+" on the final row")
		return c.err
	}
	c.pos++
	episodes, err := c.part.episodesTable()
	if err != nil {
		return err
	}
	k := int(c.ep - c.part.ep[0])
	if k < 0 || k >= len(episodes) {
		c.fail("episodes table", "no row", "a row")
		return c.err
	}
	stored := &episodes[k]
	switch {
	case stored.Seed != row.Seed:
		c.fail("seed", strconv.FormatInt(stored.Seed, 10), strconv.FormatInt(row.Seed, 10)+" (the run seed's)")
	case !sameSlice(stored.Returns, row.Returns):
		c.fail("returns", fmt.Sprint(stored.Returns), fmt.Sprint(row.Returns))
	case stored.Info != row.Info:
		c.fail("info", stored.Info, row.Info)
	case !sameEpisodeRow(stored, row):
		c.fail("episodes table row", fmt.Sprintf("%+v", *stored), fmt.Sprintf("%+v", *row))
	}
	return c.err
}

// sameSlice is reflect.DeepEqual for slices of comparable values: the
// same nil-ness, length and elements (==).
func sameSlice[T comparable](a, b []T) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// sameEpisodeRow is reflect.DeepEqual(a, b) for episodes-table rows,
// without reflection (it runs once per replayed episode).
func sameEpisodeRow(a, b *episodeRow) bool {
	return a.EpisodeID == b.EpisodeID && a.Seed == b.Seed && a.Agent == b.Agent && sameSlice(a.SeatAgents, b.SeatAgents) &&
		a.Length == b.Length && sameSlice(a.Returns, b.Returns) && a.Outcome == b.Outcome &&
		sameSlice(a.Scores, b.Scores) && sameSlice(a.Ranks, b.Ranks) && sameSlice(a.Outcomes, b.Outcomes) && a.Info == b.Info
}

// replayAgent plays the recorded actions in every seat.
type replayAgent struct{ c *replayCursor }

func (a *replayAgent) Name() string                        { return "replay" }
func (a *replayAgent) Reset(uint64)                        {}
func (a *replayAgent) Act(player int, _, mask []uint8) int { return a.c.act(player, mask) }
func (a *replayAgent) IgnoresObservation() bool            { return true }

var _ agents.Agent = (*replayAgent)(nil)

// newReplayLoop makes the loop of a replay: e with the cursor's agent in
// every seat, named as the dataset's seats.
func newReplayLoop(e *env.Env, names []string) (*rollout.Loop, *replayCursor, error) {
	c := &replayCursor{}
	a := &replayAgent{c}
	seats := make([]agents.Agent, len(names))
	for k := range seats {
		seats[k] = a
	}
	l, err := rollout.New(e, seats, names)
	return l, c, err
}

// seatNames returns the agent of every seat of a dataset's manifest.
func seatNames(m *Manifest) []string {
	if len(m.Seats) > 0 {
		return m.Seats
	}
	names := make([]string, m.NumPlayers)
	for k := range names {
		names[k] = m.Agent.Name
	}
	return names
}

// MaterializeConfig describes a run of [Materialize].
type MaterializeConfig struct {
	// In is the compact dataset: a directory or a bucket URL.
	In string
	// Out is where the full dataset is written: a directory or a bucket
	// URL, as Config.Out. Running it again resumes, as Generate does.
	Out string
	// Workers is the number of goroutines replaying parts (0: all cores).
	Workers int
	// Progress, when set, receives cumulative progress (Config.Progress).
	Progress func(Progress)
}

// Materialize writes the full dataset of the compact dataset cfg.In to
// cfg.Out: the files `galaxygym generate --observations stored` writes
// with the same arguments, byte for byte (the manifest's created_by names
// cfg.Out in place of the compact dataset's output, and galaxygym_version
// is this build's). Every episode is replayed from its seed and actions and
// checked row by row against the compact dataset (player, rewards, flags,
// the episodes table); a dataset this build cannot replay is refused with a
// *[DeriveError] before anything is written, or, for a divergence found in
// a part, with that part unwritten. Errors otherwise as [Generate].
func Materialize(ctx context.Context, cfg MaterializeConfig) (*Result, error) {
	src, err := OpenURL(ctx, cfg.In)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	e, err := checkDerivable(src, cfg.In)
	if err != nil {
		return nil, err
	}
	m := src.Manifest
	if m.Search != "" {
		return nil, &ConfigError{Field: "In", Reason: "a dataset with the search columns (generate --record-search) " +
			"is not materialized (the replay does not carry them); read it with datasets.Open or galaxygym.datasets.load"}
	}
	if cfg.Out == "" {
		return nil, &ConfigError{Field: "Out", Reason: "no output directory"}
	}
	gc := Config{Env: m.EnvID, EnvParams: m.EnvParams, Episodes: m.TotalEpisodes, Seed: m.Seed,
		EpisodesPerPart: m.EpisodesPerPart, Workers: cfg.Workers, Out: cfg.Out, DatasetID: m.DatasetID,
		Author: m.Author, Progress: cfg.Progress, Seats: m.Seats, SeatOptions: m.SeatOptions}
	if len(m.Seats) == 0 {
		gc.Agent, gc.AgentOptions = m.Agent.Name, m.Agent.Options
	}
	switch m.ObsEncoding {
	case ObsSplit.parquetName():
		gc.ObsEncoding = ObsSplit
	default:
		gc.ObsEncoding = ObsPlain
	}
	gc.ZstdLevel = ZstdLevel(m.ZstdLevel)
	gc.CommandLine = fullCommandLine(m.CreatedBy, cfg.Out)
	t0 := timeNow()
	r := &run{cfg: &gc, spec: e.Spec(), params: e.Params(), fs: osFS{}, dir: gc.Out, src: src, names: seatNames(m)}
	r.partSize = m.EpisodesPerPart
	r.numParts = len(m.Parts)
	if want := int((m.TotalEpisodes + int64(r.partSize) - 1) / int64(r.partSize)); r.partSize < 1 || want != r.numParts {
		return nil, &FormatError{Path: cfg.In + "/" + ManifestFile, Reason: "parts do not cover total_episodes"}
	}
	r.results = make([]*partResult, r.numParts)
	r.partLo, r.partHi = 0, r.numParts
	r.meta = &runMeta{
		datasetID:       m.DatasetID,
		envID:           m.EnvID,
		envVersion:      envVersion(m.EnvID),
		envParams:       mustJSON(r.params),
		numPlayers:      r.spec.NumPlayers,
		obsShape:        mustJSON(r.spec.ObsShape),
		obsSize:         r.spec.ObsSize(),
		numActions:      r.spec.NumActions(),
		actionNames:     mustJSON(r.spec.ActionNames),
		agent:           m.Agent.Name,
		agentVersion:    m.Agent.Version,
		agentOptions:    m.agentOptionsJSON(),
		seedRule:        m.SeedRule,
		seed:            m.Seed,
		episodesPerPart: m.EpisodesPerPart,
		obsEncoding:     gc.ObsEncoding,
		zstdLevel:       gc.ZstdLevel,
	}
	if err := r.openOut(ctx); err != nil {
		return nil, err
	}
	defer r.closeOut()
	if err := r.scan(); err != nil {
		return nil, err
	}
	res, err := r.play(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.finish(res); err != nil {
		return nil, err
	}
	res.Elapsed = timeNow().Sub(t0)
	return res, nil
}

// fullCommandLine is the created_by of the full dataset of a compact one
// whose created_by is compact: without --observations none, and with out
// in place of the compact dataset's --out.
func fullCommandLine(compact, out string) string {
	s := strings.Replace(compact, " --observations none", "", 1)
	if i := strings.LastIndex(s, " --out "); i >= 0 {
		s = s[:i] + " --out " + out
	}
	return s
}

// DeriveStreamEnd is the header of the last batch of a [Derive] stream: a
// batch of 0 rows, after which nothing follows.
const DeriveStreamEnd = 0

// Derive replays every episode of the compact dataset in (a directory or
// a bucket URL) on workers goroutines (0: all cores) and writes the
// observations and action masks of its steps table to w, in row order, in
// batches: a little-endian uint32 row count n, then n observations (n x
// ObsSize bytes, each the row's obs as `generate --observations stored`
// writes it), then n action masks (n x NumActions bytes; all 0 on final
// rows); a batch of 0 rows ends the stream. It is [DeriveTo] with Out w;
// errors as there, and a divergence found once rows were written ends
// the stream without its end batch.
func Derive(ctx context.Context, in string, w io.Writer, workers int) error {
	return DeriveTo(ctx, DeriveConfig{In: in, Workers: workers, Out: w})
}

// DeriveConfig describes a run of [DeriveTo]: where the derived arrays
// go, Out (one ordered stream) or Rows (row ranges, written concurrently).
type DeriveConfig struct {
	// In is the compact dataset: a directory or a bucket URL.
	In string
	// Workers is the number of goroutines replaying (0: all cores). The
	// output does not depend on it.
	Workers int
	// NoObs leaves the observations out: the stream's batches and the
	// rows hold the action masks only (ObsSize taken as 0), and no
	// observation is computed.
	NoObs bool
	// Hidden writes, in place of each row's observation, the hidden part
	// of the row's player ([env.HiddenObserver]: everything that player's
	// observation does not show, for a critic trained with the whole
	// state; ObsSize taken as the hidden part's size, [HiddenLayout]). A
	// full dataset is replayed as a compact one is. A *[ConfigError] with
	// NoObs, or for a game that declares no hidden part.
	Hidden bool
	// Out, when not nil, receives the stream of [Derive].
	Out io.Writer
	// Rows, when Out is nil, receives the rows of the steps table in
	// ranges, each once, from several workers at once and in no order.
	Rows RowWriter
}

// RowWriter receives derived rows. Layout is called once, before any
// row: the steps table has rows rows, of obsSize bytes of observation (0
// with NoObs) and numActions of mask; an error refuses the derive (the
// reader's arrays are another size). WriteRows(row, obs, masks) then gets
// rows row..row+n-1, obs their n x obsSize observations (row-major) and
// masks their n x numActions action masks, in buffers reused once it
// returns; it is called from several goroutines at once, for disjoint
// ranges, and its error ends the derive.
type RowWriter interface {
	Layout(rows int64, obsSize, numActions int) error
	WriteRows(row int64, obs, masks []byte) error
}

// DeriveTo replays every episode of the compact dataset cfg.In and writes
// the observations and action masks of its steps table to cfg.Out or
// cfg.Rows (see [DeriveConfig]), the same bytes for any number of
// workers. It is what galaxygym.datasets.load reads from `galaxygym
// dataset derive IN` to give a compact dataset the arrays of a full one.
// The parts are read column by column (the next while the workers replay
// one) and each is split into runs of whole episodes that the workers
// replay in parallel, holding a batch of rows each. Every step is
// checked as in [Materialize]; a dataset this build cannot replay is
// refused with a *[DeriveError] before anything is written, and of
// several divergences the first in row order is returned, whatever the
// workers. A *[ConfigError] when both or neither of Out and Rows are
// given; Layout's error as it is.
func DeriveTo(ctx context.Context, cfg DeriveConfig) error {
	src, err := OpenURL(ctx, cfg.In)
	if err != nil {
		return err
	}
	defer src.Close()
	e, err := checkReplayable(src.Manifest, cfg.In, cfg.Hidden)
	if err != nil {
		return err
	}
	if cfg.Hidden && (cfg.NoObs || e.HiddenSize() == 0) {
		reason := "Hidden replaces the observations, which NoObs leaves out"
		if e.HiddenSize() == 0 {
			reason = e.Spec().ID + " declares no hidden part (env.HiddenObserver)"
		}
		return &ConfigError{Field: "Hidden", Reason: reason}
	}
	if (cfg.Out == nil) == (cfg.Rows == nil) {
		return &ConfigError{Field: "Out", Reason: "derive writes to exactly one of Out and Rows"}
	}
	m := src.Manifest
	spec := e.Spec()
	d := &deriver{src: src, in: cfg.In, spec: spec, params: e.Params(), names: seatNames(m), obs: !cfg.NoObs,
		hidden: cfg.Hidden, numActions: spec.NumActions(), out: cfg.Out, rows: cfg.Rows, failIdx: math.MaxInt,
		partRow: make([]int64, len(m.Parts))}
	switch {
	case d.hidden:
		d.obsSize = e.HiddenSize()
	case d.obs:
		d.obsSize = spec.ObsSize()
	}
	var rows int64
	for i, p := range m.Parts {
		d.partRow[i] = rows
		rows += p.Steps.Rows
	}
	if d.rows != nil {
		if err := d.rows.Layout(rows, d.obsSize, d.numActions); err != nil {
			return err
		}
	}
	d.workers = cfg.Workers
	if d.workers <= 0 {
		d.workers = runtime.NumCPU()
	}
	rowBytes := max(1, d.obsSize+d.numActions)
	if d.out != nil {
		d.batch = max(16, (1<<20)/rowBytes)
	} else {
		d.batch = max(4, (256<<10)/rowBytes) // stays in the core's cache between batches
	}
	return d.run(ctx)
}

// deriver is a run of [DeriveTo].
type deriver struct {
	src                 *Dataset
	in                  string
	spec                *env.Spec
	params              env.Params
	names               []string
	obs                 bool
	hidden              bool    // the rows hold the hidden part in place of obs (DeriveConfig.Hidden)
	obsSize, numActions int     // obsSize 0 without obs, the hidden part's size with hidden
	partRow             []int64 // the steps-table row of every part's first row
	workers             int
	out                 io.Writer // an ordered stream, or
	rows                RowWriter // row ranges
	batch               int       // rows in a batch
	free                chan []byte

	mu      sync.Mutex
	failIdx int // the first chunk that failed (math.MaxInt: none)
	failErr error
}

// deriveChunk is a run of whole episodes of one part, the unit a worker
// replays: episodes [epA, epB) in rows [rowA, rowB) of the part, which
// are rows row.. of the steps table.
type deriveChunk struct {
	idx        int // in row order
	part       *replayPart
	epA, epB   int64
	rowA, rowB int
	row        int64
	out        chan []byte // stream: the chunk's batches, closed once replayed
}

// errSkipped ends a chunk after an earlier one failed.
var errSkipped = errors.New("datasets: derive: an earlier chunk failed")

// fail records err for chunk idx; the first chunk's error wins.
func (d *deriver) fail(idx int, err error) {
	d.mu.Lock()
	if idx < d.failIdx {
		d.failIdx, d.failErr = idx, err
	}
	d.mu.Unlock()
}

// failedBy reports whether a chunk at or before idx failed.
func (d *deriver) failedBy(idx int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.failIdx <= idx
}

func (d *deriver) run(ctx context.Context) error {
	m := d.src.Manifest
	jobs := make(chan *deriveChunk, 2*d.workers)
	var order chan *deriveChunk
	if d.out != nil {
		order = make(chan *deriveChunk, 64)
		d.free = make(chan []byte, 4*d.workers+4)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // reads the parts in order (the next while the workers replay one) and hands out chunks
		defer wg.Done()
		defer close(jobs)
		if order != nil {
			defer close(order)
		}
		idx := 0
		for i := range m.Parts {
			if ctx.Err() != nil || d.failedBy(idx) {
				return
			}
			// The chunks of each row group go out as it is read.
			cut := partCut{epA: m.Parts[i].EpisodeStart}
			err := readReplayPartGroups(d.src, &m.Parts[i], func(rp *replayPart, final bool) error {
				for _, ch := range d.split(rp, &m.Parts[i], d.partRow[i], &cut, final, &idx) {
					if order != nil {
						order <- ch
					}
					jobs <- ch
				}
				if ctx.Err() != nil || d.failedBy(idx) {
					return errSkipped
				}
				return nil
			})
			if err != nil {
				if err != errSkipped {
					d.fail(idx, err)
				}
				return
			}
		}
	}()
	for range d.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.work(ctx, jobs)
		}()
	}
	if order != nil {
		stop := false
		for ch := range order {
			for b := range ch.out {
				if !stop {
					if _, err := d.out.Write(b); err != nil {
						d.fail(ch.idx, err)
						stop = true
					}
				}
				select {
				case d.free <- b:
				default:
				}
			}
			stop = stop || d.failedBy(ch.idx) || ctx.Err() != nil
		}
	}
	wg.Wait()
	if d.failErr != nil {
		return d.failErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.out != nil {
		_, err := d.out.Write([]byte{0, 0, 0, 0})
		return err
	}
	return nil
}

// partCut is where [deriver.split] has cut a part so far: the chunks
// made cover its rows before rowA, episodes before epA.
type partCut struct {
	rowA int
	epA  int64
	cuts int
}

// split cuts the rows of part p read so far (rp, the part's first row row
// partRow of the steps table) from cut on into chunks at episode
// boundaries, numbered from *idx on, and moves cut past them. Until the
// part's last rows are read (final), it cuts only chunks of the target
// size whose last episode is known to end within the rows read; the rest
// waits for the next row group.
func (d *deriver) split(rp *replayPart, p *PartInfo, partRow int64, cut *partCut, final bool, idx *int) []*deriveChunk {
	n := int(p.Steps.Rows)
	have := len(rp.ep)
	target := max(1, (n+4*d.workers-1)/(4*d.workers))
	if d.out != nil {
		target = min(target, 4*d.batch) // a worker finishes its chunk while the writer drains the one before
	}
	var chunks []*deriveChunk
	for {
		rowA := cut.rowA
		if final && rowA >= have && cut.cuts > 0 {
			break
		}
		rowB := min(have, rowA+target)
		for rowB < have && rowB > 0 && rp.ep[rowB] == rp.ep[rowB-1] {
			rowB++
		}
		if !final && rowB >= have {
			break // the episode may go on in the next row group
		}
		epB := p.EpisodeEnd
		if rowB < have {
			epB = rp.ep[rowB]
		}
		ch := &deriveChunk{idx: *idx, part: rp, epA: cut.epA, epB: epB, rowA: rowA, rowB: rowB, row: partRow + int64(rowA)}
		if d.out != nil {
			ch.out = make(chan []byte, 4)
		}
		chunks = append(chunks, ch)
		*idx++
		cut.rowA, cut.epA = rowB, epB
		cut.cuts++
	}
	return chunks
}

// work replays the chunks of jobs, each with this worker's environment.
func (d *deriver) work(ctx context.Context, jobs <-chan *deriveChunk) {
	var (
		l   *rollout.Loop
		c   *replayCursor
		err error
	)
	env1, err := env.Make(d.spec.ID, d.params)
	if err == nil {
		l, c, err = newReplayLoop(env1, d.names)
	}
	rec := &deriveRec{d: d, ctx: ctx, check: c, env: env1}
	if c != nil {
		c.dir = d.in
	}
	for ch := range jobs {
		switch {
		case err != nil:
			d.fail(ch.idx, err)
		case d.failedBy(ch.idx - 1):
		default:
			if rerr := rec.chunk(ch, l); rerr != nil && rerr != errSkipped {
				d.fail(ch.idx, rerr)
			}
		}
		if ch.out != nil {
			close(ch.out)
		}
	}
}

// deriveRec is a Derive worker's rollout.Recorder: it fills a batch of
// rows' observations and masks and sends it, in order, on the chunk's
// channel (Out), or hands it to the RowWriter (Rows).
type deriveRec struct {
	d       *deriver
	ctx     context.Context
	check   *replayCursor
	env     *env.Env // the worker's environment (the hidden parts are read from it)
	buf     []byte   // Out: a 4-byte header, then (both) batch observations, batch masks
	hdr     int      // 4 with a header, else 0
	n       int      // rows in buf
	row     int64    // Rows: the steps-table row of buf's first row
	out     chan []byte
	info    env.Info
	infoBuf []byte
	last    int32 // the last player to act
}

func (s *deriveRec) obsSlot() []byte {
	o := s.hdr + s.n*s.d.obsSize
	return s.buf[o : o+s.d.obsSize]
}

func (s *deriveRec) maskSlot() []byte {
	o := s.hdr + s.d.batch*s.d.obsSize + s.n*s.d.numActions
	return s.buf[o : o+s.d.numActions]
}

// Before returns the next row's observation slot (nil without
// observations) and copies the mask.
func (s *deriveRec) Before(player int, mask []uint8) []uint8 {
	copy(s.maskSlot(), mask)
	if s.d.hidden {
		_ = s.env.ObserveHidden(player, s.obsSlot()) // checked: the game has one, the buffer its size
		return nil
	}
	if !s.d.obs {
		return nil
	}
	return s.obsSlot()
}

// After checks the step and completes the row.
func (s *deriveRec) After(p, _ int, res env.StepResult) error {
	s.check.after(res)
	s.last = int32(p)
	return s.commit()
}

// commit completes a row, sending the batch when it is full.
func (s *deriveRec) commit() error {
	s.n++
	if s.n == s.d.batch {
		return s.flush()
	}
	return nil
}

// flush sends the rows of the batch.
func (s *deriveRec) flush() error {
	d := s.d
	if s.n == 0 {
		return nil
	}
	n := s.n
	obs, masks := s.buf[s.hdr:s.hdr+n*d.obsSize], s.buf[s.hdr+d.batch*d.obsSize:s.hdr+d.batch*d.obsSize+n*d.numActions]
	s.n = 0
	if d.rows != nil {
		err := d.rows.WriteRows(s.row, obs, masks)
		s.row += int64(n)
		return err
	}
	// The stream's batch: header, observations, then the masks moved up behind them.
	binary.LittleEndian.PutUint32(s.buf, uint32(n))
	end := 4 + n*d.obsSize
	copy(s.buf[end:], masks)
	b := s.buf[:end+n*d.numActions]
	s.buf = nil
	select {
	case s.out <- b:
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
	s.newBuf()
	return nil
}

func (s *deriveRec) newBuf() {
	size := s.hdr + s.d.batch*(s.d.obsSize+s.d.numActions)
	select {
	case b := <-s.d.free:
		if cap(b) >= size {
			s.buf = b[:size]
			return
		}
	default:
	}
	s.buf = make([]byte, size)
}

// chunk replays the episodes of ch, writing its rows.
func (s *deriveRec) chunk(ch *deriveChunk, l *rollout.Loop) error {
	d, c := s.d, s.check
	c.reset(ch.part, ch.rowA, ch.rowB)
	s.n, s.row, s.out = 0, ch.row, ch.out
	if d.out != nil {
		s.hdr = 4
	}
	if s.buf == nil {
		s.newBuf()
	}
	e := l.Env()
	seed := d.src.Manifest.Seed
	for ep := ch.epA; ep < ch.epB; ep++ {
		if (ep-ch.epA)%progressEvery == 0 {
			if err := s.ctx.Err(); err != nil {
				return err
			}
			if d.failedBy(ch.idx - 1) {
				return errSkipped
			}
		}
		envSeed, _ := EpisodeSeeds(seed, ep)
		c.start(ep)
		s.last = 0
		t, err := l.Play(ep, envSeed, 0, false, s)
		if c.err != nil {
			return c.err
		}
		if err != nil {
			return err
		}
		switch {
		case d.hidden:
			_ = e.ObserveHidden(int(s.last), s.obsSlot())
		case d.obs:
			e.Observe(int(s.last), s.obsSlot())
		}
		clear(s.maskSlot())
		row := episodeRowOf(e, &s.info, &s.infoBuf, ep, envSeed, t, d.src.Manifest.Agent.Name, d.names)
		if err := c.end(t, s.last, &row); err != nil {
			return err
		}
		if err := s.commit(); err != nil {
			return err
		}
	}
	if c.pos != ch.rowB {
		c.ep, c.t = ch.epB, 0
		c.fail("episode rows", "missing or out of order", "episode "+strconv.FormatInt(ch.epB, 10)+" next")
		return c.err
	}
	return s.flush()
}

// paramDiff returns the first parameter declaration (name, kind, default,
// bounds) that differs between two env_spec.params arrays, as JSON, or
// "none" for one missing.
func paramDiff(have, want json.RawMessage) (string, string) {
	var h, w []map[string]any
	if json.Unmarshal(have, &h) != nil || json.Unmarshal(want, &w) != nil {
		return string(have), string(want)
	}
	byName := func(ps []map[string]any, name any) string {
		for _, p := range ps {
			if p["name"] == name {
				return mustJSON(p)
			}
		}
		return "none"
	}
	for _, p := range h {
		if hs, ws := mustJSON(p), byName(w, p["name"]); hs != ws {
			return hs, ws
		}
	}
	for _, p := range w {
		if byName(h, p["name"]) == "none" {
			return "none", mustJSON(p)
		}
	}
	return string(have), string(want)
}

// readEpisodeColumns reads the episodes table path column by column (each
// column in a goroutine of its own): the rows readEpisodesFile reads.
// Only a file of the episodes table's schema is read so; another is a
// *FormatError.
func readEpisodeColumns(fsys fileSystem, path string) ([]episodeRow, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, &FormatError{Path: path, Reason: "cannot open", Err: err}
	}
	defer f.Close()
	pf, err := openParquet(f, path)
	if err != nil {
		return nil, err
	}
	want := [][]string{{"episode_id"}, {"seed"}, {"agent"}, {"seat_agents", "list", "element"}, {"length"},
		{"returns", "list", "element"}, {"outcome"}, {"scores", "list", "element"}, {"ranks", "list", "element"},
		{"outcomes", "list", "element"}, {"info"}}
	leaves := pf.Schema().Columns()
	if len(leaves) != len(want) {
		return nil, &FormatError{Path: path, Reason: "not an episodes table"}
	}
	for i, l := range leaves {
		if !slices.Equal(l, want[i]) {
			return nil, &FormatError{Path: path, Reason: "not an episodes table"}
		}
	}
	n := int(pf.NumRows())
	rows := make([]episodeRow, n)
	str := func(v parquet.Value) string { return string(v.ByteArray()) }
	reads := []func(parquet.ColumnChunk, int, int) error{
		func(c parquet.ColumnChunk, at, end int) error {
			return scalarColumn(path, c, rows[at:end], func(r *episodeRow, v parquet.Value) { r.EpisodeID = v.Int64() })
		},
		func(c parquet.ColumnChunk, at, end int) error {
			return scalarColumn(path, c, rows[at:end], func(r *episodeRow, v parquet.Value) { r.Seed = v.Int64() })
		},
		func(c parquet.ColumnChunk, at, end int) error {
			in := interner{}
			return scalarColumn(path, c, rows[at:end], func(r *episodeRow, v parquet.Value) { r.Agent = in.of(v.ByteArray()) })
		},
		func(c parquet.ColumnChunk, at, end int) error {
			in := interner{}
			return listColumn(path, c, rows[at:end], func(r *episodeRow) *[]string { return &r.SeatAgents },
				func(v parquet.Value) string { return in.of(v.ByteArray()) })
		},
		func(c parquet.ColumnChunk, at, end int) error {
			return scalarColumn(path, c, rows[at:end], func(r *episodeRow, v parquet.Value) { r.Length = v.Int32() })
		},
		func(c parquet.ColumnChunk, at, end int) error {
			return listColumn(path, c, rows[at:end], func(r *episodeRow) *[]float64 { return &r.Returns }, parquet.Value.Double)
		},
		func(c parquet.ColumnChunk, at, end int) error {
			in := interner{}
			return scalarColumn(path, c, rows[at:end], func(r *episodeRow, v parquet.Value) { r.Outcome = in.of(v.ByteArray()) })
		},
		func(c parquet.ColumnChunk, at, end int) error {
			return listColumn(path, c, rows[at:end], func(r *episodeRow) *[]float64 { return &r.Scores }, parquet.Value.Double)
		},
		func(c parquet.ColumnChunk, at, end int) error {
			return listColumn(path, c, rows[at:end], func(r *episodeRow) *[]int32 { return &r.Ranks }, parquet.Value.Int32)
		},
		func(c parquet.ColumnChunk, at, end int) error {
			in := interner{}
			return listColumn(path, c, rows[at:end], func(r *episodeRow) *[]string { return &r.Outcomes },
				func(v parquet.Value) string { return in.of(v.ByteArray()) })
		},
		func(c parquet.ColumnChunk, at, end int) error {
			return scalarColumn(path, c, rows[at:end], func(r *episodeRow, v parquet.Value) { r.Info = str(v) })
		},
	}
	errs := make([]error, len(reads))
	var wg sync.WaitGroup
	for k, read := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := 0
			for _, rg := range pf.RowGroups() {
				end := at + int(rg.NumRows())
				if end > n {
					errs[k] = &FormatError{Path: path, Reason: "row groups hold more rows than the file"}
					return
				}
				if errs[k] = read(rg.ColumnChunks()[k], at, end); errs[k] != nil {
					return
				}
				at = end
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return rows, nil
}

// interner returns one string per distinct value (agents, outcomes).
type interner map[string]string

func (in interner) of(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}

// scalarColumn sets a field of rows[i] from the i-th value of the required
// column chunk c (a row group of len(rows) rows) with set.
func scalarColumn(path string, c parquet.ColumnChunk, rows []episodeRow, set func(*episodeRow, parquet.Value)) error {
	i := 0
	buf := make([]parquet.Value, 256)
	err := readPages(path, c, func(p parquet.Page) error {
		r := p.Values()
		for {
			k, err := r.ReadValues(buf)
			for _, v := range buf[:k] {
				if i >= len(rows) || v.IsNull() {
					return &FormatError{Path: path, Reason: "an episodes column holds more values than rows, or a null"}
				}
				set(&rows[i], v)
				i++
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return &FormatError{Path: path, Reason: "cannot read rows", Err: err}
			}
		}
	})
	if err == nil && i != len(rows) {
		err = &FormatError{Path: path, Reason: fmt.Sprintf("an episodes column holds %d values, the row group %d rows", i, len(rows))}
	}
	return err
}

// listColumn fills the list field of rows (field) from the list column
// chunk c (a row group of len(rows) rows), one list per row (an empty one,
// a null value, is nil), each element through conv. The lists share one
// array.
func listColumn[T any](path string, c parquet.ColumnChunk, rows []episodeRow, field func(*episodeRow) *[]T, conv func(parquet.Value) T) error {
	var all []T
	ends := make([]int, 0, len(rows)) // the end in all of every row's list
	buf := make([]parquet.Value, 256)
	err := readPages(path, c, func(p parquet.Page) error {
		r := p.Values()
		for {
			k, err := r.ReadValues(buf)
			for _, v := range buf[:k] {
				if v.RepetitionLevel() == 0 {
					if len(ends) == len(rows) {
						return &FormatError{Path: path, Reason: "an episodes column holds more rows than the row group"}
					}
					ends = append(ends, len(all))
				} else if len(ends) == 0 {
					return &FormatError{Path: path, Reason: "an episodes list starts without a row"}
				}
				if !v.IsNull() {
					all = append(all, conv(v))
					ends[len(ends)-1]++
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return &FormatError{Path: path, Reason: "cannot read rows", Err: err}
			}
		}
	})
	if err == nil && len(ends) != len(rows) {
		err = &FormatError{Path: path, Reason: fmt.Sprintf("an episodes column holds %d rows, the row group %d", len(ends), len(rows))}
	}
	if err != nil {
		return err
	}
	start := 0
	for i, end := range ends {
		if end > start {
			*field(&rows[i]) = all[start:end:end]
		}
		start = end
	}
	return nil
}

// HiddenLayout returns the layout and inclusive upper bounds of the
// hidden part ([env.HiddenObserver]) of the environment of the dataset in
// (a directory or a bucket URL, compact or full): the rows [DeriveTo]
// writes with Hidden. A *[ConfigError] for a game that declares none; a
// *[DeriveError] for a dataset this build cannot replay.
func HiddenLayout(ctx context.Context, in string) (env.ObsLayout, []uint8, error) {
	src, err := OpenURL(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	e, err := checkReplayable(src.Manifest, in, true)
	if err != nil {
		return nil, nil, err
	}
	layout, high := e.HiddenLayout()
	if layout == nil {
		return nil, nil, &ConfigError{Field: "Hidden", Reason: e.Spec().ID + " declares no hidden part (env.HiddenObserver)"}
	}
	return layout, high, nil
}
