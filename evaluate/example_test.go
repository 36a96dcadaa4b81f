package evaluate_test

import (
	"context"
	"fmt"

	"github.com/galaxygym/galaxygym/evaluate"
)

// Random and heuristic play the same 1,000 seeded Galaxy Express games;
// everything but the timings is reproducible, whatever the number of
// workers.
func Example() {
	r, err := evaluate.Run(context.Background(), evaluate.Config{
		Env:      "galaxy-express-v1",
		Agents:   []string{"random", "heuristic"},
		Episodes: 1000,
		Seed:     0,
	})
	if err != nil {
		panic(err)
	}
	for _, a := range r.Agents {
		s := a.Summary
		fmt.Printf("%-9s mean %6.2f [%6.2f, %6.2f]  wins %.3f [%.3f, %.3f]\n", a.Name,
			s.Return.Mean, s.Return.CI.Low, s.Return.CI.High, s.WinRate, s.WinCI.Low, s.WinCI.High)
	}
	d := r.Agents[1].Summary.DiffVsFirst
	fmt.Printf("heuristic - random: %.2f [%.2f, %.2f]\n", d.Mean, d.CI.Low, d.CI.High)
	// Output:
	// random    mean  -0.57 [ -0.99,  -0.14]  wins 0.000 [0.000, 0.004]
	// heuristic mean 107.56 [107.39, 107.74]  wins 1.000 [0.996, 1.000]
	// heuristic - random: 108.13 [107.68, 108.58]
}
