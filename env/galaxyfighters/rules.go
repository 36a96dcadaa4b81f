package galaxyfighters

import (
	"math/bits"

	"github.com/galaxygym/galaxygym/env"
)

// Actions: one Discrete space for every phase.
const (
	ActionWeapon    = 0  // + WideBeam, LaserBeam, SpreadShot (setup/refit)
	ActionBonus     = 3  // + FaceFire, FaceMove, FaceSpecial (setup)
	ActionEngine    = 6  // + Thrusters, Deflector, WarpDrive (setup/refit)
	ActionFire      = 9  // Fire: the closest alien in the ship's column
	ActionMove      = 10 // + direction 0-7 (n, ne, e, se, s, sw, w, nw)
	ActionUseWeapon = 18 // Special: the ship's weapon system
	ActionMissile   = 19 // + zone-4 (zones 4-8): Astro Wing's Missile Command
	ActionSDS       = 24 // Phalanx: a Shielded Defense System tile ahead
	ActionDeflector = 25 // engine: Deflector shield
	ActionWarp      = 26 // + (zone-1)*5 + col-1: engine Warp Drive to zone 1-3, col 1-5
	ActionEndTurn   = 41 // end the command phase (then the approach)
	ActionSpill     = 42 // + 0 left, 1 right: where a spilling alien goes
	NumActions      = 44
)

// LegalMask writes the legal actions.
func (s *State) LegalMask(dst []uint8) int {
	clear(dst[:NumActions])
	n := 0
	set := func(a int) { dst[a] = 1; n++ }
	sh := &s.ships[s.cur]
	switch s.phase {
	case PhaseWeapon:
		for w := 0; w < numWeapons; w++ {
			set(ActionWeapon + w)
		}
	case PhaseBonus:
		for b := 0; b < numBonusTiles; b++ {
			if s.bonusAvailable(b) {
				set(ActionBonus + b)
			}
		}
	case PhaseEngine:
		for _, e := range modelEngines[sh.model] {
			set(ActionEngine + e)
		}
	case PhaseCommand:
		n = s.commandMask(dst)
		if s.used > 0 || n == 0 {
			set(ActionEndTurn)
		}
	case PhaseSpill:
		set(ActionSpill)
		set(ActionSpill + 1)
	}
	return n
}

// commandMask sets the command actions ActionFire..ActionWarp+14 that
// commandLegal allows and returns their number: the same tests, with what
// they share (the specials, the cells holding a ship, drone or SDS tile)
// worked out once, not once per action (TestLegalMaskMatchesReference).
func (s *State) commandMask(dst []uint8) int {
	seat := int(s.cur)
	sh := &s.ships[seat]
	specials := s.specials()
	tiles := s.tileCells()
	free := func(c int) bool { return s.h[c] == 0 && !tiles.has(c) }
	n := 0
	if s.pool[FaceFire]+s.pool[FaceWild] > 0 && s.fireTarget(seat) >= 0 {
		dst[ActionFire] = 1
		n++
	}
	if s.pool[FaceMove] != 0 || (sh.engine == Thrusters && specials != 0) {
		for m := 0; m < 8; m++ {
			if c := neighbour(seat, int(sh.cell), m); c >= 0 && free(c) {
				dst[ActionMove+m] = 1
				n++
			}
		}
	}
	if specials >= costWeapon && s.weaponHits(seat, false) {
		dst[ActionUseWeapon] = 1
		n++
	}
	if sh.model == AstroWing && specials >= costMissile {
		for a := ActionMissile; a < ActionSDS; a++ {
			if s.missileHits(seat, a-ActionMissile+4, false) {
				dst[a] = 1
				n++
			}
		}
	}
	if sh.model == Phalanx && specials >= costSDS && (sh.sds[0] < 0 || sh.sds[1] < 0) {
		if c := neighbour(seat, int(sh.cell), 0); c >= 0 && free(c) {
			dst[ActionSDS] = 1
			n++
		}
	}
	if sh.engine == Deflector && !sh.shielded && specials >= costDeflector {
		dst[ActionDeflector] = 1
		n++
	}
	if sh.engine == WarpDrive && specials >= costWarp {
		for k := 0; k < 15; k++ {
			if free(AtmCell(seat, k/5+1, k%5+1)) {
				dst[ActionWarp+k] = 1
				n++
			}
		}
	}
	return n
}

