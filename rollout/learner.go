package rollout

import (
	"fmt"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
)

// SeatRule is how a [LearnerEnv] places its lineup at each reset.
type SeatRule int

const (
	// SeatsFixed keeps the lineup as given: position k plays seat k in
	// every episode.
	SeatsFixed SeatRule = iota
	// SeatsRotate rotates the lineup by r positions per episode, seat k
	// played by position (k+r) mod NumPlayers, with r drawn from the
	// episode's agent seed ([RotationOf]): reproducible per episode, and
	// uniform over the rotations across episodes.
	SeatsRotate
)

// RotationRule is how [SeatsRotate] draws an episode's rotation.
const RotationRule = "rotation(agent_seed, n) = mix(agent_seed ^ 0x6C65617276696577) mod n (mix: SplitMix64's output function); " +
	"seat k is then played by lineup position (k + rotation) mod n"

// RotationOf returns the rotation [SeatsRotate] plays in an episode of an
// n-player game reset with agentSeed (see [RotationRule]).
func RotationOf(agentSeed uint64, n int) int {
	if n <= 1 {
		return 0
	}
	return int(mix(agentSeed^0x6C65617276696577) % uint64(n))
}

// LearnerStep is what [LearnerEnv.Step] returns.
type LearnerStep struct {
	// Seat is the learner seat the step's reward belongs to: while the
	// game goes on, the learner seat now to act (with one learner seat,
	// always that seat); once it is over, the seat that made the step's
	// decision (every learner seat's last reward is then in
	// [LearnerEnv.FinalRewards]).
	Seat int
	// Reward is everything Seat's player earned since its previous
	// decision (the opponents' moves and the other learner seats' moves
	// included). Once the game is over it is FinalRewards()[Seat].
	Reward float64
	// First is true when Seat has not decided yet this episode (several
	// learner seats): no transition of Seat ends here, Reward is 0, and
	// what Seat earned before its first decision counts in the reward of
	// its first transition.
	First bool
	// Terminated and Truncated are the game's: the episode ends with the
	// game.
	Terminated bool
	Truncated  bool
}

// Done reports whether the step ended the episode.
func (s LearnerStep) Done() bool { return s.Terminated || s.Truncated }

// LearnerEnv is the learner's view of a multi-player environment: some
// seats are played by built-in agents (the opponents), the others (one or
// several learner seats) by the caller, one decision per [LearnerEnv.Step].
// Between two learner decisions the opponents play at Go speed. Each seat's
// reward is accumulated from every step of the game and handed out at the
// seat's next decision, so a learner seat's rewards sum to its player's
// return (env.Env.Returns) exactly: rewards earned before a seat's first
// decision count in its first step's reward, and what it earned after its
// last decision is in [LearnerEnv.FinalRewards] once the game is over.
//
// It is used by one goroutine. A step allocates nothing (the opponents'
// own decisions aside; a reset allocates what the game's new state
// needs); TestLearnerNoAllocation checks it.
type LearnerEnv struct {
	env      *env.Env
	lineup   []agents.Agent // by position; nil: a learner position
	names    []string
	rule     SeatRule
	rot      int
	need     []bool // per position: the agent reads observations
	obs      []uint8
	pending  []float64 // per seat: earned since its last delivered reward
	final    []float64 // per seat, once the game is over: the last transition's reward
	decided  []bool    // per seat: it has made a decision this episode
	learners int
	steps    int // steps of the episode, every seat's
	episodeN int64
}

// NewLearnerEnv returns the learner's view of e with lineup[k] in position
// k (a nil entry is a learner position) named names[k] (for errors), and
// the rule placing positions in seats. len(lineup) must be e's NumPlayers
// and at least one entry nil; the same agent value may hold several
// positions and is then reset once per episode (with the seed of its first
// seat). It returns a *SeatsError for a lineup that does not fit.
func NewLearnerEnv(e *env.Env, lineup []agents.Agent, names []string, rule SeatRule) (*LearnerEnv, error) {
	n := e.Spec().NumPlayers
	if len(lineup) != n || len(names) != n {
		return nil, &SeatsError{Env: e.Spec().ID, Seats: len(lineup), Reason: fmt.Sprintf("want one entry per player (%d), nil for a learner seat", n)}
	}
	if rule != SeatsFixed && rule != SeatsRotate {
		return nil, &SeatsError{Env: e.Spec().ID, Seats: len(lineup), Reason: fmt.Sprintf("unknown seat rule %d", rule)}
	}
	l := &LearnerEnv{env: e, lineup: lineup, names: names, rule: rule, need: make([]bool, n),
		obs: make([]uint8, e.Spec().ObsSize()), pending: make([]float64, n), final: make([]float64, n), decided: make([]bool, n)}
	for k, a := range lineup {
		if a == nil {
			l.learners++
			continue
		}
		l.need[k] = agents.NeedsObservation(a)
	}
	if l.learners == 0 {
		return nil, &SeatsError{Env: e.Spec().ID, Seats: len(lineup), Reason: "no learner seat (a nil entry)"}
	}
	return l, nil
}

// Env returns the environment, which holds the current episode (its
// Returns, Info and scores once it is over).
func (l *LearnerEnv) Env() *env.Env { return l.env }

// Rotation returns the current episode's rotation: seat k is played by
// lineup position (k+Rotation()) mod NumPlayers.
func (l *LearnerEnv) Rotation() int { return l.rot }

