package env_test

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
)

// TestEnvActionName: Env.ActionName is the spec's name for a game whose
// state names no actions, the state's name (env.ActionNamer) otherwise,
// and "" out of range.
func TestEnvActionName(t *testing.T) {
	for _, id := range env.IDs() {
		e, err := env.Make(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(1)
		names := e.Spec().ActionNames
		_, namer := e.State().(env.ActionNamer)
		for a, want := range names {
			got := e.ActionName(a)
			if !namer && got != want {
				t.Fatalf("%s: ActionName(%d) = %q, want the spec's %q", id, a, got, want)
			}
			if got == "" {
				t.Fatalf("%s: ActionName(%d) is empty", id, a)
			}
		}
		if e.ActionName(-1) != "" || e.ActionName(len(names)) != "" {
			t.Fatalf("%s: a name out of range", id)
		}
	}
}
