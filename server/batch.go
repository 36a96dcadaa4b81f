package server

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// batch is a session's N environments of one id with the reply buffer they
// are encoded into. It is used by one session goroutine at a time; during a
// step, disjoint ranges of environments are stepped by pool workers.
type batch struct {
	spec   *env.Spec
	params env.Params
	mode   AutoresetMode
	lay    Layout

	envs    []*env.Env
	base    []uint64 // seed chain base per env
	episode []uint64 // episode counter per env (0 = the base seed)
	seeded  []bool   // reset at least once
	actor   []int32  // last player to act, whose view a terminal obs shows
	actions []int32  // decoded actions of the current step request

	reply []byte // Layout.MaxSize bytes, reused by every reply

	// feat writes each action's features into replies (make's
	// action_features; nil when not asked).
	feat env.ActionFeaturer

	// learn, in a session with opponents (or several learner seats), holds
	// each environment's learner view (nil otherwise); plan is its lineup.
	learn []*rollout.LearnerEnv
	plan  *lineupPlan

	// done is the session context's Done channel (nil: never): a step
	// with opponents checks it before each environment and stops once it
	// is closed, setting stopped (the session is ending; see step).
	done    <-chan struct{}
	stopped atomic.Bool

	// SameStep scratch: the final observation and info of each env whose
	// episode ended in the current step, compacted into the final section.
	fin        []bool
	finObs     []byte
	finScore   []float32
	finSteps   []int32
	finOutcome []uint8
	finInfo    []byte // per env: its final per-player results (scores, ranks, outcomes), 9P bytes

	chunks []chunk
	wg     sync.WaitGroup
}

// chunk is one range of a batch stepped by one goroutine, with its own
// Info scratch so that filling infos allocates nothing.
type chunk struct {
	b      *batch
	lo, hi int
	info   env.Info
}

func (c *chunk) run() {
	c.b.stepRange(c.lo, c.hi, &c.info)
	c.b.wg.Done()
}

// minChunk is the smallest number of environments worth handing to another
// goroutine.
const minChunk = 128

// envOverhead is the estimated heap of an [env.Env] besides its arrays and
// its game state: the wrapper, slice headers, the state's own headers.
const envOverhead = 512

// batchBytes estimates the memory of a batch of n environments of spec in
// mode, including a reset that loads a state into every environment (each
// is cloned before the commit), for a game whose fresh snapshot is
// snapshotBytes long. A state's heap is taken as twice its JSON's length
// plus two observations (some games cache one); measured on both games it
// overestimates by 1.3-1.7x, the safe side.
func batchBytes(spec *env.Spec, n int, mode AutoresetMode, snapshotBytes, features int) int64 {
	o, a, p := spec.ObsSize(), spec.NumActions(), spec.NumPlayers
	l := NewLayout(n, o, a, p).WithActionFeatures(features)
	total := int64(l.MaxSize()) + int64(n)*(8+8+1+4+4) // reply; base, episode, seeded, actor, actions
	if mode == SameStep {
		total += int64(n) * int64(o+1+4+4+1)
	}
	perEnv := int64(envOverhead + a + 16*p + 2*o + 2*snapshotBytes)
	return total + 2*int64(n)*perEnv
}

// newBatch makes n environments of id with params; seeds supplies each
// environment's initial base seed (used by a reset with a null seed). A
// batch whose [batchBytes] estimate is over budget is refused with
// [CodeLimitExceeded] before it is built.
func newBatch(id string, n int, params map[string]any, mode AutoresetMode, seeds func() uint64, workers int, budget int64) (*batch, *Error) {
	return newLearnerBatch(context.Background(), id, n, params, mode, seeds, workers, budget, nil, agents.Limits{}, false)
}

