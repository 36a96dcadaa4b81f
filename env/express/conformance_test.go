package express

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestConformance runs the shared suite at 2, 3, 4 and 6 players and on the
// other readings of the rules' parameters.
func TestConformance(t *testing.T) {
	envtest.Run(t, ID, envtest.Episodes(2), infoSetFor(ID))
	// Other player counts and readings play one hand an episode, to keep
	// the suite quick; whole games at every count are played by the fuzz
	// seeds, the determinization and hidden-information tests.
	for i, p := range []map[string]any{
		{"players": 2, "hand_only": true},
		{"players": 3, "hand_only": true},
		{"players": 6, "hand_only": true},
		{"players": 5, "hand_only": true, "opening_hand": 12, "target": 100, "freight_scoring": "progressive",
			"zero_sum": true, "reshuffles": 3},
		{"players": 4, "max_turns": 25},
	} {
		envtest.Run(t, ID, envtest.Params(p), envtest.Seed(uint64(20+10*i)), envtest.Episodes(2), infoSetFor(ID))
	}
}

// TestConformanceV2 runs the shared suite on express-v2 at 2, 4 and 6
// players (whole games at 4, one hand at 2 and 6) and on the generic
// reading of passenger Wilds.
func TestConformanceV2(t *testing.T) {
	envtest.Run(t, IDv2, envtest.Episodes(2), infoSetFor(IDv2))
	for i, p := range []map[string]any{
		{"players": 2, "hand_only": true},
		{"players": 6, "hand_only": true},
		{"players": 4, "hand_only": true, "passenger_wilds": "generic"},
	} {
		envtest.Run(t, IDv2, envtest.Params(p), envtest.Seed(uint64(120+10*i)), envtest.Episodes(2), infoSetFor(IDv2))
	}
}

// TestGoldenV2 checks express-v2's golden playthroughs; their action lines
// use Env.ActionName (absolute seats, A31).
func TestGoldenV2(t *testing.T) {
	envtest.Golden(t, IDv2, "", envtest.Episodes(1), envtest.MaxSteps(60))
	envtest.Golden(t, IDv2, "testdata/golden/express-v2-players-2.txt", envtest.Params(map[string]any{"players": 2}),
		envtest.Episodes(1), envtest.MaxSteps(40))
	envtest.Golden(t, IDv2, "testdata/golden/express-v2-players-6.txt", envtest.Params(map[string]any{"players": 6}),
		envtest.Episodes(1), envtest.MaxSteps(40))
}

// TestGolden checks the golden playthroughs (go test ./env/express -update rewrites them).
func TestGolden(t *testing.T) {
	envtest.Golden(t, ID, "", envtest.Episodes(1), envtest.MaxSteps(60))
	envtest.Golden(t, ID, "testdata/golden/express-v1-players-2.txt", envtest.Params(map[string]any{"players": 2}),
		envtest.Episodes(1), envtest.MaxSteps(40))
	envtest.Golden(t, ID, "testdata/golden/express-v1-players-6.txt", envtest.Params(map[string]any{"players": 6}),
		envtest.Episodes(1), envtest.MaxSteps(40))
}

// TestPlayersParameter: the players parameter sets NumPlayers, and every
// player acts.
func TestPlayersParameter(t *testing.T) {
	for n := 2; n <= 6; n++ {
		e, err := env.Make(ID, map[string]any{"players": n, "hand_only": true})
		if err != nil {
			t.Fatal(err)
		}
		if e.Spec().NumPlayers != n || e.Spec().ObsSize() != ObsSize || e.Spec().NumActions() != NumActions {
			t.Fatalf("players=%d: spec %d players, %d obs, %d actions", n, e.Spec().NumPlayers, e.Spec().ObsSize(), e.Spec().NumActions())
		}
		e.Reset(uint64(n))
		seen := map[int]bool{}
		for !e.Done() {
			seen[e.CurrentPlayer()] = true
			mask := e.Mask()
			a := len(mask) - 1
			for mask[a] == 0 {
				a--
			}
			if _, err := e.Step(a); err != nil {
				t.Fatal(err)
			}
		}
		if len(seen) != n {
			t.Fatalf("players=%d: only players %v acted", n, seen)
		}
	}
	for _, n := range []int{1, 7} {
		if _, err := env.Make(ID, map[string]any{"players": n}); err == nil {
			t.Fatalf("players=%d accepted", n)
		}
	}
}
