package evaluate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// Config describes an evaluation.
type Config struct {
	// Env is the environment id, EnvParams its parameters (nil for the
	// defaults; string values are parsed by the environment's spec).
	Env       string
	EnvParams map[string]any
	// Agents are the registered agent names, in report order; the first is
	// the reference of the paired differences. A name may repeat. Each
	// agent plays every seat of its episodes (one-player and cooperative
	// games). Leave it empty when Seats is set.
	Agents []string
	// Seats, when set, is a lineup instead of Agents (competitive games):
	// Seats[k] plays seat k, len NumPlayers, each seat its own agent
	// seeded by [rollout.SeatSeed]. The report has one row per distinct
	// agent, in order of first seat; the first is the reference of the
	// paired differences.
	Seats []string
	// Rotate, with Seats, plays every deal once per rotation of the seats
	// (duplicate style): in rotation r (0..NumPlayers-1) seat k is played
	// by Seats[(k+r) mod NumPlayers], so that every agent meets the same
	// deals from every seat.
	Rotate bool
	// AgentOptions are the options of each agent, by agent name; every key
	// must be one of Agents (or Seats).
	AgentOptions map[string]agents.Options
	// Episodes is the number of episodes each agent plays (at least 1);
	// with Seats, the number of deals (each played once per rotation with
	// Rotate).
	Episodes int64
	// Seed is the run seed: episode (deal) i is played from
	// rollout.EpisodeSeeds(Seed, i).
	Seed uint64
	// Workers is the number of goroutines playing episodes, each with its
	// own environment and agent; 0 means runtime.NumCPU(). The report does
	// not depend on it, timings aside.
	Workers int
	// Progress, when set, is called as episodes finish, never from two
	// goroutines at once.
	Progress func(Progress)
}

// Progress is a snapshot of a running evaluation, given to Config.Progress.
type Progress struct {
	Agent      string // the agent playing
	AgentIndex int    // its index in Config.Agents
	Agents     int    // len(Config.Agents)
	Episodes   int64  // episodes this agent has finished
	// EpisodesToPlay is the number of episodes each agent plays.
	EpisodesToPlay int64
	Steps          int64 // steps this agent has played
}

// Command returns the galaxygym eval command line of the configuration
// (without --workers, --format and the output flags, which change no
// result), agent options and environment parameters in sorted order.
func (c Config) Command() string {
	var b strings.Builder
	who := "--agents " + strings.Join(c.Agents, ",")
	if len(c.Seats) > 0 {
		who = "--seats " + strings.Join(c.Seats, ",")
		if c.Rotate {
			who += " --rotate"
		}
	}
	fmt.Fprintf(&b, "galaxygym eval --env %s %s --episodes %d --seed %d",
		c.Env, who, c.Episodes, c.Seed)
	writeOptionFlags(&b, c.AgentOptions, c.EnvParams)
	return b.String()
}

