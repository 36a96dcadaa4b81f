package env

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Terminal is the value [State.CurrentPlayer] and [Env.CurrentPlayer] return
// once the episode is over.
const Terminal = -1

// Game is the pure rules of one game. Implementations are stateless values
// registered with [Register]; all episode state lives in a [State].
type Game interface {
	// Spec returns the game's immutable description.
	Spec() *Spec
	// NewState deals a new episode. Every random choice of the episode,
	// chance events during play included, derives from seed: the same seed
	// and params give the same episode, bit for bit.
	NewState(params Params, seed uint64) State
	// LoadState decodes a state written by State.MarshalJSON; it returns a
	// *StateError when data is malformed or breaks the rules' invariants.
	LoadState(params Params, data []byte) (State, error)
}

// ParamSpecer is implemented by a game whose description depends on its
// parameters beyond the standard `players` parameter (which [New] resolves
// for every game from MinPlayers and MaxPlayers). SpecFor
// returns the (immutable, shared) spec of an environment made with the
// resolved parameters p; it differs from Spec() only in NumPlayers,
// Description and the bounds that depend on them, never in the id, the
// actions, the observation shape or the parameter list. [New] uses it, so
// Env.Spec() is always the spec of that environment; Game.Spec() describes
// the defaults.
type ParamSpecer interface {
	SpecFor(p Params) *Spec
}

// State is one position of a game together with everything needed to go on
// from it (the chance generator included). Methods other than Apply,
// Truncate and UnmarshalJSON never modify the state.
type State interface {
	// CurrentPlayer returns the player to act, or Terminal.
	CurrentPlayer() int
	// LegalMask writes 1 into dst[a] for every legal action a and 0
	// elsewhere (len(dst) == NumActions) and returns the number of legal
	// actions; it is 0 exactly when the state is terminal.
	LegalMask(dst []uint8) int
	// Apply plays action, which the caller has checked is legal, and adds
	// each player's reward for the step into rewards (len NumPlayers).
	Apply(action int, rewards []float64)
	// Terminal reports whether the game has ended by its rules.
	Terminal() bool
	// Turn returns the number of turns completed, the clock that the
	// max_turns parameter truncates on.
	Turn() int
	// Truncate adds into rewards whatever the rules pay when an episode
	// ends early (at truncation), so that returns still equal the score.
	Truncate(rewards []float64)
	// Observe writes player's observation into dst (len ObsSize). It shows
	// only what that player can see at the table.
	Observe(player int, dst []uint8)
	// Info fills dst with the episode's running statistics; dst.Stats and
	// dst.Labels are reused (appended to from length 0) to avoid allocation.
	Info(dst *Info)
	// Clone returns an independent deep copy.
	Clone() State
	// String renders the position as readable text (the "ansi" render).
	String() string
	// MarshalJSON serializes the full state, hidden information and the
	// chance generator included, so that LoadState can resume it exactly.
	MarshalJSON() ([]byte, error)
}

// ReturnsEarner is implemented by a State that alone determines the
// returns of an episode dealt by Reset (turn 0) that reached it: Express's
// returns are its totals, Galaxy Express's its score, Galaxy Fighters' and
// Pilots of Gallaxia's (without shaping) the outcome or the countdown
// points. EarnedReturns writes
// each player's return into dst (len NumPlayers); truncated says whether
// the episode was cut by max_turns (Truncate has paid). It returns false,
// dst unspecified, when the state does not determine them (a parameter
// setting whose rewards depend on the path). [Env.Load] refuses a snapshot
// of an episode begun at turn 0 whose returns are not those its state has
// earned, so that returns loaded with an ongoing episode stay the ones its
// play can continue from: a snapshot Load accepts and its Env then plays
// on always loads back.
type ReturnsEarner interface {
	EarnedReturns(truncated bool, dst []float64) bool
}

// ActionNamer is implemented by a State whose actions are relative to the
// player to act (Express names target players by seat offset): ActionName
// returns the name of action in this position for a person reading the
// game, naming players by absolute seat. It is optional; [Env.ActionName]
// falls back to Spec.ActionNames, which stay the fixed names of the action
// space.
type ActionNamer interface {
	ActionName(action int) string
}

// Outcome is how an episode, or one player's part in it, ended. Its codes
// are stable: the server's outcome arrays, the Python client's infos and the
// spec's outcome_names use them (code i is named OutcomeNames()[i]).
type Outcome uint8

