package galaxyfighters

// Exports for searches that live outside the rules package (the
// heuristic's, agents/galaxyfighters/internal/search): the board geometry,
// the alien codes and the drone's placement order, each the rules' own
// (the functions below are the ones the rules call), so that a search's
// copy of the approach phase cannot drift from the game's; and the hooks
// that play a command and an approach phase on a position rebuilt from an
// observation (LoadObservation) and take commands back (MarkCommands,
// UndoCommands).

// MaxStack is the most aliens a stack holds (State.Stacks' second index).
const MaxStack = maxStack

// NumAlienTypes is the number of alien types (0 Yellow, 1 Blue, 2 Magenta:
// AlienSpeed gives their speeds 1, 2, 3).
const NumAlienTypes = numTypes

// AlienCode returns the one-byte code of an alien of type typ (0 to
// NumAlienTypes-1) facing global direction dir (North..West), as the
// stacks of State.Stacks hold it: (typ+1)<<2 | dir, so that code&3 is the
// facing, code&15 is at most 15 and never 0..3, and AlienKind(code) is
// typ*4+dir. The encoding is stable.
func AlienCode(typ, dir int) uint8 { return makeAlien(typ, dir) }

// AlienType returns the type (0 to NumAlienTypes-1) of an alien code.
func AlienType(code uint8) int { return alienType(code) }

// AlienDir returns the global facing (North..West) of an alien code.
func AlienDir(code uint8) int { return alienDir(code) }

// AlienKind returns type*4 + global facing (0-11) of an alien code.
func AlienKind(code uint8) int { return int(code&15) - 4 }

// Step returns the global neighbour of a global cell (0 to Cells-1) in
// global direction d (North..West): the cell and ok true when it is one of
// the 85 board spaces; out true (next -1) when the step leaves the 11x11
// grid (an alien flying so invades), else ok false for a corner space (an
// alien flying there drifts away). It is the approach phase's own step.
func Step(cell, d int) (next int, ok, out bool) { return step(cell, d) }

// Neighbour returns the global cell of seat's atmosphere next to global
// cell in seat's local direction m (0-7: n, ne, e, se, s, sw, w, nw, n
// toward the centre of the board), or -1 when that space lies outside the
// atmosphere.
func Neighbour(seat, cell, m int) int { return neighbour(seat, cell, m) }

// DronePref returns the local directions (Neighbour's m) in the order a
// Gladius's drone takes a space beside its ship: w, e, s, sw, se, n, nw,
// ne. A new Gladius (a replacement ship) places its drone on the first
// such space that is empty and holds no ship or tile, else on the first
// that holds no ship or tile, whose aliens are cleared.
func DronePref() [8]int { return dronePref }

// CommandLegal reports whether command action a (ActionFire to
// ActionEndTurn-1) is legal for the acting ship: the phase is the command
// phase, the symbols are there and the command has an effect.
func (s *State) CommandLegal(a int) bool { return s.phase == PhaseCommand && s.commandLegal(a) }

// Command plays command action a (ActionFire to ActionEndTurn-1) for the
// acting ship and counts it as used, without ending the command phase as
// Apply does once the symbols run out; the caller checks CommandLegal.
// A command removes aliens from the tops of stacks, moves and equips the
// acting ship and spends symbols: it never writes a stack's contents, so
// MarkCommands saves all it changes.
func (s *State) Command(a int) {
	s.command(a)
	s.used++
}

// ApproachResult is what one approach phase did (State.Approach).
type ApproachResult struct {
	Invasions [NumSeats]int // aliens that invaded each district (before spill-over)
	Destroyed int           // aliens destroyed (SDS tiles, drones)
	Crashes   int           // aliens that flew into ships
	ShipsLost int           // ships destroyed
	NoShip    bool          // a destroyed ship could not be replaced
}

