package evaluate

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/galaxygym/galaxygym/rollout"
)

// gameRecord is one line of a league's games record: an [ExternalGame]
// with its lineup, rotation and seed always written.
type gameRecord struct {
	Lineup   []string  `json:"lineup"`
	Rotation int       `json:"rotation"`
	Deal     int64     `json:"deal"`
	Seed     uint64    `json:"seed"`
	Seats    []string  `json:"seats"`
	Scores   []float64 `json:"scores"`
	Ranks    []int32   `json:"ranks"`
}

// ErrNoGames is returned by [LeagueReport.WriteGames] for a report that
// [RunLeague] did not make (one built by hand holds no games).
var ErrNoGames = errors.New("evaluate: the report holds no games (not made by RunLeague)")

// WriteGames writes the record of every game behind the report's ratings,
// one JSON object a line, in the order they were fitted: the league's own
// games (lineup by lineup, deal by deal, rotation by rotation) as
//
//	{"lineup": ["random", "heuristic"], "rotation": 1, "deal": 0, "seed": 123,
//	 "seats": ["heuristic", "random"], "scores": [31, 24], "ranks": [1, 2]}
//
// (lineup: the pool labels by position; seat k holds position
// (k+rotation) mod players; seed: the deal's environment seed,
// rollout.EpisodeSeeds(run seed, deal); seats, scores and ranks by seat),
// then the external games merged in, as they were read. The record is a
// games file ([ReadExternalGames], eval --games): read back into a league
// of the same pool with LeagueConfig.RateOnly and the same Deals and Seed,
// it gives the same ratings, intervals and tallies. Errors: [ErrNoGames],
// or w's.
func (r *LeagueReport) WriteGames(w io.Writer) error {
	lg := r.played
	if lg == nil {
		return ErrNoGames
	}
	enc := json.NewEncoder(w)
	n := lg.n
	rec := gameRecord{Seats: make([]string, n), Scores: make([]float64, n), Ranks: make([]int32, n)}
	for g := range lg.games {
		lu, deal, rot := lg.at(g)
		rec.Lineup = rec.Lineup[:0]
		for _, a := range lg.lineups[lu] {
			rec.Lineup = append(rec.Lineup, lg.labels[a])
		}
		rec.Rotation, rec.Deal = rot, deal
		rec.Seed, _ = rollout.EpisodeSeeds(lg.cfg.Seed, deal)
		for k := range n {
			s := lg.results[g*int64(n)+int64(k)]
			rec.Seats[k] = lg.labels[lg.lineups[lu][(k+rot)%n]]
			rec.Scores[k], rec.Ranks[k] = s.score, s.rank
		}
		if err := enc.Encode(&rec); err != nil {
			return err
		}
	}
	for i := range lg.cfg.External {
		if err := enc.Encode(&lg.cfg.External[i]); err != nil {
			return err
		}
	}
	return nil
}
