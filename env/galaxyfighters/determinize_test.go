package galaxyfighters

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestDeterminize plays random games of both versions and every player
// count and, at every decision, determinizes the acting player's
// observation: the sample observes back to the same bytes, has the same
// legal mask and player to act, and its hidden parts are legal draws
// (deck cards distinct pool cards, shipyard models from the ship deck
// less the ships in play); different seeds give different decks.
func TestDeterminize(t *testing.T) {
	cases := []struct {
		id     string
		params map[string]any
	}{
		{ID, nil},
		{ID, map[string]any{"players": 3, "mission": "ace"}},
		{ID, map[string]any{"players": 2, "mission": "rookie", "bonus_tiles": "two_each", "win_on": "last_card"}},
		{IDv1, map[string]any{"players": 3}},
		{IDv1, map[string]any{"mission": "ace", "invader_spaces": 6}},
	}
	var reuse env.State
	for ci, tc := range cases {
		e, err := env.Make(tc.id, tc.params)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := env.Lookup(tc.id)
		det := g.(env.Determinizer)
		rng := rand.New(rand.NewPCG(uint64(ci), 9))
		obs, back := make([]uint8, ObsSize), make([]uint8, ObsSize)
		mask := make([]uint8, NumActions)
		checked, decks := 0, map[string]bool{}
		for ep := uint64(0); ep < 6; ep++ {
			e.Reset(ep + 100*uint64(ci))
			for !e.Done() {
				p := e.CurrentPlayer()
				e.Observe(p, obs)
				st, err := det.Determinize(e.Params(), p, obs, rng.Uint64(), reuse)
				if err != nil {
					t.Fatalf("%s %v: Determinize: %v\n%s", tc.id, tc.params, err, e.State().(*State).Position())
				}
				reuse = st
				d := st.(*State)
				d.Observe(p, back)
				if !slices.Equal(obs, back) {
					t.Fatalf("%s %v: the sample observes differently\ntrue:   %s\nsample: %s", tc.id, tc.params,
						e.State().(*State).Position(), d.Position())
				}
				d.LegalMask(mask)
				if !slices.Equal(mask, e.Mask()) || d.CurrentPlayer() != p {
					t.Fatalf("%s: legal mask or player to act differs\ntrue:   %s\nsample: %s", tc.id,
						e.State().(*State).Position(), d.Position())
				}
				checkHiddenDraw(t, d)
				if checked%50 == 0 {
					decks[fmt.Sprint(d.deck[:d.deckN])] = true
				}
				checked++
				legal := []int{}
				for a, m := range e.Mask() {
					if m == 1 {
						legal = append(legal, a)
					}
				}
				e.Step(legal[rng.IntN(len(legal))])
			}
		}
		if checked < 100 || len(decks) < 2 {
			t.Errorf("%s: %d decisions checked, %d distinct sampled decks", tc.id, checked, len(decks))
		}
	}
}

func checkHiddenDraw(t *testing.T, d *State) {
	t.Helper()
	seen := map[int8]bool{}
	for _, c := range d.deck[:d.deckN] {
		if c < 1 || c > poolCards || seen[c] {
			t.Fatalf("deck %v", d.deck[:d.deckN])
		}
		seen[c] = true
	}
	var n [numModels]int
	for _, m := range shipDeck {
		n[m]++
	}
	for k := range d.ships {
		n[d.ships[k].model]--
	}
	for _, m := range d.yard[:d.yardN] {
		n[m]--
	}
	for _, v := range n {
		if v < 0 {
			t.Fatalf("shipyard %v with ships in play beyond the ship deck", d.yard[:d.yardN])
		}
	}
}

// TestDeterminizeStackOrder: the aliens under a stack's top are permuted
// (the observation shows their kinds only); the top stays.
func TestDeterminizeStackOrder(t *testing.T) {
	s := pos(t, map[string]string{"r4c4": "YvB<M^Y>Bv"}, deck+" ship1=phalanx/wide-beam/thrusters/fire")
	params, _ := specV1.Resolve(nil)
	obs := make([]uint8, ObsSize)
	s.Observe(0, obs)
	orders := map[string]bool{}
	for seed := uint64(0); seed < 40; seed++ {
		d, err := Game{v1: true}.Determinize(params, 0, obs, seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		tok := d.(*State).cellToken(4*Side + 4)
		if tok[len(tok)-2:] != "Bv" || len(tok) != 10 {
			t.Fatalf("stack %q: the top Bv must stay on top", tok)
		}
		orders[tok] = true
	}
	if len(orders) < 6 {
		t.Errorf("%d orders of 4 covered aliens in 40 samples", len(orders))
	}
}

func TestDeterminizeErrors(t *testing.T) {
	e, _ := env.Make(ID, nil)
	e.Reset(1)
	obs := make([]uint8, ObsSize)
	e.Observe(0, obs)
	v1params, _ := specV1.Resolve(nil) // 10 invader spaces: not v2's observation
	var oe *DeterminizeError
	if _, err := (Game{}).Determinize(v1params, 0, obs, 1, nil); !errors.As(err, &oe) {
		t.Errorf("another parameter set's observation: %v", err)
	}
	if _, err := (Game{}).Determinize(e.Params(), 0, obs[:100], 1, nil); !errors.As(err, &oe) {
		t.Errorf("a short observation: %v", err)
	}
	if _, err := (Game{}).Determinize(e.Params(), 7, obs, 1, nil); !errors.As(err, &oe) {
		t.Errorf("player 7: %v", err)
	}
	bad := slices.Clone(obs)
	bad[OffHeight+5*Side+5] = 3 // a stack without its aliens
	if _, err := (Game{}).Determinize(e.Params(), 0, bad, 1, nil); !errors.As(err, &oe) {
		t.Errorf("a stack without aliens: %v", err)
	}
}