// cellSet is a set of board cells (0..Cells-1), bit c%64 of word c/64.
type cellSet [2]uint64

func (t *cellSet) add(c int) {
	if c >= 0 {
		t[c>>6] |= 1 << (c & 63)
	}
}

func (t *cellSet) has(c int) bool { return t[c>>6]&(1<<(c&63)) != 0 }

// tileCells returns the cells holding a ship, a drone or an SDS tile: the
// cells where tileFree is false.
func (s *State) tileCells() (t cellSet) {
	for k := range s.ships {
		sh := &s.ships[k]
		t.add(int(sh.cell))
		t.add(int(sh.drone))
		t.add(int(sh.sds[0]))
		t.add(int(sh.sds[1]))
	}
	return t
}

// bonusAvailable reports whether the acting ship may take bonus tile b:
// always under bonus_tiles=any (and in v1), and under two_each while fewer
// than two ships hold it (assumption A7).
func (s *State) bonusAvailable(b int) bool {
	if s.cfg.bonusRule != bonusTwoEach {
		return true
	}
	n := 0
	for k := range s.ships {
		if int(s.ships[k].bonus) == b {
			n++
		}
	}
	return n < 2
}

func (s *State) specials() int { return int(s.pool[FaceSpecial] + s.pool[FaceWild]) }

// commandLegal reports whether command action a (ActionFire..ActionWarp)
// is legal: its symbols are available and it has an effect.
func (s *State) commandLegal(a int) bool {
	seat := int(s.cur)
	sh := &s.ships[seat]
	switch {
	case a == ActionFire:
		return s.pool[FaceFire]+s.pool[FaceWild] > 0 && s.fireTarget(seat) >= 0
	case a < ActionUseWeapon:
		if s.pool[FaceMove] == 0 && (sh.engine != Thrusters || s.specials() == 0) {
			return false
		}
		n := neighbour(seat, int(sh.cell), a-ActionMove)
		return n >= 0 && s.free(n)
	case a == ActionUseWeapon:
		return s.specials() >= costWeapon && s.weaponHits(seat, false)
	case a < ActionSDS:
		return sh.model == AstroWing && s.specials() >= costMissile && s.missileHits(seat, a-ActionMissile+4, false)
	case a == ActionSDS:
		if sh.model != Phalanx || s.specials() < costSDS || (sh.sds[0] >= 0 && sh.sds[1] >= 0) {
			return false
		}
		n := neighbour(seat, int(sh.cell), 0)
		return n >= 0 && s.free(n)
	case a == ActionDeflector:
		return sh.engine == Deflector && !sh.shielded && s.specials() >= costDeflector
	default: // warp
		if sh.engine != WarpDrive || s.specials() < costWarp {
			return false
		}
		k := a - ActionWarp
		return s.free(AtmCell(seat, k/5+1, k%5+1))
	}
}

