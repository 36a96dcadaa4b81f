package agents_test

import (
	"fmt"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

// The agents that play an environment: the game's own heuristic
// (agents/galaxyexpress, registered for galaxy-express-v1) and the generic
// agents that play it.
func ExamplePlaying() {
	e, _ := env.Make("galaxy-express-v1", nil)
	for _, a := range agents.Playing(e.Spec()) {
		fmt.Printf("%-9s generic=%v\n", a.Name, a.Generic())
	}
	// Output:
	// heuristic generic=false
	// mcts      generic=true
	// policy    generic=true
	// random    generic=true
}

// New resolves "heuristic" to the heuristic of the spec's game.
func ExampleNew() {
	for _, id := range []string{"galaxy-express-v1", "galaxy-fighters-v1"} {
		e, _ := env.Make(id, nil)
		a, err := agents.New(agents.Heuristic, e.Spec(), nil)
		fmt.Printf("%s: %T %v\n", id, a, err)
	}
	// Output:
	// galaxy-express-v1: *galaxyexpress.Heuristic <nil>
	// galaxy-fighters-v1: *galaxyfighters.Heuristic <nil>
}
