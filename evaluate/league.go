package evaluate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// DefaultBootstrap is the number of bootstrap resamples of a league's
// rating intervals when LeagueConfig.Bootstrap is 0.
const DefaultBootstrap = 200

// LeagueConfig describes a league: a round robin of lineups drawn from a
// pool of agents on a multi-player game (see [RunLeague]).
type LeagueConfig struct {
	// Env is the environment id, EnvParams its parameters (players among
	// them; nil for the defaults).
	Env       string
	EnvParams map[string]any
	// Pool are the agents, each name[@key=value]... ([AgentSpec]); the
	// first is the reference of the ratings (rating 0). Labels are unique.
	Pool []string
	// AgentOptions are options every instance of an agent name shares.
	AgentOptions map[string]agents.Options
	// Deals is the number of deals every lineup plays, each once per
	// rotation of its seats (at least 1). Deal d is played from
	// rollout.EpisodeSeeds(Seed, d), by every lineup.
	Deals int64
	// Seed is the run seed: of the deals, and of the bootstrap.
	Seed uint64
	// Workers is the number of goroutines playing; 0 means
	// runtime.NumCPU(). The report does not depend on it, timings aside.
	Workers int
	// Bootstrap is the number of bootstrap resamples of the deals behind
	// the rating intervals; 0 means DefaultBootstrap, negative none (the
	// intervals are then NaN).
	Bootstrap int
	// Progress, when set, is called as games finish, never from two
	// goroutines at once.
	Progress func(Progress)
	// External are games played outside the league (a Python policy's,
	// [ReadExternalGames]) merged into the fit, the bootstrap (by their
	// deal key) and the head-to-head tallies. A seat label not in Pool
	// joins the report as an agent of its own, after the pool's, in order of
	// first appearance.
	External []ExternalGame
	// RateOnly plays no game: the ratings, tallies and head-to-head matrix
	// are those of the External games alone (at least one), the pool still
	// naming the anchor (its first agent) and the order of the agents. A
	// league's own games record ([LeagueReport.WriteGames]) read back this
	// way, with the same Deals and Seed, gives the same report.
	RateOnly bool
}

// Command returns the galaxygym eval command line of the league (without
// --workers and the output flags).
func (c LeagueConfig) Command() string {
	var b strings.Builder
	fmt.Fprintf(&b, "galaxygym eval --env %s --league %s --episodes %d --seed %d", c.Env, strings.Join(c.Pool, ","), c.Deals, c.Seed)
	if c.Bootstrap != 0 {
		fmt.Fprintf(&b, " --bootstrap %d", c.Bootstrap)
	}
	if c.RateOnly {
		b.WriteString(" --rate-only")
	}
	writeOptionFlags(&b, c.AgentOptions, c.EnvParams)
	return b.String()
}

// LeagueAgent is one pool agent's results in a league.
type LeagueAgent struct {
	Name    string // its label in the pool
	Options agents.Options
	// Rating is the Plackett-Luce rating in Elo points relative to the
	// pool's first agent, the anchor (0, by definition, with the interval
	// [0, 0]); CI its 95% bootstrap percentile interval over the deals
	// (NaN without a bootstrap).
	Rating float64
	CI     Interval
	// RatingWidePrior is its rating refitted with the prior's standard
	// deviation doubled (2·RatingPriorSD): close to Rating when the games
	// pin the rating, far from it when the prior does (an agent that never
	// wins, or never loses, against some other).
	RatingWidePrior float64
	// Games are its appearances (one seat of one game), WinRate the share
	// of them whose outcome was a win, MeanRank its mean rank (1 = best),
	// MeanScore its mean score.
	Games     int64
	WinRate   float64
	MeanRank  float64
	MeanScore float64
}

