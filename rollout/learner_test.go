package rollout_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	_ "github.com/galaxygym/galaxygym/agents/all"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/all"
	"github.com/galaxygym/galaxygym/rollout"
)

// multiplayer are the registered multi-player games the learner's view is
// tested on, with the opponent agent used (the game's heuristic) and the
// parameters keeping each episode short enough for a unit test.
var multiplayer = []struct {
	id     string
	params map[string]any
	opp    string
}{
	{"express-v1", map[string]any{"players": 3}, "heuristic"},
	{"pilots-of-gallaxia-v1", map[string]any{"players": 3}, "heuristic"},
	{"galaxy-fighters-v1", map[string]any{"players": 3, "max_turns": 30}, "heuristic"},
	{"galaxy-fighters-v2", map[string]any{"players": 3, "max_turns": 30}, "heuristic"},
	{trioID, nil, "random"},
}

// playLearner plays one episode of le with learner choosing for every
// learner seat, and returns each seat's rewards as handed out (the sum of
// its non-final step rewards plus its final reward) and the steps.
func playLearner(t *testing.T, le *rollout.LearnerEnv, learner agents.Agent, obs []uint8) ([]float64, int) {
	t.Helper()
	n := le.Env().Spec().NumPlayers
	got := make([]float64, n)
	steps := 0
	var last rollout.LearnerStep
	for !le.Done() {
		p := le.Player()
		if !le.IsLearner(p) {
			t.Fatalf("seat %d to act is not a learner seat (rotation %d)", p, le.Rotation())
		}
		if err := le.Observe(obs); err != nil {
			t.Fatal(err)
		}
		st, err := le.Step(learner.Act(p, obs, le.Mask()))
		if err != nil {
			t.Fatal(err)
		}
		steps++
		if !st.Done() {
			if !le.IsLearner(st.Seat) || st.Seat != le.Player() {
				t.Fatalf("step handed seat %d's reward, seat %d to act", st.Seat, le.Player())
			}
			if st.First && st.Reward != 0 {
				t.Fatalf("first decision of seat %d with reward %v", st.Seat, st.Reward)
			}
			got[st.Seat] += st.Reward
		} else if st.Reward != le.FinalRewards()[st.Seat] {
			t.Fatalf("final step reward %v, FinalRewards %v", st.Reward, le.FinalRewards())
		}
		last = st
	}
	if steps > 0 && !last.Done() {
		t.Fatal("the last step is not done")
	}
	for k := range n {
		got[k] += le.FinalRewards()[k]
	}
	return got, steps
}

// TestLearnerReturns checks, for every multi-player game, lineups of one,
// two and every learner seat, fixed and rotated: every step is a learner
// seat's decision, and each learner seat's handed-out rewards sum to its
// player's return and to what the same game played by rollout.Loop gives.
func TestLearnerReturns(t *testing.T) {
	for _, g := range multiplayer {
		e, err := env.Make(g.id, g.params)
		if err != nil {
			t.Fatal(err)
		}
		spec := e.Spec()
		n := spec.NumPlayers
		ref, _ := env.Make(g.id, g.params)
		nonzero := false // some learner return was not 0
		for _, learners := range []int{1, 2, n} {
			for _, rule := range []rollout.SeatRule{rollout.SeatsFixed, rollout.SeatsRotate} {
				t.Run(fmt.Sprintf("%s/learners=%d/rule=%d", g.id, learners, rule), func(t *testing.T) {
					opp, err := agents.New(g.opp, spec, nil)
					if err != nil {
						t.Fatal(err)
					}
					learner, _ := agents.New("random", spec, nil)
					lineup, names := make([]agents.Agent, n), make([]string, n)
					for k := range n {
						names[k] = g.opp
						if k < learners {
							names[k] = "learner"
						} else {
							lineup[k] = opp
						}
					}
					le, err := rollout.NewLearnerEnv(e, lineup, names, rule)
					if err != nil {
						t.Fatal(err)
					}
					obs := make([]uint8, spec.ObsSize())
					rotations := map[int]bool{}
					for ep := range int64(6) {
						envSeed, agentSeed := rollout.EpisodeSeeds(11, ep)
						if err := le.Reset(ep, envSeed, agentSeed); err != nil {
							t.Fatal(err)
						}
						rotations[le.Rotation()] = true
						// The learner agent is seeded as rollout.Loop seeds
						// an agent: from the first seat it plays.
						for k := range n {
							if le.IsLearner(k) {
								learner.Reset(rollout.SeatSeed(agentSeed, k))
								break
							}
						}
						got, _ := playLearner(t, le, learner, obs)
						ret := e.Returns()
						seats := make([]agents.Agent, n)
						for k := range n {
							if le.IsLearner(k) {
								seats[k] = learner
								if math.Abs(got[k]-ret[k]) > 1e-9 {
									t.Fatalf("episode %d seat %d: rewards sum to %v, return %v", ep, k, got[k], ret[k])
								}
								nonzero = nonzero || ret[k] != 0
							} else {
								seats[k] = opp
							}
						}
						// The same game through rollout.Loop, the learner
						// seats played by the same agent: same returns.
						l, err := rollout.New(ref, seats, names)
						if err != nil {
							t.Fatal(err)
						}
						want := append([]float64(nil), ret...)
						if _, err := l.Play(ep, envSeed, agentSeed, false, nil); err != nil {
							t.Fatal(err)
						}
						for k := range n {
							if ref.Returns()[k] != want[k] {
								t.Fatalf("episode %d: learner view returns %v, rollout.Loop %v", ep, want, ref.Returns())
							}
						}
					}
					if rule == rollout.SeatsFixed && (len(rotations) != 1 || !rotations[0]) {
						t.Fatalf("fixed seats played rotations %v", rotations)
					}
					if rule == rollout.SeatsRotate && learners < n && len(rotations) < 2 {
						t.Fatalf("rotated seats played rotations %v over 6 episodes", rotations)
					}
				})
			}
		}
		if !nonzero {
			t.Fatalf("%s: every learner return was 0: the test checks nothing", g.id)
		}
	}
}

