package env

import (
	"encoding/json"
	"fmt"
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
	terminated bool
	truncated  bool
	returns    []float64
	rewards    []float64
	mask       []uint8
	maskOK     bool // mask holds the current state's legal actions
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
// state the game cannot read, and then leaves the Env as it was.
func (e *Env) LoadState(data []byte, seed uint64) error {
	st, err := e.game.LoadState(e.params, data)
	if err != nil {
		return err
	}
	e.setState(st, seed)
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
	return json.Marshal(snapshot{e.spec.ID, e.params, e.seed, e.steps, e.returns, e.terminated, e.truncated, st})
}

// Load replaces the episode with one serialized by [Env.MarshalJSON]. The
// snapshot's parameters replace the Env's. On error ([*StateError],
// [*ParamError]) the Env is unchanged.
func (e *Env) Load(data []byte) error {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return &StateError{e.spec.ID, "malformed snapshot", err}
	}
	if s.Env != e.spec.ID {
		return &StateError{e.spec.ID, fmt.Sprintf("snapshot is of %q", s.Env), nil}
	}
	if len(s.Returns) != e.spec.NumPlayers {
		return &StateError{e.spec.ID, fmt.Sprintf("snapshot has %d returns, want %d", len(s.Returns), e.spec.NumPlayers), nil}
	}
	p, err := e.spec.Resolve(s.Params)
	if err != nil {
		return err
	}
	st, err := e.game.LoadState(p, s.State)
	if err != nil {
		return err
	}
	e.params = p
	e.maxTurns = 0
	if v, ok := p[MaxTurnsParam].(int); ok {
		e.maxTurns = v
	}
	e.setState(st, s.Seed)
	e.steps = s.Steps
	copy(e.returns, s.Returns)
	e.terminated = s.Terminated || st.Terminal()
	e.truncated = s.Truncated
	return nil
}
