package galaxyfighters

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/agents/galaxyfighters/internal/search"
	"github.com/galaxygym/galaxygym/env"
	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

func init() {
	for _, id := range []string{gf.ID, gf.IDv1} {
		agents.RegisterFor(id, agents.Heuristic, "the game's own planner, from the observation only: tries "+
			"its commands and the approach phase that follows, shoots what threatens the districts soonest, "+
			"dodges crashes; any number of players (options: weapon, bonus, engine)",
			func(spec *env.Spec, opts agents.Options) (agents.Agent, error) {
				h, err := NewHeuristic(spec, opts)
				if err != nil {
					return nil, err // a nil Agent, not a typed nil pointer
				}
				return h, nil
			})
	}
}

// fightersEnv reports whether spec is one of the Galaxy Fighters ids.
func fightersEnv(spec *env.Spec) bool {
	return spec != nil && gf.IsID(spec.ID)
}

// How the Galaxy Fighters heuristic plays (observation and mask only):
//
// Setup and refits take a fixed loadout (options weapon, bonus, engine;
// by default Wide Beam, and Deflector, else Thrusters, when the ship card
// offers them). The bonus tile is Special on galaxy-fighters-v2, else Fire
// when bonus_tiles=two_each has no Special tile left (the best policy: at
// v2's Ace Special on every ship wins 29.5% of 1,000 games, Fire 0.6%,
// Move 0.2%), and Fire on galaxy-fighters-v1 (the policy its published
// numbers used). In the command phase the board is
// rebuilt from the observation ([search.View]: the observation shows
// everything a player sees, the aliens under the top of a stack by count
// only) and the agent searches the command sequences it can still pay
// for, two commands deep (a move or warp only as the first), each ending
// with its own approach phase played by the real rules (on one View:
// commands are played and taken back with [search.View.Mark] and
// [search.View.Undo], approach phases are played by a [search.Probe] without
// copying the board, and a leaf whose leading stacks are its parent's
// resumes the parent's partial threat sum; a leaf whose last command
// provably leaves its parent's approach phase as it was takes its
// parent's value (a Deflector or SDS tile no alien meets) or its parent's
// board with the stacks it shot lower ([search.Probe.SameApproach]), no
// approach played; the values are those of a copy per leaf, to the bit:
// reference_test.go). A leaf is scored
// by what the approach did (a loss, a ship destroyed, invasions weighted
// by how full the district gets) and by the threat left on the board:
// every alien weighs by the number of its district's approach phases
// before it invades (speed and distance; paths into a corner drift away
// harmlessly), by whether it is the top of its stack, and by the fill of
// its district. The agent plays the first command of the best sequence,
// or ends the turn when doing nothing more scores best. Spill-overs go to
// the neighbour with more free invader spaces. Ties break on a PCG seeded
// by Reset.

// Heuristic plays Galaxy Fighters (any number of players, one instance
// for every seat or one per seat) as described above, from the
// observation and the mask only; Act does not allocate. Options: weapon
// (wide-beam, laser-beam, spread-shot), bonus (fire, move, special: the
// preferred tile, then the others in that cyclic order), engine
// (deflector, thrusters, warp-drive: preferred engine, the other one of
// the card otherwise).
type Heuristic struct {
	weapon     int
	bonusPref  [3]int // bonus tiles in order of preference
	enginePref [3]int

	rng   rand.PCG
	view  search.View        // the position searched: commands played on it and undone
	marks [2]search.ViewMark // the position before the command of depth 1, 2
	probe search.Probe       // plays the approach phase of view's position
	// weight[cell][kindSlot(code)] is turnWeight of an alien of that type
	// and facing on cell (by the approaches it needs to leave the board past
	// a district's zone 1), or 0 when its path ends in a corner.
	weight [gf.Cells][16]float64
	// leaves[d] is the threat of the last leaf of depth d (the root, the
	// first command), kept for its children: the sum runs over the
	// occupied cells in order, so a leaf whose fills and first stacks are
	// its parent's starts from the parent's partial sum at its first
	// different stack (the sum is the same to the bit).
	leaves    [searchDepth]threatCache
	decisions uint64 // command decisions searched
	fill      struct {
		key fillKey
		dir [4]float64
	}

	vals []float32 // ActionValues' output, or nil
	// counts counts the leaves searched, by how they were scored (for
	// tests).
	counts [numLeafKinds]uint64
	// at[d] is the position searched at depth d (the root, after the
	// first command, after the second) once its leaf is scored.
	at [searchDepth + 1]node

	// first is the first command of the sequence searched. pair[a][b] is
	// the value of the sequence (a, b) of two commands that commute (see
	// commute), in decision pairAt[a][b] (indices less ActionFire): the
	// sequence (b, a) ends in the same position, so it is not played
	// again.
	first  int
	pair   [numPair][numPair]float64
	pairAt [numPair][numPair]uint64
	// seconds[:nSeconds] are the commands that may follow the first one
	// (no move: see search) for the acting ship's model and engine, in
	// increasing order; a command of another ship is never legal.
	seconds  [numPair]int
	nSeconds int
}

