package galaxyfighters

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// The scene (env.Presenter) is drawn in the global frame, the same for
// every observer (the public part of every seat's scene is one): Rocketown
// (seat 0) at the bottom, Atomville on the left, Novaport at the top,
// Astrofield on the right; the scene's Rotate turns the board so that the
// observer's district is at the bottom (the frame its observation is in).
// Ids are global and so the same in every seat's
// scene: board spaces by CellName ("r8c5"), a district's invader track
// "district-K", the four tiles of ship K in the corner before its
// district ("slot-K-weapon", "-special", "-engine", "-bonus", holding the
// pieces "weapon-K" .. "bonus-K"), ships "ship-K", drones "drone-K", Shielded
// Defense tiles "sds-r8c5", and a stack of aliens "aliens-r3c5" (aliens are
// alike and the order under a stack's top is hidden, so a stack, not an
// alien, is the piece). K is a ship's seat (0 Rocketown, 1 Atomville, 2
// Novaport, 3 Astrofield), never a player: the players own the ships they
// fly (Owner), and the scene names seats by their districts.
//
// The board is 13 x 13 squares of pcCell units (the 11 x 11 cross with a
// district strip on each side): 416 x 416 units.
const (
	pcCell = 32
	pcSide = Side + 2
	pcSize = pcSide * pcCell
)

// CSS colours of the picture (render.go's).
var (
	pcShipColor  = [NumSeats]string{"#50c8ff", "#78e66e", "#ffa046", "#e678e6"}
	pcAlienColor = [numTypes]string{"#fadc3c", "#5a96ff", "#f046b4"}
)

const (
	pcDeep  = "#1c2040"
	pcAtmos = "#26305a"
)

// Words for the pieces and moves.
var (
	typeNames    = [numTypes]string{"Yellum", "Bluvol", "Magentis"}
	weaponTitles = [numWeapons]string{"Wide Beam", "Laser Beam", "Spread Shot"}
	weaponLabels = [numWeapons]string{"wide", "laser", "spread"}
	weaponHelp   = [numWeapons]string{
		"hits the top alien of every space in the row of the closest alien straight ahead",
		"hits the top alien of every space straight ahead, through deep space into the far atmosphere",
		"hits the closest alien straight ahead and the closest along each forward diagonal",
	}
	specialTitles = [numModels]string{"Missile Command (2 Specials: the top alien of each deep-space space of one zone)",
		"Shielded Defense System (1 Special: a tile ahead that destroys aliens entering it and blocks fire; two tiles)",
		"helper Drone (follows the ship; an alien ending its move on it is destroyed)"}
	specialLabels = [numModels]string{"missile", "SDS", "drone"}
	engineTitles  = [numEngines]string{"Thrusters", "Deflector", "Warp Drive"}
	engineLabels  = [numEngines]string{"thrust", "deflect", "warp"}
	engineHelp    = [numEngines]string{
		"a Special symbol may be spent as a Move",
		"1 Special: the ship is shielded until its next turn",
		"2 Specials: jump to any free space of the atmosphere",
	}
	faceTitles = [numFaces]string{"Fire", "Move", "Special", "Fire-or-Special"}
	moveWords  = [8]string{"ahead", "ahead-right", "right", "back-right", "back", "back-left", "left", "ahead-left"}
)

// fighterObs is what one observation says, decoded into global terms.
type fighterObs struct {
	o, players     int
	phase          Phase
	cur, spillSrc  int           // acting ship and full district (global seats), -1 for none
	ship           [NumSeats]int // global cell of each ship
	model          [NumSeats]int
	weapon, engine [NumSeats]int // -1 until chosen
	bonus          [NumSeats]int
	shielded       [NumSeats]bool
	mine           [NumSeats]bool // played by the observer now
	invaders       [NumSeats]int
	sdsPlaced      [NumSeats]int
	height         [Cells]int // by global cell
	aliens         int
	pool           [numFaces]int
	used           int
}