// LeagueReport is the result of [RunLeague].
type LeagueReport struct {
	Env       string
	EnvParams env.Params
	Seed      uint64
	Deals     int64
	Workers   int
	Players   int
	Bootstrap int
	// Lineups are the lineups played, as pool indices by position; each
	// played Deals deals, once per rotation.
	Lineups [][]int
	Games   int64
	// ExternalGames is the number of LeagueConfig.External games merged in
	// (not counted in Games); their agents outside the pool follow the
	// pool's in Agents.
	ExternalGames int64
	Steps         int64
	Elapsed       time.Duration
	// Agents are in pool order; Order lists their indices by rating, best
	// first.
	Agents []*LeagueAgent
	Order  []int
	// Score[a][b] is a's head-to-head score against b: over every game in
	// which both sat, and every pair of their seats, 1 when a ranked
	// better, 1/2 for a tie, 0 when worse, averaged over the Meetings[a][b]
	// pairs. NaN on the diagonal and for agents that never met.
	Score    [][]float64
	Meetings [][]int64
	// played is the league that made the report, for WriteGames (nil in a
	// report built by hand).
	played *league
}

// Lineups returns the lineups of a league of m agents on an n-player game,
// as agent indices by position, in lexicographic order: every n-subset of
// the pool when m >= n; when m < n, every multiset of n seats holding each
// agent at least once (for 2 agents in 4 seats: AAAB, AABB, ABBB).
func Lineups(m, n int) [][]int {
	var out [][]int
	cur := make([]int, 0, n)
	var rec func(start int)
	if m >= n {
		rec = func(start int) {
			if len(cur) == n {
				out = append(out, slices.Clone(cur))
				return
			}
			for a := start; a < m; a++ {
				cur = append(cur, a)
				rec(a + 1)
				cur = cur[:len(cur)-1]
			}
		}
		rec(0)
		return out
	}
	// The n-m extra seats as a multiset, merged into 0..m-1.
	extra := n - m
	rec = func(start int) {
		if len(cur) == extra {
			l := make([]int, 0, n)
			for a := range m {
				l = append(l, a)
			}
			l = append(l, cur...)
			slices.Sort(l)
			out = append(out, l)
			return
		}
		for a := start; a < m; a++ {
			cur = append(cur, a)
			rec(a)
			cur = cur[:len(cur)-1]
		}
	}
	rec(0)
	return out
}

// leagueGame is one seat's result.
type leagueSeat struct {
	score float64
	rank  int32
	win   bool
}

// RunLeague plays a league: every lineup of [Lineups] over the pool plays
// the same Deals deals once per rotation of its seats (in rotation r seat k
// is played by lineup position (k+r) mod n), each agent instance seeded by
// [rollout.SeatSeed] from its first seat. From every game's ranking it fits
// Plackett-Luce ratings ([FitPlackettLuce]) with 95% intervals from a
// bootstrap over the deals (every game of a resampled deal, all lineups and
// rotations, counted as often as the deal is drawn, so the pairing by deal
// is kept), and tallies the head-to-head scores. External games
// (cfg.External) are checked before any game is played and merged into the
// fit, the bootstrap and the tallies; with cfg.RateOnly nothing is played
// and they are all there is. Each agent is refitted once more under a prior
// twice as wide (LeagueAgent.RatingWidePrior, [LeagueReport.Notes]).
// [LeagueReport.WriteGames] writes the games. Errors: *[ConfigError],
// *[ExternalGameError], *[rollout.AgentError], *[InterruptedError].
func RunLeague(ctx context.Context, cfg LeagueConfig) (*LeagueReport, error) {
	lg, envs, err := newLeague(cfg)
	if err != nil {
		return nil, err
	}
	if err := lg.externalAgents(); err != nil {
		return nil, err
	}
	var (
		ws      []*worker
		elapsed time.Duration
		steps   int64
	)
	if !cfg.RateOnly {
		ev := &evaluation{cfg: Config{Progress: cfg.Progress}}
		if ws, err = lg.workers(envs, ev); err != nil {
			return nil, err
		}
		if elapsed, steps, err = lg.play(ctx, ev, ws); err != nil {
			return nil, err
		}
	}
	r := &LeagueReport{Env: lg.spec.ID, EnvParams: envs[0].Params(), Seed: cfg.Seed, Deals: cfg.Deals, Workers: len(ws),
		Players: lg.n, Lineups: lg.lineups, Games: lg.games, Steps: steps, Elapsed: elapsed, Bootstrap: cfg.Bootstrap,
		ExternalGames: int64(len(cfg.External)), played: lg}
	if r.Bootstrap == 0 {
		r.Bootstrap = DefaultBootstrap
	}
	t := lg.tally(r)
	ratings, wide, ci, err := lg.rate(t, r.Bootstrap)
	if err != nil {
		return nil, err
	}
	for i, label := range lg.labels {
		var opts agents.Options
		if i < lg.m {
			opts = lg.specs[i].Options
		}
		g := float64(t.games[i])
		r.Agents = append(r.Agents, &LeagueAgent{Name: label, Options: opts, Rating: ratings[i],
			CI: ci[i], RatingWidePrior: wide[i], Games: t.games[i], WinRate: t.sums[i].wins / g,
			MeanRank: t.sums[i].rank / g, MeanScore: t.sums[i].score / g})
		r.Order = append(r.Order, i)
	}
	sort.SliceStable(r.Order, func(a, b int) bool { return ratings[r.Order[a]] > ratings[r.Order[b]] })
	return r, nil
}

