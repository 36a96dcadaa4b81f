package play

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/galaxygym/galaxygym/agents"
	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// Human is the name of a seat a person plays, in a lineup and in the
// seat_agents of a recorded dataset.
const Human = "human"

// Lineup describes a new table: the environment, its parameters, one entry
// per seat (Human or an agent name) and the agents' options by name.
type Lineup struct {
	Env       string                    `json:"env"`
	Params    map[string]any            `json:"params"`
	Seats     []string                  `json:"seats"`
	AgentOpts map[string]agents.Options `json:"agent_opts"`
	// Seed is the run seed: the environment and the agents are seeded from
	// it as episode 0 of `generate --seed Seed` (rollout.EpisodeSeeds), so
	// that a recording replays exactly. 0 picks one at random.
	Seed uint64 `json:"seed"`
	// DelayMS is the pause before each agent move, in milliseconds.
	DelayMS int `json:"delay_ms"`
	// Paused: agents move only when asked (step by step).
	Paused bool `json:"paused"`
	// Hint is the agent that the people seated may ask about their own
	// decision, from their seat's observation only (op "hint"): the move it
	// would play, with its numbers when it shows them ([agents.Explainer]);
	// "" offers no hints. Its options are AgentOpts[Hint].
	Hint string `json:"hint,omitempty"`
}

// step is one move played at a table.
type step struct {
	Player int
	Action int
	// Words are the move in the mover's words (moveWords), kept so that
	// the status does not present the position again for each connection.
	Words string
}

// table is one live game: the environment, its seats, and the
// connections that play or watch it.
type table struct {
	id      string
	h       *Handler
	lineup  Lineup
	runSeed uint64

	mu      sync.Mutex
	e       *env.Env
	seats   []agents.Agent // nil for a human seat
	holder  []*person      // the person holding each human seat; nil while free
	heir    []string       // the agent playing a human seat since its person left ("" none)
	creator *person        // the person who started the table
	history []step
	lastOf  []int    // each seat's last move, an index into history; -1 before its first
	thought []Action // the last agent decision's thoughts (no human seated)
	unit    string   // what their values are
	hinter  *hinter  // the agent that gives the people hints (Lineup.Hint), or nil
	delay   time.Duration
	paused  bool
	advance int // agent moves asked for while paused
	wake    chan struct{}
	done    bool
	err     string // an agent's failure, or the recording's
	record  string // the recorded dataset's name, once written
	rematch string // the rematch's table id, once started (op rematch)
	watch   map[*conn]int
	last    time.Time
	cancel  context.CancelFunc
	b       tableBudget // its owner, a person's last request, the move in progress
	rs      research    // the researcher's tools: thoughts by step, the log, play from here (research.go)
}

// humans reports whether a person sits at the table.
func (t *table) humans() bool {
	return slices.Contains(t.lineup.Seats, Human)
}

