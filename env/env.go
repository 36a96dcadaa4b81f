package env

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// MaxTurnsParam is the parameter name the wrapper truncates on: when a game
// declares an Int parameter of this name, an episode whose State.Turn()
// reaches it is truncated (0 disables truncation).
const MaxTurnsParam = "max_turns"

// StepResult is what [Env.Step] returns. Rewards aliases a buffer owned by
// the Env and is valid until the next Step or Reset; copy it to keep it.
type StepResult struct {
	// Rewards holds every player's reward for this step (len NumPlayers).
	Rewards []float64
	// Terminated is true when the game ended by its rules.
	Terminated bool
	// Truncated is true when the episode was cut by max_turns.
	Truncated bool
}

// Env is one environment instance: a game's state plus the bookkeeping every
// game shares. It is not safe for concurrent use; use one Env per goroutine
// (Clone is cheap).
type Env struct {
	game     Game
	spec     *Spec
	params   Params
	maxTurns int

	state      State
	seed       uint64
	steps      int
	startTurn  int  // the state's Turn() when the episode began (LoadState of a mid-game state), else 0
	fromState  bool // the episode began from a given game state (Start, LoadState), not dealt by Reset
	terminated bool
	truncated  bool
	returns    []float64
	rewards    []float64
	mask       []uint8
	maskOK     bool // mask holds the current state's legal actions
	hiddenN    int  // the hidden part's size (HiddenSize), once hiddenOK
	hiddenOK   bool
}

// Make builds an environment of the registered game id with the given
// parameters (nil for defaults). It returns an [*UnknownEnvError] or a
// [*ParamError]. Call [Env.Reset] before stepping.
func Make(id string, params map[string]any) (*Env, error) {
	g, err := Lookup(id)
	if err != nil {
		return nil, err
	}
	return New(g, params)
}

// New builds an environment for game g; see [Make].
func New(g Game, params map[string]any) (*Env, error) {
	p, err := g.Spec().Resolve(params)
	if err != nil {
		return nil, err
	}
	spec := specFor(g, p)
	e := &Env{
		game:    g,
		spec:    spec,
		params:  p,
		returns: make([]float64, spec.NumPlayers),
		rewards: make([]float64, spec.NumPlayers),
		mask:    make([]uint8, spec.NumActions()),
	}
	if v, ok := p[MaxTurnsParam].(int); ok {
		e.maxTurns = v
	}
	return e, nil
}

// Spec returns the environment's description.
func (e *Env) Spec() *Spec { return e.spec }

// Params returns the resolved parameters (every declared one, defaults
// filled in). Do not modify the map.
func (e *Env) Params() Params { return e.params }

// Reset starts a new episode from seed. The same seed gives the same
// episode, bit for bit.
func (e *Env) Reset(seed uint64) {
	e.setState(e.game.NewState(e.params, seed), seed)
}

func (e *Env) setState(s State, seed uint64) {
	e.state = s
	e.seed = seed
	e.steps = 0
	e.startTurn = 0
	e.fromState = false
	e.terminated = s.Terminal()
	e.truncated = false
	clear(e.returns)
	clear(e.rewards)
	e.maskOK = false
}

// Seed returns the seed of the current episode.
func (e *Env) Seed() uint64 { return e.seed }

// State returns the underlying game state, for game-aware code (rules
// tests, search agents working on clones). Mutating it bypasses the
// wrapper's bookkeeping.
func (e *Env) State() State { return e.state }

// ActionName returns the name of action (0 <= action < NumActions) for a
// person reading the game at the current position: the state's
// [ActionNamer] name when it has one (players by absolute seat), else
// Spec().ActionNames[action]. It returns "" for an action out of range.
func (e *Env) ActionName(action int) string {
	if action < 0 || action >= len(e.spec.ActionNames) {
		return ""
	}
	if n, ok := e.state.(ActionNamer); ok && e.state != nil {
		return n.ActionName(action)
	}
	return e.spec.ActionNames[action]
}

// CurrentPlayer returns the player to act, or [Terminal] once the episode
// has terminated or been truncated.
func (e *Env) CurrentPlayer() int {
	if e.state == nil || e.terminated || e.truncated {
		return Terminal
	}
	return e.state.CurrentPlayer()
}