// newLearnerBatch is newBatch with opponents: opp (nil or unset: none)
// checked against lim (caps, weights folder); each environment is then
// wrapped in a [rollout.LearnerEnv] whose agents are bounded by ctx (the
// session's: a search stops when the session ends), and ctx stops a step
// or reset between two environments ([batch.step], [batch.reset]). With
// features every reply also carries the game's action features
// ([Layout.ActionFeatures]); a game that declares none is a
// [CodeBadRequest].
func newLearnerBatch(ctx context.Context, id string, n int, params map[string]any, mode AutoresetMode, seeds func() uint64, workers int, budget int64,
	opp *Opponents, lim agents.Limits, features bool) (*batch, *Error) {
	first, err := env.Make(id, params)
	if err != nil {
		return nil, fromEnvError(err)
	}
	spec := first.Spec()
	var feat env.ActionFeaturer
	nf := 0
	if features {
		g, _ := env.Lookup(id)
		var ok bool
		if feat, ok = g.(env.ActionFeaturer); !ok {
			return nil, errorf(CodeBadRequest, "action_features: %s declares no action features", id)
		}
		nf = len(feat.ActionFeatureNames())
	}
	var plan *lineupPlan
	if opp != nil && opp.set() {
		var perr *Error
		if plan, perr = planLineup(opp, spec, lim); perr != nil {
			return nil, perr
		}
	}
	probe := first.Clone()
	probe.Reset(0)
	snap, err := probe.MarshalJSON()
	if err != nil {
		return nil, fromEnvError(err)
	}
	if need := batchBytes(spec, n, mode, len(snap), nf); need > budget {
		perEnv := max(1, need/int64(n))
		return nil, errorf(CodeLimitExceeded, "%d environments of %s need about %d MiB; a session may hold %d MiB besides its message buffers (at most about %d of these)",
			n, id, need>>20, budget>>20, max(0, budget/perEnv))
	}
	b := &batch{
		done:    ctx.Done(),
		spec:    spec,
		params:  first.Params(),
		mode:    mode,
		lay:     NewLayout(n, spec.ObsSize(), spec.NumActions(), spec.NumPlayers).WithActionFeatures(nf),
		feat:    feat,
		envs:    make([]*env.Env, n),
		base:    make([]uint64, n),
		episode: make([]uint64, n),
		seeded:  make([]bool, n),
		actor:   make([]int32, n),
		actions: make([]int32, n),
	}
	b.envs[0] = first
	for i := 1; i < n; i++ {
		e, err := env.Make(id, params)
		if err != nil {
			return nil, fromEnvError(err)
		}
		b.envs[i] = e
	}
	for i := range b.base {
		b.base[i] = seeds()
	}
	if plan != nil {
		b.plan = plan
		b.learn = make([]*rollout.LearnerEnv, n)
		for i, e := range b.envs {
			l, err := plan.learnerEnv(ctx, e)
			if err != nil {
				return nil, errorf(CodeBadParam, "opponents: %v", err)
			}
			b.learn[i] = l
		}
	}
	b.reply = make([]byte, b.lay.MaxSize(), b.lay.MaxSize()+RequestIDSize) // room for the request id trailer
	if mode == SameStep {
		b.fin = make([]bool, n)
		b.finObs = make([]byte, n*b.lay.O)
		b.finScore = make([]float32, n)
		b.finSteps = make([]int32, n)
		b.finOutcome = make([]uint8, n)
		b.finInfo = make([]byte, n*9*spec.NumPlayers)
	}
	k := max(1, min(workers, n/minChunk))
	b.chunks = make([]chunk, k)
	for c := range b.chunks {
		b.chunks[c] = chunk{b: b, lo: n * c / k, hi: n * (c + 1) / k}
	}
	return b, nil
}

// validateStep checks the decoded actions against every environment before
// any is stepped.
func (b *batch) validateStep() *Error {
	for i, a := range b.actions {
		e := b.envs[i]
		if !b.seeded[i] {
			err := errorf(CodeNotReset, "environment %d has not been reset", i)
			err.Index = i
			return err
		}
		if e.Done() {
			if b.mode == Disabled {
				err := errorf(CodeEpisodeOver, "environment %d: episode is over and autoreset is disabled; reset it", i)
				err.Index = i
				return err
			}
			continue // autoreset: the action is ignored
		}
		if a < 0 || int(a) >= b.lay.A {
			err := errorf(CodeIllegalAction, "environment %d: action %d out of range [0, %d)", i, a, b.lay.A)
			err.Index, err.Action = i, int(a)
			return err
		}
		if e.Mask()[a] == 0 {
			err := errorf(CodeIllegalAction, "environment %d: action %d (%s) is not legal in this state", i, a, b.spec.ActionNames[a])
			err.Index, err.Action = i, int(a)
			return err
		}
	}
	return nil
}