// Apply plays a legal action.
func (s *State) Apply(action int, rewards []float64) {
	destroyed, invasions := s.destroyed, s.invasions
	sh := &s.ships[s.cur]
	switch s.phase {
	case PhaseWeapon:
		sh.weapon = int8(action - ActionWeapon)
		s.setupNext()
	case PhaseBonus:
		sh.bonus = int8(action - ActionBonus)
		s.setupNext()
	case PhaseEngine:
		sh.engine = int8(action - ActionEngine)
		s.setupNext()
	case PhaseCommand:
		if action == ActionEndTurn {
			s.endCommand()
		} else {
			s.command(action)
			s.used++
			if s.pool == [numFaces]int8{} {
				s.endCommand()
			} else if s.cfg.winOnClear && s.deckN == 0 && s.aliens == 0 {
				s.end(won)
			}
		}
	case PhaseSpill:
		src := int(s.spillSrc)
		s.spill[src]--
		s.invaders[(src+1+2*(action-ActionSpill))%NumSeats]++
		s.resolveSpills()
	}
	r := 0.0
	if s.cfg.shaping != 0 {
		r = s.cfg.shaping * float64(int(s.destroyed-destroyed)-int(s.invasions-invasions))
		r = min(max(r, -maxShaping), maxShaping)
	}
	switch {
	case s.phase == PhaseOver && s.outcome == won:
		r++
	case s.phase == PhaseOver && s.outcome == lost:
		r--
	}
	if r != 0 {
		for i := range rewards {
			rewards[i] += r
		}
	}
}

// maxShaping bounds the shaping part of one step's reward.
const maxShaping = 0.5

// EarnedReturns implements env.ReturnsEarner: without shaping an episode
// dealt at turn 0 has paid every player +1 once the team won, -1 once it
// lost, and nothing else (truncation pays nothing); with shaping the
// returns depend on the path (each step's shaping is clipped), so it
// returns false.
func (s *State) EarnedReturns(truncated bool, dst []float64) bool {
	if s.cfg.shaping != 0 {
		return false
	}
	r := 0.0
	switch {
	case s.phase == PhaseOver && s.outcome == won:
		r = 1
	case s.phase == PhaseOver && s.outcome == lost:
		r = -1
	}
	for i := range dst {
		dst[i] = r
	}
	return true
}

// Truncate pays nothing: the team neither won nor lost.
func (s *State) Truncate(rewards []float64) {}

func (s *State) end(outcome int8) {
	s.outcome = outcome
	s.phase = PhaseOver
}

// setupNext moves to the next setup decision, then to the game.
func (s *State) setupNext() {
	sh := &s.ships[s.cur]
	switch {
	case sh.weapon < 0:
		s.phase = PhaseWeapon
	case sh.bonus < 0:
		s.phase = PhaseBonus
	case sh.engine < 0:
		s.phase = PhaseEngine
	case !s.started && s.cur < NumSeats-1:
		s.cur++
		s.phase = PhaseWeapon
	case !s.started:
		s.started = true
		s.cur = 0
		s.beginTurn()
	default:
		s.spawnAndRoll()
	}
}

// beginTurn starts the turn of ship s.cur: shields end, a replaced ship is
// refitted, then spawn and command.
func (s *State) beginTurn() {
	sh := &s.ships[s.cur]
	sh.shielded = false
	if sh.weapon < 0 || sh.engine < 0 {
		s.setupNext()
		return
	}
	s.spawnAndRoll()
}

// spawnAndRoll plays the spawn phase and rolls the command dice.
func (s *State) spawnAndRoll() {
	s.card = -1
	if s.deckN > 0 {
		s.deckN--
		s.card = s.deck[s.deckN]
		n := 1
		if s.cfg.v2 {
			n = s.cardsLaid()
		}
		if n > 0 {
			s.placeCard(int(s.card), int(s.cur))
		}
		for ; n > 1; n-- { // reinforcements (v2): random pool cards
			s.placeCard(1+s.intN(poolCards), int(s.cur))
		}
	}
	s.pool = [numFaces]int8{}
	for i := 0; i < numDice; i++ {
		s.pool[dieFaces[s.intN(len(dieFaces))]]++
	}
	s.pool[s.ships[s.cur].bonus]++
	s.used = 0
	s.phase = PhaseCommand
}

// cardsLaid draws how many spawn cards the v2 spawn phase lays for
// spawn_density d: floor(d), plus one with probability d - floor(d)
// (assumption A25). The first is the card drawn from the deck.
func (s *State) cardsLaid() int {
	d := s.cfg.density
	n := int(d)
	if f := d - float64(n); f > 0 && float64(s.rng.Uint64()>>11)*0x1p-53 < f {
		n++
	}
	return n
}

