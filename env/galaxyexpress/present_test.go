package galaxyexpress_test

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
	"github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// scene parses a position, observes it and presents it with its legal
// actions (none once it is over).
func scene(t testing.TB, pos string) *env.Scene {
	t.Helper()
	s, err := galaxyexpress.ParsePosition(pos, false)
	if err != nil {
		t.Fatal(err)
	}
	return envtest.PresentAs(t, galaxyexpress.ID, nil, s, 0)
}

// The ship at rest on d2 beside the face-down target (planet 4 on e2).
const restD2 = `
. . . . . . . .
. . . @ 4? . . .
. 1? . . . . . .
. . . . . . 0 .
3? . . . . . . 5?
. . 2? . . . . .
speed=0 queue=4,0,1,2,3,5 thrust=2,5/0,1,3,4 brake=2,4/0,1,3,5`

func TestPresentReadsLikeTheRules(t *testing.T) {
	sc := scene(t, restD2)
	t.Run("the ship and the planets: scanned ones by number, face-down ones hidden", func(t *testing.T) {
		if p := envtest.Piece(sc, "ship"); p == nil || p.At != "sq-d2" {
			t.Fatalf("ship %+v, want on d2", p)
		}
		if p := envtest.Piece(sc, "planet-e2"); p == nil || p.Label != "?" {
			t.Fatalf("planet on e2 %+v: face down, its number must not show", p)
		}
		if p := envtest.Piece(sc, "planet-g4"); p == nil || p.Label != "0" {
			t.Fatalf("planet on g4 %+v, want the scanned planet 0", p)
		}
	})
	t.Run("face-up coins are pieces, face-down ones empty slots, spent ones grey", func(t *testing.T) {
		for _, id := range []string{"thrust-2", "thrust-5", "brake-2", "brake-4"} {
			if p := envtest.Piece(sc, id); p == nil || p.Title != strings.Replace(id, "-", " ", 1)+": face up, ready to play" {
				t.Errorf("coin %s: %+v", id, p)
			}
		}
		if envtest.Piece(sc, "thrust-0") != nil {
			t.Error("face-down thrust 0 shown as a piece")
		}
	})
	t.Run("a coin is the coin then the square the ship slides to", func(t *testing.T) {
		m := envtest.Move(sc, "thrust-2-east")
		if m == nil || !slices.Equal(m.Select, []string{"thrust-2"}) || !slices.Equal(m.Target, []string{"sq-f2"}) ||
			m.Words != "thrust 2 east to f2" {
			t.Fatalf("thrust-2-east: %+v", m)
		}
		// Speed 5 north from row 2 wraps round to row 3.
		if m := envtest.Move(sc, "thrust-5-north"); m == nil || !slices.Equal(m.Target, []string{"sq-d3"}) {
			t.Fatalf("thrust-5-north: %+v", m)
		}
		// A brake at speed 0 stops where the ship is: its own square.
		if m := envtest.Move(sc, "brake-2-north"); m == nil || !slices.Equal(m.Target, []string{"sq-d2"}) || m.Words != "brake 2: stop at d2" {
			t.Fatalf("brake-2-north: %+v", m)
		}
	})
	t.Run("the score counts the unspent coins", func(t *testing.T) {
		if got := sc.Seats[0].Score; got != "12 points" {
			t.Fatalf("score %q, want 12 points (no delivery, no refuel, 12 coins)", got)
		}
		if sc.Ended != "" {
			t.Fatalf("Ended %q in a game going on", sc.Ended)
		}
	})
	t.Run("at launch every planet is a target to click", func(t *testing.T) {
		sc := scene(t, `
. . . . . . . .
. . . . 4? . . .
. 1? . . . . . .
. . . . . . 0? .
3? . . . . . . 5?
. . 2? . . . . .
phase=start`)
		if len(sc.Moves) != 6 {
			t.Fatalf("%d launch moves", len(sc.Moves))
		}
		// The first planet in reading order is e2's.
		if m := sc.Moves[0]; len(m.Select) != 0 || !slices.Equal(m.Target, []string{"planet-e2"}) || m.Words != "launch from the planet at e2" {
			t.Fatalf("launch-planet-0: %+v", m)
		}
	})
	t.Run("refuel decisions are buttons", func(t *testing.T) {
		sc := scene(t, strings.Replace(restD2, ". . . @ 4?", ". . . . @4", 1)+" phase=refuel pending=thrust queue=0,1,2,3,5 delivered=4")
		for _, m := range sc.Moves {
			if len(m.Select)+len(m.Target) != 0 {
				t.Errorf("%s points at %v %v", m.Name, m.Select, m.Target)
			}
		}
		if len(sc.Moves) != 2 || sc.Moves[0].Words != "refuel (-10 points)" {
			t.Fatalf("moves %+v", sc.Moves)
		}
	})
	t.Run("the end says how the game ended", func(t *testing.T) {
		sc := scene(t, restD2+" phase=over lost=true")
		if !strings.HasPrefix(sc.Ended, "Lost in Space") || !strings.Contains(sc.Ended, "12 points") {
			t.Fatalf("Ended %q", sc.Ended)
		}
	})
}

