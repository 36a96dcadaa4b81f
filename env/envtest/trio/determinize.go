package trio

import (
	"fmt"
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/env"
)

// DeterminizeError reports an observation that is not one of a Trio
// position.
type DeterminizeError struct{ Reason string }

func (e *DeterminizeError) Error() string { return "trio: determinize: " + e.Reason }

// Determinize returns the position player observes, with a chance
// generator seeded from seed (env.Determinizer): the observation shows
// everything else, so the sample is exact. reuse, a state of an earlier
// call, is overwritten when given.
func (Game) Determinize(p env.Params, player int, obs []uint8, seed uint64, reuse env.State) (env.State, error) {
	n := p.Int(env.PlayersParam)
	if len(obs) != ObsSize || int(obs[OffPlayers]) != n || player < 0 || player >= n {
		return nil, &DeterminizeError{fmt.Sprintf("observation of %d bytes for player %d of %d", len(obs), player, n)}
	}
	s, _ := reuse.(*State)
	if s == nil {
		s = &State{rng: rand.NewPCG(0, 0)}
	}
	s.players, s.locked, s.taken = n, int8(obs[OffLocked])-1, obs[OffTaken]
	s.rng.Seed(seed, 0x7472696f)
	for i := range Slots {
		v := obs[OffRow+i]
		if v < 1 || v > MaxValue {
			return nil, &DeterminizeError{fmt.Sprintf("slot %d holds %d", i, v)}
		}
		s.row[i] = v
	}
	s.scores = [MaxPlayers]uint8{}
	for k := range n {
		s.scores[(player+k)%n] = obs[OffScores+k]
	}
	if s.locked >= Slots || int(s.taken) > Takes*n {
		return nil, &DeterminizeError{"locked slot or card count out of range"}
	}
	return s, nil
}