// decodeFighters reads obs (ObsSize bytes) of observer o.
func decodeFighters(obs []uint8, o, players int) *fighterObs {
	f := &fighterObs{o: o, players: players, cur: -1, spillSrc: -1, phase: PhaseOver}
	for p := PhaseWeapon; p < numPhases; p++ {
		if obs[OffPhase+int(p)] == 1 {
			f.phase = p
		}
	}
	oneHot := func(b []uint8) int {
		for i, x := range b {
			if x != 0 {
				return i
			}
		}
		return -1
	}
	for rel := 0; rel < NumSeats; rel++ {
		k := (rel + o) % NumSeats
		v := obs[OffSeats+rel*seatBytes:]
		f.model[k] = max(oneHot(v[SeatModel:SeatModel+numModels]), 0)
		f.weapon[k] = oneHot(v[SeatWeapon : SeatWeapon+numWeapons])
		f.engine[k] = oneHot(v[SeatEngine : SeatEngine+numEngines])
		f.bonus[k] = oneHot(v[SeatBonus : SeatBonus+numBonusTiles])
		f.shielded[k] = v[SeatShielded] != 0
		f.mine[k] = v[SeatPlayedByMe] != 0
		if v[SeatActing] != 0 {
			f.cur = k
		}
		f.invaders[k] = int(v[SeatInvaders])
		f.sdsPlaced[k] = int(v[SeatSDSPlaced])
		f.ship[k] = -1
		if l := oneHot(obs[OffShips+rel*plane : OffShips+(rel+1)*plane]); l >= 0 {
			f.ship[k] = Global(o, l)
		}
		if obs[OffSpillSeat+rel] != 0 {
			f.spillSrc = k
		}
	}
	for l := 0; l < Cells; l++ {
		g := Global(o, l)
		f.height[g] = int(obs[OffHeight+l])
		f.aliens += f.height[g]
	}
	for i := range f.pool {
		f.pool[i] = int(obs[OffPool+i])
	}
	f.used = int(obs[OffUsed])
	return f
}

// controller is the player flying ship k, -1 for the fourth ship of a
// three-player game (it passes round the players).
func (f *fighterObs) controller(k int) int {
	switch f.players {
	case 2:
		return k % 2
	case 3:
		if k == 3 {
			return -1
		}
	}
	return k
}

// rc is the top-left corner, in board units, of the cell at row lr and
// column lc of the 11 x 11 grid in the global frame, inside the district
// strips.
func rc(lr, lc int) (x, y int) { return (lc + 1) * pcCell, (lr + 1) * pcCell }

func cellID(g int) string { return CellName(g) }

func stackID(g int) string { return "aliens-" + CellName(g) }

// facedName is the district that an alien with global facing d heads for.
func facedName(d int) string { return seatNames[FacedSeat(d)] }

