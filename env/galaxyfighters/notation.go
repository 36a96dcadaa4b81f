package galaxyfighters

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// The position notation is a compact, complete text form of a state (hidden
// information and the generator included), used by the rules tests, bug
// reports and the JSON form of a state. Eleven lines of eleven cells draw
// the board in the global frame (seat 0, Rocketown, at the bottom; seat 1
// Atomville on the left/west, seat 2 Novaport at the top, seat 3
// Astrofield on the right/east):
//
//	#        off the board (the four 3x3 corners)
//	.        empty space
//	YvB<     a stack of aliens, bottom first: type Y(ellum), B(luvol),
//	         M(agentis) and global facing ^ (north), > (east), v (south),
//	         < (west); an alien facing v heads for Rocketown
//	@k @k*   the ship of seat k; * when shielded
//	dk xk    seat k's drone, seat k's Shielded Defense System tile
//
// then space-separated fields, all optional:
//
//	phase=weapon|bonus|engine|command|spill|over     (default command)
//	seat=K          the seat acting (default 0)
//	setup=true      the initial setup is still running (default false)
//	shipK=MODEL/WEAPON/ENGINE/BONUS  e.g. ship0=gladius/laser-beam/warp-drive/fire;
//	                "-" for a choice not made (default astro-wing/wide-beam/thrusters/fire)
//	pool=F,M,S,W    command symbols left: fire, move, special, fire-or-special
//	used=N          commands used this turn
//	deck=A,B,...    spawn cards left (numbers 1-25), drawn from the end (default none)
//	yard=a,p,g,...  shipyard models, drawn from the end (default none)
//	inv=A,B,C,D     invaders beside each district
//	spill=A,B,C,D   aliens waiting to spill over from each district
//	spillsrc=K      district whose spill-over is being decided (phase=spill)
//	turns=T turns3=N card=C
//	stats=destroyed,crashes,invasions,drifted,shipslost
//	noship=true     a destroyed ship could not be replaced
//	outcome=win|loss
//	rng=HEX         the chance generator (MarshalBinary, hex)
//
// perr returns an *env.PositionError: "galaxyfighters: position: REASON".
func perr(format string, a ...any) error { return env.PositionErrorf("galaxyfighters", format, a...) }

var modelCodes = [numModels]string{"astro-wing", "phalanx", "gladius"}
var faceCodes = [numBonusTiles]string{"fire", "move", "special"}

func codeOf(names []string, v int8) string {
	if v < 0 {
		return "-"
	}
	return names[v]
}

func indexOf(names []string, s string) (int8, bool) {
	if s == "-" {
		return -1, true
	}
	for i, n := range names {
		if n == s {
			return int8(i), true
		}
	}
	return 0, false
}

// cellToken writes one board cell.
func (s *State) cellToken(g int) string {
	if !onBoard[g] {
		return "#"
	}
	for k := range s.ships {
		sh := &s.ships[k]
		switch {
		case int(sh.cell) == g && sh.shielded:
			return "@" + itoa(k) + "*"
		case int(sh.cell) == g:
			return "@" + itoa(k)
		case int(sh.drone) == g:
			return "d" + itoa(k)
		case int(sh.sds[0]) == g || int(sh.sds[1]) == g:
			return "x" + itoa(k)
		}
	}
	if s.h[g] == 0 {
		return "."
	}
	var b []byte
	for i := 0; i < int(s.h[g]); i++ {
		a := s.st[g][i]
		b = append(b, typeLetters[alienType(a)], arrows[alienDir(a)])
	}
	return string(b)
}

func joinInts[T int8 | uint8 | int16](v []T) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(int(x))
	}
	return strings.Join(parts, ",")
}

