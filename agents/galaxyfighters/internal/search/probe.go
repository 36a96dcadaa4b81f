// Package search holds the Galaxy Fighters heuristic's search helpers: a
// [View], a position rebuilt from one observation and played with the
// real rules, and a [Probe], which plays the approach phase of a View's
// positions without copying the board. They read the rules only through
// the rules package's exported API (gf.State.LoadObservation, Command,
// Approach, MarkCommands/UndoCommands, the stacks and ships, the board
// geometry, the alien codes), so that the rules package never sees an
// agent.
package search

import (
	"encoding/binary"
	"math/bits"

	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// Cheap search over a View: an agent that tries many short command
// sequences from one observation, each followed by the approach phase,
// needs neither a board copy per sequence nor one per approach.
//
//   - Commands (View.Play) only remove aliens, move and equip ships and
//     spend symbols: they never write a stack's contents. A ViewMark saves
//     the little they change (the stack heights and the ships, symbols and
//     counters), so a search plays a command on one View and takes it back
//     with View.Undo instead of copying the board.
//   - A Probe plays the approach phase of a View's position without
//     changing it: the aliens that move land on an overlay of the stacks
//     (the stacks they leave are cut to height 0 there), only the stacks
//     holding an alien that faces the acting seat when the search began
//     are visited, and each alien's flight comes from a table (alienPath).
//     A ship destroyed on the way is replaced on the overlay as
//     State.crash does. The board after the approach is read through the
//     Probe (Height, Alien, Stack, Next); Diff tells where it first
//     differs from an earlier one (Save), for sums over the board that can
//     resume there.
//   - After a command that only takes aliens off, SameApproach tells
//     whether the approach phase is an earlier position's (Save) alien by
//     alien: that board, its stacks cut to the View's heights, is then the
//     board after it (ProbeBoard.StackAfter), and no approach is played.
//
// View.Load (gf.State.LoadObservation, in the rules package) decodes the
// observation, visiting only the stacks, each ship's plane and each
// ship's own atmosphere.

// Approach directions in a seat's scan order, and the neighbours of a
// cell: approachOrder[seat] lists the 85 board cells (global) in the order
// the approach phase visits them for seat (its zone 1 first, left to right
// in its view); nextCell[cell][d] is the neighbour in global direction d,
// or cellOut when the step leaves the 11x11 grid (an invasion) or
// cellCorner when it falls into a corner (the alien drifts away).
const (
	cellOut    = -1
	cellCorner = -2
	boardCells = 85
)

var approachOrder = func() (o [gf.NumSeats][boardCells]uint8) {
	for seat := 0; seat < gf.NumSeats; seat++ {
		n := 0
		for lr := gf.Side - 1; lr >= 0; lr-- {
			for lc := 0; lc < gf.Side; lc++ {
				if g := gf.Global(seat, lr*gf.Side+lc); gf.OnBoard(g/gf.Side, g%gf.Side) {
					o[seat][n] = uint8(g)
					n++
				}
			}
		}
	}
	return o
}()

var nextCell = func() (t [gf.Cells][4]int8) {
	for c := 0; c < gf.Cells; c++ {
		for d := 0; d < 4; d++ {
			n, ok, out := gf.Step(c, d)
			switch {
			case ok:
				t[c][d] = int8(n)
			case out:
				t[c][d] = cellOut
			default:
				t[c][d] = cellCorner
			}
		}
	}
	return t
}()

// alienPath[cell][code&15] is the flight of an alien (code: makeAlien)
// starting on cell: the board cells it enters, in order, then its fate
// (cellOut: it invades, cellCorner: it drifts away, else it lands on the
// last cell entered).
var alienPath = func() (t [gf.Cells][16]flight) {
	for c := 0; c < gf.Cells; c++ {
		for typ := 0; typ < gf.NumAlienTypes; typ++ {
			for d := 0; d < 4; d++ {
				f := &t[c][gf.AlienCode(typ, d)]
				x := c
				for i := 0; i < gf.AlienSpeed(typ); i++ {
					n := int(nextCell[x][d])
					if n < 0 {
						f.fate = int8(n)
						break
					}
					f.cells[f.n] = uint8(n)
					f.n++
					f.last = uint8(n)
					f.mask.add(n)
					x = n
				}
			}
		}
	}
	return t
}()

// flight is one entry of alienPath; mask holds its cells, last the last
// of them (where the alien lands when fate is 0). It is padded to 32
// bytes, so that an entry is found by a shift and never straddles two
// cache lines.
type flight struct {
	mask  cellSet
	cells [3]uint8
	n     uint8
	fate  int8
	last  uint8
	_     [10]uint8
}

// cellSet is a set of global cells.
type cellSet [2]uint64

func (m *cellSet) add(c int)      { m[c>>6] |= 1 << (c & 63) }
func (m *cellSet) has(c int) bool { return m[c>>6]&(1<<(c&63)) != 0 }

// Probe plays approach phases of one View's positions without changing
// the View (see the comment at the top of probe.go). Begin ties it to
// a View; from then on the View may change by Play and Undo only, until
// the next Begin. Approach plays the acting seat's approach phase of the
// View's current position; the board, invaders and shipyard after it are
// read through the Probe until the next Approach. Its zero value is ready
// for Begin; it does not allocate.
type Probe struct {
	v *View
	// occ holds the cells occupied at Begin; scan lists those of them with
	// an alien facing the View's acting seat, in the seat's approach order.
	// Play only removes aliens, so every later position of the View has its
	// aliens in occ, and its stacks that approach in scan.
	scan   [boardCells]scanCell
	scanN  int
	occ    cellSet
	begins uint64 // calls of Begin

	// The position after the last Approach: the stack on cell c is
	// st[c][:now.base[c]] with now.pushed[c][:now.pushN[c]] on top (now's
	// begin is not kept); cells holds every occupied cell (and maybe empty
	// ones).
	st       *[gf.Cells][gf.MaxStack]uint8
	h        *[gf.Cells]uint8 // the View's heights
	now      ProbeBoard
	cells    cellSet
	flown    cellSet // the cells of the flights of the aliens that flew
	invaders [gf.NumSeats]int8
	ships    [gf.NumSeats]ship // the ships once one crashed (ownShips), else the View's
	ownShips bool
	yardN    int8
	// What Play does not change, read at Begin: the acting seat, the
	// districts' spaces, invaders and ship cards, and the ships (the
	// acting seat's as it was then).
	cur        int
	invaderCap int
	invaders0  [gf.NumSeats]int8
	yardN0     int8
	ships0     [gf.NumSeats]ship
	// Where ships, Shielded Defense System tiles and drones lie.
	shipSet, sdsSet, droneSet cellSet
	blockSet                  cellSet // ships and SDS tiles
	// Those of the ships other than the acting seat's, which Play does not
	// change (it moves and equips the acting ship only).
	othersShip, othersSDS, othersDrone cellSet
	r                                  ViewResult
}

// scanCell is a cell of Probe.scan, cell<<56 | faces: faces (bits 1-32)
// has bit h set when the h-th alien of its stack (bottom first, counted
// from 1) faces the acting seat, so that a stack of h aliens frenzies
// when bit h is set (never when h is 0).
type scanCell uint64

// Begin ties p to v, whose position is the start of a search.
func (p *Probe) Begin(v *View) {
	p.v = v
	p.st, p.h = v.Stacks(), v.Heights()
	p.begins++
	p.scanN = 0
	p.occ = cellSet{}
	cur := v.Seat()
	p.cur, p.invaderCap, p.yardN0 = cur, v.InvaderCap(), int8(v.ShipyardLeft())
	p.othersShip, p.othersSDS, p.othersDrone = cellSet{}, cellSet{}, cellSet{}
	for k := 0; k < gf.NumSeats; k++ {
		p.invaders0[k] = int8(v.Invaders(k))
		p.ships0[k] = viewShip(v, k)
		if k != cur {
			p.othersShip, p.othersSDS, p.othersDrone = tilesOf(&p.ships0[k], p.othersShip, p.othersSDS, p.othersDrone)
		}
	}
	faces := uint8(gf.DistrictDir(cur))
	for _, g := range &approachOrder[cur] {
		h := int(p.h[g])
		if h == 0 {
			continue
		}
		p.occ.add(int(g))
		var m uint32
		for i, a := range p.st[g][:h] {
			if a&3 == faces {
				m |= 1 << i
			}
		}
		if m != 0 { // the stack frenzies when one of these is on top
			p.scan[p.scanN] = scanCell(g)<<56 | scanCell(m)<<1
			p.scanN++
		}
	}
}

// Approach plays the acting seat's approach phase of the View's current
// position, as View.Approach does, but leaves the View unchanged; the
// position after it is read through p.
func (p *Probe) Approach() ViewResult {
	p.approach()
	return p.r
}

// approach is Approach, its result left in p.r (apart from Approach so
// that its loops need not keep the result's address in registers).
func (p *Probe) approach() {
	v := p.v
	p.now.base = *p.h
	p.now.pushN = [gf.Cells]uint8{}
	p.now.landed, p.flown, p.now.heightsRead = cellSet{}, cellSet{}, false
	moved := cellSet{} // the stacks that frenzied
	p.invaders, p.yardN = p.invaders0, p.yardN0
	p.ownShips = false
	p.r = ViewResult{}
	// The tiles: the other ships' and the acting ship's (tilesOf, inlined).
	x, xd, xs0, xs1 := v.ShipTiles(p.cur)
	c, d, t0, t1 := &tileSet[uint8(x)], &tileSet[uint8(xd)], &tileSet[uint8(xs0)], &tileSet[uint8(xs1)]
	p.shipSet = cellSet{p.othersShip[0] | c[0], p.othersShip[1] | c[1]}
	p.sdsSet = cellSet{p.othersSDS[0] | t0[0] | t1[0], p.othersSDS[1] | t0[1] | t1[1]}
	p.droneSet = cellSet{p.othersDrone[0] | d[0], p.othersDrone[1] | d[1]}
	p.blockSet = cellSet{p.shipSet[0] | p.sdsSet[0], p.shipSet[1] | p.sdsSet[1]}
	// The flights that need moveAlien: blocked, or over a drone (which
	// destroys the alien when it lands there).
	bs0, bs1 := p.blockSet[0]|p.droneSet[0], p.blockSet[1]|p.droneSet[1]
	for _, sc := range p.scan[:p.scanN] {
		g := int(sc >> 56)
		b := p.now.base[g]
		if sc>>(b&63)&1 == 0 || p.now.pushN[g] != 0 {
			continue // empty or not facing seat, or an alien that moved this phase on top
		}
		// The whole stack frenzies (nothing on it has moved yet): every
		// alien flies by its own facing, top first. The View is v1's
		// rules: the aliens still lifted when the game is lost are lost.
		p.now.base[g] = 0
		moved.add(g)
		stack, paths := p.st[g][:b], &alienPath[g]
		for i := len(stack) - 1; i >= 0; i-- {
			a := stack[i]
			f := &paths[a&15]
			p.flown[0] |= f.mask[0]
			p.flown[1] |= f.mask[1]
			if f.fate != 0 || f.mask[0]&bs0|f.mask[1]&bs1 != 0 {
				p.moveAlien(a, f) // blocked, invading, drifting away or near a drone
				if p.r.NoShip {
					goto done
				}
				// A ship may have crashed.
				bs0, bs1 = p.blockSet[0]|p.droneSet[0], p.blockSet[1]|p.droneSet[1]
				continue
			}
			// It lands (moveAlien's last part, inlined; no drone lies on
			// its way).
			c := int(f.last)
			n := p.now.pushN[c]
			if int(p.now.base[c])+int(n) >= gf.MaxStack {
				continue // never reached with the printed content (State.push)
			}
			p.now.pushed[c][n&(gf.MaxStack-1)] = a
			p.now.pushN[c] = n + 1
			p.now.landed.add(c)
		}
	}
done:
	// The stacks that frenzied are empty but for the aliens that landed
	// there.
	p.cells = cellSet{p.occ[0]&^moved[0] | p.now.landed[0], p.occ[1]&^moved[1] | p.now.landed[1]}
}

// tileSet[uint8(c)] is the set {c} for a global cell c, empty for -1
// (as uint8 255: no tile).
var tileSet = func() (t [256]cellSet) {
	for c := 0; c < gf.Cells; c++ {
		t[c].add(c)
	}
	return t
}()

// tiles finds the cells of the ships, SDS tiles and drones (tilesOf for
// every ship, inlined).
func (p *Probe) tiles(ships *[gf.NumSeats]ship) {
	var sh0, sh1, sd0, sd1, dr0, dr1 uint64
	for k := range ships {
		x := &ships[k]
		c, d, t0, t1 := &tileSet[uint8(x.cell)], &tileSet[uint8(x.drone)], &tileSet[uint8(x.sds[0])], &tileSet[uint8(x.sds[1])]
		sh0, sh1 = sh0|c[0], sh1|c[1]
		sd0, sd1 = sd0|t0[0]|t1[0], sd1|t0[1]|t1[1]
		dr0, dr1 = dr0|d[0], dr1|d[1]
	}
	p.shipSet, p.sdsSet, p.droneSet = cellSet{sh0, sh1}, cellSet{sd0, sd1}, cellSet{dr0, dr1}
	p.blockSet = cellSet{sh0 | sd0, sh1 | sd1}
}

// tilesOf adds the cells of x, its SDS tiles and its drone to the sets
// sh, sd and dr, without a branch.
func tilesOf(x *ship, sh, sd, dr cellSet) (cellSet, cellSet, cellSet) {
	c, d, t0, t1 := &tileSet[uint8(x.cell)], &tileSet[uint8(x.drone)], &tileSet[uint8(x.sds[0])], &tileSet[uint8(x.sds[1])]
	return cellSet{sh[0] | c[0], sh[1] | c[1]},
		cellSet{sd[0] | t0[0] | t1[0], sd[1] | t0[1] | t1[1]},
		cellSet{dr[0] | d[0], dr[1] | d[1]}
}

// moveAlien is State.moveAlien on the overlay: a flies by f.
func (p *Probe) moveAlien(a uint8, f *flight) {
	if f.mask[0]&p.blockSet[0]|f.mask[1]&p.blockSet[1] != 0 {
		for _, c := range f.cells[:f.n] {
			if p.blockSet.has(int(c)) {
				if p.shipSet.has(int(c)) {
					p.crash(int(c))
				} else {
					p.r.Destroyed++ // on a Shielded Defense System tile
				}
				return
			}
		}
	}
	switch f.fate {
	case cellOut:
		k := gf.FacedSeat(gf.AlienDir(a))
		p.r.Invasions[k]++
		if int(p.invaders[k]) < p.invaderCap {
			p.invaders[k]++
		}
		return
	case cellCorner:
		return
	}
	c := int(f.last)
	if p.droneSet != (cellSet{}) && p.droneSet.has(c) {
		p.r.Destroyed++
		return
	}
	if int(p.now.base[c])+int(p.now.pushN[c]) >= gf.MaxStack {
		return // never reached with the printed content (State.push)
	}
	p.now.pushed[c][p.now.pushN[c]] = a
	p.now.pushN[c]++
	p.now.landed.add(c)
}

// crash is State.crash on the overlay: an alien flew into the ship on
// cell.
func (p *Probe) crash(cell int) {
	if !p.ownShips { // the ships change: from now on they are p's own
		p.ships, p.ownShips = p.ships0, true
		p.ships[p.cur] = viewShip(p.v, p.cur) // Play may have moved or equipped it
	}
	seat := 0
	for seat < gf.NumSeats && int(p.ships[seat].cell) != cell {
		seat++
	}
	p.r.Crashes++
	sh := &p.ships[seat]
	if sh.shielded {
		return
	}
	p.r.ShipsLost++
	sh.drone, sh.sds = -1, [2]int8{-1, -1}
	if p.yardN == 0 {
		p.r.NoShip = true
		return
	}
	p.yardN--
	home := gf.HomeCell(seat)
	*sh = ship{model: int8(p.v.ShipyardModel(int(p.yardN))), cell: int8(home), shielded: true, drone: -1, sds: [2]int8{-1, -1}}
	p.clearCell(home)
	// Clear every tile on the home space: the sets still hold the tiles
	// of the ships before the crash, so none lies there when they do not
	// hold home.
	if tiles := (cellSet{p.droneSet[0] | p.sdsSet[0], p.droneSet[1] | p.sdsSet[1]}); tiles.has(home) {
		for k := range p.ships {
			o := &p.ships[k]
			if o.drone == int8(home) {
				o.drone = -1
			}
			for i := range o.sds {
				if o.sds[i] == int8(home) {
					o.sds[i] = -1
				}
			}
		}
	}
	if sh.model == gf.Gladius {
		p.placeDrone(seat)
		p.now.heightsRead = true
	}
	p.tiles(&p.ships)
}

func (p *Probe) clearCell(c int) { p.now.base[c], p.now.pushN[c] = 0, 0 }

// placeDrone is State.placeDrone(seat, -1) on the overlay.
func (p *Probe) placeDrone(seat int) {
	sh := &p.ships[seat]
	sh.drone = -1
	c := int(sh.cell)
	for _, m := range gf.DronePref() {
		if n := gf.Neighbour(seat, c, m); n >= 0 && p.Height(n) == 0 && p.tileFree(n) {
			sh.drone = int8(n)
			return
		}
	}
	for _, m := range gf.DronePref() {
		if n := gf.Neighbour(seat, c, m); n >= 0 && p.tileFree(n) {
			p.clearCell(n)
			sh.drone = int8(n)
			return
		}
	}
}

// tileFree is State.tileFree on the overlay.
func (p *Probe) tileFree(c int) bool {
	for k := range p.ships {
		o := &p.ships[k]
		if int(o.cell) == c || int(o.drone) == c || int(o.sds[0]) == c || int(o.sds[1]) == c {
			return false
		}
	}
	return true
}

// Height returns the number of aliens on cell after the last Approach.
func (p *Probe) Height(cell int) int { return int(p.now.base[cell]) + int(p.now.pushN[cell]) }

// Alien returns the type and global facing of the i-th alien (bottom
// first) on cell after the last Approach.
func (p *Probe) Alien(cell, i int) (typ, dir int) {
	var a uint8
	if b := int(p.now.base[cell]); i < b {
		a = p.st[cell][i]
	} else {
		a = p.now.pushed[cell][i-b]
	}
	return gf.AlienType(a), gf.AlienDir(a)
}

// Stack returns the aliens on cell after the last Approach, bottom first,
// as alien codes (AlienKind reads them): those that stayed, then those
// that landed there during the approach. The slices are valid until the
// next Approach or change of the View.
func (p *Probe) Stack(cell int) (stayed, landed []uint8) {
	return p.st[cell][:p.now.base[cell]], p.now.pushed[cell][:p.now.pushN[cell]]
}

// ProbeBoard is a copy of the board after a Probe's Approach, to tell
// where the board after a later Approach first differs (Probe.Diff).
type ProbeBoard struct {
	begin uint64 // p.begins when saved
	// heightsRead is whether the approach read a stack's height besides
	// deciding its frenzy (a drone placed beside a new ship).
	heightsRead bool
	base, pushN [gf.Cells]uint8
	pushed      [gf.Cells][gf.MaxStack]uint8
	landed      cellSet // the cells with pushN > 0 (maybe fewer)
}

// Save copies the board after the last Approach into b.
func (p *Probe) Save(b *ProbeBoard) {
	b.begin, b.heightsRead = p.begins, p.now.heightsRead
	// One assignment each: a tuple assignment copies through a temporary.
	b.base = p.now.base
	b.pushN = p.now.pushN
	b.landed = p.now.landed
	for w := range p.now.landed {
		for m := p.now.landed[w]; m != 0; m &= m - 1 {
			c := w<<6 | bits.TrailingZeros64(m)
			b.pushed[c] = p.now.pushed[c] // the whole array: no call to memmove
		}
	}
}

// Diff returns a cell before which every stack after the last Approach is
// b's: the first cell whose stack differs, or an earlier one where the
// same aliens stayed on one board and landed on the other; Cells when the
// boards are the same, 0 when b was saved before the last Begin.
func (p *Probe) Diff(b *ProbeBoard) int {
	if b.begin != p.begins {
		return 0
	}
	// Eight cells a word, two words a step (cells 0-111), then cells
	// 112-119 and 120.
	d := gf.Cells
	for i := 0; i <= gf.Cells-16; i += 16 {
		x := (binary.LittleEndian.Uint64(p.now.base[i:]) ^ binary.LittleEndian.Uint64(b.base[i:])) |
			(binary.LittleEndian.Uint64(p.now.pushN[i:]) ^ binary.LittleEndian.Uint64(b.pushN[i:]))
		y := (binary.LittleEndian.Uint64(p.now.base[i+8:]) ^ binary.LittleEndian.Uint64(b.base[i+8:])) |
			(binary.LittleEndian.Uint64(p.now.pushN[i+8:]) ^ binary.LittleEndian.Uint64(b.pushN[i+8:]))
		if x|y != 0 {
			if x != 0 {
				d = i + bits.TrailingZeros64(x)/8
			} else {
				d = i + 8 + bits.TrailingZeros64(y)/8
			}
			break
		}
	}
	if d == gf.Cells {
		const i = gf.Cells - 9
		x := (binary.LittleEndian.Uint64(p.now.base[i:]) ^ binary.LittleEndian.Uint64(b.base[i:])) |
			(binary.LittleEndian.Uint64(p.now.pushN[i:]) ^ binary.LittleEndian.Uint64(b.pushN[i:]))
		if x != 0 {
			d = i + bits.TrailingZeros64(x)/8
		} else if p.now.base[gf.Cells-1] != b.base[gf.Cells-1] || p.now.pushN[gf.Cells-1] != b.pushN[gf.Cells-1] {
			d = gf.Cells - 1
		}
	}
	// Below d the heights agree; so do the aliens that stayed (the View's
	// stacks): compare those that landed. (d is at most Cells: min tells
	// the compiler, so that pushed[c] needs no bounds check.)
	d = min(d, gf.Cells)
	for w := range p.now.landed {
		for m := p.now.landed[w]; m != 0; m &= m - 1 {
			c := w<<6 | bits.TrailingZeros64(m)
			if c >= d {
				return d
			}
			if !samePushed(&p.now.pushed[c], &b.pushed[c], int(p.now.pushN[c])) {
				return c
			}
		}
	}
	return d
}

// SameApproach reports whether the approach phase of the View's current
// position plays as the one whose board b holds did, so that b, its
// stayed aliens cut to the View's heights (ProbeBoard.StackAfter), is the
// board after it; first is then the first cell whose stack is lower than
// on b (Cells when none). b must have been saved (Save) in this search
// from the position marked by m; the View must differ from that position
// by aliens taken off stacks only (Fire, a weapon, a Missile Command: they
// leave the ships, drones and tiles as they are; not checked). It holds
// when every stack that
// lost aliens neither frenzied or was cleared on b (b.base is not 0) nor
// frenzies now: its new top, if any, does not face the acting seat (a
// stack's frenzy is decided by its top when the approach reaches it; the
// aliens landed on it are b's, never cut, and room for them was never
// short: the stack is lower), and when that approach read no height
// otherwise (no drone was placed beside a new ship). The approach is then
// the same alien by alien, crashes and new ships included, for nothing it
// reads changed. Below first the stacks are b's.
func (p *Probe) SameApproach(b *ProbeBoard, m *ViewMark) (first int, ok bool) {
	h, mh := p.h, m.Heights()
	if b.begin != p.begins || b.heightsRead {
		return 0, false
	}
	faces := uint8(gf.DistrictDir(p.cur))
	first = gf.Cells
	for i := 0; i < gf.Cells; i += 8 {
		var x uint64
		if i+8 <= gf.Cells {
			x = binary.LittleEndian.Uint64(h[i:]) ^ binary.LittleEndian.Uint64(mh[i:])
		} else {
			for j := i; j < gf.Cells; j++ {
				x |= uint64(h[j]^mh[j]) << (8 * (j - i))
			}
		}
		for x != 0 {
			k := bits.TrailingZeros64(x) / 8
			x &^= 0xff << (8 * k)
			c := i + k
			if b.base[c] == 0 {
				return 0, false // it frenzied
			}
			if h := h[c]; h > 0 && p.st[c][h-1]&3 == faces {
				return 0, false // it may frenzy now
			}
			first = min(first, c)
		}
	}
	return first, true
}

// Board returns the board after the last Approach, for
// ProbeBoard.StackAfter (not for Diff): valid until the next Approach.
func (p *Probe) Board() *ProbeBoard { return &p.now }

// StackAfter returns the aliens on cell of board b, bottom first, as
// Probe.Stack does: the View's stack cut to b's height (0 where it
// frenzied), then the aliens landed there on b. b is either the Probe's
// own board (Probe.Board), or a board saved for an earlier position whose
// approach phase the View's position has (Probe.SameApproach): the stacks
// that lost aliens since are cut to the View's heights. The slices are
// valid until the View or b changes.
func (b *ProbeBoard) StackAfter(v *View, cell int) (stayed, landed []uint8) {
	return v.Stacks()[cell][:min(b.base[cell], v.Heights()[cell])], b.pushed[cell][:b.pushN[cell]]
}

// lowBytes[n] masks the first n bytes of a little-endian word (0 when n
// is 0: a cleared cell).
var lowBytes = [9]uint64{0, 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1, ^uint64(0)}

// samePushed reports whether the first n aliens of x and y are the same.
func samePushed(x, y *[gf.MaxStack]uint8, n int) bool {
	if uint(n) < uint(len(lowBytes)) { // nearly always: one word, the bytes past n masked off
		return (binary.LittleEndian.Uint64(x[:8])^binary.LittleEndian.Uint64(y[:8]))&lowBytes[n] == 0
	}
	return string(x[:n]) == string(y[:n])
}

// Next returns the first cell after cell (pass -1 to start) that may hold
// aliens after the last Approach, or -1 past the last: every occupied
// cell is among those it returns, in increasing order (Height tells which
// are occupied).
func (p *Probe) Next(cell int) int {
	c := cell + 1
	for c < gf.Cells {
		w := p.cells[c>>6] >> (c & 63)
		if w != 0 {
			return c + bits.TrailingZeros64(w)
		}
		c = (c | 63) + 1
	}
	return -1
}

// Cells returns, as a bit set (bit c%64 of word c/64), the cells that
// Next returns after the last Approach.
func (p *Probe) Cells() [2]uint64 { return p.cells }

// Flown returns, as a bit set (bit c%64 of word c/64), the cells that the
// aliens that flew in the last Approach entered or were to enter on their
// way (those of a flight cut short by a ship or a tile included): an
// alien flies through no other cell.
func (p *Probe) Flown() [2]uint64 { return p.flown }

// Invaders returns the invaders beside seat's district after the last
// Approach (spill-overs not played).
func (p *Probe) Invaders(seat int) int { return int(p.invaders[seat]) }

// Invaded returns the districts full after the last Approach.
func (p *Probe) Invaded() int {
	n := 0
	for _, x := range p.invaders {
		if int(x) >= p.invaderCap {
			n++
		}
	}
	return n
}

// ShipyardLeft returns the ship cards left after the last Approach.
func (p *Probe) ShipyardLeft() int { return int(p.yardN) }

// ship is what the approach phase reads and changes of a ship: its cell,
// its tiles (drone, Shielded Defense System tiles; -1 when none), its
// shield and model. The Probe copies the View's ships (viewShip) only
// once one crashes.
type ship struct {
	model    int8
	cell     int8
	drone    int8
	sds      [2]int8
	shielded bool
}

// viewShip returns seat's ship in v.
func viewShip(v *View, seat int) ship {
	c, d, t0, t1 := v.ShipTiles(seat)
	return ship{model: int8(v.Model(seat)), cell: int8(c), drone: int8(d), sds: [2]int8{int8(t0), int8(t1)}, shielded: v.Shielded(seat)}
}
