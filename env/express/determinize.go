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
	if err := checkObs(cfg, player, obs); err != nil {
		return err
	}
	*s = State{cfg: cfg, n: cfg.players}
	s.rng.Seed(seed, rngStream)
	s.readTable(player, obs)
	var u unseen
	for k := range u.left {
		u.left[k] = deckCount(k, s.n)
	}
	if err := s.readPiles(obs, &u); err != nil {
		return err
	}
	if err := s.readPlayers(player, obs, &u); err != nil {
		return err
	}
	return s.dealUnseen(obs, &u)
}

// badObs returns a *DeterminizeError.
func badObs(format string, a ...any) error {
	return &DeterminizeError{fmt.Sprintf(format, a...)}
}

// checkObs checks an observation's size, players, observer, phase and
// actor against cfg.
func checkObs(cfg *config, player int, obs []uint8) error {
	if len(obs) != ObsSize {
		return badObs("observation of %d bytes, want %d", len(obs), ObsSize)
	}
	n := cfg.players
	if int(obs[OffPlayers]) != n || player < 0 || player >= n {
		return badObs("observation of %d players, player %d, for a %d-player game", obs[OffPlayers], player, n)
	}
	if obs[OffPhase] >= numPhases || int(obs[OffActor]) >= n {
		return badObs("phase %d, actor %d", obs[OffPhase], obs[OffActor])
	}
	return nil
}

// seatOf returns the absolute player at seat r relative to player.
func (s *State) seatOf(player int, r uint8) int { return (player + int(r)) % s.n }

// unseen is what determinize accounts for: the cards of each kind not yet
// seen (left), the cards of each hand the observer does not know, and the
// other players' face-down locomotives.
type unseen struct {
	left        [NumKinds]int
	unknownHand [MaxPlayers]int
	hiddenLocos int
}

// take counts m cards of kind k as seen.
func (u *unseen) take(k, m int) { u.left[k] -= m }

// readTable reads the public state of the table: phase, direction, hand
// and turn counters, the pending Disaster, the player to act.
func (s *State) readTable(player int, obs []uint8) {
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
	s.cur = int8(s.seatOf(player, obs[OffActor]))
	if k := int(obs[OffPendKind]); k > 0 {
		s.pend = pending{kind: int8(k - 1 - BrokenCar), by: int8(s.seatOf(player, obs[OffPendBy])), on: s.cur,
			train: int8(obs[OffPendTrain]) - 1, own: int8(obs[OffPendOwn]) - 1}
		s.cur = s.pend.by
	}
	s.top = int8(obs[OffTopSlot]) - 1
}

// readPiles reads the slots, the cards set aside and the discard pile
// (the newest cards in order, the rest shuffled below).
func (s *State) readPiles(obs []uint8, u *unseen) error {
	copy(s.slot[:], obs[OffSlot:OffSlot+NumKinds])
	copy(s.aside[:], obs[OffAside:OffAside+NumKinds])
	var disc [NumKinds]int
	for k := 0; k < NumKinds; k++ {
		u.take(k, int(s.slot[k])+int(s.aside[k]))
		s.asN += int(s.aside[k])
		disc[k] = int(obs[OffDiscards+k])
		u.take(k, disc[k])
		s.discN += disc[k]
	}
	if s.discN != int(obs[OffDiscN]) {
		return badObs("discard pile counts sum to %d, size %d", s.discN, obs[OffDiscN])
	}
	// the discard pile: the newest cards in order, the rest shuffled below
	recent := min(s.discN, RecentDiscards)
	var newest [RecentDiscards]uint8
	for i := 0; i < recent; i++ {
		c := int(obs[OffRecent+i]) - 1
		if c < 0 || c >= NumKinds || disc[c] == 0 {
			return badObs("recent discard %d is not in the pile's counts", i)
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
	return nil
}

// readPlayers reads each player's block: counts, score, Way Cars, the
// observer's hand and known cards of the others, and the trains.
func (s *State) readPlayers(player int, obs []uint8, u *unseen) error {
	for j := 0; j < s.n; j++ {
		q := s.seatOf(player, uint8(j))
		b := obs[OffPlayer+j*PlayerBytes : OffPlayer+(j+1)*PlayerBytes]
		p := &s.pl[q]
		p.reset()
		if b[PPresent] != 1 {
			return badObs("player block %d absent", j)
		}
		p.handN = b[PHandSize]
		p.score = int32(int(b[PScore])|int(b[PScore+1])<<8) - 32768
		p.derail = b[PDerail]
		p.played = b[PPlayed] == 1
		for w := 0; w < numWayKinds; w++ {
			p.way[w] = b[PWay+w]
			u.take(LightCrane+w, int(p.way[w]))
			if b[PPerm+w] == 1 {
				p.perm |= 1 << w
			}
		}
		copy(p.known[:], b[PKnown:PKnown+NumKinds])
		if q == player {
			copy(p.hand[:], obs[OffHand:OffHand+NumKinds])
			sum := 0
			for k := range p.hand {
				u.take(k, int(p.hand[k]))
				sum += int(p.hand[k])
			}
			if sum != int(p.handN) {
				return badObs("own hand counts sum to %d, hand size %d", sum, p.handN)
			}
		} else {
			kn := 0
			for k := range p.known {
				p.hand[k] = p.known[k]
				u.take(k, int(p.known[k]))
				kn += int(p.known[k])
			}
			if kn > int(p.handN) {
				return badObs("player %d: %d known cards in a hand of %d", q, kn, p.handN)
			}
			u.unknownHand[q] = int(p.handN) - kn
		}
		for t := 0; t < MaxTrains; t++ {
			o := b[PTrain+t*TrainBytes : PTrain+(t+1)*TrainBytes]
			tr := &p.trains[t]
			switch {
			case o[TLoco] == 0:
				continue
			case q == player:
				if o[TLoco] < 2 || int(o[TLoco]) > NumKinds+1 {
					return badObs("own train %d without its locomotive's kind", t)
				}
				tr.loco = int8(o[TLoco] - 2)
				u.take(int(tr.loco), 1)
			default:
				tr.loco = -2 // dealt below
				u.hiddenLocos++
			}
			tr.n, tr.flags = o[TLen], o[TFlags]
			if tr.n > MaxCars {
				return badObs("train of %d cars", tr.n)
			}
			copy(tr.cars[:], o[TCars:TCars+int(tr.n)])
			for i := 0; i < int(tr.n); i++ {
				c := tr.cars[i]
				if c == 0 || c > carMax || (c > Caboose+1 && c < carWildAs) || c == Wild+1 {
					return badObs("car code %d", c)
				}
				u.take(cardOf(c), 1)
			}
		}
	}
	return nil
}

// dealUnseen deals the cards not seen, shuffled, to the unknown parts of
// the hands, the face-down locomotives and the deck.
func (s *State) dealUnseen(obs []uint8, u *unseen) error {
	// the unknown pool
	var pool [DeckSize]uint8
	np := 0
	for k := range u.left {
		if u.left[k] < 0 {
			return badObs("more %s seen than the deck holds", kinds[k].Code)
		}
		for ; u.left[k] > 0; u.left[k]-- {
			pool[np] = uint8(k)
			np++
		}
	}
	s.deckN = int(obs[OffDeck])
	need := s.deckN + u.hiddenLocos
	for _, u := range u.unknownHand {
		need += u
	}
	if need != np {
		return badObs("%d cards unaccounted for, %d places to hide them", np, need)
	}
	s.shuffle(pool[:np])
	i := 0
	for q := 0; q < s.n; q++ {
		p := &s.pl[q]
		for c := 0; c < u.unknownHand[q]; c++ {
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
