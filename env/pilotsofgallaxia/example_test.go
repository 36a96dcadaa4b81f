package pilotsofgallaxia_test

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

// Make the four-pilot environment, reset it, and move the first pilot's
// first starship out of its hangar with the base move.
func Example() {
	e, err := env.Make(pilotsofgallaxia.ID, nil)
	if err != nil {
		panic(err)
	}
	e.Reset(1)
	spec := e.Spec()
	fmt.Println(spec.Name, spec.NumPlayers, "pilots", spec.ObsShape, spec.NumActions(), "actions")
	for _, name := range []string{"ship-1", "base-move", "to-s0-P1"} {
		fmt.Println("pilot", e.CurrentPlayer(), "plays", name)
		for a, n := range spec.ActionNames {
			if n == name {
				if _, err := e.Step(a); err != nil {
					panic(err)
				}
			}
		}
	}
	var legal []string
	for a, m := range e.Mask() {
		if m == 1 {
			legal = append(legal, spec.ActionNames[a])
		}
	}
	fmt.Println("next:", legal)
	// Output:
	// Pilots of Gallaxia 4 pilots [7954] 380 actions
	// pilot 1 plays ship-1
	// pilot 1 plays base-move
	// pilot 1 plays to-s0-P1
	// next: [to-s0-H to-s0-r0a to-s5-r9c stop]
}

// Present gives pilot 1's scene of a position (of two, pilot 1 sits in sektor 4):
// its hand face up, where the pieces stand, and its moves in absolute
// sektors, each naming the piece to click and the space it goes to.
func ExampleGame_Present() {
	s, err := pilotsofgallaxia.ParsePosition("players=2 cur=1 phase=path p1.ships=4.P1,4.H p1.hand=f5,2.P2 "+
		"mover=0 at=4.P1 lastfree=4.P1 budget=2", pilotsofgallaxia.DefaultConfigOf(pilotsofgallaxia.ID, 2))
	if err != nil {
		panic(err)
	}
	g := pilotsofgallaxia.Game{}
	params, _ := g.Spec().Resolve(map[string]any{"players": 2})
	obs := make([]uint8, pilotsofgallaxia.ObsSize)
	s.Observe(1, obs)
	mask := make([]uint8, pilotsofgallaxia.NumActions)
	s.LegalMask(mask)
	var legal []int
	for a, m := range mask {
		if m != 0 {
			legal = append(legal, a)
		}
	}
	sc, _ := g.Present(params, 1, obs, legal)
	fmt.Println(sc.Status)
	fmt.Println(sc.Seats[1].Name, sc.Seats[1].Facts[0])
	for _, z := range sc.Zones {
		if z.ID == "hand-1" {
			for _, c := range z.Cards {
				fmt.Println("card:", c.Name)
			}
		}
	}
	for _, m := range sc.Moves[:3] {
		fmt.Println(m.Words, m.Select, "->", m.Target)
	}
	// Output:
	// turn 1, pilot 1 moves starship 1 (2 points left)
	// pilot 1 sektor 4
	// card: planet 2 of sektor 2
	// card: fuel 5
	// fly to your hangar [ship-1-1] -> [4.H]
	// fly to caravan space 4.r0a (route 4.P1-4.P3) [ship-1-1] -> [4.r0a]
	// fly to caravan space 3.r9c (route 3.P2-4.P1) [ship-1-1] -> [3.r9c]
}
