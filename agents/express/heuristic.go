// Package express holds the agents of Express (env/express): the
// heuristic player.
package express

import (
	"fmt"
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	ex "github.com/galaxygym/galaxygym/env/express"
)

// Heuristic is a sensible Express player that reads only its observation
// and the mask. How it plays:
//
//   - Draw: takes the top discard when it extends one of its trains, is a
//     Wild, a Way Car, or a Disaster once the first round is over;
//     otherwise draws two.
//   - Block: always blocks (the Way Car becomes permanent and scores).
//   - Meld, in order: a new train's first car (the type it holds most of,
//     the most valuable on ties); Way Cars; cars that extend its trains
//     (most valuable first; an undeclared Wild of an earlier turn may
//     become a transition to a type it holds two of, one of this turn
//     never, so that going out stays possible); Wilds on its longest
//     train; a Caboose on a train of 4+ cars whose type it no longer
//     holds; a new train for a type it holds two of (locomotive: the card
//     it values least); while the hand is over the limit, any play that
//     reduces it, and stuck when none does.
//   - End of turn (at most six cards): a Turntable (an extra turn); else
//     the best Disaster: Wreck, Broken Car and Steal Car on the longest
//     unprotected train of an opponent, the leader's counting double,
//     Derailment on the leader; else the discard of the card it values
//     least; end-meld with an empty hand.
//
// Values: a freight card is worth its printed value, more when it
// matches a train or pairs with another card of its type; Wilds,
// Turntables and Disasters are kept for play. Ties break on a PCG seeded
// by Reset, so the agent is deterministic given its seed.
type Heuristic struct {
	players int
	rng     rand.PCG

	// decoded observation
	obs    []uint8
	hand   [ex.NumKinds]int
	handN  int
	trains [ex.MaxTrains]trainView
	scores [ex.MaxPlayers]int
	first  bool
}

// trainView is one of the agent's trains as its observation shows it.
type trainView struct {
	exists   bool
	n        int
	sec      int  // section type at the end, -1 without cars
	closed   bool // ends with a Caboose or is full
	open     bool // ends with an undeclared Wild
	wildThis bool // that Wild was played this turn
}

func init() {
	for _, id := range []string{ex.ID, ex.IDv2} {
		agents.RegisterFor(id, agents.Heuristic, "Express player from the observation only: builds trains toward "+
			"going out, keeps high-value freight, blocks every Disaster it can, plays Turntables, attacks the "+
			"leader's longest unprotected train; 2-6 players, no options", New)
	}
}

// New returns the heuristic for an express-v1 or express-v2 spec (the
// same play: on express-v2 it lets a Disaster happen when it is asked
// without the Way Car); opts are not used (an *agents.OptionError for
// any).
func New(spec *env.Spec, opts agents.Options) (agents.Agent, error) {
	if spec == nil || !ex.IsID(spec.ID) {
		id := "<nil>"
		if spec != nil {
			id = spec.ID
		}
		return nil, &agents.UnsupportedEnvError{Agent: Name, Env: id, Supported: []string{ex.ID, ex.IDv2}}
	}
	for k := range opts {
		return nil, &agents.OptionError{Agent: Name, Key: k, Reason: "the Express heuristic has no options"}
	}
	return &Heuristic{players: spec.NumPlayers}, nil
}

// Name is the agent's registered name (agents.Heuristic, for express-v1
// and express-v2).
const Name = agents.Heuristic

// Name returns "heuristic".
func (h *Heuristic) Name() string { return Name }

// Reset seeds the tie-breaking generator.
func (h *Heuristic) Reset(seed uint64) { h.rng = *rand.NewPCG(seed, 0x6578682d68657572) }

func (h *Heuristic) intN(n int) int { return int(h.rng.Uint64() % uint64(n)) }

func typeOf(k int) int {
	if k <= ex.AutoCarrier {
		return k
	}
	return 5
}

func typeValue(t int) int {
	if t == 5 {
		return 1
	}
	return ex.CardKind(t).Value
}

