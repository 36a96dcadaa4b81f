package galaxyfighters

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// Agent-facing helpers: a View rebuilds a playable position from one
// player's observation alone, so that an agent can try its commands and
// the approach phase that follows with the real rules, without ever seeing
// the hidden information (the spawn deck and shipyard orders, the order of
// the aliens under the top of a stack).
//
// A View uses a "virtual" frame: the observer's own frame is the global
// frame, and relative seat i (i places to the observer's left) is seat i.
// All the rules are invariant under this relabelling, so commands given in
// the acting seat's frame mean the same in the View as in the game.

// Command costs in Special symbols.
const (
	CostWeapon    = costWeapon
	CostMissile   = costMissile
	CostSDS       = costSDS
	CostDeflector = costDeflector
	CostWarp      = costWarp
)

// View is a position rebuilt from an observation. Its zero value is ready
// for Load; it holds no pointers besides its own config, so a View can be
// copied by assignment (CopyFrom) without allocating.
type View struct {
	s   State
	cfg config
	// The stacks of the last Load, for the next one (see Load): prev holds
	// that observation's stack bytes (the 12 top planes, the 12 count
	// planes and the height plane, plane p's bytes 8w..8w+7 in prev[p][w]),
	// loadH and loadAliens the heights and aliens it decoded; stacksOK
	// reports whether s.st still holds what it decoded (only the approach
	// phase writes s.st: View.Approach clears it).
	prev       [stackPlanes][16]uint64
	loadH      [Cells]uint8
	loadAliens int16
	stacksOK   bool
}

// stackPlanes is the number of observation planes that describe the
// stacks (OffTop to OffHeight included).
const stackPlanes = 25

// ViewResult summarises what an approach phase did in a View.
type ViewResult struct {
	Invasions [NumSeats]int // aliens that invaded each district (before spill-over)
	Destroyed int           // aliens destroyed (SDS tiles, drones)
	Crashes   int           // aliens that flew into ships
	ShipsLost int           // ships destroyed
	NoShip    bool          // a destroyed ship could not be replaced
}

// CopyFrom makes v a copy of o.
func (v *View) CopyFrom(o *View) {
	*v = *o
	v.s.cfg = &v.cfg
}

// Load rebuilds the position from obs (ObsSize bytes). The aliens under
// the top of a stack, whose order the observation does not show, are laid
// bottom first by type and facing.
//
// Only the stacks whose observation bytes differ from the last Load's
// are decoded again (an agent's consecutive decisions in one turn share
// most stacks): the others keep what that Load decoded, the same as
// decoding them again, Play and Undo never writing a stack's contents.
func (v *View) Load(obs []uint8) {
	obs = obs[:ObsSize]
	v.cfg = config{players: NumSeats, districtsToLose: int(obs[OffToLose]), invaderCap: int(obs[OffInvaderCap]), winOnClear: obs[OffWinOnClear] == 1}
	s := &v.s
	// Every field as State{cfg: &v.cfg, spillSrc: -1, card: -1, started:
	// true} has it, but the stacks (h, st), set below.
	s.cfg = &v.cfg
	s.ships, s.invaders, s.spill, s.spillSrc = [NumSeats]ship{}, [NumSeats]int8{}, [NumSeats]uint8{}, -1
	s.phase, s.cur, s.started, s.turns3, s.turns = 0, 0, true, 0, 0
	s.pool, s.used, s.card = [numFaces]int8{}, 0, -1
	s.deck, s.deckN, s.yard, s.yardN = [maxDeckSize]int8{}, 0, [maxBackup]int8{}, 0
	s.destroyed, s.crashes, s.invasions, s.drifted = 0, 0, 0, 0
	s.shipsLost, s.noShip, s.outcome, s.rng = 0, false, 0, rand.PCG{}
	v.loadStacks(obs)
	s.decodeView(obs) // the observer's frame is the View's global frame
}

