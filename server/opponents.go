package server

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// Opponents are the make message's fields that put built-in agents in some
// seats of a multi-player environment (docs/protocol.md, "Opponents"). The
// session then holds one [rollout.LearnerEnv] per environment: the client
// plays only the learner seats, one decision per step, and the agents play
// every other seat inside the server between two learner decisions.
type Opponents struct {
	// Agents is the "opponents" field: one agent spec for every opponent
	// seat (a JSON string), or a list with one spec per opponent seat in
	// seat order. A spec is name[@key=value]... ("heuristic",
	// "mcts@sims=64", "policy@weights=a.npz@greedy=true": [agents.Spec]);
	// a policy's weights name a file inside the server's weights folder
	// ([Config.WeightsDir]), and mcts is capped by [Config.MaxAgentSims]
	// and [Config.MaxAgentTime] ([agents.Limits]).
	Agents json.RawMessage `json:"opponents,omitempty"`
	// LearnerSeats is the "learner_seats" field: the seats the client
	// plays (default [0]; every other seat is an opponent), or "all" (no
	// opponents: every seat is a learner seat, self-play in one batch).
	LearnerSeats json.RawMessage `json:"learner_seats,omitempty"`
	// SeatRule is the "seat_rule" field: "fixed" (default: the learner
	// seats are LearnerSeats in every episode) or "rotate" (each episode
	// rotates the whole lineup by rollout.RotationOf(agent_seed, players),
	// so that over episodes the learner plays every seat; see
	// [rollout.RotationRule] and [OpponentSeed]).
	SeatRule string `json:"seat_rule,omitempty"`
}

// set reports whether any of the fields was given.
func (o *Opponents) set() bool {
	return len(o.Agents) > 0 || len(o.LearnerSeats) > 0 || o.SeatRule != ""
}

// OpponentSeedSalt is mixed into an episode's environment seed to give the
// opponents' agent seed ([OpponentSeed]).
const OpponentSeedSalt = 0x6F70706F6E656E74 // "opponent"

// OpponentSeed returns the agent seed of an episode whose environment seed
// is envSeed in a session with opponents: rollout.SeatSeed(envSeed ^
// OpponentSeedSalt, 1). The opponent in seat k is reset with
// rollout.SeatSeed(OpponentSeed(envSeed), k), and the rotation of
// seat_rule "rotate" is rollout.RotationOf(OpponentSeed(envSeed), players),
// so an episode (deal, seats and the opponents' choices) is reproducible
// from its environment seed alone.
func OpponentSeed(envSeed uint64) uint64 {
	return rollout.SeatSeed(envSeed^OpponentSeedSalt, 1)
}

// lineupPlan is a session's resolved opponents: per seat (lineup position)
// the agent spec, or nil for a learner seat.
type lineupPlan struct {
	specs []*opponent
	rule  rollout.SeatRule
	names []string // per position: the agent's label, "learner" for a learner seat
}

// opponent is one opponent seat's agent: its spec and the options it is
// built with (checked against the server's limits, weights resolved).
type opponent struct {
	agents.Spec
	opts agents.Options
}

