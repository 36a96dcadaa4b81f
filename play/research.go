package play

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/galaxygym/galaxygym/env"
	"github.com/galaxygym/galaxygym/rollout"
)

// This file holds the researcher's tools of a table (docs/play.md, "For
// researchers"): the move log, the history of positions, the agents'
// thoughts at every step with a sentence that explains them, reward
// markers, and "play from here" (a new table that starts at a position of
// a table's history or of a replay).
//
// The leak rules, in one place:
//
//   - Move text. At a table where nobody is seated (agents only) every
//     viewer sees every move, as the live page does. At a table where a
//     person plays, a viewer sees the text of the moves of the seats it
//     plays (the mover's own words) and of the others' moves only their
//     public words (env.PublicMover: "player 1 starts a new train
//     (locomotive face down)"), during the game and after it: a move's
//     name and its mover's words can name a hidden card. For a game that
//     does not say which part of a move is public, the others read "seat
//     k moved".
//   - Rewards (the markers) follow the same rule: every seat's at a table
//     with nobody seated, else the viewer's own seats' only.
//   - Positions. A past position is drawn for the seat rights the viewer
//     has now, never more than it saw live: a seated person gets its own
//     seat's view (the seat to act when it plays that seat, else its first);
//     a spectator of a table where a person plays gets the public view of
//     every past position (and, once the game is over, the view it watches
//     of the final position only, as live); at a table with nobody seated a
//     spectator gets the view it watches (every card face up by default).
//   - Play from here copies the true position into a new table, so it is
//     allowed only from what the requester may see face up: a table where
//     nobody is seated, or a dataset's replay.

// research is what a table keeps for the researcher's tools (t.mu guards
// it, except log, which has its own lock).
type research struct {
	// branched: the table was started from another table's or a replay's
	// position ("play from here"); envSeed is then the seed its
	// environment was reset with, and from says where it came from.
	branched bool
	envSeed  uint64
	from     *Origin
	prefix   int // the steps taken over from the origin
	// thoughts are the agents' thoughts at each step they were shown
	// (agents only at the table), by step; units what their values are.
	thoughts map[int][]Action
	units    map[int]string
	log      logCache
}

// noteThought keeps the thoughts of the agent decision at step (nil
// thoughts are not kept).
func (r *research) noteThought(step int, th []Action, unit string) {
	if th == nil {
		return
	}
	if r.thoughts == nil {
		r.thoughts, r.units = map[int][]Action{}, map[int]string{}
	}
	r.thoughts[step], r.units[step] = th, unit
}

// envSeedLocked is the seed the table's environment was reset with: its
// history replays from it.
func (t *table) envSeedLocked() uint64 {
	if t.rs.branched {
		return t.rs.envSeed
	}
	s, _ := rollout.EpisodeSeeds(t.runSeed, 0)
	return s
}

// LogEntry is one step of a move log as one viewer sees it.
type LogEntry struct {
	Step   int `json:"step"`   // the position the move was made in (0 = the first move)
	Player int `json:"player"` // the seat that moved
	// Hidden: the viewer may not see this move's own text; Words is then
	// the move's public words (env.PublicMover), or "seat k moved" for a
	// game that does not give them, and A and Name are absent.
	Hidden bool   `json:"hidden,omitempty"`
	A      *int   `json:"a,omitempty"`
	Name   string `json:"name,omitempty"`
	Words  string `json:"words"`
	// Rewards are the rewards this move earned, per seat (null for a
	// seat whose rewards the viewer may not see); absent when none of
	// those it may see is non-zero. The page marks these steps on its
	// history scrubber.
	Rewards []*float64 `json:"rewards,omitempty"`
	// Thought is what the agent thought of each legal action (agents
	// only at the table, for an agent that shows its thoughts), Unit what
	// its values are and Why a sentence that explains the choice.
	Thought []Action `json:"thought,omitempty"`
	Unit    string   `json:"unit,omitempty"`
	Why     string   `json:"why,omitempty"`
	// Branch marks the steps taken over from the origin of a table
	// started with "play from here".
	Branch bool `json:"branch,omitempty"`
}

// logStep is one step of a table's log as everyone's seen at once.
type logStep struct {
	player, action int
	words          string // the mover's own words
	public         string // the words for everyone else (publicWords)
	rewards        []float64
}

// publicWords returns the words about player's move action that every
// other seat and spectator may read: the game's env.PublicMover words, or
// "seat k moved" for a game that does not say which part of a move is
// public.
func publicWords(spec *env.Spec, params env.Params, player, action int) string {
	if g, err := env.Lookup(spec.ID); err == nil {
		if pm, ok := g.(env.PublicMover); ok {
			if w := pm.PublicWords(params, player, action); w != "" {
				return w
			}
		}
	}
	return fmt.Sprintf("seat %d moved", player)
}