// Present returns seat's scene (env.Presenter) from seat's observation
// alone, in the global frame with Rotate turning seat's district to the
// bottom; see the ids above.
// Moves: a setup choice is a button; fire and the weapon are the ship then
// the alien stack it hits (the weapon: the weapon tile); a move the ship
// then the space; a Missile Command or a Shielded Defense tile the special
// tile then the spaces; the Deflector the ship then the engine tile; a warp
// the engine tile then the space; a spill-over the receiving district;
// end-turn a button. It returns a *env.SceneError for an observation of the
// wrong size or a seat outside the players.
func (g Game) Present(p env.Params, seat int, obs []uint8, legal []int) (*env.Scene, error) {
	id := g.Spec().ID
	n := p.Int(env.PlayersParam)
	if len(obs) != ObsSize || seat < 0 || seat >= n || n < 2 || n > NumSeats {
		return nil, &env.SceneError{EnvID: id, Reason: fmt.Sprintf("observation of %d bytes for seat %d of %d", len(obs), seat, n)}
	}
	f := decodeFighters(obs, seat, n)
	sc := &env.Scene{Width: pcSize, Height: pcSize, Rotate: (NumSeats - seat) % NumSeats * 90}
	for gc := 0; gc < Cells; gc++ {
		if !onBoard[gc] {
			continue
		}
		x, y := rc(gc/Side, gc%Side)
		sp := env.Space{ID: cellID(gc), X: x, Y: y, W: pcCell, H: pcCell, Shape: "rect", Color: pcDeep, Owner: -1,
			Title: "deep space"}
		for k := 0; k < NumSeats; k++ {
			if InAtmosphere(k, gc) {
				sp.Color, sp.Owner = pcAtmos, f.controller(k)
				sp.Title = fmt.Sprintf("%s's atmosphere, zone %d", seatNames[k], Zone(k, gc))
			}
		}
		sc.Spaces = append(sc.Spaces, sp)
	}
	room := int(obs[OffInvaderCap])
	for k := 0; k < NumSeats; k++ {
		f.districtSpaces(sc, k, room)
	}
	f.pieces(sc, obs)
	f.seats(sc, obs)
	f.status(sc, obs)
	for _, a := range legal {
		sc.Moves = append(sc.Moves, f.move(id, a, obs))
	}
	return sc, nil
}

// districtSpaces adds ship k's district strip and the four tile slots in
// the corner clockwise before it (in the global frame).
func (f *fighterObs) districtSpaces(sc *env.Scene, k, room int) {
	rel := k // the side of the board, clockwise from the bottom
	own := f.controller(k)
	d := env.Space{ID: "district-" + strconv.Itoa(k), Shape: "rect", Owner: own, Color: pcShipColor[k],
		Label: fmt.Sprintf("%d/%d", f.invaders[k], room),
		Title: fmt.Sprintf("%s: %d of %d invader spaces filled", seatNames[k], f.invaders[k], room)}
	if f.invaders[k] >= room {
		d.Title += " (invaded)"
	}
	var cx, cy int // the corner's top-left
	switch rel {
	case 0: // bottom; corner bottom-left
		d.X, d.Y, d.W, d.H = 4*pcCell, 12*pcCell, 5*pcCell, pcCell
		d.Label = seatNames[k] + " " + d.Label
		cx, cy = rc(8, 0)
	case 1: // left; corner top-left
		d.X, d.Y, d.W, d.H = 0, 4*pcCell, pcCell, 5*pcCell
		cx, cy = rc(0, 0)
	case 2: // top; corner top-right
		d.X, d.Y, d.W, d.H = 4*pcCell, 0, 5*pcCell, pcCell
		d.Label = seatNames[k] + " " + d.Label
		cx, cy = rc(0, 8)
	default: // right; corner bottom-right
		d.X, d.Y, d.W, d.H = 12*pcCell, 4*pcCell, pcCell, 5*pcCell
		cx, cy = rc(8, 8)
	}
	sc.Spaces = append(sc.Spaces, d)
	const t = (3*pcCell - 4) / 2
	for i, what := range [4]string{"weapon", "special", "engine", "bonus"} {
		sc.Spaces = append(sc.Spaces, env.Space{ID: fmt.Sprintf("slot-%d-%s", k, what), X: cx + 1 + i%2*(t+2),
			Y: cy + 1 + i/2*(t+2), W: t, H: t, Shape: "rect", Owner: own, Title: fmt.Sprintf("%s's %s", seatNames[k], what)})
	}
}

