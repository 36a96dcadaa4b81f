package env

import (
	"errors"
	"fmt"
)

// ErrUnknownEnv is wrapped by [*UnknownEnvError]; test with errors.Is.
var ErrUnknownEnv = errors.New("env: unknown environment id")

// ErrIllegalAction is wrapped by [*IllegalActionError]; test with errors.Is.
var ErrIllegalAction = errors.New("env: illegal action")

// ErrEpisodeOver is returned by [Env.Step] after the episode terminated or
// was truncated, and before the next [Env.Reset].
var ErrEpisodeOver = errors.New("env: episode is over; call Reset")

// ErrNotReset is returned by [Env.Step] and [Env.Observe] before the first
// [Env.Reset] or state load.
var ErrNotReset = errors.New("env: environment has not been reset")

// UnknownEnvError reports an id that no registered game carries.
type UnknownEnvError struct {
	ID    string   // the id asked for
	Known []string // the registered ids, sorted
}

func (e *UnknownEnvError) Error() string {
	return fmt.Sprintf("env: unknown environment id %q (registered: %v)", e.ID, e.Known)
}

// Unwrap returns [ErrUnknownEnv].
func (e *UnknownEnvError) Unwrap() error { return ErrUnknownEnv }

// IllegalActionError reports an action outside [0, NumActions) or masked
// out in the current state. The environment is left exactly as it was.
type IllegalActionError struct {
	Env    string // environment id
	Action int    // the action that was refused
	Reason string // "out of range" or "not legal in this state"
}

func (e *IllegalActionError) Error() string {
	return fmt.Sprintf("env: %s: illegal action %d: %s", e.Env, e.Action, e.Reason)
}

// Unwrap returns [ErrIllegalAction].
func (e *IllegalActionError) Unwrap() error { return ErrIllegalAction }

// ParamError reports a parameter that the game does not declare, or a value
// of the wrong type or out of the declared range.
type ParamError struct {
	Env    string // environment id
	Name   string // parameter name
	Reason string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("env: %s: parameter %q: %s", e.Env, e.Name, e.Reason)
}

// ShapeError reports a caller buffer of the wrong length.
type ShapeError struct {
	What      string // "observation" or "action mask"
	Got, Want int    // lengths in bytes
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("env: %s buffer has %d bytes, want %d", e.What, e.Got, e.Want)
}

// PlayerError reports a player index outside [0, NumPlayers).
type PlayerError struct {
	Player, NumPlayers int
}

func (e *PlayerError) Error() string {
	return fmt.Sprintf("env: player %d out of range [0, %d)", e.Player, e.NumPlayers)
}

// StateError reports a serialized state that cannot be loaded: malformed
// JSON, another environment's state, or a position that breaks the rules'
// invariants.
type StateError struct {
	Env    string
	Reason string
	Err    error // the underlying decoding error, if any
}

func (e *StateError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("env: %s: bad state: %s: %v", e.Env, e.Reason, e.Err)
	}
	return fmt.Sprintf("env: %s: bad state: %s", e.Env, e.Reason)
}

// Unwrap returns the underlying decoding error.
func (e *StateError) Unwrap() error { return e.Err }
