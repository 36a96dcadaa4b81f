package galaxyfighters

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestPublicWords: Galaxy Fighters is co-operative and every command is
// played in the open, so the words name it with the seat that gave it.
func TestPublicWords(t *testing.T) {
	var g env.PublicMover = Game{}
	p, err := Game{}.Spec().Resolve(map[string]any{"players": 2})
	if err != nil {
		t.Fatal(err)
	}
	for a, want := range map[int]string{
		ActionWeapon + 1:   "player 1 chooses the Laser Beam",
		ActionMove + 2:     "player 1 moves the ship right",
		ActionMissile + 1:  "player 1 uses Missile Command on zone 5",
		ActionWarp + 5 + 2: "player 1 warps to zone 2, column 3",
		ActionEndTurn:      "player 1 ends the command phase",
		ActionSpill + 1:    "player 1 spills the alien over to the right",
	} {
		if got := g.PublicWords(p, 1, a); got != want {
			t.Errorf("action %s: %q, want %q", actionNames[a], got, want)
		}
	}
	for a := range NumActions {
		if g.PublicWords(p, 0, a) == "" {
			t.Errorf("action %s has no words", actionNames[a])
		}
	}
}
