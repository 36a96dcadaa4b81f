package envtest

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// RandomGames plays games episodes of environment id under params at
// random: episode g is reset with seed g, from 0, and every action is
// drawn from the legal ones by Uniform with rng (one rng.IntN each).
// Before each action it calls visit(e), which may read e (observe, look at
// the state) and draw from rng, but must not step or reset it. It fails t
// when the environment cannot be made or a step fails.
func RandomGames(t testing.TB, id string, params map[string]any, games int, rng *rand.Rand, visit func(e *env.Env)) {
	t.Helper()
	e, err := env.Make(id, params)
	if err != nil {
		t.Fatal(err)
	}
	for g := 0; g < games; g++ {
		e.Reset(uint64(g))
		for !e.Done() {
			visit(e)
			if _, err := e.Step(Uniform(e, rng)); err != nil {
				t.Fatal(err)
			}
		}
	}
}
