package pilotsofgallaxia

import (
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestPublicWords reads another pilot's moves as the table sees them: a
// raid card is chosen face down (the defender observes the same whether
// the raider chose fuel 8 or none), so every card move and fighting
// without a card read alike and name no card; raids, flights and the
// Gambit are named, pilots absolutely.
func TestPublicWords(t *testing.T) {
	var g env.PublicMover = Game{}
	p, err := Game{}.Spec().Resolve(map[string]any{"players": 3})
	if err != nil {
		t.Fatal(err)
	}
	const pos = "cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
		"raider=1.0 defender=0.0 "
	with, without := posOf(t, ID, pos+"rcard=f8 p1.hand=d3 p0.hand=f5"), posOf(t, ID, pos+"rcard=- p1.hand=f8,d3 p0.hand=f5")
	a, b := make([]uint8, ObsSize), make([]uint8, ObsSize)
	with.Observe(0, a)
	without.Observe(0, b)
	if string(a) != string(b) {
		t.Fatal("the defender tells a chosen raid card from none: the test's premise is wrong")
	}
	none := g.PublicWords(p, 1, ActNoCard)
	for act := ActCard; act < ActShip; act++ {
		if w := g.PublicWords(p, 1, act); w != none {
			t.Fatalf("card action %s reads %q, fighting without a card %q", actionNames[act], w, none)
		}
	}
	if strings.Contains(none, "fuel") || !strings.HasPrefix(none, "pilot 1 ") {
		t.Fatalf("a raid card choice reads %q", none)
	}
	if got := g.PublicWords(p, 2, ActRaid+0); got != "pilot 2 raids pilot 0's starship 1" {
		t.Fatalf("pilot 2 raiding the pilot one seat on: %q", got)
	}
	if got := g.PublicWords(p, 0, ActHire); got != "pilot 0 hires the Durriken" {
		t.Fatal(got)
	}
	if got := g.PublicWords(p, 0, ActNode); !strings.HasPrefix(got, "pilot 0") || len(got) < 20 {
		t.Fatal(got)
	}
}
