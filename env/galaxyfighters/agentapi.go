package galaxyfighters

// Agent-facing exports for searches that live outside the rules package
// (agents/galaxyfighters/internal/search): the board geometry, the alien
// codes and the drone's placement order, each the rules' own (the
// functions below are the ones the rules call), so that an agent's copy of
// the approach phase cannot drift from the game's.

// MaxStack is the most aliens a stack holds (View.Stacks' second index).
const MaxStack = maxStack

// NumAlienTypes is the number of alien types (0 Yellow, 1 Blue, 2 Magenta:
// AlienSpeed gives their speeds 1, 2, 3).
const NumAlienTypes = numTypes

// AlienCode returns the one-byte code of an alien of type typ (0 to
// NumAlienTypes-1) facing global direction dir (North..West), as the
// stacks of View.Stacks hold it: (typ+1)<<2 | dir, so that code&3 is the
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
