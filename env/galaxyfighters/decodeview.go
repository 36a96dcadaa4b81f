package galaxyfighters

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// LoadObservation makes s the position that obs (ObsSize bytes, one
// player's observation) shows, for a search that plays its commands and
// the approach phase after them with the real rules (Command, Approach)
// without ever seeing the hidden information. The observer's frame is the
// global frame: relative seat i (i places to the observer's left) is seat
// i, and a command given in the acting seat's frame means the same as in
// the game, for all the rules are invariant under this relabelling. The
// aliens under the top of a stack, whose order the observation does not
// show, are laid bottom first by type and facing; the spawn deck and the
// shipyard hold as many cards as the observation counts (every ship card
// an AstroWing, ShipyardModel); the parameters are those the observation
// shows (districts to lose, invader spaces, win_on) under v1's rules, for
// four players, with no chance generator: s serves Command and Approach,
// not Apply. An observation that no position shows (not ObsSize bytes
// long: a panic) gives some position, never an error.
//
// The parameters of every observation an environment writes are shared,
// never changing, by all the States loaded with them, so LoadObservation
// does not allocate and a State loaded so is copied by assignment; only
// counters out of the parameters' ranges get parameters of their own.
func (s *State) LoadObservation(obs []uint8) {
	obs = obs[:ObsSize]
	d, c, w := int(obs[OffToLose]), int(obs[OffInvaderCap]), boolInt(obs[OffWinOnClear] == 1)
	var cfg *config
	if d < len(observedConfigs) && c < len(observedConfigs[d]) {
		cfg = &observedConfigs[d][c][w]
	} else {
		cfg = &config{players: NumSeats, districtsToLose: d, invaderCap: c, winOnClear: w == 1}
	}
	*s = State{cfg: cfg, spillSrc: -1, card: -1, started: true}
	s.decodeView(obs) // the observer's frame is the global frame
}

// observedConfigs[d][c][w] are the parameters LoadObservation gives an
// observation that shows d districts to lose, c invader spaces and
// win_on=clear when w is 1 (for every value the parameters allow).
var observedConfigs = func() (t [NumSeats + 1][maxInvaders + 1][2]config) {
	for d := range t {
		for c := range t[d] {
			for w := range t[d][c] {
				t[d][c][w] = config{players: NumSeats, districtsToLose: d, invaderCap: c, winOnClear: w == 1}
			}
		}
	}
	return t
}()

// atmosphereCells[seat] lists the 15 cells of seat's atmosphere, in
// increasing order.
var atmosphereCells = func() (a [NumSeats][15]uint8) {
	for k := 0; k < NumSeats; k++ {
		n := 0
		for g := 0; g < Cells; g++ {
			if InAtmosphere(k, g) {
				a[k][n] = uint8(g)
				n++
			}
		}
	}
	return a
}()

// decodeViewStack is decodeStack(0, g, g, obs, nil) for a stack (height
// not 0): the aliens under the top bottom first by kind, the top last,
// written straight into the stack; an invalid stack is left empty, as
// decodeStack leaves it.
func (s *State) decodeViewStack(cell uint8, obs *[ObsSize]uint8) {
	g := int(cell) // at most 255: the observation's indices need no check
	h := int(obs[OffHeight+g])
	if h > maxStack {
		return
	}
	// The top: a valid observation sets one of the twelve bytes to 1, the
	// others 0, and its index is then their weighted sum. All twelve are
	// read at once, without a branch on each (BenchmarkViewLoad: about
	// 580 -> 480 ns a Load, the reads overlapping); anything else takes the
	// first byte set, as decodeStack does.
	t := func(k int) int { return int(obs[OffTop+k*plane+g]) }
	top := t(1) + 2*t(2) + 3*t(3) + 4*t(4) + 5*t(5) + 6*t(6) + 7*t(7) + 8*t(8) + 9*t(9) + 10*t(10) + 11*t(11)
	if t(0)+t(1)+t(2)+t(3)+t(4)+t(5)+t(6)+t(7)+t(8)+t(9)+t(10)+t(11) != 1 {
		top = -1
		for k := 0; k < 12; k++ {
			if obs[OffTop+k*plane+g] != 0 {
				top = k
				break
			}
		}
		if top < 0 {
			return
		}
	}
	st := s.st[g][:h] // h <= maxStack
	n, under := 0, len(st)-1
	// Kind k's code is makeAlien(k/4, k%4) = k+4 (the observer's frame is
	// the global one).
	for k := 0; k < 12 && n < under; k++ {
		cnt := int(obs[OffCount+k*plane+g]) - boolInt(k == top)
		for ; cnt > 0 && n < under; cnt-- {
			st[n] = uint8(k + 4)
			n++
		}
	}
	if n < under { // the first saturated count takes the rest
		for k := 0; k < 12; k++ {
			if obs[OffCount+k*plane+g] >= obsMaxCount {
				for ; n < under; n++ {
					st[n] = uint8(k + 4)
				}
				break
			}
		}
		if n < under {
			clear(st) // the counts show too few aliens
			return
		}
	}
	st[n] = uint8(top + 4)
	s.h[g] = uint8(h)
	s.aliens += int16(h)
}

// decodeView is decodeObs(0, obs, nil) for a valid observation
// (LoadObservation ignores decodeObs's errors), visiting only the spaces
// that matter: the board's stacks, each ship's plane from its end, the
// drones and SDS tiles of each ship's own atmosphere.
func (s *State) decodeView(obs []uint8) {
	o := (*[ObsSize]uint8)(obs)
	// The height plane eight cells a word: only the stacks are decoded (a
	// cell off the board has height 0).
	const lo, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	for i := 0; i <= Cells-8; i += 8 {
		x := binary.LittleEndian.Uint64(o[OffHeight+i:])
		for m := ((x & lo) + lo | x) & hi; m != 0; m &= m - 1 { // the bytes that are not 0
			s.decodeViewStack(uint8(i+bits.TrailingZeros64(m)/8), o)
		}
	}
	if o[OffHeight+Cells-1] != 0 {
		s.decodeViewStack(Cells-1, o)
	}
	s.decodeSeatsAndCounters(0, o)
	for k := 0; k < NumSeats; k++ {
		sh := &s.ships[k]
		// A valid observation shows each ship once, as a 1.
		if l := bytes.IndexByte(obs[OffShips+k*plane:OffShips+(k+1)*plane], 1); l >= 0 {
			sh.cell = int8(l)
		}
		switch sh.model {
		case Gladius:
			for _, g := range &atmosphereCells[k] {
				if obs[OffDrones+int(g)] != 0 {
					sh.drone = int8(g)
				}
			}
		case Phalanx:
			for _, g := range &atmosphereCells[k] {
				if obs[OffSDS+int(g)] != 0 {
					if sh.sds[0] < 0 {
						sh.sds[0] = int8(g)
					} else {
						sh.sds[1] = int8(g)
					}
				}
			}
		}
	}
}