// car codes of the observation (state.go)
const (
	carWildAs   = 30
	carWildOpen = 36
	carWildLink = 37
)

func (h *Heuristic) decode(obs []uint8) {
	h.obs = obs
	h.handN = 0
	for k := 0; k < ex.NumKinds; k++ {
		h.hand[k] = int(obs[ex.OffHand+k])
		h.handN += h.hand[k]
	}
	h.first = obs[ex.OffFirst] == 1
	for j := 0; j < h.players; j++ {
		b := obs[ex.OffPlayer+j*ex.PlayerBytes:]
		h.scores[j] = int(b[ex.PScore]) | int(b[ex.PScore+1])<<8 - 32768
	}
	for t := 0; t < ex.MaxTrains; t++ {
		o := obs[ex.OffPlayer+ex.PTrain+t*ex.TrainBytes:]
		v := trainView{exists: o[ex.TLoco] != 0, n: int(o[ex.TLen]), sec: -1}
		if v.exists && v.n > 0 {
			last := o[ex.TCars+v.n-1]
			v.closed = last == ex.Caboose+1 || v.n >= ex.MaxCars
			v.open = last == carWildOpen
			v.wildThis = o[ex.TFlags]&2 != 0
			v.sec = secType(o[ex.TCars : ex.TCars+v.n])
		}
		h.trains[t] = v
	}
}

// secType returns the section type at the end of a train's cars.
func secType(cars []uint8) int {
	for i := len(cars) - 1; i >= 0; i-- {
		c := int(cars[i])
		switch {
		case c >= carWildAs && c < carWildOpen:
			return c - carWildAs
		case c >= 1 && c <= ex.Diesel+1:
			return typeOf(c - 1)
		}
	}
	return -1
}

// typeCount returns how many plain cars of section type t the hand holds.
func (h *Heuristic) typeCount(t int) int {
	if t < 5 {
		return h.hand[t]
	}
	n := 0
	for k := ex.MailBaggage; k <= ex.Diesel; k++ {
		n += h.hand[k]
	}
	return n
}

// hasTrainFor reports whether an open train (not closed) of type t exists.
func (h *Heuristic) hasTrainFor(t int) bool {
	for _, tr := range h.trains {
		if tr.exists && tr.n > 0 && !tr.closed && (tr.sec == t || (tr.open && !tr.wildThis)) {
			return true
		}
	}
	return false
}

// keep is how much the agent values keeping a card of kind k (lower is
// discarded or buried as a locomotive first).
func (h *Heuristic) keep(k int) int {
	switch {
	case k <= ex.Diesel:
		t := typeOf(k)
		v := typeValue(t)
		if h.hasTrainFor(t) {
			return 20 + v
		}
		if h.typeCount(t) >= 2 {
			return 10 + v
		}
		return v
	case k == ex.Wild:
		return 40
	case k == ex.Turntable:
		return 30
	case k >= ex.LightCrane && k <= ex.HeavyCrane:
		return 35
	case k == ex.Caboose:
		for _, tr := range h.trains {
			if tr.exists && !tr.closed && tr.n >= 3 {
				return 15
			}
		}
		return 4
	default: // Disasters
		if h.first {
			return 6
		}
		return 25
	}
}

// Act picks the action for player from its observation and mask.
func (h *Heuristic) Act(player int, obs, mask []uint8) int {
	h.decode(obs)
	switch obs[ex.OffPhase] {
	case ex.PhaseBlock:
		if mask[ex.ActBlock] == 1 {
			return ex.ActBlock
		}
		return ex.ActLet // express-v2 asks without the Way Car in hand

	case ex.PhaseDraw:
		if mask[ex.ActTake] == 1 && h.wants(int(obs[ex.OffTopDisc])-1) {
			return ex.ActTake
		}
		return ex.ActDraw
	}
	if a := h.meld(mask); a >= 0 {
		return a
	}
	return h.anyLegal(mask)
}