// pieces adds the ships, their tiles, drones, Shielded Defense tiles and
// the alien stacks.
func (f *fighterObs) pieces(sc *env.Scene, obs []uint8) {
	for k := 0; k < NumSeats; k++ {
		own := f.controller(k)
		color := ""
		if own < 0 {
			color = pcShipColor[k]
		}
		if f.ship[k] >= 0 {
			t := fmt.Sprintf("%s's %s", seatNames[k], modelNames[f.model[k]])
			if f.shielded[k] {
				t += ", shielded"
			}
			sc.Pieces = append(sc.Pieces, env.Piece{ID: "ship-" + strconv.Itoa(k), At: cellID(f.ship[k]), Shape: "disc",
				Label: seatNames[k][:2], Title: t, Color: color, Owner: own})
		}
		slot := func(what string) string { return fmt.Sprintf("slot-%d-%s", k, what) }
		if w := f.weapon[k]; w >= 0 {
			sc.Pieces = append(sc.Pieces, env.Piece{ID: "weapon-" + strconv.Itoa(k), At: slot("weapon"), Shape: "square",
				Label: weaponLabels[w], Title: weaponTitles[w] + ": " + weaponHelp[w], Color: color, Owner: own})
		}
		sc.Pieces = append(sc.Pieces, env.Piece{ID: "special-" + strconv.Itoa(k), At: slot("special"), Shape: "square",
			Label: specialLabels[f.model[k]], Title: modelNames[f.model[k]] + ": " + specialTitles[f.model[k]], Color: color, Owner: own})
		if e := f.engine[k]; e >= 0 {
			sc.Pieces = append(sc.Pieces, env.Piece{ID: "engine-" + strconv.Itoa(k), At: slot("engine"), Shape: "square",
				Label: engineLabels[e], Title: engineTitles[e] + ": " + engineHelp[e], Color: color, Owner: own})
		}
		if b := f.bonus[k]; b >= 0 {
			sc.Pieces = append(sc.Pieces, env.Piece{ID: "bonus-" + strconv.Itoa(k), At: slot("bonus"), Shape: "square",
				Label: "+" + faceCodes[b], Title: "bonus command tile: one more " + faceTitles[b] + " every turn", Color: color, Owner: own})
		}
	}
	for g := 0; g < Cells; g++ {
		if !onBoard[g] {
			continue
		}
		l := Local(f.o, g)
		// A drone or Shielded Defense tile stands in its ship's atmosphere.
		owner := -1
		for k := 0; k < NumSeats; k++ {
			if InAtmosphere(k, g) {
				owner = k
			}
		}
		if obs[OffDrones+l] != 0 && owner >= 0 {
			sc.Pieces = append(sc.Pieces, env.Piece{ID: "drone-" + strconv.Itoa(owner), At: cellID(g), Shape: "square",
				Title: seatNames[owner] + "'s drone: an alien ending its move here is destroyed", Owner: f.controller(owner)})
		}
		if obs[OffSDS+l] != 0 && owner >= 0 {
			sc.Pieces = append(sc.Pieces, env.Piece{ID: "sds-" + CellName(g), At: cellID(g), Shape: "diamond",
				Title: seatNames[owner] + "'s Shielded Defense tile: destroys aliens entering it, blocks fire", Owner: f.controller(owner)})
		}
		if f.height[g] > 0 {
			sc.Pieces = append(sc.Pieces, f.stack(obs, g, l))
		}
	}
}

// stack is the piece of the alien stack on global cell g (local l): the
// top alien's colour and heading (in the global frame), the height as its
// label, and what the observation says of the aliens under it (counts by
// type and facing, in global order).
func (f *fighterObs) stack(obs []uint8, g, l int) env.Piece {
	h := f.height[g]
	pc := env.Piece{ID: stackID(g), At: cellID(g), Shape: "triangle", Owner: -1}
	var parts []string
	for gk := 0; gk < 12; gk++ {
		typ, dir := gk/4, gk%4
		k := typ*4 + LocalDir(f.o, dir) // the observation's plane
		if obs[OffTop+k*plane+l] != 0 {
			pc.Color = pcAlienColor[typ]
			pc.Rotate = dir * 90
			pc.Title = fmt.Sprintf("%s (speed %d) heading for %s", typeNames[typ], alienSpeed[typ], facedName(dir))
		}
		if c := int(obs[OffCount+k*plane+l]); c > 0 {
			parts = append(parts, fmt.Sprintf("%d %s for %s", c, typeNames[typ], facedName(dir)))
		}
	}
	if h > 1 {
		pc.Label = strconv.Itoa(h)
		pc.Title = fmt.Sprintf("a stack of %d aliens, on top a %s; in all: %s", h, pc.Title, strings.Join(parts, ", "))
	} else {
		pc.Title = "a " + pc.Title
	}
	return pc
}