// spend uses n symbols of face (Fire: Fire then wild; Special: Special
// then wild; Move: Move, then Special then wild through Thrusters).
func (s *State) spend(face, n int) {
	for ; n > 0; n-- {
		switch {
		case s.pool[face] > 0:
			s.pool[face]--
		case face == FaceMove && s.pool[FaceSpecial] > 0:
			s.pool[FaceSpecial]--
		default:
			s.pool[FaceWild]--
		}
	}
}

// command plays a command action.
func (s *State) command(a int) {
	seat := int(s.cur)
	sh := &s.ships[seat]
	switch {
	case a == ActionFire:
		s.spend(FaceFire, 1)
		s.hitTop(s.fireTarget(seat))
	case a < ActionUseWeapon:
		s.spend(FaceMove, 1)
		s.moveShip(seat, neighbour(seat, int(sh.cell), a-ActionMove))
	case a == ActionUseWeapon:
		s.spend(FaceSpecial, costWeapon)
		s.weaponHits(seat, true)
	case a < ActionSDS:
		s.spend(FaceSpecial, costMissile)
		s.missileHits(seat, a-ActionMissile+4, true)
	case a == ActionSDS:
		s.spend(FaceSpecial, costSDS)
		i := 0
		if sh.sds[0] >= 0 {
			i = 1
		}
		sh.sds[i] = int8(neighbour(seat, int(sh.cell), 0))
	case a == ActionDeflector:
		s.spend(FaceSpecial, costDeflector)
		sh.shielded = true
	default:
		s.spend(FaceSpecial, costWarp)
		k := a - ActionWarp
		s.moveShip(seat, AtmCell(seat, k/5+1, k%5+1))
	}
}

func (s *State) moveShip(seat, to int) {
	sh := &s.ships[seat]
	prev := int(sh.cell)
	sh.cell = int8(to)
	if sh.drone >= 0 {
		s.placeDrone(seat, prev)
	}
}

// ray walks from global cell in seat's local direction (dr, dc) and returns
// the cells it crosses, in order, up to (not including) an SDS tile or the
// edge, and not beyond local row minRow. It calls f on every cell; f
// returns false to stop.
func (s *State) ray(seat, cell, dr, dc, minRow int, f func(c int) bool) {
	l := Local(seat, cell)
	r, c := l/Side, l%Side
	for {
		r, c = r+dr, c+dc
		if r < minRow || r >= Side || c < 0 || c >= Side {
			return
		}
		g := Global(seat, r*Side+c)
		if !onBoard[g] || s.sdsAt(g) {
			return
		}
		if !f(g) {
			return
		}
	}
}

// aheadRay[seat][cell][dc+1] lists the board cells that ray crosses from
// cell in seat's local direction (-1, dc), in order, up to (not including)
// the edge or a space off the board, ignoring SDS tiles; n3 of them lie
// on local row 3 or beyond it (zone 8 and nearer), n0 on any row.
var aheadRay = func() (t [NumSeats][Cells][3]rayCells) {
	for seat := 0; seat < NumSeats; seat++ {
		for cell := 0; cell < Cells; cell++ {
			for dc := -1; dc <= 1; dc++ {
				rc := &t[seat][cell][dc+1]
				l := Local(seat, cell)
				r, c := l/Side, l%Side
				for {
					r, c = r-1, c+dc
					if r < 0 || c < 0 || c >= Side {
						break
					}
					g := Global(seat, r*Side+c)
					if !onBoard[g] {
						break
					}
					rc.cells[rc.n0] = uint8(g)
					rc.n0++
					if r >= 3 {
						rc.n3++
					}
				}
			}
		}
	}
	return t
}()

// rayCells is one entry of aheadRay.
type rayCells struct {
	cells  [Side - 1]uint8
	n0, n3 uint8
}

