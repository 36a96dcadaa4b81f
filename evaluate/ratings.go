package evaluate

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// EloScale converts a log-worth difference into Elo points: in a
// two-player game, P(a beats b) = 1/(1 + 10^(-(Ra-Rb)/400)) = σ(θa-θb)
// with R = EloScale·θ.
const EloScale = 400 / math.Ln10

// RatingPriorSD is the standard deviation of the Gaussian prior on each
// agent's log-worth in [FitPlackettLuce]: it keeps the fit finite when an
// agent wins (or loses) every game, and moves ratings supported by many
// games very little (3 log-worth units is 521 Elo).
const RatingPriorSD = 3.0

// RankedGame is one game for a rating fit: the agents (indices into the
// pool) of its seats and their ranks (1 = best; equal ranks are a tie). An
// agent may hold several seats of one game.
type RankedGame struct {
	Agents []int32
	Ranks  []int32
	Weight float64 // its weight in the likelihood (1; a bootstrap draw's multiplicity)
}

// plGame is a RankedGame sorted for the likelihood: agents by rank, and
// the start of each tie group.
type plGame struct {
	agents []int32
	groups []int32 // start index of each tie group, in rank order
	weight float64
}

func prepareGames(games []RankedGame) []plGame {
	out := make([]plGame, len(games))
	for g, rg := range games {
		idx := make([]int, len(rg.Agents))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return int(rg.Ranks[a] - rg.Ranks[b]) })
		pg := plGame{agents: make([]int32, len(idx)), weight: rg.Weight}
		for i, j := range idx {
			pg.agents[i] = rg.Agents[j]
			if i == 0 || rg.Ranks[j] != rg.Ranks[idx[i-1]] {
				pg.groups = append(pg.groups, int32(i))
			}
		}
		out[g] = pg
	}
	return out
}

// plLoss returns minus the log posterior of θ (Plackett-Luce likelihood
// with Breslow's treatment of ties, Gaussian prior) and writes its
// gradient into grad when grad is not nil; priorSD is the prior's standard
// deviation (log-worth units). ex is scratch (len m).
func plLoss(theta, grad, ex []float64, games []plGame, priorSD float64) float64 {
	if grad != nil {
		clear(grad)
	}
	for i, t := range theta {
		ex[i] = math.Exp(t)
	}
	var ll float64
	for _, g := range games {
		if g.weight == 0 {
			continue
		}
		// Remaining worth, from the last item backwards.
		n := len(g.agents)
		for q, start := range g.groups {
			end := int32(n)
			if q+1 < len(g.groups) {
				end = g.groups[q+1]
			}
			var denom float64
			for _, a := range g.agents[start:] {
				denom += ex[a]
			}
			size := float64(end - start)
			for _, a := range g.agents[start:end] {
				ll += g.weight * theta[a]
				if grad != nil {
					grad[a] -= g.weight
				}
			}
			ll -= g.weight * size * math.Log(denom)
			if grad != nil {
				for _, a := range g.agents[start:] {
					grad[a] += g.weight * size * ex[a] / denom
				}
			}
		}
	}
	prec := 1 / (priorSD * priorSD)
	for i, t := range theta {
		ll -= 0.5 * prec * t * t
		if grad != nil {
			grad[i] += prec * t
		}
	}
	return -ll
}

// FitPlackettLuce returns the maximum a posteriori log-worth of each of
// m agents from ranked games: the Plackett-Luce model (a game's ranking
// is drawn by picking the winner with probability proportional to
// exp(θ), then the next among the rest, ...; tied agents share a stage,
// Breslow's approximation), with an independent N(0, RatingPriorSD²)
// prior on each θ, maximized by L-BFGS (gonum/optimize; memory and time
// per iteration linear in m and the games, where BFGS's dense m x m
// Hessian made a league of 3,000 agents take seconds a fit and minutes a
// bootstrap). init, when not nil, starts the search (len m). It returns
// an error when the optimizer fails.
func FitPlackettLuce(games []RankedGame, m int, init []float64) ([]float64, error) {
	return fitPL(prepareGames(games), m, init, RatingPriorSD)
}

// fitPL is FitPlackettLuce on prepared games with a prior of standard
// deviation priorSD.
func fitPL(games []plGame, m int, init []float64, priorSD float64) ([]float64, error) {
	ex := make([]float64, m)
	p := optimize.Problem{
		Func: func(x []float64) float64 { return plLoss(x, nil, ex, games, priorSD) },
		Grad: func(grad, x []float64) { plLoss(x, grad, ex, games, priorSD) },
	}
	x0 := make([]float64, m)
	if init != nil {
		copy(x0, init)
	}
	var total float64
	for _, g := range games {
		total += g.weight
	}
	// The loss grows with the games: stop on a gradient small against it.
	tol := 1e-8 * (1 + total)
	res, err := optimize.Minimize(p, x0, &optimize.Settings{GradientThreshold: tol}, &optimize.LBFGS{})
	if err != nil {
		// The line search can fail at the optimum in floating point:
		// accept a point whose gradient is small anyway.
		if res == nil {
			return nil, fmt.Errorf("evaluate: Plackett-Luce fit: %w", err)
		}
		grad := make([]float64, m)
		plLoss(res.X, grad, ex, games, priorSD)
		for _, g := range grad {
			if math.Abs(g) > 1e3*tol {
				return nil, fmt.Errorf("evaluate: Plackett-Luce fit: %w (gradient %v)", err, grad)
			}
		}
	}
	return res.X, nil
}
