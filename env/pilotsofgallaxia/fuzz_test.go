package pilotsofgallaxia

import (
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// FuzzPlay plays a game chosen by seed, player count and variant with the
// kit's byte-chosen play (envtest.PlayBytes: a legal action until the
// end, the JSON round trip, the per-player results), and checks the
// game's own invariants after every step: no two pieces share a space,
// caravan supplies add up (validate), and every card is in exactly one
// place (ParsePosition of the position checks the counts).
func FuzzPlay(f *testing.F) {
	f.Add(uint64(1), uint8(4), []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(7), uint8(6), []byte{3, 200, 17, 0, 0, 0, 1, 1, 1, 9, 9, 9, 255})
	f.Add(uint64(42), uint8(2), []byte(strings.Repeat("\x05\x00\x01\x07", 60)))
	f.Fuzz(func(t *testing.T, seed uint64, players uint8, choices []byte) {
		params := map[string]any{"players": 2 + int(players)%5, "max_turns": 60, "hideouts": seed%3 == 0,
			"rings_to_win": 1 + int(seed%2)}
		if seed%4 == 1 {
			params["mode"] = "a_new_life"
		}
		envtest.PlayBytes(t, ID, params, seed, choices, func(e *env.Env, _ env.StepResult) error {
			s := e.State().(*State)
			c, err := NewConfigOf(ID, e.Params())
			if err != nil {
				return err
			}
			_, err = ParsePosition(s.Position(), c)
			return err
		})
	})
}

// FuzzParsePosition checks that the parser never panics and that whatever
// it accepts writes back to a position it reads identically.
func FuzzParsePosition(f *testing.F) {
	s := newState(DefaultConfig(4).c, 3)
	f.Add(s.Position())
	f.Add("cur=0 p0.ships=1.P1,1.H p1.ships=1.r0a,2.H deck=f5,R")
	f.Add("players=2 phase=gambit exp=f5 p0.hand=d3,salvage car=1.r0a:0!")
	f.Add("cur=2 p0.ships=1.P1,1.H p1.ships=1.P1,2.H occ=1.P1:1.0") // v1: a shared space and its holder
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