// How a leaf is scored: its approach phase played (leafValue), its
// parent's value inherited (an inert command), or its parent's approach
// kept (localValue).
const (
	leafScored = iota
	leafInherited
	leafLocal
	numLeafKinds
)

// node is what the search keeps of a position whose leaf it scored.
type node struct {
	value float64
	// scored is whether its threat was summed (its board and fill factors
	// saved in leaves[cache]), rest its value before the threat was taken
	// off.
	scored    bool
	rest      float64
	crashFree bool      // no alien flew into a ship in its approach phase
	flown     [2]uint64 // the cells entered by the aliens that flew then (search.Probe.Flown)
	// cache is the entry of Heuristic.leaves that its children's threat
	// sums resume from: its own, or its parent's when their boards after
	// the approach are the same.
	cache int
}

// fillKey is what Heuristic.newFill depends on within a decision.
type fillKey struct {
	decision uint64
	inv      [gf.NumSeats]int
	full     int
}

// threatCache is one leaf's threat, occupied cell by occupied cell.
type threatCache struct {
	board   search.ProbeBoard
	fillDir [4]float64
	n       int       // entries
	set     [2]uint64 // the cells of the entries (bit c%64 of word c/64)
	// cells[from:n] are this leaf's own entries; the first from, its
	// parent's, are read there (the parent's cache is not written while
	// this one is in use).
	from  int
	cells [gf.Cells]threatEntry
}

// below returns the cells of set before cell d (0-121), and their
// number: tc's entries before d when set is tc.set.
func below(set [2]uint64, d int) ([2]uint64, int) {
	var m [2]uint64
	if d < 64 {
		m[0] = 1<<d - 1
	} else {
		m[0], m[1] = ^uint64(0), 1<<(d-64)-1
	}
	m[0] &= set[0]
	m[1] &= set[1]
	return m, bits.OnesCount64(m[0]) + bits.OnesCount64(m[1])
}

// threatEntry is one occupied cell of a leaf and the threat summed up to
// it included.
type threatEntry struct {
	cell  int
	after float64
}