// writeOptionFlags writes the --agent-opt and --env-param flags of a
// command line, each sorted by name.
func writeOptionFlags(b *strings.Builder, agentOptions map[string]agents.Options, envParams map[string]any) {
	for _, name := range slices.Sorted(maps.Keys(agentOptions)) {
		for _, k := range slices.Sorted(maps.Keys(agentOptions[name])) {
			fmt.Fprintf(b, " --agent-opt %s.%s=%s", name, k, agentOptions[name][k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(envParams)) {
		fmt.Fprintf(b, " --env-param %s=%v", k, envParams[k])
	}
}

// Report is the result of [Run].
type Report struct {
	Env       string
	EnvParams env.Params // resolved: every declared parameter
	Seed      uint64
	Episodes  int64 // episodes per agent; with Seats, deals
	Workers   int
	// Seats and Rotate are Config's: a report of seats has one row per
	// distinct agent, whose per-game results are per appearance (one
	// agent in one seat of one game).
	Seats  []string
	Rotate bool
	// Stats are the names of the game's numeric statistics ([env.Info]
	// Stats), in the game's order; AgentSummary.MeanStats follows it.
	Stats []string
	// Labels are the game's string statistics and the values they took;
	// AgentSummary.Shares follows it.
	Labels []LabelValues
	// Agents are the results, in Config.Agents order.
	Agents []*AgentReport
}

// LabelValuer is implemented by an [env.Game] that can list every value
// one of its labels can take, in the order a report should show them (for
// an ordinal rating, best first). A report then has a share column for
// each, zero for a value no episode took; without it, the columns are the
// values seen, ordered by the mean return of their episodes.
type LabelValuer interface {
	LabelValues(label string) []string
}

// LabelValues lists the values of a label: those the game declares (see
// [LabelValuer]), in its order, then the others seen in the evaluation,
// ordered by the mean return of the episodes carrying them, highest first
// (ties by slug).
type LabelValues struct {
	Name   string
	Values []string // as the game writes them, e.g. "Employee of the Year!!"
	Slugs  []string // snake_case forms used in column names, unique per label
}

// AgentReport is one agent's episodes and their summary.
type AgentReport struct {
	Name    string
	Options agents.Options
	// Returns, Lengths and Wins are per episode, by episode index: the mean
	// over players of the episode's returns, its number of steps, and
	// whether its outcome was a win. In a report of seats they are per
	// appearance (the agent's seat's return, the game's length, whether
	// the seat's outcome was a win), in game then seat order, and Scores,
	// Ranks and Deals hold the seat's score, its rank and the deal.
	Returns []float64
	Lengths []int32
	Wins    []bool
	Scores  []float64
	Ranks   []float64
	Deals   []int64
	Steps   int64         // steps over all episodes
	Elapsed time.Duration // wall time of this agent's episodes
	Summary AgentSummary

	stats  []float64 // [episode*len(Report.Stats)+j], NaN when absent
	labels []int32   // [episode*len(Report.Labels)+j], an index into the label's values, -1 when absent
}

// AgentSummary holds the statistics of one agent's episodes (see the
// package documentation for their definitions).
type AgentSummary struct {
	Episodes int64 // episodes, or appearances (games) in a report of seats
	// Score and Rank are, in a report of seats, the mean score and the
	// mean rank (1 = best) over the agent's appearances with their 95% t
	// intervals.
	Score      Estimate
	Rank       Estimate
	Return     Estimate // mean return, sd and 95% t interval
	WinRate    float64
	WinCI      Interval // 95% Wilson score interval
	MeanLength float64
	MeanStats  []float64   // aligned with Report.Stats
	Shares     [][]float64 // [label][value], aligned with Report.Labels
	// DiffVsFirst is the paired difference of returns against the first
	// agent (mean and 95% t interval); nil for the first agent. In a report
	// of seats it is the difference of scores on the same deals: per deal,
	// the agent's mean score over its appearances minus the first agent's.
	DiffVsFirst    *Estimate
	StepsPerSecond float64
	Seconds        float64
}

// Run plays every agent of cfg over the same seeded episodes and returns
// the report. Errors: *[ConfigError] (its cause an
// *[agents.UnknownAgentError] for an unknown agent), *[rollout.AgentError], and
// *[InterruptedError] when ctx is cancelled.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if len(cfg.Agents) > 0 && len(cfg.Seats) > 0 {
		return nil, &ConfigError{Field: "Seats", Reason: "both Agents and Seats: want one agent per row (Agents) or one per seat (Seats)"}
	}
	if len(cfg.Seats) > 0 {
		return runSeats(ctx, cfg)
	}
	if cfg.Rotate {
		return nil, &ConfigError{Field: "Rotate", Reason: "rotation needs Seats"}
	}
	if len(cfg.Agents) == 0 {
		return nil, &ConfigError{Field: "Agents", Reason: "no agent"}
	}
	specs, err := cfg.specs("Agents", cfg.Agents)
	if err != nil {
		return nil, err
	}
	workers, envs, err := prepare(cfg, names(specs))
	if err != nil {
		return nil, err
	}
	spec := envs[0].Spec()
	game, _ := env.Lookup(spec.ID)
	// Every agent's instances, one per worker, made before anything plays.
	players := make([][]agents.Agent, len(cfg.Agents))
	for i, name := range cfg.Agents {
		players[i] = make([]agents.Agent, workers)
		for w := range players[i] {
			a, err := agents.New(specs[i].Name, spec, specs[i].Options)
			if err != nil {
				return nil, &ConfigError{Field: "Agents", Reason: "cannot make " + strconv.Quote(name), Err: err}
			}
			players[i][w] = a
		}
	}

	r := &Report{Env: spec.ID, EnvParams: envs[0].Params(), Seed: cfg.Seed, Episodes: cfg.Episodes, Workers: workers}
	// The statistics' and labels' names, from the Info of a fresh episode.
	var info env.Info
	envSeed, _ := rollout.EpisodeSeeds(cfg.Seed, 0)
	envs[0].Reset(envSeed)
	envs[0].FillInfo(&info)
	for _, s := range info.Stats {
		r.Stats = append(r.Stats, s.Name)
	}
	for _, l := range info.Labels {
		r.Labels = append(r.Labels, LabelValues{Name: l.Name})
	}

	ev := &evaluation{cfg: cfg, r: r, interned: make([]map[string]int32, len(r.Labels))}
	for j := range ev.interned {
		ev.interned[j] = map[string]int32{}
	}
	ws := make([]*worker, workers)
	for w := range ws {
		ws[w] = &worker{ev: ev, env: envs[w], cache: make([]map[string]int32, len(r.Labels))}
		for j := range ws[w].cache {
			ws[w].cache[j] = map[string]int32{}
		}
	}
	for i, name := range cfg.Agents {
		ar := &AgentReport{
			Name:    name,
			Options: specs[i].Options,
			Returns: make([]float64, cfg.Episodes),
			Lengths: make([]int32, cfg.Episodes),
			Wins:    make([]bool, cfg.Episodes),
			stats:   make([]float64, cfg.Episodes*int64(len(r.Stats))),
			labels:  make([]int32, cfg.Episodes*int64(len(r.Labels))),
		}
		r.Agents = append(r.Agents, ar)
		for w, wk := range ws {
			seats, names := rollout.Same(players[i][w], name, spec.NumPlayers)
			if wk.loops, err = rolloutLoops(wk.env, seats, names); err != nil {
				return nil, err
			}
		}
		ev.progress = Progress{Agent: name, AgentIndex: i, Agents: len(cfg.Agents), EpisodesToPlay: cfg.Episodes}
		elapsed, steps, err := ev.play(ctx, cfg.Episodes, ws, func(wk *worker, ep int64) (int32, error) {
			return wk.episode(ep, ar)
		})
		ar.Elapsed, ar.Steps = elapsed, steps
		if err != nil {
			return nil, interrupted(err, name, cfg.Episodes)
		}
	}
	declared := map[string][]string{}
	if lv, ok := game.(LabelValuer); ok {
		for _, l := range r.Labels {
			declared[l.Name] = lv.LabelValues(l.Name)
		}
	}
	r.orderLabels(ev.values, declared)
	r.summarize()
	return r, nil
}

// evaluation is the state Run's workers share.
type evaluation struct {
	cfg Config
	r   *Report

	mu       sync.Mutex
	interned []map[string]int32 // per label: value -> index into values
	values   [][]string         // per label: the values, in order of first sight

	progressMu sync.Mutex
	progress   Progress
}

// intern returns the index of value v of label j.
func (ev *evaluation) intern(j int, v string) int32 {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if k, ok := ev.interned[j][v]; ok {
		return k
	}
	for len(ev.values) <= j {
		ev.values = append(ev.values, nil)
	}
	k := int32(len(ev.values[j]))
	ev.values[j] = append(ev.values[j], v)
	ev.interned[j][v] = k
	return k
}

// worker plays episodes with its own environment.
type worker struct {
	ev    *evaluation
	env   *env.Env
	loops []*rollout.Loop // the lineups it plays (one per rotation of the seats)
	info  env.Info
	cache []map[string]int32 // per label: value -> index, a copy of ev.interned's entries
}

// rolloutLoops returns the loop of one lineup of e.
func rolloutLoops(e *env.Env, seats []agents.Agent, names []string) ([]*rollout.Loop, error) {
	l, err := rollout.New(e, seats, names)
	if err != nil {
		return nil, &ConfigError{Field: "Seats", Reason: "lineup", Err: err}
	}
	return []*rollout.Loop{l}, nil
}

// prepare validates what both kinds of evaluation share and makes one
// environment per worker.
func prepare(cfg Config, names []string) (int, []*env.Env, error) {
	if cfg.Episodes < 1 {
		return 0, nil, &ConfigError{Field: "Episodes", Reason: "want at least 1, have " + strconv.FormatInt(cfg.Episodes, 10)}
	}
	if cfg.Workers < 0 {
		return 0, nil, &ConfigError{Field: "Workers", Reason: "negative"}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.AgentOptions)) {
		if !slices.Contains(names, name) {
			return 0, nil, &ConfigError{Field: "AgentOptions",
				Reason: fmt.Sprintf("options for %s, which is not one of the agents %v", strconv.Quote(name), names)}
		}
	}
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	workers = int(min(int64(workers), cfg.Episodes))
	envs := make([]*env.Env, workers)
	for w := range envs {
		e, err := env.Make(cfg.Env, cfg.EnvParams)
		if err != nil {
			return 0, nil, &ConfigError{Field: "Env", Reason: "cannot make " + strconv.Quote(cfg.Env), Err: err}
		}
		envs[w] = e
	}
	return workers, envs, nil
}