// firstAlien returns the first cell holding an alien along seat's ray
// from cell in local direction (-1, dc) up to local row 3 (s.ray with
// minRow 3), or -1.
func (s *State) firstAlien(seat, cell, dc int) int {
	rc := &aheadRay[seat][cell][dc+1]
	if !s.anySDS() {
		for _, g := range rc.cells[:rc.n3] {
			if s.h[g] > 0 {
				return int(g)
			}
		}
		return -1
	}
	for _, g := range rc.cells[:rc.n3] {
		if s.sdsAt(int(g)) {
			return -1
		}
		if s.h[g] > 0 {
			return int(g)
		}
	}
	return -1
}

// anySDS reports whether a Shielded Defense System tile is on the board,
// as any entry of the ships' sds not -1: the AND of the eight entries has
// all its bits set (-1) exactly when each one is -1. It reads four ships
// (the constant fails to compile with more).
func (s *State) anySDS() bool {
	const _ uint = 4 - NumSeats
	sh := &s.ships
	return sh[0].sds[0]&sh[0].sds[1]&sh[1].sds[0]&sh[1].sds[1]&
		sh[2].sds[0]&sh[2].sds[1]&sh[3].sds[0]&sh[3].sds[1] != -1
}

// fireTarget is the closest alien straight ahead of seat's ship, up to
// zone 8, or -1.
func (s *State) fireTarget(seat int) int {
	return s.firstAlien(seat, int(s.ships[seat].cell), 0)
}

// boardRow[seat][row] lists the board spaces (global cells) of seat's
// local row, left to right.
var boardRow = func() (t [NumSeats][Side]rowSpaces) {
	for seat := 0; seat < NumSeats; seat++ {
		for row := 0; row < Side; row++ {
			rc := &t[seat][row]
			for c := 0; c < Side; c++ {
				if g := Global(seat, row*Side+c); onBoard[g] {
					rc.cells[rc.n] = uint8(g)
					rc.n++
				}
			}
		}
	}
	return t
}()

// rowSpaces is one entry of boardRow.
type rowSpaces struct {
	cells [Side]uint8
	n     uint8
}

// weaponHits reports whether seat's weapon system would hit anything, and
// fires it when apply is set.
func (s *State) weaponHits(seat int, apply bool) bool {
	sh := &s.ships[seat]
	cell := int(sh.cell)
	switch sh.weapon {
	case WideBeam:
		t := s.fireTarget(seat)
		if t < 0 {
			return false
		}
		if apply {
			r := &boardRow[seat][Local(seat, t)/Side]
			for _, g := range r.cells[:r.n] {
				s.hitTop(int(g))
			}
		}
		return true
	case LaserBeam:
		hit := false
		s.ray(seat, cell, -1, 0, 0, func(c int) bool {
			if s.h[c] > 0 {
				hit = true
				if apply {
					s.hitTop(c)
				} else {
					return false
				}
			}
			return true
		})
		return hit
	default: // SpreadShot
		var t [3]int
		for i, dc := range [3]int{0, -1, 1} {
			t[i] = s.firstAlien(seat, cell, dc)
		}
		if t[0] < 0 && t[1] < 0 && t[2] < 0 {
			return false
		}
		if apply {
			for _, c := range t {
				if c >= 0 {
					s.hitTop(c)
				}
			}
		}
		return true
	}
}

// missileHits reports whether Missile Command on zone (4-8) hits anything
// (the deep-space spaces of that zone only), firing when apply is set.
func (s *State) missileHits(seat, zone int, apply bool) bool {
	row := Side - zone
	if !apply { // whether any of the five is occupied, without a branch each
		var h uint8
		for c := 3; c <= 7; c++ {
			h |= s.h[Global(seat, row*Side+c)]
		}
		return h != 0
	}
	hit := false
	for c := 3; c <= 7; c++ {
		g := Global(seat, row*Side+c)
		if s.h[g] > 0 {
			hit = true
			if apply {
				s.hitTop(g)
			}
		}
	}
	return hit
}

