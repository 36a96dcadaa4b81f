package pilotsofgallaxia

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The board's dimensions (docs/rules/pilots-of-gallaxia.md, A1).
const (
	NumSektors = 6                       // sektors around the sun, numbered 1-6 like the d6 (L15, L111)
	SektorSize = 47                      // spaces per sektor
	NumSpaces  = NumSektors * SektorSize // 282 spaces; space id = 47*(sektor-1) + local index
	NumRoutes  = 11 * NumSektors         // trade routes of three caravan spaces
	maxDeg     = 8
)

// Space kinds.
const (
	KindCaravan = iota
	KindPlanet
	KindHangar
	KindLair
	KindTeleprism
	KindVortex
)

var kindNames = [...]string{"caravan", "planet", "hangar", "lair", "teleprism", "vortex"}

// Local indices of the special spaces inside every sektor.
const (
	locHangar    = 0
	locLair      = 1
	locTeleprism = 2
	locVortex    = 3
	locP1        = 4 // P1..P8 are locP1..locP1+7
)

//go:embed board.txt
var boardText string

// route is one trade route: two planets and the three caravan spaces
// between them, in order from a to b.
type route struct {
	a, b   int16
	spaces [3]int16
}

// board is the parsed board.txt with the tables derived from it.
type board struct {
	names   [NumSpaces]string
	local   [NumSpaces]string // the name without the sektor, e.g. "P4"
	kind    [NumSpaces]uint8
	number  [NumSpaces]uint8 // planet number 1-8, 0 elsewhere
	adj     [NumSpaces][maxDeg]int16
	deg     [NumSpaces]uint8
	routes  [NumRoutes]route
	routeOf [NumSpaces]int8 // the route a caravan space belongs to, -1 elsewhere
	// routesAt lists the routes ending at a planet (-1 padding).
	routesAt [NumSpaces][4]int8
	// dist is the number of spaces between two spaces on the empty board,
	// never passing through a hangar (one may start or end there), 255 if
	// unreachable (the LAIRs); read it through distances, which fills it on
	// first use (a breadth-first search from every space, about 1 ms that
	// every process paid at start-up before, whatever game it played).
	dist     [NumSpaces][NumSpaces]uint8
	distOnce sync.Once
	// routeRot[r][k] is route r turned by k sektors clockwise.
	routeRot [NumRoutes][NumSektors]int8
}

// theBoard is the board of both versions (names, kinds, routes, links).
// boardV2 is the board a starship of pilots-of-gallaxia-v2 moves on: the
// same, less the links between vortices, which only a Durriken takes in
// v2 (A2; docs/rules/pilots-of-gallaxia.md). Its distances measure the
// spaces to go of v2's scores.
var theBoard = mustParseBoard(boardText)

var boardV2 = mustParseBoard(v2BoardText(boardText))

// v2BoardText returns board.txt less the links v2 removes.
func v2BoardText(text string) string {
	var out []string
	for _, ln := range strings.Split(text, "\n") {
		if f := strings.Fields(ln); len(f) == 3 && f[0] == "link" && v2Drops(f[1], f[2]) {
			continue
		}
		out = append(out, ln)
	}
	return strings.Join(out, "\n")
}

// v2Drops reports whether the ships' board of v2 lacks the link between
// spaces a and b: the links between vortices, which only a Durriken may
// take in v2 (L219, A2).
func v2Drops(a, b string) bool {
	return strings.HasSuffix(a, ".V") && strings.HasSuffix(b, ".V")
}

// board returns the board a configuration's starships move on.
func (c *config) board() *board {
	if c.v2 {
		return boardV2
	}
	return theBoard
}

// Space returns the id of the space named like "3.P4" (sektor 1-6, local name).
func Space(name string) (int, bool) {
	id, ok := spaceIDs[name]
	return id, ok
}

var spaceIDs = func() map[string]int {
	m := make(map[string]int, NumSpaces)
	for i, n := range theBoard.names {
		m[n] = i
	}
	return m
}()

// SpaceName returns the name of space id, e.g. "3.P4".
func SpaceName(id int) string { return theBoard.names[id] }

// SektorOf returns the sektor index 0-5 of a space (sektor number minus 1).
func SektorOf(id int) int { return id / SektorSize }

// Planet returns the space of planet number n (1-8) of sektor index k (0-5).
func Planet(k, n int) int { return k*SektorSize + locP1 + n - 1 }

// Hangar returns the home hangar of sektor index k.
func Hangar(k int) int { return k*SektorSize + locHangar }

// Lair returns the LAIR of sektor index k.
func Lair(k int) int { return k*SektorSize + locLair }

// Teleprism returns the Teleprism of sektor index k.
func Teleprism(k int) int { return k*SektorSize + locTeleprism }

// rotate turns space id by k sektors clockwise.
func rotate(id, k int) int { return (id + k*SektorSize) % NumSpaces }

// Dist returns the number of spaces between a and b on the empty board
// (no quickroutes, no hangar passed through), 255 when unreachable.
func Dist(a, b int) int { return int(theBoard.distances()[a][b]) }

