package pilotsofgallaxia

import (
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// FuzzPlay plays a game chosen by seed, player count and mode, each byte of
// choices picking the (byte mod n)-th of the n legal actions, and checks
// after every step: a legal action exists until the end, the position's
// invariants hold (validate: no two pieces share a space, caravan supplies
// add up), every card is in exactly one place (ParsePosition checks the
// counts), and the position survives the JSON round trip.
func FuzzPlay(f *testing.F) {
	f.Add(uint64(1), uint8(4), []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(7), uint8(6), []byte{3, 200, 17, 0, 0, 0, 1, 1, 1, 9, 9, 9, 255})
	f.Add(uint64(42), uint8(2), []byte(strings.Repeat("\x05\x00\x01\x07", 60)))
	f.Fuzz(func(t *testing.T, seed uint64, players uint8, choices []byte) {
		np := 2 + int(players)%5
		params := map[string]any{"players": np, "max_turns": 60, "hideouts": seed%3 == 0, "rings_to_win": 1 + int(seed%2)}
		if seed%4 == 1 {
			params["mode"] = "a_new_life"
		}
		e, err := env.Make(ID, params)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(seed)
		mask := make([]uint8, NumActions)
		for _, c := range choices {
			if e.Done() {
				break
			}
			e.LegalMask(mask)
			var legal []int
			for a, m := range mask {
				if m == 1 {
					legal = append(legal, a)
				}
			}
			if len(legal) == 0 {
				t.Fatalf("no legal action before the end:\n%s", e)
			}
			if _, err := e.Step(legal[int(c)%len(legal)]); err != nil {
				t.Fatal(err)
			}
			data, _ := e.State().MarshalJSON()
			back, err := Game{}.LoadState(e.Params(), data)
			if err != nil {
				t.Fatalf("LoadState(MarshalJSON()): %v\n%s", err, data)
			}
			if back.(*State).Position() != e.State().(*State).Position() {
				t.Fatalf("JSON round trip differs")
			}
		}
	})
}

// FuzzParsePosition checks that the parser never panics and that whatever
// it accepts writes back to a position it reads identically.
func FuzzParsePosition(f *testing.F) {
	s := newState(DefaultConfig(4).c, 3)
	f.Add(s.Position())
	f.Add("cur=0 p0.ships=1.P1,1.H p1.ships=1.r0a,2.H deck=f5,R")
	f.Add("players=2 phase=gambit exp=f5 p0.hand=d3,salvage car=1.r0a:0!")
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