// planLineup checks o against spec and the server's agent limits (caps,
// weights folder: [agents.Limits]). Errors are [CodeBadRequest] *Errors
// (a spec that does not parse, a refused weights name), [CodeLimitExceeded]
// for an agent over a cap (the cap in the message) and [CodeBadParam] for
// an agent's own option.
func planLineup(o *Opponents, spec *env.Spec, lim agents.Limits) (*lineupPlan, *Error) {
	n := spec.NumPlayers
	if n < 2 {
		if len(o.Agents) == 0 && o.SeatRule == "" && (string(o.LearnerSeats) == `"all"` || string(o.LearnerSeats) == "[0]") {
			return nil, nil // one player, the learner: a plain session
		}
		return nil, errorf(CodeBadRequest, "opponents need a multi-player environment; %s has one player", spec.ID)
	}
	learner := make([]bool, n)
	if len(o.LearnerSeats) == 0 {
		learner[0] = true
	} else {
		var word string
		var seats []int
		if json.Unmarshal(o.LearnerSeats, &word) == nil {
			if word != "all" {
				return nil, errorf(CodeBadRequest, `learner_seats %q: want a list of seats or "all"`, word)
			}
			for k := range learner {
				learner[k] = true
			}
		} else if err := json.Unmarshal(o.LearnerSeats, &seats); err != nil || len(seats) == 0 {
			return nil, errorf(CodeBadRequest, `learner_seats: want a non-empty list of seats (0 to %d) or "all"`, n-1)
		} else {
			for _, k := range seats {
				if k < 0 || k >= n {
					return nil, errorf(CodeBadRequest, "learner_seats: seat %d out of range [0, %d)", k, n)
				}
				if learner[k] {
					return nil, errorf(CodeBadRequest, "learner_seats: seat %d given twice", k)
				}
				learner[k] = true
			}
		}
	}
	nOpp := 0
	for _, l := range learner {
		if !l {
			nOpp++
		}
	}
	var labels []string
	if len(o.Agents) > 0 && nOpp == 0 {
		return nil, errorf(CodeBadRequest, "opponents given, but every seat is a learner seat")
	}
	if len(o.Agents) > 0 {
		var one string
		if json.Unmarshal(o.Agents, &one) == nil {
			for range nOpp {
				labels = append(labels, one)
			}
		} else if err := json.Unmarshal(o.Agents, &labels); err != nil {
			return nil, errorf(CodeBadRequest, "opponents: want an agent spec (a string) or a list of them, one per opponent seat")
		}
	}
	if len(labels) != nOpp {
		return nil, errorf(CodeBadRequest, "opponents: %d given for %d opponent seats (%d players, learner seats %s)", len(labels), nOpp, n, string(o.LearnerSeats))
	}
	plan := &lineupPlan{specs: make([]*opponent, n), names: make([]string, n)}
	switch o.SeatRule {
	case "", "fixed":
		plan.rule = rollout.SeatsFixed
	case "rotate":
		plan.rule = rollout.SeatsRotate
	default:
		return nil, errorf(CodeBadRequest, `seat_rule %q: want "fixed" or "rotate"`, o.SeatRule)
	}
	j := 0
	for k := range n {
		if learner[k] {
			plan.names[k] = "learner"
			continue
		}
		sp, err := agents.ParseSpec(labels[j])
		j++
		if err != nil {
			return nil, errorf(CodeBadRequest, "opponent: %v", err)
		}
		opts, err := lim.Check(sp)
		var le *agents.LimitError
		var we *agents.WeightsError
		switch {
		case errors.As(err, &le):
			return nil, errorf(CodeLimitExceeded, "opponent %q: %v", sp.Label, err)
		case errors.As(err, &we):
			return nil, errorf(CodeBadRequest, "opponent %q: %v", sp.Label, err)
		case err != nil:
			return nil, errorf(CodeBadParam, "opponent %q: %v", sp.Label, err)
		}
		// Build one now so that a bad name or option is refused at make.
		if _, err := agents.New(sp.Name, spec, opts); err != nil {
			return nil, errorf(CodeBadParam, "opponent %q: %v", sp.Label, err)
		}
		plan.specs[k] = &opponent{sp, opts}
		plan.names[k] = sp.Label
	}
	return plan, nil
}

// learnerEnv wraps e in a LearnerEnv with fresh agents of plan, each
// bounded by ctx ([agents.SetContext]): once the session's context is done,
// a search in progress stops.
func (p *lineupPlan) learnerEnv(ctx context.Context, e *env.Env) (*rollout.LearnerEnv, error) {
	lineup := make([]agents.Agent, len(p.specs))
	for k, sp := range p.specs {
		if sp == nil {
			continue
		}
		a, err := agents.New(sp.Name, e.Spec(), sp.opts)
		if err != nil {
			return nil, err
		}
		agents.SetContext(a, ctx)
		lineup[k] = a
	}
	return rollout.NewLearnerEnv(e, lineup, p.names, p.rule)
}

// wire returns the plan as the made reply states it.
func (p *lineupPlan) wire() map[string]any {
	seats := []int{}
	for k, sp := range p.specs {
		if sp == nil {
			seats = append(seats, k)
		}
	}
	rule := "fixed"
	if p.rule == rollout.SeatsRotate {
		rule = "rotate"
	}
	return map[string]any{"lineup": p.names, "learner_seats": seats, "seat_rule": rule,
		"agent_seed_rule": "agent_seed = SplitMix64 seat_seed(env_seed ^ 0x" + strconv.FormatUint(OpponentSeedSalt, 16) + ", 1)",
		"rotation_rule":   rollout.RotationRule}
}
