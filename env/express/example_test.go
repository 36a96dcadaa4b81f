package express_test

import (
	"fmt"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/express"
)

// Make a 3-player game, reset it with a seed and play it to the end with
// the first legal action each time; the return of each player is the final
// total, and Info ranks the players.
func Example() {
	e, err := env.Make(express.ID, map[string]any{"players": 3})
	if err != nil {
		panic(err)
	}
	spec := e.Spec()
	fmt.Println(spec.Name, spec.NumPlayers, "players", spec.ObsShape, spec.NumActions(), "actions")
	e.Reset(7)
	for !e.Done() {
		mask := e.Mask()
		a := 0
		for mask[a] == 0 {
			a++
		}
		if _, err := e.Step(a); err != nil {
			panic(err)
		}
	}
	in := e.Info()
	fmt.Println("returns", e.Returns())
	fmt.Println("scores", in.Scores, "ranks", in.Ranks, "outcomes", in.Outcomes)
	// Output:
	// Express 3 players [1058] 648 actions
	// returns [147 128 127]
	// scores [147 128 127] ranks [1 2 3] outcomes [win loss loss]
}

// A position in the notation: player 0 has trains of 5 and 4 cars and a
// Box train of two; playing the Wild undeclared and ending the turn with
// an empty hand goes out (a Wild left at the end scores as a matching car).
func ExampleParsePosition() {
	s, err := express.ParsePosition(`express hand=0 turns=4 hturns=4 cur=0 phase=meld
deck cards=...
p0 played=1 hand=WD
p0.t0 loco=BX cars=AU,AU,AU,AU,AU
p0.t1 loco=BX cars=RF,RF,RF,RF
p0.t2 loco=BX cars=BX,BX
p1 played=1
p2 played=1
p3 played=1
`, express.DefaultConfig(4))
	if err != nil {
		panic(err)
	}
	rewards := make([]float64, 4)
	s.Apply(express.ActWild+2*7+6, rewards) // wild-t2-undeclared
	s.Apply(express.ActEndMeld, rewards)
	fmt.Println("rewards", rewards, "hands played", s.Hands())
	// Output:
	// rewards [49 0 0 0] hands played 1
}
