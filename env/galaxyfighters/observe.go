package galaxyfighters

import (
	"fmt"
	"strings"

	"github.com/galaxygym/galaxygym/env"
)

// Observation layout: a flat uint8 vector of ObsSize = 4092 bytes, named
// once by the fields of layout (offsets below, shapes and meanings there),
// which Spec().ObservationLayout exports. The board planes are 121 bytes
// each over the 11x11 grid turned to the observer's side (the observer's
// seat is the player's number: player p sits at seat p and sees the board
// from there, district at the bottom), index row*11+col, row 0 the far
// edge. Relative seat i is the seat i places to the observer's left (i =
// (seat - observer) mod 4): 0 the observer, 1 the left neighbour, 2 across,
// 3 the right neighbour. Facings are in the observer's frame: 0 away, 1
// right, 2 toward the observer, 3 left.
//
// Hidden information (the order of the spawn deck and of the shipyard, the
// generator) never appears: only the counts.
const (
	plane           = Cells
	OffTop          = 0
	OffCount        = OffTop + 12*plane
	OffHeight       = OffCount + 12*plane
	OffShips        = OffHeight + plane
	OffDrones       = OffShips + 4*plane
	OffSDS          = OffDrones + plane
	OffShield       = OffSDS + plane
	OffBoard        = OffShield + plane
	OffSeats        = OffBoard + plane
	seatBytes       = 19
	OffPool         = OffSeats + NumSeats*seatBytes
	OffUsed         = OffPool + numFaces
	OffPhase        = OffUsed + 1
	OffSpillSeat    = OffPhase + 6
	OffDeckLeft     = OffSpillSeat + 4
	OffYardLeft     = OffDeckLeft + 1
	OffInvaded      = OffYardLeft + 1
	OffToLose       = OffInvaded + 1
	OffInvaderCap   = OffToLose + 1
	OffSpillWaiting = OffInvaderCap + 1
	OffTurns        = OffSpillWaiting + 1
	OffWinOnClear   = OffTurns + 1
	ObsSize         = OffWinOnClear + 1
	obsMaxCount     = 15
	obsMaxCounter   = 255
)

// Per-seat observation bytes: the block of relative seat rel starts at
// OffSeats + rel*SeatBytes.
const (
	SeatBytes      = seatBytes
	SeatModel      = 0  // +model, one-hot
	SeatWeapon     = 3  // +weapon, one-hot
	SeatEngine     = 6  // +engine, one-hot
	SeatBonus      = 9  // +bonus face, one-hot
	SeatShielded   = 12 // ship shielded
	SeatPlayedByMe = 13 // played by the observer now
	SeatActing     = 14 // acting now
	SeatRefit      = 15 // refit pending
	SeatInvaders   = 16 // invaders 0-10
	SeatFull       = 17 // district invaded
	SeatSDSPlaced  = 18 // SDS tiles placed
)