// Position writes the notation.
func (s *State) Position() string {
	var b strings.Builder
	for r := 0; r < Side; r++ {
		for c := 0; c < Side; c++ {
			if c > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s.cellToken(r*Side + c))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "phase=%s seat=%d", s.phase, s.cur)
	if !s.started {
		b.WriteString(" setup=true")
	}
	for k := range s.ships {
		sh := &s.ships[k]
		fmt.Fprintf(&b, " ship%d=%s/%s/%s/%s", k, modelCodes[sh.model], codeOf(weaponNames[:], sh.weapon),
			codeOf(engineNames[:], sh.engine), codeOf(faceCodes[:], sh.bonus))
	}
	fmt.Fprintf(&b, " pool=%s used=%d", joinInts(s.pool[:]), s.used)
	if s.deckN > 0 {
		fmt.Fprintf(&b, " deck=%s", joinInts(s.deck[:s.deckN]))
	}
	if s.yardN > 0 {
		ys := make([]string, s.yardN)
		for i := range ys {
			ys[i] = modelCodes[s.yard[i]][:1]
		}
		fmt.Fprintf(&b, " yard=%s", strings.Join(ys, ","))
	}
	fmt.Fprintf(&b, " inv=%s spill=%s", joinInts(s.invaders[:]), joinInts(s.spill[:]))
	if s.spillSrc >= 0 {
		fmt.Fprintf(&b, " spillsrc=%d", s.spillSrc)
	}
	fmt.Fprintf(&b, " turns=%d turns3=%d card=%d", s.turns, s.turns3, s.card)
	fmt.Fprintf(&b, " stats=%s", joinInts([]int16{s.destroyed, s.crashes, s.invasions, s.drifted, int16(s.shipsLost)}))
	if s.noShip {
		b.WriteString(" noship=true")
	}
	switch s.outcome {
	case won:
		b.WriteString(" outcome=win")
	case lost:
		b.WriteString(" outcome=loss")
	}
	rb, _ := s.rng.MarshalBinary()
	fmt.Fprintf(&b, " rng=%s", hex.EncodeToString(rb))
	return b.String()
}

func parseInts(v string, n int, lo, hi int) ([]int, error) {
	parts := strings.Split(v, ",")
	if n >= 0 && len(parts) != n {
		return nil, fmt.Errorf("%q: want %d numbers", v, n)
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < lo || x > hi {
			return nil, fmt.Errorf("%q: want numbers in %d..%d", v, lo, hi)
		}
		out[i] = x
	}
	return out, nil
}

// ParsePosition reads the notation under the parameters of cfg (see
// [Config]; nil: the four-player defaults of the current version, ID); errors are prefixed
// "galaxyfighters: position:". It reads the board, then the fields, then
// checks the invariants the rules rely on.
func ParsePosition(text string, cfg *Config) (*State, error) {
	if cfg == nil {
		cfg = DefaultConfig(ID, NumSeats)
	}
	s := &State{cfg: cfg.c, phase: PhaseCommand, started: true, spillSrc: -1, card: -1}
	for k := range s.ships {
		s.ships[k] = ship{model: AstroWing, weapon: WideBeam, engine: Thrusters, bonus: FaceFire, cell: -1,
			drone: -1, sds: [2]int8{-1, -1}}
	}
	fields := strings.Fields(text)
	if len(fields) < Cells {
		return nil, perr("want 121 board cells, got %d tokens", len(fields))
	}
	for g, tok := range fields[:Cells] {
		if err := s.parseCell(g, tok); err != nil {
			return nil, err
		}
	}
	for _, f := range fields[Cells:] {
		key, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, perr("field %q: want key=value", f)
		}
		if err := s.parseField(key, v); err != nil {
			if _, typed := err.(*env.PositionError); typed {
				return nil, err
			}
			return nil, perr("field %q: %v", f, err)
		}
	}
	return s, s.validate()
}

// parseCell reads board cell g's token: off board, empty, a ship, drone or
// SDS tile, or a stack of aliens.
func (s *State) parseCell(g int, tok string) error {
	switch {
	case tok == "#":
		if onBoard[g] {
			return perr("%s is on the board, not #", CellName(g))
		}
		return nil
	case !onBoard[g]:
		return perr("%s is off the board: want #", CellName(g))
	case tok == ".":
		return nil
	case len(tok) >= 2 && strings.IndexByte("@dx", tok[0]) >= 0 && tok[1] >= '0' && tok[1] <= '3':
		return s.parseTile(g, tok)
	}
	as, err := parseAliens(tok)
	if err != nil {
		return perr("%s: %v", CellName(g), err)
	}
	if len(as) > maxStack {
		return perr("%s: more than %d aliens", CellName(g), maxStack)
	}
	for _, a := range as {
		s.push(g, a)
	}
	return nil
}

