package envtest_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
	"github.com/galaxygym/galaxygym/env/envtest/trio"
)

// TestRandomGames checks that RandomGames plays the episodes it is asked
// for to their end, each from its seed, visiting every decision once and
// only legal actions following, and that the same generator plays the same
// games again.
func TestRandomGames(t *testing.T) {
	play := func(seed uint64) (episodes int, trace []uint64) {
		rng := rand.New(rand.NewPCG(seed, 1))
		envtest.RandomGames(t, trio.ID, nil, 5, rng, func(e *env.Env) {
			if e.Steps() == 0 {
				episodes++
			}
			if e.Done() || slices.Max(e.Mask()) == 0 {
				t.Fatalf("visited a position with no legal action (done %v)", e.Done())
			}
			trace = append(trace, uint64(e.Steps())<<8|uint64(e.CurrentPlayer()))
		})
		return episodes, trace
	}
	n, a := play(1)
	if n != 5 || len(a) <= 5 {
		t.Fatalf("%d episodes, %d decisions; want 5 episodes of several decisions", n, len(a))
	}
	if _, b := play(1); !slices.Equal(a, b) {
		t.Error("the same generator played other games")
	}
}
