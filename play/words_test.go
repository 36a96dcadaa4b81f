package play

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

func TestDescribe(t *testing.T) {
	for _, c := range []struct{ id, name, want string }{
		{"express-v1", "start-BX", "start a train with Box Car"},
		{"express-v1", "add-t1-TK", "add Tank Car to train 1"},
		{"express-v1", "wild-t0-undeclared", "Wild Car to train 0 as undeclared"},
		{"express-v1", "take-discard", "take the top discard"},
		{"express-v1", "way-LC", "play Way Car Light Crane"},
		{"pilots-of-gallaxia-v1", "to-s0-P3", "fly to your sektor, planet 3"},
		{"pilots-of-gallaxia-v1", "to-s2-H", "fly to sektor +2, hangar"},
		{"pilots-of-gallaxia-v1", "card-f5", "play card fuel 5"},
		{"pilots-of-gallaxia-v1", "raid-r1-ship-2", "raid the pilot +1's ship 2"},
		{"galaxy-express-v1", "thrust-0-north", "thrust coin 0 north"},
		{"galaxy-fighters-v1", "move-ne", "move north-east"},
		{"galaxy-fighters-v2", "weapon-wide-beam", "weapon wide beam"},
	} {
		if got := Describe(c.id, c.name); got != c.want {
			t.Errorf("Describe(%s, %s) = %q, want %q", c.id, c.name, got, c.want)
		}
	}
	// Every action of every game has words, distinct within the game.
	for _, id := range env.IDs() {
		g, _ := env.Lookup(id)
		seen := map[string]string{}
		for _, n := range g.Spec().ActionNames {
			w := Describe(id, n)
			if w == "" {
				t.Fatalf("%s %s: no words", id, n)
			}
			if o, dup := seen[w]; dup {
				t.Errorf("%s: %s and %s both read %q", id, o, n, w)
			}
			seen[w] = n
		}
	}
}

func TestLegend(t *testing.T) {
	got := Legend("express-v1", "player 0: score 0, 3 cards [TK,TK,CN]\n  t0 [BX] OB")
	if want := "TK Tank Car · CN Container Car · BX Box Car · OB Observation"; got != want {
		t.Fatalf("Legend = %q, want %q", got, want)
	}
	if Legend("pilots-of-gallaxia-v1", "TK") != "" {
		t.Fatal("a legend for another game")
	}
}