// NewHeuristic builds the agent for a Galaxy Fighters spec (either
// version).
func NewHeuristic(spec *env.Spec, opts agents.Options) (*Heuristic, error) {
	ids := []string{gf.IDv1, gf.ID}
	if !fightersEnv(spec) {
		id := ""
		if spec != nil {
			id = spec.ID
		}
		return nil, &agents.UnsupportedEnvError{Agent: "heuristic", Env: id, Supported: ids}
	}
	h := &Heuristic{weapon: gf.WideBeam, bonusPref: [3]int{gf.FaceSpecial, gf.FaceFire, gf.FaceMove},
		enginePref: [3]int{gf.Deflector, gf.Thrusters, gf.WarpDrive}}
	if spec.ID == gf.IDv1 {
		h.bonusPref = [3]int{gf.FaceFire, gf.FaceMove, gf.FaceSpecial}
	}
	for k, val := range opts {
		switch k {
		case "weapon":
			i := slices.Index(gf.WeaponNames(), val)
			if i < 0 {
				return nil, &agents.OptionError{Agent: "heuristic", Key: k, Reason: "want wide-beam, laser-beam or spread-shot"}
			}
			h.weapon = i
		case "bonus":
			i := slices.Index([]string{"fire", "move", "special"}, val)
			if i < 0 {
				return nil, &agents.OptionError{Agent: "heuristic", Key: k, Reason: "want fire, move or special"}
			}
			h.bonusPref = [3]int{i, (i + 1) % 3, (i + 2) % 3}
		case "engine":
			i := slices.Index(gf.EngineNames(), val)
			if i < 0 {
				return nil, &agents.OptionError{Agent: "heuristic", Key: k, Reason: "want thrusters, deflector or warp-drive"}
			}
			p := [3]int{i, 0, 0}
			n := 1
			for _, e := range h.enginePref {
				if e != i {
					p[n] = e
					n++
				}
			}
			h.enginePref = p
		default:
			return nil, &agents.OptionError{Agent: "heuristic", Key: k, Reason: "unknown option (weapon, bonus, engine)"}
		}
	}
	// exit[cell][dir] is the number of steps an alien on cell facing dir
	// takes to leave the board past a district's zone 1, or 0 when its
	// path ends in a corner.
	var exit [gf.Cells][4]int
	for c := 0; c < gf.Cells; c++ {
		r0, c0 := c/gf.Side, c%gf.Side
		if !gf.OnBoard(r0, c0) {
			continue
		}
		for d := 0; d < 4; d++ {
			dr, dc := [4]int{-1, 0, 1, 0}[d], [4]int{0, 1, 0, -1}[d]
			r, cc := r0, c0
			for n := 1; ; n++ {
				r, cc = r+dr, cc+dc
				if r < 0 || r >= gf.Side || cc < 0 || cc >= gf.Side {
					exit[c][d] = n
					break
				}
				if !gf.OnBoard(r, cc) {
					break
				}
			}
		}
	}
	for c := range exit {
		for typ := 0; typ < 3; typ++ {
			for d := 0; d < 4; d++ {
				if n := exit[c][d]; n != 0 {
					sp := gf.AlienSpeed(typ)
					h.weight[c][4+typ*4+d] = turnWeight[min((n+sp-1)/sp, len(turnWeight)-1)]
				}
			}
		}
	}
	return h, nil
}

// Name returns "heuristic".
func (*Heuristic) Name() string { return agents.Heuristic }

// Reset seeds the tie-breaks.
func (h *Heuristic) Reset(seed uint64) { h.rng.Seed(seed, 0x6669676874657273) }

// Act returns a legal action.
func (h *Heuristic) Act(_ int, obs, mask []uint8) int {
	switch {
	case obs[gf.OffPhase+gf.PhaseWeapon] != 0:
		if mask[gf.ActionWeapon+h.weapon] != 0 {
			return gf.ActionWeapon + h.weapon
		}
	case obs[gf.OffPhase+gf.PhaseBonus] != 0:
		for _, b := range h.bonusPref {
			if mask[gf.ActionBonus+b] != 0 {
				return gf.ActionBonus + b
			}
		}
	case obs[gf.OffPhase+gf.PhaseEngine] != 0:
		for _, e := range h.enginePref {
			if mask[gf.ActionEngine+e] != 0 {
				return gf.ActionEngine + e
			}
		}
	case obs[gf.OffPhase+gf.PhaseSpill] != 0:
		if a := h.spill(obs, mask); a >= 0 {
			return a
		}
	case obs[gf.OffPhase+gf.PhaseCommand] != 0:
		if a := h.command(obs, mask); a >= 0 {
			return a
		}
	}
	return h.firstLegal(mask)
}

// ActionValues is Act with the heuristic's reasons: it returns the action
// Act would return for the same call (consuming the tie-breaking generator
// the same way) and fills q (length at least len(mask), float32) with the
// value of each action the heuristic scored, NaN for the others. At a
// command decision the value of an action is the best leaf value the
// search reaches after it (ending the turn: the position's own leaf
// value), in the heuristic's own units (comparable within one decision);
// at a spill decision, minus the invaders of the neighbour the alien would
// go to. Weapon, bonus and engine choices follow a fixed preference and
// get NaN. The action returned is always among the highest valued when any
// legal action has a value.
func (h *Heuristic) ActionValues(obs, mask []uint8, q []float32) int {
	return agents.ActRecordingValues(h, &h.vals, obs, mask, q)
}

// ActExplained is Act with the action values of [Heuristic.ActionValues]
// in th.Values ([agents.Explainer]).
func (h *Heuristic) ActExplained(_ int, obs, mask []uint8, th *agents.Thoughts) int {
	return agents.ExplainValues(h, "the heuristic's search value (its own units)", obs, mask, th)
}

func (h *Heuristic) firstLegal(mask []uint8) int {
	for a, m := range mask {
		if m != 0 {
			return a
		}
	}
	return -1
}