// The outcomes.
const (
	OutcomeOngoing   Outcome = 0 // the episode is running
	OutcomeWin       Outcome = 1
	OutcomeLoss      Outcome = 2
	OutcomeDraw      Outcome = 3
	OutcomeTruncated Outcome = 4 // the episode was cut by max_turns (episode level only)
)

// outcomeNames names the outcome codes: outcomeNames[o] == o.String().
var outcomeNames = [...]string{"ongoing", "win", "loss", "draw", "truncated"}

// OutcomeNames returns a new slice naming the outcome codes, index = code:
// OutcomeNames()[o] == o.String(). Every Spec's OutcomeNames holds its own
// copy of the same names.
func OutcomeNames() []string { return slices.Clone(outcomeNames[:]) }

// String returns the outcome's name ("ongoing", "win", "loss", "draw",
// "truncated"), or "outcome(N)" for a code outside them.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// ParseOutcome returns the outcome named s (see [Outcome.String]); the empty
// string, the pre-code name of an ongoing episode, reads as OutcomeOngoing.
func ParseOutcome(s string) (Outcome, bool) {
	if s == "" {
		return OutcomeOngoing, true
	}
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), true
		}
	}
	return 0, false
}

// Info is the per-episode summary a step carries: the outcome once the
// episode is over, the game's score, every player's result, and named
// statistics.
type Info struct {
	// Outcome is OutcomeOngoing until the episode ends, then the episode's
	// outcome: OutcomeWin, OutcomeLoss or OutcomeDraw as the game reports it
	// (for a solitaire or cooperative game, the team's; for a competitive
	// game, OutcomeDraw when the best rank is shared and OutcomeWin
	// otherwise), or OutcomeTruncated.
	Outcome Outcome
	// Score is the game's own episode-level score (for Galaxy Express, the
	// printed rules' score; for a competitive game, the best player's).
	Score float64
	// Scores, Outcomes and Ranks hold every player's result, index = player,
	// once the episode is over (len NumPlayers); they are empty (len 0)
	// while it runs. Scores are the game's own per-player scores; Outcomes
	// are OutcomeWin, OutcomeLoss or OutcomeDraw per player (never
	// truncated: a truncated episode reports the result the position
	// stands at, as the game defines it); Ranks are 1 for the best, and
	// tied players share a rank (competition ranking: 1, 1, 3).
	Scores   []float64
	Outcomes []Outcome
	Ranks    []int
	// Stats are numeric statistics in a fixed order per game
	// (e.g. deliveries, refuels).
	Stats []Stat
	// Labels are string statistics in a fixed order per game (e.g. rating).
	Labels []Label
}

// SetTeamResult records one result shared by all n players, as a solitaire
// or cooperative game ends: every player scores score, has outcome o and
// rank 1. It sets the episode's Outcome and Score too, and reuses the
// slices' storage.
func (in *Info) SetTeamResult(n int, o Outcome, score float64) {
	in.Outcome, in.Score = o, score
	in.Scores, in.Outcomes, in.Ranks = in.Scores[:0], in.Outcomes[:0], in.Ranks[:0]
	for range n {
		in.Scores = append(in.Scores, score)
		in.Outcomes = append(in.Outcomes, o)
		in.Ranks = append(in.Ranks, 1)
	}
}

// RankByScore records a competitive result where the highest score wins:
// Scores is a copy of scores; a player's rank is 1 + the number of players
// with a strictly higher score (ties share a rank); the players of rank 1
// win if one alone holds it and draw if several share it; everyone else
// loses. The episode's Outcome is OutcomeWin (a single winner) or
// OutcomeDraw (a shared first place) and Score the best score. It reuses
// the slices' storage.
func (in *Info) RankByScore(scores []float64) {
	in.Scores = append(in.Scores[:0], scores...)
	in.Outcomes, in.Ranks = in.Outcomes[:0], in.Ranks[:0]
	best, top := 0.0, 0
	for i, s := range scores {
		r := 1
		for _, t := range scores {
			if t > s {
				r++
			}
		}
		in.Ranks = append(in.Ranks, r)
		if r == 1 {
			top++
			best = scores[i]
		}
	}
	for _, r := range in.Ranks {
		switch {
		case r > 1:
			in.Outcomes = append(in.Outcomes, OutcomeLoss)
		case top > 1:
			in.Outcomes = append(in.Outcomes, OutcomeDraw)
		default:
			in.Outcomes = append(in.Outcomes, OutcomeWin)
		}
	}
	in.Outcome, in.Score = OutcomeWin, best
	if top > 1 {
		in.Outcome = OutcomeDraw
	}
}

