package env

import (
	"encoding/json"
	"fmt"
)

// PositionError reports text that is not a valid position notation of a
// game (see a game's notation.go). Error() reads "PKG: position: REASON",
// e.g. "galaxyexpress: position: want 48 board cells, got 3 tokens", so
// that the game's package prefixes it as every error of the module is.
type PositionError struct {
	Pkg    string // the game's package name, e.g. "galaxyexpress"
	Reason string
}

func (e *PositionError) Error() string { return e.Pkg + ": position: " + e.Reason }

// PositionErrorf returns a *PositionError of package pkg with the reason
// formatted as by fmt.Sprintf; a game's parser calls it through a one-line
// helper.
func PositionErrorf(pkg, format string, a ...any) error {
	return &PositionError{Pkg: pkg, Reason: fmt.Sprintf(format, a...)}
}

// positionJSON is the serialized form of a state whose position notation
// is complete (hidden information and the chance generator included).
type positionJSON struct {
	Position string `json:"position"`
}

// MarshalPosition returns the JSON form {"position": notation} of a state
// whose notation is complete: a game's State.MarshalJSON in one line,
//
//	func (s *State) MarshalJSON() ([]byte, error) { return env.MarshalPosition(s.Position()) }
func MarshalPosition(notation string) ([]byte, error) {
	return json.Marshal(positionJSON{notation})
}

// UnmarshalPosition reads the form MarshalPosition writes and parses the
// notation with parse: a game's Game.LoadState in one line,
//
//	return env.UnmarshalPosition(ID, data, func(text string) (State, error) { return ParsePosition(text, ...) })
//
// Errors are *StateError of environment id: Reason "malformed state" when
// data is not that JSON object (Err the decoder's error), "invalid
// position" when parse fails (Err parse's error, typically a
// *PositionError).
func UnmarshalPosition[S State](id string, data []byte, parse func(notation string) (S, error)) (State, error) {
	var j positionJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, &StateError{Env: id, Reason: "malformed state", Err: err}
	}
	s, err := parse(j.Position)
	if err != nil {
		return nil, &StateError{Env: id, Reason: "invalid position", Err: err}
	}
	return s, nil
}
