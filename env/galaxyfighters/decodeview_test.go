package galaxyfighters

import (
	"math/rand/v2"
	"testing"
)

// TestDecodeViewStackMatchesDecodeStack checks View.Load's stack decoder
// (decodeViewStack) against decodeStack(0, g, g, obs, nil) on random
// stacks, including the ones real games rarely or never show: saturated
// counts (15 aliens of one kind or more), counts that show too few or too
// many aliens, no top or two, a top byte other than 1, a height over
// maxStack. The two must leave the same
// State, an invalid stack empty.
func TestDecodeViewStackMatchesDecodeStack(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	obs := make([]uint8, ObsSize)
	var want, got State
	kinds := map[string]int{}
	for i := 0; i < 200000; i++ {
		clear(obs)
		g := rng.IntN(Cells)
		h := 1 + rng.IntN(maxStack+2) // up to maxStack+2: two heights too high
		top := rng.IntN(13) - 1       // -1: no top
		if top >= 0 {
			obs[OffTop+top*plane+g] = 1
		}
		if rng.IntN(8) == 0 { // a second top, or a byte other than 1
			obs[OffTop+rng.IntN(12)*plane+g] = uint8(1 + rng.IntN(2))
		}
		obs[OffHeight+g] = uint8(h)
		// The counts: those of a valid stack (the top included) most of the
		// time, else random ones; some saturated.
		n := h
		if top >= 0 && rng.IntN(4) != 0 {
			obs[OffCount+top*plane+g]++
			n--
		}
		for n > 0 {
			k := rng.IntN(12)
			c := min(1+rng.IntN(n), n)
			obs[OffCount+k*plane+g] = uint8(min(int(obs[OffCount+k*plane+g])+c, obsMaxCount))
			n -= c
		}
		if rng.IntN(8) == 0 { // counts that do not add up
			obs[OffCount+rng.IntN(12)*plane+g] = uint8(rng.IntN(obsMaxCount + 1))
		}
		want, got = State{}, State{}
		err := want.decodeStack(0, g, g, obs, nil)
		got.decodeViewStack(uint8(g), (*[ObsSize]uint8)(obs))
		if got != want {
			t.Fatalf("stack %d: height %d, top %d, counts %v: decodeViewStack %v (height %d), decodeStack %v (height %d, error %v)",
				i, h, top, countsAt(obs, g), got.st[g], got.h[g], want.st[g], want.h[g], err)
		}
		sat := false
		for _, c := range countsAt(obs, g) {
			sat = sat || c == obsMaxCount
		}
		switch {
		case err != nil:
			kinds["invalid"]++
		case sat:
			kinds["saturated"]++
		default:
			kinds["valid"]++
		}
	}
	for _, k := range []string{"invalid", "saturated", "valid"} {
		if kinds[k] < 1000 {
			t.Errorf("only %d %s stacks tried", kinds[k], k)
		}
	}
	t.Log(kinds)
}

func countsAt(obs []uint8, g int) (c [12]uint8) {
	for k := range c {
		c[k] = obs[OffCount+k*plane+g]
	}
	return c
}
