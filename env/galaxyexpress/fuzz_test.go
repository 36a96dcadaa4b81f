package galaxyexpress

import (
	"fmt"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// FuzzPlay plays a game chosen by seed, each byte of choices picking the
// (byte mod n)-th of the n legal actions (envtest.PlayBytes: a legal action
// until the end, the JSON round trip, the per-player results), and checks
// after every step that the return plus the unspent coins still owed
// equals the score (the return is the score at the end), and that the
// action features of every position reached are what the rules do
// (checkFeatures).
func FuzzPlay(f *testing.F) {
	f.Add(uint64(1), false, []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(7), true, []byte{3, 200, 17, 0, 0, 0, 1, 1, 1, 9, 9, 9, 255})
	f.Add(uint64(42), false, []byte(strings.Repeat("\x05\x00\x01", 40)))
	obs, mask, feat := make([]uint8, ObsSize), make([]uint8, NumActions), make([]uint8, NumActions*NumFeatures)
	f.Fuzz(func(t *testing.T, seed uint64, scanWrap bool, choices []byte) {
		e := envtest.PlayBytes(t, ID, map[string]any{"scan_wrap": scanWrap, "max_turns": 60}, seed, choices,
			func(e *env.Env, _ env.StepResult) error {
				s := e.State().(*State)
				if !e.Done() {
					if err := checkFeatures(s, obs, mask, feat, nil); err != nil {
						return err
					}
				}
				owed := float64(s.UnspentCoins())
				if e.Done() {
					owed = 0
				}
				if got := e.Returns()[0] + owed; got != float64(s.Score()) {
					return fmt.Errorf("return %v + owed %v != score %d", e.Returns()[0], owed, s.Score())
				}
				return nil
			})
		if e.Done() && e.Returns()[0] != e.Info().Score {
			t.Fatalf("final return %v != score %v", e.Returns()[0], e.Info().Score)
		}
	})
}

// FuzzParsePosition checks that ParsePosition never panics, and that on a
// valid input Position is its inverse: formatting the parsed state and
// parsing that again gives the same notation, observation, mask and board.
// A legal move from the parsed position must not panic either.
func FuzzParsePosition(f *testing.F) {
	f.Add(sampleStart, false)
	f.Add(chart("b3", farPlanets...)+"speed=4 thrust=0,5/1,2,3,4 brake=1/-", true)
	f.Add(`
. . . . . . . .
. . . @ 4? . . .
. 1? . . . . . .
. . . . . . 0 .
3? . . . . . . 5?
. . 2? . . . . .
speed=2 queue=4,0,1,2,3,5 thrust=3,5/0,1 brake=2/4,5`, false)
	f.Add(". . . . . . . . phase=over", false)
	for seed := uint64(1); seed <= 4; seed++ {
		s := newState(&configs[seed%2], seed)
		f.Add(s.Position(), seed%2 == 1)
		r := []float64{0}
		s.Apply(ActionStart+int(seed), r)
		f.Add(s.Position(), seed%2 == 1)
	}
	f.Fuzz(func(t *testing.T, text string, scanWrap bool) {
		s, err := ParsePosition(text, scanWrap)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "galaxyexpress: position: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		p := s.Position()
		s2, err := ParsePosition(p, scanWrap)
		if err != nil {
			t.Fatalf("Position() of a parsed state does not parse: %v\n%s", err, p)
		}
		if p2 := s2.Position(); p2 != p {
			t.Fatalf("parse∘format is not the identity:\n%s\n!=\n%s", p2, p)
		}
		if s.String() != s2.String() {
			t.Fatalf("String differs after the round trip")
		}
		o1, o2 := make([]uint8, ObsSize), make([]uint8, ObsSize)
		s.Observe(0, o1)
		s2.Observe(0, o2)
		if string(o1) != string(o2) {
			t.Fatalf("observation differs after the round trip")
		}
		m1, m2 := make([]uint8, NumActions), make([]uint8, NumActions)
		n := s.LegalMask(m1)
		s2.LegalMask(m2)
		if string(m1) != string(m2) {
			t.Fatalf("mask differs after the round trip")
		}
		if (n == 0) != s.Terminal() {
			t.Fatalf("%d legal actions, terminal %v", n, s.Terminal())
		}
		for a, m := range m1 {
			if m == 1 {
				s.Apply(a, []float64{0})
				break
			}
		}
	})
}