// Approach plays the acting seat's approach phase, the symbols left lost,
// and reports what it did; the spill-overs and the next turn are not
// played (Apply's ActionEndTurn plays all three).
func (s *State) Approach() ApproachResult {
	inv, spill := s.invaders, s.spill
	d, cr, sl := s.destroyed, s.crashes, s.shipsLost
	s.pool = [numFaces]int8{}
	s.approach()
	var r ApproachResult
	for k := 0; k < NumSeats; k++ {
		r.Invasions[k] = int(s.invaders[k]-inv[k]) + int(s.spill[k]-spill[k])
	}
	r.Destroyed = int(s.destroyed - d)
	r.Crashes = int(s.crashes - cr)
	r.ShipsLost = int(s.shipsLost - sl)
	r.NoShip = s.noShip
	return r
}

// CommandMark is what Command can change in a State: MarkCommands saves
// it, UndoCommands restores it. Its zero value is ready for MarkCommands.
type CommandMark struct {
	h         [Cells]uint8
	ships     [NumSeats]ship
	pool      [numFaces]int8
	used      int8
	aliens    int16
	destroyed int16
}

// MarkCommands saves into m what Command can change in s.
func (s *State) MarkCommands(m *CommandMark) {
	// One assignment each: a tuple assignment copies through temporaries.
	m.h = s.h
	m.ships = s.ships
	m.pool, m.used, m.aliens, m.destroyed = s.pool, s.used, s.aliens, s.destroyed
}

// UndoCommands restores s to the position of MarkCommands(m), which must
// have been taken on s with nothing but Command called since.
func (s *State) UndoCommands(m *CommandMark) {
	s.h = m.h
	s.ships = m.ships
	s.pool, s.used, s.aliens, s.destroyed = m.pool, m.used, m.aliens, m.destroyed
}

// Heights returns the stack heights m saved (State.Heights when
// MarkCommands was called); the pointer is valid as long as m does not
// move.
func (m *CommandMark) Heights() *[Cells]uint8 { return &m.h }

// Stacks returns s's stacks for reading: Stacks()[cell][:Heights()[cell]]
// are the alien codes (AlienCode) on global cell, bottom first. The
// pointer stays valid, and shows s's current position, as long as s does
// not move; writing through it breaks s.
func (s *State) Stacks() *[Cells][MaxStack]uint8 { return &s.st }

// Heights returns s's stack heights for reading (the number of aliens on
// every global cell, 0 off the board), as Stacks does.
func (s *State) Heights() *[Cells]uint8 { return &s.h }

// ShipTiles returns the global cells of seat's ship, its drone and its two
// Shielded Defense System tiles, each -1 when there is none (no drone: not
// a Gladius, or no space for it; an SDS tile not placed).
func (s *State) ShipTiles(seat int) (ship, drone, sds0, sds1 int) {
	x := &s.ships[seat]
	return int(x.cell), int(x.drone), int(x.sds[0]), int(x.sds[1])
}

// Model returns seat's ship model (AstroWing, Phalanx, Gladius).
func (s *State) Model(seat int) int { return int(s.ships[seat].model) }

// Engine returns seat's engine modification (Thrusters, Deflector,
// WarpDrive), or -1 before it is chosen.
func (s *State) Engine(seat int) int { return int(s.ships[seat].engine) }

// ShipyardModel returns the model (AstroWing, Phalanx, Gladius) of the
// i-th ship card of the shipyard, i from 0 to ShipyardLeft()-1: the
// approach phase draws the replacement for a destroyed ship from the end
// (i = ShipyardLeft()-1 first). A State loaded from an observation
// (LoadObservation) holds AstroWing for every card, the observation not
// showing the shipyard's order. Another i reads no card (a zero or a
// panic).
func (s *State) ShipyardModel(i int) int { return int(s.yard[i]) }

// InvaderCap returns the invader spaces beside each district.
func (s *State) InvaderCap() int { return s.cfg.invaderCap }

// DistrictsToLose returns the number of full districts that loses the
// game.
func (s *State) DistrictsToLose() int { return s.cfg.districtsToLose }
