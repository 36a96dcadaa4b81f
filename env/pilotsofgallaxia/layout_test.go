package pilotsofgallaxia

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestLayoutCodes: the observation's codes (env.ObsField.Classes), the
// fields a network should read one-hot: card kinds + 1 (0 none), pieces
// and relative seats. Every other field is a count, a flag, a space set or
// a one-hot already, and declares none.
func TestLayoutCodes(t *testing.T) {
	want := map[string]struct{ size, classes int }{
		"gambit":               {3, NumKinds + 1}, // the cards up, kind + 1
		"scored":               {NumRoutes, MaxPlayers + 1},
		"moving_piece":         {1, 4}, // k + 1
		"sell_fuel":            {1, NumKinds + 1},
		"own_raid_card":        {1, NumKinds + 1},
		"raider_random_card":   {1, NumKinds + 1},
		"defender_random_card": {1, NumKinds + 1},
		"raider_card":          {1, NumKinds + 1},
		"defender_card":        {1, NumKinds + 1},
		"raider_seat":          {1, MaxPlayers + 1}, // relative seat + 1
		"raider_piece":         {1, 3},
		"defender_seat":        {1, MaxPlayers + 1},
		"defender_piece":       {1, 3},
	}
	for _, id := range []string{IDv1, ID} {
		got := 0
		e, err := env.Make(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range e.Spec().ObservationLayout {
			w, ok := want[f.Name]
			switch {
			case !ok && f.Classes != 0:
				t.Errorf("%s: %s declares %d classes, want none", id, f.Name, f.Classes)
			case ok && (f.Classes != w.classes || f.Size() != w.size):
				t.Errorf("%s: %s: %d bytes of %d classes, want %d of %d", id, f.Name, f.Size(), f.Classes, w.size, w.classes)
			case ok:
				got++
			}
		}
		if got != len(want) {
			t.Errorf("%s: %d code fields, want %d", id, got, len(want))
		}
	}
}
