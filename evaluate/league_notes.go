package evaluate

import (
	"fmt"
	"math"
	"strings"
)

// PriorPullShown is the smallest move, in Elo points, of a rating refitted
// under a prior twice as wide ([LeagueAgent.RatingWidePrior]) that the
// report's notes name: a move that large means the prior, not the games,
// sets the rating.
const PriorPullShown = 25.0

// Notes returns the lines the table and markdown formats print under the
// ratings table (and the json format holds as "notes"), saying what the
// numbers mean: the anchor (the pool's first agent, rated 0 by definition,
// its interval [0, 0]), what the intervals are (a 95% bootstrap over the
// deals, or none), the prior (N(0, RatingPriorSD²) on each log-worth,
// its standard deviation in Elo points), the agents that never won, and
// the ratings that move by PriorPullShown Elo or more when the prior is
// twice as wide (those the prior sets), or that none does.
func (r *LeagueReport) Notes() []string {
	if len(r.Agents) == 0 {
		return nil
	}
	anchor := r.Agents[0].Name
	notes := []string{
		fmt.Sprintf("rating: Plackett-Luce rating in Elo points relative to the anchor, %s (the pool's first agent), "+
			"rated 0 by definition: its interval is [0, 0], and every other interval holds the anchor's uncertainty too.", anchor),
	}
	if r.Bootstrap > 0 {
		notes = append(notes, fmt.Sprintf("ci95_low, ci95_high: %.0f%% bootstrap percentile interval over the deals "+
			"(%d resamples of the %d deals, every game of a drawn deal counted as often as it is drawn).", 100*Level, r.Bootstrap, r.Deals))
	} else {
		notes = append(notes, "ci95_low, ci95_high: none (no bootstrap).")
	}
	sd := EloScale * RatingPriorSD
	notes = append(notes, fmt.Sprintf("prior: each agent's log-worth has a N(0, %g²) prior (SD %.0f Elo) that keeps the fit finite: "+
		"between an agent that never wins and one that beats it, the games alone put an infinite gap, so the prior sets that gap, not the games, and no resample of the deals widens its interval.",
		RatingPriorSD, sd))
	var never []string
	for _, i := range r.Order {
		if a := r.Agents[i]; a.Games > 0 && a.WinRate == 0 {
			never = append(never, fmt.Sprintf("%s (0 of %d games)", a.Name, a.Games))
		}
	}
	if len(never) > 0 {
		notes = append(notes, "never won: "+strings.Join(never, ", ")+".")
	}
	var moved []string
	for _, i := range r.Order {
		a := r.Agents[i]
		if math.Abs(a.RatingWidePrior-a.Rating) >= PriorPullShown {
			moved = append(moved, fmt.Sprintf("%s %s (now %s)", a.Name, cell(a.RatingWidePrior, 0, false), cell(a.Rating, 0, false)))
		}
	}
	if len(moved) > 0 {
		notes = append(notes, fmt.Sprintf("with the prior twice as wide (SD %.0f Elo): %s; these ratings are set by the prior, "+
			"the others move by less than %.0f Elo.", 2*sd, strings.Join(moved, ", "), PriorPullShown))
	} else {
		notes = append(notes, fmt.Sprintf("with the prior twice as wide (SD %.0f Elo) no rating moves by %.0f Elo or more: the games set them.",
			2*sd, PriorPullShown))
	}
	return notes
}
