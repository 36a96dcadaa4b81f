package envtest

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// ObserveMatches plays games random episodes of id under params
// (RandomGames, the generator seeded with 1) and, before every step and
// for every player, checks that the state's Observe writes exactly the
// bytes of ref, a reference implementation (typically the game's former,
// clear-and-fill Observe kept in a test file), over a zeroed buffer; and
// that it writes the same bytes over a dirty one: a buffer of 0xFF, of
// 0xA5, and one still holding the observation written before (another
// player's, or the previous step's), the way a reused batch slot is. It
// is how an optimized Observe proves it changes no output byte and
// overwrites all of dst whatever it held.
func ObserveMatches(t testing.TB, id string, params map[string]any, games int, ref func(s env.State, player int, dst []uint8)) {
	t.Helper()
	var want, got, prev []uint8
	steps := 0
	RandomGames(t, id, params, games, rand.New(rand.NewPCG(1, 0)), func(e *env.Env) {
		t.Helper()
		if want == nil {
			n := e.Spec().ObsSize()
			want, got, prev = make([]uint8, n), make([]uint8, n), make([]uint8, n)
		}
		s := e.State()
		for pl := 0; pl < e.Spec().NumPlayers; pl++ {
			clear(want)
			ref(s, pl, want)
			for i, fill := range []int{0, 0xFF, 0xA5, -1} {
				if fill < 0 {
					copy(got, prev) // the buffer's last content
				} else {
					for j := range got {
						got[j] = uint8(fill)
					}
				}
				s.Observe(pl, got)
				if !bytes.Equal(got, want) {
					j := 0
					for got[j] == want[j] {
						j++
					}
					t.Fatalf("%s, step %d, player %d, buffer %d (0, 0xFF, 0xA5, the last observation): byte %d = %d, the reference writes %d\n%s",
						id, steps, pl, i, j, got[j], want[j], s)
				}
			}
			copy(prev, got)
		}
		steps++
	})
	if steps == 0 {
		t.Fatalf("%s: no step played", id)
	}
}