// newTable checks a lineup and deals the game. Errors are *RequestError.
func (h *Handler) newTable(l Lineup) (*table, error) {
	g, err := env.Lookup(l.Env)
	if err != nil {
		return nil, &RequestError{Code: "unknown_env", Message: err.Error()}
	}
	e, err := env.New(g, l.Params)
	if err != nil {
		return nil, &RequestError{Code: "bad_params", Message: err.Error()}
	}
	spec := e.Spec()
	if len(l.Seats) != spec.NumPlayers {
		return nil, &RequestError{Code: "bad_lineup", Message: fmt.Sprintf("%d seats for %d players", len(l.Seats), spec.NumPlayers)}
	}
	if l.DelayMS < 0 || l.DelayMS > 60_000 {
		return nil, &RequestError{Code: "bad_lineup", Message: "delay_ms must be within 0..60000"}
	}
	if _, isDet := g.(env.Determinizer); !isDet && slices.Contains(l.Seats, Human) {
		return nil, &RequestError{Code: "bad_lineup", Message: spec.ID + " has no determinizer: a person's view cannot be drawn from an observation"}
	}
	if l.Seed == 0 {
		l.Seed = h.newSeed()
	}
	envSeed, agentSeed := rollout.EpisodeSeeds(l.Seed, 0)
	t := &table{h: h, lineup: l, runSeed: l.Seed, e: e, seats: make([]agents.Agent, spec.NumPlayers),
		holder: make([]*person, spec.NumPlayers), heir: make([]string, spec.NumPlayers), delay: time.Duration(l.DelayMS) * time.Millisecond,
		paused: l.Paused, wake: make(chan struct{}, 1), watch: map[*conn]int{}, last: time.Now(),
		lastOf: slices.Repeat([]int{-1}, spec.NumPlayers)}
	for k, name := range l.Seats {
		if name == Human {
			continue
		}
		opts, err := h.agentOptions(spec, name, l.AgentOpts[name])
		if err != nil {
			return nil, err
		}
		a, err := agents.New(name, spec, opts)
		if err != nil {
			return nil, &RequestError{Code: "bad_lineup", Message: fmt.Sprintf("seat %d: %v", k, err)}
		}
		t.seats[k] = a
	}
	if t.hinter, err = h.newHinter(spec, l); err != nil {
		return nil, err
	}
	e.Reset(envSeed)
	// Each seat's agent is its own value seeded as generate --seats seeds it.
	for k, a := range t.seats {
		if a != nil {
			a.Reset(rollout.SeatSeed(agentSeed, k))
		}
	}
	return t, nil
}

// actErr checks a person's move without playing it: steps is the
// version of the position the move answers (status.steps when the page
// showed the decision).
func (t *table) actErr(c *conn, seat, action, steps int) error {
	spec := t.e.Spec()
	if seat < 0 || seat >= spec.NumPlayers {
		return &RequestError{Code: "bad_seat", Message: fmt.Sprintf("seat %d does not exist (0..%d)", seat, spec.NumPlayers-1)}
	}
	if !t.plays(c, seat) {
		return &RequestError{Code: "not_your_seat", Message: fmt.Sprintf("seat %d is not yours", seat)}
	}
	if steps != len(t.history) {
		return &RequestError{Code: "stale", Message: fmt.Sprintf("the move answers the position after %d steps; %d have been played since: look again", steps, len(t.history))}
	}
	if t.done || t.e.Done() {
		return &RequestError{Code: "game_over", Message: "the game is over"}
	}
	if cur := t.e.CurrentPlayer(); cur != seat {
		return &RequestError{Code: "out_of_turn", Message: fmt.Sprintf("seat %d is not to act", seat)}
	}
	if action < 0 || action >= spec.NumActions() {
		return &RequestError{Code: "unknown_action", Message: fmt.Sprintf("action %d does not exist (0..%d)", action, spec.NumActions()-1)}
	}
	if t.e.Mask()[action] == 0 {
		return &RequestError{Code: "illegal_action", Message: fmt.Sprintf("%s is not legal now", spec.ActionNames[action])}
	}
	return nil
}

// act plays a person's move, if it answers the position after steps
// moves (a stale or doubled click is refused).
func (t *table) act(c *conn, seat, action, steps int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.actErr(c, seat, action, steps); err != nil {
		return err
	}
	t.stepLocked(seat, action)
	return nil
}

// stepLocked applies a checked move and tells everyone.
func (t *table) stepLocked(player, action int) {
	words := moveWords(t.e.Spec(), t.e.Params(), t.e.State(), player, action)
	if _, err := t.e.Step(action); err != nil {
		t.err = err.Error() // checked legal: does not happen
		t.done = true
	}
	t.lastOf[player] = len(t.history)
	t.history = append(t.history, step{player, action, words})
	t.last = time.Now()
	t.poke()
	t.broadcastLocked()
}

func (t *table) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// sleep waits d, or less when the table is poked (woke); ok is false when
// ctx ended first.
func (t *table) sleep(ctx context.Context, d time.Duration) (woke, ok bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false, false
	case <-t.wake:
		return true, true
	case <-timer.C:
		return false, true
	}
}