// interrupted wraps a cancellation in an *InterruptedError.
func interrupted(err error, who string, episodes int64) error {
	var st *stopped
	if errors.As(err, &st) {
		return &InterruptedError{Agent: who, EpisodesDone: st.done, Episodes: episodes, Err: st.err}
	}
	return err
}

// stopped reports workers stopped by the context after done games.
type stopped struct {
	done int64
	err  error
}

func (s *stopped) Error() string { return s.err.Error() }

// chunk returns how many consecutive episodes a worker takes at a time.
func chunk(episodes int64, workers int) int64 {
	return max(1, min(64, episodes/int64(workers*16)))
}

// play runs games 0..n-1 over the workers, game g played by game(w, g)
// on some worker w, and returns the wall time and the steps played. A
// cancelled context gives a *stopped error.
func (ev *evaluation) play(ctx context.Context, n int64, ws []*worker, game func(w *worker, g int64) (int32, error)) (time.Duration, int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := ctx.Done()
	step := chunk(n, len(ws))
	var (
		next, finished, steps atomic.Int64
		errMu                 sync.Mutex
		firstErr              error
		wg                    sync.WaitGroup
	)
	t0 := time.Now()
	for _, wk := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := next.Add(step) - step
				if start >= n {
					return
				}
				end := min(start+step, n)
				var st int64
				for g := start; g < end; g++ {
					select {
					case <-done:
						finished.Add(g - start)
						return
					default:
					}
					t, err := game(wk, g)
					if err != nil {
						errMu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						errMu.Unlock()
						cancel()
						return
					}
					st += int64(t)
				}
				finished.Add(end - start)
				steps.Add(st)
				ev.report(end-start, st)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	if firstErr != nil {
		return elapsed, steps.Load(), firstErr
	}
	if played := finished.Load(); played < n {
		err := ctx.Err()
		if err == nil {
			err = errors.New("workers stopped early") // cannot happen
		}
		return elapsed, steps.Load(), &stopped{played, err}
	}
	return elapsed, steps.Load(), nil
}