// layout names every byte of the observation; Spec().ObservationLayout
// holds a copy.
var layout = env.ObsLayout{
	env.Field("top", OffTop, []int{12, Side, Side}, "planes type*4+facing: the top alien of each space (one-hot over the 12 planes); types Yellum, Bluvol, Magentis; facing in the observer's frame 0 away, 1 right, 2 toward, 3 left"),
	env.Field("count", OffCount, []int{12, Side, Side}, "planes type*4+facing: aliens of that type and facing in each space's stack, 0-15 (saturating)"),
	env.Field("height", OffHeight, []int{Side, Side}, "stack height of each space, 0-32"),
	env.Field("ships", OffShips, []int{NumSeats, Side, Side}, "plane rel: the ship of relative seat rel (0 the observer, 1 the left neighbour, 2 across, 3 the right neighbour)"),
	env.Field("drones", OffDrones, []int{Side, Side}, "drones"),
	env.Field("sds", OffSDS, []int{Side, Side}, "Shielded Defense System tiles"),
	env.Field("shielded", OffShield, []int{Side, Side}, "shielded ships"),
	env.Field("board", OffBoard, []int{Side, Side}, "the 85 board spaces (constant)"),
	env.Field("seats", OffSeats, []int{NumSeats, seatBytes}, "per relative seat: model (bytes 0-2, one-hot: Astro Wing, Phalanx, Gladius), weapon (3-5: wide-beam, laser-beam, spread-shot), engine (6-8: thrusters, deflector, warp-drive), bonus tile (9-11: fire, move, special), 12 shielded, 13 played by the observer now, 14 acting now, 15 refit pending, 16 invaders 0-10, 17 district invaded, 18 SDS tiles placed 0-2"),
	env.Field("pool", OffPool, []int{numFaces}, "command symbols left: fire, move, special, fire-or-special (0-5 each)"),
	env.Field("used", OffUsed, []int{1}, "commands used this turn, 0-5"),
	env.Field("phase", OffPhase, []int{6}, "phase, one-hot: weapon, bonus, engine, command, spill, over"),
	env.Field("spill_seat", OffSpillSeat, []int{NumSeats}, "spill-over decision: relative seat of the full district, one-hot"),
	env.Field("deck_left", OffDeckLeft, []int{1}, "spawn cards left, 0-25"),
	env.Field("yard_left", OffYardLeft, []int{1}, "ship cards left in the shipyard, 0-5"),
	env.Field("districts_invaded", OffInvaded, []int{1}, "districts invaded, 0-4"),
	env.Field("districts_to_lose", OffToLose, []int{1}, "invaded districts that lose the game, 1-4"),
	env.Field("invader_spaces", OffInvaderCap, []int{1}, "invader spaces beside each district, 6-10"),
	env.Field("spill_waiting", OffSpillWaiting, []int{1}, "aliens waiting to spill over, 0-255 (saturating)"),
	env.Field("turns", OffTurns, []int{1}, "turns played, 0-255 (saturating)"),
	env.Field("win_on_clear", OffWinOnClear, []int{1}, "1: win_on clear, 0: last_card"),
}

// obsBoard[o] is observer o's board plane: 1 on every local cell that is
// on the board.
var obsBoard = func() (t [NumSeats][plane]uint8) {
	for o := range t {
		for g := 0; g < Cells; g++ {
			if onBoard[g] {
				t[o][Local(o, g)] = 1
			}
		}
	}
	return t
}()

// obsAlien[o][a&15] is the plane of alien a (its type and facing in
// observer o's frame) among the 12 of OffTop and OffCount.
var obsAlien = func() (t [NumSeats][16]int16) {
	for o := range t {
		for a := range t[o] {
			t[o][a] = int16(alienType(uint8(a))*4 + LocalDir(o, alienDir(uint8(a))))
		}
	}
	return t
}()

// Observe writes player's observation into dst. Every byte is written
// whatever dst held: the board plane is copied from obsBoard, the rest
// cleared and filled; only the cells holding aliens are visited.
func (s *State) Observe(player int, dst []uint8) {
	dst = dst[:ObsSize]
	o := player // the observer's seat
	clear(dst[:OffBoard])
	copy(dst[OffBoard:OffBoard+plane], obsBoard[o][:])
	clear(dst[OffBoard+plane:])
	loc, ak := &toLocal[o], &obsAlien[o]
	for g := 0; g < Cells; g++ {
		h := int(s.h[g])
		if h == 0 || !onBoard[g] {
			continue
		}
		l := int(loc[g])
		dst[OffHeight+l] = uint8(h)
		st := &s.st[g]
		for i := 0; i < h; i++ {
			if p := &dst[OffCount+int(ak[st[i]&15])*plane+l]; *p < obsMaxCount {
				*p++
			}
		}
		dst[OffTop+int(ak[st[h-1]&15])*plane+l] = 1
	}
	for k := range s.ships {
		sh := &s.ships[k]
		rel := (k - o + NumSeats) % NumSeats
		dst[OffShips+rel*plane+Local(o, int(sh.cell))] = 1
		if sh.drone >= 0 {
			dst[OffDrones+Local(o, int(sh.drone))] = 1
		}
		for _, c := range sh.sds {
			if c >= 0 {
				dst[OffSDS+Local(o, int(c))] = 1
				dst[OffSeats+rel*seatBytes+SeatSDSPlaced]++
			}
		}
		if sh.shielded {
			dst[OffShield+Local(o, int(sh.cell))] = 1
		}
		v := dst[OffSeats+rel*seatBytes:]
		v[SeatModel+sh.model] = 1
		if sh.weapon >= 0 {
			v[SeatWeapon+sh.weapon] = 1
		}
		if sh.engine >= 0 {
			v[SeatEngine+sh.engine] = 1
		}
		if sh.bonus >= 0 {
			v[SeatBonus+sh.bonus] = 1
		}
		if sh.shielded {
			v[SeatShielded] = 1
		}
		if s.controller(k) == player {
			v[SeatPlayedByMe] = 1
		}
		if k == int(s.cur) && s.phase != PhaseOver {
			v[SeatActing] = 1
		}
		if s.started && (sh.weapon < 0 || sh.engine < 0) {
			v[SeatRefit] = 1
		}
		v[SeatInvaders] = uint8(s.invaders[k])
		if int(s.invaders[k]) >= s.cfg.invaderCap {
			v[SeatFull] = 1
		}
	}
	for f := 0; f < numFaces; f++ {
		dst[OffPool+f] = uint8(s.pool[f])
	}
	dst[OffUsed] = uint8(s.used)
	dst[OffPhase+int(s.phase)] = 1
	if s.phase == PhaseSpill {
		dst[OffSpillSeat+(int(s.spillSrc)-o+NumSeats)%NumSeats] = 1
	}
	dst[OffDeckLeft] = uint8(s.deckN)
	dst[OffYardLeft] = uint8(s.yardN)
	dst[OffInvaded] = uint8(s.DistrictsInvaded())
	dst[OffToLose] = uint8(s.cfg.districtsToLose)
	dst[OffInvaderCap] = uint8(s.cfg.invaderCap)
	waiting := 0
	for _, n := range s.spill {
		waiting += int(n)
	}
	dst[OffSpillWaiting] = uint8(min(waiting, obsMaxCounter))
	dst[OffTurns] = uint8(min(int(s.turns), obsMaxCounter))
	if s.cfg.winOnClear {
		dst[OffWinOnClear] = 1
	}
}

