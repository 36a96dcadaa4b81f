package play

import "maps"

// rematchLocked returns the lineup of a finished table's rematch (op
// rematch): the same lineup and options, the next run seed, the seats
// rotated by one (seat k's player sits at seat k+1), and for each new
// seat the person who moves there (nil for an agent or a free seat).
// Errors are *RequestError: the game is not over, or c may not ask (it
// neither plays at the table nor, where nobody is seated, created it).
func (t *table) rematchLocked(c *conn) (Lineup, []*person, error) {
	if !t.done || !t.e.Done() {
		return Lineup{}, nil, &RequestError{Code: "not_over", Message: "a rematch starts once the game is over"}
	}
	if !t.mayControl(c) {
		return Lineup{}, nil, &RequestError{Code: "not_your_seat", Message: "only the people seated at this game (or its creator, where nobody is) start its rematch"}
	}
	n := len(t.lineup.Seats)
	l := t.lineup
	l.Seed = t.runSeed + 1
	if l.Seed == 0 {
		l.Seed = 1
	}
	l.Seats = make([]string, n)
	movers := make([]*person, n)
	for k, name := range t.lineup.Seats {
		to := (k + 1) % n
		l.Seats[to] = name
		if p := t.holder[k]; p != nil && t.heir[k] == "" {
			// The person keeps their secret: it opens their new seat.
			movers[to] = &person{secret: p.secret, conns: maps.Clone(p.conns)}
		}
	}
	return l, movers, nil
}
