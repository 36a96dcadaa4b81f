package express

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// perturb returns a copy of s that differs only in what player cannot
// see: the cards in other hands that are not known to be there, the other
// players' locomotives and the draw pile are dealt again at random among
// themselves, and the generator (the future shuffles) is reseeded.
func perturb(s *State, player int, rng *rand.Rand) *State {
	c := s.Clone().(*State)
	var pool []uint8
	for q := 0; q < c.n; q++ {
		if q == player {
			continue
		}
		p := &c.pl[q]
		for k := range p.hand {
			for i := p.known[k]; i < p.hand[k]; i++ {
				pool = append(pool, uint8(k))
			}
			p.hand[k] = p.known[k]
		}
		for t := range p.trains {
			if p.trains[t].loco >= 0 {
				pool = append(pool, uint8(p.trains[t].loco))
			}
		}
	}
	pool = append(pool, c.deck[:c.deckN]...)
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	i := 0
	for q := 0; q < c.n; q++ {
		if q == player {
			continue
		}
		p := &c.pl[q]
		known := 0
		for k := range p.known {
			known += int(p.known[k])
		}
		for ; known < int(p.handN); known++ {
			p.hand[pool[i]]++
			i++
		}
		for t := range p.trains {
			if p.trains[t].loco >= 0 {
				p.trains[t].loco = int8(pool[i])
				i++
			}
		}
	}
	copy(c.deck[:], pool[i:])
	c.rng = *rand.NewPCG(rng.Uint64(), 1)
	return c
}

// TestHiddenInformation: two states differing only in what a player cannot
// see give that player identical observations and identical renders
// (StringFor(player), and String(), the public table), at every position of
// random games with 2, 4 and 6 players. The perturbed state must differ
// (Position) in most positions, or the test would prove nothing.
func TestHiddenInformation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := make([]uint8, ObsSize), make([]uint8, ObsSize)
	for _, players := range []int{2, 4, 6} {
		positions, differ := 0, 0
		visitRandom(t, players, 2, func(s *State) {
			for p := 0; p < players; p++ {
				c := perturb(s, p, rng)
				s.Observe(p, a)
				c.Observe(p, b)
				if !bytes.Equal(a, b) {
					t.Fatalf("player %d's observation changed with hidden information\n%s\n%s", p, s.Position(), c.Position())
				}
				if s.StringFor(p) != c.StringFor(p) || s.String() != c.String() {
					t.Fatalf("player %d's render changed with hidden information:\n%s\n%s", p, s.StringFor(p), c.StringFor(p))
				}
				positions++
				if s.Position() != c.Position() {
					differ++
				}
			}
		})
		if differ < positions*9/10 {
			t.Fatalf("players %d: only %d of %d perturbed states differ", players, differ, positions)
		}
	}
}

// TestOwnLocomotiveVisible: a player sees the kinds of his own locomotives
// and not those of the others.
func TestOwnLocomotiveVisible(t *testing.T) {
	s := pos(t, 2, "deck cards=...\np0.t0 loco=AU cars=BX\np1.t3 loco=WD cars=TK\n")
	obs := make([]uint8, ObsSize)
	s.Observe(0, obs)
	own := OffPlayer + PTrain
	other := OffPlayer + PlayerBytes + PTrain + 3*TrainBytes
	if obs[own+TLoco] != 2+AutoCarrier || obs[other+TLoco] != 1 || obs[other+TCars] != TankCar+1 {
		t.Fatalf("locomotives: own %d, other %d", obs[own+TLoco], obs[other+TLoco])
	}
}

// TestObserveAllocs: encoding an observation and the mask allocate nothing.
func TestObserveAllocs(t *testing.T) {
	states := randomPositions(16, 4)
	obs, mask := make([]uint8, ObsSize), make([]uint8, NumActions)
	allocs := testing.AllocsPerRun(100, func() {
		for i, s := range states {
			s.Observe(i%4, obs)
			s.LegalMask(mask)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}