// logCache holds a table's full log, extended as the game goes on, and
// the environment at its end (to extend it without replaying).
type logCache struct {
	mu    sync.Mutex
	steps []logStep
	e     *env.Env
}

// extend brings the log up to the history hist, replaying its new steps
// on the cached environment (reset with seed on first use).
func (lc *logCache) extend(spec *env.Spec, params env.Params, seed uint64, hist []step) ([]logStep, error) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.e == nil || len(lc.steps) > len(hist) {
		e, err := env.Make(spec.ID, params)
		if err != nil {
			return nil, err
		}
		e.Reset(seed)
		lc.e, lc.steps = e, nil
	}
	for _, h := range hist[len(lc.steps):] {
		words := h.Words
		if words == "" { // a dataset's episode: its steps carry no words
			words = moveWords(spec, params, lc.e.State(), h.Player, h.Action)
		}
		res, err := lc.e.Step(h.Action)
		if err != nil {
			return nil, err
		}
		lc.steps = append(lc.steps, logStep{h.Player, h.Action, words, publicWords(spec, params, h.Player, h.Action), slices.Clone(res.Rewards)})
	}
	return lc.steps[:len(hist)], nil
}

// logFor filters the full log for a viewer: open says every seat's moves
// and rewards are shown; else only those of the seats in own.
func logFor(spec *env.Spec, full []logStep, open bool, own func(int) bool, rs *research) []LogEntry {
	out := make([]LogEntry, len(full))
	for i, s := range full {
		le := LogEntry{Step: i, Player: s.player, Branch: i < rs.prefix}
		if open || own(s.player) {
			a := s.action
			le.A, le.Name, le.Words = &a, spec.ActionNames[a], s.words
		} else {
			le.Hidden, le.Words = true, s.public
		}
		any := false
		rw := make([]*float64, len(s.rewards))
		for k, r := range s.rewards {
			if open || own(k) {
				r := r
				rw[k] = &r
				any = any || r != 0
			}
		}
		if any {
			le.Rewards = rw
		}
		if open {
			if th := rs.thoughts[i]; th != nil {
				le.Thought, le.Unit = th, rs.units[i]
				le.Why = Explain(th, s.action, rs.units[i])
			}
		}
		out[i] = le
	}
	return out
}