// NeighboursOf returns a new slice of the spaces next to space x on the
// board the starships of the environment id (ID or IDv1) move on: in v2
// no hop between vortices. Vortices list the other vortices they hop to;
// the LAIRs have none.
func NeighboursOf(id string, x int) []int16 {
	b := boardFor(id)
	return slices.Clone(b.adj[x][:b.deg[x]])
}

func boardFor(id string) *board {
	if id == IDv1 {
		return theBoard
	}
	return boardV2
}

func mustParseBoard(text string) *board {
	b, err := parseBoard(text)
	if err != nil {
		panic(err)
	}
	return b
}

func parseBoard(text string) (*board, error) {
	b := new(board)
	ids := map[string]int{}
	n := 0
	for i := range b.routeOf {
		b.routeOf[i] = -1
		b.routesAt[i] = [4]int8{-1, -1, -1, -1}
	}
	link := func(x, y int) error {
		for _, p := range [2][2]int{{x, y}, {y, x}} {
			if b.deg[p[0]] == maxDeg {
				return fmt.Errorf("pilotsofgallaxia: board: %s has more than %d neighbours", b.names[p[0]], maxDeg)
			}
			b.adj[p[0]][b.deg[p[0]]] = int16(p[1])
			b.deg[p[0]]++
		}
		return nil
	}
	get := func(name string) (int, error) {
		id, ok := ids[name]
		if !ok {
			return 0, fmt.Errorf("pilotsofgallaxia: board: unknown space %q", name)
		}
		return id, nil
	}
	nr := 0
	for ln, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		// bad is the error of this line, made only when it is returned.
		bad := func() error { return fmt.Errorf("pilotsofgallaxia: board line %d: %q", ln+1, line) }
		switch f[0] {
		case "space":
			if len(f) < 3 || n == NumSpaces {
				return nil, bad()
			}
			k := -1
			for i, kn := range kindNames {
				if kn == f[2] {
					k = i
				}
			}
			sek, loc, ok := strings.Cut(f[1], ".")
			if k < 0 || !ok || sek != strconv.Itoa(n/SektorSize+1) {
				return nil, bad()
			}
			b.names[n], b.local[n], b.kind[n] = f[1], loc, uint8(k)
			if k == KindPlanet {
				v, err := strconv.Atoi(f[3])
				if err != nil || v < 1 || v > 8 {
					return nil, bad()
				}
				b.number[n] = uint8(v)
			}
			ids[f[1]] = n
			n++
		case "route":
			if len(f) != 6 || nr == NumRoutes {
				return nil, bad()
			}
			var s [5]int
			for i := range s {
				id, err := get(f[1+i])
				if err != nil {
					return nil, err
				}
				s[i] = id
			}
			r := route{a: int16(s[0]), b: int16(s[4]), spaces: [3]int16{int16(s[1]), int16(s[2]), int16(s[3])}}
			b.routes[nr] = r
			for _, c := range r.spaces {
				b.routeOf[c] = int8(nr)
			}
			for _, p := range []int{s[0], s[4]} {
				placed := false
				for j := range b.routesAt[p] {
					if b.routesAt[p][j] < 0 {
						b.routesAt[p][j], placed = int8(nr), true
						break
					}
				}
				if !placed {
					return nil, bad()
				}
			}
			for i := 0; i < 4; i++ {
				if err := link(s[i], s[i+1]); err != nil {
					return nil, err
				}
			}
			nr++
		case "link":
			if len(f) != 3 {
				return nil, bad()
			}
			x, err := get(f[1])
			if err != nil {
				return nil, err
			}
			y, err := get(f[2])
			if err != nil {
				return nil, err
			}
			if err := link(x, y); err != nil {
				return nil, err
			}
		default:
			return nil, bad()
		}
	}
	if n != NumSpaces || nr != NumRoutes {
		return nil, fmt.Errorf("pilotsofgallaxia: board: %d spaces and %d routes, want %d and %d", n, nr, NumSpaces, NumRoutes)
	}
	for r := range b.routes {
		for k := 0; k < NumSektors; k++ {
			c := rotate(int(b.routes[r].spaces[0]), k)
			b.routeRot[r][k] = b.routeOf[c]
		}
	}
	return b, nil
}

// distances returns b.dist, filled on the first call (safe for concurrent
// use).
func (b *board) distances() *[NumSpaces][NumSpaces]uint8 {
	b.distOnce.Do(b.fillDist)
	return &b.dist
}

// fillDist fills b.dist by a breadth-first search from every space.
func (b *board) fillDist() {
	var queue [NumSpaces]int16
	for src := 0; src < NumSpaces; src++ {
		d := &b.dist[src]
		for i := range d {
			d[i] = 255
		}
		d[src] = 0
		queue[0] = int16(src)
		head, tail := 0, 1
		for head < tail {
			x := int(queue[head])
			head++
			if x != src && b.kind[x] == KindHangar {
				continue
			}
			for _, y := range b.adj[x][:b.deg[x]] {
				if d[y] == 255 {
					d[y] = d[x] + 1
					queue[tail] = y
					tail++
				}
			}
		}
	}
}

// KindOf returns the kind of space id (KindCaravan, KindPlanet, ...).
func KindOf(id int) int { return int(theBoard.kind[id]) }
