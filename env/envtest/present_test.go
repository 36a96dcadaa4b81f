package envtest_test

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
	"github.com/galaxygym/galaxygym/env/envtest/trio"
)

// TestPresentAs reads Trio's scenes through PresentAs and the lookups: the
// seat to act gets one move per legal action (Move finds each by name),
// another seat none; Space and Piece find the slots and cards by ID, and
// every lookup returns nil for an ID the scene lacks.
func TestPresentAs(t *testing.T) {
	e, err := env.Make(trio.ID, map[string]any{env.PlayersParam: 3})
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(4)
	st := e.State()
	params := map[string]any{env.PlayersParam: 3}
	acting := envtest.PresentAs(t, trio.ID, params, st, st.CurrentPlayer())
	legal := 0
	for a, m := range e.Mask() {
		if m == 0 {
			continue
		}
		legal++
		if mv := envtest.Move(acting, e.Spec().ActionNames[a]); mv == nil || mv.A != a {
			t.Errorf("no move %q for legal action %d: %+v", e.Spec().ActionNames[a], a, mv)
		}
	}
	if len(acting.Moves) != legal || legal == 0 {
		t.Errorf("%d moves for %d legal actions", len(acting.Moves), legal)
	}
	other := envtest.PresentAs(t, trio.ID, params, st, (st.CurrentPlayer()+1)%3)
	if len(other.Moves) != 0 {
		t.Errorf("a seat not to act gets %d moves", len(other.Moves))
	}
	if sp, pc := envtest.Space(acting, "slot-2"), envtest.Piece(acting, "card-2"); sp == nil || pc == nil || pc.At != sp.ID {
		t.Errorf("slot-2 %+v, card-2 %+v", sp, pc)
	}
	if envtest.Space(acting, "slot-9") != nil || envtest.Piece(acting, "x") != nil || envtest.Move(acting, "x") != nil || envtest.Zone(acting, "x") != nil {
		t.Error("a lookup found an ID the scene lacks")
	}
	if got := envtest.CardNames(nil); got != "<no zone>" {
		t.Errorf("CardNames(nil) = %q", got)
	}
	if got := envtest.CardNames(&env.Zone{Cards: []env.Card{{Name: "a"}, {Name: "b"}}}); got != "a, b" {
		t.Errorf("CardNames = %q, want \"a, b\"", got)
	}
}
