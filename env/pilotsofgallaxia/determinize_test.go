package pilotsofgallaxia

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

var _ env.Determinizer = Game{}

// randomPositions plays a uniformly random game and calls f on the
// environment before every step.
func randomPositions(t *testing.T, id string, params map[string]any, seed uint64, steps int, f func(e *env.Env)) {
	t.Helper()
	e, err := env.Make(id, params)
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(seed)
	rng := rand.New(rand.NewPCG(seed, 9))
	for i := 0; i < steps && !e.Done(); i++ {
		f(e)
		var legal []int
		for a, m := range e.Mask() {
			if m != 0 {
				legal = append(legal, a)
			}
		}
		if _, err := e.Step(legal[rng.IntN(len(legal))]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeterminize: a state sampled from a pilot's observation shows that
// pilot the same observation, the same legal actions and the same render,
// and deals the hidden cards differently from the true state. This is also
// the hidden-information test: the sample shares only what the pilot sees
// with the true state (hands, deck order and the other side's raid card
// are resampled), so observation and render depend on nothing else.
func TestDeterminize(t *testing.T) {
	for _, id := range []string{IDv1, ID} {
		t.Run(id, func(t *testing.T) { testDeterminize(t, id) })
	}
}

func testDeterminize(t *testing.T, id string) {
	g := Game{v1: id == IDv1}
	cases := []map[string]any{
		nil,
		{"players": 2},
		{"players": 6},
		{"players": 3, "mode": "a_new_life", "caravans": 6},
		{"players": 5, "hideouts": true, "rings_to_win": 3},
	}
	obs, obs2 := make([]uint8, ObsSize), make([]uint8, ObsSize)
	m1, m2 := make([]uint8, NumActions), make([]uint8, NumActions)
	var reuse env.State
	for ci, params := range cases {
		differs, n := 0, 0
		randomPositions(t, id, params, uint64(100+ci), 3000, func(e *env.Env) {
			s := e.State().(*State)
			for _, p := range []int{s.CurrentPlayer(), (s.CurrentPlayer() + 1) % s.cfg.players} {
				s.Observe(p, obs)
				d, err := g.Determinize(e.Params(), p, obs, uint64(n), reuse)
				if err != nil {
					t.Fatalf("case %d step %d player %d: %v\n%s", ci, e.Steps(), p, err, s.Position())
				}
				reuse = d
				ds := d.(*State)
				ds.Observe(p, obs2)
				if !bytes.Equal(obs, obs2) {
					for i := range obs {
						if obs[i] != obs2[i] {
							t.Fatalf("case %d step %d player %d: observation byte %d: %d, sampled %d\n%s\n%s", ci, e.Steps(), p, i,
								obs[i], obs2[i], s.Position(), ds.Position())
						}
					}
				}
				if s.turn < 255 && s.String() != ds.String() { // the observation saturates the turn at 255
					t.Fatalf("case %d: render differs:\n%s\n%s", ci, s, ds)
				}
				if p == s.CurrentPlayer() {
					s.LegalMask(m1)
					ds.LegalMask(m2)
					if !bytes.Equal(m1, m2) {
						t.Fatalf("case %d step %d: legal mask differs\n%s\n%s", ci, e.Steps(), s.Position(), ds.Position())
					}
				}
				for q := 0; q < s.cfg.players; q++ {
					if q != p && s.hand[q] != ds.hand[q] {
						differs++
					}
				}
				n++
			}
		})
		if differs == 0 {
			t.Errorf("case %d: no sample ever dealt another pilot's hand differently", ci)
		}
	}
}

// TestDeterminizeErrors: malformed observations are refused with a typed error.
func TestDeterminizeErrors(t *testing.T) {
	p, _ := specV1.Resolve(nil)
	if _, err := (Game{}).Determinize(p, 0, make([]uint8, 10), 1, nil); err == nil {
		t.Fatal("short observation accepted")
	}
	if _, err := (Game{}).Determinize(p, 0, make([]uint8, ObsSize), 1, nil); err == nil {
		t.Fatal("all-zero observation accepted")
	} else if _, ok := err.(*DeterminizeError); !ok {
		t.Fatalf("error %T, want *DeterminizeError", err)
	}
}
