package express

import (
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestPublicWords reads another player's moves as the table sees them: a
// locomotive goes down face down (whichever card it is, the words are the
// same, as the others' observations are), cars and Disasters are named,
// seats absolutely.
func TestPublicWords(t *testing.T) {
	const table = `express hand=0 turns=4 hturns=4 cur=0 phase=meld
deck cards=...
discard cards=TK,CN
p0 played=1 hand=WD,TK,BR,LC
p0.t0 loco=BX cars=TK,TK
p1 played=1 known=AU hand=AU,BX,BX
p1.t2 loco=SL cars=CO,DM
p2 played=1 hand=OF
`
	s := posV2(t, 3, table)
	g := Game{}
	p, err := g.Spec().Resolve(map[string]any{"players": 3})
	if err != nil {
		t.Fatal(err)
	}
	act := func(name string) int {
		a := slices.Index(actionNames, name)
		if a < 0 {
			t.Fatalf("no action %q", name)
		}
		return a
	}
	others := func(a int) string { // what players 1 and 2 observe after player 0 plays a
		c := s.Clone()
		c.Apply(a, make([]float64, 3))
		var all []byte
		obs := make([]uint8, ObsSize)
		for q := 1; q < 3; q++ {
			c.Observe(q, obs)
			all = append(all, obs...)
		}
		return string(all)
	}
	words := func(name string) string { return g.PublicWords(p, 0, act(name)) }

	t.Run("a new train's locomotive is face down to the others", func(t *testing.T) {
		tk, lc := words("start-BR"), words("start-LC")
		if others(act("start-BR")) != others(act("start-LC")) {
			t.Fatal("the others tell the locomotives apart: the test's premise is wrong")
		}
		if tk != lc || tk != "player 0 starts a new train (locomotive face down)" {
			t.Fatalf("start-BR %q, start-LC %q", tk, lc)
		}
		me := sceneOf(t, s, 0, map[string]any{"players": 3})
		var mine string
		for _, m := range me.Moves {
			if m.Name == "start-BR" {
				mine = m.Words
			}
		}
		if !strings.Contains(mine, "Broken Car") || strings.Contains(tk, "Broken") {
			t.Fatalf("the mover reads %q, the others %q", mine, tk)
		}
	})
	t.Run("cars and Disasters are played face up and named", func(t *testing.T) {
		if got := words("add-t0-TK"); got != "player 0 adds Tank Car to train t0" {
			t.Fatal(got)
		}
		if got := g.PublicWords(p, 2, act("broken-p1-t2")); got != "player 2 plays Broken Car on player 0" {
			t.Fatal(got)
		}
		if got := words("discard-LC"); got != "player 0 discards Light Crane" {
			t.Fatal(got)
		}
	})
	var _ env.PublicMover = g
}
