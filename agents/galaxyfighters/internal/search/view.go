package search

import gf "github.com/galaxygym/galaxygym/env/galaxyfighters"

// View is a position rebuilt from one player's observation alone, so that
// the heuristic can try its commands and the approach phase that follows
// with the real rules, without ever seeing the hidden information (the
// spawn deck and shipyard orders, the order of the aliens under the top of
// a stack): a gf.State loaded by gf.State.LoadObservation, played by its
// Command and Approach, its commands taken back by MarkCommands and
// UndoCommands.
//
// A View uses a "virtual" frame: the observer's own frame is the global
// frame, and relative seat i (i places to the observer's left) is seat i.
// All the rules are invariant under this relabelling, so commands given in
// the acting seat's frame mean the same in the View as in the game.
//
// Its zero value is ready for Load. A View can be copied by assignment
// (CopyFrom) without allocating: copies share their parameters, which
// never change.
type View struct{ s gf.State }

// ViewMark is what View.Play can change in a View; View.Mark saves it and
// View.Undo restores it.
type ViewMark = gf.CommandMark

// ViewResult summarises what an approach phase did in a View.
type ViewResult = gf.ApproachResult

// CopyFrom makes v a copy of o.
func (v *View) CopyFrom(o *View) { *v = *o }

// Load rebuilds the position from obs (gf.ObsSize bytes). The aliens under
// the top of a stack, whose order the observation does not show, are laid
// bottom first by type and facing; every ship card of the shipyard is an
// AstroWing (ShipyardModel).
func (v *View) Load(obs []uint8) { v.s.LoadObservation(obs) }

// Seat returns the acting seat (relative to the observer).
func (v *View) Seat() int { return v.s.Seat() }

// Model returns seat's ship model (gf.AstroWing, gf.Phalanx, gf.Gladius).
func (v *View) Model(seat int) int { return v.s.Model(seat) }

// ShipCell returns the cell of seat's ship in the View's frame.
func (v *View) ShipCell(seat int) int { return v.s.ShipCell(seat) }

// Engine returns seat's engine (gf.Thrusters, gf.Deflector,
// gf.WarpDrive), or -1 before it is chosen.
func (v *View) Engine(seat int) int { return v.s.Engine(seat) }

// Shielded reports whether seat's ship is shielded.
func (v *View) Shielded(seat int) bool { return v.s.Shielded(seat) }

// SDSCell returns the cell (0-120) where gf.ActionSDS would place the
// acting ship's Shielded Defense System tile (the space ahead of it), or
// -1 when that space is off its atmosphere.
func (v *View) SDSCell() int {
	seat := v.s.Seat()
	return gf.Neighbour(seat, v.s.ShipCell(seat), 0)
}

// Invaders returns the invaders beside seat's district.
func (v *View) Invaders(seat int) int { return v.s.Invaders(seat) }

// InvaderCap returns the invader spaces beside each district.
func (v *View) InvaderCap() int { return v.s.InvaderCap() }

// DistrictsToLose returns the number of full districts that loses the
// mission.
func (v *View) DistrictsToLose() int { return v.s.DistrictsToLose() }

// Invaded returns the number of districts full.
func (v *View) Invaded() int { return v.s.DistrictsInvaded() }

// ShipyardLeft returns the ship cards left in the shipyard.
func (v *View) ShipyardLeft() int { return v.s.ShipyardLeft() }

// Height returns the number of aliens on cell (0-120; 0 off the board).
func (v *View) Height(cell int) int { return int(v.s.Heights()[cell]) }

// Alien returns the type (0 to gf.NumAlienTypes-1) and global facing
// (gf.North..gf.West) of the i-th alien of cell's stack, bottom first, i
// from 0 to Height(cell)-1.
func (v *View) Alien(cell, i int) (typ, dir int) {
	a := v.s.Stacks()[cell][i]
	return gf.AlienType(a), gf.AlienDir(a)
}

// Legal reports whether command action (gf.ActionFire to
// gf.ActionEndTurn-1) is legal for the acting seat.
func (v *View) Legal(action int) bool { return v.s.CommandLegal(action) }

// Play applies command action (gf.ActionFire to gf.ActionEndTurn-1) for
// the acting seat without ending the command phase; the caller checks
// Legal.
func (v *View) Play(action int) { v.s.Command(action) }

// Approach plays the acting seat's approach phase and reports what
// happened; spill-overs and the next turn are not played.
func (v *View) Approach() ViewResult { return v.s.Approach() }

// Mark saves into m what Play can change in v.
func (v *View) Mark(m *ViewMark) { v.s.MarkCommands(m) }

// Undo restores v to the position of Mark(m), which must have been taken
// on v with nothing but Play called since.
func (v *View) Undo(m *ViewMark) { v.s.UndoCommands(m) }

// Stacks returns the View's stacks for reading: Stacks()[cell][:Height(cell)]
// are the alien codes (gf.AlienCode) on global cell, bottom first. The
// pointer stays valid, and shows the View's current position, as long as
// v does not move; writing through it breaks the View.
func (v *View) Stacks() *[gf.Cells][gf.MaxStack]uint8 { return v.s.Stacks() }

// Heights returns the View's stack heights for reading (Height(cell) for
// every cell, 0 off the board), as Stacks does.
func (v *View) Heights() *[gf.Cells]uint8 { return v.s.Heights() }

// ShipTiles returns the cells of seat's ship, its drone and its two
// Shielded Defense System tiles, each -1 when there is none (no drone: not
// a Gladius, or no space for it; an SDS tile not placed).
func (v *View) ShipTiles(seat int) (ship, drone, sds0, sds1 int) { return v.s.ShipTiles(seat) }

// ShipyardModel returns the model of the View's i-th ship card, i from 0
// to ShipyardLeft()-1, as gf.State.ShipyardModel does: every card of a
// loaded View is an AstroWing, the observation not showing the shipyard's
// order.
func (v *View) ShipyardModel(i int) int { return v.s.ShipyardModel(i) }