// Done reports whether the episode has terminated or been truncated.
func (e *Env) Done() bool { return e.terminated || e.truncated }

// Terminated reports whether the game ended by its rules.
func (e *Env) Terminated() bool { return e.terminated }

// Truncated reports whether the episode was cut by max_turns.
func (e *Env) Truncated() bool { return e.truncated }

// Steps returns the number of steps taken in the current episode.
func (e *Env) Steps() int { return e.steps }

// Returns returns each player's undiscounted return so far (len NumPlayers).
// The slice is owned by the Env.
func (e *Env) Returns() []float64 { return e.returns }

func (e *Env) legal() []uint8 {
	if !e.maskOK {
		if e.Done() {
			clear(e.mask)
		} else {
			e.state.LegalMask(e.mask)
		}
		e.maskOK = true
	}
	return e.mask
}

// LegalMask writes the legal-action mask into dst (len NumActions): 1 for a
// legal action, 0 otherwise; all zero once the episode is over. It returns
// a [*ShapeError] for a wrong-sized dst or ErrNotReset.
func (e *Env) LegalMask(dst []uint8) error {
	if len(dst) != len(e.mask) {
		return &ShapeError{"action mask", len(dst), len(e.mask)}
	}
	if e.state == nil {
		return ErrNotReset
	}
	copy(dst, e.legal())
	return nil
}

// Mask returns the current legal-action mask without copying. The slice is
// owned by the Env and valid until the next Step, Reset or Load.
func (e *Env) Mask() []uint8 {
	if e.state == nil {
		return nil
	}
	return e.legal()
}

// Observe writes player's observation into dst (len Spec().ObsSize()).
// Errors: [*ShapeError], [*PlayerError], ErrNotReset.
func (e *Env) Observe(player int, dst []uint8) error {
	if len(dst) != e.spec.ObsSize() {
		return &ShapeError{"observation", len(dst), e.spec.ObsSize()}
	}
	if player < 0 || player >= e.spec.NumPlayers {
		return &PlayerError{player, e.spec.NumPlayers}
	}
	if e.state == nil {
		return ErrNotReset
	}
	e.state.Observe(player, dst)
	return nil
}

// Step plays action for the current player. An action out of range or
// masked out returns an [*IllegalActionError] and changes nothing; stepping
// a finished episode returns ErrEpisodeOver. When the game's turn count
// reaches max_turns the step is marked truncated (unless it also
// terminated) and the rules' end-of-episode rewards are paid.
func (e *Env) Step(action int) (StepResult, error) {
	if e.state == nil {
		return StepResult{}, ErrNotReset
	}
	if e.Done() {
		return StepResult{}, ErrEpisodeOver
	}
	if action < 0 || action >= len(e.mask) {
		return StepResult{}, &IllegalActionError{e.spec.ID, action, "out of range"}
	}
	if e.legal()[action] == 0 {
		return StepResult{}, &IllegalActionError{e.spec.ID, action, "not legal in this state"}
	}
	clear(e.rewards)
	e.state.Apply(action, e.rewards)
	e.maskOK = false
	e.steps++
	e.terminated = e.state.Terminal()
	if !e.terminated && e.maxTurns > 0 && e.state.Turn() >= e.maxTurns {
		e.truncated = true
		e.state.Truncate(e.rewards)
	}
	for i, r := range e.rewards {
		e.returns[i] += r
	}
	return StepResult{e.rewards, e.terminated, e.truncated}, nil
}

// Info returns the episode's summary so far. The returned value's slices
// are freshly allocated; use [Env.FillInfo] on a hot path.
func (e *Env) Info() Info {
	var in Info
	e.FillInfo(&in)
	return in
}

// FillInfo fills dst like [Env.Info], reusing dst's slices. While the
// episode runs, dst's per-player results are empty; once it is over they
// hold every player's (see [Info]). When a truncated episode's game reports
// no per-player result, each player's score is its return, ranked by
// [Info.RankByScore], and every player's outcome is OutcomeDraw.
func (e *Env) FillInfo(dst *Info) {
	dst.reset()
	if e.state == nil {
		return
	}
	e.state.Info(dst)
	if e.truncated {
		dst.Outcome = OutcomeTruncated
		if len(dst.Scores) == 0 {
			// The game reports no result for an unfinished position: each
			// player's score is its return, ranked, and nobody won.
			dst.RankByScore(e.returns)
			dst.Outcome = OutcomeTruncated
			for i := range dst.Outcomes {
				dst.Outcomes[i] = OutcomeDraw
			}
		}
	}
}

