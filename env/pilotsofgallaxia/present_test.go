package pilotsofgallaxia

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// sceneOf returns pilot's scene of s (the legal actions only when pilot is
// to act), checked by env.CheckScene.
func sceneOf(t *testing.T, s *State, pilot int) *env.Scene {
	id := ID
	if !s.cfg.v2 {
		id = IDv1
	}
	return envtest.PresentAs(t, id, map[string]any{env.PlayersParam: s.cfg.players}, s, pilot)
}

// TestPresent reads scenes as a pilot sees the table: the own hand by
// name, another pilot's face down with its size, pieces on their spaces
// with the same ids in every pilot's scene, moves named in absolute
// sektors (click a piece, then a space or another piece), the end.
func TestPresent(t *testing.T) {
	const base = "cur=0 p0.ships=1.P1,1.H p1.ships=1.r0a,2.H p0.hand=f5,3.P4,salvage p1.hand=f4,d2 "
	t.Run("hands: the pilot's own face up and private, another's face down", func(t *testing.T) {
		s := posOf(t, ID, base)
		me, other := sceneOf(t, s, 0), sceneOf(t, s, 1)
		h := envtest.Zone(me, "hand-0")
		if envtest.CardNames(h) != "planet 4 of sektor 3, fuel 5, Salvage" || !h.Private {
			t.Fatalf("pilot 0's hand: %q private %v", envtest.CardNames(h), h.Private)
		}
		if h := envtest.Zone(me, "hand-1"); h.Count != 2 || len(h.Cards) != 0 || h.Private {
			t.Fatalf("pilot 1's hand in pilot 0's scene: %+v", h)
		}
		if h := envtest.Zone(other, "hand-0"); h.Count != 3 || len(h.Cards) != 0 {
			t.Fatalf("pilot 0's hand in pilot 1's scene: %+v", h)
		}
		if other.Seats[1].Name != "pilot 1" || !slices.Contains(other.Seats[1].Facts, "sektor 2") {
			t.Fatalf("pilot 1's facts: %+v", other.Seats[1])
		}
	})
	t.Run("pieces stand on absolute spaces, the same in every scene", func(t *testing.T) {
		s := posOf(t, ID, base)
		for pilot := range 4 {
			sc := sceneOf(t, s, pilot)
			if a, b := envtest.Piece(sc, "ship-0-1"), envtest.Piece(sc, "ship-1-1"); a.At != "1.P1" || b.At != "1.r0a" || b.Owner != 1 {
				t.Fatalf("pilot %d sees ship-0-1 at %q, ship-1-1 at %q", pilot, a.At, b.At)
			}
			if r := envtest.Piece(sc, "ring-0"); r == nil || r.At != "4.P4" {
				t.Fatalf("pilot %d: pilot 0's scientist %+v, want on 4.P4", pilot, r)
			}
		}
	})
	t.Run("main phase: click a ship to move it, a hand card to pay with it", func(t *testing.T) {
		sc := sceneOf(t, posOf(t, ID, base), 0)
		if m := envtest.Move(sc, "ship-1"); m.Words != "move starship 1" || !slices.Equal(m.Target, []string{"ship-0-1"}) {
			t.Fatalf("ship-1: %+v", m)
		}
		if m := envtest.Move(sc, "card-s2-P4"); m.Words != "pay planet 4 of sektor 3 for a Captain's card" ||
			!slices.Equal(m.Target, []string{"hand-0-3.P4-0"}) {
			t.Fatalf("card-s2-P4: %+v", m)
		}
		if m := envtest.Move(sc, "end-moves"); m.Select != nil || m.Target != nil {
			t.Fatalf("end-moves is a button: %+v", m)
		}
	})
	t.Run("moving: the lifted ship, then the space or the piece to raid", func(t *testing.T) {
		s := posOf(t, ID, base)
		play(t, s, "ship-1", "base-move")
		sc := sceneOf(t, s, 0)
		step := envtest.Move(sc, "to-s0-r0a")
		if step.Words != "fly to caravan space 1.r0a (route 1.P1-1.P3)" || !slices.Equal(step.Select, []string{"ship-0-1"}) ||
			!slices.Equal(step.Target, []string{"1.r0a"}) {
			t.Fatalf("to-s0-r0a: %+v", step)
		}
		raid := envtest.Move(sc, "raid-r1-ship-1")
		if raid.Words != "raid pilot 1's starship 1" || !slices.Equal(raid.Target, []string{"ship-1-1"}) {
			t.Fatalf("raid-r1-ship-1: %+v", raid)
		}
		if p := envtest.Piece(sceneOf(t, s, 1), "ship-0-1"); p.At != "1.P1" || !strings.Contains(p.Title, "moving, 2 points left") {
			t.Fatalf("the moving ship in pilot 1's scene: %+v", p)
		}
	})
	t.Run("another pilot's frame: its s0 is its own sektor", func(t *testing.T) {
		s := posOf(t, ID, "cur=1 p1.ships=2.P1,2.H")
		play(t, s, "ship-1", "base-move")
		m := envtest.Move(sceneOf(t, s, 1), "to-s0-r0a")
		if !slices.Equal(m.Target, []string{"2.r0a"}) || m.Words != "fly to caravan space 2.r0a (route 2.P1-2.P3)" {
			t.Fatalf("pilot 1's to-s0-r0a: %+v", m)
		}
	})
	t.Run("the end: who won and how, in every pilot's scene", func(t *testing.T) {
		s := posOf(t, ID, "cur=0 p0.ships=1.P2,1.H rings=0@ship:0.0,1@5.P4,2@1.P4,3@2.P4")
		play(t, s, "ship-1", "base-move", "to-s0-H")
		for pilot := range 4 {
			sc := sceneOf(t, s, pilot)
			if sc.Ended != "pilot 0 won: brought their scientist home" || sc.Status != "" || len(sc.Moves) != 0 {
				t.Fatalf("pilot %d: ended %q status %q", pilot, sc.Ended, sc.Status)
			}
			if p := envtest.Piece(sc, "ship-0-1"); p.At != "1.H" {
				t.Fatalf("the final position: ship-0-1 at %q", p.At)
			}
		}
	})
}

