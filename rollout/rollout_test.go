package rollout_test

import (
	"errors"
	"testing"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	_ "github.com/galaxygym/galaxygym/env/envtest" // defines -update (see the envtest package documentation)
	_ "github.com/galaxygym/galaxygym/env/envtest/trio"
	"github.com/galaxygym/galaxygym/rollout"
)

const trioID = "envtest-trio-v1"

// recordingAgent plays the first legal action and records its resets and
// the seats it acted for.
type recordingAgent struct {
	resets []uint64
	acted  map[int]int
	bad    bool // plays an illegal action
}

func (a *recordingAgent) Name() string           { return "recording" }
func (a *recordingAgent) Reset(seed uint64)      { a.resets = append(a.resets, seed) }
func (*recordingAgent) IgnoresObservation() bool { return true }
func (a *recordingAgent) Act(p int, obs, mask []uint8) int {
	a.acted[p]++
	if a.bad {
		return -1
	}
	for i, m := range mask {
		if m == 1 {
			return i
		}
	}
	return -1
}

func newAgent() *recordingAgent { return &recordingAgent{acted: map[int]int{}} }

func TestSeats(t *testing.T) {
	e, err := env.Make(trioID, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := newAgent(), newAgent()
	l, err := rollout.New(e, []agents.Agent{a, b, a}, []string{"a", "b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	envSeed, agentSeed := rollout.EpisodeSeeds(3, 5)
	n, err := l.Play(5, envSeed, agentSeed, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 12 || !e.Done() || e.Seed() != envSeed {
		t.Fatalf("played %d steps, done %v, seed %d", n, e.Done(), e.Seed())
	}
	// a sits in seats 0 and 2 and is reset once with seat 0's seed; b
	// with seat 1's.
	if len(a.resets) != 1 || a.resets[0] != agentSeed || len(b.resets) != 1 || b.resets[0] != rollout.SeatSeed(agentSeed, 1) {
		t.Fatalf("resets a %v, b %v", a.resets, b.resets)
	}
	if a.acted[0] != 4 || a.acted[2] != 4 || a.acted[1] != 0 || b.acted[1] != 4 || len(b.acted) != 1 {
		t.Fatalf("acted: a %v, b %v", a.acted, b.acted)
	}
	if rollout.SeatSeed(agentSeed, 0) != agentSeed || rollout.SeatSeed(agentSeed, 1) == agentSeed {
		t.Fatal("SeatSeed: seat 0 keeps the agent seed, other seats differ")
	}

	if _, err := rollout.New(e, []agents.Agent{a, b}, []string{"a", "b"}); err == nil {
		t.Fatal("two agents for three seats accepted")
	} else if se := (*rollout.SeatsError)(nil); !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *SeatsError", err)
	}

	bad := newAgent()
	bad.bad = true
	l, _ = rollout.New(e, []agents.Agent{a, bad, a}, []string{"a", "bad", "a"})
	_, err = l.Play(7, 1, 2, false, nil)
	var ae *rollout.AgentError
	if !errors.As(err, &ae) || ae.Agent != "bad" || ae.Seat != 1 || ae.Episode != 7 || ae.Step != 1 ||
		!errors.Is(err, env.ErrIllegalAction) {
		t.Fatalf("err = %v, want the AgentError of bad in seat 1 at step 1", err)
	}
}

// TestEpisodeSeeds pins the seed rule: SplitMix64's outputs.
func TestEpisodeSeeds(t *testing.T) {
	e, a := rollout.EpisodeSeeds(0, 0)
	if e != 0xe220a8397b1dcdaf || a != 0x6e789e6aa1b965f4 {
		t.Errorf("EpisodeSeeds(0, 0) = %#x, %#x; want SplitMix64's first outputs", e, a)
	}
}
