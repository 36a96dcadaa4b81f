package galaxyfighters_test

// The Galaxy Fighters heuristic as it was before the search was made
// cheaper (main at da9f055, agents/galaxyfighters/heuristic.go, copied
// verbatim but for the names): a board copy per node and per leaf, and
// the approach phase of every leaf played by search.View.Approach (the game's own
// rules). TestHeuristicSameAsReference checks that the current heuristic
// chooses exactly what this one chooses.

import (
	"math"
	"testing"

	"github.com/galaxygym/galaxygym/datasets"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/agents/galaxyfighters"
	"github.com/galaxygym/galaxygym/agents/galaxyfighters/internal/search"
	"github.com/galaxygym/galaxygym/env"
	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// refHeuristic plays Galaxy Fighters (any number of players, one instance
// for every seat or one per seat) as described above, from the
// observation and the mask only; Act does not allocate. Options: weapon
// (wide-beam, laser-beam, spread-shot), bonus (fire, move, special: the
// preferred tile, then the others in that cyclic order), engine
// (deflector, thrusters, warp-drive: preferred engine, the other one of
// the card otherwise).
type refHeuristic struct {
	weapon     int
	bonusPref  [3]int // bonus tiles in order of preference
	enginePref [3]int

	rng   rand.PCG
	views [3]search.View // search stack: root, depth 1, depth 2
	leaf  search.View
	// exit[cell][dir] is the number of steps an alien on cell facing dir
	// takes to leave the board past a district's zone 1, or 0 when its
	// path ends in a corner.
	exit [gf.Cells][4]int8

	vals []float32 // ActionValues' output, or nil
}

// newRefHeuristic builds the agent for a Galaxy Fighters spec (either
// version).
func newRefHeuristic(spec *env.Spec, opts agents.Options) (*refHeuristic, error) {
	ids := []string{gf.IDv1, gf.ID}
	if !(spec != nil && gf.IsID(spec.ID)) {
		id := ""
		if spec != nil {
			id = spec.ID
		}
		return nil, &agents.UnsupportedEnvError{Agent: "heuristic", Env: id, Supported: ids}
	}
	h := &refHeuristic{weapon: gf.WideBeam, bonusPref: [3]int{gf.FaceSpecial, gf.FaceFire, gf.FaceMove},
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
					h.exit[c][d] = int8(n)
					break
				}
				if !gf.OnBoard(r, cc) {
					break
				}
			}
		}
	}
	return h, nil
}

// Name returns "heuristic".
func (*refHeuristic) Name() string { return agents.Heuristic }

// Reset seeds the tie-breaks.
func (h *refHeuristic) Reset(seed uint64) { h.rng.Seed(seed, 0x6669676874657273) }

