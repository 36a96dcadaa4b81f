package datasets

import (
	"math"

	"github.com/galaxygym/galaxygym/agents"
)

// searchSeat plays a seat's mcts agent through ActExplained, which plays
// the moves Act plays, and keeps the statistics of its last decision for
// the recorder (Config.RecordSearch).
type searchSeat struct {
	m        *agents.MCTS
	th       agents.Thoughts
	searched bool // the last decision was searched (some simulation ran)
}

// searchSeats returns seats with every mcts agent wrapped in a
// searchSeat (one wrapper per distinct agent, so that an agent in several
// seats still resets once), or a *ConfigError when no seat is mcts.
func searchSeats(seats []agents.Agent) ([]agents.Agent, error) {
	out := make([]agents.Agent, len(seats))
	wrapped := map[agents.Agent]*searchSeat{}
	for k, a := range seats {
		out[k] = a
		m, ok := a.(*agents.MCTS)
		if !ok {
			continue
		}
		if wrapped[a] == nil {
			wrapped[a] = &searchSeat{m: m}
		}
		out[k] = wrapped[a]
	}
	if len(wrapped) == 0 {
		return nil, &ConfigError{Field: "RecordSearch", Reason: "no seat is played by a search agent (mcts)"}
	}
	return out, nil
}

// Name returns the mcts agent's name.
func (s *searchSeat) Name() string { return s.m.Name() }

// Reset resets the mcts agent.
func (s *searchSeat) Reset(seed uint64) { s.m.Reset(seed) }

// Version returns the mcts agent's version (its weights').
func (s *searchSeat) Version() string { return s.m.Version() }

// Act is the mcts agent's ActExplained, keeping its statistics; a
// decision where the agent played its policy's move instead of the
// search's (option follow) is kept as unsearched.
func (s *searchSeat) Act(player int, obs, mask []uint8) int {
	a := s.m.ActExplained(player, obs, mask, &s.th)
	s.searched = false
	if s.m.Followed() {
		// The policy played (option follow): the columns describe the
		// search that chose the move played, so this one is unsearched.
		return a
	}
	for _, n := range s.th.Visits {
		if n > 0 {
			s.searched = true
			break
		}
	}
	return a
}

// record writes the last decision's search policy (visit fractions) into
// pol (len NumActions) and returns its root value: the visit-weighted mean
// of the actions' mean returns. Unsearched, pol gets 1 on act and the
// value is NaN.
func (s *searchSeat) record(act int, pol []float32) float32 {
	if s == nil || !s.searched {
		if act >= 0 && act < len(pol) {
			pol[act] = 1
		}
		return float32(math.NaN())
	}
	total, sum := 0, 0.0
	for a, n := range s.th.Visits {
		if n > 0 {
			total += n
			sum += s.th.Values[a] * float64(n)
		}
	}
	inv := 1 / float64(total)
	for a, n := range s.th.Visits {
		pol[a] = float32(float64(n) * inv)
	}
	return float32(sum * inv)
}
