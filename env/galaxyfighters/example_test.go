package galaxyfighters_test

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// Make the four-player environment, reset it and play the setup of the
// first ship: a weapon system, a bonus command tile, an engine.
func Example() {
	e, err := env.Make(galaxyfighters.ID, nil)
	if err != nil {
		panic(err)
	}
	e.Reset(1)
	spec := e.Spec()
	fmt.Println(spec.Name, spec.NumPlayers, "players", spec.ObsShape, spec.NumActions(), "actions")
	for _, name := range []string{"weapon-laser-beam", "bonus-fire"} {
		fmt.Println("player", e.CurrentPlayer(), "plays", name)
		for a, n := range spec.ActionNames {
			if n == name {
				e.Step(a)
			}
		}
	}
	var legal []string
	for a, m := range e.Mask() {
		if m == 1 {
			legal = append(legal, spec.ActionNames[a])
		}
	}
	fmt.Println("engines:", legal)
	// Output:
	// Galaxy Fighters 4 players [4092] 44 actions
	// player 0 plays weapon-laser-beam
	// player 0 plays bonus-fire
	// engines: [engine-deflector engine-warp-drive]
}