// spill sends the alien towards the neighbour with more free spaces.
func (h *Heuristic) spill(obs, mask []uint8) int {
	src := -1
	for i := 0; i < gf.NumSeats; i++ {
		if obs[gf.OffSpillSeat+i] != 0 {
			src = i
		}
	}
	if src < 0 || mask[gf.ActionSpill] == 0 || mask[gf.ActionSpill+1] == 0 {
		return -1
	}
	inv := func(rel int) int { return int(obs[gf.OffSeats+rel*gf.SeatBytes+gf.SeatInvaders]) }
	l, r := inv((src+1)%gf.NumSeats), inv((src+3)%gf.NumSeats)
	if h.vals != nil {
		h.vals[gf.ActionSpill], h.vals[gf.ActionSpill+1] = -float32(l), -float32(r)
	}
	switch {
	case l < r:
		return gf.ActionSpill
	case r < l:
		return gf.ActionSpill + 1
	}
	return gf.ActionSpill + int(h.rng.Uint64()>>63)
}

// command searches the command sequences and returns the first action of
// the best one. The commands are played on h.view and taken back (Mark,
// Undo); the approach phases are played by h.probe, which leaves the view
// as it is.
func (h *Heuristic) command(obs, mask []uint8) int {
	root := &h.view
	root.Load(obs)
	h.probe.Begin(root)
	h.decisions++
	best, bestA, ties := -1e18, -1, 0
	consider := func(v float64, a int) {
		if h.vals != nil {
			h.vals[a] = float32(v)
		}
		switch {
		case v > best+1e-9:
			best, bestA, ties = v, a, 1
		case v > best-1e-9:
			ties++
			if h.rng.Uint64()%uint64(ties) == 0 {
				bestA = a
			}
		}
	}
	h.at[0] = node{}
	if mask[gf.ActionEndTurn] != 0 {
		h.at[0].value = h.leafValue(0)
		consider(h.at[0].value, gf.ActionEndTurn)
	}
	h.nSeconds = 0
	seat := root.Seat()
	model, engine := root.Model(seat), root.Engine(seat)
	for a := gf.ActionFire; a <= gf.ActionDeflector; a++ {
		switch {
		case a >= gf.ActionMove && a < gf.ActionUseWeapon, // moves only as the first command
			a >= gf.ActionMissile && a < gf.ActionSDS && model != gf.AstroWing,
			a == gf.ActionSDS && model != gf.Phalanx,
			a == gf.ActionDeflector && engine != gf.Deflector:
			continue
		}
		h.seconds[h.nSeconds] = a
		h.nSeconds++
	}
	m := &h.marks[0]
	root.Mark(m)
	for a := gf.ActionFire; a < gf.ActionEndTurn; a++ {
		if mask[a] == 0 {
			continue
		}
		inert := h.inert(a, &h.at[0])
		root.Play(a)
		h.first = a
		consider(h.search(1, inert), a)
		root.Undo(m)
	}
	return bestA
}

// numPair is the number of commands that may be first or second in a
// sequence of two that commute (ActionFire..ActionDeflector).
const numPair = gf.ActionDeflector - gf.ActionFire + 1

// commute reports whether the commands a and b (ActionFire..
// ActionDeflector) played in either order end in the same stacks and
// ships, the leaf value reading nothing else of the position (not the
// symbols left, which may differ by which Wild symbols were spent): a
// Deflector only shields the acting ship, which no other command reads;
// Missile Command on two different zones hits and reads the deep-space
// spaces of two different rows.
func commute(a, b int) bool {
	missile := func(x int) bool { return x >= gf.ActionMissile && x < gf.ActionSDS }
	return a != b && (a == gf.ActionDeflector || b == gf.ActionDeflector || missile(a) && missile(b))
}

// searchDepth is the number of commands a sequence holds at most.
const searchDepth = 2

