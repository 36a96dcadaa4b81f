package galaxyfighters

import (
	"bytes"
	"encoding/binary"
	"math/bits"
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
}

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
	v.cfg = o.cfg
	v.s = o.s
	v.s.cfg = &v.cfg
}

// Load rebuilds the position from obs (ObsSize bytes). The aliens under
// the top of a stack, whose order the observation does not show, are laid
// bottom first by type and facing.
func (v *View) Load(obs []uint8) {
	obs = obs[:ObsSize]
	v.cfg = config{players: NumSeats, districtsToLose: int(obs[OffToLose]), invaderCap: int(obs[OffInvaderCap]), winOnClear: obs[OffWinOnClear] == 1}
	s := &v.s
	*s = State{cfg: &v.cfg, spillSrc: -1, card: -1, started: true}
	s.decodeView(obs) // the observer's frame is the View's global frame
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

// SDSCell returns the cell (0-120) where ActionSDS would place the acting
// ship's Shielded Defense System tile (the space ahead of it), or -1 when
// that space is off its atmosphere.
func (v *View) SDSCell() int {
	seat := int(v.s.cur)
	return neighbour(seat, int(v.s.ships[seat].cell), 0)
}

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

// ViewMark is what View.Play can change in a View; View.Mark saves it and
// View.Undo restores it.
type ViewMark struct {
	h         [Cells]uint8
	ships     [NumSeats]ship
	pool      [numFaces]int8
	used      int8
	aliens    int16
	destroyed int16
}

// Mark saves into m what Play can change in v.
func (v *View) Mark(m *ViewMark) {
	s := &v.s
	// One assignment each: a tuple assignment copies through temporaries.
	m.h = s.h
	m.ships = s.ships
	m.pool, m.used, m.aliens, m.destroyed = s.pool, s.used, s.aliens, s.destroyed
}

// Undo restores v to the position of Mark(m), which must have been taken
// on v with nothing but Play called since.
func (v *View) Undo(m *ViewMark) {
	s := &v.s
	s.h = m.h
	s.ships = m.ships
	s.pool, s.used, s.aliens, s.destroyed = m.pool, m.used, m.aliens, m.destroyed
}

// atmosphereCells[seat] lists the 15 cells of seat's atmosphere, in
// increasing order.
var atmosphereCells = func() (a [NumSeats][15]uint8) {
	for k := 0; k < NumSeats; k++ {
		n := 0
		for g := 0; g < Cells; g++ {
			if InAtmosphere(k, g) {
				a[k][n] = uint8(g)
				n++
			}
		}
	}
	return a
}()

// decodeViewStack is decodeStack(0, g, g, obs, nil) for a stack (height
// not 0): the aliens under the top bottom first by kind, the top last,
// written straight into the stack; an invalid stack is left empty, as
// decodeStack leaves it.
func (s *State) decodeViewStack(cell uint8, obs *[ObsSize]uint8) {
	g := int(cell) // at most 255: the observation's indices need no check
	h := int(obs[OffHeight+g])
	if h > maxStack {
		return
	}
	// The top: a valid observation sets one of the twelve bytes to 1, the
	// others 0, and its index is then their weighted sum. All twelve are
	// read at once, without a branch on each (BenchmarkViewLoad: about
	// 580 -> 480 ns a Load, the reads overlapping); anything else takes the
	// first byte set, as decodeStack does.
	t := func(k int) int { return int(obs[OffTop+k*plane+g]) }
	top := t(1) + 2*t(2) + 3*t(3) + 4*t(4) + 5*t(5) + 6*t(6) + 7*t(7) + 8*t(8) + 9*t(9) + 10*t(10) + 11*t(11)
	if t(0)+t(1)+t(2)+t(3)+t(4)+t(5)+t(6)+t(7)+t(8)+t(9)+t(10)+t(11) != 1 {
		top = -1
		for k := 0; k < 12; k++ {
			if obs[OffTop+k*plane+g] != 0 {
				top = k
				break
			}
		}
		if top < 0 {
			return
		}
	}
	st := s.st[g][:h] // h <= maxStack
	n, under := 0, len(st)-1
	// Kind k's code is makeAlien(k/4, k%4) = k+4 (the observer's frame is
	// the global one).
	for k := 0; k < 12 && n < under; k++ {
		cnt := int(obs[OffCount+k*plane+g]) - boolInt(k == top)
		for ; cnt > 0 && n < under; cnt-- {
			st[n] = uint8(k + 4)
			n++
		}
	}
	if n < under { // the first saturated count takes the rest
		for k := 0; k < 12; k++ {
			if obs[OffCount+k*plane+g] >= obsMaxCount {
				for ; n < under; n++ {
					st[n] = uint8(k + 4)
				}
				break
			}
		}
		if n < under {
			clear(st) // the counts show too few aliens
			return
		}
	}
	st[n] = uint8(top + 4)
	s.h[g] = uint8(h)
	s.aliens += int16(h)
}

// decodeView is decodeObs(0, obs, nil) for a valid observation (View.Load
// ignores decodeObs's errors), visiting only the spaces that matter: the
// board's stacks, each ship's plane from its end, the drones and SDS tiles
// of each ship's own atmosphere.
func (s *State) decodeView(obs []uint8) {
	o := (*[ObsSize]uint8)(obs)
	// The height plane eight cells a word: only the stacks are decoded (a
	// cell off the board has height 0).
	const lo, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	for i := 0; i <= Cells-8; i += 8 {
		x := binary.LittleEndian.Uint64(o[OffHeight+i:])
		for m := ((x & lo) + lo | x) & hi; m != 0; m &= m - 1 { // the bytes that are not 0
			s.decodeViewStack(uint8(i+bits.TrailingZeros64(m)/8), o)
		}
	}
	if o[OffHeight+Cells-1] != 0 {
		s.decodeViewStack(Cells-1, o)
	}
	for k := 0; k < NumSeats; k++ {
		b := obs[OffSeats+k*seatBytes : OffSeats+(k+1)*seatBytes]
		sh := &s.ships[k]
		*sh = ship{weapon: -1, engine: -1, bonus: -1, cell: -1, drone: -1, sds: [2]int8{-1, -1}}
		sh.model = oneHot(b[SeatModel:SeatModel+numModels], 0)
		sh.weapon = oneHot(b[SeatWeapon:SeatWeapon+numWeapons], -1)
		sh.engine = oneHot(b[SeatEngine:SeatEngine+numEngines], -1)
		sh.bonus = oneHot(b[SeatBonus:SeatBonus+numBonusTiles], -1)
		sh.shielded = b[SeatShielded] != 0
		if b[SeatActing] != 0 {
			s.cur = int8(k)
		}
		s.invaders[k] = int8(b[SeatInvaders])
		// A valid observation shows each ship once, as a 1.
		if l := bytes.IndexByte(obs[OffShips+k*plane:OffShips+(k+1)*plane], 1); l >= 0 {
			sh.cell = int8(l)
		}
		switch sh.model {
		case Gladius:
			for _, g := range &atmosphereCells[k] {
				if obs[OffDrones+int(g)] != 0 {
					sh.drone = int8(g)
				}
			}
		case Phalanx:
			for _, g := range &atmosphereCells[k] {
				if obs[OffSDS+int(g)] != 0 {
					if sh.sds[0] < 0 {
						sh.sds[0] = int8(g)
					} else {
						sh.sds[1] = int8(g)
					}
				}
			}
		}
	}
	for f := 0; f < numFaces; f++ {
		s.pool[f] = int8(obs[OffPool+f])
	}
	s.used = int8(obs[OffUsed])
	s.phase = PhaseOver
	for p := PhaseWeapon; p < numPhases; p++ {
		if obs[OffPhase+int(p)] != 0 {
			s.phase = p
		}
	}
	for i := 0; i < NumSeats; i++ {
		if obs[OffSpillSeat+i] != 0 {
			s.spillSrc = int8(i)
		}
	}
	s.deckN, s.yardN = int8(min(obs[OffDeckLeft], maxDeckSize)), int8(min(obs[OffYardLeft], maxBackup))
}

// Stacks returns the View's stacks for reading: Stacks()[cell][:Height(cell)]
// are the alien codes (AlienCode) on global cell, bottom first. The
// pointer stays valid, and shows the View's current position, as long as
// v does not move; writing through it breaks the View.
func (v *View) Stacks() *[Cells][MaxStack]uint8 { return &v.s.st }

// Heights returns the View's stack heights for reading (Height(cell) for
// every cell, 0 off the board), as Stacks does.
func (v *View) Heights() *[Cells]uint8 { return &v.s.h }

// ShipTiles returns the cells of seat's ship, its drone and its two
// Shielded Defense System tiles, each -1 when there is none (no drone: not
// a Gladius, or no space for it; an SDS tile not placed).
func (v *View) ShipTiles(seat int) (ship, drone, sds0, sds1 int) {
	x := &v.s.ships[seat]
	return int(x.cell), int(x.drone), int(x.sds[0]), int(x.sds[1])
}

// ShipyardModel returns the model (AstroWing, Phalanx, Gladius) of the
// View's i-th ship card, i from 0 to ShipyardLeft()-1: the approach phase
// draws the replacement for a destroyed ship from the end (i =
// ShipyardLeft()-1 first). The observation does not show the shipyard's
// order, so a loaded View holds AstroWing for every card. Another i reads
// no card (a zero or a panic).
func (v *View) ShipyardModel(i int) int { return int(v.s.yard[i]) }

// Heights returns the stack heights m saved (View.Heights when Mark was
// called); the pointer is valid as long as m does not move.
func (m *ViewMark) Heights() *[Cells]uint8 { return &m.h }
