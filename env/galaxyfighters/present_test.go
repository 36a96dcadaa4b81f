package galaxyfighters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// presentAs observes s for seat of an environment with players players
// and presents it with s's legal actions when seat acts (none otherwise).
func presentAs(t *testing.T, s *State, players, seat int) *env.Scene {
	return envtest.PresentAs(t, ID, map[string]any{env.PlayersParam: players}, s, seat)
}

func TestPresentReadsLikeTheRules(t *testing.T) {
	cfg4 := DefaultConfig(ID, 4)
	// Rocketown's ship on r10c5; a Yellum under a Bluvol, both heading for
	// Rocketown, five spaces ahead (zone 7).
	s := posCfg(t, cfg4, map[string]string{"r4c5": "YvBv"}, "ship0=gladius/laser-beam/warp-drive/special")
	t.Run("fire is the ship, then the stack it hits", func(t *testing.T) {
		sc := presentAs(t, s, 4, 0)
		m := envtest.Move(sc, "fire")
		if m == nil || !slices.Equal(m.Select, []string{"ship-0"}) || !slices.Contains(m.Target, "aliens-r4c5") ||
			m.Words != "fire at the stack in zone 7" {
			t.Fatalf("fire: %+v", m)
		}
		p := envtest.Piece(sc, "aliens-r4c5")
		if p == nil || p.Label != "2" || p.Color != pcAlienColor[Bluvol] || p.Rotate != 180 ||
			!strings.Contains(p.Title, "on top a Bluvol (speed 2) heading for Rocketown") {
			t.Fatalf("the stack: %+v", p)
		}
	})
	t.Run("a move is the ship, then the free space", func(t *testing.T) {
		sc := presentAs(t, s, 4, 0)
		if m := envtest.Move(sc, "move-n"); m == nil || !slices.Equal(m.Target, []string{"r9c5"}) || m.Words != "move ahead" {
			t.Fatalf("move-n: %+v", m)
		}
		if m := envtest.Move(sc, "warp-zone-3-col-1"); m == nil || !slices.Equal(m.Select, []string{"engine-0"}) ||
			!slices.Equal(m.Target, []string{"r8c3"}) {
			t.Fatalf("warp: %+v", m)
		}
		if m := envtest.Move(sc, "end-turn"); m == nil || len(m.Select)+len(m.Target) != 0 {
			t.Fatalf("end-turn is a button: %+v", m)
		}
	})
	t.Run("another seat sees the same board, turned to its side by Rotate", func(t *testing.T) {
		sc := presentAs(t, s, 4, 2) // Novaport: the board turns half round
		if sc.Rotate != 180 {
			t.Fatalf("Novaport's scene turns %d degrees, want 180", sc.Rotate)
		}
		if d := envtest.Space(sc, "district-0"); d == nil || d.Y != 12*pcCell || d.Owner != 0 {
			t.Fatalf("Rocketown's strip: %+v", d)
		}
		if d := envtest.Space(sc, "district-2"); d == nil || d.Y != 0 {
			t.Fatalf("Novaport's own strip: %+v", d)
		}
		if p := envtest.Piece(sc, "aliens-r4c5"); p == nil || p.Rotate != 180 {
			t.Fatalf("the stack heads for Rocketown, down the board: %+v", p)
		}
		if len(sc.Moves) != 0 {
			t.Fatalf("Novaport is not to act but has %d moves", len(sc.Moves))
		}
		a, _ := json.Marshal(env.PublicScene(sc))
		b, _ := json.Marshal(env.PublicScene(presentAs(t, s, 4, 0)))
		if string(a) != string(b) {
			t.Fatalf("the public parts of Novaport's and Rocketown's scenes differ:\n%s\n%s", a, b)
		}
	})
	t.Run("two players are named by their districts, not by ship seats", func(t *testing.T) {
		sc := presentAs(t, posCfg(t, DefaultConfig(ID, 2), nil, ""), 2, 1)
		if len(sc.Seats) != 2 || sc.Seats[0].Name != "Rocketown & Novaport" || sc.Seats[1].Name != "Atomville & Astrofield" {
			t.Fatalf("seats %+v", sc.Seats)
		}
		if p := envtest.Piece(sc, "ship-3"); p == nil || p.Owner != 1 {
			t.Fatalf("Astrofield's ship is player 1's: %+v", p)
		}
		if p := envtest.Piece(sc, "ship-2"); p == nil || p.Owner != 0 {
			t.Fatalf("Novaport's ship is player 0's: %+v", p)
		}
	})
	t.Run("a spill-over is a click on the receiving district", func(t *testing.T) {
		st := posCfg(t, cfg4, nil, "phase=spill spillsrc=2 inv=0,0,6,0 spill=0,0,2,0")
		sc := presentAs(t, st, 4, 0)
		if m := envtest.Move(sc, "spill-left"); m == nil || !slices.Equal(m.Target, []string{"district-3"}) || m.Words != "spill over to Astrofield" {
			t.Fatalf("spill-left: %+v", m)
		}
		if m := envtest.Move(sc, "spill-right"); m == nil || !slices.Equal(m.Target, []string{"district-1"}) {
			t.Fatalf("spill-right: %+v", m)
		}
	})
	t.Run("the end says why", func(t *testing.T) {
		for _, c := range []struct{ fields, ended string }{
			{"phase=over outcome=loss inv=6,6,0,0 deck=1", "the team lost: 2 districts invaded (2 lose the mission)"},
			{"phase=over outcome=loss noship=true deck=1", "the team lost: a destroyed ship could not be replaced (the shipyard is empty)"},
			{"phase=over outcome=win yard=a", "the team won: the spawn deck is exhausted and the board is clear"},
			// With the shipyard empty a last crash would have lost, and
			// the observation looks the same: the words say so.
			{"phase=over outcome=win", "the team won: the spawn deck is exhausted and the board is clear, " +
				"unless a ship was destroyed at the end with none left in the shipyard (then it lost)"},
		} {
			for seat := range 4 {
				if sc := presentAs(t, posCfg(t, cfg4, nil, c.fields), 4, seat); sc.Ended != c.ended {
					t.Errorf("%s, seat %d: Ended %q, want %q", c.fields, seat, sc.Ended, c.ended)
				}
			}
		}
	})
}

