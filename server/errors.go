package server

import (
	"errors"
	"fmt"

	"github.com/galaxygym/galaxygym/env"
)

// Code is the machine-readable code of an error reply (the "code" field of
// an error message). The table in docs/protocol.md lists every code.
type Code string

// Error codes. After an error reply the session's environments are exactly
// as they were before the offending message, and the session goes on,
// unless the code's comment says the connection is closed.
const (
	// CodeVersionMismatch: the hello's version is not [Version]; the server
	// then closes with 1002.
	CodeVersionMismatch Code = "version_mismatch"
	// CodeHandshakeRequired: a message other than hello came first; the
	// server then closes with 1002.
	CodeHandshakeRequired Code = "handshake_required"
	// CodeMalformed: a control message that is not valid JSON of the
	// documented shape, or a step request of the wrong size or N.
	CodeMalformed Code = "malformed_message"
	// CodeUnknownMessage: a control message of an unknown type.
	CodeUnknownMessage Code = "unknown_message"
	// CodeUnsupportedFrame: a binary frame that is not a step request; the
	// server then closes with 1003.
	CodeUnsupportedFrame Code = "unsupported_frame"
	// CodeUnknownEnv: make named an environment id that is not registered.
	CodeUnknownEnv Code = "unknown_env"
	// CodeBadParam: make passed an undeclared parameter or a bad value.
	CodeBadParam Code = "bad_param"
	// CodeBadRequest: a well-formed message with a bad value (num_envs < 1,
	// seeds or mask of the wrong length, an index out of range, an unknown
	// autoreset_mode).
	CodeBadRequest Code = "bad_request"
	// CodeTooManyEnvs: make asked for more environments than the server's
	// per-session maximum.
	CodeTooManyEnvs Code = "too_many_envs"
	// CodeNotMade: a reset, step, render, info or get_state before make.
	CodeNotMade Code = "not_made"
	// CodeNotReset: a step while some environment has never been reset.
	CodeNotReset Code = "not_reset"
	// CodeIllegalAction: an action out of range or masked out; the reply
	// names the first offending index and action. No environment is stepped.
	CodeIllegalAction Code = "illegal_action"
	// CodeEpisodeOver: in autoreset mode "disabled", a step of an
	// environment whose episode is over (reset it first). No environment is
	// stepped.
	CodeEpisodeOver Code = "episode_over"
	// CodeBadState: reset options carry a state that cannot be loaded.
	CodeBadState Code = "bad_state"
	// CodeTooManySessions: the server holds its maximum number of sessions,
	// or of sessions from the client's address; sent right after the
	// upgrade, then the server closes with 1013.
	CodeTooManySessions Code = "too_many_sessions"
	// CodeLimitExceeded: the reply would exceed the server's reply-size
	// limit ([Config.MaxReplyBytes]), or a make would exceed the session's
	// memory bound ([Config.MaxSessionBytes]). Ask for fewer environments
	// (render and info take "indices").
	CodeLimitExceeded Code = "limit_exceeded"
	// CodeCancelled: the server stopped the request before it took effect
	// because it is shutting down (the client, had it gone, sees nothing);
	// the session's environments are as they were before it.
	CodeCancelled Code = "cancelled"
	// CodeInternal: a server bug; the session's state is unspecified.
	CodeInternal Code = "internal"
)

// Error is a typed protocol error: what an error reply carries. Its Error
// method prefixes the message with "server: ".
type Error struct {
	Code    Code   // machine-readable code
	Message string // human-readable, without the "server: " prefix
	// Index is the offending environment's index, or -1.
	Index int
	// Action is the offending action when Code is CodeIllegalAction.
	Action int
}

// Error returns "server: CODE: MESSAGE".
func (e *Error) Error() string {
	return "server: " + string(e.Code) + ": " + e.Message
}

// Is reports whether target is an *Error of the same Code, so that
// errors.Is(err, &Error{Code: CodeIllegalAction}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Index: -1}
}

// fromEnvError maps an error of package env to a protocol error.
func fromEnvError(err error) *Error {
	var (
		unknown *env.UnknownEnvError
		param   *env.ParamError
		state   *env.StateError
		illegal *env.IllegalActionError
	)
	switch {
	case errors.As(err, &unknown):
		return errorf(CodeUnknownEnv, "unknown environment id %q (registered: %v)", unknown.ID, unknown.Known)
	case errors.As(err, &param):
		return errorf(CodeBadParam, "%s: parameter %q: %s", param.Env, param.Name, param.Reason)
	case errors.As(err, &state):
		return errorf(CodeBadState, "%s", err.Error())
	case errors.As(err, &illegal):
		e := errorf(CodeIllegalAction, "%s", err.Error())
		e.Action = illegal.Action
		return e
	case errors.Is(err, env.ErrEpisodeOver):
		return errorf(CodeEpisodeOver, "%s", err.Error())
	case errors.Is(err, env.ErrNotReset):
		return errorf(CodeNotReset, "%s", err.Error())
	}
	return errorf(CodeInternal, "%v", err)
}