// endCommand plays the approach phase, the spill-overs, then the turn's end.
func (s *State) endCommand() {
	s.pool = [numFaces]int8{}
	s.approach()
	s.spillSrc = int8(s.cur)
	s.resolveSpills()
}

// approach moves the aliens facing the current seat, zone 1 first, left to
// right in the seat's view; a stack whose top alien faces the seat
// frenzies: every alien of it moves, top first, each by its own facing.
func (s *State) approach() {
	seat := int(s.cur)
	var buf [maxStack]uint8
	var landed cellSet // the cells where moved aliens (movedBit) landed
	for lr := Side - 1; lr >= 0 && !s.noShip; lr-- {
		for lc := 0; lc < Side && !s.noShip; lc++ {
			g := Global(seat, lr*Side+lc)
			h := int(s.h[g])
			if h == 0 {
				continue
			}
			top := s.st[g][h-1]
			if top&movedBit != 0 || FacedSeat(alienDir(top)) != seat {
				continue
			}
			n := 0
			for s.h[g] > 0 && s.st[g][s.h[g]-1]&movedBit == 0 {
				s.h[g]--
				s.aliens--
				buf[n] = s.st[g][s.h[g]]
				n++
			}
			for i := 0; i < n && !s.noShip; i++ {
				landed.add(s.moveAlien(buf[i], g))
				if s.noShip && s.cfg.v2 {
					// The game is lost mid-frenzy: the aliens still lifted
					// go back on their space (v1 lost them).
					for j := n - 1; j > i; j-- {
						s.push(g, buf[j])
					}
				}
			}
		}
	}
	// Only moveAlien sets movedBit, so only the cells it landed on hold
	// marked aliens.
	for w, m := range landed {
		for ; m != 0; m &= m - 1 {
			g := w<<6 | bits.TrailingZeros64(m)
			for i := 0; i < int(s.h[g]); i++ {
				s.st[g][i] &^= movedBit
			}
		}
	}
}

// moveAlien flies alien a from cell by its speed in its facing: it
// invades when it leaves the board past a district's zone 1, drifts away
// into a corner, crashes into a ship, is destroyed entering a Shielded
// Defense System tile's space or stopping on a drone, and otherwise lands
// on top of the stack where it stops. It returns the cell it landed on,
// or -1.
func (s *State) moveAlien(a uint8, cell int) int {
	d := alienDir(a)
	c := cell
	for i := 0; i < alienSpeed[alienType(a)]; i++ {
		n, ok, out := step(c, d)
		if !ok {
			if out {
				s.invade(FacedSeat(d))
			} else {
				s.drifted++
			}
			return -1
		}
		c = n
		if k := s.shipAt(c); k >= 0 {
			s.crash(k)
			return -1
		}
		if s.sdsAt(c) {
			s.destroyed++
			return -1
		}
	}
	if s.droneAt(c) {
		s.destroyed++
		return -1
	}
	s.push(c, a|movedBit)
	return c
}

// invade places an invader beside district d, or queues it to spill over.
func (s *State) invade(d int) {
	s.invasions++
	if int(s.invaders[d]) < s.cfg.invaderCap {
		s.invaders[d]++
	} else {
		s.spill[d]++
	}
}

// crash: an alien flew into seat's ship. The alien is destroyed; an
// unshielded ship too, replaced from the shipyard on its home space,
// shielded, the space cleared.
func (s *State) crash(seat int) {
	s.crashes++
	sh := &s.ships[seat]
	if sh.shielded {
		return
	}
	s.shipsLost++
	sh.drone, sh.sds = -1, [2]int8{-1, -1}
	if s.yardN == 0 {
		s.noShip = true
		return
	}
	s.yardN--
	home := HomeCell(seat)
	*sh = ship{model: s.yard[s.yardN], weapon: -1, engine: -1, bonus: sh.bonus, cell: int8(home),
		shielded: true, drone: -1, sds: [2]int8{-1, -1}}
	s.clearCell(home)
	for k := range s.ships { // clear every tile on the home space
		o := &s.ships[k]
		if o.drone == int8(home) {
			o.drone = -1
		}
		for i := range o.sds {
			if o.sds[i] == int8(home) {
				o.sds[i] = -1
			}
		}
	}
	if sh.model == Gladius {
		s.placeDrone(seat, -1)
	}
}