// reset empties dst for a new fill, keeping its storage.
func (in *Info) reset() {
	in.Outcome, in.Score = OutcomeOngoing, 0
	in.Scores, in.Outcomes, in.Ranks = in.Scores[:0], in.Outcomes[:0], in.Ranks[:0]
	in.Stats, in.Labels = in.Stats[:0], in.Labels[:0]
}

// Stat is one named numeric statistic.
type Stat struct {
	Name  string
	Value float64
}

// Label is one named string statistic.
type Label struct {
	Name, Value string
}

// Stat returns the named statistic and whether it is present.
func (in *Info) Stat(name string) (float64, bool) {
	for _, s := range in.Stats {
		if s.Name == name {
			return s.Value, true
		}
	}
	return 0, false
}

// Label returns the named label and whether it is present.
func (in *Info) Label(name string) (string, bool) {
	for _, l := range in.Labels {
		if l.Name == name {
			return l.Value, true
		}
	}
	return "", false
}

// MarshalJSON writes one flat object: outcome, score, the per-player
// results once present, then the stats and the labels in their fixed
// order, e.g. {"outcome":"win","score":109,"deliveries":6,"refuels":2,
// "rating":"..."}, or for a finished competitive game
// {"outcome":"win","score":131,"scores":[131,96],"outcomes":["win","loss"],
// "ranks":[1,2],...}. An ongoing episode's outcome is written "ongoing".
func (in Info) MarshalJSON() ([]byte, error) {
	return in.AppendJSON(nil), nil
}

// AppendJSON appends the MarshalJSON form to b.
func (in *Info) AppendJSON(b []byte) []byte {
	b = append(b, `{"outcome":`...)
	b = appendString(b, in.Outcome.String())
	b = append(b, `,"score":`...)
	b = appendNumber(b, in.Score)
	if len(in.Scores) > 0 {
		b = append(b, `,"scores":[`...)
		for i, s := range in.Scores {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendNumber(b, s)
		}
		b = append(b, `],"outcomes":[`...)
		for i, o := range in.Outcomes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, o.String())
		}
		b = append(b, `],"ranks":[`...)
		for i, r := range in.Ranks {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(r), 10)
		}
		b = append(b, ']')
	}
	for _, s := range in.Stats {
		b = append(b, ',')
		b = appendString(b, s.Name)
		b = append(b, ':')
		b = appendNumber(b, s.Value)
	}
	for _, l := range in.Labels {
		b = append(b, ',')
		b = appendString(b, l.Name)
		b = append(b, ':')
		b = appendString(b, l.Value)
	}
	return append(b, '}')
}

// UnmarshalJSON reads the flat form back; unknown numeric keys become
// Stats and unknown string keys Labels, in sorted key order.
func (in *Info) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*in = Info{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		raw := m[k]
		switch k {
		case "outcome":
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return err
			}
			o, ok := ParseOutcome(s)
			if !ok {
				return fmt.Errorf("env: info: unknown outcome %q", s)
			}
			in.Outcome = o
		case "score":
			if err := json.Unmarshal(raw, &in.Score); err != nil {
				return err
			}
		case "scores":
			if err := json.Unmarshal(raw, &in.Scores); err != nil {
				return err
			}
		case "ranks":
			if err := json.Unmarshal(raw, &in.Ranks); err != nil {
				return err
			}
		case "outcomes":
			var names []string
			if err := json.Unmarshal(raw, &names); err != nil {
				return err
			}
			for _, s := range names {
				o, ok := ParseOutcome(s)
				if !ok {
					return fmt.Errorf("env: info: unknown outcome %q", s)
				}
				in.Outcomes = append(in.Outcomes, o)
			}
		default:
			if strings.HasPrefix(strings.TrimSpace(string(raw)), `"`) {
				var s string
				if err := json.Unmarshal(raw, &s); err != nil {
					return err
				}
				in.Labels = append(in.Labels, Label{k, s})
			} else {
				var f float64
				if err := json.Unmarshal(raw, &f); err != nil {
					return err
				}
				in.Stats = append(in.Stats, Stat{k, f})
			}
		}
	}
	return nil
}

// appendString appends s as a JSON string: printable ASCII as it is, and
// anything else (quotes, backslashes, control characters, non-ASCII) as
// encoding/json escapes it. strconv.AppendQuote, used before, writes Go
// syntax (\x00 is not JSON) and took 0.54 µs for the five strings of a
// Galaxy Express info against 0.09 µs for the whole object now, once per
// episode of every generated dataset (BenchmarkInfoAppendJSON).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendNumber(b []byte, f float64) []byte {
	if f == float64(int64(f)) {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