// Two positions that differ only in what the pilot cannot see (the numbers
// of the face-down planets, the queue below its top, the order of the
// face-down coins) give the same scene, byte for byte.
func TestPresentShowsNothingHidden(t *testing.T) {
	twin := `
. . . . . . . .
. . . @ 4? . . .
. 3? . . . . . .
. . . . . . 0 .
5? . . . . . . 1?
. . 2? . . . . .
speed=0 queue=4,5,3,2,1,0 thrust=2,5/4,3,1,0 brake=2,4/5,3,1,0`
	a, _ := json.Marshal(scene(t, restD2))
	b, _ := json.Marshal(scene(t, twin))
	if !bytes.Equal(a, b) {
		t.Fatalf("twins tell apart:\n%s\n%s", a, b)
	}
}

// The pilot's scene of a position: the status, the pilot's facts and the
// legal moves in words, with what to click.
func ExampleGame_Present() {
	s, _ := galaxyexpress.ParsePosition(restD2, false)
	obs := make([]uint8, galaxyexpress.ObsSize)
	s.Observe(0, obs)
	g := galaxyexpress.Game{}
	p, _ := g.Spec().Resolve(nil)
	legal := []int{galaxyexpress.CoinAction(galaxyexpress.Thrust, 2, galaxyexpress.East),
		galaxyexpress.CoinAction(galaxyexpress.Brake, 4, galaxyexpress.North)}
	sc, _ := g.Present(p, 0, obs, legal)
	fmt.Println(sc.Status)
	fmt.Println(sc.Seats[0].Name, sc.Seats[0].Score, sc.Seats[0].Facts)
	for _, m := range sc.Moves {
		fmt.Printf("%s: click %v then %v\n", m.Words, m.Select, m.Target)
	}
	// Output:
	// turn 1: play a coin (speed 0, target planet 4)
	// pilot 12 points [speed 0 deliveries 0 of 6 refuels 0 turn 0 target: planet 4]
	// thrust 2 east to f2: click [thrust-2] then [sq-f2]
	// brake 4: stop at d2: click [brake-4] then [sq-d2]
}

// Every move of random games is played by clicks that tell it from the
// others: a coin, then the square (or a launch planet); only refuel and
// no-refuel are buttons.
func TestPresentMovesAreClicks(t *testing.T) {
	e, err := env.Make(galaxyexpress.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := galaxyexpress.Game{}
	rng := rand.New(rand.NewPCG(3, 7))
	obs := make([]uint8, galaxyexpress.ObsSize)
	for ep := uint64(0); ep < 20; ep++ {
		e.Reset(ep)
		for !e.Done() {
			var legal []int
			for a, m := range e.Mask() {
				if m == 1 {
					legal = append(legal, a)
				}
			}
			e.State().Observe(0, obs)
			sc, err := g.Present(e.Params(), 0, obs, legal)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[[2]string]string{}
			for _, m := range sc.Moves {
				button := m.A >= galaxyexpress.ActionRefuel
				coin := m.A >= galaxyexpress.ActionCoin && !button
				if button != (len(m.Target) == 0) || coin != (len(m.Select) == 1) {
					t.Fatalf("%s: select %v, target %v", m.Name, m.Select, m.Target)
				}
				for _, tg := range m.Target {
					k := [2]string{strings.Join(m.Select, ""), tg}
					if o, ok := seen[k]; ok {
						t.Fatalf("%s and %s are both the clicks %v", o, m.Name, k)
					}
					seen[k] = m.Name
				}
			}
			if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
}