// parseTile reads a ship (@k, @k* shielded), drone (dk) or SDS tile (xk)
// of seat k on cell g.
func (s *State) parseTile(g int, tok string) error {
	k := int(tok[1] - '0')
	sh := &s.ships[k]
	switch {
	case tok[0] == '@' && (len(tok) == 2 || tok[2:] == "*"):
		if sh.cell >= 0 {
			return perr("two ships of seat %d", k)
		}
		sh.cell, sh.shielded = int8(g), len(tok) == 3
	case tok[0] == 'd' && len(tok) == 2:
		if sh.drone >= 0 {
			return perr("two drones of seat %d", k)
		}
		sh.drone = int8(g)
	case tok[0] == 'x' && len(tok) == 2:
		switch {
		case sh.sds[0] < 0:
			sh.sds[0] = int8(g)
		case sh.sds[1] < 0:
			sh.sds[1] = int8(g)
		default:
			return perr("more than %d SDS tiles of seat %d", maxSDS, k)
		}
	default:
		return perr("cell %q", tok)
	}
	return nil
}

// parseField reads one key=value field. Errors of parseInts and hex come
// back untyped; ParsePosition names the field in them.
func (s *State) parseField(key, v string) error {
	switch key {
	case "phase":
		p, ok := indexOf(phaseNames[:], v)
		if !ok || p < 0 {
			return perr("phase %q", v)
		}
		s.phase = Phase(p)
	case "seat":
		return parseInto(v, 0, 3, &s.cur)
	case "setup":
		s.started = v != "true"
	case "ship0", "ship1", "ship2", "ship3":
		return s.parseShip(int(key[4]-'0'), key, v)
	case "pool":
		x, err := parseInts(v, numFaces, 0, maxCommands)
		for i := range x {
			s.pool[i] = int8(x[i])
		}
		return err
	case "used":
		return parseInto(v, 0, maxCommands, &s.used)
	case "deck":
		x, err := parseInts(v, -1, 1, poolCards)
		if err == nil && len(x) > maxDeckSize {
			return perr("deck too long")
		}
		s.deckN = int8(len(x))
		for i := range x {
			s.deck[i] = int8(x[i])
		}
		return err
	case "yard":
		return s.parseYard(v)
	case "inv":
		x, err := parseInts(v, NumSeats, 0, s.cfg.invaderCap)
		for i := range x {
			s.invaders[i] = int8(x[i])
		}
		return err
	case "spill":
		x, err := parseInts(v, NumSeats, 0, 255)
		for i := range x {
			s.spill[i] = uint8(x[i])
		}
		return err
	case "spillsrc":
		return parseInto(v, 0, 3, &s.spillSrc)
	case "turns":
		return parseInto(v, 0, 30000, &s.turns)
	case "turns3":
		return parseInto(v, 0, 30000, &s.turns3)
	case "card":
		return parseInto(v, -1, poolCards, &s.card)
	case "stats":
		x, err := parseInts(v, 5, 0, 30000)
		if err == nil {
			s.destroyed, s.crashes, s.invasions, s.drifted = int16(x[0]), int16(x[1]), int16(x[2]), int16(x[3])
			s.shipsLost = int8(min(x[4], 127))
		}
		return err
	case "noship":
		s.noShip = v == "true"
	case "outcome":
		switch v {
		case "win":
			s.outcome = won
		case "loss":
			s.outcome = lost
		default:
			return perr("outcome %q", v)
		}
	case "rng":
		raw, err := hex.DecodeString(v)
		if err != nil {
			return err
		}
		return s.rng.UnmarshalBinary(raw)
	default:
		return perr("unknown field %q", key)
	}
	return nil
}

// parseInto reads one number in lo..hi into dst.
func parseInto[T int8 | int16](v string, lo, hi int, dst *T) error {
	x, err := parseInts(v, 1, lo, hi)
	if err == nil {
		*dst = T(x[0])
	}
	return err
}