// search returns the best value reachable from h.view with depth commands
// played. inherit is whether the last command was inert (see inert): the
// position's leaf is then its parent's, not scored again.
func (h *Heuristic) search(depth int, inherit bool) float64 {
	v := &h.view
	n := &h.at[depth]
	if inherit {
		*n = h.at[depth-1]
		h.counts[leafInherited]++
	} else {
		n.value = h.leafValue(depth)
		h.counts[leafScored]++
	}
	best := n.value
	if depth >= searchDepth {
		return best
	}
	m := &h.marks[depth]
	v.Mark(m)
	for _, a := range h.seconds[:h.nSeconds] {
		if !v.Legal(a) {
			continue
		}
		// (first, a) ends in the position of (a, first) when they commute:
		// the leaf of that one, when it was searched (both legal), has the
		// same value to the bit.
		swap := depth == 1 && h.first <= gf.ActionDeflector && commute(h.first, a)
		if swap && a < h.first && h.pairAt[a-gf.ActionFire][h.first-gf.ActionFire] == h.decisions {
			best = max(best, h.pair[a-gf.ActionFire][h.first-gf.ActionFire])
			continue
		}
		x := n.value
		if inert := h.inert(a, n); !inert || depth+1 < searchDepth {
			v.Play(a)
			ok := false
			if depth+1 == searchDepth && takesOff(a) {
				if x, ok = h.localValue(n, m); ok {
					h.counts[leafLocal]++
				}
			}
			if !ok {
				x = h.search(depth+1, inert)
			}
			v.Undo(m)
		} else {
			h.counts[leafInherited]++
		}
		if swap && a > h.first {
			i, j := h.first-gf.ActionFire, a-gf.ActionFire
			h.pair[i][j], h.pairAt[i][j] = x, h.decisions
		}
		best = max(best, x)
	}
	return best
}

// takesOff reports whether command a only takes aliens off stacks (Fire,
// the weapon, a Missile Command).
func takesOff(a int) bool {
	return a == gf.ActionFire || a >= gf.ActionUseWeapon && a < gf.ActionSDS
}

// inert reports whether command a, played on the position of n, leaves
// its approach phase, its board after it and its leaf value as they are
// (to the bit): a Deflector only shields the acting ship, which counts
// only when an alien flies into it; a Shielded Defense System tile only
// stops the aliens that enter its space. With no alien flying into a ship
// in n's approach phase (and, for the tile, none entering the space ahead
// of the ship where it goes), neither changes what the approach does, and
// the leaf value reads nothing else they change (the symbols spent).
func (h *Heuristic) inert(a int, n *node) bool {
	switch {
	case !n.crashFree:
		return false
	case a == gf.ActionDeflector:
		return true
	case a == gf.ActionSDS:
		c := h.view.SDSCell()
		return c >= 0 && n.flown[c>>6]&(1<<(c&63)) == 0
	}
	return false
}

// Weights of the evaluation.
const (
	lossValue      = 1e6
	shipLostCost   = 6.0
	invasionCost   = 1.0
	alienCost      = 0.05
	underTopWeight = 0.6
	lastShipFactor = 3.0
	fillScale      = 3.0
)

// leafValue ends the command phase of h.view, depth commands after the
// root (its approach played by h.probe), and scores the result.
func (h *Heuristic) leafValue(depth int) float64 {
	v, p := &h.view, &h.probe
	// The four seats unrolled (a constant below checks that there are four).
	before := [gf.NumSeats]int{v.Invaders(0), v.Invaders(1), v.Invaders(2), v.Invaders(3)}
	r := p.Approach()
	n := &h.at[depth]
	n.crashFree, n.flown, n.cache, n.scored = r.Crashes == 0, p.Flown(), depth, false
	if r.NoShip {
		return -lossValue
	}
	val := 0.0
	capN := v.InvaderCap()
	inv := &r.Invasions
	full := fullAt(before[0]+inv[0], capN) + fullAt(before[1]+inv[1], capN) +
		fullAt(before[2]+inv[2], capN) + fullAt(before[3]+inv[3], capN)
	if inv[0]|inv[1]|inv[2]|inv[3] != 0 { // most leaves have no invasion
		for k := 0; k < gf.NumSeats; k++ {
			for i := 1; i <= r.Invasions[k]; i++ {
				f := float64(min(before[k]+i, capN)) / float64(capN)
				val -= invasionCost * (1 + fillScale*f*f)
			}
		}
	}
	if full >= v.DistrictsToLose() {
		return -lossValue + val
	}
	// The original heuristic also subtracted 40 * (full - the districts
	// full after the approach), always 0: a district is full after the
	// approach exactly when before[k]+r.Invasions[k] >= capN (each
	// invasion fills a space, or spills over once the district is full),
	// so that count is full itself; subtracting +0 leaves val as it is,
	// to the bit.
	lostCost := shipLostCost
	if p.ShipyardLeft() == 0 {
		lostCost *= lastShipFactor
	}
	val -= lostCost * float64(r.ShipsLost)
	n.rest, n.scored = val, true
	val -= h.threat(&before, &r.Invasions, full, depth)
	return val
}

