package galaxyfighters

import (
	"fmt"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// FuzzPlay plays a game chosen by seed (odd seeds: v1, even: v2 with a
// density and bonus rule picked by the seed) and player count, each byte of
// choices picking the (byte mod n)-th of the n legal actions
// (envtest.PlayBytes: a legal action until the end, the JSON round trip,
// the per-player results), and checks after every step: the alien count
// matches the board, the position keeps its invariants, and every player
// gets the same reward.
func FuzzPlay(f *testing.F) {
	f.Add(uint64(1), uint8(4), []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(7), uint8(3), []byte{3, 200, 17, 0, 0, 0, 1, 1, 1, 9, 9, 9, 255})
	f.Add(uint64(42), uint8(2), []byte(strings.Repeat("\x05\x00\x01\x07", 60)))
	f.Fuzz(func(t *testing.T, seed uint64, players uint8, choices []byte) {
		np := 2 + int(players)%3
		id, params := ID, map[string]any{"players": np, "max_turns": 80, "invader_spaces": 6 + int(seed%5)}
		if seed%2 == 1 {
			id = IDv1
		} else {
			params["spawn_density"] = float64(seed>>1%17) / 4
			params["bonus_tiles"] = bonusRuleNames[seed>>6%2]
		}
		envtest.PlayBytes(t, id, params, seed, choices, func(e *env.Env, res env.StepResult) error {
			for _, r := range res.Rewards {
				if r != res.Rewards[0] {
					return fmt.Errorf("rewards differ between players: %v", res.Rewards)
				}
			}
			s := e.State().(*State)
			n := 0
			for g := range s.h {
				n += int(s.h[g])
			}
			if n != s.Aliens() {
				return fmt.Errorf("alien count %d, board holds %d", s.Aliens(), n)
			}
			return s.validate()
		})
	})
}

// FuzzParsePosition checks that the parser never panics and that whatever
// it accepts writes back to a position it reads identically.
func FuzzParsePosition(f *testing.F) {
	s := newState(DefaultConfig(ID, 4).c, 3)
	f.Add(s.Position())
	f.Add(strings.Replace(s.Position(), "phase=weapon", "phase=spill spillsrc=2", 1))
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParsePosition(text, nil)
		if err != nil {
			return
		}
		q, err := ParsePosition(p.Position(), nil)
		if err != nil {
			t.Fatalf("re-reading %q: %v", p.Position(), err)
		}
		if q.Position() != p.Position() {
			t.Fatalf("round trip differs")
		}
	})
}