// Position returns the lineup position playing seat k this episode.
func (l *LearnerEnv) Position(k int) int { return (k + l.rot) % len(l.lineup) }

// IsLearner reports whether seat k is a learner seat this episode.
func (l *LearnerEnv) IsLearner(k int) bool { return l.lineup[l.Position(k)] == nil }

// Player returns the learner seat to act, or env.Terminal once the episode
// is over.
func (l *LearnerEnv) Player() int { return l.env.CurrentPlayer() }

// Done reports whether the episode is over.
func (l *LearnerEnv) Done() bool { return l.env.Done() }

// Mask returns the legal-action mask of the learner seat to act (owned by
// the environment, valid until the next Step or Reset).
func (l *LearnerEnv) Mask() []uint8 { return l.env.Mask() }

// Observe writes the acting learner seat's observation into dst (len
// ObsSize). Errors: those of env.Env.Observe (a *env.PlayerError once the
// episode is over).
func (l *LearnerEnv) Observe(dst []uint8) error { return l.env.Observe(l.env.CurrentPlayer(), dst) }

// Pending returns, per seat, what each player has earned since its last
// delivered reward (owned by the LearnerEnv; len NumPlayers).
func (l *LearnerEnv) Pending() []float64 { return l.pending }

// FinalRewards returns, once the episode is over, each seat's reward since
// its last decision (its last transition's reward, to close it with done);
// zero for every seat while the game goes on. Owned by the LearnerEnv.
func (l *LearnerEnv) FinalRewards() []float64 { return l.final }

// Reset starts an episode from envSeed, places the lineup by the seat rule
// (the rotation of [SeatsRotate] from agentSeed), resets each distinct
// opponent with [SeatSeed](agentSeed, k) of the first seat k it plays, and
// plays the opponents until a learner seat is to act (or the game is over:
// then [LearnerEnv.Done] is true and FinalRewards holds every seat's
// return). ep is the episode index reported in errors. Errors: an
// *[AgentError] when an opponent's action is refused.
func (l *LearnerEnv) Reset(ep int64, envSeed, agentSeed uint64) error {
	r := 0
	if l.rule == SeatsRotate {
		r = RotationOf(agentSeed, len(l.lineup))
	}
	return l.ResetRotation(ep, envSeed, agentSeed, r)
}

// ResetRotation is [LearnerEnv.Reset] with the rotation given (0 <= r <
// NumPlayers), for callers that balance the seats themselves (every deal
// once per rotation). It panics for r out of range.
func (l *LearnerEnv) ResetRotation(ep int64, envSeed, agentSeed uint64, r int) error {
	n := len(l.lineup)
	if r < 0 || r >= n {
		panic(fmt.Sprintf("rollout: rotation %d of %d seats", r, n))
	}
	l.rot, l.episodeN, l.steps = r, ep, 0
	l.env.Reset(envSeed)
	for k := range n {
		a := l.lineup[l.Position(k)]
		if a == nil {
			continue
		}
		first := true // k is the first seat a plays this episode
		for j := range k {
			if l.lineup[l.Position(j)] == a {
				first = false
				break
			}
		}
		if first {
			a.Reset(SeatSeed(agentSeed, k))
		}
	}
	clear(l.pending)
	clear(l.final)
	clear(l.decided)
	return l.advance()
}

// advance plays the opponents until a learner seat is to act or the game
// is over, accumulating every player's rewards.
func (l *LearnerEnv) advance() error {
	e := l.env
	for !e.Done() {
		p := e.CurrentPlayer()
		pos := l.Position(p)
		a := l.lineup[pos]
		if a == nil {
			return nil
		}
		var obs []uint8
		if l.need[pos] {
			obs = l.obs
			e.Observe(p, obs)
		}
		act := a.Act(p, obs, e.Mask())
		res, err := e.Step(act)
		if err != nil {
			return &AgentError{Agent: l.names[pos], Seat: p, Episode: l.episodeN, Step: l.steps, Err: err}
		}
		l.steps++
		for i, r := range res.Rewards {
			l.pending[i] += r
		}
	}
	copy(l.final, l.pending)
	clear(l.pending)
	return nil
}

// Step plays action for the learner seat to act, then the opponents until
// a learner seat is to act or the game is over, and returns the reward of
// the seat whose decision comes next (see [LearnerStep]). Errors: the
// environment's (an *env.IllegalActionError for a refused action, which
// changes nothing; env.ErrEpisodeOver after the end) and an *[AgentError]
// for an opponent's refused action.
func (l *LearnerEnv) Step(action int) (LearnerStep, error) {
	e := l.env
	seat := e.CurrentPlayer()
	res, err := e.Step(action)
	if err != nil {
		return LearnerStep{}, err
	}
	l.decided[seat] = true
	l.steps++
	for i, r := range res.Rewards {
		l.pending[i] += r
	}
	if err := l.advance(); err != nil {
		return LearnerStep{}, err
	}
	if e.Done() {
		return LearnerStep{Seat: seat, Reward: l.final[seat], Terminated: e.Terminated(), Truncated: e.Truncated()}, nil
	}
	next := e.CurrentPlayer()
	if !l.decided[next] {
		// next's first decision: what it earned so far counts in its
		// first transition.
		return LearnerStep{Seat: next, First: true}, nil
	}
	r := l.pending[next]
	l.pending[next] = 0
	return LearnerStep{Seat: next, Reward: r}, nil
}