// wants reports whether the top discard k is worth taking instead of two
// unknown cards.
func (h *Heuristic) wants(k int) bool {
	switch {
	case k < 0:
		return false
	case k <= ex.Diesel:
		return h.hasTrainFor(typeOf(k)) && typeValue(typeOf(k)) >= 2
	case k == ex.Wild || (k >= ex.LightCrane && k <= ex.HeavyCrane):
		return true
	}
	return false
}

func (h *Heuristic) anyLegal(mask []uint8) int {
	n := 0
	for _, m := range mask {
		n += int(m)
	}
	i := h.intN(n)
	for a, m := range mask {
		if m == 1 {
			if i == 0 {
				return a
			}
			i--
		}
	}
	return 0
}

func (h *Heuristic) meld(mask []uint8) int {
	// a new train waits for its next car
	if pt := int(h.obs[ex.OffPendT]) - 1; pt >= 0 {
		best, bestV := -1, -1
		for c := 0; c < 12; c++ {
			a := ex.ActAdd + pt*12 + c
			if mask[a] == 0 {
				continue
			}
			k := c
			if c == 11 {
				k = ex.Caboose
			}
			v := 0
			if k != ex.Caboose {
				v = 10*h.typeCount(typeOf(k)) + typeValue(typeOf(k))
			}
			if v > bestV {
				best, bestV = a, v
			}
		}
		for w := 0; w < 6; w++ {
			a := ex.ActWild + pt*7 + w
			if mask[a] == 1 {
				if v := 10*h.typeCount(w) + typeValue(w) - 5; v > bestV {
					best, bestV = a, v
				}
			}
		}
		if best >= 0 {
			return best
		}
	}
	for w := 0; w < 5; w++ {
		if mask[ex.ActWay+w] == 1 {
			return ex.ActWay + w
		}
	}
	// extend trains
	best, bestV := -1, -1
	for t, tr := range h.trains {
		if !tr.exists || tr.n == 0 || tr.closed {
			continue
		}
		for k := 0; k <= ex.Diesel; k++ {
			a := ex.ActAdd + t*12 + k
			if mask[a] == 0 {
				continue
			}
			ty := typeOf(k)
			if tr.open && ty != tr.sec && (tr.wildThis || h.typeCount(ty) < 2) {
				continue // keep going out possible; transition only into a type held twice
			}
			if v := typeValue(ty)*10 + tr.n; v > bestV {
				best, bestV = a, v
			}
		}
	}
	if best >= 0 {
		return best
	}
	// a Wild on the longest train
	if h.hand[ex.Wild] > 0 {
		best, bestN := -1, -1
		for t, tr := range h.trains {
			if !tr.exists || tr.n == 0 || tr.closed {
				continue
			}
			for w := 0; w < 7; w++ {
				if a := ex.ActWild + t*7 + w; mask[a] == 1 && tr.n > bestN {
					best, bestN = a, tr.n
				}
			}
		}
		if best >= 0 {
			return best
		}
	}
	// a Caboose closes a long train whose type is no longer in hand
	if h.hand[ex.Caboose] > 0 {
		for t, tr := range h.trains {
			if a := ex.ActAdd + t*12 + 11; mask[a] == 1 && tr.n >= 4 && !tr.open && h.typeCount(tr.sec) == 0 {
				return a
			}
		}
	}
	// a new train for a type held twice (not already building)
	if a := h.startTrain(mask, 2); a >= 0 {
		return a
	}
	if h.handN > 6 {
		// over the limit: anything that reduces the hand
		if a := h.startTrain(mask, 1); a >= 0 {
			return a
		}
		for a := ex.ActAdd; a < ex.ActSwap; a++ {
			if mask[a] == 1 {
				return a
			}
		}
		if mask[ex.ActStuck] == 1 {
			return ex.ActStuck
		}
		for a := ex.ActStart; a < ex.ActAdd; a++ {
			if mask[a] == 1 {
				return a
			}
		}
	}
	return h.endTurn(mask)
}