// Explain says in one sentence why an agent chose action among its
// thoughts th (one entry per legal action, as in a table's status): an
// mcts's most-visited move (not the highest mean: a mean from few visits
// is noisy), a policy's probabilities, a heuristic's values. unit is what
// the values are. It returns "" when th says nothing about action.
func Explain(th []Action, action int, unit string) string {
	var chosen *Action
	for i := range th {
		if th[i].A == action {
			chosen = &th[i]
		}
	}
	if chosen == nil {
		return ""
	}
	best := func(key func(a *Action) (float64, bool)) *Action {
		var b *Action
		bv := math.Inf(-1)
		for i := range th {
			if v, ok := key(&th[i]); ok && v > bv {
				b, bv = &th[i], v
			}
		}
		return b
	}
	if unit == "" {
		unit = "value"
	}
	switch {
	case chosen.N != nil:
		total := 0
		for _, a := range th {
			if a.N != nil {
				total += *a.N
			}
		}
		mean := best(func(a *Action) (float64, bool) {
			return deref(a.V), a.V != nil && a.N != nil && *a.N > 0
		})
		s := fmt.Sprintf("mcts plays the move it searched most: %q, %d of %d simulations", chosen.Words, *chosen.N, total)
		if chosen.V != nil {
			s += fmt.Sprintf(" (mean %.3g)", *chosen.V)
		}
		if mean != nil && mean.A != chosen.A && mean.V != nil && chosen.V != nil && *mean.V > *chosen.V {
			s += fmt.Sprintf(". %q has a higher mean (%.3g) but from only %d simulations: a mean over few simulations is a noisy guess, "+
				"and the search gives more simulations to the moves that keep looking good, so the most-visited move is the surer choice",
				mean.Words, *mean.V, *mean.N)
		}
		return s + "."
	case chosen.P != nil:
		top := best(func(a *Action) (float64, bool) { return deref(a.P), a.P != nil })
		s := fmt.Sprintf("the policy gave %q probability %.3g", chosen.Words, *chosen.P)
		if top != nil && top.A != chosen.A {
			s += fmt.Sprintf("; its most probable move was %q (%.3g): a sampling policy draws its move at random with these probabilities", top.Words, *top.P)
		} else {
			s += ", its most probable move"
		}
		return s + "."
	case chosen.V != nil:
		top := best(func(a *Action) (float64, bool) { return deref(a.V), a.V != nil })
		s := fmt.Sprintf("the heuristic values %q at %.3g (%s)", chosen.Words, *chosen.V, unit)
		if top != nil && top.A != chosen.A {
			s += fmt.Sprintf("; %q has the highest value (%.3g): a tie broken at random or a random move", top.Words, *top.V)
		} else {
			s += ", its highest value"
		}
		return s + "."
	}
	return ""
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// historySeatLocked returns the view c gets of position step of the
// table's history (cur: the player to act there), per the leak rules
// above; an error when c is not at the table.
func (t *table) historySeatLocked(c *conn, step, cur int) (int, error) {
	watched, ok := t.watch[c]
	if !ok {
		return 0, &RequestError{Code: "not_at_table", Message: "open the game first (watch or join)"}
	}
	first := -1
	for k := range t.holder {
		if t.plays(c, k) {
			if k == cur {
				return k, nil
			}
			if first == -1 {
				first = k
			}
		}
	}
	if first != -1 {
		return first, nil
	}
	if t.humans() {
		if step == len(t.history) && !t.hidden() {
			return t.viewFor(c), nil // the final position, as live
		}
		return Public, nil
	}
	if watched == Public {
		return FaceUp, nil
	}
	return watched, nil
}

// positionView draws seat's view (a seat, Public or FaceUp) of st.
func positionView(spec *env.Spec, params env.Params, st env.State, seat int) (*View, error) {
	switch seat {
	case Public:
		return PublicView(spec, params, st)
	case FaceUp:
		return FaceUpView(spec, params, st)
	}
	return SeatView(spec, params, st, seat)
}

// historyOp answers op history: a table's (table, step) or a dataset
// episode's (dataset, episode: its log, every move shown, as its replay
// shows every card; the positions come from op replay).
func (h *Handler) historyOp(c *conn, r *request) (map[string]any, error) {
	if r.Dataset != "" || r.Episode != nil {
		if r.Episode == nil {
			return nil, missing("episode")
		}
		ep, err := h.loadEpisode(r.Dataset, *r.Episode)
		if err != nil {
			return nil, err
		}
		e, err := env.Make(ep.m.EnvID, ep.m.EnvParams)
		if err != nil {
			return nil, &RequestError{Code: "not_replayable", Message: err.Error()}
		}
		hist := make([]step, len(ep.actions))
		for i, a := range ep.actions {
			hist[i] = step{Player: ep.players[i], Action: a}
		}
		var lc logCache
		full, err := lc.extend(e.Spec(), e.Params(), ep.seed, hist)
		if err != nil {
			return nil, &RequestError{Code: "not_replayable", Message: err.Error()}
		}
		return map[string]any{"op": "history", "req": r.Req, "dataset": r.Dataset, "episode": *r.Episode, "env": ep.m.EnvID,
			"steps": len(hist), "prefix": 0, "log": logFor(e.Spec(), full, true, nil, &research{})}, nil
	}
	t, err := h.table(r.Table)
	if err != nil {
		return nil, err
	}
	return t.historyReply(c, r.Req, r.Step)
}

// historyReply answers op history for c: the log as c may see it and,
// when at is not nil, c's view of the position after *at steps (clamped
// to 0..steps played).
func (t *table) historyReply(c *conn, req string, at *int) (map[string]any, error) {
	t.mu.Lock()
	if _, ok := t.watch[c]; !ok {
		t.mu.Unlock()
		return nil, &RequestError{Code: "not_at_table", Message: "open the game first (watch or join)"}
	}
	spec, params, seed := t.e.Spec(), t.e.Params(), t.envSeedLocked()
	hist := slices.Clone(t.history)
	open := !t.humans()
	mine := make([]bool, spec.NumPlayers)
	for k := range mine {
		mine[k] = t.plays(c, k)
	}
	rs := &research{prefix: t.rs.prefix, thoughts: maps.Clone(t.rs.thoughts), units: maps.Clone(t.rs.units), from: t.rs.from}
	t.mu.Unlock()

	full, err := t.rs.log.extend(spec, params, seed, hist)
	if err != nil {
		return nil, &RequestError{Code: "error", Message: "replaying the table's history: " + err.Error()}
	}
	msg := map[string]any{"op": "history", "req": req, "table": t.id, "env": spec.ID, "steps": len(hist), "prefix": rs.prefix,
		"log": logFor(spec, full, open, func(k int) bool { return mine[k] }, rs)}
	if rs.from != nil {
		msg["from"], msg["from_words"] = rs.from, describeOrigin(rs.from)
	}
	if at == nil {
		return msg, nil
	}
	step := max(0, min(*at, len(hist)))
	e, err := env.Make(spec.ID, params)
	if err != nil {
		return nil, err
	}
	e.Reset(seed)
	for _, h := range hist[:step] {
		if _, err := e.Step(h.Action); err != nil {
			return nil, &RequestError{Code: "error", Message: "replaying the table's history: " + err.Error()}
		}
	}
	cur := e.CurrentPlayer()
	t.mu.Lock()
	seat, err := t.historySeatLocked(c, step, cur)
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	v, err := positionView(spec, params, e.State(), seat)
	if err != nil {
		return nil, &RequestError{Code: "no_view", Message: err.Error()}
	}
	msg["step"], msg["view"] = step, v
	if open {
		msg["returns"] = slices.Clone(e.Returns())
	}
	return msg, nil
}

// Origin is where "play from here" starts a new table: a position of a
// live table's history (Table) or of a dataset's episode (Dataset and
// Episode), after Step moves.
type Origin struct {
	Table   string `json:"table,omitempty"`
	Dataset string `json:"dataset,omitempty"`
	Episode *int64 `json:"episode,omitempty"`
	Step    int    `json:"step"`
}

// newTableFrom makes the table of a "new" request: a fresh deal, or, with
// from, a table that starts at from's position (the origin's environment
// and parameters; the lineup's env and params are replaced by the
// origin's) re-created by resetting the environment with the origin's
// seed and replaying its moves. The new table's agents are seeded from
// the lineup's seed as for any new table; its first moves are the
// origin's, marked in its log. It is never recorded (a recording replays
// every move with the lineup's agents, which did not make the origin's).
// Errors are *RequestError: hidden (the requester may not see the origin
// face up), game_over (the position is terminal), and those of a new
// table or a replay.
func (h *Handler) newTableFrom(c *conn, l Lineup, from *Origin) (*table, error) {
	if from == nil {
		return h.newTable(l)
	}
	var seed uint64
	var actions []int
	switch {
	case from.Table != "" && from.Dataset == "":
		o, err := h.table(from.Table)
		if err != nil {
			return nil, err
		}
		o.mu.Lock()
		_, at := o.watch[c]
		hid := o.humans()
		l.Env, l.Params = o.e.Spec().ID, map[string]any(o.e.Params())
		seed = o.envSeedLocked()
		n := max(0, min(from.Step, len(o.history)))
		for _, s := range o.history[:n] {
			actions = append(actions, s.Action)
		}
		o.mu.Unlock()
		if !at {
			return nil, &RequestError{Code: "not_at_table", Message: "open the game first (watch or join)"}
		}
		if hid {
			return nil, &RequestError{Code: "hidden", Message: "a person plays at that table: its positions hold cards that are not yours to see, so a new table cannot start from them (play from here works from tables with agents only, and from replays)"}
		}
	case from.Dataset != "" && from.Table == "" && from.Episode != nil:
		ep, err := h.loadEpisode(from.Dataset, *from.Episode)
		if err != nil {
			return nil, err
		}
		l.Env, l.Params, seed = ep.m.EnvID, ep.m.EnvParams, ep.seed
		actions = ep.actions[:max(0, min(from.Step, len(ep.actions)))]
	default:
		return nil, &RequestError{Code: "bad_request", Message: "from names a table, or a dataset and an episode, and a step"}
	}
	t, err := h.newTable(l)
	if err != nil {
		return nil, err
	}
	t.e.Reset(seed)
	for _, a := range actions {
		p := t.e.CurrentPlayer()
		words := moveWords(t.e.Spec(), t.e.Params(), t.e.State(), p, a)
		if _, err := t.e.Step(a); err != nil {
			return nil, &RequestError{Code: "not_replayable", Message: fmt.Sprintf("replaying the origin's moves: %v", err)}
		}
		t.lastOf[p] = len(t.history)
		t.history = append(t.history, step{Player: p, Action: a, Words: words})
	}
	if t.e.Done() {
		return nil, &RequestError{Code: "game_over", Message: "the game is over at that position: there is nothing to play from here"}
	}
	o := *from
	o.Step = len(actions)
	t.rs.branched, t.rs.envSeed, t.rs.from, t.rs.prefix = true, seed, &o, len(actions)
	return t, nil
}

// describeOrigin is an origin in words, for the page.
func describeOrigin(o *Origin) string {
	if o == nil {
		return ""
	}
	var b strings.Builder
	if o.Table != "" {
		fmt.Fprintf(&b, "table %s", o.Table)
	} else {
		fmt.Fprintf(&b, "%s episode %d", o.Dataset, *o.Episode)
	}
	fmt.Fprintf(&b, ", after %d moves", o.Step)
	return b.String()
}
