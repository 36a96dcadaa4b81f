package express

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// DeterminizeError reports an observation that is not one of a valid
// position.
type DeterminizeError struct{ Reason string }

func (e *DeterminizeError) Error() string { return "express: determinize: " + e.Reason }

// Determinize implements env.Determinizer: it rebuilds the position from
// player's observation and deals the cards the player cannot see (the
// unknown part of every other hand, the other players' locomotives and the
// draw pile) uniformly at random from the cards not accounted for, so that
// every deal consistent with the observation is equally likely. Cards known
// to be in a hand (taken from the discard pile, stolen: A26) stay there.
// The discard pile's order below its RecentDiscards newest cards, which the
// observation does not keep, is drawn at random too. Observe(player) of the
// result writes obs again and its legal mask is the true position's. The
// generator is seeded from seed.
func (g Game) Determinize(params env.Params, player int, obs []uint8, seed uint64, reuse env.State) (env.State, error) {
	c := configOf(params, g.v2)
	var s *State
	if r, ok := reuse.(*State); ok && r != nil {
		s = r
	} else {
		s = &State{}
	}
	cfg := s.cfg
	if cfg == nil || *cfg != c {
		nc := c // allocated only when the parameters change
		cfg = &nc
	}
	if err := s.determinize(cfg, player, obs, seed); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *State) determinize(cfg *config, player int, obs []uint8, seed uint64) error {
	bad := func(format string, a ...any) error { return &DeterminizeError{fmt.Sprintf(format, a...)} }
	if len(obs) != ObsSize {
		return bad("observation of %d bytes, want %d", len(obs), ObsSize)
	}
	n := cfg.players
	if int(obs[OffPlayers]) != n || player < 0 || player >= n {
		return bad("observation of %d players, player %d, for a %d-player game", obs[OffPlayers], player, n)
	}
	if obs[OffPhase] >= numPhases || int(obs[OffActor]) >= n {
		return bad("phase %d, actor %d", obs[OffPhase], obs[OffActor])
	}
	*s = State{cfg: cfg, n: n}
	s.rng.Seed(seed, rngStream)
	abs := func(r uint8) int { return (player + int(r)) % n }
	s.phase = int8(obs[OffPhase])
	s.dir = 1
	if obs[OffDir] == 1 {
		s.dir = -1
	}
	s.hand = int(obs[OffHandNo]) - 1
	s.hturns = int(obs[OffHTurns]) | int(obs[OffHTurns+1])<<8
	s.turns = int(obs[OffTurns]) | int(obs[OffTurns+1])<<8
	s.tt, s.resh = int(obs[OffTT]), int(obs[OffResh])
	s.trans, s.swapped = obs[OffTrans] == 1, obs[OffSwapped] == 1
	s.pendT = int8(obs[OffPendT]) - 1
	s.pend = pending{kind: -1, train: -1, own: -1}
	s.cur = int8(abs(obs[OffActor]))
	if k := int(obs[OffPendKind]); k > 0 {
		s.pend = pending{kind: int8(k - 1 - BrokenCar), by: int8(abs(obs[OffPendBy])), on: s.cur,
			train: int8(obs[OffPendTrain]) - 1, own: int8(obs[OffPendOwn]) - 1}
		s.cur = s.pend.by
	}
	s.top = int8(obs[OffTopSlot]) - 1
	// what is accounted for: seen cards and known cards of other hands
	var left [NumKinds]int
	for k := range left {
		left[k] = deckCount(k, n)
	}
	take := func(k, m int) { left[k] -= m }
	copy(s.slot[:], obs[OffSlot:OffSlot+NumKinds])
	copy(s.aside[:], obs[OffAside:OffAside+NumKinds])
	var disc [NumKinds]int
	for k := 0; k < NumKinds; k++ {
		take(k, int(s.slot[k])+int(s.aside[k]))
		s.asN += int(s.aside[k])
		disc[k] = int(obs[OffDiscards+k])
		take(k, disc[k])
		s.discN += disc[k]
	}
	if s.discN != int(obs[OffDiscN]) {
		return bad("discard pile counts sum to %d, size %d", s.discN, obs[OffDiscN])
	}
	// the discard pile: the newest cards in order, the rest shuffled below
	recent := min(s.discN, RecentDiscards)
	var newest [RecentDiscards]uint8
	for i := 0; i < recent; i++ {
		c := int(obs[OffRecent+i]) - 1
		if c < 0 || c >= NumKinds || disc[c] == 0 {
			return bad("recent discard %d is not in the pile's counts", i)
		}
		disc[c]--
		newest[i] = uint8(c)
	}
	m := 0
	for k := range disc {
		for ; disc[k] > 0; disc[k]-- {
			s.disc[m] = uint8(k)
			m++
		}
	}
	s.shuffle(s.disc[:m])
	for i := recent - 1; i >= 0; i-- {
		s.disc[m] = newest[i]
		m++
	}
	// players
	unknownHand := [MaxPlayers]int{}
	hiddenLocos := 0
	for j := 0; j < n; j++ {
		q := abs(uint8(j))
		b := obs[OffPlayer+j*PlayerBytes : OffPlayer+(j+1)*PlayerBytes]
		p := &s.pl[q]
		p.reset()
		if b[PPresent] != 1 {
			return bad("player block %d absent", j)
		}
		p.handN = b[PHandSize]
		p.score = int32(int(b[PScore])|int(b[PScore+1])<<8) - 32768
		p.derail = b[PDerail]
		p.played = b[PPlayed] == 1
		for w := 0; w < numWayKinds; w++ {
			p.way[w] = b[PWay+w]
			take(LightCrane+w, int(p.way[w]))
			if b[PPerm+w] == 1 {
				p.perm |= 1 << w
			}
		}
		copy(p.known[:], b[PKnown:PKnown+NumKinds])
		if q == player {
			copy(p.hand[:], obs[OffHand:OffHand+NumKinds])
			sum := 0
			for k := range p.hand {
				take(k, int(p.hand[k]))
				sum += int(p.hand[k])
			}
			if sum != int(p.handN) {
				return bad("own hand counts sum to %d, hand size %d", sum, p.handN)
			}
		} else {
			kn := 0
			for k := range p.known {
				p.hand[k] = p.known[k]
				take(k, int(p.known[k]))
				kn += int(p.known[k])
			}
			if kn > int(p.handN) {
				return bad("player %d: %d known cards in a hand of %d", q, kn, p.handN)
			}
			unknownHand[q] = int(p.handN) - kn
		}
		for t := 0; t < MaxTrains; t++ {
			o := b[PTrain+t*TrainBytes : PTrain+(t+1)*TrainBytes]
			tr := &p.trains[t]
			switch {
			case o[TLoco] == 0:
				continue
			case q == player:
				if o[TLoco] < 2 || int(o[TLoco]) > NumKinds+1 {
					return bad("own train %d without its locomotive's kind", t)
				}
				tr.loco = int8(o[TLoco] - 2)
				take(int(tr.loco), 1)
			default:
				tr.loco = -2 // dealt below
				hiddenLocos++
			}
			tr.n, tr.flags = o[TLen], o[TFlags]
			if tr.n > MaxCars {
				return bad("train of %d cars", tr.n)
			}
			copy(tr.cars[:], o[TCars:TCars+int(tr.n)])
			for i := 0; i < int(tr.n); i++ {
				c := tr.cars[i]
				if c == 0 || c > carMax || (c > Caboose+1 && c < carWildAs) || c == Wild+1 {
					return bad("car code %d", c)
				}
				take(cardOf(c), 1)
			}
		}
	}
	// the unknown pool
	var pool [DeckSize]uint8
	np := 0
	for k := range left {
		if left[k] < 0 {
			return bad("more %s seen than the deck holds", kinds[k].Code)
		}
		for ; left[k] > 0; left[k]-- {
			pool[np] = uint8(k)
			np++
		}
	}
	s.deckN = int(obs[OffDeck])
	need := s.deckN + hiddenLocos
	for _, u := range unknownHand {
		need += u
	}
	if need != np {
		return bad("%d cards unaccounted for, %d places to hide them", np, need)
	}
	s.shuffle(pool[:np])
	i := 0
	for q := 0; q < n; q++ {
		p := &s.pl[q]
		for c := 0; c < unknownHand[q]; c++ {
			p.hand[pool[i]]++
			i++
		}
		for t := range p.trains {
			if p.trains[t].loco == -2 {
				p.trains[t].loco = int8(pool[i])
				i++
			}
		}
	}
	copy(s.deck[:], pool[i:np])
	return nil
}
