package galaxyfighters

import (
	"fmt"
	"slices"
	"strings"
)

// Exovon types and their speed (spaces a move).
const (
	Yellum   = 0 // 1 space, yellow
	Bluvol   = 1 // 2 spaces, blue
	Magentis = 2 // 3 spaces, purple
	numTypes = 3
)

// typeLetters name the Exovon types (Yellum, Bluvol, Magentis) in the
// notation; alienSpeed is each type's speed ([AlienSpeed]).
var (
	typeLetters = [numTypes]byte{'Y', 'B', 'M'}
	alienSpeed  = [numTypes]int{1, 2, 3}
)

// Command faces. The four command dice and the bonus command tiles show
// these symbols; FireOrSpecial (the "wild" face) is either.
const (
	FaceFire      = 0
	FaceMove      = 1
	FaceSpecial   = 2
	FaceWild      = 3
	numFaces      = 4
	numDice       = 4
	maxCommands   = numDice + 1 // four dice plus the bonus tile
	numBonusTiles = 3           // Fire, Move, Special
)

// dieFaces are the six faces of every command die (assumption A6): two
// Fire, two Move, one Special and one Fire-or-Special.
var dieFaces = [6]int{FaceFire, FaceFire, FaceMove, FaceMove, FaceSpecial, FaceWild}

// Weapon systems (one per ship, chosen at setup and after a replacement).
const (
	WideBeam   = 0
	LaserBeam  = 1
	SpreadShot = 2
	numWeapons = 3
)

// weaponNames name the weapon systems ([WeaponNames]).
var weaponNames = [numWeapons]string{"wide-beam", "laser-beam", "spread-shot"}

// AlienSpeed returns the spaces an Exovon of type t (Yellum, Bluvol,
// Magentis) moves in one move: 1, 2, 3. It panics for t out of range.
func AlienSpeed(t int) int { return alienSpeed[t] }

// WeaponNames returns a new slice of the weapon systems' names, index =
// weapon (WideBeam, LaserBeam, SpreadShot): the names of the notation and
// of the weapon parameters.
func WeaponNames() []string { return slices.Clone(weaponNames[:]) }

// Engine modifications (assumption A9).
const (
	Thrusters  = 0 // a Special symbol may be spent as a Move
	Deflector  = 1 // 1 Special: the ship is shielded until its next turn
	WarpDrive  = 2 // 2 Specials: jump to any free space of the atmosphere
	numEngines = 3
)

// engineNames name the engine modifications ([EngineNames]).
var engineNames = [numEngines]string{"thrusters", "deflector", "warp-drive"}

// EngineNames returns a new slice of the engine modifications' names,
// index = engine (Thrusters, Deflector, WarpDrive).
func EngineNames() []string { return slices.Clone(engineNames[:]) }

// Ship models (the ship cards; assumption A8).
const (
	AstroWing = 0 // Missile Command
	Phalanx   = 1 // Shielded Defense System
	Gladius   = 2 // helper Drone
	numModels = 3
)

// modelNames name the ship models.
var modelNames = [numModels]string{"Astro Wing", "Phalanx", "Gladius"}

// modelEngines lists the two engine modifications each ship card allows.
var modelEngines = [numModels][2]int{
	AstroWing: {Thrusters, WarpDrive},
	Phalanx:   {Deflector, Thrusters},
	Gladius:   {WarpDrive, Deflector},
}

// shipDeck is the deck of ship cards: three cards of each model
// (assumption A8). newState shuffles a copy.
var shipDeck = [9]int8{AstroWing, AstroWing, AstroWing, Phalanx, Phalanx, Phalanx, Gladius, Gladius, Gladius}

// Costs of the specials in Special symbols.
const (
	costWeapon    = 1
	costMissile   = 2
	costSDS       = 1
	costDeflector = 1
	costWarp      = 2
	maxSDS        = 2 // Shielded Defense System tiles per Phalanx
)

// mission is one printed difficulty: districts invaded that lose, backup
// ships, spawn deck size (the seed's table), and v2's calibrated spawn
// density (docs/rules/galaxy-fighters.md, "Calibration").
type mission struct {
	name            string
	districtsToLose int
	backupShips     int
	spawnDeck       int
	density         float64
}

// missions are the printed difficulties, in the order of the mission
// parameter's choices.
var missions = [...]mission{
	{"rookie", 3, 3, 15, 2.7},
	{"expert", 2, 3, 20, 2.65},
	{"ace", 1, 2, 25, 2.5},
}