// league is a league in progress: its configuration, the pool's specs,
// the game, every agent's label (the pool's, then the external games'
// own), the lineups and every seat's result.
type league struct {
	cfg       LeagueConfig
	specs     []AgentSpec
	spec      *env.Spec
	n, m      int       // players, pool agents
	labels    []string  // the pool's labels, then the external games' own
	extIdx    [][]int32 // each external game's seats as indexes into labels
	lineups   [][]int
	perLineup int64 // games per lineup: deals x rotations
	games     int64 // games played
	results   []leagueSeat
	nworkers  int
}

// newLeague checks cfg (pool, agents, deals, workers, a multi-player
// game) and makes the workers' environments.
func newLeague(cfg LeagueConfig) (*league, []*env.Env, error) {
	if len(cfg.Pool) < 2 {
		return nil, nil, &ConfigError{Field: "Pool", Reason: fmt.Sprintf("%d agents: a league wants at least 2", len(cfg.Pool))}
	}
	for i, l := range cfg.Pool {
		if slices.Contains(cfg.Pool[:i], l) {
			return nil, nil, &ConfigError{Field: "Pool", Reason: strconv.Quote(l) + " given twice (give instances different options: name@key=value)"}
		}
	}
	specs, err := Config{AgentOptions: cfg.AgentOptions}.specs("Pool", cfg.Pool)
	if err != nil {
		return nil, nil, err
	}
	workers, envs, err := prepare(Config{Env: cfg.Env, EnvParams: cfg.EnvParams, AgentOptions: cfg.AgentOptions,
		Episodes: cfg.Deals, Workers: cfg.Workers}, names(specs))
	if err != nil {
		var ce *ConfigError
		if ok := asConfigError(err, &ce); ok && ce.Field == "Episodes" {
			ce.Field = "Deals"
		}
		return nil, nil, err
	}
	spec := envs[0].Spec()
	n := spec.NumPlayers
	if n < 2 {
		return nil, nil, &ConfigError{Field: "Env", Reason: spec.ID + " has one player: a league wants a multi-player game (eval --agents compares one-player agents)"}
	}
	m := len(cfg.Pool)
	lg := &league{cfg: cfg, specs: specs, spec: spec, n: n, m: m, perLineup: cfg.Deals * int64(n), nworkers: workers}
	if cfg.RateOnly {
		if len(cfg.External) == 0 {
			return nil, nil, &ConfigError{Field: "RateOnly", Reason: "no external games to rate (a league's games record read back: --games FILE)"}
		}
		return lg, envs, nil
	}
	lg.lineups = Lineups(m, n)
	lg.games = int64(len(lg.lineups)) * lg.perLineup
	return lg, envs, nil
}

// externalAgents checks the external games and gives their agents labels:
// the pool's, then labels of their own.
func (lg *league) externalAgents() error {
	lg.labels = make([]string, lg.m)
	index := make(map[string]int32, lg.m)
	for i, sp := range lg.specs {
		lg.labels[i] = sp.Label
		index[sp.Label] = int32(i)
	}
	lg.extIdx = make([][]int32, len(lg.cfg.External))
	for i := range lg.cfg.External {
		g := &lg.cfg.External[i]
		if err := g.check(i, lg.n, lg.cfg.Deals); err != nil {
			return err
		}
		for _, l := range g.Seats {
			a, ok := index[l]
			if !ok {
				a = int32(len(lg.labels))
				index[l] = a
				lg.labels = append(lg.labels, l)
			}
			lg.extIdx[i] = append(lg.extIdx[i], a)
		}
	}
	return nil
}