// run moves the agents until the game is over or ctx ends, then records
// it. Each move, with the views it draws, is worked out on the page's pool
// ([pool]); no move starts while nobody watches and nobody sits at the
// table, and the move in progress is cancelled when the last one leaves
// ([Handler.settle]): the game then ends, since an agent stopped halfway
// would not replay as recorded.
func (t *table) run(ctx context.Context) {
	spec := t.e.Spec()
	obs := make([]uint8, spec.ObsSize())
	pl := t.h.pool
	for {
		t.mu.Lock()
		if t.e.Done() || t.done {
			t.mu.Unlock()
			// A finished game no longer counts against its owner's budget,
			// given back before the page hears that it is over: the next
			// game it opens at once is never refused for this one.
			t.b.ended.Do(func() {
				if t.b.owner != nil {
					t.h.unchargeTable(t.b.owner)
				}
			})
			_ = pl.do(ctx, pl.moves, func() {
				t.mu.Lock()
				t.finishLocked()
				t.mu.Unlock()
			})
			return
		}
		p := t.e.CurrentPlayer()
		a := t.seats[p]
		ready := a != nil && (!t.paused || t.advance > 0)
		delay := t.delay
		if t.paused {
			delay = 0
		}
		t.mu.Unlock()
		if !ready {
			select {
			case <-ctx.Done():
				return
			case <-t.wake:
			}
			continue
		}
		if delay > 0 {
			woke, ok := t.sleep(ctx, delay)
			if !ok {
				return
			}
			if woke {
				continue // settings changed: look again
			}
		}
		t.mu.Lock()
		if t.e.Done() || t.e.CurrentPlayer() != p {
			t.mu.Unlock()
			continue
		}
		if t.abandonedLocked() {
			// Nobody is here: no work until someone comes back (or reap
			// ends the table).
			t.mu.Unlock()
			if _, ok := t.sleep(ctx, 100*time.Millisecond); !ok {
				return
			}
			continue
		}
		mask := slices.Clone(t.e.Mask())
		if err := t.e.Observe(p, obs); err != nil {
			t.err, t.done = err.Error(), true
			t.mu.Unlock()
			continue
		}
		steps, show := len(t.history), !t.humans()
		moveCtx, cancel := context.WithCancel(ctx)
		moveDone := make(chan struct{})
		t.b.mu.Lock()
		t.b.moveCancel, t.b.moveDone = cancel, moveDone
		t.b.mu.Unlock()
		t.mu.Unlock()
		stopped := false // the agent was stopped halfway
		_ = pl.do(moveCtx, pl.moves, func() {
			agents.SetContext(a, moveCtx)
			act, thought, unit := think(spec, a, p, obs, mask, show)
			agents.SetContext(a, nil)
			if moveCtx.Err() != nil {
				stopped = true // the answer is not the agent's
				return
			}
			t.mu.Lock()
			defer t.mu.Unlock()
			if t.done || t.e.Done() || len(t.history) != steps {
				return
			}
			t.thought, t.unit = thought, unit
			t.rs.noteThought(steps, thought, unit)
			if act < 0 || act >= len(mask) || mask[act] == 0 {
				t.err, t.done = fmt.Sprintf("seat %d (%s) chose an illegal action %d", p, a.Name(), act), true
				t.broadcastLocked()
				return
			}
			if t.advance > 0 {
				t.advance--
			}
			t.stepLocked(p, act)
		})
		t.b.mu.Lock()
		t.b.moveCancel, t.b.moveDone = nil, nil
		t.b.mu.Unlock()
		cancel()
		close(moveDone)
		if ctx.Err() != nil {
			return
		}
		if stopped {
			t.mu.Lock()
			if !t.done {
				t.err, t.done = fmt.Sprintf("the game was stopped: everyone left while seat %d (%s) was thinking", p, a.Name()), true
			}
			t.mu.Unlock()
		}
	}
}

// finishLocked records a finished game with a person seated and tells
// everyone the result.
func (t *table) finishLocked() {
	if !t.done {
		t.done = true
		if t.humans() && t.err == "" && t.e.Done() && t.h.cfg.RecordDir != "" && !t.rs.branched {
			name, err := t.h.record(t)
			if err != nil {
				t.err = err.Error()
			} else {
				t.record = name
			}
		}
	}
	t.broadcastLocked()
}