// obsHigh returns the inclusive upper bound of every observation byte.
func obsHigh() []uint8 {
	h := make([]uint8, ObsSize)
	for i := range h {
		h[i] = 1
	}
	for i := 0; i < 12*plane; i++ {
		h[OffCount+i] = obsMaxCount
	}
	for i := 0; i < plane; i++ {
		h[OffHeight+i] = maxStack
	}
	for k := 0; k < NumSeats; k++ {
		h[OffSeats+k*seatBytes+SeatInvaders] = maxInvaders
		h[OffSeats+k*seatBytes+SeatSDSPlaced] = maxSDS
	}
	for f := 0; f < numFaces; f++ {
		h[OffPool+f] = maxCommands
	}
	h[OffUsed] = maxCommands
	h[OffDeckLeft] = maxDeckSize
	h[OffYardLeft] = maxBackup
	h[OffInvaded] = NumSeats
	h[OffToLose] = NumSeats
	h[OffInvaderCap] = maxInvaders
	h[OffSpillWaiting] = obsMaxCounter
	h[OffTurns] = obsMaxCounter
	return h
}

// String renders the position (global frame, Rocketown at the bottom),
// without hidden information.
func (s *State) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Galaxy Fighters (%s), turn %d, %s: seat %d %s, player %d\n", s.cfg.mission, s.turns+1,
		s.phase, s.cur, seatNames[s.cur], s.CurrentPlayer())
	for r := 0; r < Side; r++ {
		var line strings.Builder
		for c := 0; c < Side; c++ {
			t := s.cellToken(r*Side + c)
			if t == "#" {
				t = " "
			}
			fmt.Fprintf(&line, "%-5s", t)
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	for k := range s.ships {
		sh := &s.ships[k]
		fmt.Fprintf(&b, "seat %d %-10s %-10s %-11s %-10s bonus %-7s invaders %d/%d\n", k, seatNames[k], modelNames[sh.model],
			codeOf(weaponNames[:], sh.weapon), codeOf(engineNames[:], sh.engine), codeOf(faceCodes[:], sh.bonus),
			s.invaders[k], s.cfg.invaderCap)
	}
	fmt.Fprintf(&b, "commands fire %d move %d special %d fire-or-special %d (used %d); spawn deck %d, shipyard %d, aliens %d",
		s.pool[FaceFire], s.pool[FaceMove], s.pool[FaceSpecial], s.pool[FaceWild], s.used, s.deckN, s.yardN, s.aliens)
	if s.outcome == won {
		b.WriteString("; won")
	} else if s.outcome == lost {
		b.WriteString("; lost")
	}
	b.WriteByte('\n')
	return b.String()
}