// localValue is leafValue for h.view's position, a command after that of
// n (whose mark is m), when its approach phase is n's
// (search.Probe.SameApproach): the same result, so the value before the
// threat is n's, and the threat is n's board with the stacks that lost
// aliens lower, resumed from n's partial sum before the first of them.
// ok is false when the approach may differ.
func (h *Heuristic) localValue(n *node, m *search.ViewMark) (val float64, ok bool) {
	if !n.scored {
		return 0, false
	}
	base := &h.leaves[n.cache]
	d, ok := h.probe.SameApproach(&base.board, m)
	if !ok {
		return 0, false
	}
	t, _, _ := h.resume(base, d)
	return n.rest - h.sum(t, from(base.set, d), &base.board, &base.fillDir), true
}

// resume returns the threat of the leaf of cache base summed up to cell d
// (the cells of its entries before d excluded), those cells and their
// number: the partial sum at its last entry before d, to the bit.
func (h *Heuristic) resume(base *threatCache, d int) (t float64, set [2]uint64, j int) {
	set, j = below(base.set, d)
	if j > 0 {
		own := base
		if j-1 < base.from {
			own = &h.leaves[0] // base.from > 0 only for a first command's
		}
		t = own.cells[j-1].after
	}
	return t, set, j
}

// from returns the cells of set (bit c%64 of word c/64) from cell d
// (0-121) on.
func from(set [2]uint64, d int) [2]uint64 {
	if d < 64 {
		set[0] &^= 1<<d - 1
	} else {
		set[0], set[1] = 0, set[1]&^(1<<(d-64)-1)
	}
	return set
}

// sum adds to t the threat of the stacks on the cells (a bit set, bit c%64
// of word c/64) of board b (search.ProbeBoard.StackAfter), cell by cell,
// bottom first: every alien but the top one weighs underTopWeight more.
// threat's loop that keeps each cell's partial sum is the same sum.
func (h *Heuristic) sum(t float64, cells [2]uint64, b *search.ProbeBoard, fillDir *[4]float64) float64 {
	for w := range cells {
		for bs := cells[w]; bs != 0; bs &= bs - 1 {
			c := w<<6 | bits.TrailingZeros64(bs)
			stayed, landed := b.StackAfter(&h.view, c)
			weight := &h.weight[c]
			var last uint8
			if n := len(landed); n > 0 {
				t = underThreat(t, weight, fillDir, stayed)
				t = underThreat(t, weight, fillDir, landed[:n-1])
				last = landed[n-1]
			} else if n = len(stayed); n > 0 {
				t = underThreat(t, weight, fillDir, stayed[:n-1])
				last = stayed[n-1]
			} else {
				continue // empty
			}
			k := kindSlot(last)
			t += alienCost
			t += weight[k] * fillDir[k&3] // 0 when its path ends in a corner
		}
	}
	return t
}

// leafValue unrolls its loops over the four seats: these fail to compile
// unless gf.NumSeats is 4.
const (
	_ uint = gf.NumSeats - 4
	_ uint = 4 - gf.NumSeats
)

// fullAt returns 1 when n invaders fill a district of capN spaces, else 0.
func fullAt(n, capN int) int {
	if n >= capN {
		return 1
	}
	return 0
}

// turnWeight is the threat of an alien by the approaches left before it
// invades.
var turnWeight = [8]float64{0, 1.0, 0.55, 0.35, 0.22, 0.15, 0.1, 0.08}

