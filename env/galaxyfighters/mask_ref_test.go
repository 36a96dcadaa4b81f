package galaxyfighters

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestLegalMaskMatchesReference checks that LegalMask writes the mask and
// count of the former implementation (legalMaskRef, every command action
// tested alone by commandLegal) in random games (40 of each) of both versions, 2 and 4
// players and every mission, over a zeroed and a dirty buffer, and that it
// allocates nothing.
func TestLegalMaskMatchesReference(t *testing.T) {
	for _, id := range []string{IDv1, ID} {
		for _, params := range []map[string]any{nil, {"players": 2}, {"mission": "ace"}} {
			want, got := make([]uint8, NumActions), make([]uint8, NumActions)
			steps, commands := 0, 0
			envtest.RandomGames(t, id, params, 40, rand.New(rand.NewPCG(2, 0)), func(e *env.Env) {
				s := e.State().(*State)
				clear(want)
				nw := legalMaskRef(s, want)
				for _, fill := range []uint8{0, 0xFF} {
					for i := range got {
						got[i] = fill
					}
					if ng := s.LegalMask(got); ng != nw || !bytes.Equal(got, want) {
						t.Fatalf("%s %v step %d (phase %d): LegalMask %v (%d), want %v (%d)", id, params, steps, s.phase, got, ng, want, nw)
					}
				}
				if s.phase == PhaseCommand {
					commands++
				}
				steps++
			})
			t.Logf("%s %v: %d steps, %d in the command phase", id, params, steps, commands)
			if commands == 0 {
				t.Fatalf("%s %v: no command phase in %d steps", id, params, steps)
			}
		}
	}
	e, err := env.Make(ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(1)
	s, dst := e.State().(*State), make([]uint8, NumActions)
	for s.phase != PhaseCommand {
		if _, err := e.Step(envtest.Uniform(e, rand.New(rand.NewPCG(1, 0)))); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(100, func() { s.LegalMask(dst) }); a != 0 {
		t.Fatalf("LegalMask allocates %v times per call", a)
	}
}

// legalMaskRef is the former LegalMask, kept as the reference the
// optimized one must match.
func legalMaskRef(s *State, dst []uint8) int {
	clear(dst[:NumActions])
	n := 0
	set := func(a int) { dst[a] = 1; n++ }
	sh := &s.ships[s.cur]
	switch s.phase {
	case PhaseWeapon:
		for w := 0; w < numWeapons; w++ {
			set(ActionWeapon + w)
		}
	case PhaseBonus:
		for b := 0; b < numBonusTiles; b++ {
			if s.bonusAvailable(b) {
				set(ActionBonus + b)
			}
		}
	case PhaseEngine:
		for _, e := range modelEngines[sh.model] {
			set(ActionEngine + e)
		}
	case PhaseCommand:
		for a := ActionFire; a < ActionEndTurn; a++ {
			if s.commandLegal(a) {
				set(a)
			}
		}
		if s.used > 0 || n == 0 {
			set(ActionEndTurn)
		}
	case PhaseSpill:
		set(ActionSpill)
		set(ActionSpill + 1)
	}
	return n
}