// Two positions that differ only in what no player sees (the spawn deck's
// and the shipyard's order, the order of the aliens under a stack's top)
// give every seat the same scene, byte for byte.
func TestPresentShowsNothingHidden(t *testing.T) {
	cfg := DefaultConfig(ID, 4)
	a := posCfg(t, cfg, map[string]string{"r4c5": "YvBvMv", "r5c3": "Y>"}, "deck=1,2,3 yard=a,p")
	b := posCfg(t, cfg, map[string]string{"r4c5": "BvYvMv", "r5c3": "Y>"}, "deck=3,1,2 yard=p,a")
	if a.Position() == b.Position() {
		t.Fatal("the twins are one position")
	}
	for seat := range 4 {
		ja, _ := json.Marshal(presentAs(t, a, 4, seat))
		jb, _ := json.Marshal(presentAs(t, b, 4, seat))
		if !bytes.Equal(ja, jb) {
			t.Fatalf("seat %d tells the twins apart:\n%s\n%s", seat, ja, jb)
		}
	}
}

// clicksOf checks that every move of sc can be played by clicks: one with
// a Select has a Target, and no two moves share a (select, target) click
// pair or, for moves without Select, a target.
func clicksOf(t *testing.T, sc *env.Scene) {
	t.Helper()
	seen := map[[2]string]string{}
	for _, m := range sc.Moves {
		if len(m.Select) > 0 && len(m.Target) == 0 {
			t.Fatalf("%s has something to select and nowhere to go", m.Name)
		}
		sel := m.Select
		if len(sel) == 0 {
			sel = []string{""}
		}
		for _, s := range sel {
			for _, tg := range m.Target {
				if o, ok := seen[[2]string{s, tg}]; ok {
					t.Fatalf("%s and %s are both %q then %q", o, m.Name, s, tg)
				}
				seen[[2]string{s, tg}] = m.Name
			}
		}
	}
}

// Every command of random games (two, three and four players) is played
// by clicks that tell it from the others, and every one but end-turn and
// the setup choices points at something.
func TestPresentMovesAreClicks(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		e, err := env.Make(ID, map[string]any{env.PlayersParam: n})
		if err != nil {
			t.Fatal(err)
		}
		g := Game{}
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		obs := make([]uint8, ObsSize)
		for ep := 0; ep < 2; ep++ {
			e.Reset(uint64(10*n + ep))
			for !e.Done() {
				var legal []int
				for a, m := range e.Mask() {
					if m == 1 {
						legal = append(legal, a)
					}
				}
				p := e.CurrentPlayer()
				e.State().Observe(p, obs)
				sc, err := g.Present(e.Params(), p, obs, legal)
				if err != nil {
					t.Fatal(err)
				}
				clicksOf(t, sc)
				for _, m := range sc.Moves {
					if len(m.Target) == 0 && m.A >= ActionFire && m.A != ActionEndTurn {
						t.Fatalf("%s points at nothing", m.Name)
					}
				}
				if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestPresentRotateIsTheObserversFrame: turning the board of seat o's
// scene by its Rotate (clockwise, about the centre) puts every cell where
// o's own frame, the frame of its observation, has it (local cell l at
// row l/Side, column l%Side), and o's district at the bottom.
func TestPresentRotateIsTheObserversFrame(t *testing.T) {
	s := posCfg(t, DefaultConfig(ID, 4), nil, "")
	for o := range NumSeats {
		sc := presentAs(t, s, 4, o)
		turn := func(x, y int) (int, int) { // a point's place after the turn
			c := pcSize / 2
			dx, dy := x-c, y-c
			for range sc.Rotate / 90 {
				dx, dy = -dy, dx
			}
			return c + dx, c + dy
		}
		for l := 0; l < Cells; l++ {
			if !onBoard[l] {
				continue
			}
			sp := envtest.Space(sc, cellID(Global(o, l)))
			x, y := turn(sp.X+sp.W/2, sp.Y+sp.H/2)
			wx, wy := rc(l/Side, l%Side)
			if x != wx+pcCell/2 || y != wy+pcCell/2 {
				t.Fatalf("seat %d: its local cell %d (%s) turns to (%d,%d), want (%d,%d)", o, l, sp.ID, x, y, wx+pcCell/2, wy+pcCell/2)
			}
		}
		d := envtest.Space(sc, fmt.Sprint("district-", o))
		if _, y := turn(d.X+d.W/2, d.Y+d.H/2); y != pcSize-pcCell/2 {
			t.Fatalf("seat %d: its district turns to y %d, not the bottom strip", o, y)
		}
	}
}
