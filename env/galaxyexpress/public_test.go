package galaxyexpress

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestPublicWords: in the solitaire every move is public; the words name
// the coin and heading, the launch planet and the refuel choice.
func TestPublicWords(t *testing.T) {
	var g env.PublicMover = Game{}
	p, err := Game{}.Spec().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for a, want := range map[int]string{
		ActionStart + 2:            "the pilot launches from planet 3 in reading order",
		CoinAction(Thrust, 3, 0):   "the pilot spends Thrust coin 3, heading north",
		CoinAction(Brake, 1, West): "the pilot spends Brake coin 1, heading west",
		ActionRefuel:               "the pilot refuels (-10 points)",
		ActionNoRefuel:             "the pilot does not refuel",
	} {
		if got := g.PublicWords(p, 0, a); got != want {
			t.Errorf("action %s: %q, want %q", spec.ActionNames[a], got, want)
		}
	}
}