// Act returns a legal action.
func (h *refHeuristic) Act(_ int, obs, mask []uint8) int {
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
func (h *refHeuristic) ActionValues(obs, mask []uint8, q []float32) int {
	nan := float32(math.NaN())
	for i := range q[:len(mask)] {
		q[i] = nan
	}
	h.vals = q
	a := h.Act(0, obs, mask)
	h.vals = nil
	return a
}

// ActExplained is Act with the action values of [refHeuristic.ActionValues]
// in th.Values ([agents.Explainer]).
func (h *refHeuristic) ActExplained(_ int, obs, mask []uint8, th *agents.Thoughts) int {
	return agents.ExplainValues(h, "the heuristic's search value (its own units)", obs, mask, th)
}

func (h *refHeuristic) firstLegal(mask []uint8) int {
	for a, m := range mask {
		if m != 0 {
			return a
		}
	}
	return -1
}

// spill sends the alien towards the neighbour with more free spaces.
func (h *refHeuristic) spill(obs, mask []uint8) int {
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
// the best one.
func (h *refHeuristic) command(obs, mask []uint8) int {
	root := &h.views[0]
	root.Load(obs)
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
	if mask[gf.ActionEndTurn] != 0 {
		consider(h.leafValue(root), gf.ActionEndTurn)
	}
	for a := gf.ActionFire; a < gf.ActionEndTurn; a++ {
		if mask[a] == 0 {
			continue
		}
		c := &h.views[1]
		c.CopyFrom(root)
		c.Play(a)
		consider(h.search(1), a)
	}
	return bestA
}

// search returns the best value reachable from h.views[depth].
func (h *refHeuristic) search(depth int) float64 {
	v := &h.views[depth]
	best := h.leafValue(v)
	if depth+1 >= len(h.views) {
		return best
	}
	for a := gf.ActionFire; a < gf.ActionDeflector+1; a++ {
		if a >= gf.ActionMove && a < gf.ActionUseWeapon {
			continue // moves only as the first command
		}
		if !v.Legal(a) {
			continue
		}
		c := &h.views[depth+1]
		c.CopyFrom(v)
		c.Play(a)
		best = max(best, h.search(depth+1))
	}
	return best
}

// Weights of the evaluation.
const (
	refLossValue      = 1e6
	refShipLostCost   = 6.0
	refFullCost       = 40.0
	refInvasionCost   = 1.0
	refAlienCost      = 0.05
	refUnderTopWeight = 0.6
	refLastShipFactor = 3.0
	refFillScale      = 3.0
)

// leafValue ends the command phase in a copy of v and scores the result.
func (h *refHeuristic) leafValue(v *search.View) float64 {
	l := &h.leaf
	l.CopyFrom(v)
	before := [gf.NumSeats]int{}
	for k := range before {
		before[k] = l.Invaders(k)
	}
	r := l.Approach()
	if r.NoShip {
		return -refLossValue
	}
	val := 0.0
	capN := l.InvaderCap()
	full := 0
	for k := 0; k < gf.NumSeats; k++ {
		n := before[k] + r.Invasions[k]
		if n >= capN {
			full++
		}
		for i := 1; i <= r.Invasions[k]; i++ {
			f := float64(min(before[k]+i, capN)) / float64(capN)
			val -= refInvasionCost * (1 + refFillScale*f*f)
		}
	}
	if full >= l.DistrictsToLose() {
		return -refLossValue + val
	}
	val -= refFullCost * float64(full-l.Invaded())
	lostCost := refShipLostCost
	if l.ShipyardLeft() == 0 {
		lostCost *= refLastShipFactor
	}
	val -= lostCost * float64(r.ShipsLost)
	val -= h.threat(l, before, r.Invasions, full)
	return val
}

// refTurnWeight is the threat of an alien by the approaches left before it
// invades.
var refTurnWeight = [8]float64{0, 1.0, 0.55, 0.35, 0.22, 0.15, 0.1, 0.08}

// threat weighs the aliens left on the board.
func (h *refHeuristic) threat(l *search.View, before [gf.NumSeats]int, inv [gf.NumSeats]int, full int) float64 {
	capN := l.InvaderCap()
	var fill [gf.NumSeats]float64
	for k := 0; k < gf.NumSeats; k++ {
		n := min(before[k]+inv[k], capN)
		f := float64(n) / float64(capN)
		fill[k] = 1 + refFillScale*f*f
		if n >= capN-1 && full+1 >= l.DistrictsToLose() {
			fill[k] += 4
		}
		if n >= capN {
			fill[k] = 0.5 // spills over
		}
	}
	t := 0.0
	for c := 0; c < gf.Cells; c++ {
		ht := l.Height(c)
		if ht == 0 {
			continue
		}
		for i := 0; i < ht; i++ {
			typ, dir := l.Alien(c, i)
			t += refAlienCost
			n := int(h.exit[c][dir])
			if n == 0 {
				continue
			}
			sp := gf.AlienSpeed(typ)
			turns := (n + sp - 1) / sp
			w := refTurnWeight[min(turns, len(refTurnWeight)-1)] * fill[gf.FacedSeat(dir)]
			if i < ht-1 {
				w *= refUnderTopWeight
			}
			t += w
		}
	}
	return t
}

// String describes the loadout (for logs).
func (h *refHeuristic) String() string {
	return "heuristic(weapon=" + gf.WeaponNames()[h.weapon] + ",bonus=" + strconv.Itoa(h.bonusPref[0]) + ")"
}

// TestHeuristicSameAsReference plays seeded games in which the current
// heuristic and the reference (the heuristic before its search was made
// cheaper) see the same observations and masks at every decision: both
// must choose the same action every time, and give every action the same
// value (ActionValues, compared bit for bit). Their tie-breaks draw from the
// same seeded generator, so one differing value or one extra draw would
// show as a differing choice later on. The games cover v1 and v2, the
// three missions and the ace variants, two to four players, and the three
// weapons and engines.
func TestHeuristicSameAsReference(t *testing.T) {
	games := 12
	if testing.Short() {
		games = 3
	}
	type variant struct {
		id     string
		params map[string]any
		opts   agents.Options
	}
	var variants []variant
	for _, id := range []string{gf.ID, gf.IDv1} {
		for _, players := range []int{4, 3, 2} {
			for _, m := range []string{"rookie", "expert", "ace"} {
				variants = append(variants, variant{id, map[string]any{"players": players, "mission": m}, nil})
			}
		}
	}
	variants = append(variants,
		variant{gf.ID, map[string]any{"mission": "ace", "invader_spaces": 6, "backup_ships": 0, "win_on": "last_card"}, nil},
		variant{gf.ID, map[string]any{"spawn_deck": 25, "districts_to_lose": 4, "max_turns": 40}, nil},
		variant{gf.ID, map[string]any{"mission": "expert"}, agents.Options{"weapon": "laser-beam", "engine": "warp-drive"}},
		variant{gf.ID, map[string]any{"mission": "ace", "players": 2}, agents.Options{"weapon": "spread-shot", "engine": "thrusters", "bonus": "move"}},
		variant{gf.IDv1, map[string]any{"mission": "expert"}, agents.Options{"weapon": "laser-beam", "bonus": "special"}},
	)
	total, commands := 0, 0
	var scored, inherited, local uint64 // leaves, by how the search scored them
	for _, vr := range variants {
		e, err := env.Make(vr.id, vr.params)
		if err != nil {
			t.Fatal(err)
		}
		a, err := agents.New(agents.Heuristic, e.Spec(), vr.opts)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := newRefHeuristic(e.Spec(), vr.opts)
		if err != nil {
			t.Fatal(err)
		}
		h := a.(*galaxyfighters.Heuristic)
		obs := make([]uint8, e.Spec().ObsSize())
		gotQ, wantQ := make([]float32, gf.NumActions), make([]float32, gf.NumActions)
		for i := 0; i < games; i++ {
			es, as := datasets.EpisodeSeeds(0, int64(i))
			e.Reset(es)
			a.Reset(as)
			ref.Reset(as)
			for step := 0; !e.Done(); step++ {
				p := e.CurrentPlayer()
				if err := e.Observe(p, obs); err != nil {
					t.Fatal(err)
				}
				mask := e.Mask()
				// ActionValues is Act that also reports each action's value.
				want := ref.ActionValues(obs, mask, wantQ)
				got := h.ActionValues(obs, mask, gotQ)
				total++
				for x := range mask {
					if math.Float32bits(gotQ[x]) != math.Float32bits(wantQ[x]) {
						t.Fatalf("%s %v %v game %d step %d: value of action %d %v, the reference's %v", vr.id, vr.params, vr.opts, i, step, x, gotQ[x], wantQ[x])
					}
				}
				if obs[gf.OffPhase+gf.PhaseCommand] != 0 {
					commands++
				}
				if got != want {
					t.Fatalf("%s %v %v game %d step %d: heuristic chose %d, the reference %d", vr.id, vr.params, vr.opts, i, step, got, want)
				}
				if _, err := e.Step(got); err != nil {
					t.Fatal(err)
				}
			}
		}
		s, i, l := galaxyfighters.LeafCounts(h)
		scored, inherited, local = scored+s, inherited+i, local+l
	}
	t.Logf("%d decisions (%d in the command phase) identical over %d variants; leaves: %d scored with their approach phase, %d inherited, %d on their parent's approach",
		total, commands, len(variants), scored, inherited, local)
	if scored == 0 || inherited == 0 || local == 0 {
		t.Errorf("the search's shortcuts are not all compared: %d leaves inherited, %d on their parent's approach", inherited, local)
	}
	if !testing.Short() && commands < 5000 {
		t.Errorf("only %d command decisions compared, want at least 5000", commands)
	}
}