// workers makes every worker's agents, one instance per pool agent, and
// its loops, one per lineup and rotation.
func (lg *league) workers(envs []*env.Env, ev *evaluation) ([]*worker, error) {
	n := lg.n
	ws := make([]*worker, lg.nworkers)
	for w := range ws {
		inst := make([]agents.Agent, lg.m)
		for i, sp := range lg.specs {
			a, err := agents.New(sp.Name, lg.spec, sp.Options)
			if err != nil {
				return nil, &ConfigError{Field: "Pool", Reason: "cannot make " + strconv.Quote(sp.Label), Err: err}
			}
			inst[i] = a
		}
		ws[w] = &worker{ev: ev, env: envs[w]}
		for _, lu := range lg.lineups {
			for r := range n {
				seats, nm := make([]agents.Agent, n), make([]string, n)
				for k := range n {
					seats[k], nm[k] = inst[lu[(k+r)%n]], lg.cfg.Pool[lu[(k+r)%n]]
				}
				l, err := rollout.New(envs[w], seats, nm)
				if err != nil {
					return nil, &ConfigError{Field: "Pool", Reason: "lineup", Err: err}
				}
				ws[w].loops = append(ws[w].loops, l)
			}
		}
	}
	return ws, nil
}

// at returns game g's lineup, deal and rotation: lineup g/perLineup, deal
// (g%perLineup)/n, rotation g%n.
func (lg *league) at(g int64) (lineup int, deal int64, rot int) {
	return int(g / lg.perLineup), (g % lg.perLineup) / int64(lg.n), int(g % int64(lg.n))
}

// play plays every game on the workers and keeps every seat's result.
func (lg *league) play(ctx context.Context, ev *evaluation, ws []*worker) (time.Duration, int64, error) {
	n := lg.n
	lg.results = make([]leagueSeat, lg.games*int64(n))
	ev.progress = Progress{Agent: "league", Agents: 1, EpisodesToPlay: lg.games}
	elapsed, steps, err := ev.play(ctx, lg.games, ws, func(wk *worker, g int64) (int32, error) {
		lu, deal, rot := lg.at(g)
		envSeed, agentSeed := rollout.EpisodeSeeds(lg.cfg.Seed, deal)
		t, err := wk.loops[lu*n+rot].Play(deal, envSeed, agentSeed, false, nil)
		if err != nil {
			return t, err
		}
		wk.env.FillInfo(&wk.info)
		for k := range n {
			lg.results[g*int64(n)+int64(k)] = leagueSeat{score: wk.info.Scores[k], rank: int32(wk.info.Ranks[k]),
				win: wk.info.Outcomes[k] == env.OutcomeWin}
		}
		return t, nil
	})
	if err != nil {
		return 0, 0, interrupted(err, "league", lg.games)
	}
	return elapsed, steps, nil
}

// leagueTally is every game ranked for the fit with its deal, and each
// agent's games and sums of wins, ranks and scores.
type leagueTally struct {
	ranked []RankedGame
	dealOf []int64
	games  []int64
	sums   []struct{ wins, rank, score float64 }
}

