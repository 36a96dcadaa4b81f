package evaluate

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// seatGame is one seat's result in one game of a seats evaluation.
type seatGame struct {
	ret, score float64
	rank       int32
	win        bool
}

// runSeats is Run for a lineup (Config.Seats): game g is deal g/R in
// rotation g%R, R = NumPlayers with Rotate and 1 without.
func runSeats(ctx context.Context, cfg Config) (*Report, error) {
	specs, err := cfg.specs("Seats", cfg.Seats)
	if err != nil {
		return nil, err
	}
	workers, envs, err := prepare(cfg, names(specs))
	if err != nil {
		return nil, err
	}
	spec := envs[0].Spec()
	n := spec.NumPlayers
	if len(cfg.Seats) != n {
		return nil, &ConfigError{Field: "Seats",
			Reason: fmt.Sprintf("%d agents for %s, which has %d players: want one per seat", len(cfg.Seats), spec.ID, n)}
	}
	rotations := 1
	if cfg.Rotate {
		rotations = n
	}
	var distinct []string
	for _, name := range cfg.Seats {
		if !slices.Contains(distinct, name) {
			distinct = append(distinct, name)
		}
	}
	// Every worker's agents, one per lineup position, and its loops, one
	// per rotation: in rotation r, seat k is played by position (k+r) mod n.
	ws := make([]*worker, workers)
	ev := &evaluation{cfg: cfg}
	for w := range ws {
		pos := make([]agents.Agent, n)
		for j, name := range cfg.Seats {
			a, err := agents.New(specs[j].Name, spec, specs[j].Options)
			if err != nil {
				return nil, &ConfigError{Field: "Seats", Reason: "cannot make " + strconv.Quote(name), Err: err}
			}
			pos[j] = a
		}
		ws[w] = &worker{ev: ev, env: envs[w]}
		for r := range rotations {
			seats, names := make([]agents.Agent, n), make([]string, n)
			for k := range n {
				seats[k], names[k] = pos[(k+r)%n], cfg.Seats[(k+r)%n]
			}
			l, err := rollout.New(envs[w], seats, names)
			if err != nil {
				return nil, &ConfigError{Field: "Seats", Reason: "lineup", Err: err}
			}
			ws[w].loops = append(ws[w].loops, l)
		}
	}

	games := cfg.Episodes * int64(rotations)
	results := make([]seatGame, games*int64(n))
	lengths := make([]int32, games)
	ev.progress = Progress{Agent: "seats " + fmt.Sprint(cfg.Seats), Agents: 1, EpisodesToPlay: games}
	elapsed, steps, err := ev.play(ctx, games, ws, func(wk *worker, g int64) (int32, error) {
		deal, rot := g/int64(rotations), int(g%int64(rotations))
		envSeed, agentSeed := rollout.EpisodeSeeds(cfg.Seed, deal)
		t, err := wk.loops[rot].Play(deal, envSeed, agentSeed, false, nil)
		if err != nil {
			return t, err
		}
		e := wk.env
		e.FillInfo(&wk.info)
		lengths[g] = t
		for k := range n {
			results[g*int64(n)+int64(k)] = seatGame{ret: e.Returns()[k], score: wk.info.Scores[k],
				rank: int32(wk.info.Ranks[k]), win: wk.info.Outcomes[k] == env.OutcomeWin}
		}
		return t, nil
	})
	if err != nil {
		return nil, interrupted(err, "seats", games)
	}

	r := &Report{Env: spec.ID, EnvParams: envs[0].Params(), Seed: cfg.Seed, Episodes: cfg.Episodes, Workers: workers,
		Seats: cfg.Seats, Rotate: cfg.Rotate}
	for _, name := range distinct {
		ar := &AgentReport{Name: name, Options: specs[slices.Index(cfg.Seats, name)].Options, Elapsed: elapsed, Steps: steps}
		for g := range games {
			deal, rot := g/int64(rotations), int(g%int64(rotations))
			for k := range n {
				if cfg.Seats[(k+rot)%n] != name {
					continue
				}
				sg := results[g*int64(n)+int64(k)]
				ar.Returns = append(ar.Returns, sg.ret)
				ar.Lengths = append(ar.Lengths, lengths[g])
				ar.Wins = append(ar.Wins, sg.win)
				ar.Scores = append(ar.Scores, sg.score)
				ar.Ranks = append(ar.Ranks, float64(sg.rank))
				ar.Deals = append(ar.Deals, deal)
			}
		}
		r.Agents = append(r.Agents, ar)
	}
	r.summarize()
	for _, ar := range r.Agents {
		ar.Summary.Score = MeanCI(ar.Scores, Level)
		ar.Summary.Rank = MeanCI(ar.Ranks, Level)
		ar.Summary.DiffVsFirst = nil
		if ar != r.Agents[0] {
			d := pairedByDeal(r.Agents[0], ar, cfg.Episodes)
			ar.Summary.DiffVsFirst = &d
		}
	}
	return r, nil
}

// pairedByDeal returns the mean and t interval over deals of b's mean
// score on the deal minus a's.
func pairedByDeal(a, b *AgentReport, deals int64) Estimate {
	mean := func(ar *AgentReport) ([]float64, []float64) {
		sum, cnt := make([]float64, deals), make([]float64, deals)
		for i, d := range ar.Deals {
			sum[d] += ar.Scores[i]
			cnt[d]++
		}
		return sum, cnt
	}
	sa, ca := mean(a)
	sb, cb := mean(b)
	var diffs []float64
	for d := range deals {
		if ca[d] > 0 && cb[d] > 0 {
			diffs = append(diffs, sb[d]/cb[d]-sa[d]/ca[d])
		}
	}
	return MeanCI(diffs, Level)
}