// loadStacks sets s.h, s.st and s.aliens as decodeView's loop over the
// stacks does from a zero State, decoding only the cells whose bytes in
// the stack planes differ from the last Load's (all of them when the
// View's stacks were changed since).
func (v *View) loadStacks(obs []uint8) {
	s := &v.s
	obs = obs[:ObsSize]
	// diff[w] has byte j non-zero when the bytes of cell 8w+j differ in
	// some plane (the bytes read past cell 120 are masked off below).
	var diff [16]uint64
	for p := range v.prev {
		o := obs[p*plane : p*plane+16*8]
		pw := &v.prev[p]
		for w := range pw {
			x := binary.LittleEndian.Uint64(o[w*8:])
			diff[w] |= x ^ pw[w]
			pw[w] = x
		}
	}
	diff[15] &= 0xff // cell 120 only
	if !v.stacksOK {
		for w := range diff {
			diff[w] = ^uint64(0)
		}
		diff[15] = 0xff
		v.loadH, v.loadAliens = [Cells]uint8{}, 0
		v.stacksOK = true
	}
	s.h = v.loadH
	s.aliens = v.loadAliens
	for w, x := range diff {
		// One bit per byte: bit 8j set when byte j of x is not zero.
		x |= x >> 4
		x |= x >> 2
		x |= x >> 1
		for m := x & 0x0101010101010101; m != 0; m &= m - 1 {
			c := w<<3 | bits.TrailingZeros64(m)>>3
			s.aliens -= int16(s.h[c])
			s.h[c] = 0
			s.st[c] = [maxStack]uint8{}
			if onBoard[c] {
				s.decodeStack(0, c, c, obs, nil)
			}
		}
	}
	v.loadH, v.loadAliens = s.h, s.aliens
}

// Seat returns the acting seat (relative to the observer).
func (v *View) Seat() int { return int(v.s.cur) }

// SpillSeat returns the full district whose spill-over is being decided
// (relative), or -1.
func (v *View) SpillSeat() int { return int(v.s.spillSrc) }

// Phase returns the phase.
func (v *View) Phase() Phase { return v.s.phase }

// Model returns seat's ship model.
func (v *View) Model(seat int) int { return int(v.s.ships[seat].model) }

// ShipCell returns the cell of seat's ship in the View's frame.
func (v *View) ShipCell(seat int) int { return int(v.s.ships[seat].cell) }

// Engine returns seat's engine (Thrusters, Deflector, WarpDrive), or -1
// before it is chosen.
func (v *View) Engine(seat int) int { return int(v.s.ships[seat].engine) }

// Shielded reports whether seat's ship is shielded.
func (v *View) Shielded(seat int) bool { return v.s.ships[seat].shielded }

// Invaders returns the invaders beside seat's district; InvaderCap the
// spaces per district; DistrictsToLose the mission's limit; Invaded the
// districts full.
func (v *View) Invaders(seat int) int { return int(v.s.invaders[seat]) }
func (v *View) InvaderCap() int       { return v.cfg.invaderCap }
func (v *View) DistrictsToLose() int  { return v.cfg.districtsToLose }
func (v *View) Invaded() int          { return v.s.DistrictsInvaded() }
func (v *View) SpawnLeft() int        { return int(v.s.deckN) }
func (v *View) ShipyardLeft() int     { return int(v.s.yardN) }
func (v *View) Aliens() int           { return int(v.s.aliens) }
func (v *View) Height(cell int) int   { return int(v.s.h[cell]) }
func (v *View) Specials() int         { return v.s.specials() }
func (v *View) Pool() [numFaces]int8  { return v.s.pool }
func (v *View) Used() int             { return int(v.s.used) }
func (v *View) Legal(action int) bool { return v.s.phase == PhaseCommand && v.s.commandLegal(action) }
func (v *View) Alien(cell, i int) (typ, dir int) {
	a := v.s.st[cell][i]
	return alienType(a), alienDir(a)
}

// Play applies command action (ActionFire..ActionWarp-range) for the
// acting seat without ending the command phase; the caller checks Legal.
func (v *View) Play(action int) {
	v.s.command(action)
	v.s.used++
}

// Approach plays the acting seat's approach phase and reports what
// happened; spill-overs and the next turn are not played.
func (v *View) Approach() ViewResult {
	s := &v.s
	inv := s.invaders
	spill := s.spill
	d, cr, sl := s.destroyed, s.crashes, s.shipsLost
	s.pool = [numFaces]int8{}
	v.stacksOK = false // the approach moves aliens in s.st
	s.approach()
	var r ViewResult
	for k := 0; k < NumSeats; k++ {
		r.Invasions[k] = int(s.invaders[k]-inv[k]) + int(s.spill[k]-spill[k])
	}
	r.Destroyed = int(s.destroyed - d)
	r.Crashes = int(s.crashes - cr)
	r.ShipsLost = int(s.shipsLost - sl)
	r.NoShip = s.noShip
	return r
}

// ApproachAs plays the approach phase of another seat (as if it ended its
// command phase at once), for looking further ahead.
func (v *View) ApproachAs(seat int) ViewResult {
	cur := v.s.cur
	v.s.cur = int8(seat)
	r := v.Approach()
	v.s.cur = cur
	return r
}