// step steps every environment with the validated actions, using pool to
// spread large batches over goroutines, and returns the encoded reply. In
// a session with opponents, once the session's context is done (the
// client went away, the server is closing the session) the remaining
// environments are not stepped and step returns a [CodeCancelled] error
// instead: the batch is then part stepped, and the session ends.
func (b *batch) step(p *pool) ([]byte, *Error) {
	if len(b.chunks) == 1 {
		b.stepRange(0, b.lay.N, &b.chunks[0].info)
	} else {
		b.wg.Add(len(b.chunks) - 1)
		for c := 1; c < len(b.chunks); c++ {
			if !p.submit(&b.chunks[c]) {
				b.chunks[c].run()
			}
		}
		c := &b.chunks[0]
		b.stepRange(c.lo, c.hi, &c.info)
		b.wg.Wait()
	}
	if b.stopped.Load() {
		return nil, errorf(CodeCancelled, "step stopped: the session is closing; its environments are part stepped")
	}
	k := 0
	if b.mode == SameStep {
		k = b.compactFinals()
	}
	size := b.lay.Final(k).Size
	b.lay.putHeader(b.reply, KindStepReply, k)
	return b.reply[:size], nil
}

// cancelled reports whether the session's context is done, for a batch
// with opponents (whose steps and resets may search); it records it in
// b.stopped.
func (b *batch) cancelled() bool {
	if b.learn == nil {
		return false
	}
	select {
	case <-b.done:
		b.stopped.Store(true)
		return true
	default:
		return false
	}
}

func (b *batch) stepRange(lo, hi int, info *env.Info) {
	l := &b.lay
	buf := b.reply
	for i := lo; i < hi; i++ {
		if b.cancelled() {
			return
		}
		e := b.envs[i]
		rew := buf[l.Rewards+4*l.P*i : l.Rewards+4*l.P*(i+1)]
		var term, trunc bool
		if e.Done() {
			b.autoreset(i)
			clear(rew)
			if b.learn != nil && e.Done() {
				b.putFinalRewards(i)
			}
		} else if b.learn != nil {
			term, trunc = b.stepLearner(i, info)
		} else {
			actor := e.CurrentPlayer()
			b.actor[i] = int32(actor)
			res, err := e.Step(int(b.actions[i]))
			if err != nil {
				panic("server: validated step failed: " + err.Error())
			}
			for p, r := range res.Rewards {
				binary.LittleEndian.PutUint32(rew[4*p:], math.Float32bits(float32(r)))
			}
			term, trunc = res.Terminated, res.Truncated
			if (term || trunc) && b.mode == SameStep {
				b.fin[i] = true
				e.Observe(actor, b.finObs[l.O*i:l.O*(i+1)])
				e.FillInfo(info)
				b.finScore[i] = float32(info.Score)
				b.finOutcome[i] = outcomeCode(info.Outcome)
				b.finSteps[i] = int32(e.Steps())
				p := l.P
				putPlayers(b.finInfo[9*p*i:9*p*(i+1)], 0, 4*p, 8*p, 0, p, info)
				b.autoreset(i)
			}
		}
		buf[l.Terminated+i] = b2u8(term)
		buf[l.Truncated+i] = b2u8(trunc)
		b.writeState(i, info)
	}
}

// stepLearner steps environment i's learner view with its action and
// writes the step's rewards (see docs/protocol.md, "Opponents"): the
// learner seat now to act gets its reward since its previous decision; once
// the game is over every seat gets its reward since its last decision (an
// opponent seat: its whole return), so that over an episode every seat's
// rewards sum to its return.
func (b *batch) stepLearner(i int, info *env.Info) (term, trunc bool) {
	l := &b.lay
	rew := b.reply[l.Rewards+4*l.P*i : l.Rewards+4*l.P*(i+1)]
	le := b.learn[i]
	e := b.envs[i]
	res, err := le.Step(int(b.actions[i]))
	if err != nil {
		panic("server: validated learner step failed: " + err.Error())
	}
	clear(rew)
	b.actor[i] = int32(res.Seat)
	if res.Done() {
		b.putFinalRewards(i)
	} else if !res.First {
		binary.LittleEndian.PutUint32(rew[4*res.Seat:], math.Float32bits(float32(res.Reward)))
	}
	term, trunc = res.Terminated, res.Truncated
	if res.Done() && b.mode == SameStep {
		b.fin[i] = true
		e.Observe(res.Seat, b.finObs[l.O*i:l.O*(i+1)])
		e.FillInfo(info)
		b.finScore[i] = float32(info.Score)
		b.finOutcome[i] = outcomeCode(info.Outcome)
		b.finSteps[i] = int32(e.Steps())
		p := l.P
		putPlayers(b.finInfo[9*p*i:9*p*(i+1)], 0, 4*p, 8*p, 0, p, info)
		b.autoreset(i)
		if e.Done() {
			// The opponents ended the new episode before any learner
			// decision: nothing of it can be reported in this reply; the
			// next step request starts another.
			b.actor[i] = 0
		}
	}
	return term, trunc
}

