package galaxyfighters

import (
	"slices"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

// v2cfg resolves galaxy-fighters-v2 parameters (four players).
func v2cfg(t *testing.T, p map[string]any) *Config {
	t.Helper()
	r, err := Game{}.Spec().Resolve(p)
	if err != nil {
		t.Fatal(err)
	}
	return NewConfig(r)
}

func TestVersionsDefaults(t *testing.T) {
	v1, v2 := DefaultConfig(IDv1, 4).c, DefaultConfig(ID, 4).c
	if v1.v2 || v1.invaderCap != 10 || v1.density != 1 || v1.bonusRule != bonusAny {
		t.Errorf("v1 defaults: %+v", *v1)
	}
	if !v2.v2 || v2.invaderCap != 6 || v2.density != missions[1].density || v2.bonusRule != bonusAny {
		t.Errorf("v2 defaults: %+v", *v2)
	}
	for _, m := range missions {
		c := v2cfg(t, map[string]any{"mission": m.name})
		if c.c.density != m.density {
			t.Errorf("%s: density %v, want the mission's %v", m.name, c.c.density, m.density)
		}
	}
	if c := v2cfg(t, map[string]any{"mission": "ace", "spawn_density": 1.25}); c.c.density != 1.25 {
		t.Errorf("spawn_density=1.25 gives %v", c.c.density)
	}
	if _, err := specV2.Resolve(map[string]any{"spawn_density": 5.0}); err == nil {
		t.Error("spawn_density=5 accepted")
	}
	if p := specV1.Param("spawn_density"); p != nil {
		t.Error("v1 has spawn_density")
	}
}

// TestSpawnDensity: v2's spawn phase lays the deck's card, then
// reinforcement cards from the pool: floor(d) cards in all, and one more
// with probability d - floor(d).
func TestSpawnDensity(t *testing.T) {
	laid := func(d float64, seed uint64) (extra int, ok bool) {
		s := posCfg(t, v2cfg(t, map[string]any{"spawn_density": d}), nil, "deck=5")
		s.rng.Seed(seed, 1)
		play(t, s, "end-turn")
		return s.Aliens() - len(cards[5]), s.SpawnLeft() == 0
	}
	min1, max1 := 99, 0
	for _, c := range cards[1:] {
		min1, max1 = min(min1, len(c)), max(max1, len(c))
	}
	for seed := uint64(0); seed < 20; seed++ {
		if x, _ := laid(1, seed); x != 0 {
			t.Fatalf("density 1 laid %d extra aliens", x)
		}
		if x, _ := laid(3, seed); x < 2*min1 || x > 2*max1 {
			t.Fatalf("density 3 laid %d extra aliens, want two pool cards' (%d-%d)", x, 2*min1, 2*max1)
		}
	}
	two := 0
	const n = 400
	for seed := uint64(0); seed < n; seed++ {
		if x, _ := laid(1.25, seed); x > 0 {
			two++
		}
	}
	// Binomial(400, 0.25): mean 100, sd 8.7.
	if two < 70 || two > 130 {
		t.Errorf("density 1.25: %d of %d spawn phases laid a second card, want about 100", two, n)
	}
	// The deck still counts draws: one card drawn per spawn phase.
	if _, empty := laid(2.5, 1); !empty {
		t.Error("a reinforcement consumed the deck")
	}
}

// TestFrenzyCrashKeepsLiftedAliens: a frenzy whose first alien destroys a
// ship that cannot be replaced ends the game; in v2 the aliens still
// lifted off the stack go back to it (v1 loses them, the bug it keeps).
func TestFrenzyCrashKeepsLiftedAliens(t *testing.T) {
	cells := map[string]string{"r9c5": "Y<Y>Mv"}
	for _, tc := range []struct {
		cfg    *Config
		aliens int
		stack  string
	}{
		{DefaultConfig(IDv1, 4), 0, "."},
		{DefaultConfig(ID, 4), 2, "Y<Y>"},
	} {
		s := posCfg(t, tc.cfg, cells, deck)
		play(t, s, "end-turn")
		if !s.Lost() || !s.noShip {
			t.Fatalf("the Magentis should destroy the last ship: %s", s.Position())
		}
		n := 0
		for g := range s.h {
			n += int(s.h[g])
		}
		if s.Aliens() != tc.aliens || n != tc.aliens || cell(t, s, "r9c5") != tc.stack {
			t.Errorf("v2=%v: %d aliens counted, %d on the board, r9c5 %q; want %d and %q", tc.cfg.c.v2, s.Aliens(), n,
				cell(t, s, "r9c5"), tc.aliens, tc.stack)
		}
	}
}

// TestBonusTilesTwoEach: under bonus_tiles=two_each a symbol two ships hold
// is no longer offered; under any it always is.
func TestBonusTilesTwoEach(t *testing.T) {
	for _, rule := range []string{"any", "two_each"} {
		e, err := env.Make(ID, map[string]any{"bonus_tiles": rule})
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(1)
		bonusSeen := 0
		for !e.Done() && bonusSeen < 4 {
			s := e.State().(*State)
			a := slices.Index(e.Mask(), 1)
			if s.Phase() == PhaseBonus {
				bonusSeen++
				var offered []string
				for b := 0; b < numBonusTiles; b++ {
					if e.Mask()[ActionBonus+b] == 1 {
						offered = append(offered, faceCodes[b])
					}
				}
				want := []string{"fire", "move", "special"}
				if rule == "two_each" && bonusSeen >= 3 {
					want = want[1:] // the first two ships took fire
				}
				if !slices.Equal(offered, want) {
					t.Errorf("%s, ship %d: offered %v, want %v", rule, bonusSeen, offered, want)
				}
				a = ActionBonus + slices.Index(faceCodes[:], offered[0])
			}
			if _, err := e.Step(a); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCornerDriftUnreachable: aliens never turn, appear only in deep space
// and move straight, so no alien's path ever ends in a corner (v1's A18
// cannot trigger; it stays in the rules as a guard).
func TestCornerDriftUnreachable(t *testing.T) {
	for g := 0; g < Cells; g++ {
		r, c := g/Side, g%Side
		if r < 3 || r > 7 || c < 3 || c > 7 {
			continue
		}
		for d := 0; d < 4; d++ {
			for cur := g; ; {
				n, ok, out := step(cur, d)
				if out {
					break
				}
				if !ok {
					t.Fatalf("an alien from %s facing %d drifts into a corner", CellName(g), d)
				}
				cur = n
			}
		}
	}
	for k, c := range cards {
		for _, a := range c {
			if a.row < 0 || a.row > 4 || a.col < 0 || a.col > 4 {
				t.Fatalf("card %d places outside deep space", k)
			}
		}
	}
}

// TestOppositeDistrictFallback: with both neighbours of a full district
// full, its spill-over goes to the opposite district; this needs three
// districts invaded, so only districts_to_lose=4 reaches it.
func TestOppositeDistrictFallback(t *testing.T) {
	cfg := v2cfg(t, map[string]any{"districts_to_lose": 4})
	s := posCfg(t, cfg, map[string]string{"r10c4": "Yv"}, deck+" inv=6,6,0,6")
	play(t, s, "end-turn")
	if s.invaders != [4]int8{6, 6, 1, 6} || s.Terminal() {
		t.Fatalf("the alien should spill to Novaport: %s", s.Position())
	}
}
