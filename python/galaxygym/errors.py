"""Exceptions raised by the galaxygym client.

Every exception derives from :class:`GalaxyGymError`. An error reply of the
server (docs/protocol.md, "Errors") becomes a :class:`ServerError` subclass
chosen by its code; after one, the server's environments are exactly as they
were before the request. A connection that cannot be opened, is refused or is
lost becomes a :class:`ConnectionClosedError` (or one of its subclasses); a
reply that breaks the protocol becomes a :class:`ProtocolError`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "GalaxyGymError",
    "ServerError",
    "IllegalActionError",
    "EpisodeOverError",
    "UnknownEnvError",
    "InvalidParamError",
    "BadRequestError",
    "BadStateError",
    "TooManyEnvsError",
    "TooManySessionsError",
    "NotResetError",
    "ProtocolError",
    "VersionMismatchError",
    "ConnectionClosedError",
    "AuthenticationError",
    "ServerTimeoutError",
    "SessionTimeoutError",
    "SessionDesyncError",
    "DeriveError",
    "error_from_reply",
]


class GalaxyGymError(Exception):
    """Base class of every galaxygym client error."""


class DeriveError(GalaxyGymError):
    """A compact dataset (``generate --observations none``) whose
    observations this build cannot derive: another environment version or
    parameters, a changed parameter default, or a recorded action this
    build's environment refuses or replays differently
    (``galaxygym.datasets.load``; docs/datasets.md, "Compact datasets").

    Attributes:
        message: the binary's message, naming the dataset and the mismatch.
        field: what differs, e.g. ``"env_id"``, ``"env_params"``,
            ``"env_spec.params"``, ``"action"``, ``"player"``, ``"rewards"``.
        episode, step: where a replay diverged, or None.
    """

    def __init__(self, message: str, field: str = "", episode: int | None = None, step: int | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.episode = episode
        self.step = step


class ServerError(GalaxyGymError):
    """An error reply from the server.

    Attributes:
        code: the protocol error code, e.g. ``"illegal_action"``.
        message: the server's message (it starts with ``"server: "``).
        index: the offending environment's index in the batch, or None.
        action: the refused action (``illegal_action`` only), or None.
    """

    code: str = ""

    def __init__(self, message: str, code: str | None = None, index: int | None = None,
                 action: int | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.index = index
        self.action = action


class IllegalActionError(ServerError, ValueError):
    """An action out of range or not legal in the current state; no
    environment was stepped."""

    code = "illegal_action"


class EpisodeOverError(ServerError):
    """A step of an environment whose episode is over (reset it first)."""

    code = "episode_over"


class NotResetError(ServerError):
    """A step before the environment was ever reset."""

    code = "not_reset"


class UnknownEnvError(ServerError, LookupError):
    """The environment id is not registered on the server."""

    code = "unknown_env"


class InvalidParamError(ServerError, ValueError):
    """An environment parameter is undeclared or has a bad value."""

    code = "bad_param"


class BadRequestError(ServerError, ValueError):
    """A request the server could not accept (bad sizes, indices, options,
    malformed or unknown messages)."""

    code = "bad_request"


class BadStateError(ServerError, ValueError):
    """A serialized state passed in reset options cannot be loaded."""

    code = "bad_state"


class TooManyEnvsError(ServerError, ValueError):
    """num_envs is above the server's per-session maximum."""

    code = "too_many_envs"


class TooManySessionsError(ServerError):
    """The server holds its maximum number of sessions; try again later."""

    code = "too_many_sessions"


class ProtocolError(GalaxyGymError):
    """The server's reply breaks the protocol (or the server closed the
    connection for a protocol violation of ours)."""


class VersionMismatchError(ProtocolError, ServerError):
    """The server speaks another protocol version."""

    code = "version_mismatch"


class ConnectionClosedError(GalaxyGymError, ConnectionError):
    """The connection could not be opened, or was closed or lost.

    Attributes:
        close_code: the websocket close code the server sent (1001 going
            away, 1002 protocol error, 1003 unsupported data, 1008 policy
            e.g. idle timeout, 1009 message too big, 1013 try again later),
            or None when the connection was lost without a close frame.
        reason: the close reason the server sent, or "".
    """

    def __init__(self, message: str, close_code: int | None = None, reason: str = ""):
        super().__init__(message)
        self.close_code = close_code
        self.reason = reason


class AuthenticationError(ConnectionClosedError, PermissionError):
    """The server refused the bearer token (HTTP 401) or the origin (403)."""


class ServerTimeoutError(GalaxyGymError, TimeoutError):
    """The server did not answer within the client's timeout."""


class SessionTimeoutError(ServerTimeoutError):
    """No reply to a request within the session's timeout; the session is
    now closed and cannot be used again.

    The request may still take effect on the server (a stalled server that
    resumes applies it), so the client neither resends it nor waits for a
    late reply: either would leave every later reply answering the wrong
    request. Recover by making new environments (``galaxygym.make`` or
    ``make_vec``; reset them from ``get_state`` snapshots taken earlier to go
    on from known positions), or pass a larger ``timeout=`` if the server is
    only slow.

    Attributes:
        request: what timed out, e.g. ``"step"`` or ``"reset"``.
        timeout: the timeout in seconds.
    """

    def __init__(self, message: str, request: str = "", timeout: float | None = None):
        super().__init__(message)
        self.request = request
        self.timeout = timeout


class SessionDesyncError(ProtocolError):
    """A reply answered another request than the one sent (its request id,
    docs/protocol.md "Request ids", differs); the session is now closed and
    cannot be used again. Make new environments to go on."""


_BY_CODE: dict[str, type[ServerError]] = {
    "illegal_action": IllegalActionError,
    "episode_over": EpisodeOverError,
    "not_reset": NotResetError,
    "unknown_env": UnknownEnvError,
    "bad_param": InvalidParamError,
    "bad_request": BadRequestError,
    "malformed_message": BadRequestError,
    "unknown_message": BadRequestError,
    "not_made": BadRequestError,
    "bad_state": BadStateError,
    "too_many_envs": TooManyEnvsError,
    "too_many_sessions": TooManySessionsError,
    "version_mismatch": VersionMismatchError,
    "handshake_required": VersionMismatchError,
}


def error_from_reply(reply: dict[str, Any]) -> ServerError:
    """Returns the exception for an error reply ``{"type": "error", ...}``."""
    code = str(reply.get("code", ""))
    cls = _BY_CODE.get(code, ServerError)
    return cls(str(reply.get("message", f"server: {code}")), code=code,
               index=reply.get("index"), action=reply.get("action"))
