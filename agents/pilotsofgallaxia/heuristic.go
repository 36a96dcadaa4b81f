// Package pilotsofgallaxia holds the Pilots of Gallaxia agents: the
// heuristic, which reads only its pilot's observation and mask.
package pilotsofgallaxia

import (
	"math/rand/v2"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// Name is the heuristic's registered name, agents.Heuristic.
const Name = agents.Heuristic

func init() {
	for _, id := range []string{pog.ID, pog.IDv1} {
		agents.RegisterFor(id, Name, "shortest paths over the board to the scientist and home (warps, fuel, "+
			"Afterburner, vortices; Teleprisms avoided), raids at >= 60% odds, The Gambit by counting the cards seen; "+
			"from the observation only; 2-6 players, no options", New)
	}
}

// Heuristic plays Pilots of Gallaxia from its observation alone:
//
//   - movement: shortest paths over the board graph (Teleprisms avoided,
//     vortices used, by starships in v1 and only by the Durriken in v2,
//     hangars only at the ends) from each starship to its
//     scientist and from there home; of the ways to move it takes the one
//     that leaves the fewest spaces to go (a planet-card warp, a fuel card,
//     the Afterburner, the base move), keeping big cards when a small one
//     does as well; the ship carrying the scientist moves first;
//   - claims every caravan space it enters while its supply lasts;
//   - raids a neighbouring opponent when its chance of winning (its best
//     card plus a d6 against the defender's expected card plus a d6, ties
//     to the defender) is at least 60 %, never with the ship carrying its
//     scientist, and always raids a ship carrying a scientist at 50 %;
//     defends with its best card;
//   - sells a planet card whose warp does not help for a Captain's Card,
//     plays Salvage at once, cashes in landing discards;
//   - The Gambit by counting the cards seen (its hand, the discard piles,
//     the cards up): it guesses the likelier side when the chance of
//     keeping the cards is worth the risk, and takes the cards otherwise;
//   - in pilots-of-gallaxia-v1, never hires the Durriken and never places
//     a BLOKK (its published behaviour);
//   - in pilots-of-gallaxia-v2 it hires its Durriken (free, A11) and sends
//     it after the leading opponent (the one with the fewest spaces to go):
//     a Durriken-card warp to the free planet nearest that pilot's
//     leading starship, a base move and a raid when the ship is within
//     reach (a Durriken raids with a random card on top, so it wins most
//     raids and strands a scientist aboard); and it claims a caravan space
//     as a BLOKK when the space lies on a shortest way of an opponent to
//     its scientist or home.
type Heuristic struct {
	v2      bool // pilots-of-gallaxia-v2: Durriken and BLOKKs
	players int
	rng     rand.PCG
	dist    *[pog.NumSpaces][pog.NumSpaces]uint8 // the starships' distances
	ddist   *[pog.NumSpaces][pog.NumSpaces]uint8 // the Durriken's (v2: vortex hops)
	v       view                                 // the observation being read (kept to avoid allocating)
	vals    []float32                            // ActionValues' output, or nil
}

// note records action a's value for ActionValues.
func (h *Heuristic) note(a int, x float32) {
	if h.vals != nil {
		h.vals[a] = x
	}
}

// stopPreference is what ActionValues adds to a path's stop (in spaces):
// half a space, so that a stop ranks above every step that gets no nearer
// and below every step that does, as the heuristic chooses. Level values
// would tell a learner trained on them (galaxygym.train --soft) that a
// sideways step is as good as stopping; the clone trained so wandered
// (docs/learning-baselines.md, "Expert iteration", item 8).
const stopPreference = 0.5

// ActionValues is Act with the heuristic's reasons where it scores the
// actions of a decision: it returns the action Act would return for the
// same call and fills q (length at least len(mask), float32) with the value
// of each action it compared, NaN for the others. The values are minus the
// spaces still to go by the heuristic's own distances: at a slide (and a
// Durriken warp it does not plan), a path step (stop: where the ship is;
// not when it raids) and a way card (minus hundredths for the fuel it
// spends: -3.04 is 3 spaces for 4 fuel); at a discard, minus the card's
// worth to keep. A stop is worth [stopPreference] more than the spaces
// still to go from where the ship is: the heuristic steps on only to a
// space strictly nearer, so a step that gets no nearer is valued below the
// stop, not level with it. Its other decisions follow rules, and get NaN.
// The action returned is among the highest valued when any action has a
// value.
func (h *Heuristic) ActionValues(obs, mask []uint8, q []float32) int {
	return agents.ActRecordingValues(h, &h.vals, obs, mask, q)
}

// ActExplained is Act with the values of [Heuristic.ActionValues] in
// th.Values ([agents.Explainer]).
func (h *Heuristic) ActExplained(_ int, obs, mask []uint8, th *agents.Thoughts) int {
	return agents.ExplainValues(h, "minus the spaces still to go (at a discard: minus the card's worth)", obs, mask, th)
}

// New returns the heuristic for a pilots-of-gallaxia environment; it
// returns an *agents.UnsupportedEnvError for any other.
func New(spec *env.Spec, opts agents.Options) (agents.Agent, error) {
	if !pog.IsID(spec.ID) {
		return nil, &agents.UnsupportedEnvError{Agent: Name, Env: spec.ID, Supported: []string{pog.ID, pog.IDv1}}
	}
	for k := range opts {
		return nil, &agents.OptionError{Agent: Name, Key: k, Reason: "the heuristic takes no options"}
	}
	if spec.ID == pog.ID {
		return &Heuristic{v2: true, players: spec.NumPlayers, dist: pog.PlanningDistances(pog.ID),
			ddist: pog.PlanningDistances(pog.IDv1)}, nil
	}
	return &Heuristic{players: spec.NumPlayers, dist: pog.PlanningDistances(pog.IDv1)}, nil
}

// Name returns "heuristic".
func (*Heuristic) Name() string { return Name }

// Reset starts an episode; the heuristic breaks ties with a generator
// seeded here.
func (h *Heuristic) Reset(seed uint64) { h.rng.Seed(seed, 0x68657572) }

// view is what the heuristic reads from an observation.
type view struct {
	obs      []uint8
	phase    int
	discard  bool
	ships    [2]int // own starships' spaces (-1 while moving)
	cargo    [2]uint8
	ring     int       // own hostage ring's space on the board, -1 otherwise
	rings    [20]int16 // the rings it may carry home: its own and yellow ones on the board
	nrings   int
	ringHome bool
	mover    int
	at       int
	budget   int
}

func read(v *view, obs []uint8) {
	*v = view{obs: obs, ring: -1, ships: [2]int{-1, -1}}
	for i := 0; i < 14; i++ {
		if obs[pog.OffPhase+i] == 1 {
			v.phase = i
		}
	}
	v.discard = obs[pog.OffPhase+14] == 1
	for i := 0; i < pog.NumSpaces; i++ {
		if b := obs[pog.OffShips+i]; b != 0 {
			for k := 0; k < 2; k++ {
				if b&(1<<k) != 0 {
					v.ships[k] = i
				}
			}
		}
		if obs[pog.OffRings+i] == 1 {
			v.ring = i
			v.add(i)
		}
		for c := 0; c < int(obs[pog.OffYellow+i]); c++ {
			v.add(i)
		}
		if obs[pog.OffMover+i] == 1 {
			v.at = i
		}
	}
	v.cargo[0], v.cargo[1] = obs[pog.OffSeats+pog.SeatCargo], obs[pog.OffSeats+pog.SeatCargo+1]
	v.ringHome = obs[pog.OffSeats+pog.SeatOwnRing] == 2
	v.mover = int(v.obs[pog.OffMovingPiece]) - 1
	v.budget = int(v.obs[pog.OffMovePoints])
}

func (v *view) add(i int) {
	if v.nrings < len(v.rings) {
		v.rings[v.nrings] = int16(i)
		v.nrings++
	}
}

// togo is the number of spaces a starship at x still has to cover: home
// if it carries a ring, else to the nearest ring it may carry (its own
// scientist, a yellow ring) and home; 50 when there is none.
func (h *Heuristic) togo(x int, carrying bool, v *view) int {
	if carrying {
		return int(h.dist[x][0])
	}
	best := 50
	for _, r := range v.rings[:v.nrings] {
		best = min(best, int(h.dist[x][r])+int(h.dist[r][0]))
	}
	return best
}

const (
	actCard   = pog.ActCard
	numCards  = pog.NumKinds - 1
	kindFuel  = pog.KindFuel
	kindDurr  = pog.KindDurriken
	kindAfter = pog.KindAfterburner
	kindDefl  = pog.KindDeflector
	kindSalv  = pog.KindSalvage
)

// cardOf returns the card kind (observer's frame) of a card action.
func cardOf(a int) int {
	k := a - actCard
	if k >= pog.KindRekkoning {
		k++
	}
	return k
}

func cardAct(k int) int {
	if k > pog.KindRekkoning {
		return actCard + k - 1
	}
	return actCard + k
}

// Act returns the heuristic's action.
func (h *Heuristic) Act(player int, obs, mask []uint8) int {
	v := &h.v
	read(v, obs)
	defer func() { v.obs = nil }()
	if v.discard {
		return h.discard(v, mask)
	}
	switch v.phase {
	case pog.PhMain:
		return h.main(v, mask)
	case pog.PhWay:
		if h.v2 && v.mover == 2 {
			return h.durrikenWay(v, mask)
		}
		return h.way(v, mask)
	case pog.PhPath:
		if h.v2 && v.mover == 2 {
			return h.durrikenPath(v, mask)
		}
		return h.path(v, mask)
	case pog.PhClaim:
		if h.v2 && mask[pog.ActClaimBlokk] == 1 && h.blocks(v, v.at) {
			return pog.ActClaimBlokk
		}
		if mask[pog.ActClaim] == 1 {
			return pog.ActClaim
		}
		return pog.ActNoClaim
	case pog.PhDWarp:
		if h.v2 {
			if a := h.durrikenWarp(v, mask); a >= 0 {
				return a
			}
		}
		fallthrough
	case pog.PhSlide:
		best, bd := -1, 1<<30
		carrying := v.mover >= 0 && v.mover < 2 && v.cargo[v.mover] > 0
		for a := 0; a < pog.NumSpaces; a++ {
			if mask[a] == 1 {
				d := h.togo(a, carrying, v)
				h.note(a, -float32(d))
				if d < bd {
					best, bd = a, d
				}
			}
		}
		if best >= 0 {
			return best
		}
	case pog.PhLand:
		for a := actCard; a < actCard+numCards; a++ {
			if mask[a] == 1 {
				return a
			}
		}
	case pog.PhSellFuel:
		return h.lowest(mask, kindFuel, kindDurr)
	case pog.PhRaidA, pog.PhRaidD:
		return h.raidCard(v, mask)
	case pog.PhRaidWin:
		lc := int(v.obs[pog.OffDefenderCard])
		if v.obs[pog.OffRaiderWon] == 0 {
			lc = int(v.obs[pog.OffRaiderCard])
		}
		if lc > 0 && h.worth(v, lc-1) >= 5 {
			return pog.ActTakeCard
		}
		return pog.ActDrawCard
	case pog.PhGambit:
		return h.gambit(v, mask)
	case pog.PhPush:
		return pog.ActTake
	}
	return h.any(mask)
}

func (h *Heuristic) any(mask []uint8) int {
	n := 0
	for _, m := range mask {
		n += int(m)
	}
	k := int(h.rng.Uint64() % uint64(n))
	for a, m := range mask {
		if m == 1 {
			if k == 0 {
				return a
			}
			k--
		}
	}
	return 0
}

// worth scores a card kind for keeping: movement it gives.
func (h *Heuristic) worth(v *view, k int) int {
	switch {
	case k < kindFuel:
		return h.warpGain(v, k)
	case k < kindDurr:
		return k - kindFuel + 3
	case k < pog.KindRekkoning:
		return 1
	case k == kindAfter:
		return 10
	case k == kindDefl:
		return 6
	case k == kindSalv:
		return 7
	}
	return 0
}

// warpGain is the number of spaces a warp with planet card k saves the
// best starship.
func (h *Heuristic) warpGain(v *view, k int) int {
	best := 0
	for s := 0; s < 2; s++ {
		x := v.ships[s]
		if x < 0 {
			x = v.at
		}
		carrying := v.cargo[s] > 0
		dest := pog.Planet(k/8, k%8+1)
		if carrying {
			dest = pog.Planet(k/8, 2)
		}
		best = max(best, h.togo(x, carrying, v)-h.togo(dest, carrying, v))
	}
	return best
}

func (h *Heuristic) lowest(mask []uint8, lo, hi int) int {
	for k := lo; k < hi; k++ {
		if a := cardAct(k); mask[a] == 1 {
			return a
		}
	}
	return h.any(mask)
}

func (h *Heuristic) discard(v *view, mask []uint8) int {
	best, bw := -1, 1<<30
	for a := actCard; a < actCard+numCards; a++ {
		if mask[a] == 1 {
			w := h.worth(v, cardOf(a))
			h.note(a, -float32(w))
			if w < bw {
				best, bw = a, w
			}
		}
	}
	return best
}

func (h *Heuristic) main(v *view, mask []uint8) int {
	if a := cardAct(kindSalv); mask[a] == 1 {
		return a
	}
	// Sell the least useful planet card for a Captain's Card.
	best, bw := -1, 3
	for k := 0; k < kindFuel; k++ {
		if a := cardAct(k); mask[a] == 1 {
			if w := h.warpGain(v, k); w < bw {
				best, bw = a, w
			}
		}
	}
	if best >= 0 {
		return best
	}
	// The ship carrying the scientist first, then the one nearer its goal.
	order := [2]int{0, 1}
	if h.togo(v.ships[1], v.cargo[1] > 0, v) < h.togo(v.ships[0], v.cargo[0] > 0, v) {
		order = [2]int{1, 0}
	}
	for _, k := range order {
		if mask[pog.ActShip+k] == 1 {
			if v.cargo[1-k] > 0 && v.cargo[k] == 0 && mask[pog.ActShip+1-k] == 0 {
				continue // the other ship has the scientist: this one stays as it is
			}
			return pog.ActShip + k
		}
	}
	if h.v2 {
		if mask[pog.ActHire] == 1 {
			return pog.ActHire
		}
		if mask[pog.ActDurriken] == 1 && h.durrikenPays(v) {
			return pog.ActDurriken
		}
	}
	return pog.ActEndMoves
}

func (h *Heuristic) way(v *view, mask []uint8) int {
	k := v.mover
	carrying := v.cargo[k] > 0
	now := h.togo(v.at, carrying, v)
	best, bd, bcost := pog.ActBase, max(0, now-2), 0
	if mask[pog.ActBase] == 1 {
		h.note(pog.ActBase, -float32(bd))
	}
	consider := func(a, d, cost int) {
		if mask[a] == 1 {
			h.note(a, -float32(d)-float32(cost)/100)
		}
		if mask[a] == 1 && (d < bd || d == bd && cost < bcost) {
			best, bd, bcost = a, d, cost
		}
	}
	for c := 0; c < kindFuel; c++ {
		dest := pog.Planet(c/8, c%8+1)
		if carrying {
			dest = pog.Planet(c/8, 2)
		}
		consider(cardAct(c), h.togo(dest, carrying, v), 4)
	}
	for f := 0; f < 6; f++ {
		consider(cardAct(kindFuel+f), max(0, now-(f+3)), f+3)
	}
	consider(cardAct(kindAfter), max(0, now-10), 10)
	return best
}

func (h *Heuristic) path(v *view, mask []uint8) int {
	carrying := v.mover < 2 && v.cargo[v.mover] > 0
	if v.mover < 2 && !carrying {
		if a := h.raid(v, mask); a >= 0 {
			return a
		}
	}
	now := h.togo(v.at, carrying, v)
	best, bd := pog.ActStop, now
	if mask[pog.ActStop] == 1 {
		h.note(pog.ActStop, -float32(now)+stopPreference)
	}
	for a := 0; a < pog.NumSpaces; a++ {
		if mask[a] == 1 {
			d := h.togo(a, carrying, v)
			h.note(a, -float32(d))
			if d < bd {
				best, bd = a, d
			}
		}
	}
	return best
}

// winChance is the probability that d6 + mine beats d6 + theirs (ties lose).
func winChance(mine, theirs int) float64 {
	w := 0
	for a := 1; a <= 6; a++ {
		for b := 1; b <= 6; b++ {
			if a+mine > b+theirs {
				w++
			}
		}
	}
	return float64(w) / 36
}

// bestRaidCard returns the most valuable card the heuristic would play and
// its value.
func (h *Heuristic) bestRaidCard(v *view) (kind, value int) {
	kind = -1
	hand := v.obs[pog.OffHand:]
	for k := 0; k < pog.KindRekkoning; k++ {
		if hand[k] > 0 && pog.Value(k) > value {
			kind, value = k, pog.Value(k)
		}
	}
	if hand[kindDefl] > 0 {
		kind, value = kindDefl, 9
	}
	return kind, value
}

func (h *Heuristic) raid(v *view, mask []uint8) int {
	_, mine := h.bestRaidCard(v)
	for r := 1; r < h.players; r++ {
		size := int(v.obs[pog.OffSeats+r*pog.SeatBytes+pog.SeatHandSize])
		theirs := 0
		switch {
		case size >= 3:
			theirs = 6
		case size > 0:
			theirs = 4
		}
		p := winChance(mine, theirs)
		for k := 0; k < 3; k++ {
			a := pog.ActRaid + 3*(r-1) + k
			if mask[a] == 0 {
				continue
			}
			carries := k < 2 && v.obs[pog.OffSeats+r*pog.SeatBytes+pog.SeatCargo+k] > 0
			if p >= 0.6 || carries && p >= 0.5 {
				return a
			}
		}
	}
	return -1
}

func (h *Heuristic) raidCard(v *view, mask []uint8) int {
	k, _ := h.bestRaidCard(v)
	if k >= 0 && mask[cardAct(k)] == 1 {
		return cardAct(k)
	}
	return pog.ActNoCard
}

// gambit counts the Gallaxia cards not seen (the game's cards less the own
// hand, the discard piles and the cards up) by value, and guesses the
// likelier side while the chance of keeping the cards pays.
func (h *Heuristic) gambit(v *view, mask []uint8) int {
	n := int(v.obs[pog.OffGambit+3])
	if mask[pog.ActHigher] == 0 || n == 0 {
		return pog.ActTake
	}
	var unseen [10]int
	total := 0
	for k := 0; k <= pog.KindRekkoning; k++ {
		c := pog.Copies(k) - int(v.obs[pog.OffHand+k]) - int(v.obs[pog.OffDiscard+k])
		for i := 0; i < n; i++ {
			if int(v.obs[pog.OffGambit+i])-1 == k {
				c--
			}
		}
		if c > 0 {
			unseen[pog.Value(k)] += c
			total += c
		}
	}
	if total == 0 {
		return pog.ActTake
	}
	cur := pog.Value(int(v.obs[pog.OffGambit+n-1]) - 1)
	hi, lo, tie := 0, 0, unseen[cur]
	for val, c := range unseen {
		switch {
		case val == 0:
		case val > cur:
			hi += c
		case val < cur:
			lo += c
		}
	}
	side, p := pog.ActHigher, hi
	if lo > hi {
		side, p = pog.ActLower, lo
	}
	keep := float64(p+tie) / float64(total)
	// Guessing keeps n+1 cards with probability keep and leaves 1 card
	// otherwise; taking keeps n.
	if keep*float64(n+1)+(1-keep) > float64(n) {
		return side
	}
	return pog.ActTake
}

// opponent is what the heuristic reads of another pilot (relative seat r).
type opponent struct {
	ships [2]int // spaces (-1 while moving)
	carry [2]bool
	home  int
	togo  int // spaces its best starship still has to cover (the heuristic's own measure)
	lead  int // that starship's space
}

// opponent reads relative seat r from the observation.
func (h *Heuristic) opponent(v *view, r int) opponent {
	o := opponent{ships: [2]int{-1, -1}, togo: 1000, lead: -1}
	seat := pog.OffSeats + r*pog.SeatBytes
	o.home = pog.Hangar(int(v.obs[seat+pog.SeatSektor]))
	ring := -1
	for i := 0; i < pog.NumSpaces; i++ {
		if b := v.obs[pog.OffShips+r*pog.NumSpaces+i]; b != 0 {
			for k := 0; k < 2; k++ {
				if b&(1<<k) != 0 {
					o.ships[k] = i
				}
			}
		}
		if v.obs[pog.OffRings+r*pog.NumSpaces+i] == 1 {
			ring = i
		}
	}
	for k := 0; k < 2; k++ {
		o.carry[k] = v.obs[seat+pog.SeatCargo+k] > 0
		x := o.ships[k]
		if x < 0 {
			continue
		}
		d := 1000
		switch {
		case o.carry[k]:
			d = int(h.dist[x][o.home])
		case ring >= 0:
			d = int(h.dist[x][ring]) + int(h.dist[ring][o.home])
		}
		if d < o.togo {
			o.togo, o.lead = d, x
		}
	}
	return o
}

// targetSlack is how many spaces further from winning than the heuristic
// an opponent may be and still be hunted by its Durriken.
const targetSlack = 5

// target returns the space of the starship the Durriken goes after: the
// leading starship of the opponent with the fewest spaces to go, when that
// opponent is at most targetSlack spaces further from winning than the
// heuristic itself; -1 otherwise.
func (h *Heuristic) target(v *view) int {
	mine := 1000
	for k := 0; k < 2; k++ {
		if x := v.ships[k]; x >= 0 {
			mine = min(mine, h.togo(x, v.cargo[k] > 0, v))
		}
	}
	best, bt := -1, 1000
	for r := 1; r < h.players; r++ {
		o := h.opponent(v, r)
		if o.lead >= 0 && pog.KindOf(o.lead) != pog.KindHangar && o.togo < bt {
			best, bt = o.lead, o.togo
		}
	}
	if bt > mine+targetSlack {
		return -1
	}
	return best
}

// durrikenAt returns the own Durriken's space.
func durrikenAt(v *view) int {
	for i := 0; i < pog.NumSpaces; i++ {
		if v.obs[pog.OffDurriken+i] == 1 {
			return i
		}
	}
	return -1
}

// durrikenPays reports whether moving the Durriken now can bring it next to
// the target (a base move of 3 reaches it) or nearer by a warp.
func (h *Heuristic) durrikenPays(v *view) bool {
	t := h.target(v)
	if t < 0 {
		return false
	}
	if d := durrikenAt(v); d >= 0 && pog.KindOf(d) != pog.KindLair && int(h.ddist[d][t]) <= 3 {
		return true
	}
	_, planet := h.warpPlanet(v, t)
	return planet >= 0
}

// warpPlanet returns the Durriken card (kind) and free planet of the best
// warp towards target t: the planet nearest t, if nearer than the
// Durriken already is (-1, -1 when none).
func (h *Heuristic) warpPlanet(v *view, t int) (card, planet int) {
	card, planet = -1, -1
	bd := 1000
	if d := durrikenAt(v); d >= 0 && pog.KindOf(d) != pog.KindLair {
		bd = int(h.ddist[d][t]) - 3
	}
	hand := v.obs[pog.OffHand:]
	for val := 1; val <= 8; val++ {
		if hand[kindDurr+val-1] == 0 {
			continue
		}
		for k := 0; k < pog.NumSektors; k++ {
			pl := pog.Planet(k, val)
			if v.occupied(pl) {
				continue
			}
			if d := int(h.ddist[pl][t]); d < bd {
				card, planet, bd = kindDurr+val-1, pl, d
			}
		}
	}
	return card, planet
}

// occupied reports whether any piece stands on space x (hangars excepted).
func (v *view) occupied(x int) bool {
	for r := 0; r < pog.MaxPlayers; r++ {
		if v.obs[pog.OffShips+r*pog.NumSpaces+x] != 0 || v.obs[pog.OffDurriken+r*pog.NumSpaces+x] != 0 {
			return true
		}
	}
	return false
}

// durrikenWay picks the base move when the target is within reach, else
// the Durriken card of the best warp.
func (h *Heuristic) durrikenWay(v *view, mask []uint8) int {
	t := h.target(v)
	if t >= 0 && mask[pog.ActBase] == 1 && int(h.ddist[v.at][t]) <= 3 {
		return pog.ActBase
	}
	if t >= 0 {
		if c, _ := h.warpPlanet(v, t); c >= 0 && mask[cardAct(c)] == 1 {
			return cardAct(c)
		}
	}
	if mask[pog.ActBase] == 1 {
		return pog.ActBase
	}
	return h.lowest(mask, kindDurr, pog.KindRekkoning)
}

// durrikenWarp picks the free planet nearest the target.
func (h *Heuristic) durrikenWarp(v *view, mask []uint8) int {
	t := h.target(v)
	if t < 0 {
		return -1
	}
	best, bd := -1, 1000
	for a := 0; a < pog.NumSpaces; a++ {
		if mask[a] == 1 && int(h.ddist[a][t]) < bd {
			best, bd = a, int(h.ddist[a][t])
		}
	}
	return best
}

// durrikenPath raids any opponent's starship next to the Durriken (a
// carrier first), else steps towards the target, else stops.
func (h *Heuristic) durrikenPath(v *view, mask []uint8) int {
	best := -1
	for r := 1; r < h.players; r++ {
		for k := 0; k < 2; k++ {
			a := pog.ActRaid + 3*(r-1) + k
			if mask[a] == 1 && (best < 0 || v.obs[pog.OffSeats+r*pog.SeatBytes+pog.SeatCargo+k] > 0) {
				best = a
			}
		}
	}
	if best >= 0 {
		return best
	}
	t := h.target(v)
	if t < 0 {
		return pog.ActStop
	}
	step, bd := pog.ActStop, int(h.ddist[v.at][t])
	for a := 0; a < pog.NumSpaces; a++ {
		if mask[a] == 1 && int(h.ddist[a][t]) < bd {
			step, bd = a, int(h.ddist[a][t])
		}
	}
	return step
}

// blocks reports whether a BLOKK on caravan space y stands on a shortest
// way of an opponent: from a starship to its scientist, or home.
func (h *Heuristic) blocks(v *view, y int) bool {
	for r := 1; r < h.players; r++ {
		o := h.opponent(v, r)
		ring := -1
		for i := 0; i < pog.NumSpaces; i++ {
			if v.obs[pog.OffRings+r*pog.NumSpaces+i] == 1 {
				ring = i
			}
		}
		for k := 0; k < 2; k++ {
			x := o.ships[k]
			if x < 0 {
				continue
			}
			goal := ring
			if o.carry[k] {
				goal = o.home
			}
			if goal < 0 {
				continue
			}
			if int(h.dist[x][y])+int(h.dist[y][goal]) == int(h.dist[x][goal]) && int(h.dist[x][goal]) < 255 {
				return true
			}
		}
		if ring >= 0 && int(h.dist[ring][y])+int(h.dist[y][o.home]) == int(h.dist[ring][o.home]) {
			return true
		}
	}
	return false
}