// Clone returns an independent copy sharing nothing mutable.
func (e *Env) Clone() *Env {
	c := *e
	if e.state != nil {
		c.state = e.state.Clone()
	}
	c.returns = append([]float64(nil), e.returns...)
	c.rewards = append([]float64(nil), e.rewards...)
	c.mask = append([]uint8(nil), e.mask...)
	return &c
}

// String renders the current position as text (the "ansi" render mode).
func (e *Env) String() string {
	if e.state == nil {
		return e.spec.ID + " (not reset)"
	}
	return e.state.String()
}

// LoadState starts a new episode from a bare game state (the "state" member
// of a snapshot, as the game's own MarshalJSON writes it) under the Env's
// current parameters: no steps taken, zero returns, seed recorded as the
// episode's seed. It returns a [*StateError] (or the game's error) for a
// state the game cannot read, or for an ongoing state at or past the
// Env's max_turns (its episode would already have been truncated), and
// then leaves the Env as it was.
//
// A mid-game state (Turn() > 0) starts an episode that began at that
// turn: its snapshot ([Env.MarshalJSON]) records "start_turn", so that
// [Env.Load] accepts the snapshot of an episode loaded this way even
// though it has taken fewer steps than the state has turns. Every episode
// begun this way (at turn 0 too) records "from_state": true, since its
// returns count from the given state, not from a deal (a position at turn
// 0 may carry scores). Whatever LoadState accepts, the Env's own snapshot
// then loads again.
func (e *Env) LoadState(data []byte, seed uint64) error {
	st, err := e.DecodeState(data)
	if err != nil {
		return err
	}
	return e.Start(st, seed)
}

// DecodeState parses data, a bare game state as [Env.LoadState] takes it,
// under the Env's parameters, and returns it without changing the Env:
// parse a state once, then [Env.Start] each of several Envs of the same
// parameters from a Clone of it. Errors are those of LoadState's parse.
func (e *Env) DecodeState(data []byte) (State, error) {
	return e.game.LoadState(e.params, data)
}

// Start begins an episode from st, a state decoded by [Env.DecodeState]
// of an Env with the same parameters, exactly as [Env.LoadState] does;
// the Env takes st over (pass a Clone to keep it). It returns a
// [*StateError] for an ongoing state at or past the Env's max_turns, and
// then leaves the Env as it was.
func (e *Env) Start(st State, seed uint64) error {
	if !st.Terminal() && e.maxTurns > 0 && st.Turn() >= e.maxTurns {
		return &StateError{e.spec.ID, fmt.Sprintf("state is ongoing at turn %d, past max_turns %d", st.Turn(), e.maxTurns), nil}
	}
	e.setState(st, seed)
	e.startTurn = max(0, st.Turn())
	e.fromState = true
	return nil
}

// snapshot is the JSON form of an Env.
type snapshot struct {
	Env        string          `json:"env"`
	Params     Params          `json:"params"`
	Seed       uint64          `json:"seed"`
	Steps      int             `json:"steps"`
	Returns    []float64       `json:"returns"`
	Terminated bool            `json:"terminated"`
	Truncated  bool            `json:"truncated"`
	State      json.RawMessage `json:"state"`
	// StartTurn is the state's turn when the episode began: 0 (and
	// absent) for an episode dealt by Reset, the loaded state's turn for
	// one begun by LoadState from a mid-game state.
	StartTurn int `json:"start_turn,omitempty"`
	// FromState is true (and present) for an episode begun from a game
	// state given to LoadState or Start, at whatever turn, rather than
	// dealt by Reset: its returns count from that state, so the checks
	// that hold for a dealt episode's returns (ReturnRange, the state's
	// earned returns) do not apply to it.
	FromState bool `json:"from_state,omitempty"`
}

// MarshalJSON serializes the environment: id, parameters, the episode's
// bookkeeping and the full game state (hidden information included).
func (e *Env) MarshalJSON() ([]byte, error) {
	if e.state == nil {
		return nil, ErrNotReset
	}
	st, err := e.state.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return json.Marshal(snapshot{e.spec.ID, e.params, e.seed, e.steps, e.returns, e.terminated, e.truncated, st, e.startTurn, e.fromState})
}

