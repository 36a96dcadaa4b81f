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
	"reflect"
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
// action names or bounds), a *[ConfigError] for a full dataset. Replaying
// the episodes still checks every step.
func CheckDerivable(m *Manifest, dir string) (*env.Env, error) {
	if !m.Compact() {
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
// 10,000 Express episodes, 4 million rows, takes about 60 MB).
type replayPart struct {
	ep        []int64
	step      []int32
	player    []int32
	action    []int32
	rewards   []float32 // numPlayers per row
	term      []bool
	trunc     []bool
	episodes  []episodeRow
	numPlayer int
}

// readReplayPart reads part p of the compact dataset d.
func readReplayPart(d *Dataset, p *PartInfo) (*replayPart, error) {
	rp := &replayPart{numPlayer: d.Manifest.NumPlayers}
	n := int(p.Steps.Rows)
	rp.ep, rp.step, rp.player, rp.action = make([]int64, 0, n), make([]int32, 0, n), make([]int32, 0, n), make([]int32, 0, n)
	rp.rewards = make([]float32, 0, n*rp.numPlayer)
	rp.term, rp.trunc = make([]bool, 0, n), make([]bool, 0, n)
	path := filepath.Join(d.Dir, filepath.FromSlash(p.Steps.Path))
	for s, err := range readStepsFile(d.fs, path) {
		if err != nil {
			return nil, err
		}
		if len(s.Rewards) != rp.numPlayer {
			return nil, &FormatError{Path: path, Reason: fmt.Sprintf("%d rewards in a row, want %d", len(s.Rewards), rp.numPlayer)}
		}
		rp.ep = append(rp.ep, s.EpisodeID)
		rp.step = append(rp.step, int32(s.Step))
		rp.player = append(rp.player, int32(s.Player))
		rp.action = append(rp.action, int32(s.Action))
		rp.rewards = append(rp.rewards, s.Rewards...)
		rp.term = append(rp.term, s.Terminated)
		rp.trunc = append(rp.trunc, s.Truncated)
	}
	err := readEpisodesFile(d.fs, filepath.Join(d.Dir, filepath.FromSlash(p.Episodes.Path)), func(row *episodeRow) error {
		c := *row
		c.SeatAgents = slices.Clone(row.SeatAgents)
		c.Returns = slices.Clone(row.Returns)
		c.Scores = slices.Clone(row.Scores)
		c.Ranks = slices.Clone(row.Ranks)
		c.Outcomes = slices.Clone(row.Outcomes)
		rp.episodes = append(rp.episodes, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if int64(len(rp.episodes)) != p.EpisodeEnd-p.EpisodeStart || int64(len(rp.ep)) != p.Steps.Rows {
		return nil, &FormatError{Path: path, Reason: "rows or episodes differ from the manifest"}
	}
	return rp, nil
}

// replayCursor walks a replayPart row by row as its episodes are replayed;
// it is the action source of every seat and checks every step's result.
type replayCursor struct {
	dir  string
	part *replayPart
	pos  int   // the next row
	ep   int64 // the episode being replayed
	t    int   // its step
	err  error // the first divergence
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
	if c.pos >= len(c.part.ep) || c.part.ep[c.pos] != ep || c.part.step[c.pos] != 0 {
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
	if i >= len(c.part.ep) || c.part.ep[i] != c.ep || c.part.action[i] < 0 {
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
	if i >= len(c.part.ep) || c.part.ep[i] != c.ep || c.part.action[i] != -1 || c.part.step[i] != t {
		c.fail("episode length", "more steps", strconv.Itoa(int(t))+" steps (the game is over)")
		return c.err
	}
	if c.part.player[i] != last {
		c.fail("player", strconv.Itoa(int(c.part.player[i])), strconv.Itoa(int(last))+" on the final row")
		return c.err
	}
	c.pos++
	k := int(c.ep - c.part.ep[0])
	if k < 0 || k >= len(c.part.episodes) {
		c.fail("episodes table", "no row", "a row")
		return c.err
	}
	stored := &c.part.episodes[k]
	switch {
	case stored.Seed != row.Seed:
		c.fail("seed", strconv.FormatInt(stored.Seed, 10), strconv.FormatInt(row.Seed, 10)+" (the run seed's)")
	case !reflect.DeepEqual(stored.Returns, row.Returns):
		c.fail("returns", fmt.Sprint(stored.Returns), fmt.Sprint(row.Returns))
	case stored.Info != row.Info:
		c.fail("info", stored.Info, row.Info)
	case !reflect.DeepEqual(stored, row):
		c.fail("episodes table row", fmt.Sprintf("%+v", *stored), fmt.Sprintf("%+v", *row))
	}
	return c.err
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
// rows); a batch of 0 rows ends the stream. It is what
// galaxygym.datasets.load reads from `galaxygym dataset derive IN` to give
// a compact dataset the arrays of a full one, at Go speed and holding
// about 2 MiB per worker. Every step is checked as in [Materialize]; a
// dataset this build cannot replay is refused with a *[DeriveError]
// before anything is written, and a divergence found later ends the
// stream without its end batch.
func Derive(ctx context.Context, in string, w io.Writer, workers int) error {
	src, err := OpenURL(ctx, in)
	if err != nil {
		return err
	}
	defer src.Close()
	e, err := checkDerivable(src, in)
	if err != nil {
		return err
	}
	m := src.Manifest
	spec, params := e.Spec(), e.Params()
	names := seatNames(m)
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	nparts := len(m.Parts)
	workers = max(1, min(workers, nparts))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rowBytes := spec.ObsSize() + spec.NumActions()
	batch := max(16, (1<<20)/rowBytes)
	free := make(chan []byte, 4*workers+4)
	outs := make([]chan []byte, nparts)
	for i := range outs {
		outs[i] = make(chan []byte, 4)
	}
	jobs := make(chan int, nparts)
	for i := range nparts {
		jobs <- i
	}
	close(jobs)
	var (
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env1, err := env.Make(spec.ID, params)
			if err != nil {
				fail(err)
				return
			}
			l, c, err := newReplayLoop(env1, names)
			if err != nil {
				fail(err)
				return
			}
			c.dir = in
			s := &streamRec{obsSize: spec.ObsSize(), numActions: spec.NumActions(), batch: batch, check: c, free: free, ctx: ctx,
				agent: m.Agent.Name, names: names}
			for i := range jobs {
				s.out = outs[i]
				err := s.part(src, &m.Parts[i], l, c, m.Seed)
				close(outs[i])
				if err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	var werr error
	for i := range nparts {
		for b := range outs[i] {
			if werr == nil {
				if _, werr = w.Write(b); werr != nil {
					fail(werr)
				}
			}
			select {
			case free <- b:
			default:
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	// Drain what workers still send after a failure, so none blocks.
	go func() {
		for i := range nparts {
			for range outs[i] {
			}
		}
	}()
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = w.Write([]byte{0, 0, 0, 0})
	return err
}

// streamRec is a Derive worker's rollout.Recorder: it fills batches of
// observations and masks and sends them, in order, on out.
type streamRec struct {
	obsSize, numActions int
	batch               int
	buf                 []byte // 4-byte header, batch observations, batch masks
	n                   int
	check               *replayCursor
	free                chan []byte
	out                 chan []byte
	ctx                 context.Context
	info                env.Info
	infoBuf             []byte
	last                int32    // the last player to act
	agent               string   // the episodes table's agent
	names               []string // its seat_agents
}

func (s *streamRec) obsSlot() []byte {
	o := 4 + s.n*s.obsSize
	return s.buf[o : o+s.obsSize]
}

func (s *streamRec) maskSlot() []byte {
	o := 4 + s.batch*s.obsSize + s.n*s.numActions
	return s.buf[o : o+s.numActions]
}

// Before returns the next row's observation slot and copies the mask.
func (s *streamRec) Before(_ int, mask []uint8) []uint8 {
	copy(s.maskSlot(), mask)
	return s.obsSlot()
}

// After checks the step and completes the row.
func (s *streamRec) After(p, _ int, res env.StepResult) error {
	s.check.after(res)
	s.last = int32(p)
	return s.commit()
}

// commit completes a row, sending the batch when it is full.
func (s *streamRec) commit() error {
	s.n++
	if s.n == s.batch {
		return s.flush()
	}
	return nil
}

// flush sends the rows of the batch: header, observations, then the masks
// moved up behind them.
func (s *streamRec) flush() error {
	if s.n == 0 {
		return nil
	}
	n := s.n
	binary.LittleEndian.PutUint32(s.buf, uint32(n))
	end := 4 + n*s.obsSize
	copy(s.buf[end:], s.buf[4+s.batch*s.obsSize:4+s.batch*s.obsSize+n*s.numActions])
	b := s.buf[:end+n*s.numActions]
	s.buf, s.n = nil, 0
	select {
	case s.out <- b:
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
	s.newBuf()
	return nil
}

func (s *streamRec) newBuf() {
	size := 4 + s.batch*(s.obsSize+s.numActions)
	select {
	case b := <-s.free:
		if cap(b) >= size {
			s.buf = b[:size]
			return
		}
	default:
	}
	s.buf = make([]byte, size)
}

// part replays part p, sending its rows.
func (s *streamRec) part(src *Dataset, p *PartInfo, l *rollout.Loop, c *replayCursor, seed uint64) error {
	rp, err := readReplayPart(src, p)
	if err != nil {
		return err
	}
	c.part, c.pos = rp, 0
	if s.buf == nil {
		s.newBuf()
	}
	e := l.Env()
	for ep := p.EpisodeStart; ep < p.EpisodeEnd; ep++ {
		if (ep-p.EpisodeStart)%progressEvery == 0 && s.ctx.Err() != nil {
			return s.ctx.Err()
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
		e.Observe(int(s.last), s.obsSlot())
		clear(s.maskSlot())
		row := episodeRowOf(e, &s.info, &s.infoBuf, ep, envSeed, t, s.agent, s.names)
		if err := c.end(t, s.last, &row); err != nil {
			return err
		}
		if err := s.commit(); err != nil {
			return err
		}
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
