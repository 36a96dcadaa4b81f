package galaxyexpress

import "math/bits"

// The Star Chart is 8 columns by 6 rows (4x3 tiles of 2x2 squares). Square
// index sq = row*Cols + col, row 0 at the top, col 0 at the left. A board
// set is a uint64 with bit sq set; only the low 48 bits are used, and each
// row is one byte, which makes wrap-around slides a handful of shifts.
const (
	Cols    = 8
	Rows    = 6
	Squares = Cols * Rows // 48

	full48 = uint64(1)<<Squares - 1
)

// Directions of a Warp Slide, in action order.
const (
	North = iota // row - 1
	East         // col + 1
	South        // row + 1
	West         // col - 1
	NumDirs
)

var dirNames = [NumDirs]string{"north", "east", "south", "west"}

// byteMaskGE[k] has, in every byte of the 48-bit board, the bits >= k set.
// It is a variable initializer, not part of init, so that it is ready
// before any use.
var byteMaskGE = func() (m [9]uint64) {
	for k := 0; k <= 8; k++ {
		for r := 0; r < Rows; r++ {
			m[k] |= uint64(0xFF<<k&0xFF) << (8 * r)
		}
	}
	return m
}()

// scanTables[wrap][sq] is the set scanned from sq: the square itself and its
// orthogonal neighbours (across the edges only when wrap is true).
var scanTables [2][Squares]uint64

func init() {
	for w := 0; w < 2; w++ {
		for sq := 0; sq < Squares; sq++ {
			r, c := sq/Cols, sq%Cols
			m := uint64(1) << sq
			for d := 0; d < NumDirs; d++ {
				dr, dc := dirDelta(d)
				nr, nc := r+dr, c+dc
				if w == 1 {
					nr, nc = (nr+Rows)%Rows, (nc+Cols)%Cols
				} else if nr < 0 || nr >= Rows || nc < 0 || nc >= Cols {
					continue
				}
				m |= 1 << (nr*Cols + nc)
			}
			scanTables[w][sq] = m
		}
	}
}

func dirDelta(d int) (dr, dc int) {
	switch d {
	case North:
		return -1, 0
	case East:
		return 0, 1
	case South:
		return 1, 0
	default:
		return 0, -1
	}
}

// slideSquare moves sq by n squares in direction d, wrapping around the edges
// (seed: "Movement on the board wraps around to the other side").
func slideSquare(sq, d, n int) int {
	r, c := sq/Cols, sq%Cols
	switch d {
	case North:
		r = (r - n%Rows + Rows) % Rows
	case South:
		r = (r + n) % Rows
	case East:
		c = (c + n) % Cols
	default:
		c = (c - n%Cols + Cols) % Cols
	}
	return r*Cols + c
}

// eastBy rotates every row of b right-ward (towards higher columns) by k in
// [0, 8).
func eastBy(b uint64, k int) uint64 {
	if k == 0 {
		return b
	}
	return (b<<k)&byteMaskGE[k] | (b>>(8-k))&^byteMaskGE[k]&full48
}

// southBy rotates the rows of b downward by k in [0, 6).
func southBy(b uint64, k int) uint64 {
	if k == 0 {
		return b
	}
	return (b<<(8*k) | b>>(8*(Rows-k))) & full48
}

// slideSet returns every square reachable from a square of b by one Warp
// Slide of exactly n > 0 squares in one of the four directions.
func slideSet(b uint64, n int) uint64 {
	h, v := n%Cols, n%Rows
	return eastBy(b, h) | eastBy(b, (Cols-h)%Cols) | southBy(b, v) | southBy(b, (Rows-v)%Rows)
}

// slideDirs[n] has bit d set when direction d is the first of the
// directions landing on its square at speed n (see duplicateDir); at speed 0
// nothing slides and North alone stands for the coin.
var slideDirs = func() (t [maxSpeed + 1]uint8) {
	t[0] = 1 << North
	for n := 1; n < len(t); n++ {
		for d := 0; d < NumDirs; d++ {
			if !duplicateDir(d, n) {
				t[n] |= 1 << d
			}
		}
	}
	return t
}()

// dirBytes[dirs] spreads a 4-bit direction set into four mask bytes, N
// lowest, as one little-endian word.
var dirBytes = func() (t [16]uint32) {
	for m := range t {
		for d := 0; d < NumDirs; d++ {
			if m&(1<<d) != 0 {
				t[m] |= 1 << (8 * d)
			}
		}
	}
	return t
}()

// duplicateDir reports whether direction d lands where an earlier direction
// already lands at speed n: a slide of n = 4 or 8 across (East and West meet),
// or n = 3 or 6 down (North and South meet). Only the first stays legal.
func duplicateDir(d, n int) bool {
	switch d {
	case South:
		return n%Rows == 0 || 2*(n%Rows) == Rows
	case West:
		return n%Cols == 0 || 2*(n%Cols) == Cols
	}
	return false
}

// squareName is "a1".."h6": column letter, row number counted from the top.
func squareName(sq int) string {
	return string(rune('a'+sq%Cols)) + string(rune('1'+sq/Cols))
}

func popcount(b uint64) int { return bits.OnesCount64(b) }

// Slide returns the square (0..47) reached from square sq by a Warp Slide
// of n >= 0 squares in direction dir (North, East, South or West), wrapping
// around the edges (seed: "Movement on the board wraps around").
func Slide(sq, dir, n int) int { return slideSquare(sq, dir, n) }

// ScanSet returns, as a 48-bit board set, the squares scanned from square
// sq after a slide: sq itself and its orthogonal neighbours, across the
// board edges only when wrap is true (the scan_wrap parameter).
func ScanSet(sq int, wrap bool) uint64 {
	if wrap {
		return scanTables[1][sq]
	}
	return scanTables[0][sq]
}