// MaxSnapshotSteps is the largest step count a snapshot may carry: steps
// travel as int32 in the server's replies and the datasets' columns.
const MaxSnapshotSteps = math.MaxInt32

// returnTolerance is the slack, relative to the bound's magnitude (at
// least 1), allowed when checking a snapshot's returns against the spec's
// ranges: sums of float64 rewards round.
const returnTolerance = 1e-9

// Load replaces the episode with one serialized by [Env.MarshalJSON].
//
// The snapshot's parameters replace the Env's only when they leave the
// Env's shape alone: the same number of players, observation shape and
// number of actions (a snapshot of max_turns 50 loads into an Env of
// max_turns 200; one of players 4 does not load into an Env of players 2,
// see [ErrSpecChange]). Spec() then follows the snapshot's parameters.
//
// Every field is validated against the state it comes with before
// anything changes:
//
//   - start_turn (absent: 0) lies in [0, st.Turn()]: the turn at which
//     the episode began, non-zero for one begun by [Env.LoadState] from a
//     mid-game state;
//   - steps lies in [st.Turn() - start_turn, MaxSnapshotSteps] (every
//     turn takes at least one step), and at most Spec().MaxEpisodeSteps
//     when every parameter other than players has its default (the bound
//     the spec states);
//   - every return is finite and lies within steps times the spec's
//     RewardRange (each step pays one reward in that range), and, for an
//     episode dealt by Reset (no from_state, start_turn 0) under those
//     default parameters, within the spec's ReturnRange, ongoing or over
//     (ReturnRange bounds the return so far of every such episode, see
//     [Spec]); when the state implements [ReturnsEarner] and the episode
//     was dealt by Reset, every return is the one the state has earned;
//     all with a relative tolerance of 1e-9;
//   - terminated equals the state's Terminal(); truncated implies not
//     terminated, a max_turns in force and Turn() >= max_turns; an ongoing
//     episode has Turn() < max_turns (it would have been truncated).
//
// On error ([*StateError], [*ParamError]) the Env is unchanged.
func (e *Env) Load(data []byte) error {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return &StateError{e.spec.ID, "malformed snapshot", err}
	}
	if s.Env != e.spec.ID {
		return &StateError{e.spec.ID, fmt.Sprintf("snapshot is of %q", s.Env), nil}
	}
	p, err := e.spec.Resolve(s.Params)
	if err != nil {
		return err
	}
	spec := specFor(e.game, p)
	if !sameShape(spec, e.spec) {
		return &StateError{e.spec.ID, fmt.Sprintf(
			"snapshot parameters %s give %d players, observation shape %v and %d actions; this environment has %d, %v and %d",
			mustJSON(s.Params), spec.NumPlayers, spec.ObsShape, spec.NumActions(),
			e.spec.NumPlayers, e.spec.ObsShape, e.spec.NumActions()), ErrSpecChange}
	}
	if len(s.Returns) != spec.NumPlayers {
		return &StateError{e.spec.ID, fmt.Sprintf("snapshot has %d returns, want %d", len(s.Returns), spec.NumPlayers), nil}
	}
	st, err := e.game.LoadState(p, s.State)
	if err != nil {
		return err
	}
	maxTurns, _ := p[MaxTurnsParam].(int)
	if err := validateSnapshot(e.game, spec, p, maxTurns, &s, st); err != nil {
		return err
	}
	e.spec = spec
	e.params = p
	e.hiddenOK = false // the hidden part's size follows the parameters
	e.maxTurns = maxTurns
	e.setState(st, s.Seed)
	e.steps = s.Steps
	copy(e.returns, s.Returns)
	e.terminated = s.Terminated
	e.truncated = s.Truncated
	e.startTurn = s.StartTurn
	e.fromState = s.FromState || s.StartTurn > 0
	return nil
}

// ErrSpecChange is wrapped by the [*StateError] of a snapshot whose
// parameters would change the environment's shape (players, observation
// shape, number of actions); test with errors.Is.
var ErrSpecChange = errors.New("env: snapshot parameters change the environment's shape")