// report adds finished episodes to the progress and calls Config.Progress.
func (ev *evaluation) report(episodes, steps int64) {
	if ev.cfg.Progress == nil {
		return
	}
	ev.progressMu.Lock()
	defer ev.progressMu.Unlock()
	ev.progress.Episodes += episodes
	ev.progress.Steps += steps
	ev.cfg.Progress(ev.progress)
}

// episode plays episode ep with the worker's lineup and records it in
// ar; it returns the episode's length.
func (w *worker) episode(ep int64, ar *AgentReport) (int32, error) {
	envSeed, agentSeed := rollout.EpisodeSeeds(w.ev.cfg.Seed, ep)
	t, err := w.loops[0].Play(ep, envSeed, agentSeed, false, nil)
	if err != nil {
		return t, err
	}
	e := w.env
	var sum float64
	rets := e.Returns()
	for _, x := range rets {
		sum += x
	}
	ar.Returns[ep] = sum / float64(len(rets))
	ar.Lengths[ep] = t
	e.FillInfo(&w.info)
	ar.Wins[ep] = w.info.Outcome == env.OutcomeWin
	r := w.ev.r
	if ns := len(r.Stats); ns > 0 {
		dst := ar.stats[ep*int64(ns) : (ep+1)*int64(ns)]
		for j, name := range r.Stats {
			if j < len(w.info.Stats) && w.info.Stats[j].Name == name {
				dst[j] = w.info.Stats[j].Value
			} else if v, ok := w.info.Stat(name); ok {
				dst[j] = v
			} else {
				dst[j] = math.NaN()
			}
		}
	}
	if nl := len(r.Labels); nl > 0 {
		dst := ar.labels[ep*int64(nl) : (ep+1)*int64(nl)]
		for j, lv := range r.Labels {
			var v string
			ok := false
			if j < len(w.info.Labels) && w.info.Labels[j].Name == lv.Name {
				v, ok = w.info.Labels[j].Value, true
			} else {
				v, ok = w.info.Label(lv.Name)
			}
			if !ok {
				dst[j] = -1
				continue
			}
			k, hit := w.cache[j][v]
			if !hit {
				k = w.ev.intern(j, v)
				w.cache[j][v] = k
			}
			dst[j] = k
		}
	}
	return t, nil
}