// putFinalRewards writes every seat's last reward of environment i's
// finished episode into the reply's rewards.
func (b *batch) putFinalRewards(i int) {
	l := &b.lay
	rew := b.reply[l.Rewards+4*l.P*i : l.Rewards+4*l.P*(i+1)]
	for p, r := range b.learn[i].FinalRewards() {
		binary.LittleEndian.PutUint32(rew[4*p:], math.Float32bits(float32(r)))
	}
}

// resetEnv starts environment i's episode from seed: a plain reset, or with
// opponents a learner reset that plays them until a learner seat is to act.
func (b *batch) resetEnv(i int, seed uint64) {
	if b.learn == nil {
		b.envs[i].Reset(seed)
		return
	}
	if err := b.learn[i].Reset(int64(b.episode[i]), seed, OpponentSeed(seed)); err != nil {
		panic("server: an opponent's action was refused: " + err.Error())
	}
}

// compactFinals writes the final section of a SameStep reply and returns K.
func (b *batch) compactFinals() int {
	l := &b.lay
	k := 0
	for _, f := range b.fin {
		if f {
			k++
		}
	}
	if k == 0 {
		return 0
	}
	fl := l.Final(k)
	p := l.P
	buf := b.reply
	le := binary.LittleEndian
	j := 0
	for i, f := range b.fin {
		if !f {
			continue
		}
		b.fin[i] = false
		le.PutUint32(buf[fl.Index+4*j:], uint32(i))
		le.PutUint32(buf[fl.Score+4*j:], math.Float32bits(b.finScore[i]))
		le.PutUint32(buf[fl.Steps+4*j:], uint32(b.finSteps[i]))
		buf[fl.Outcome+j] = b.finOutcome[i]
		fi := b.finInfo[9*p*i : 9*p*(i+1)]
		copy(buf[fl.Scores+4*p*j:], fi[:4*p])
		copy(buf[fl.Ranks+4*p*j:], fi[4*p:8*p])
		copy(buf[fl.Outcomes+p*j:], fi[8*p:9*p])
		copy(buf[fl.Obs+l.O*j:fl.Obs+l.O*(j+1)], b.finObs[l.O*i:l.O*(i+1)])
		j++
	}
	return k
}

// autoreset starts environment i's next episode of its seed chain.
func (b *batch) autoreset(i int) {
	b.episode[i]++
	b.resetEnv(i, EpisodeSeed(b.base[i], b.episode[i]))
}