// status is the public part of a table's state that every connection
// gets beside its view: the lineup, who holds which seat, and at the end
// the result.
type status struct {
	Table   string   `json:"table"`
	Env     string   `json:"env"`
	Seats   []string `json:"seats"`
	Held    []bool   `json:"held"`    // a person has taken the seat
	Yours   []int    `json:"yours"`   // the seats this connection plays
	Steps   int      `json:"steps"`   // moves played: the position's version, which an act carries back
	ToMove  int      `json:"to_move"` // the player to act (public at the table), -1 at the end
	Paused  bool     `json:"paused"`
	DelayMS int      `json:"delay_ms"`
	Over    bool     `json:"over"`
	Error   string   `json:"error,omitempty"`
	Record  string   `json:"record,omitempty"` // the recorded dataset, once written
	// Rematch is the table of this game's rematch, once started.
	Rematch string `json:"rematch,omitempty"`
	// Result is the episode's env.Info once the game is over.
	Result *env.Info `json:"result,omitempty"`
	// Returns are every player's returns, in views with no person seated
	// and at the end.
	Returns []float64 `json:"returns,omitempty"`
	// Thought is the last agent decision's thoughts (no person seated),
	// ThoughtUnit what their values (Action.V) are.
	Thought     []Action `json:"thought,omitempty"`
	ThoughtUnit string   `json:"thought_unit,omitempty"`
	// Hint names the agent a seated person may ask for hints ("" none).
	Hint string `json:"hint,omitempty"`
	// Away marks the seats whose person has no connection open: the seat
	// is kept for them for the grace period (Config.SeatGrace, AwayS
	// seconds), and the game waits for their moves.
	Away  []bool `json:"away"`
	AwayS int    `json:"grace_s"`
	// Heirs names the agent that plays a human seat since its person left
	// for longer than the grace period ("" for the other seats).
	Heirs []string `json:"heirs"`
	// Control says whether this connection may pause, step or change the
	// speed (op control): the people seated, or the table's creator while
	// nobody is seated.
	Control bool `json:"control"`
	// Last is the last move, in views with no person seated; a seated
	// person sees only who moved (LastPlayer), the move's public words
	// (LastPublic) and the picture.
	Last       *Action `json:"last,omitempty"`
	LastPlayer int     `json:"last_player"`
	// Moves is each seat's last move (null before its first): every seat's
	// in views with no person seated and at the end, else only the seats
	// this connection plays (the others' moves may depend on what they
	// hold, so a seated person sees who moved, their public words and the
	// picture).
	Moves []*Action `json:"moves"`
	// Public is each seat's last move in its public words
	// (env.PublicMover; "seat k moved" for a game that does not give
	// them) where Moves has null, "" elsewhere (before the seat's first
	// move, or where Moves has the move itself); LastPublic is the last
	// move's, where Last is absent.
	Public     []string `json:"public"`
	LastPublic string   `json:"last_public,omitempty"`
}

