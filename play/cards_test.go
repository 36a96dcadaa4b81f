package play

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// TestHandCards: the hands of Express and Pilots of Gallaxia read into
// cards with names, Express's trains with their locomotives; every card
// of the hand text becomes one card.
func TestHandCards(t *testing.T) {
	cards, trains := HandCards("express-v2", "player 0: score 3, 4 cards [BX,CO,WD,TT] LC\n  t0 [BX] TK,WD=CN\n  t1 [AU] \n")
	want := []Card{{"BX", "Box Car", "freight", 1}, {"CO", "Coach", "passenger", 0}, {"WD", "Wild Car", "wild", 0}, {"TT", "Turntable", "way", 0}}
	if len(cards) != len(want) {
		t.Fatalf("express hand: %+v", cards)
	}
	for i := range want {
		if cards[i] != want[i] {
			t.Errorf("express card %d: %+v, want %+v", i, cards[i], want[i])
		}
	}
	if len(trains) != 2 || trains[0].Loco.Name != "Box Car" || len(trains[0].Cars) != 2 || trains[0].Cars[1].Name != "Wild Car as Container Car" ||
		trains[1].N != 1 || len(trains[1].Cars) != 0 {
		t.Errorf("express trains: %+v", trains)
	}
	p, _ := HandCards("pilots-of-gallaxia-v2", "your hand (pilot 2): 3.P1 f4 d5 R afterburner")
	if len(p) != 5 || p[0].Name != "planet 1 of sektor 3" || p[1].Class != "fuel" || p[2].Value != 5 || p[3].Class != "rekkoning" || p[4].Class != "captain" {
		t.Errorf("pilots hand: %+v", p)
	}
	// Along a real game every card of the seat's hand is drawn.
	for _, id := range []string{"express-v2", "pilots-of-gallaxia-v2"} {
		e, err := env.Make(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(2)
		seen := 0
		for step := 0; step < 60 && !e.Done(); step++ {
			v, err := SeatView(e.Spec(), e.Params(), e.State(), e.CurrentPlayer())
			if err != nil {
				t.Fatal(err)
			}
			if v.Cards == nil {
				t.Fatalf("%s step %d: no cards read from %q", id, step, v.Hand)
			}
			seen += len(v.Cards)
			for _, c := range v.Cards {
				if c.Name == "" || c.Class == "" || c.Name == c.Code {
					t.Fatalf("%s: card %+v unnamed", id, c)
				}
			}
			m := e.Mask()
			for a, x := range m {
				if x != 0 {
					e.Step(a)
					break
				}
			}
		}
		if seen == 0 {
			t.Errorf("%s: no card in 60 steps", id)
		}
	}
}
