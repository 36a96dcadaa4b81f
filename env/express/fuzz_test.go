package express

import (
	"fmt"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// FuzzPlay plays a game chosen by seed and players through the shared
// kit (envtest.PlayBytes: each byte picks the (byte mod n)-th of the n
// legal actions; a legal action until the end, the JSON round trip, the
// per-player results), and checks Express's own invariants after every
// step: returns equal the totals (scores) of the players, the notation
// writes itself back identically, and every observation is within
// Spec.ObsHigh.
func FuzzPlay(f *testing.F) {
	f.Add(uint64(1), uint8(4), []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(7), uint8(2), []byte(strings.Repeat("\x05\x00\x01\xff", 60)))
	f.Add(uint64(42), uint8(6), []byte(strings.Repeat("\x00", 200)))
	f.Fuzz(func(t *testing.T, seed uint64, players uint8, choices []byte) {
		n := 2 + int(players)%5
		obs := make([]uint8, ObsSize)
		for _, g := range []Game{{}, V2()} {
			envtest.PlayBytes(t, g.ID(), map[string]any{"players": n, "max_turns": 80}, seed, choices,
				func(e *env.Env, _ env.StepResult) error {
					s := e.State().(*State)
					high := e.Spec().ObsHigh
					for i := 0; i < n; i++ {
						if e.Returns()[i] != float64(s.pl[i].score) {
							return fmt.Errorf("player %d: return %v, score %d", i, e.Returns()[i], s.pl[i].score)
						}
						s.Observe(i, obs)
						for j, v := range obs {
							if v > high[j] {
								return fmt.Errorf("player %d: obs[%d] = %d > %d", i, j, v, high[j])
							}
						}
					}
					back, err := ParsePosition(s.Position(), g.config(e.Params()))
					if err != nil {
						return fmt.Errorf("ParsePosition(Position()): %v\n%s", err, s.Position())
					}
					if back.Position() != s.Position() {
						return fmt.Errorf("notation round trip:\n%s\n!=\n%s", back.Position(), s.Position())
					}
					return nil
				})
		}
	})
}

// FuzzParsePosition: any text either parses into a position or is refused
// with a *PositionError; nothing panics. A position accepted (under
// express-v1's and express-v2's rules) has a legal action unless over,
// round-trips (written, parsed again: the same state, field for field) and
// reloads through Game.LoadState. The seeds include aliased spellings of
// one record (p00.t0, p+1, p0.t01), which must be
// refused.
func FuzzParsePosition(f *testing.F) {
	s := newState(DefaultConfig(4).c, 1)
	f.Add(s.Position())
	f.Add(goOutPos)
	f.Add("deck cards=...\np0.t0 loco=BX cars=BX,BX,WD?\n")
	f.Add("express phase=block\npending kind=BR by=0 on=1 train=0\n")
	f.Add("express cur=0 phase=block\ndeck cards=...\npending kind=BR by=0 on=1 train=0\np1 hand=TK\np1.t0 loco=BX cars=AU\n")
	const base = "deck cards=...\np0 hand=BX\np0.t0 loco=BX cars=TK,TK\n"
	f.Add(base + "p00.t0 loco=BX cars=CN,CN\n")
	f.Add(base + "p+1 hand=AU\np1 hand=RF\n")
	f.Add(base + "p0.t01 loco=BX cars=CN\np0.t1 loco=BX cars=RF\n")
	f.Add("express cur=+1 hturns=04 turns=-0\n" + base)
	f.Fuzz(func(t *testing.T, text string) {
		for _, g := range []Game{{}, V2()} {
			params, _ := g.Spec().Resolve(nil)
			cfg := g.config(params)
			s, err := ParsePosition(text, cfg)
			if err != nil {
				if _, ok := err.(*PositionError); !ok {
					t.Fatalf("error %T: %v", err, err)
				}
				continue
			}
			if n := s.LegalMask(make([]uint8, NumActions)); (n == 0) != s.Terminal() {
				t.Fatalf("%s: %d legal actions, terminal %v\n%s", g.ID(), n, s.Terminal(), s.Position())
			}
			again, err := ParsePosition(s.Position(), cfg)
			if err != nil || *again != *s {
				t.Fatalf("%s: round trip: %v\n%s", g.ID(), err, s.Position())
			}
			data, err := s.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := g.LoadState(params, data)
			if err != nil {
				t.Fatalf("%s: LoadState of an accepted position: %v\n%s", g.ID(), err, s.Position())
			}
			if loaded.(*State).Position() != s.Position() {
				t.Fatalf("%s: LoadState changed the position", g.ID())
			}
		}
	})
}
