package galaxyfighters

import (
	"slices"
	"testing"
)

// TestSearchAPIIsTheRules checks the geometry and alien-code exports of
// searchapi.go against the rules' own tables and encodings: the alien codes round-trip and agree
// with AlienKind and the code's low bits, Step is the approach phase's step
// (an alien leaving the grid invades, one entering a corner drifts away),
// Neighbour stays in the seat's atmosphere, DronePref is a permutation of
// the eight directions.
func TestSearchAPIIsTheRules(t *testing.T) {
	for typ := 0; typ < NumAlienTypes; typ++ {
		for d := North; d <= West; d++ {
			c := AlienCode(typ, d)
			if AlienType(c) != typ || AlienDir(c) != d || AlienKind(c) != typ*4+d || int(c&3) != d || c&15 < 4 {
				t.Errorf("alien %d facing %d: code %#x reads type %d dir %d kind %d", typ, d, c, AlienType(c), AlienDir(c), AlienKind(c))
			}
		}
	}
	var outs, corners int
	for c := 0; c < Cells; c++ {
		for d := North; d <= West; d++ {
			n, ok, out := Step(c, d)
			r, col := c/Side+dirDR[d], c%Side+dirDC[d]
			inGrid := r >= 0 && r < Side && col >= 0 && col < Side
			switch {
			case out:
				outs++
				if inGrid || ok || n != -1 {
					t.Errorf("Step(%d, %d) = %d %v %v: leaves the grid?", c, d, n, ok, out)
				}
			case n != r*Side+col || ok != OnBoard(r, col):
				t.Errorf("Step(%d, %d) = %d %v %v, want %d %v", c, d, n, ok, out, r*Side+col, OnBoard(r, col))
			case !ok:
				corners++
			}
		}
		for seat := 0; seat < NumSeats; seat++ {
			for m := 0; m < 8; m++ {
				if n := Neighbour(seat, c, m); n >= 0 && !InAtmosphere(seat, n) {
					t.Errorf("Neighbour(%d, %d, %d) = %d, outside the atmosphere", seat, c, m, n)
				}
			}
		}
	}
	if outs == 0 || corners == 0 {
		t.Errorf("Step never leaves the grid (%d) or never enters a corner (%d)", outs, corners)
	}
	p := DronePref()
	slices.Sort(p[:])
	if p != [8]int{0, 1, 2, 3, 4, 5, 6, 7} {
		t.Errorf("DronePref %v is not a permutation of the eight directions", DronePref())
	}
}
