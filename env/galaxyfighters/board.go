package galaxyfighters

// The board is an 11x11 grid without its four 3x3 corners: 85 spaces. Cells
// are indexed row*11+col in the canonical ("global") frame, row 0 at the
// top. Deep space is rows 3-7 x cols 3-7. Seat 0's atmosphere (Rocketown)
// is rows 8-10 x cols 3-7 (the bottom edge); the seats follow clockwise as
// the turn passes to the left: seat 1 (Atomville) on the west side, seat 2
// (Novaport) on the north, seat 3 (Astrofield) on the east.
//
// Each seat has a local frame: the board turned so that the seat's district
// lies at the bottom. Local (r, c) maps to global by rotating clockwise k
// times for seat k, rotCW(r, c) = (c, 10-r). In a local frame, row 10 is
// zone 1, row 9 zone 2, row 8 zone 3 (the seat's atmosphere), rows 7..3 are
// zones 4..8 (deep space, and in those rows cols 0-2 and 8-10 are the
// neighbouring seats' atmospheres), rows 2..0 the opposite atmosphere.

const (
	Side     = 11
	Cells    = Side * Side // 121, of which 85 are on the board
	NumSeats = 4
)

// Directions, global or local: 0 up/north, 1 right/east, 2 down/south,
// 3 left/west. A seat's district lies "down" in its local frame, so in the
// global frame seat k's district is in direction (2+k)%4.
const (
	North = 0
	East  = 1
	South = 2
	West  = 3
)

var dirDR = [4]int{-1, 0, 1, 0}
var dirDC = [4]int{0, 1, 0, -1}

// seatNames are the districts (and the ship colours) of seats 0-3.
var seatNames = [NumSeats]string{"Rocketown", "Atomville", "Novaport", "Astrofield"}

// OnBoard reports whether global (r, c) is one of the 85 spaces.
func OnBoard(r, c int) bool {
	if r < 0 || r >= Side || c < 0 || c >= Side {
		return false
	}
	return (r >= 3 && r <= 7) || (c >= 3 && c <= 7)
}

var onBoard = func() (b [Cells]bool) {
	for i := range b {
		b[i] = OnBoard(i/Side, i%Side)
	}
	return b
}()

// toGlobal[k][local] and toLocal[k][global] are the rotations of seat k.
var toGlobal, toLocal = func() (g, l [NumSeats][Cells]int8) {
	for k := 0; k < NumSeats; k++ {
		for i := 0; i < Cells; i++ {
			r, c := i/Side, i%Side
			for j := 0; j < k; j++ {
				r, c = c, Side-1-r
			}
			g[k][i] = int8(r*Side + c)
			l[k][r*Side+c] = int8(i)
		}
	}
	return g, l
}()

// Global returns the global cell of seat's local cell.
func Global(seat, local int) int { return int(toGlobal[seat][local]) }

// Local returns seat's local cell of a global cell.
func Local(seat, global int) int { return int(toLocal[seat][global]) }

// LocalDir turns a global direction into seat's local frame.
func LocalDir(seat, d int) int { return (d - seat + 4) % 4 }

// GlobalDir turns seat's local direction into the global frame.
func GlobalDir(seat, d int) int { return (d + seat) % 4 }

// DistrictDir is the global direction in which seat's district lies.
func DistrictDir(seat int) int { return (South + seat) % 4 }

// FacedSeat is the seat whose district an alien facing global d heads for.
func FacedSeat(d int) int { return (d - South + 4) % 4 }

// Zone returns the zone (1-8) of a global cell relative to seat, or 0 when
// the cell lies beyond zone 8 (the opposite atmosphere) or off the board.
// Zones 4-8 span the whole row, side atmospheres included.
func Zone(seat, global int) int {
	if global < 0 || global >= Cells || !onBoard[global] {
		return 0
	}
	lr := Local(seat, global) / Side
	if lr < 3 {
		return 0
	}
	return Side - lr
}

// InAtmosphere reports whether global cell is in seat's own atmosphere.
func InAtmosphere(seat, global int) bool {
	l := Local(seat, global)
	r, c := l/Side, l%Side
	return r >= 8 && c >= 3 && c <= 7
}

// AtmCell returns the global cell of seat's atmosphere at zone (1-3) and
// column (1-5, from the seat's left).
func AtmCell(seat, zone, col int) int {
	return Global(seat, (Side-zone)*Side+2+col)
}

// HomeCell is the centre space of seat's zone 1, where ships start.
func HomeCell(seat int) int { return AtmCell(seat, 1, 3) }

// step returns the global neighbour of cell in global direction d, and
// whether it is on the board; out reports whether it left the 11x11 grid
// (rather than falling into a corner).
func step(cell, d int) (next int, ok, out bool) {
	r, c := cell/Side+dirDR[d], cell%Side+dirDC[d]
	if r < 0 || r >= Side || c < 0 || c >= Side {
		return -1, false, true
	}
	n := r*Side + c
	return n, onBoard[n], false
}

// CellName names a global cell as r<row>c<col> (global, 0-based).
func CellName(cell int) string {
	return "r" + itoa(cell/Side) + "c" + itoa(cell%Side)
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return string(rune('0'+n/10)) + string(rune('0'+n%10))
}