// spawnCards is the fixed content of the spawn cards (assumption A5). Card
// 0 is the starting card (placed at setup, read from seat 0's side); cards
// 1-25 form the pool the spawn deck is shuffled from. Each card is five
// rows of five spaces, far row first, as read with the card's arrows
// pointing at the reader; a space is "." or a stack of aliens bottom first,
// each a type letter (Y, B, M) and a facing as seen by the reader: v toward
// the reader, ^ away, < to the reader's left, > to the right.
var spawnCards = [26]string{
	". . . . . | . . . . . | Y< . . . . | . Y< . . . | . . . Mv .",
	"Bv . Y> . B^ | . B< . . . | . . . . . | . . . . . | . . . . .",
	". . Y^ . Yv | Y< Yv . . . | . . . . . | . B< . . . | . . . . .",
	". . . . . | Yv . . . . | . . . . . | . Bv . . . | . . . . Y<",
	". Y< Yv . . | . . . . Yv | . . . . . | . . Yv . . | . . . . .",
	". . . M> . | . Y> Yv . . | . M^ . . . | . . . . . | . . Mv . .",
	". . Y< . . | Yv . . . . | Mv . . . . | . . . . . | . . . . .",
	". . . Yv . | . Yv . . Y< | . . . . . | . . . . . | . . Y< . .",
	". . Y< . . | . . . . Yv | B^ B< . M^ . | . . . . . | . . . . .",
	". . Y< . . | . Mv . . . | . . . . Yv | . . . . . | . . . . .",
	". . . . . | . Y^B< . . . | . . . . . | . . . . Yv | . . B< . .",
	"Yv . . . . | . . . MvBv . | Y^ Bv . . . | . . . . . | . . . . .",
	". . . . . | . . . . . | M^Bv . . . . | . . . . . | . . . B> .",
	"Bv . . Y< . | . . . . M^ | . B> . Bv . | . . . . . | . . . . .",
	". Y< . . Yv | M^ . . Yv Mv | . . . . . | . . . . . | . . . . Y>",
	". . . Y< . | . . . . . | . Y^ Y^ . Yv | . . . . . | . . . . .",
	". . . . . | . Y> . . . | . Yv . . . | . Y^ Y< . Bv | . . . . .",
	"Yv . . . Yv | . . . . . | Yv . . Bv Yv | . . . . Bv | . . . . .",
	". B> . . . | . . Y< B^ Bv | . . . . . | . . . . . | . . . . .",
	". . . . B<Yv | . . . . Mv | . . . . . | . B^ . . . | . Yv . . .",
	". . . . B< | . . BvBv Yv Bv | . . . . . | . . . . B> | . . . . .",
	". . . Y> Bv | . . . . . | . . . . Y< | . . . . . | . B< . . .",
	"B< . . . . | . . . . . | Bv . . Bv . | . . . . . | . Bv . . Mv",
	"M^ . Bv BvB> . | . . . . Yv | . . . . . | . . B< . . | . . . . .",
	". . . . . | . . . . M^ | Y<Yv . . . . | . . . . . | Y< . . . .",
	". . . . Mv | Bv . . . . | . B> . B<Yv . | . . . . . | . . . . .",
}

const (
	startCard    = 0
	poolCards    = 25
	maxStack     = 32
	maxDeckSize  = poolCards
	maxBackup    = 5 // len(shipDeck) - NumSeats
	maxInvaders  = 10
	cardMaxAlien = 8
)

// spawnAlien is one alien on a spawn card: local deep-space cell (row 0-4,
// col 0-4 as read), type and facing in the reader's frame.
type spawnAlien struct {
	row, col, typ, dir int8
}

// cards holds spawnCards parsed, aliens of a space bottom first.
var cards = func() (out [26][]spawnAlien) {
	for k, text := range spawnCards {
		rows := strings.Split(text, "|")
		if len(rows) != 5 {
			panic(fmt.Sprintf("galaxyfighters: spawn card %d: %d rows", k, len(rows)))
		}
		for i, row := range rows {
			toks := strings.Fields(row)
			if len(toks) != 5 {
				panic(fmt.Sprintf("galaxyfighters: spawn card %d row %d: %d spaces", k, i, len(toks)))
			}
			for j, tok := range toks {
				if tok == "." {
					continue
				}
				as, err := parseAliens(tok)
				if err != nil {
					panic(fmt.Sprintf("galaxyfighters: spawn card %d: %v", k, err))
				}
				for _, a := range as {
					out[k] = append(out[k], spawnAlien{int8(i), int8(j), int8(alienType(a)), int8(alienDir(a))})
				}
			}
		}
	}
	return out
}()

// Aliens are bytes: bits 0-1 the global facing, bits 2-3 the type + 1,
// bit 7 set while the alien has moved in the current approach phase.
const movedBit = 0x80

func makeAlien(typ, dir int) uint8 { return uint8((typ+1)<<2 | dir) }
func alienType(a uint8) int        { return int(a>>2&3) - 1 }
func alienDir(a uint8) int         { return int(a & 3) }

var arrows = [4]byte{'^', '>', 'v', '<'}

// parseAliens reads a stack like "YvB<" (bottom first); the facings are
// taken as directions as written (^ north/up, > east, v south, < west).
func parseAliens(tok string) ([]uint8, error) {
	if len(tok)%2 != 0 {
		return nil, fmt.Errorf("alien stack %q", tok)
	}
	var out []uint8
	for i := 0; i < len(tok); i += 2 {
		t := strings.IndexByte("YBM", tok[i])
		d := strings.IndexByte("^>v<", tok[i+1])
		if t < 0 || d < 0 {
			return nil, fmt.Errorf("alien %q", tok[i:i+2])
		}
		out = append(out, makeAlien(t, d))
	}
	return out, nil
}
