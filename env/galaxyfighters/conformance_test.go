package galaxyfighters

import (
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// rendersShowStacks: the text and rgb_array renders draw every alien of a
// stack in order, while the observation gives the top alien and the
// stack's counts by type and facing (the order under the top is hidden:
// Determinize samples it), so envtest's information-set test leaves the
// renders out (envtest.RendersShowMore). This is no leak between players:
// the game is cooperative and every alien tile was placed face up from a
// spawn card all players saw (seed: "place alien tokens on the game board
// in the same position as the card"), so the order is public history that
// every seat could remember; the observation omits it (a smaller, Markov
// enough view) and the renders, made for a person, show it to every seat
// alike.
var rendersShowStacks = envtest.RendersShowMore("the renders draw the order of the aliens under each stack's top, " +
	"which the observation hides")

// TestConformance runs the shared suite on the three player counts (the
// players parameter) and on
// the other readings of the rules' parameters.
func TestConformance(t *testing.T) {
	envtest.Run(t, ID, rendersShowStacks)
	for _, m := range missionNames {
		envtest.Run(t, ID, envtest.Params(map[string]any{"mission": m, "bonus_tiles": "two_each"}), envtest.Seed(400),
			envtest.Episodes(3), rendersShowStacks)
	}
	envtest.Run(t, ID, envtest.Params(map[string]any{"players": 2, "spawn_density": 4.0, "districts_to_lose": 4,
		"shaping": 0.1}), envtest.Seed(500), envtest.Episodes(3), rendersShowStacks)
	envtest.Run(t, IDv1, rendersShowStacks)
	envtest.Run(t, IDv1, envtest.Params(map[string]any{"players": 3}), envtest.Seed(50), envtest.Episodes(4), rendersShowStacks)
	envtest.Run(t, ID, envtest.Params(map[string]any{"players": 2}), envtest.Seed(60), envtest.Episodes(4), rendersShowStacks)
	envtest.Run(t, IDv1, envtest.Params(map[string]any{"mission": "rookie", "invader_spaces": 6, "win_on": "last_card",
		"shaping": 0.05}), envtest.Seed(100), envtest.Episodes(4), rendersShowStacks)
	envtest.Run(t, ID, envtest.Params(map[string]any{"mission": "ace", "max_turns": 12}), envtest.Seed(200), envtest.Episodes(3), rendersShowStacks)
	envtest.Run(t, IDv1, envtest.Params(map[string]any{"players": 2, "districts_to_lose": 4, "backup_ships": 0, "spawn_deck": 25,
		"shaping": 0.1}), envtest.Seed(300), envtest.Episodes(3), rendersShowStacks)
}

// TestGolden checks the golden playthroughs (go test ./env/galaxyfighters -update rewrites them);
// v1's files are those of its first release, byte for byte.
func TestGolden(t *testing.T) {
	for _, id := range []string{IDv1, ID} {
		envtest.Golden(t, id, "", envtest.Episodes(1), envtest.MaxSteps(40))
		envtest.Golden(t, id, "testdata/golden/"+id+"-players-3.txt", envtest.Params(map[string]any{"players": 3}),
			envtest.Episodes(1), envtest.MaxSteps(20))
		envtest.Golden(t, id, "testdata/golden/"+id+"-players-2.txt", envtest.Params(map[string]any{"players": 2}),
			envtest.Episodes(1), envtest.MaxSteps(20))
	}
	// A v2 Ace game played to its end (lost: the shipyard runs out).
	envtest.Golden(t, ID, "testdata/golden/"+ID+"-ace.txt", envtest.Params(map[string]any{"mission": "ace"}),
		envtest.Seed(7), envtest.Episodes(1), envtest.MaxSteps(400))
}

// TestPlayersParameter: the players parameter sets the environment's
// NumPlayers (the standard players parameter, resolved by env.New), and
// who controls each ship.
func TestPlayersParameter(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		e, err := env.Make([]string{ID, IDv1}[n%2], map[string]any{"players": n})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Spec().NumPlayers; got != n {
			t.Fatalf("players=%d: Spec().NumPlayers = %d", n, got)
		}
		if !IsID(e.Spec().ID) || e.Spec().ObsSize() != ObsSize || e.Spec().NumActions() != NumActions {
			t.Fatalf("players=%d changed the id, observation or actions", n)
		}
		e.Reset(3)
		seen := map[int]bool{}
		for steps := 0; !e.Done() && steps < 400; steps++ {
			p := e.CurrentPlayer()
			if p < 0 || p >= n {
				t.Fatalf("players=%d: current player %d", n, p)
			}
			seen[p] = true
			mask := e.Mask()
			a := 0
			for mask[a] == 0 {
				a++
			}
			if _, err := e.Step(a); err != nil {
				t.Fatal(err)
			}
			if len(e.Returns()) != n {
				t.Fatalf("players=%d: %d returns", n, len(e.Returns()))
			}
		}
		if len(seen) != n {
			t.Fatalf("players=%d: only players %v acted", n, seen)
		}
	}
	if _, err := env.Make(ID, map[string]any{"players": 5}); err == nil {
		t.Fatal("players=5 accepted")
	}
}
