package express_test

import (
	"fmt"
	"strings"

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

// Present gives player 0's scene of a position: his hand face up, player
// 1's face down, and each legal move as a hand card to click and the
// train or pile it goes to.
func ExampleGame_Present() {
	s, err := express.ParsePosition(`express hand=0 turns=4 hturns=4 cur=0 phase=meld
deck cards=...
p0 played=1 hand=TK,CB
p0.t0 loco=BX cars=TK,TK
p1 played=1 hand=AU,BX
`, express.DefaultConfigV2(2))
	if err != nil {
		panic(err)
	}
	params, _ := express.V2().Spec().Resolve(map[string]any{"players": 2})
	obs := make([]uint8, express.ObsSize)
	s.Observe(0, obs)
	mask := make([]uint8, express.NumActions)
	s.LegalMask(mask)
	var legal []int
	for a, m := range mask {
		if m != 0 {
			legal = append(legal, a)
		}
	}
	sc, _ := express.V2().Present(params, 0, obs, legal)
	fmt.Println(sc.Status)
	for _, z := range sc.Zones {
		if z.Owner >= 0 && (len(z.Cards) > 0 || z.Count > 0) {
			var names []string
			for _, c := range z.Cards {
				names = append(names, c.Name)
			}
			fmt.Printf("%s: %s (%d face down)\n", z.Name, strings.Join(names, ", "), z.Count)
		}
	}
	for _, m := range sc.Moves[:3] {
		fmt.Println(m.Words, m.Select, "->", m.Target)
	}
	// Output:
	// hand 1, round 3, play goes clockwise: player 0 melds
	// player 0's hand: Tank Car, Caboose (0 face down)
	// player 0's train t0: locomotive: Box Car, Tank Car, Tank Car (0 face down)
	// player 1's hand:  (2 face down)
	// start a new train with Caboose as its locomotive [hand-0-CB-0] -> [train-0-1]
	// add Tank Car to train t0 [hand-0-TK-0] -> [train-0-0]
	// add Caboose to train t0 [hand-0-CB-0] -> [train-0-0]
}