// seats adds every player's facts: the districts it defends, their
// ships and invaders.
func (f *fighterObs) seats(sc *env.Scene, obs []uint8) {
	room := int(obs[OffInvaderCap])
	for p := 0; p < f.players; p++ {
		var names, facts []string
		for k := 0; k < NumSeats; k++ {
			if f.controller(k) != p {
				continue
			}
			names = append(names, seatNames[k])
			facts = append(facts, f.shipFacts(k, room))
		}
		if f.players == 3 {
			facts = append(facts, "Astrofield's ship is flown by each player in turn")
		}
		sc.Seats = append(sc.Seats, env.SeatFacts{Name: strings.Join(names, " & "), Facts: facts})
	}
}

func (f *fighterObs) shipFacts(k, room int) string {
	s := fmt.Sprintf("%s: %s", seatNames[k], modelNames[f.model[k]])
	if w := f.weapon[k]; w >= 0 {
		s += ", " + weaponTitles[w]
	}
	if e := f.engine[k]; e >= 0 {
		s += ", " + engineTitles[e]
	}
	if b := f.bonus[k]; b >= 0 {
		s += ", bonus " + faceTitles[b]
	}
	if f.shielded[k] {
		s += ", shielded"
	}
	return s + fmt.Sprintf(", invaders %d/%d", f.invaders[k], room)
}

// status sets the status line, or how the game ended.
func (f *fighterObs) status(sc *env.Scene, obs []uint8) {
	deck, yard := int(obs[OffDeckLeft]), int(obs[OffYardLeft])
	invaded, toLose := int(obs[OffInvaded]), int(obs[OffToLose])
	table := fmt.Sprintf("spawn deck %d, shipyard %d, districts invaded %d of %d", deck, yard, invaded, toLose)
	cur := ""
	if f.cur >= 0 {
		cur = seatNames[f.cur]
	}
	switch f.phase {
	case PhaseWeapon, PhaseBonus, PhaseEngine:
		what := [3]string{"a weapon system", "a bonus command tile", "an engine modification"}[f.phase]
		sc.Status = fmt.Sprintf("%s's ship chooses %s; %s", cur, what, table)
	case PhaseCommand:
		sc.Status = fmt.Sprintf("turn %d, %s's commands: fire %d, move %d, special %d, fire-or-special %d (used %d); %s",
			int(obs[OffTurns])+1, cur, f.pool[FaceFire], f.pool[FaceMove], f.pool[FaceSpecial], f.pool[FaceWild], f.used, table)
	case PhaseSpill:
		sc.Status = fmt.Sprintf("%s is full: %d aliens spill over, each to the left or right neighbour; %s",
			seatNames[max(f.spillSrc, 0)], obs[OffSpillWaiting], table)
	default:
		// The determinizer's reading of a final observation: won when the
		// deck is out (and the board clear under win_on=clear) with fewer
		// districts invaded than lose, else lost.
		onClear := obs[OffWinOnClear] == 1
		switch {
		case invaded >= toLose:
			sc.Ended = fmt.Sprintf("the team lost: %d districts invaded (%d lose the mission)", invaded, toLose)
		case deck == 0 && (!onClear || f.aliens == 0):
			if onClear {
				sc.Ended = "the team won: the spawn deck is exhausted and the board is clear"
			} else {
				sc.Ended = "the team won: the turn that drew the last spawn card is over"
			}
			if yard == 0 {
				// A crash with the shipyard empty in that last turn
				// loses instead and looks the same: say so.
				sc.Ended += ", unless a ship was destroyed at the end with none left in the shipyard (then it lost)"
			}
		default:
			sc.Ended = "the team lost: a destroyed ship could not be replaced (the shipyard is empty)"
		}
	}
}