// parseShip reads shipK=MODEL/WEAPON/ENGINE/BONUS.
func (s *State) parseShip(k int, key, v string) error {
	parts := strings.Split(v, "/")
	if len(parts) != 4 {
		return perr("%s=%q: want MODEL/WEAPON/ENGINE/BONUS", key, v)
	}
	sh := &s.ships[k]
	var ok [4]bool
	sh.model, ok[0] = indexOf(modelCodes[:], parts[0])
	sh.weapon, ok[1] = indexOf(weaponNames[:], parts[1])
	sh.engine, ok[2] = indexOf(engineNames[:], parts[2])
	sh.bonus, ok[3] = indexOf(faceCodes[:], parts[3])
	if ok != [4]bool{true, true, true, true} || sh.model < 0 {
		return perr("%s=%q", key, v)
	}
	if sh.engine >= 0 && modelEngines[sh.model][0] != int(sh.engine) && modelEngines[sh.model][1] != int(sh.engine) {
		return perr("%s: %s cannot mount %s", key, modelNames[sh.model], engineNames[sh.engine])
	}
	return nil
}

// parseYard reads yard=a,p,g,... (models, drawn from the end).
func (s *State) parseYard(v string) error {
	parts := strings.Split(v, ",")
	if len(parts) > maxBackup {
		return perr("yard too long")
	}
	s.yardN = int8(len(parts))
	for i, p := range parts {
		m := strings.Index("apg", p)
		if len(p) != 1 || m < 0 {
			return perr("yard model %q: want a, p or g", p)
		}
		s.yard[i] = int8(m)
	}
	return nil
}

// validate checks the invariants the rules rely on.
func (s *State) validate() error {
	for k := range s.ships {
		sh := &s.ships[k]
		if sh.cell < 0 {
			return perr("no ship of seat %d on the board", k)
		}
		if !InAtmosphere(k, int(sh.cell)) {
			return perr("the ship of seat %d is outside its atmosphere", k)
		}
		if s.h[sh.cell] > 0 {
			return perr("aliens on the ship of seat %d", k)
		}
		if sh.drone >= 0 && sh.model != Gladius {
			return perr("seat %d has a drone but no Gladius", k)
		}
		if (sh.sds[0] >= 0 || sh.sds[1] >= 0) && sh.model != Phalanx {
			return perr("seat %d has SDS tiles but no Phalanx", k)
		}
		for _, c := range [3]int8{sh.drone, sh.sds[0], sh.sds[1]} {
			if c >= 0 && s.h[c] > 0 {
				return perr("aliens on a tile of seat %d", k)
			}
		}
		if s.started && sh.bonus < 0 {
			return perr("seat %d has no bonus tile", k)
		}
	}
	if (s.phase == PhaseOver) != (s.outcome != ongoing) {
		return perr("phase over goes with an outcome")
	}
	if s.phase == PhaseSpill && (s.spillSrc < 0 || s.spill[s.spillSrc] == 0) {
		return perr("phase spill without an alien waiting at spillsrc")
	}
	if !s.started && s.phase > PhaseEngine && s.phase != PhaseOver {
		return perr("setup=true in phase %s", s.phase)
	}
	if s.phase >= PhaseWeapon && s.phase <= PhaseEngine {
		sh := &s.ships[s.cur]
		want := PhaseWeapon
		switch {
		case sh.weapon < 0:
		case sh.bonus < 0:
			want = PhaseBonus
		case sh.engine < 0:
			want = PhaseEngine
		default:
			want = -1
		}
		if s.phase != want {
			return perr("phase %s, but the ship of seat %d needs %d", s.phase, s.cur, want)
		}
	}
	if s.phase == PhaseCommand {
		sh := &s.ships[s.cur]
		if sh.weapon < 0 || sh.engine < 0 || sh.bonus < 0 {
			return perr("phase command, but the ship of seat %d is not fitted", s.cur)
		}
		n := 0
		for _, v := range s.pool {
			n += int(v)
		}
		if n == 0 || n+int(s.used) > maxCommands {
			return perr("phase command with %d symbols left and %d used", n, s.used)
		}
	}
	return nil
}