// sameShape reports whether a and b describe arrays of the same sizes.
func sameShape(a, b *Spec) bool {
	return a.NumPlayers == b.NumPlayers && a.NumActions() == b.NumActions() && slices.Equal(a.ObsShape, b.ObsShape)
}

// validateSnapshot checks a snapshot's bookkeeping against its state st,
// decoded under params p (spec is the spec p gives), by the rules listed
// at [Env.Load].
func validateSnapshot(g Game, spec *Spec, p Params, maxTurns int, s *snapshot, st State) error {
	bad := func(format string, args ...any) error {
		return &StateError{spec.ID, "snapshot " + fmt.Sprintf(format, args...), nil}
	}
	turn := st.Turn()
	defaults := defaultParams(g.Spec(), p)
	switch {
	case s.StartTurn < 0 || s.StartTurn > max(turn, 0):
		return bad("start_turn %d out of range [0, %d] (the state's turn)", s.StartTurn, max(turn, 0))
	case s.Steps < 0 || s.Steps > MaxSnapshotSteps:
		return bad("steps %d out of range [0, %d]", s.Steps, MaxSnapshotSteps)
	case s.Steps < turn-s.StartTurn:
		if s.StartTurn > 0 {
			return bad("steps %d is fewer than the state's %d turns since its start_turn %d", s.Steps, turn-s.StartTurn, s.StartTurn)
		}
		return bad("steps %d is fewer than the state's %d turns", s.Steps, turn)
	case defaults && s.Steps > spec.MaxEpisodeSteps:
		return bad("steps %d is over the spec's max_episode_steps %d", s.Steps, spec.MaxEpisodeSteps)
	}
	over := s.Terminated || s.Truncated
	switch terminal := st.Terminal(); {
	case s.Terminated != terminal:
		return bad("says terminated=%v but the state is %s", s.Terminated, map[bool]string{true: "terminal", false: "not terminal"}[terminal])
	case s.Truncated && s.Terminated:
		return bad("is both terminated and truncated")
	case s.Truncated && (maxTurns <= 0 || turn < maxTurns):
		return bad("says truncated but the state is at turn %d of max_turns %d", turn, maxTurns)
	case !over && maxTurns > 0 && turn >= maxTurns:
		return bad("is ongoing at turn %d, past max_turns %d", turn, maxTurns)
	}
	steps := float64(s.Steps)
	lo, hi := steps*min(spec.RewardRange[0], 0), steps*max(spec.RewardRange[1], 0)
	dealt := !s.FromState && s.StartTurn == 0
	var earned []float64
	if er, ok := st.(ReturnsEarner); ok && dealt {
		earned = make([]float64, len(s.Returns))
		if !er.EarnedReturns(s.Truncated, earned) {
			earned = nil
		}
	}
	episode := map[bool]string{true: "a finished episode", false: "an ongoing episode"}[over]
	for i, r := range s.Returns {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return bad("return of player %d is %v", i, r)
		}
		if !within(r, lo, hi) {
			return bad("return %v of player %d is outside %d steps of rewards in %v: [%v, %v]", r, i, s.Steps, spec.RewardRange, lo, hi)
		}
		if defaults && dealt && !within(r, spec.ReturnRange[0], spec.ReturnRange[1]) {
			return bad("return %v of player %d of %s is outside the return range %v", r, i, episode, spec.ReturnRange)
		}
		if earned != nil && !within(r, earned[i], earned[i]) {
			return bad("return %v of player %d of %s dealt at turn 0 is not the %v its state has earned", r, i, episode, earned[i])
		}
	}
	return nil
}

// within reports whether lo <= x <= hi up to returnTolerance.
func within(x, lo, hi float64) bool {
	tol := func(b float64) float64 { return returnTolerance * max(1, math.Abs(b)) }
	return x >= lo-tol(lo) && x <= hi+tol(hi)
}

// defaultParams reports whether every parameter of p other than players
// has the registered spec's default: the parameters the spec's
// MaxEpisodeSteps and ReturnRange are stated under.
func defaultParams(reg *Spec, p Params) bool {
	for _, ps := range reg.Params {
		if ps.Name == PlayersParam {
			continue
		}
		if v, ok := p[ps.Name]; ok && v != ps.Default {
			return false
		}
	}
	return true
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