// resolveSpills places the aliens waiting beside full districts, starting
// with s.spillSrc: to the only neighbour with room, or by the current
// player's choice when both have room; with none, to the opposite district
// if it has room, else the alien is lost. Then the turn ends.
func (s *State) resolveSpills() {
	if s.lossReached() {
		s.finishTurn()
		return
	}
	for i := 0; i < NumSeats; i++ {
		src := (int(s.spillSrc) + i) % NumSeats
		for s.spill[src] > 0 {
			left, right := (src+1)%NumSeats, (src+3)%NumSeats
			roomL := int(s.invaders[left]) < s.cfg.invaderCap
			roomR := int(s.invaders[right]) < s.cfg.invaderCap
			if roomL && roomR {
				s.spillSrc = int8(src)
				s.phase = PhaseSpill
				return
			}
			s.spill[src]--
			switch opp := (src + 2) % NumSeats; {
			case roomL:
				s.invaders[left]++
			case roomR:
				s.invaders[right]++
			case int(s.invaders[opp]) < s.cfg.invaderCap:
				s.invaders[opp]++
			}
			if s.lossReached() {
				s.finishTurn()
				return
			}
		}
	}
	s.finishTurn()
}

func (s *State) lossReached() bool {
	return s.noShip || s.DistrictsInvaded() >= s.cfg.districtsToLose
}

// finishTurn ends the turn: loss, win, or the next ship's turn.
func (s *State) finishTurn() {
	s.spill = [NumSeats]uint8{}
	s.spillSrc = -1
	s.turns++
	if s.cur == NumSeats-1 {
		s.turns3++
	}
	switch {
	case s.lossReached():
		s.end(lost)
		return
	case s.deckN == 0 && (!s.cfg.winOnClear || s.aliens == 0):
		s.end(won)
		return
	}
	s.cur = (s.cur + 1) % NumSeats
	s.beginTurn()
}

// Info fills the episode statistics.
func (s *State) Info(dst *env.Info) {
	switch s.outcome {
	case won:
		dst.SetTeamResult(s.cfg.players, env.OutcomeWin, 1)
	case lost:
		dst.SetTeamResult(s.cfg.players, env.OutcomeLoss, -1)
	default:
		dst.Outcome, dst.Score = env.OutcomeOngoing, 0
	}
	dst.Stats = append(dst.Stats,
		env.Stat{Name: "aliens_destroyed", Value: float64(s.destroyed)},
		env.Stat{Name: "crashes", Value: float64(s.crashes)},
		env.Stat{Name: "invasions", Value: float64(s.invasions)},
		env.Stat{Name: "districts_invaded", Value: float64(s.DistrictsInvaded())},
		env.Stat{Name: "ships_lost", Value: float64(s.shipsLost)},
		env.Stat{Name: "turns", Value: float64(s.turns)},
		env.Stat{Name: "spawn_left", Value: float64(s.deckN)},
		env.Stat{Name: "shipyard_left", Value: float64(s.yardN)},
		env.Stat{Name: "aliens_on_board", Value: float64(s.aliens)},
	)
	dst.Labels = append(dst.Labels, env.Label{Name: "mission", Value: s.cfg.mission})
}

// CurrentPlayer returns the player controlling the ship whose turn it is.
func (s *State) CurrentPlayer() int {
	if s.phase == PhaseOver {
		return env.Terminal
	}
	return s.controller(int(s.cur))
}

// Terminal reports whether the game has ended.
func (s *State) Terminal() bool { return s.phase == PhaseOver }

// Turn returns the number of ship turns completed.
func (s *State) Turn() int { return int(s.turns) }
