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

// The hidden part (env.HiddenObserver) is what the observation leaves
// face down, for a critic trained with the whole state: here the next
// coin of the Thrust stack, which the first Thrust coin played turns face
// up.
func ExampleState_ObserveHidden() {
	e, err := env.Make(galaxyexpress.ID, nil)
	if err != nil {
		panic(err)
	}
	e.Reset(1)
	layout, _ := e.HiddenLayout()
	h := make([]uint8, e.HiddenSize())
	if err := e.ObserveHidden(0, h); err != nil {
		panic(err)
	}
	fmt.Println(e.HiddenSize(), "bytes:", layout[0].Name, layout[1].Name, layout[2].Name)
	fmt.Println("next Thrust coin:", h[layout.Offset("face_down")]-1)
	e.Step(galaxyexpress.ActionStart) // launch
	for a, m := range e.Mask() {
		if m == 1 && strings.HasPrefix(e.Spec().ActionNames[a], "thrust") {
			fmt.Println("play", e.Spec().ActionNames[a])
			e.Step(a)
			break
		}
	}
	if e.Mask()[galaxyexpress.ActionNoRefuel] == 1 { // at rest on a planet: the coin turns up after this decision
		fmt.Println("play no-refuel")
		e.Step(galaxyexpress.ActionNoRefuel)
	}
	obs := make([]uint8, e.Spec().ObsSize())
	e.Observe(0, obs)
	var up []int
	for v := range 6 {
		if obs[galaxyexpress.OffUp+v] == 1 {
			up = append(up, v)
		}
	}
	fmt.Println("Thrust coins face up now:", up)
	// Output:
	// 65 bytes: unscanned_number queue face_down
	// next Thrust coin: 5
	// play thrust-0-north
	// play no-refuel
	// Thrust coins face up now: [2 5]
}
