package galaxyfighters_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/agents/galaxyfighters"
	"github.com/galaxygym/galaxygym/datasets"
	"github.com/galaxygym/galaxygym/env"
	gf "github.com/galaxygym/galaxygym/env/galaxyfighters"
)

// fightersGames plays n seeded Galaxy Fighters games of agent name (one
// instance playing every player) and returns the wins, the decisions and
// the time spent in Act. Episode i uses datasets.EpisodeSeeds(0, i). It
// fails on an illegal action. trace, when set, receives every action.
func fightersGames(t testing.TB, id, name string, params map[string]any, n int, trace func(int)) (wins, decisions int, act time.Duration) {
	t.Helper()
	e, err := env.Make(id, params)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.New(name, e.Spec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]uint8, e.Spec().ObsSize())
	for i := 0; i < n; i++ {
		es, as := datasets.EpisodeSeeds(0, int64(i))
		e.Reset(es)
		a.Reset(as)
		for !e.Done() {
			p := e.CurrentPlayer()
			if err := e.Observe(p, obs); err != nil {
				t.Fatal(err)
			}
			mask := e.Mask()
			start := time.Now()
			x := a.Act(p, obs, mask)
			act += time.Since(start)
			decisions++
			if trace != nil {
				trace(x)
			}
			if x < 0 || x >= len(mask) || mask[x] == 0 {
				t.Fatalf("%s %v game %d: illegal action %d\n%v", id, params, i, x, e)
			}
			if _, err := e.Step(x); err != nil {
				t.Fatal(err)
			}
		}
		if e.Info().Outcome == env.OutcomeWin {
			wins++
		}
	}
	return wins, decisions, act
}

func TestFightersHeuristicLegal(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	for _, players := range []int{4, 3, 2} {
		for _, p := range []map[string]any{
			{"mission": "rookie"}, {"mission": "expert"}, {"mission": "ace"},
			{"mission": "ace", "invader_spaces": 6, "backup_ships": 0, "win_on": "last_card"},
			{"spawn_deck": 25, "districts_to_lose": 4, "max_turns": 40},
		} {
			p["players"] = players
			fightersGames(t, gf.ID, "heuristic", p, n, nil)
		}
	}
}

func TestFightersHeuristicDeterministic(t *testing.T) {
	for _, players := range []int{4, 2} {
		var runs [2][]int
		for r := range runs {
			fightersGames(t, gf.ID, "heuristic", map[string]any{"players": players}, 20,
				func(a int) { runs[r] = append(runs[r], a) })
		}
		if fmt.Sprint(runs[0]) != fmt.Sprint(runs[1]) {
			t.Errorf("%d players: two runs of the same seeds differ", players)
		}
	}
}

func TestFightersHeuristicUnsupported(t *testing.T) {
	other := &env.Spec{ID: "other-v1", NumPlayers: 1, ObsShape: []int{1}, ActionNames: []string{"a"}}
	var ue *agents.UnsupportedEnvError
	if _, err := agents.New("heuristic", other, nil); !errors.As(err, &ue) || ue.Agent != "heuristic" {
		t.Errorf("heuristic on another environment: %v, want an *UnsupportedEnvError", err)
	}
	if _, err := galaxyfighters.NewHeuristic(other, nil); !errors.As(err, &ue) || !slices.Equal(ue.Supported, []string{gf.IDv1, gf.ID}) {
		t.Errorf("NewHeuristic on another environment: %v, want an *UnsupportedEnvError naming %s", err, gf.ID)
	}
	g, err := env.Lookup(gf.ID)
	if err != nil {
		t.Fatal(err)
	}
	var oe *agents.OptionError
	if _, err := agents.New("heuristic", g.Spec(), agents.Options{"weapon": "banana"}); !errors.As(err, &oe) || oe.Key != "weapon" {
		t.Errorf("bad weapon option: %v, want an *OptionError for weapon", err)
	}
}

func TestFightersHeuristicNoAlloc(t *testing.T) {
	e, err := env.Make(gf.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agents.New("heuristic", e.Spec(), nil)
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]uint8, e.Spec().ObsSize())
	e.Reset(1)
	a.Reset(1)
	// Play to a command phase with at least 3 aliens on the board (seed 1
	// reaches one within a few turns; 500 steps bound the search).
	for steps := 0; ; steps++ {
		if st := e.State().(*gf.State); st.Phase() == gf.PhaseCommand && st.Aliens() >= 3 {
			break
		}
		if e.Done() || steps == 500 {
			t.Fatalf("no command phase with 3 aliens within %d steps of seed 1", steps)
		}
		if err := e.Observe(e.CurrentPlayer(), obs); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Step(a.Act(e.CurrentPlayer(), obs, e.Mask())); err != nil {
			t.Fatal(err)
		}
	}
	p := e.CurrentPlayer()
	if err := e.Observe(p, obs); err != nil {
		t.Fatal(err)
	}
	mask := append([]uint8(nil), e.Mask()...)
	if n := testing.AllocsPerRun(50, func() { a.Act(p, obs, mask) }); n != 0 {
		t.Errorf("Act allocates %v times per call", n)
	}
}

// TestFightersHeuristicBeatsRandom is a real check of play strength: on
// v1's expert, over 300 seeded games, the heuristic's win rate is far above
// the random agent's (about 0.1); v2's bands are checked in
// env/galaxyfighters (TestCalibrationBands).
func TestFightersHeuristicBeatsRandom(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 100
	}
	p := map[string]any{"mission": "expert"}
	hw, _, _ := fightersGames(t, gf.IDv1, "heuristic", p, n, nil)
	rw, _, _ := fightersGames(t, gf.IDv1, "random", p, n, nil)
	hr, rr := float64(hw)/float64(n), float64(rw)/float64(n)
	t.Logf("expert, %d games: heuristic wins %.3f, random %.3f", n, hr, rr)
	if hr < rr+0.5 || hr < 0.8 {
		t.Errorf("heuristic win rate %.3f vs random %.3f: want at least 0.8 and 0.5 above random", hr, rr)
	}
}
