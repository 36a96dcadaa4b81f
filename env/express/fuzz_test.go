package express

import (
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// FuzzPlay plays a game chosen by seed and players, each byte of choices
// picking the (byte mod n)-th of the n legal actions, and checks after
// every step: a legal action exists until the end, returns equal the
// totals (scores) of the players, the position survives the notation round
// trip, and every observation is within bounds.
func FuzzPlay(f *testing.F) {
	f.Add(uint64(1), uint8(4), []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(7), uint8(2), []byte(strings.Repeat("\x05\x00\x01\xff", 60)))
	f.Add(uint64(42), uint8(6), []byte(strings.Repeat("\x00", 200)))
	f.Fuzz(func(t *testing.T, seed uint64, players uint8, choices []byte) {
		n := 2 + int(players)%5
		e, err := env.Make(ID, map[string]any{"players": n, "max_turns": 80})
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(seed)
		obs := make([]uint8, ObsSize)
		high := e.Spec().ObsHigh
		for _, c := range choices {
			if e.Done() {
				break
			}
			var legal []int
			for a, m := range e.Mask() {
				if m == 1 {
					legal = append(legal, a)
				}
			}
			if len(legal) == 0 {
				t.Fatalf("no legal action before the end:\n%s", e.State().(*State).Position())
			}
			if _, err := e.Step(legal[int(c)%len(legal)]); err != nil {
				t.Fatal(err)
			}
			s := e.State().(*State)
			for i := 0; i < n; i++ {
				if e.Returns()[i] != float64(s.pl[i].score) {
					t.Fatalf("player %d: return %v, score %d", i, e.Returns()[i], s.pl[i].score)
				}
				s.Observe(i, obs)
				for j, v := range obs {
					if v > high[j] {
						t.Fatalf("obs[%d] = %d > %d", j, v, high[j])
					}
				}
			}
			back, err := ParsePosition(s.Position(), NewConfig(e.Params()))
			if err != nil {
				t.Fatalf("ParsePosition(Position()): %v\n%s", err, s.Position())
			}
			if back.Position() != s.Position() {
				t.Fatalf("notation round trip:\n%s\n!=\n%s", back.Position(), s.Position())
			}
		}
	})
}

// FuzzParsePosition: any text either parses into a position that writes
// itself back identically and has a legal action unless over, or is refused
// with a *PositionError; nothing panics.
func FuzzParsePosition(f *testing.F) {
	s := newState(DefaultConfig(4).c, 1)
	f.Add(s.Position())
	f.Add(goOutPos)
	f.Add("deck cards=...\np0.t0 loco=BX cars=BX,BX,WD?\n")
	f.Add("express phase=block\npending kind=BR by=0 on=1 train=0\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParsePosition(text, DefaultConfig(4))
		if err != nil {
			if _, ok := err.(*PositionError); !ok {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		if n := s.LegalMask(make([]uint8, NumActions)); (n == 0) != s.Terminal() {
			t.Fatalf("%d legal actions, terminal %v\n%s", n, s.Terminal(), s.Position())
		}
		again, err := ParsePosition(s.Position(), DefaultConfig(4))
		if err != nil || again.Position() != s.Position() {
			t.Fatalf("round trip: %v\n%s", err, s.Position())
		}
	})
}
