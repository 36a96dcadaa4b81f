package express

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
)

var _ env.Determinizer = Game{}

// visitRandom plays seeded random games of players and calls visit on
// every position.
func visitRandom(t *testing.T, players, games int, visit func(s *State)) {
	t.Helper()
	visitRandomCfg(t, DefaultConfig(players), games, visit)
}

// visitRandomCfg is visitRandom under cfg (express-v1 or -v2 rules).
func visitRandomCfg(t *testing.T, cfg *Config, games int, visit func(s *State)) {
	t.Helper()
	players := cfg.c.players
	rng := rand.New(rand.NewPCG(uint64(players), 77))
	mask := make([]uint8, NumActions)
	r := make([]float64, players)
	for g := 0; g < games; g++ {
		s := newState(cfg.c, uint64(g)+100)
		for steps := 0; !s.Terminal() && steps < 3000; steps++ {
			visit(s)
			s.Apply(pickRandom(s, mask, rng), r)
		}
		visit(s)
	}
}

// TestDeterminize: the determinization of any player's observation gives
// that observation back, the same legal mask, the same table render, and
// a deal that differs from the truth where the truth is hidden.
//
// On express-v2 every determinization is also a valid position (the
// notation accepts it): the block decision reveals nothing about the
// attacked player's hand (A29). express-v1's block phase reveals that the
// attacked player holds the Way Car, which its determinizer ignores.
func TestDeterminize(t *testing.T) {
	for _, g := range []Game{{}, V2()} {
		for _, players := range []int{2, 4, 6} {
			testDeterminize(t, g, players)
		}
	}
}

func testDeterminize(t *testing.T, g Game, players int) {
	params, _ := g.Spec().Resolve(map[string]any{"players": players})
	cfg := g.config(params)
	obs, again := make([]uint8, ObsSize), make([]uint8, ObsSize)
	m1, m2 := make([]uint8, NumActions), make([]uint8, NumActions)
	var reuse env.State
	positions, differ := 0, 0
	visitRandomCfg(t, cfg, 3, func(s *State) {
		for p := 0; p < players; p++ {
			s.Observe(p, obs)
			d, err := g.Determinize(params, p, obs, uint64(positions), reuse)
			if err != nil {
				t.Fatalf("Determinize: %v\n%s", err, s.Position())
			}
			reuse = d
			ds := d.(*State)
			ds.Observe(p, again)
			if !bytes.Equal(obs, again) {
				for i := range obs {
					if obs[i] != again[i] {
						t.Fatalf("players %d, player %d: byte %d: %d != %d\n%s\n%s", players, p, i, obs[i], again[i], s.Position(), ds.Position())
					}
				}
			}
			s.LegalMask(m1)
			ds.LegalMask(m2)
			if p == s.CurrentPlayer() && !bytes.Equal(m1, m2) {
				t.Fatalf("legal masks differ\n%s\n%s", s.Position(), ds.Position())
			}
			if ds.StringFor(p) != s.StringFor(p) || ds.String() != s.String() {
				t.Fatalf("renders differ:\n%s\n%s", s.StringFor(p), ds.StringFor(p))
			}
			if ds.CurrentPlayer() != s.CurrentPlayer() || ds.Terminal() != s.Terminal() {
				t.Fatal("current player or terminal differs")
			}
			if g.v2 {
				if _, err := ParsePosition(ds.Position(), cfg); err != nil {
					t.Fatalf("%s: the determinization is no valid position: %v\n%s", g.ID(), err, ds.Position())
				}
			}
			positions++
			if ds.Position() != s.Position() {
				differ++
			}
		}
	})
	if differ < positions/2 {
		t.Fatalf("%s players %d: only %d of %d determinizations differ from the truth", g.ID(), players, differ, positions)
	}
}

// TestDeterminizeUnbiased: over many samples of one observation, each
// other player's hand holds each kind in proportion to the unseen cards.
func TestDeterminizeUnbiased(t *testing.T) {
	g := Game{}
	params, _ := g.Spec().Resolve(nil)
	s := newState(DefaultConfig(4).c, 5)
	obs := make([]uint8, ObsSize)
	s.Observe(0, obs)
	const samples = 4000
	var boxes [4]float64
	for i := 0; i < samples; i++ {
		d, err := g.Determinize(params, 0, obs, uint64(i), nil)
		if err != nil {
			t.Fatal(err)
		}
		for q := 1; q < 4; q++ {
			boxes[q] += float64(d.(*State).pl[q].hand[BoxCar])
		}
	}
	unseen := float64(kinds[BoxCar].Count - int(s.pl[0].hand[BoxCar]))
	want := 12 * unseen / float64(DeckSize-12) // 12 cards of the 81 unseen in each hand
	for q := 1; q < 4; q++ {
		mean := boxes[q] / samples
		// the count is hypergeometric with variance < want; 5 standard errors
		if math.Abs(mean-want) > 5*math.Sqrt(want/samples) {
			t.Errorf("player %d: %.3f Box Cars on average, want %.3f", q, mean, want)
		}
	}
}

// TestDeterminizeReuseAllocs: sampling into a reused state allocates
// nothing, so a search samples without garbage.
func TestDeterminizeReuseAllocs(t *testing.T) {
	g := Game{}
	params, _ := g.Spec().Resolve(nil)
	s := newState(DefaultConfig(4).c, 5)
	obs := make([]uint8, ObsSize)
	s.Observe(1, obs)
	reuse, err := g.Determinize(params, 1, obs, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(0)
	allocs := testing.AllocsPerRun(50, func() {
		seed++
		if _, err := g.Determinize(params, 1, obs, seed, reuse); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per sample with reuse", allocs)
	}
}

// TestDeterminizeErrors: observations of no valid position are refused.
func TestDeterminizeErrors(t *testing.T) {
	g := Game{}
	params, _ := g.Spec().Resolve(nil)
	s := newState(DefaultConfig(4).c, 5)
	obs := make([]uint8, ObsSize)
	s.Observe(0, obs)
	if _, err := g.Determinize(params, 0, obs[:10], 1, nil); err == nil {
		t.Fatal("short observation accepted")
	}
	bad := append([]uint8(nil), obs...)
	bad[OffHand+AutoCarrier] = 9 // more Auto Carriers than the deck holds
	if _, err := g.Determinize(params, 0, bad, 1, nil); err == nil {
		t.Fatal("impossible hand accepted")
	}
	bad = append([]uint8(nil), obs...)
	bad[OffDeck]++
	if _, err := g.Determinize(params, 0, bad, 1, nil); err == nil {
		t.Fatal("a deck of the wrong size accepted")
	}
}
