package galaxyexpress_test

import (
	"fmt"
	"strings"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/galaxyexpress"
)

// Make an environment, reset it with a seed, launch from the first planet
// and play the first legal coin.
func Example() {
	e, err := env.Make(galaxyexpress.ID, nil)
	if err != nil {
		panic(err)
	}
	e.Reset(1)
	spec := e.Spec()
	fmt.Println(spec.Name, spec.ObsShape, spec.NumActions(), "actions")
	var legal []string
	for a, m := range e.Mask() {
		if m == 1 {
			legal = append(legal, spec.ActionNames[a])
		}
	}
	fmt.Println(strings.Join(legal, " "))
	res, _ := e.Step(galaxyexpress.ActionStart) // launch from the first planet in reading order
	fmt.Println("rewards", res.Rewards, "terminated", res.Terminated)
	in := e.Info()
	fmt.Printf("%s\n", in.AppendJSON(nil))
	// Output:
	// Galaxy Express [503] 56 actions
	// launch-planet-0 launch-planet-1 launch-planet-2 launch-planet-3 launch-planet-4 launch-planet-5
	// rewards [0] terminated false
	// {"outcome":"ongoing","score":12,"deliveries":0,"refuels":0,"unspent_coins":12,"turns":0,"rating":"Maybe you need to spend more time at the Academy!"}
}

// The position notation makes any situation easy to set up. Here the ship
// is at rest on d2; planet 4 on e2, the target, is face down.
// Thrust 2 and a slide east end on f2, next to it: it is scanned.
func ExampleParsePosition() {
	s, err := galaxyexpress.ParsePosition(`
. . . . . . . .
. . . @ 4? . . .
. 1? . . . . . .
. . . . . . 0 .
3? . . . . . . 5?
. . 2? . . . . .
speed=0 queue=4,0,1,2,3,5 thrust=2,5/0,1,3,4 brake=2,4/0,1,3,5`, false)
	if err != nil {
		panic(err)
	}
	s.Apply(galaxyexpress.CoinAction(galaxyexpress.Thrust, 2, galaxyexpress.East), []float64{0})
	fmt.Print(s)
	// Output:
	// Galaxy Express  phase: play a coin  turn 1  speed 2  deliveries 0  refuels 0  score 11
	// target: planet 4
	//    a b c d e f g h
	// 1  . . . . . . . .
	// 2  . . . .*4@. . .
	// 3  . ? . . . . . .
	// 4  . . . . . . 0 .
	// 5  ? . . . . . . ?
	// 6  . . ? . . . . .
	// thrust face up 0,5  face down 3  spent 2
	// brake  face up 2,4  face down 4  spent -
}

// The seed's rating categories.
func ExampleRating() {
	for _, score := range []int{109, 95, 80, 79} {
		fmt.Println(score, galaxyexpress.Rating(score))
	}
	// Output:
	// 109 Employee of the Year!!
	// 95 Nice going, kid!
	// 80 Not bad ... for a rookie!
	// 79 Maybe you need to spend more time at the Academy!
}