// move is legal action a as a move of the scene.
func (f *fighterObs) move(id string, a int, obs []uint8) env.Move {
	m := env.Move{A: a, Name: actionNames[a]}
	k := max(f.cur, 0)
	ks := strconv.Itoa(k)
	ship := "ship-" + ks
	cell := f.ship[k]
	switch {
	case a < ActionBonus:
		w := a - ActionWeapon
		m.Words, m.Help = "choose the "+weaponTitles[w], weaponTitles[w]+" (1 Special): "+weaponHelp[w]
	case a < ActionEngine:
		b := a - ActionBonus
		m.Words, m.Help = "take the "+faceTitles[b]+" bonus tile", "one more "+faceTitles[b]+" symbol every turn, beside the four dice"
	case a < ActionFire:
		e := a - ActionEngine
		m.Words, m.Help = "fit the "+engineTitles[e], engineTitles[e]+": "+engineHelp[e]
	case a == ActionFire:
		m.Words = "fire straight ahead"
		m.Help = "spend a Fire symbol (or Fire-or-Special): destroy the top alien of the closest stack straight ahead, up to zone 8"
		m.Select = []string{ship}
		if t := f.firstAlien(k, cell, obs); t >= 0 {
			m.Words = fmt.Sprintf("fire at the stack in zone %d", Zone(k, t))
			m.Target = []string{stackID(t), cellID(t)}
		}
	case a < ActionUseWeapon:
		d := a - ActionMove
		m.Words = "move " + moveWords[d]
		m.Help = "spend a Move symbol (with Thrusters a Special may do): move to the free space " + moveWords[d] + " in your atmosphere"
		m.Select = []string{ship}
		if t := neighbour(k, cell, d); t >= 0 {
			m.Target = []string{cellID(t)}
		}
	case a == ActionUseWeapon:
		w := max(f.weapon[k], 0)
		m.Words = "fire the " + weaponTitles[w]
		m.Help = "spend 1 Special: the " + weaponTitles[w] + " " + weaponHelp[w]
		m.Select, m.Target = []string{ship}, []string{"weapon-" + ks}
	case a < ActionSDS:
		z := a - ActionMissile + 4
		m.Words = fmt.Sprintf("Missile Command on zone %d", z)
		m.Help = fmt.Sprintf("spend 2 Specials: destroy the top alien of each of the five deep-space spaces of zone %d", z)
		m.Select = []string{"special-" + ks}
		for c := 3; c <= 7; c++ {
			m.Target = append(m.Target, cellID(Global(k, (Side-z)*Side+c)))
		}
	case a == ActionSDS:
		m.Words = "place a Shielded Defense tile ahead"
		m.Help = "spend 1 Special: a tile on the space ahead destroys every alien entering it and blocks fire, while your Phalanx lives"
		m.Select = []string{"special-" + ks}
		if t := neighbour(k, cell, 0); t >= 0 {
			m.Target = []string{cellID(t)}
		}
	case a == ActionDeflector:
		m.Words = "raise the Deflector shield"
		m.Help = "spend 1 Special: the ship is shielded until your next turn; an alien crashing into it is destroyed, the ship unharmed"
		if f.engine[k] >= 0 {
			m.Select, m.Target = []string{ship}, []string{"engine-" + ks}
		}
	case a < ActionEndTurn:
		z, c := (a-ActionWarp)/5+1, (a-ActionWarp)%5+1
		m.Words = fmt.Sprintf("warp to zone %d, column %d", z, c)
		m.Help = "spend 2 Specials: the Warp Drive jumps the ship to this free space of your atmosphere"
		if f.engine[k] >= 0 {
			m.Select = []string{"engine-" + ks}
		}
		m.Target = []string{cellID(AtmCell(k, z, c))}
	case a == ActionEndTurn:
		m.Words = "end the command phase"
		m.Help = "unused symbols are lost; then every alien whose stack top faces your district approaches"
		if f.used == 0 {
			m.Help = "no command has an effect: end the phase without one; " + m.Help[len("unused symbols are lost; "):]
		}
	default:
		src := max(f.spillSrc, 0)
		to := (src + 1 + 2*(a-ActionSpill)) % NumSeats
		side := [2]string{"left", "right"}[a-ActionSpill]
		m.Words = "spill over to " + seatNames[to]
		m.Help = fmt.Sprintf("%s is full: the next alien invading it goes to its %s neighbour, %s", seatNames[src], side, seatNames[to])
		m.Target = []string{"district-" + strconv.Itoa(to)}
	}
	return m
}

