package galaxyfighters

import (
	"math/bits"
	"math/rand/v2"
	"strconv"

	"github.com/galaxygym/galaxygym/env"
)

// Phase is the decision the current player faces; its value is the index
// of the phase's one-hot byte in the observation (OffPhase + phase).
type Phase int

// The phases.
const (
	PhaseWeapon  Phase = iota // choose the ship's weapon system (setup or refit)
	PhaseBonus                // choose the bonus command tile (setup only)
	PhaseEngine               // choose the engine modification (setup or refit)
	PhaseCommand              // use a command (die or bonus tile), or end the command phase
	PhaseSpill                // place an alien spilling over from a full district: left or right
	PhaseOver                 // the game has ended
	numPhases
)

// phaseNames name the phases (the notation's phase= field).
var phaseNames = [numPhases]string{"weapon", "bonus", "engine", "command", "spill", "over"}

// String returns the phase's name: "weapon", "bonus", "engine", "command",
// "spill" or "over" (as the notation writes it), or "phase(N)" outside them.
func (p Phase) String() string {
	if p >= 0 && p < numPhases {
		return phaseNames[p]
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// Outcomes.
const (
	ongoing = 0
	won     = 1
	lost    = 2
)

// ship is one hero ship (seat k's ship is ships[k]).
type ship struct {
	model    int8
	weapon   int8 // -1 until chosen
	engine   int8 // -1 until chosen
	bonus    int8 // bonus command tile: FaceFire, FaceMove or FaceSpecial; -1 until chosen
	cell     int8 // global cell
	shielded bool
	drone    int8    // global cell of the Gladius drone, -1 none
	sds      [2]int8 // global cells of placed Shielded Defense System tiles, -1 none
}

// config holds the resolved parameters.
type config struct {
	players         int
	mission         string
	districtsToLose int
	backup          int
	deckSize        int
	invaderCap      int
	winOnClear      bool
	shaping         float64
	v2              bool    // galaxy-fighters-v2 rules
	density         float64 // spawn cards laid per spawn phase on average (v2; 1 in v1)
	bonusRule       int     // bonusAny or bonusTwoEach (v2)
}

// State is one Galaxy Fighters position, hidden information included (the
// order of the spawn deck and of the shipyard) and the chance generator.
type State struct {
	cfg *config

	h  [Cells]uint8           // stack heights
	st [Cells][maxStack]uint8 // stacks, bottom first

	ships    [NumSeats]ship
	invaders [NumSeats]int8
	spill    [NumSeats]uint8 // aliens waiting to spill over from a full district
	spillSrc int8            // district whose spill-over is being decided

	phase   Phase
	cur     int8 // seat of the ship whose turn (or setup) it is
	started bool // the initial setup is over
	turns3  int16
	turns   int16
	pool    [numFaces]int8
	used    int8
	card    int8 // last spawn card drawn, -1 none

	deck  [maxDeckSize]int8 // spawn deck (pool card numbers), drawn from the end
	deckN int8
	yard  [maxBackup]int8 // shipyard (models), drawn from the end
	yardN int8

	aliens    int16 // aliens on the board
	destroyed int16 // by weapons, specials, drones and SDS tiles
	crashes   int16
	invasions int16
	drifted   int16 // aliens that flew off the board into a corner
	shipsLost int8
	noShip    bool
	outcome   int8

	rng rand.PCG
}

func (s *State) intN(n int) int {
	hi, _ := bits.Mul64(s.rng.Uint64(), uint64(n))
	return int(hi)
}

func shuffle(s *State, a []int8) {
	for i := len(a) - 1; i > 0; i-- {
		j := s.intN(i + 1)
		a[i], a[j] = a[j], a[i]
	}
}

// newState deals a game: the ship cards (four dealt, the shipyard, the rest
// to the box), the spawn deck, then the starting card.
func newState(cfg *config, seed uint64) *State {
	s := &State{cfg: cfg, spillSrc: -1, card: -1}
	s.rng = *rand.NewPCG(seed, 0x67616c6178796669) // "galaxyfi"
	deal := shipDeck
	shuffle(s, deal[:])
	for k := 0; k < NumSeats; k++ {
		s.ships[k] = ship{model: deal[k], weapon: -1, engine: -1, bonus: -1, cell: int8(HomeCell(k)),
			drone: -1, sds: [2]int8{-1, -1}}
	}
	s.yardN = int8(cfg.backup)
	copy(s.yard[:], deal[NumSeats:NumSeats+cfg.backup])
	var pool [poolCards]int8
	for i := range pool {
		pool[i] = int8(i + 1)
	}
	shuffle(s, pool[:])
	s.deckN = int8(cfg.deckSize)
	copy(s.deck[:], pool[:cfg.deckSize])
	for k := 0; k < NumSeats; k++ {
		if s.ships[k].model == Gladius {
			s.placeDrone(k, -1)
		}
	}
	s.placeCard(startCard, 0)
	s.phase = PhaseWeapon
	return s
}

// Clone returns an independent copy.
func (s *State) Clone() env.State { c := *s; return &c }

// controller returns the player who plays seat's ship now.
func (s *State) controller(seat int) int {
	switch s.cfg.players {
	case 2:
		return seat % 2
	case 3:
		if seat < 3 {
			return seat
		}
		return int(s.turns3) % 3
	}
	return seat
}

// Phase returns the current phase.
func (s *State) Phase() Phase { return s.phase }

// Seat returns the seat whose ship is acting.
func (s *State) Seat() int { return int(s.cur) }

// Won and Lost report the outcome.
func (s *State) Won() bool  { return s.outcome == won }
func (s *State) Lost() bool { return s.outcome == lost }

// Aliens returns the number of aliens on the board.
func (s *State) Aliens() int { return int(s.aliens) }

// Destroyed returns the number of aliens destroyed by the team.
func (s *State) Destroyed() int { return int(s.destroyed) }

// Invaders returns the number of invaders beside seat's district.
func (s *State) Invaders(seat int) int { return int(s.invaders[seat]) }

// Stack returns the aliens on a global cell, bottom first, as (type,
// global facing) pairs.
func (s *State) Stack(cell int) [][2]int {
	var out [][2]int
	for i := 0; i < int(s.h[cell]); i++ {
		a := s.st[cell][i]
		out = append(out, [2]int{alienType(a), alienDir(a)})
	}
	return out
}

// ShipCell returns the global cell of seat's ship.
func (s *State) ShipCell(seat int) int { return int(s.ships[seat].cell) }

// Shielded reports whether seat's ship is shielded.
func (s *State) Shielded(seat int) bool { return s.ships[seat].shielded }

// DistrictsInvaded returns how many districts have every invader space filled.
func (s *State) DistrictsInvaded() int {
	n := 0
	for _, v := range s.invaders {
		if int(v) >= s.cfg.invaderCap {
			n++
		}
	}
	return n
}

// SpawnLeft and ShipyardLeft return the cards left.
func (s *State) SpawnLeft() int    { return int(s.deckN) }
func (s *State) ShipyardLeft() int { return int(s.yardN) }

// Pool returns the unused command symbols: fire, move, special, wild.
func (s *State) Pool() [numFaces]int8 { return s.pool }

func (s *State) push(cell int, a uint8) {
	if s.h[cell] >= maxStack { // never reached with the printed content
		s.drifted++
		return
	}
	s.st[cell][s.h[cell]] = a
	s.h[cell]++
	s.aliens++
}

// hitTop destroys the top alien of cell.
func (s *State) hitTop(cell int) {
	if s.h[cell] > 0 {
		s.h[cell]--
		s.aliens--
		s.destroyed++
	}
}

func (s *State) clearCell(cell int) {
	s.aliens -= int16(s.h[cell])
	s.h[cell] = 0
}

// placeCard lays spawn card k on deep space as read from seat's side.
func (s *State) placeCard(k, seat int) {
	for _, a := range cards[k] {
		local := (3+int(a.row))*Side + 3 + int(a.col)
		s.push(Global(seat, local), makeAlien(int(a.typ), GlobalDir(seat, int(a.dir))))
	}
}

// shipAt returns the seat whose ship is on cell, or -1.
func (s *State) shipAt(cell int) int {
	for k := range s.ships {
		if int(s.ships[k].cell) == cell {
			return k
		}
	}
	return -1
}

func (s *State) droneAt(cell int) bool {
	for k := range s.ships {
		if int(s.ships[k].drone) == cell {
			return true
		}
	}
	return false
}

func (s *State) sdsAt(cell int) bool {
	for k := range s.ships {
		if int(s.ships[k].sds[0]) == cell || int(s.ships[k].sds[1]) == cell {
			return true
		}
	}
	return false
}

// tileFree reports whether cell holds no ship, drone or SDS tile.
func (s *State) tileFree(cell int) bool {
	return s.shipAt(cell) < 0 && !s.droneAt(cell) && !s.sdsAt(cell)
}

// free reports whether cell is empty: no alien, ship, drone or SDS tile.
func (s *State) free(cell int) bool { return s.h[cell] == 0 && s.tileFree(cell) }

// localMoves are the eight move directions in a seat's frame: n, ne, e,
// se, s, sw, w, nw (n is toward the centre of the board).
var localMoves = [8][2]int{{-1, 0}, {-1, 1}, {0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}}

// moveNames name the eight directions.
var moveNames = [8]string{"n", "ne", "e", "se", "s", "sw", "w", "nw"}

// neighbour returns seat's atmosphere cell next to global cell in local
// direction m, or -1 when that is outside the atmosphere.
func neighbour(seat, cell, m int) int {
	l := Local(seat, cell)
	r, c := l/Side+localMoves[m][0], l%Side+localMoves[m][1]
	if r < 8 || r > 10 || c < 3 || c > 7 {
		return -1
	}
	return Global(seat, r*Side+c)
}

// dronePref is the order in which the drone takes a space around the ship:
// w, e, s, sw, se, n, nw, ne.
var dronePref = [8]int{6, 2, 4, 5, 3, 0, 7, 1}

// placeDrone puts seat's drone next to its ship: on prev when that is a
// free neighbour, else on the first free neighbour in dronePref order,
// else on the first neighbour without a ship or tile, whose aliens are
// cleared (seed: Gladius clarification).
func (s *State) placeDrone(seat, prev int) {
	sh := &s.ships[seat]
	sh.drone = -1
	c := int(sh.cell)
	if prev >= 0 && prev != c {
		for m := 0; m < 8; m++ {
			if neighbour(seat, c, m) == prev && s.free(prev) {
				sh.drone = int8(prev)
				return
			}
		}
	}
	for _, m := range dronePref {
		if n := neighbour(seat, c, m); n >= 0 && s.free(n) {
			sh.drone = int8(n)
			return
		}
	}
	for _, m := range dronePref {
		if n := neighbour(seat, c, m); n >= 0 && s.tileFree(n) {
			s.clearCell(n)
			sh.drone = int8(n)
			return
		}
	}
}

// MarshalJSON serializes the state as {"position": notation}
// (env.MarshalPosition): the notation is complete, hidden information and
// the chance generator included.
func (s *State) MarshalJSON() ([]byte, error) { return env.MarshalPosition(s.Position()) }
