// Package rollout plays episodes: one environment, one agent per seat. It
// is the loop that datasets (generate, bench) and evaluate (eval) share,
// and the place every episode's seeds come from ([EpisodeSeeds]).
//
// A [Loop] owns its environment and its seats' agents and is used by one
// goroutine; a run makes one per worker. Playing an episode allocates
// nothing: observations are written only when an agent reads them or a
// [Recorder] stores them.
//
// A [LearnerEnv] is the learner's view of a multi-player game: built-in
// agents play some seats between the decisions of the learner seats, each
// learner step is one of a learner seat's decisions, and its reward is
// everything that seat's player earned since its previous decision (the
// opponents' moves included), so a learner seat's rewards sum to its
// return; the episode ends with the game, and the seats are fixed or
// rotated per episode from the agent seed ([SeatsRotate], [RotationRule]).
//
//	le, _ := rollout.NewLearnerEnv(e, []agents.Agent{nil, heur, heur, heur}, names, rollout.SeatsRotate)
//	le.Reset(ep, envSeed, agentSeed)
//	for !le.Done() {
//		le.Observe(obs)
//		st, _ := le.Step(policy(obs, le.Mask()))
//		// st.Seat, st.Reward; le.FinalRewards() once st.Done()
//	}
package rollout

import (
	"fmt"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// AgentError reports an agent that chose an action the environment
// refused (Err, usually an *env.IllegalActionError).
type AgentError struct {
	Agent   string // the agent's name
	Seat    int    // the seat (player) it played
	Episode int64  // the global episode index
	Step    int    // the step within the episode
	Err     error
}

func (e *AgentError) Error() string {
	return fmt.Sprintf("rollout: agent %s (seat %d), episode %d, step %d: %v", e.Agent, e.Seat, e.Episode, e.Step, e.Err)
}

// Unwrap returns the environment's error.
func (e *AgentError) Unwrap() error { return e.Err }

// SeatsError reports a lineup that does not fit the environment.
type SeatsError struct {
	Env    string
	Seats  int // agents given
	Reason string
}

func (e *SeatsError) Error() string {
	return fmt.Sprintf("rollout: %d seats for %s: %s", e.Seats, e.Env, e.Reason)
}

// Recorder receives every step of an episode, for a dataset writer.
type Recorder interface {
	// Before is called before the acting player's agent chooses: it
	// returns the buffer (len ObsSize) the loop writes player's
	// observation into and hands to the agent, and may copy mask, which
	// the step overwrites. It returns nil when it stores no observation
	// (a compact dataset): the loop then observes only for an agent that
	// reads observations, or with observe.
	Before(player int, mask []uint8) (obs []uint8)
	// After records the step the player took and its result; an error
	// stops the episode and is returned by [Loop.Play] as it is.
	After(player, action int, res env.StepResult) error
}

// Loop plays episodes of one environment with one agent per seat.
type Loop struct {
	env   *env.Env
	seats []agents.Agent
	names []string
	first []int  // per seat: the first seat its agent plays (agents reset once)
	need  []bool // per seat: the agent reads observations
	obs   []uint8
	any   bool // some seat's agent reads observations
}

// New returns a loop of e with agent seats[k] in seat k and names[k] its
// name (for errors and reports). len(seats) must be e's NumPlayers; the
// same agent value may sit in several seats (one agent for every seat is
// how generate --agent and eval --agents play), and is then reset once per
// episode. It returns a *SeatsError for a lineup of the wrong size.
func New(e *env.Env, seats []agents.Agent, names []string) (*Loop, error) {
	n := e.Spec().NumPlayers
	if len(seats) != n || len(names) != n {
		return nil, &SeatsError{Env: e.Spec().ID, Seats: len(seats), Reason: fmt.Sprintf("want one agent per player (%d)", n)}
	}
	l := &Loop{env: e, seats: seats, names: names, first: make([]int, n), need: make([]bool, n),
		obs: make([]uint8, e.Spec().ObsSize())}
	for k, a := range seats {
		l.first[k] = k
		for j := range k {
			if seats[j] == a {
				l.first[k] = j
				break
			}
		}
		l.need[k] = agents.NeedsObservation(a)
		l.any = l.any || l.need[k]
	}
	return l, nil
}

// Same returns a lineup of n seats all played by a, named name.
func Same(a agents.Agent, name string, n int) ([]agents.Agent, []string) {
	seats, names := make([]agents.Agent, n), make([]string, n)
	for k := range seats {
		seats[k], names[k] = a, name
	}
	return seats, names
}

// Env returns the loop's environment, which holds the last episode played.
func (l *Loop) Env() *env.Env { return l.env }

// Seats returns the agents by seat.
func (l *Loop) Seats() []agents.Agent { return l.seats }

// NeedsObservation reports whether some seat's agent reads observations.
func (l *Loop) NeedsObservation() bool { return l.any }

// Play plays episode ep of a run from its seeds ([EpisodeSeeds]): it resets
// the environment with envSeed and each distinct agent with the seed of its
// first seat ([SeatSeed] of agentSeed), then steps until the episode is
// over, each seat's agent choosing for its player. With observe, every
// acting player's observation is written even when no agent reads it (a
// throughput measure of the full path). rec, when not nil, sees every step.
// It returns the episode's length in steps, and an *AgentError when an
// agent's action is refused (or rec's error).
func (l *Loop) Play(ep int64, envSeed, agentSeed uint64, observe bool, rec Recorder) (int32, error) {
	e := l.env
	e.Reset(envSeed)
	for k, a := range l.seats {
		if l.first[k] == k {
			a.Reset(SeatSeed(agentSeed, k))
		}
	}
	var t int32
	if rec != nil {
		for !e.Done() {
			p := e.CurrentPlayer()
			mask := e.Mask()
			obs := rec.Before(p, mask)
			if obs == nil && (observe || l.need[p]) {
				obs = l.obs
			}
			if obs != nil {
				e.Observe(p, obs)
			}
			act := l.seats[p].Act(p, obs, mask)
			res, err := e.Step(act)
			if err != nil {
				return t, &AgentError{Agent: l.names[p], Seat: p, Episode: ep, Step: int(t), Err: err}
			}
			if err := rec.After(p, act, res); err != nil {
				return t, err
			}
			t++
		}
		return t, nil
	}
	for !e.Done() {
		p := e.CurrentPlayer()
		var obs []uint8
		if observe || l.need[p] {
			obs = l.obs
			e.Observe(p, obs)
		}
		act := l.seats[p].Act(p, obs, e.Mask())
		if _, err := e.Step(act); err != nil {
			return t, &AgentError{Agent: l.names[p], Seat: p, Episode: ep, Step: int(t), Err: err}
		}
		t++
	}
	return t, nil
}
