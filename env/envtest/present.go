package envtest

import (
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// PresentAs is how a game's presentation tests read a position: it
// observes st for seat, presents the observation with the env.Presenter
// registered as environment id, under params as env.Make resolves them,
// and with st's legal actions when seat is to act (none otherwise, and
// none once st is over), and checks the scene with env.CheckScene against
// the spec of that environment. Any error (an unknown id, a game that is
// not a Presenter, parameters it rejects, Present's error, a malformed
// scene) fails t.
func PresentAs(t testing.TB, id string, params map[string]any, st env.State, seat int) *env.Scene {
	t.Helper()
	e, err := env.Make(id, params)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := env.Lookup(id) // registered: Make found it
	pr, ok := g.(env.Presenter)
	if !ok {
		t.Fatalf("%s is not an env.Presenter", id)
	}
	spec := e.Spec()
	obs := make([]uint8, spec.ObsSize())
	st.Observe(seat, obs)
	var legal []int
	if !st.Terminal() && st.CurrentPlayer() == seat {
		mask := make([]uint8, spec.NumActions())
		st.LegalMask(mask)
		for a, m := range mask {
			if m != 0 {
				legal = append(legal, a)
			}
		}
	}
	sc, err := pr.Present(e.Params(), seat, obs, legal)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.CheckScene(spec, seat, legal, sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

// Zone returns the zone of sc with that ID, or nil.
func Zone(sc *env.Scene, id string) *env.Zone {
	return find(sc.Zones, id, func(z *env.Zone) string { return z.ID })
}

// Piece returns the piece of sc with that ID, or nil.
func Piece(sc *env.Scene, id string) *env.Piece {
	return find(sc.Pieces, id, func(p *env.Piece) string { return p.ID })
}

// Space returns the space of sc with that ID, or nil.
func Space(sc *env.Scene, id string) *env.Space {
	return find(sc.Spaces, id, func(s *env.Space) string { return s.ID })
}

// Move returns the move of sc with that Name, or nil.
func Move(sc *env.Scene, name string) *env.Move {
	return find(sc.Moves, name, func(m *env.Move) string { return m.Name })
}

// find returns the first element of xs whose key is k, or nil.
func find[T any](xs []T, k string, key func(*T) string) *T {
	for i := range xs {
		if key(&xs[i]) == k {
			return &xs[i]
		}
	}
	return nil
}

// CardNames returns the names of z's cards, in order, joined by ", ", or
// "<no zone>" when z is nil.
func CardNames(z *env.Zone) string {
	if z == nil {
		return "<no zone>"
	}
	n := make([]string, len(z.Cards))
	for i, c := range z.Cards {
		n[i] = c.Name
	}
	return strings.Join(n, ", ")
}