// orderLabels fills r.Labels' values: first the values the game declares
// (see [LabelValuer]) in its order, then the other values seen, ordered by
// the mean return of the episodes carrying them; it renumbers the episodes'
// label indices to that order.
func (r *Report) orderLabels(values [][]string, declared map[string][]string) {
	nl := len(r.Labels)
	for j := range r.Labels {
		name := r.Labels[j].Name
		var vals []string
		if j < len(values) {
			vals = slices.Clone(values[j])
		}
		for _, v := range declared[name] {
			if !slices.Contains(vals, v) {
				vals = append(vals, v) // declared, never seen: a zero share
			}
		}
		sum := make([]float64, len(vals))
		cnt := make([]float64, len(vals))
		for _, ar := range r.Agents {
			for ep, x := range ar.Returns {
				if k := ar.labels[ep*nl+j]; k >= 0 {
					sum[k] += x
					cnt[k]++
				}
			}
		}
		slugs := make([]string, len(vals))
		for k, v := range vals {
			slugs[k] = Slug(v)
		}
		order := make([]int, len(vals))
		for k := range order {
			order[k] = k
		}
		rank := map[string]int{} // declared values: their rank
		for i, v := range declared[name] {
			if _, dup := rank[v]; !dup {
				rank[v] = i
			}
		}
		sort.SliceStable(order, func(a, b int) bool {
			ra, oka := rank[vals[order[a]]]
			rb, okb := rank[vals[order[b]]]
			if oka || okb {
				return oka && (!okb || ra < rb)
			}
			ma, mb := sum[order[a]]/cnt[order[a]], sum[order[b]]/cnt[order[b]]
			if ma != mb {
				return ma > mb
			}
			if slugs[order[a]] != slugs[order[b]] {
				return slugs[order[a]] < slugs[order[b]]
			}
			return vals[order[a]] < vals[order[b]]
		})
		renum := make([]int32, len(vals))
		lv := &r.Labels[j]
		seen := map[string]int{}
		for pos, k := range order {
			renum[k] = int32(pos)
			lv.Values = append(lv.Values, vals[k])
			slug := slugs[k]
			if n := seen[slug]; n > 0 {
				slug += "_" + strconv.Itoa(n+1)
			}
			seen[slugs[k]]++
			lv.Slugs = append(lv.Slugs, slug)
		}
		for _, ar := range r.Agents {
			for ep := range ar.Returns {
				if k := ar.labels[ep*nl+j]; k >= 0 {
					ar.labels[ep*nl+j] = renum[k]
				}
			}
		}
	}
}

// summarize computes every agent's Summary.
func (r *Report) summarize() {
	ns, nl := len(r.Stats), len(r.Labels)
	var first *AgentReport
	for _, ar := range r.Agents {
		n := int64(len(ar.Returns))
		s := AgentSummary{Episodes: n, Return: MeanCI(ar.Returns, Level)}
		var wins, length int64
		for ep, w := range ar.Wins {
			if w {
				wins++
			}
			length += int64(ar.Lengths[ep])
		}
		s.WinRate, s.WinCI = Wilson(wins, n, Level)
		s.MeanLength = float64(length) / float64(n)
		s.MeanStats = make([]float64, ns)
		for j := range ns {
			var sum float64
			var cnt int64
			for ep := range n {
				if v := ar.stats[ep*int64(ns)+int64(j)]; !math.IsNaN(v) {
					sum += v
					cnt++
				}
			}
			s.MeanStats[j] = math.NaN()
			if cnt > 0 {
				s.MeanStats[j] = sum / float64(cnt)
			}
		}
		s.Shares = make([][]float64, nl)
		for j, lv := range r.Labels {
			counts := make([]int64, len(lv.Values))
			for ep := range n {
				if k := ar.labels[ep*int64(nl)+int64(j)]; k >= 0 {
					counts[k]++
				}
			}
			s.Shares[j] = make([]float64, len(lv.Values))
			for k, c := range counts {
				s.Shares[j][k] = float64(c) / float64(n)
			}
		}
		if first == nil {
			first = ar
		} else if r.Seats == nil { // a report of seats pairs by deal (runSeats)
			d := make([]float64, n)
			for ep := range d {
				d[ep] = ar.Returns[ep] - first.Returns[ep]
			}
			est := MeanCI(d, Level)
			s.DiffVsFirst = &est
		}
		s.Seconds = ar.Elapsed.Seconds()
		if s.Seconds > 0 {
			s.StepsPerSecond = float64(ar.Steps) / s.Seconds
		}
		ar.Summary = s
	}
}

// Slug returns s as a snake_case identifier: lower-case ASCII letters and
// digits, every other run of characters one underscore, none at either end
// ("Employee of the Year!!" gives "employee_of_the_year"); "x" when nothing
// is left.
func Slug(s string) string {
	var b strings.Builder
	under := false
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(c)
		} else {
			under = true
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}
