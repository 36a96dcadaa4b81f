package galaxyexpress

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/env/envtest"
)

// TestConformance runs the shared suite: uniform random playouts (short:
// random play is soon Lost in Space), the scan_wrap variant, and the
// courier policy below, which plays long games with deliveries, refuels,
// wins and truncations.
func TestConformance(t *testing.T) {
	envtest.Run(t, ID)
	envtest.Run(t, ID, envtest.Params(map[string]any{"scan_wrap": true}), envtest.Seed(100), envtest.Episodes(4))
	envtest.Run(t, ID, envtest.WithPolicy("courier", courierPolicy), envtest.Seed(200), envtest.Episodes(6))
	envtest.Run(t, ID, envtest.WithPolicy("courier", courierPolicy), envtest.Params(map[string]any{"max_turns": 15}),
		envtest.Seed(300), envtest.Episodes(4))
}

// TestSpecMatchesDoc pins the numbers the package documentation states.
func TestSpecMatchesDoc(t *testing.T) {
	s := Game{}.Spec()
	if s.ID != "galaxy-express-v1" || s.NumPlayers != 1 || s.NumActions() != 56 || s.ObsSize() != 503 ||
		s.MaxEpisodeSteps != 401 || s.RewardRange != [2]float64{-10, 32} || s.ReturnRange != [2]float64{-2000, 132} {
		t.Errorf("spec differs from doc.go: %+v", s)
	}
	want := map[string]any{"max_turns": 200, "scan_wrap": false}
	for _, p := range s.Params {
		if fmt.Sprint(want[p.Name]) != fmt.Sprint(p.Default) {
			t.Errorf("parameter %s default %v, doc.go says %v", p.Name, p.Default, want[p.Name])
		}
		delete(want, p.Name)
	}
	if len(want) != 0 {
		t.Errorf("parameters missing: %v", want)
	}
	for a, name := range map[int]string{0: "launch-planet-0", 5: "launch-planet-5", 6: "thrust-0-north",
		CoinAction(Thrust, 3, West): "thrust-3-west", 53: "brake-5-west", 54: "refuel", 55: "no-refuel"} {
		if s.ActionNames[a] != name {
			t.Errorf("action %d is %s, doc.go says %s", a, s.ActionNames[a], name)
		}
	}
}

// TestGolden checks the golden playthrough testdata/golden/galaxy-express-v1.txt
// (go test ./... -update rewrites it).
func TestGolden(t *testing.T) { envtest.Golden(t, ID, "") }

// courierPolicy is a test policy that reads the hidden state (planet
// numbers included): it delivers when a move delivers, otherwise prefers
// moves after which the target can still be reached with the coins left,
// then moves that are not Lost in Space; it refuels when the target is out
// of reach.
func courierPolicy(e *env.Env, rng *rand.Rand) int {
	s := e.State().(*State)
	var legal []int
	for a, m := range e.Mask() {
		if m == 1 {
			legal = append(legal, a)
		}
	}
	switch s.phase {
	case PhaseRefuel:
		if targetReachable(s) {
			return ActionNoRefuel
		}
		return ActionRefuel
	case PhaseCoin:
		var reach, safe []int
		r := []float64{0}
		for _, a := range legal {
			c := s.Clone().(*State)
			c.Apply(a, r)
			switch {
			case c.delivered > s.delivered:
				return a
			case c.lost:
			case targetReachable(c):
				reach = append(reach, a)
			default:
				safe = append(safe, a)
			}
		}
		if len(reach) > 0 {
			return reach[rng.IntN(len(reach))]
		}
		if len(safe) > 0 {
			return safe[rng.IntN(len(safe))]
		}
	}
	return legal[rng.IntN(len(legal))]
}

// targetReachable reports whether the unspent coins can stop the ship on
// the target planet.
func targetReachable(s *State) bool {
	t := s.Target()
	if t < 0 || s.phase == PhaseOver {
		return false
	}
	return CanStop(int(s.ship), int(s.speed), s.unspent(), 1<<s.sqOf[t])
}

// TestCourierPolicyCoversTheRules checks that the courier policy reaches
// the endings the conformance suite should see: wins, and refuels.
func TestCourierPolicyCoversTheRules(t *testing.T) {
	outcomes := map[env.Outcome]int{}
	refuels, deliveries := 0, 0
	e, err := env.Make(ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(200); seed < 206; seed++ {
		e.Reset(seed)
		rng := rand.New(rand.NewPCG(seed, 0x656e7674657374))
		for !e.Done() {
			if _, err := e.Step(courierPolicy(e, rng)); err != nil {
				t.Fatal(err)
			}
		}
		in := e.Info()
		outcomes[in.Outcome]++
		r, _ := in.Stat("refuels")
		d, _ := in.Stat("deliveries")
		refuels += int(r)
		deliveries += int(d)
	}
	t.Logf("outcomes %v, %d deliveries, %d refuels", outcomes, deliveries, refuels)
	if deliveries == 0 || refuels == 0 || outcomes[env.OutcomeWin] == 0 {
		t.Errorf("the courier playouts miss part of the rules: outcomes %v, %d deliveries, %d refuels",
			outcomes, deliveries, refuels)
	}
}