// startTrain starts a train for the most valuable type held at least
// min times with no train of its own, burying the card valued least.
func (h *Heuristic) startTrain(mask []uint8, min int) int {
	bestT, bestV := -1, -1
	for t := 0; t < 6; t++ {
		c := h.typeCount(t)
		if c >= min && !h.hasTrainFor(t) {
			if v := c*10 + typeValue(t); v > bestV {
				bestT, bestV = t, v
			}
		}
	}
	if bestT < 0 {
		return -1
	}
	loco, lowest := -1, 1<<30
	for k := 0; k < ex.NumKinds; k++ {
		if mask[ex.ActStart+k] == 0 {
			continue
		}
		v := h.keep(k)
		if k <= ex.Diesel && typeOf(k) == bestT {
			if h.typeCount(bestT) <= min {
				continue // the train needs it
			}
			v += 50
		}
		if v < lowest {
			loco, lowest = k, v
		}
	}
	if loco < 0 {
		return -1
	}
	return ex.ActStart + loco
}

// endTurn plays a Turntable, the best Disaster, or discards.
func (h *Heuristic) endTurn(mask []uint8) int {
	if mask[ex.ActTurntable] == 1 {
		return ex.ActTurntable
	}
	if a, v := h.bestDisaster(mask); a >= 0 && v > 0 {
		return a
	}
	if mask[ex.ActEndMeld] == 1 {
		return ex.ActEndMeld
	}
	best, lowest := -1, 1<<30
	for k := 0; k < ex.NumKinds; k++ {
		if mask[ex.ActDiscard+k] == 1 {
			if v := h.keep(k)*4 + h.intN(4); v < lowest {
				best, lowest = ex.ActDiscard+k, v
			}
		}
	}
	if best >= 0 {
		return best
	}
	return h.anyLegal(mask)
}

// bestDisaster values the legal Disaster plays: the target train's points
// (the whole train for a Wreck, the end car for Broken and Steal, twice for
// a Steal of a card it can use), doubled against the leader among the
// opponents; a protected target only loses its Way Car.
func (h *Heuristic) bestDisaster(mask []uint8) (int, int) {
	leader, lead := -1, -1<<30
	for r := 1; r < h.players; r++ {
		if h.scores[r] > lead {
			leader, lead = r, h.scores[r]
		}
	}
	best, bestV := -1, 0
	for hi, kind := range [3]int{ex.BrokenCar, ex.StealCar, ex.Wreck} {
		d := kind - ex.BrokenCar
		for r := 1; r < h.players; r++ {
			b := h.obs[ex.OffPlayer+r*ex.PlayerBytes:]
			protected := b[ex.PWay+d] > 0
			for t := 0; t < ex.MaxTrains; t++ {
				a := ex.ActHit + hi*36 + r*6 + t
				if mask[a] == 0 {
					continue
				}
				o := b[ex.PTrain+t*ex.TrainBytes:]
				n := int(o[ex.TLen])
				sec := secType(o[ex.TCars : ex.TCars+n])
				v := 2
				if !protected {
					switch kind {
					case ex.Wreck:
						v = n*max(1, typeValue(max(sec, 0))) + 2
					case ex.BrokenCar:
						v = max(1, typeValue(max(sec, 0))) + n/2
					case ex.StealCar:
						v = 2*max(1, typeValue(max(sec, 0))) + n/2
					}
				}
				if r == leader {
					v *= 2
				}
				if v > bestV {
					best, bestV = a, v
				}
			}
		}
	}
	for r := 1; r < h.players; r++ {
		if a := ex.ActDerail + r; mask[a] == 1 {
			v := 3
			if r == leader {
				v = 6
			}
			if v > bestV {
				best, bestV = a, v
			}
		}
	}
	if best < 0 {
		// a Switch Engines rather than discarding the Disaster
		for a := ex.ActSwitch; a < ex.ActTurntable; a++ {
			if mask[a] == 1 && (a-ex.ActSwitch)/36 != 0 {
				return a, 1
			}
		}
	}
	return best, bestV
}

// String describes the agent.
func (h *Heuristic) String() string { return fmt.Sprintf("%s(%d players)", Name, h.players) }