// TestLearnerNoAllocation checks that steps allocate nothing (random
// opponents and learner on the trio game).
func TestLearnerNoAllocation(t *testing.T) {
	e, err := env.Make(trioID, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := e.Spec()
	opp, _ := agents.New("random", spec, nil)
	learner, _ := agents.New("random", spec, nil)
	le, err := rollout.NewLearnerEnv(e, []agents.Agent{nil, opp, opp}, []string{"learner", "random", "random"}, rollout.SeatsRotate)
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]uint8, spec.ObsSize())
	// The runtime's own allocations (another goroutine's) can land in a
	// measurement: a step that allocates does so in every attempt.
	var mallocs uint64
	steps := 0
	for attempt := range 3 {
		var m0, m1 runtime.MemStats
		mallocs, steps = 0, 0
		for ep := range int64(20) {
			envSeed, agentSeed := rollout.EpisodeSeeds(uint64(attempt), ep)
			if err := le.Reset(ep, envSeed, agentSeed); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&m0)
			for !le.Done() {
				le.Observe(obs)
				if _, err := le.Step(learner.Act(le.Player(), obs, le.Mask())); err != nil {
					t.Fatal(err)
				}
				steps++
			}
			runtime.ReadMemStats(&m1)
			mallocs += m1.Mallocs - m0.Mallocs
		}
		if mallocs == 0 {
			break
		}
	}
	if steps == 0 || mallocs != 0 {
		t.Fatalf("%d allocations over %d learner steps", mallocs, steps)
	}
}

// TestLearnerErrors checks the lineup checks and an illegal learner action.
func TestLearnerErrors(t *testing.T) {
	e, _ := env.Make(trioID, nil)
	opp, _ := agents.New("random", e.Spec(), nil)
	var se *rollout.SeatsError
	if _, err := rollout.NewLearnerEnv(e, []agents.Agent{opp, opp, opp}, []string{"a", "a", "a"}, rollout.SeatsFixed); !errors.As(err, &se) {
		t.Fatalf("no learner seat: %v", err)
	}
	if _, err := rollout.NewLearnerEnv(e, []agents.Agent{nil, opp}, []string{"l", "a"}, rollout.SeatsFixed); !errors.As(err, &se) {
		t.Fatalf("two entries for three players: %v", err)
	}
	le, err := rollout.NewLearnerEnv(e, []agents.Agent{opp, nil, opp}, []string{"a", "l", "a"}, rollout.SeatsFixed)
	if err != nil {
		t.Fatal(err)
	}
	if err := le.Reset(0, 1, 2); err != nil {
		t.Fatal(err)
	}
	if le.Player() != 1 {
		t.Fatalf("seat %d to act, want the learner seat 1", le.Player())
	}
	var ie *env.IllegalActionError
	if _, err := le.Step(-1); !errors.As(err, &ie) {
		t.Fatalf("illegal action: %v", err)
	}
}

// BenchmarkLearnerStep measures a learner step of Express (3 players) with
// heuristic opponents, their moves included.
func BenchmarkLearnerStep(b *testing.B) {
	e, err := env.Make("express-v1", map[string]any{"players": 3})
	if err != nil {
		b.Fatal(err)
	}
	spec := e.Spec()
	opp, _ := agents.New("heuristic", spec, nil)
	learner, _ := agents.New("random", spec, nil)
	le, err := rollout.NewLearnerEnv(e, []agents.Agent{nil, opp, opp}, []string{"learner", "heuristic", "heuristic"}, rollout.SeatsRotate)
	if err != nil {
		b.Fatal(err)
	}
	obs := make([]uint8, spec.ObsSize())
	var ep int64
	b.ReportAllocs()
	for b.Loop() {
		if le.Done() || ep == 0 {
			envSeed, agentSeed := rollout.EpisodeSeeds(0, ep)
			if err := le.Reset(ep, envSeed, agentSeed); err != nil {
				b.Fatal(err)
			}
			ep++
			continue
		}
		le.Observe(obs)
		if _, err := le.Step(learner.Act(le.Player(), obs, le.Mask())); err != nil {
			b.Fatal(err)
		}
	}
}