// firstAlien is the cell of the closest alien straight ahead of ship k on
// global cell, up to zone 8, stopping at a Shielded Defense tile, or -1
// (the rules' fireTarget, read from the observation).
func (f *fighterObs) firstAlien(k, cell int, obs []uint8) int {
	if cell < 0 {
		return -1
	}
	rc := &aheadRay[k][cell][1]
	for _, g := range rc.cells[:rc.n3] {
		if obs[OffSDS+Local(f.o, int(g))] != 0 {
			return -1
		}
		if f.height[g] > 0 {
			return int(g)
		}
	}
	return -1
}

// HowToPlay returns Galaxy Fighters' rules in plain words (env.Presenter),
// from docs/rules/galaxy-fighters.md.
func (Game) HowToPlay() string {
	return `Four hero ships defend the four districts of Galaxy City, Rocketown, Atomville, Novaport and Astrofield, against Exovon aliens; the whole team wins or loses together. With 4 players each flies one ship; with 2, each flies two (Rocketown & Novaport, Atomville & Astrofield); with 3, Astrofield's ship is flown by each player in turn (Assumptions 3 and 4). Rocketown plays first, then the turn passes clockwise (Assumption 1).

At setup each ship (a random ship card: Astro Wing, Phalanx or Gladius; Assumption 8) chooses a weapon system, a bonus command tile (Fire, Move or Special: one more of that symbol every turn; Assumption 7) and one of its card's two engine modifications (Assumptions 9 and 10).

A turn: the top spawn card lays aliens in deep space (the cards are the game's fixed set of 26; Assumption 5; at most 32 aliens share a space, Assumption 24). Then roll four command dice (Fire, Fire, Move, Move, Special, Fire-or-Special; Assumption 6) and use commands one at a time: Fire hits the top alien of the closest stack straight ahead (up to zone 8; Assumption 15); Move takes the ship to a free space next to it in its atmosphere; Special symbols power the weapon (1), the ship's special (Missile Command 2, Shielded Defense tile 1, or the passive Drone; Assumptions 20-22) or the engine (Deflector 1, Warp Drive 2). Fire-or-Special is spent last (Assumption 12). Commands with no effect are not offered; with none, end the phase at once (Assumptions 13 and 14).

Then every stack whose top alien faces your district moves toward it: Yellum 1 space, Bluvol 2, Magentis 3; a stack of several frenzies, each alien by its own facing (Assumption 16). An alien flying into a ship destroys it (a shielded ship survives; Assumption 17) and a ship from the shipyard replaces it (refitted on its next turn; Assumption 11). Aliens leaving the board past a district invade it (none can drift off into a corner; Assumption 18); a full district spills over to a neighbour, your choice when both have room (Assumptions 2 and 19).

The team loses when the mission's number of districts is full or a destroyed ship cannot be replaced, and wins once the spawn deck is out and the board clear (Assumption 23; v2 lays extra reinforcement cards, Assumption 25).`
}
