package galaxyfighters

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
