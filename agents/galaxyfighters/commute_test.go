package galaxyfighters

import (
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
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
		e, err := env.Make(gf.ID, params)
		if err != nil {
			t.Fatal(err)
		}
		obs := make([]uint8, e.Spec().ObsSize())
		rng := rand.New(rand.NewPCG(7, 11))
		var x, y gf.View
		for g := 0; g < 40; g++ {
			e.Reset(uint64(g))
			for !e.Done() {
				mask := e.Mask()
				if p := e.CurrentPlayer(); mask[gf.ActionEndTurn] != 0 {
					if err := e.Observe(p, obs); err != nil {
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
				}
				var legal []int
				for a, m := range mask {
					if m != 0 {
						legal = append(legal, a)
					}
				}
				if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if compared[0] == 0 || compared[1] == 0 {
		t.Fatalf("compared %d pairs with a Deflector and %d pairs of Missile Commands; want some of each", compared[0], compared[1])
	}
	t.Logf("compared %d pairs with a Deflector, %d pairs of Missile Commands", compared[0], compared[1])
}
