package pilotsofgallaxia

import (
	"flag"
	"math"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/envtest" // the -update flag
	pog "github.com/galaxygym/galaxygym/env/pilotsofgallaxia"
)

var games = flag.Int("games", 200, "games of TestHeuristicBeatsRandom")

// match plays one game with the given agents by seat and returns the
// environment at the end.
func match(t testing.TB, e *env.Env, seed uint64, seats []agents.Agent) {
	e.Reset(seed)
	obs := make([]uint8, e.Spec().ObsSize())
	for i, a := range seats {
		a.Reset(seed*16 + uint64(i))
	}
	for !e.Done() {
		p := e.CurrentPlayer()
		e.Observe(p, obs)
		a := seats[p].Act(p, obs, e.Mask())
		if _, err := e.Step(a); err != nil {
			t.Fatalf("seat %d (%s): %v\n%s", p, seats[p].Name(), err, e)
		}
	}
}

// TestHeuristicBeatsRandom: in four-player games against three random
// pilots, the heuristic (rotated through the seats) wins at least 80 % of
// the games (the aim), counting a win as rank 1 alone.
func TestHeuristicBeatsRandom(t *testing.T) {
	e, err := env.Make(pog.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(e.Spec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seats := make([]agents.Agent, 4)
	wins, turns, terminated := 0, 0, 0
	for g := 0; g < *games; g++ {
		me := g % 4
		for i := range seats {
			if i == me {
				seats[i] = h
			} else {
				r, _ := agents.New("random", e.Spec(), nil)
				seats[i] = r
			}
		}
		match(t, e, uint64(g), seats)
		in := e.Info()
		if in.Outcomes[me] == env.OutcomeWin {
			wins++
		}
		if e.Terminated() {
			terminated++
		}
		turns += e.State().Turn()
	}
	rate := float64(wins) / float64(*games)
	t.Logf("heuristic won %d of %d (%.1f%%), %d ended by a win, %.1f pilot turns a game", wins, *games, 100*rate,
		terminated, float64(turns)/float64(*games))
	if rate < 0.8 {
		t.Fatalf("heuristic won %.1f%% against random, want >= 80%%", 100*rate)
	}
}

// TestHeuristicLegal: four heuristics play whole games at every player
// count, every action legal (Step errors otherwise).
func TestHeuristicLegal(t *testing.T) {
	for _, id := range []string{pog.IDv1, pog.ID} {
		testHeuristicLegal(t, id)
	}
}

func testHeuristicLegal(t *testing.T, id string) {
	for n := 2; n <= 6; n++ {
		for _, mode := range []string{"rookie_run", "a_new_life"} {
			e, err := env.Make(id, map[string]any{"players": n, "mode": mode})
			if err != nil {
				t.Fatal(err)
			}
			seats := make([]agents.Agent, n)
			for i := range seats {
				seats[i], _ = New(e.Spec(), nil)
			}
			for g := 0; g < 3; g++ {
				match(t, e, uint64(100*n+g), seats)
			}
		}
	}
}

func TestNewRefuses(t *testing.T) {
	if _, err := New(&env.Spec{ID: "galaxy-express-v1"}, nil); err == nil {
		t.Fatal("the heuristic accepted galaxy-express-v1")
	}
	p0, _ := env.Make(pog.ID, nil)
	if a, err := agents.New(agents.Heuristic, p0.Spec(), nil); err != nil || a.Name() != Name {
		t.Fatalf("agents.New(heuristic, %s) = %v, %v", pog.ID, a, err)
	}
	p, _ := env.Make(pog.ID, nil)
	if _, err := New(p.Spec(), agents.Options{"x": "1"}); err == nil {
		t.Fatal("an unknown option was accepted")
	}
}

// TestHeuristicDurrikenAndBlokks: in v2 self-play the heuristic hires its
// Durriken, moves it, raids with it and places BLOKKs (they
// matter); in v1 it keeps its published play and never does.
func TestHeuristicDurrikenAndBlokks(t *testing.T) {
	for _, id := range []string{pog.IDv1, pog.ID} {
		e, err := env.Make(id, map[string]any{"players": 4})
		if err != nil {
			t.Fatal(err)
		}
		seats := make([]agents.Agent, 4)
		for i := range seats {
			seats[i], _ = New(e.Spec(), nil)
		}
		obs := make([]uint8, e.Spec().ObsSize())
		var hires, moves, durRaids, blokks int
		for g := 0; g < 20; g++ {
			e.Reset(uint64(g))
			for i, a := range seats {
				a.Reset(uint64(g)*16 + uint64(i))
			}
			for !e.Done() {
				p := e.CurrentPlayer()
				e.Observe(p, obs)
				a := seats[p].Act(p, obs, e.Mask())
				switch {
				case a == pog.ActHire:
					hires++
				case a == pog.ActDurriken:
					moves++
				case a == pog.ActClaimBlokk:
					blokks++
				case a >= pog.ActRaid && a < pog.ActRaid+15 && obs[pog.OffMovingPiece] == 3:
					durRaids++
				}
				if _, err := e.Step(a); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("%s, 20 games: %d hires, %d Durriken moves, %d Durriken raids, %d BLOKKs", id, hires, moves, durRaids, blokks)
		used := hires > 0 && moves > 0 && durRaids > 0 && blokks > 0
		if id == pog.ID && !used {
			t.Errorf("%s: the heuristic should use its Durriken and BLOKKs", id)
		}
		if id == pog.IDv1 && hires+moves+durRaids+blokks > 0 {
			t.Errorf("%s: the published heuristic never hires a Durriken nor places a BLOKK", id)
		}
	}
}

// TestHeuristicActionValues: ActionValues returns what Act does (the same
// tie-breaking stream), leaves every illegal action NaN, and the action it
// returns has the highest value whenever any action has one; at a path
// step it stops, the stop is valued strictly above every step (the steps
// that get no nearer are half a space below it, stopPreference), so a
// learner of the values learns to stop there; it does not allocate.
func TestHeuristicActionValues(t *testing.T) {
	e, err := env.Make(pog.ID, env.Params{"players": 2})
	if err != nil {
		t.Fatal(err)
	}
	var acts, valuers [2]*Heuristic
	for i := range acts {
		a, _ := New(e.Spec(), nil)
		b, _ := New(e.Spec(), nil)
		acts[i], valuers[i] = a.(*Heuristic), b.(*Heuristic)
	}
	obs := make([]uint8, e.Spec().ObsSize())
	q := make([]float32, e.Spec().NumActions())
	decisions, valued, levelSteps := 0, 0, 0
	for seed := range uint64(30) {
		e.Reset(seed)
		for i := range acts {
			acts[i].Reset(seed*16 + uint64(i))
			valuers[i].Reset(seed*16 + uint64(i))
		}
		for !e.Done() {
			p := e.CurrentPlayer()
			e.Observe(p, obs)
			mask := e.Mask()
			want := acts[p].Act(p, obs, mask)
			got := valuers[p].ActionValues(obs, mask, q)
			if got != want {
				t.Fatalf("seed %d decision %d: ActionValues chose %d, Act %d", seed, decisions, got, want)
			}
			best, hasValue := float32(math.Inf(-1)), false
			for a, m := range mask {
				switch v := q[a]; {
				case m == 0 && !math.IsNaN(float64(v)):
					t.Fatalf("illegal action %d has value %v", a, v)
				case m != 0 && !math.IsNaN(float64(v)):
					hasValue, best = true, max(best, v)
				}
			}
			if hasValue {
				valued++
				if q[got] != best {
					t.Fatalf("seed %d decision %d: chose %s of value %v, the best is %v", seed, decisions,
						e.Spec().ActionNames[got], q[got], best)
				}
			}
			if got == pog.ActStop && !math.IsNaN(float64(q[got])) {
				for a, m := range mask {
					if m == 0 || a == got || math.IsNaN(float64(q[a])) {
						continue
					}
					if q[a] >= q[got] {
						t.Fatalf("seed %d decision %d: stopped, but step %s is valued %v, the stop %v", seed, decisions,
							e.Spec().ActionNames[a], q[a], q[got])
					}
					if q[a] == q[got]-stopPreference {
						levelSteps++
					}
				}
			}
			decisions++
			if _, err := e.Step(got); err != nil {
				t.Fatal(err)
			}
		}
	}
	if valued == 0 || levelSteps == 0 {
		t.Fatalf("%d decisions, %d valued, %d steps level with a stop: the cases were not reached", decisions, valued, levelSteps)
	}
	t.Logf("%d decisions, %d valued, %d steps that get no nearer where the heuristic stopped", decisions, valued, levelSteps)
	allocs := testing.AllocsPerRun(100, func() {
		if e.Done() {
			e.Reset(3)
		}
		p := e.CurrentPlayer()
		e.Observe(p, obs)
		if _, err := e.Step(valuers[p].ActionValues(obs, e.Mask(), q)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per decision, want 0", allocs)
	}
}