func (t *table) statusFor(c *conn) status {
	n := t.e.Spec().NumPlayers
	s := status{Table: t.id, Env: t.e.Spec().ID, Seats: t.lineup.Seats, Held: make([]bool, n), Steps: len(t.history),
		ToMove: t.e.CurrentPlayer(), Paused: t.paused, DelayMS: int(t.delay / time.Millisecond), Over: t.done,
		Error: t.err, Record: t.record, Rematch: t.rematch, LastPlayer: -1, Yours: []int{}, Hint: t.lineup.Hint,
		Away: make([]bool, n), AwayS: int(t.h.cfg.SeatGrace / time.Second), Heirs: t.heir, Control: t.mayControl(c)}
	for k, p := range t.holder {
		s.Held[k] = p != nil
		s.Away[k] = p != nil && len(p.conns) == 0 && t.heir[k] == ""
		if t.plays(c, k) {
			s.Yours = append(s.Yours, k)
		}
	}
	if len(t.history) > 0 {
		s.LastPlayer = t.history[len(t.history)-1].Player
	}
	if t.done && t.e.Done() {
		info := t.e.Info()
		s.Result = &info
	}
	open := !t.humans() || (t.done && t.e.Done())
	s.Moves = make([]*Action, n)
	s.Public = make([]string, n)
	for k, i := range t.lastOf {
		switch {
		case i < 0:
		case open || t.plays(c, k):
			name := t.e.Spec().ActionNames[t.history[i].Action]
			s.Moves[k] = &Action{A: t.history[i].Action, Name: name, Words: t.history[i].Words}
		default:
			s.Public[k] = publicWords(t.e.Spec(), t.e.Params(), k, t.history[i].Action)
			if i == len(t.history)-1 {
				s.LastPublic = s.Public[k]
			}
		}
	}
	if open {
		s.Returns = slices.Clone(t.e.Returns())
		s.Thought, s.ThoughtUnit = t.thought, t.unit
		if len(t.history) > 0 {
			h := t.history[len(t.history)-1]
			n := t.e.Spec().ActionNames[h.Action]
			s.Last = &Action{A: h.Action, Name: n, Words: h.Words}
		}
	}
	return s
}

// viewFor returns the seat whose view c gets: the seat to act when c
// plays it (hot seat), else the first seat c plays; a spectator gets the
// public view while a person is seated and the game is not over, else the
// view it watches (the public view becomes every card face up once the
// game is over).
func (t *table) viewFor(c *conn) int {
	cur := t.e.CurrentPlayer()
	first := -1
	for k := range t.holder {
		if t.plays(c, k) {
			if k == cur {
				return k
			}
			if first == -1 {
				first = k
			}
		}
	}
	if first != -1 {
		return first
	}
	if t.hidden() {
		return Public
	}
	v, ok := t.watch[c]
	if !ok || v == Public {
		return FaceUp
	}
	return v
}

// broadcastLocked sends every connection at the table its status and view.
func (t *table) broadcastLocked() {
	views := map[int][]byte{}
	for c := range t.watch {
		seat := t.viewFor(c)
		payload, ok := views[seat]
		if !ok {
			payload = t.viewPayloadLocked(seat)
			views[seat] = payload
		}
		c.sendTable(t.statusFor(c), payload, t.seatObservationLocked(c, seat))
	}
}

// viewPayloadLocked returns the JSON of seat's view of the position: the
// public view (Public), every card face up (only at a table with no
// person seated, or once the game is over: viewFor gives spectators the
// public view otherwise), or a seat's view built from its observation.
func (t *table) viewPayloadLocked(seat int) []byte {
	// Drawn once per position and seat, whoever watches (t.mu held).
	if t.b.views == nil || t.b.viewsAt != len(t.history) || t.b.viewsDone != t.done {
		t.b.views, t.b.viewsAt, t.b.viewsDone = map[int][]byte{}, len(t.history), t.done
	}
	if v, ok := t.b.views[seat]; ok {
		return v
	}
	v := t.drawViewLocked(seat)
	t.b.views[seat] = v
	return v
}

// drawViewLocked draws seat's view of the position (viewPayloadLocked).
func (t *table) drawViewLocked(seat int) []byte {
	viewsDrawn.Add(1)
	if seat == Public {
		v, err := PublicView(t.e.Spec(), t.e.Params(), t.e.State())
		if err != nil {
			return mustJSON(map[string]string{"error": err.Error()})
		}
		return mustJSON(v)
	}
	if seat == FaceUp {
		if t.humans() && !(t.done && t.e.Done()) {
			return nil
		}
		v, err := FaceUpView(t.e.Spec(), t.e.Params(), t.e.State())
		if err != nil {
			return mustJSON(map[string]string{"error": err.Error()})
		}
		return mustJSON(v)
	}
	v, err := SeatView(t.e.Spec(), t.e.Params(), t.e.State(), seat)
	if err != nil {
		return mustJSON(map[string]string{"error": err.Error()})
	}
	return mustJSON(v)
}