// threat weighs the aliens left on the board after the approach played
// by h.probe.
func (h *Heuristic) threat(before, inv *[gf.NumSeats]int, full, depth int) float64 {
	p := &h.probe
	// The fill factors: the last ones, unless they were for other
	// invasions (field by field: the struct's == calls runtime.memequal).
	if k := &h.fill.key; k.decision != h.decisions || k.full != full || k.inv != *inv {
		h.newFill(before, inv, full)
	}
	fillDir := &h.fill.dir
	// Every alien, cell by cell, bottom first (the order of the sum). A
	// leaf differs from its parent (the sequence without its last command)
	// in a few cells: the sum starts after the longest run of first
	// occupied cells equal to the parent's, and the leaves that are
	// parents keep theirs for their children.
	var base, out *threatCache
	d := 0 // the first cell whose stack differs from base's
	if depth > 0 {
		base = &h.leaves[h.at[depth-1].cache]
		if base.fillDir == *fillDir {
			d = p.Diff(&base.board)
		}
	}
	if depth < searchDepth {
		out = &h.leaves[depth]
		out.fillDir = *fillDir
	}
	j := 0 // base's entries for the occupied cells before d
	t := 0.0
	var set [2]uint64 // the cells of base's entries before d
	if base != nil {
		t, set, j = h.resume(base, d)
	}
	if out != nil {
		out.from = j
	}
	cells := from(p.Cells(), d)
	// A deepest leaf (out == nil) keeps nothing: sum's loop saves a test a
	// cell. The loop below is the same sum, each cell's partial sum kept.
	if out == nil {
		return h.sum(t, cells, p.Board(), fillDir)
	}
	var empty [2]uint64 // the cells from d on that are empty
	for w := range cells {
		for bs := cells[w]; bs != 0; bs &= bs - 1 {
			c := w<<6 | bits.TrailingZeros64(bs)
			stayed, landed := p.Stack(c)
			// Every alien but the top one weighs underTopWeight more.
			weight := &h.weight[c]
			var last uint8
			if n := len(landed); n > 0 {
				t = underThreat(t, weight, fillDir, stayed)
				t = underThreat(t, weight, fillDir, landed[:n-1])
				last = landed[n-1]
			} else if n = len(stayed); n > 0 {
				t = underThreat(t, weight, fillDir, stayed[:n-1])
				last = stayed[n-1]
			} else {
				empty[w] |= bs & -bs
				continue
			}
			k := kindSlot(last)
			t += alienCost
			t += weight[k] * fillDir[k&3] // 0 when its path ends in a corner
			out.cells[j] = threatEntry{c, t}
			j++
		}
	}
	// The cells of out's entries: base's before d, the occupied ones after.
	out.n, out.set = j, [2]uint64{set[0] | cells[0]&^empty[0], set[1] | cells[1]&^empty[1]}
	p.Save(&out.board)
	return t
}

// newFill computes into h.fill.dir the fill factor of the district an
// alien facing d heads for, after the invasions inv (full: the districts
// full then). The last one is kept (h.fill.key), the leaves of a decision
// mostly sharing it.
func (h *Heuristic) newFill(before, inv *[gf.NumSeats]int, full int) {
	capN := h.view.InvaderCap()
	lose := h.view.DistrictsToLose()
	var fill [gf.NumSeats]float64
	for k := 0; k < gf.NumSeats; k++ {
		n := min(before[k]+inv[k], capN)
		f := float64(n) / float64(capN)
		fill[k] = 1 + fillScale*f*f
		if n >= capN-1 && full+1 >= lose {
			fill[k] += 4
		}
		if n >= capN {
			fill[k] = 0.5 // spills over
		}
	}
	var fillDir [4]float64
	for d := range fillDir {
		fillDir[d] = fill[gf.FacedSeat(d)]
	}
	h.fill.key, h.fill.dir = fillKey{h.decisions, *inv, full}, fillDir
}

// kindSlot returns where h.weight keeps the weight of an alien code:
// gf.AlienKind(code) + 4 (4-15), which is the code's low four bits
// (TestKindSlot), so that no bounds check is needed; its last two bits are
// the alien's global facing, as the kind's.
func kindSlot(code uint8) int { return int(code & 15) }

// underThreat adds to t the threat of aliens (codes, gf.AlienKind), none
// of them the top of its stack: for each, alienCost then its weight times
// the fill of its district times underTopWeight (adding the weight 0 of a
// path that ends in a corner leaves t as it is, t being positive).
func underThreat(t float64, weight *[16]float64, fillDir *[4]float64, aliens []uint8) float64 {
	for _, a := range aliens {
		k := kindSlot(a)
		t += alienCost
		t += weight[k] * fillDir[k&3] * underTopWeight
	}
	return t
}

// String describes the loadout (for logs).
func (h *Heuristic) String() string {
	return "heuristic(weapon=" + gf.WeaponNames()[h.weapon] + ",bonus=" + strconv.Itoa(h.bonusPref[0]) + ")"
}
