package galaxyfighters

import (
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// FuzzPlay plays a game chosen by seed (odd seeds: v1, even: v2 with a
// density and bonus rule picked by the seed) and player count, each byte of
// choices picking the (byte mod n)-th of the n legal actions, and checks
// after every step: a legal action exists until the end, the alien count
// matches the board, no alien shares a space with a ship or tile, every
// player gets the same reward, and the position survives the JSON round trip.
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
		e, err := env.Make(id, params)
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
			res, err := e.Step(legal[int(c)%len(legal)])
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Rewards {
				if r != res.Rewards[0] {
					t.Fatalf("rewards differ between players: %v", res.Rewards)
				}
			}
			s := e.State().(*State)
			n := 0
			for g := range s.h {
				n += int(s.h[g])
			}
			if n != s.Aliens() {
				t.Fatalf("alien count %d, board holds %d\n%s", s.Aliens(), n, s.Position())
			}
			if err := s.validate(); err != nil {
				t.Fatalf("invariants: %v\n%s", err, s.Position())
			}
			data, _ := s.MarshalJSON()
			back, err := Game{v1: id == IDv1}.LoadState(e.Params(), data)
			if err != nil {
				t.Fatalf("LoadState(MarshalJSON()): %v\n%s", err, data)
			}
			if back.(*State).Position() != s.Position() {
				t.Fatalf("JSON round trip differs")
			}
		}
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
