package express

import (
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/envtest" // the -update flag
	ex "github.com/galaxygym/galaxygym/env/express"
)

// playGamesOn plays games of players of the environment id (express-v1 or
// -v2) with the agents made by seats (seat i gets seats[(i+rot)%len] in
// game rot), and returns per seat kind the wins (a shared first place
// counts half) and the games. mctsOpts are the options of an "mcts" seat.
func playGamesOn(t testing.TB, id string, players, games int, seats []string, mctsOpts agents.Options) map[string][2]float64 {
	t.Helper()
	e, err := env.Make(id, map[string]any{"players": players})
	if err != nil {
		t.Fatal(err)
	}
	spec := e.Spec()
	ags := make([]agents.Agent, players)
	names := make([]string, players)
	obs := make([]uint8, spec.ObsSize())
	res := map[string][2]float64{}
	for g := 0; g < games; g++ {
		for i := range ags {
			names[i] = seats[(i+g)%len(seats)]
			var opts agents.Options
			if names[i] == "mcts" {
				opts = mctsOpts
			}
			a, err := agents.New(names[i], spec, opts)
			if err != nil {
				t.Fatal(err)
			}
			a.Reset(uint64(g*10 + i))
			ags[i] = a
		}
		e.Reset(uint64(g))
		for !e.Done() {
			p := e.CurrentPlayer()
			if err := e.Observe(p, obs); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Step(ags[p].Act(p, obs, e.Mask())); err != nil {
				t.Fatalf("%s: %v\n%s", names[p], err, e.State().(*ex.State).Position())
			}
		}
		in := e.Info()
		for i, o := range in.Outcomes {
			r := res[names[i]]
			switch o {
			case env.OutcomeWin:
				r[0]++
			case env.OutcomeDraw:
				r[0] += 0.5
			}
			r[1]++
			res[names[i]] = r
		}
	}
	return res
}

// TestRegistered: "heuristic" on express-v1 and express-v2 is this agent,
// at every player count; it refuses other games and options.
func TestRegistered(t *testing.T) {
	for _, id := range []string{ex.ID, ex.IDv2} {
		for n := 2; n <= 6; n++ {
			e, err := env.Make(id, map[string]any{"players": n})
			if err != nil {
				t.Fatal(err)
			}
			a, err := agents.New(agents.Heuristic, e.Spec(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := a.(*Heuristic); !ok || a.Name() != agents.Heuristic {
				t.Fatalf("%s players=%d: heuristic is %T %q", id, n, a, a.Name())
			}
		}
	}
	if _, err := New(&env.Spec{ID: "galaxy-express-v1"}, nil); err == nil {
		t.Fatal("the Express heuristic accepted another game")
	}
	e, _ := env.Make(ex.ID, nil)
	if _, err := New(e.Spec(), agents.Options{"depth": "2"}); err == nil {
		t.Fatal("an option accepted")
	}
}

// TestHeuristicBeatsRandom: the heuristic wins most games against random
// players, at 4 players (one heuristic, three random) and at 2.
func TestHeuristicBeatsRandom(t *testing.T) {
	for _, c := range []struct {
		players int
		seats   []string
		min     float64
	}{
		{4, []string{Name, "random", "random", "random"}, 0.8},
		{2, []string{Name, "random"}, 0.85},
	} {
		for _, id := range []string{ex.ID, ex.IDv2} {
			res := playGamesOn(t, id, c.players, 100, c.seats, nil)
			r := res[Name]
			rate := r[0] / r[1]
			t.Logf("%s %d players: heuristic wins %.0f of %.0f seat-games (%.2f)", id, c.players, r[0], r[1], rate)
			if rate < c.min {
				t.Errorf("%s %d players: heuristic win rate %.2f < %.2f", id, c.players, rate, c.min)
			}
		}
	}
}
