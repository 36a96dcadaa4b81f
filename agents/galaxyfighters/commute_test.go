package galaxyfighters

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/agents/galaxyfighters/internal/search"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// TestCommutingCommandsSamePosition checks the claim search relies on to
// reuse a leaf value: for every pair of commands that commute, played in
// either order from positions of random games, both orders end with the
// same stacks and ships whenever both are legal.
func TestCommutingCommandsSamePosition(t *testing.T) {
	var compared [2]int // pairs with a Deflector, pairs of Missile Commands
	for _, params := range []map[string]any{
		{"mission": "expert"}, {"mission": "rookie", "players": 3}, {"mission": "ace", "players": 2},
	} {
		obs := make([]uint8, gf.ObsSize)
		rng := rand.New(rand.NewPCG(7, 11))
		var x, y search.View
		g := -1
		envtest.RandomGames(t, gf.ID, params, 40, rng, func(e *env.Env) {
			if e.Steps() == 0 {
				g++
			}
			if e.Mask()[gf.ActionEndTurn] == 0 {
				return
			}
			if err := e.Observe(e.CurrentPlayer(), obs); err != nil {
				t.Fatal(err)
			}
			for a := gf.ActionFire; a <= gf.ActionDeflector; a++ {
				for b := a + 1; b <= gf.ActionDeflector; b++ {
					if !commute(a, b) {
						continue
					}
					x.Load(obs)
					y.Load(obs)
					if !x.Legal(a) || !y.Legal(b) {
						continue
					}
					x.Play(a)
					y.Play(b)
					if !x.Legal(b) || !y.Legal(a) {
						continue
					}
					x.Play(b)
					y.Play(a)
					for c := 0; c < gf.Cells; c++ {
						if x.Height(c) != y.Height(c) {
							t.Fatalf("%v game %d: (%d, %d) and (%d, %d) leave %d and %d aliens on cell %d", params, g, a, b, b, a, x.Height(c), y.Height(c), c)
						}
					}
					for k := 0; k < gf.NumSeats; k++ {
						if x.ShipCell(k) != y.ShipCell(k) || x.Shielded(k) != y.Shielded(k) {
							t.Fatalf("%v game %d: (%d, %d) and (%d, %d) leave different ships", params, g, a, b, b, a)
						}
					}
					if b == gf.ActionDeflector {
						compared[0]++
					} else {
						compared[1]++
					}
				}
			}
		})
	}
	if compared[0] == 0 || compared[1] == 0 {
		t.Fatalf("compared %d pairs with a Deflector and %d pairs of Missile Commands; want some of each", compared[0], compared[1])
	}
	t.Logf("compared %d pairs with a Deflector, %d pairs of Missile Commands", compared[0], compared[1])
}