// tally ranks the games played and the external ones for the fit, sums
// each agent's results and fills r's head-to-head Score and Meetings.
func (lg *league) tally(r *LeagueReport) *leagueTally {
	n, mAll, games := lg.n, len(lg.labels), lg.games
	total := games + int64(len(lg.cfg.External))
	t := &leagueTally{ranked: make([]RankedGame, total), dealOf: make([]int64, total),
		games: make([]int64, mAll), sums: make([]struct{ wins, rank, score float64 }, mAll)}
	r.Score, r.Meetings = make([][]float64, mAll), make([][]int64, mAll)
	for a := range mAll {
		r.Score[a], r.Meetings[a] = make([]float64, mAll), make([]int64, mAll)
	}
	for g := range total {
		who, ranks := make([]int32, n), make([]int32, n)
		var deal int64
		if g < games {
			var lu, rot int
			lu, deal, rot = lg.at(g)
			for k := range n {
				a := lg.lineups[lu][(k+rot)%n]
				s := lg.results[g*int64(n)+int64(k)]
				who[k], ranks[k] = int32(a), s.rank
				t.games[a]++
				t.sums[a].rank += float64(s.rank)
				t.sums[a].score += s.score
				if s.win {
					t.sums[a].wins++
				}
			}
		} else {
			e := &lg.cfg.External[g-games]
			deal = e.Deal
			for k := range n {
				a := lg.extIdx[g-games][k]
				who[k], ranks[k] = a, e.Ranks[k]
				t.games[a]++
				t.sums[a].rank += float64(e.Ranks[k])
				t.sums[a].score += e.Scores[k]
				if e.Ranks[k] == 1 && slices.Index(e.Ranks[k+1:], 1) < 0 && slices.Index(e.Ranks[:k], 1) < 0 {
					t.sums[a].wins++
				}
			}
		}
		for i := range n {
			for j := range n {
				if a, b := who[i], who[j]; a != b {
					r.Meetings[a][b]++
					switch {
					case ranks[i] < ranks[j]:
						r.Score[a][b]++
					case ranks[i] == ranks[j]:
						r.Score[a][b] += 0.5
					}
				}
			}
		}
		t.ranked[g] = RankedGame{Agents: who, Ranks: ranks, Weight: 1}
		t.dealOf[g] = deal
	}
	for a := range mAll {
		for b := range mAll {
			if r.Meetings[a][b] == 0 {
				r.Score[a][b] = math.NaN()
			} else {
				r.Score[a][b] /= float64(r.Meetings[a][b])
			}
		}
	}
	return t
}

// rate fits the ratings (Elo points above the first agent), the ratings
// under a prior twice as wide and, with bootstrap draws, their intervals
// (NaN without): the deals resampled with replacement, a game weighing as
// many times as its deal is drawn.
func (lg *league) rate(t *leagueTally, bootstrap int) (ratings, wide []float64, ci []Interval, err error) {
	mAll, deals := len(lg.labels), lg.cfg.Deals
	pg := prepareGames(t.ranked)
	theta, err := fitPL(pg, mAll, nil, RatingPriorSD)
	if err != nil {
		return nil, nil, nil, err
	}
	thetaWide, err := fitPL(pg, mAll, theta, 2*RatingPriorSD)
	if err != nil {
		return nil, nil, nil, err
	}
	elo := func(th []float64) []float64 {
		out := make([]float64, mAll)
		for i := range th {
			out[i] = EloScale * (th[i] - th[0])
		}
		return out
	}
	ci = make([]Interval, mAll)
	for i := range mAll {
		ci[i] = Interval{math.NaN(), math.NaN()}
	}
	if bootstrap > 0 {
		rng := rand.New(rand.NewPCG(lg.cfg.Seed, 0x626f6f7473747270))
		draws := make([][]float64, mAll)
		count := make([]float64, deals)
		for range bootstrap {
			clear(count)
			for range deals {
				count[rng.Int64N(deals)]++
			}
			for g := range pg {
				pg[g].weight = count[t.dealOf[g]]
			}
			th, err := fitPL(pg, mAll, theta, RatingPriorSD)
			if err != nil {
				return nil, nil, nil, err
			}
			for i, v := range elo(th) {
				draws[i] = append(draws[i], v)
			}
		}
		for i := range mAll {
			slices.Sort(draws[i])
			ci[i] = Interval{stat.Quantile((1-Level)/2, stat.Empirical, draws[i], nil),
				stat.Quantile(1-(1-Level)/2, stat.Empirical, draws[i], nil)}
		}
	}
	return elo(theta), elo(thetaWide), ci, nil
}

// asConfigError is errors.As for a *ConfigError.
func asConfigError(err error, ce **ConfigError) bool {
	c, ok := err.(*ConfigError)
	if ok {
		*ce = c
	}
	return ok
}
