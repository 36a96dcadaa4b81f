package datasets

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

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
	cur     *replayCursor // Materialize: the recorded actions and results, else nil
}

func (r *run) newWorker() (*worker, error) {
	if r.src != nil {
		e, err := env.Make(r.spec.ID, r.params)
		if err != nil {
			return nil, &ConfigError{Field: "Env", Reason: "cannot make " + r.spec.ID, Err: err}
		}
		l, c, err := newReplayLoop(e, r.names)
		if err != nil {
			return nil, err
		}
		c.dir = r.src.Dir
		if r.src.Dir == "" {
			c.dir = r.cfg.Out
		}
		return &worker{r: r, loop: l, cur: c}, nil
	}
	r.mu.Lock()
	l := r.loop0
	r.loop0 = nil
	r.mu.Unlock()
	if l == nil {
		var err error
		if l, _, err = r.newLoop(); err != nil {
			return nil, err
		}
	}
	return &worker{r: r, loop: l}, nil
}

// recorder writes the steps of an episode into a part's steps table.
type recorder struct {
	sw    *stepsFile
	seats []agents.Agent // the loop's seats (RecordSearch: searchSeats)
	check *replayCursor  // a replay's: every step's result is checked
	ep    int64
	t     int32
	last  int32 // the last player to act
}

// Before returns the observation slot of the next row and copies the mask.
func (rc *recorder) Before(_ int, mask []uint8) []uint8 {
	if rc.sw.compact {
		return nil
	}
	copy(rc.sw.maskSlot(), mask)
	return rc.sw.obsSlot()
}

// After commits the row.
func (rc *recorder) After(p, act int, res env.StepResult) error {
	if rc.check != nil {
		rc.check.after(res)
	}
	if rc.sw.search {
		ss, _ := rc.seats[p].(*searchSeat)
		rc.sw.setSearchValue(ss.record(act, rc.sw.searchSlot()))
	}
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
// reports. The context is checked before every episode and once more after
// a part's last, so that a cancelled run stops within one episode, however
// slow its agents, and never finishes a part played after the context was
// done.
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
	if w.cur != nil {
		p := &r.src.Manifest.Parts[i]
		if p.Index != i || p.EpisodeStart != start || p.EpisodeEnd != end {
			return &FormatError{Path: r.src.Dir + "/" + ManifestFile, Reason: fmt.Sprintf("part %d is not episodes [%d, %d)", i, start, end)}
		}
		rp, err := readReplayPart(r.src, p)
		if err != nil {
			return err
		}
		w.cur.reset(rp, 0, len(rp.ep))
	}
	// A searching agent stops within about 10 ms of ctx's end
	// (agents.Cancellable); its last moves are then not reproducible, so
	// the part is abandoned, not finished.
	for _, a := range w.loop.Seats() {
		agents.SetContext(a, ctx)
	}
	done := ctx.Done()
	var episodes, steps int64
	for ep := start; ep < end; ep++ {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		if episodes == progressEvery {
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
	if err := ctx.Err(); err != nil {
		return err // the last episode may have been cut short
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
	w.rec = recorder{sw: sw, ep: ep, seats: l.Seats()}
	if c := w.cur; c != nil {
		c.start(ep)
		w.rec.check = c
	}
	t, err := l.Play(ep, envSeed, agentSeed, false, &w.rec)
	if w.cur != nil && w.cur.err != nil {
		return t, w.cur.err
	}
	if err != nil {
		var se *stepsError
		if errors.As(err, &se) {
			return t, pw.stepErr(se.err)
		}
		return t, err
	}
	// The final row: the last observation, seen by the last player to act.
	e, last := l.Env(), w.rec.last
	if !sw.compact {
		e.Observe(int(last), sw.obsSlot())
		clear(sw.maskSlot())
	}
	if err := sw.commit(ep, t, last, -1, nil, false, false); err != nil {
		return t, pw.stepErr(err)
	}
	row := episodeRowOf(e, &w.info, &w.infoBuf, ep, envSeed, t, w.r.meta.agent, w.r.names)
	if w.cur != nil {
		if err := w.cur.end(t, last, &row); err != nil {
			return t, err
		}
	}
	return t, pw.endEpisode(row)
}

// episodeRowOf returns the episodes-table row of episode ep, just played
// by e in t steps from envSeed; info and infoBuf are the caller's scratch.
func episodeRowOf(e *env.Env, info *env.Info, infoBuf *[]byte, ep int64, envSeed uint64, t int32, agent string, names []string) episodeRow {
	e.FillInfo(info)
	*infoBuf = info.AppendJSON((*infoBuf)[:0])
	row := episodeRow{
		EpisodeID:  ep,
		Seed:       int64(envSeed),
		Agent:      agent,
		SeatAgents: names,
		Length:     t,
		Returns:    append([]float64(nil), e.Returns()...),
		Outcome:    info.Outcome.String(),
		Scores:     append([]float64(nil), info.Scores...),
		Ranks:      make([]int32, len(info.Ranks)),
		Outcomes:   make([]string, len(info.Outcomes)),
		Info:       string(*infoBuf),
	}
	for i, r := range info.Ranks {
		row.Ranks[i] = int32(r)
	}
	for i, o := range info.Outcomes {
		row.Outcomes[i] = o.String()
	}
	return row
}
