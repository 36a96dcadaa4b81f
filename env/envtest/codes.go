package envtest

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// Code is a code field's size in bytes and classes ([env.ObsField.Classes]).
type Code struct{ Size, Classes int }

// Codes checks that the observation layout of each id declares exactly the
// code fields of want, by name, with their sizes and classes: a field that
// declares classes is in want, a field in want declares them.
func Codes(t *testing.T, ids []string, want map[string]Code) {
	t.Helper()
	for _, id := range ids {
		e, err := env.Make(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, f := range e.Spec().ObservationLayout {
			w, ok := want[f.Name]
			switch {
			case !ok && f.Classes != 0:
				t.Errorf("%s: %s declares %d classes, want none", id, f.Name, f.Classes)
			case ok && (f.Classes != w.Classes || f.Size() != w.Size):
				t.Errorf("%s: %s: %d bytes of %d classes, want %d of %d", id, f.Name, f.Size(), f.Classes, w.Size, w.Classes)
			case ok:
				got++
			}
		}
		if got != len(want) {
			t.Errorf("%s: %d code fields, want %d", id, got, len(want))
		}
	}
}