// writeState encodes environment i's observation (of the player to act, or
// of the last actor once the episode is over), mask, current player and
// compact info into the reply buffer.
func (b *batch) writeState(i int, info *env.Info) {
	l := &b.lay
	buf := b.reply
	e := b.envs[i]
	cp := e.CurrentPlayer()
	p := cp
	if p < 0 {
		p = int(b.actor[i])
	}
	obs := buf[l.Obs+l.O*i : l.Obs+l.O*(i+1)]
	_ = e.Observe(p, obs)
	copy(buf[l.Mask+l.A*i:l.Mask+l.A*(i+1)], e.Mask())
	if b.feat != nil {
		dst := buf[l.ActionFeatures+l.A*l.F*i : l.ActionFeatures+l.A*l.F*(i+1)]
		if cp < 0 {
			clear(dst)
		} else {
			b.feat.ActionFeatures(obs, dst)
		}
	}
	e.FillInfo(info)
	le := binary.LittleEndian
	le.PutUint32(buf[l.CurrentPlayer+4*i:], uint32(int32(cp)))
	le.PutUint32(buf[l.Score+4*i:], math.Float32bits(float32(info.Score)))
	le.PutUint32(buf[l.Steps+4*i:], uint32(e.Steps()))
	buf[l.Outcome+i] = outcomeCode(info.Outcome)
	putPlayers(buf, l.Scores, l.Ranks, l.Outcomes, i, l.P, info)
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// reset applies a reset message: it validates every part of it first, so
// that a bad seed list, mask or state leaves every environment as it was,
// then resets the selected environments and returns the encoded reply
// (its storage has room for the request id trailer). A reset stopped by
// ctx ([CodeCancelled]) leaves every environment as it was.
func (b *batch) reset(ctx context.Context, c *Control) ([]byte, *Error) {
	n := b.lay.N
	if c.Seeds != nil && len(c.Seeds) != n {
		return nil, errorf(CodeBadRequest, "reset has %d seeds; the session holds %d environments", len(c.Seeds), n)
	}
	if c.Mask != nil && len(c.Mask) != n {
		return nil, errorf(CodeBadRequest, "reset mask has %d entries; the session holds %d environments", len(c.Mask), n)
	}
	var opts ResetOptions
	if c.Options != nil {
		opts = *c.Options
	}
	if opts.States != nil && len(opts.States) != n {
		return nil, errorf(CodeBadRequest, "reset options.states has %d entries; the session holds %d environments", len(opts.States), n)
	}
	if len(opts.State) > 0 && string(opts.State) != "null" && opts.States != nil {
		return nil, errorf(CodeBadRequest, "reset options may hold state or states, not both")
	}
	if b.learn != nil && ((len(opts.State) > 0 && string(opts.State) != "null") || opts.States != nil) {
		return nil, errorf(CodeBadRequest, "reset options state and states are not available in a session with opponents")
	}
	selected := func(i int) bool { return c.Mask == nil || c.Mask[i] }
	stateOf := func(i int) json.RawMessage {
		if opts.States != nil {
			if s := opts.States[i]; len(s) > 0 && string(s) != "null" {
				return s
			}
			return nil
		}
		if string(opts.State) == "null" {
			return nil
		}
		return opts.State
	}
	// Phase 1: work out every selected env's seed chain and load states into
	// clones; nothing of the batch changes yet. Each distinct state of the
	// message is parsed once (a single options.state once for the whole
	// batch), so the parsing one message causes is linear in its size
	// (at most ReadLimit bytes); every further environment is a clone. The
	// loop stops, answering CodeCancelled, when ctx is done (the client
	// went away or the server is shutting down).
	type plan struct {
		base, episode uint64
		loaded        *env.Env
	}
	plans := make([]plan, n)
	var shared *stateCache
	if opts.States == nil && stateOf(0) != nil {
		shared = &stateCache{raw: opts.State}
	}
	for i := 0; i < n; i++ {
		if !selected(i) {
			continue
		}
		if ctx.Err() != nil {
			return nil, errorf(CodeCancelled, "reset stopped after %d of %d environments: the session is closing; no environment was reset", i, n)
		}
		pl := plan{base: b.base[i], episode: b.episode[i]}
		switch {
		case c.Seeds != nil && c.Seeds[i] != nil:
			pl.base, pl.episode = *c.Seeds[i], 0
		case b.seeded[i]:
			pl.episode++
		}
		if raw := stateOf(i); raw != nil {
			if resetLoadHook != nil {
				resetLoadHook(ctx, i)
			}
			cache := shared
			if cache == nil {
				cache = &stateCache{raw: raw}
			}
			e, err := cache.load(b.envs[i], EpisodeSeed(pl.base, pl.episode))
			if err != nil {
				perr := fromEnvError(err)
				perr.Index = i
				return nil, perr
			}
			pl.loaded = e
		}
		plans[i] = pl
	}
	// Phase 2: commit.
	info := &b.chunks[0].info
	l := &b.lay
	buf := b.reply
	for i := 0; i < n; i++ {
		if b.cancelled() {
			return nil, errorf(CodeCancelled, "reset stopped after %d of %d environments: the session is closing", i, n)
		}
		e := b.envs[i]
		if selected(i) {
			pl := plans[i]
			b.base[i], b.episode[i], b.seeded[i] = pl.base, pl.episode, true
			if pl.loaded != nil {
				b.envs[i] = pl.loaded
				e = pl.loaded
			} else {
				b.resetEnv(i, EpisodeSeed(pl.base, pl.episode))
			}
			b.actor[i] = 0
		}
		clear(buf[l.Rewards+4*l.P*i : l.Rewards+4*l.P*(i+1)])
		if b.learn != nil && b.seeded[i] && e.Done() {
			b.putFinalRewards(i) // the opponents ended the episode before any learner decision
		}
		buf[l.Terminated+i] = b2u8(e.Terminated())
		buf[l.Truncated+i] = b2u8(e.Truncated())
		if b.seeded[i] {
			b.writeState(i, info)
		} else {
			b.writeUnreset(i)
		}
	}
	b.lay.putHeader(buf, KindResetReply, 0)
	return buf[:l.FixedSize], nil
}

// writeUnreset encodes an environment that has never been reset (a masked
// reset left it out): zero observation and mask, current player -1.
func (b *batch) writeUnreset(i int) {
	l := &b.lay
	buf := b.reply
	clear(buf[l.Obs+l.O*i : l.Obs+l.O*(i+1)])
	clear(buf[l.Mask+l.A*i : l.Mask+l.A*(i+1)])
	clear(buf[l.ActionFeatures+l.A*l.F*i : l.ActionFeatures+l.A*l.F*(i+1)])
	le := binary.LittleEndian
	le.PutUint32(buf[l.CurrentPlayer+4*i:], ^uint32(0)) // -1: env.Terminal
	le.PutUint32(buf[l.Score+4*i:], 0)
	le.PutUint32(buf[l.Steps+4*i:], 0)
	buf[l.Outcome+i] = uint8(env.OutcomeOngoing)
	clear(buf[l.Scores+4*l.P*i : l.Scores+4*l.P*(i+1)])
	clear(buf[l.Ranks+4*l.P*i : l.Ranks+4*l.P*(i+1)])
	clear(buf[l.Outcomes+l.P*i : l.Outcomes+l.P*(i+1)])
}

// resetLoadHook, set by tests, runs before each environment's state is
// loaded in a reset (phase 1), with the session's context.
var resetLoadHook func(ctx context.Context, i int)

// stateParses counts the states a reset has parsed (snapshots loaded and
// game states decoded), for tests.
var stateParses atomic.Int64

// stateCache loads one state of a reset message (an environment snapshot
// or a game state) into environments, parsing it once: a snapshot is
// loaded into the first environment's clone and cloned for the others; a
// game state is decoded once per distinct parameter set (one, unless
// earlier snapshots changed some environment's parameters) and each
// environment starts from a clone of it with its own seed.
type stateCache struct {
	raw      json.RawMessage
	kind     int // 0 not probed, 1 snapshot, 2 game state
	snapshot *env.Env
	states   []cachedState
}

type cachedState struct {
	params env.Params
	state  env.State
}

// load returns a clone of e with the cached state loaded, seeded with seed
// (a game state) or with the snapshot's own seed.
func (sc *stateCache) load(e *env.Env, seed uint64) (*env.Env, error) {
	if sc.kind == 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(sc.raw, &obj); err != nil {
			return nil, &env.StateError{Env: e.Spec().ID, Reason: "state is not a JSON object", Err: err}
		}
		if _, ok := obj["env"]; ok {
			sc.kind = 1
		} else {
			sc.kind = 2
		}
	}
	if sc.kind == 1 {
		if sc.snapshot == nil {
			c := e.Clone()
			stateParses.Add(1)
			if err := c.Load(sc.raw); err != nil {
				return nil, err
			}
			sc.snapshot = c
		}
		return sc.snapshot.Clone(), nil
	}
	var st env.State
	for _, cs := range sc.states {
		if reflect.DeepEqual(cs.params, e.Params()) {
			st = cs.state
			break
		}
	}
	if st == nil {
		var err error
		stateParses.Add(1)
		if st, err = e.DecodeState(sc.raw); err != nil {
			return nil, err
		}
		sc.states = append(sc.states, cachedState{e.Params(), st})
	}
	c := e.Clone()
	if err := c.Start(st.Clone(), seed); err != nil {
		return nil, err
	}
	return c, nil
}
