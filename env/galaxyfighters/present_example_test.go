package galaxyfighters_test

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// A two-player game at its first decision, as player 1 sees it: the
// players named by the districts they defend, the status line, and
// Rocketown's setup choices (player 0's) as buttons.
func ExampleGame_Present() {
	e, err := env.Make(galaxyfighters.ID, map[string]any{"players": 2})
	if err != nil {
		panic(err)
	}
	e.Reset(1)
	obs := make([]uint8, galaxyfighters.ObsSize)
	e.State().Observe(1, obs)
	g := galaxyfighters.Game{}
	sc, err := g.Present(e.Params(), 1, obs, nil)
	if err != nil {
		panic(err)
	}
	for _, s := range sc.Seats {
		fmt.Println(s.Name)
	}
	fmt.Println(sc.Status)
	e.State().Observe(0, obs)
	sc, _ = g.Present(e.Params(), 0, obs, []int{galaxyfighters.ActionWeapon, galaxyfighters.ActionWeapon + 1})
	for _, m := range sc.Moves {
		fmt.Printf("%s: %s\n", m.Words, m.Help)
	}
	// Output:
	// Rocketown & Novaport
	// Atomville & Astrofield
	// Rocketown's ship chooses a weapon system; spawn deck 20, shipyard 3, districts invaded 0 of 2
	// choose the Wide Beam: Wide Beam (1 Special): hits the top alien of every space in the row of the closest alien straight ahead
	// choose the Laser Beam: Laser Beam (1 Special): hits the top alien of every space straight ahead, through deep space into the far atmosphere
}
