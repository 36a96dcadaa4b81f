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