// TestPresentInformationSet: positions that differ only in what a pilot
// cannot see give that pilot byte-identical scenes: the pairs of
// TestHiddenInformation, and at random positions of whole games a state
// sampled from the pilot's observation (Determinize deals every hidden
// card again).
func TestPresentInformationSet(t *testing.T) {
	pairs := [][2]string{
		{"cur=1 p0.hand=f5 p1.hand=f3,2.P4,d5 deck=f4,f8,3.P1", "cur=1 p0.hand=f5 p1.hand=f8,3.P1,d6 deck=f3,2.P4,f4"},
		{"cur=0 p0.hand=f5 p2.hand=d1,d2 cdeck=salvage,deflector", "cur=0 p0.hand=f5 p2.hand=d1,d2 cdeck=deflector,salvage"},
		{"cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
			"raider=1.0 defender=0.0 rcard=f8 p1.hand=d3 p0.hand=f5",
			"cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
				"raider=1.0 defender=0.0 rcard=- p1.hand=f8,d3 p0.hand=f5"},
	}
	for i, p := range pairs {
		a, _ := json.Marshal(sceneOf(t, posOf(t, ID, p[0]), 0))
		b, _ := json.Marshal(sceneOf(t, posOf(t, ID, p[1]), 0))
		if string(a) != string(b) {
			t.Fatalf("pair %d: pilot 0's scenes differ:\n%s\n%s", i, a, b)
		}
	}
	obs := make([]uint8, ObsSize)
	n := 0
	randomPositions(t, ID, map[string]any{"players": 3}, 7, 400, func(e *env.Env) {
		s := e.State().(*State)
		p := s.CurrentPlayer()
		s.Observe(p, obs)
		d, err := Game{}.Determinize(e.Params(), p, obs, uint64(n), nil)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(sceneOf(t, s, p))
		b, _ := json.Marshal(sceneOf(t, d.(*State), p))
		if string(a) != string(b) {
			t.Fatalf("step %d: pilot %d's scene differs in a sampled twin:\n%s\n%s", e.Steps(), p, a, b)
		}
		n++
	})
}

// TestPresentHiddenRaidCard: the raider's chosen card is in its scene
// alone (ObserverOnly, named absolutely), its hand still counts it as the
// others' scenes do, and the public part of every pilot's scene is the
// same whether or not a card was chosen.
func TestPresentHiddenRaidCard(t *testing.T) {
	const pos = "cur=1 phase=raidD p1.ships=1.P1,2.H p0.ships=1.r0a,1.H mover=0 at=1.P1 lastfree=1.P1 budget=1 raided=1 " +
		"raider=1.0 defender=0.0 "
	with, without := posOf(t, ID, pos+"rcard=f8 p1.hand=d3 p0.hand=f5"), posOf(t, ID, pos+"rcard=- p1.hand=f8,d3 p0.hand=f5")
	raider := sceneOf(t, with, 1)
	z := envtest.Zone(raider, "raid-card-1")
	if z == nil || !z.ObserverOnly || !z.Private || z.Name != "pilot 1's hidden raid card" || envtest.CardNames(z) != "fuel 8" {
		t.Fatalf("the raider's hidden card: %+v", z)
	}
	if h := envtest.Zone(raider, "hand-1"); envtest.CardNames(h) != "Durriken 3" || h.Count != 2 {
		t.Fatalf("the raider's hand: %q, count %d (want the 2 the others see)", envtest.CardNames(h), h.Count)
	}
	if h := envtest.Zone(sceneOf(t, without, 1), "hand-1"); h.Count != 0 || len(h.Cards) != 2 {
		t.Fatalf("the raider's hand without a raid card: %+v", h)
	}
	var first string
	for _, s := range []*State{with, without} {
		for pilot := range 2 {
			j, _ := json.Marshal(env.PublicScene(sceneOf(t, s, pilot)))
			if first == "" {
				first = string(j)
			}
			if string(j) != first {
				t.Fatalf("pilot %d's public part differs:\n%s\n%s", pilot, first, j)
			}
		}
	}
}
