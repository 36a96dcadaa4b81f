"""The checks every environment class makes on what the caller passes, and
the errors they raise: the same for ``make`` and ``make_vec``.

- An action must be an integer (a Python int, a numpy integer or a 0-d or
  one-element integer array): ``3.7`` and ``"3"`` raise ``TypeError``.
- An integer outside the action space ``Discrete(n)`` (``-1``, ``999``) is a
  caller's bug, not a move: it raises :class:`ActionSpaceError` whatever
  ``illegal_action`` says, and nothing is sent or stepped. Only actions
  inside the space can be illegal moves (``illegal_action="terminate"``).
- A connection lost without a close frame while the server was needed
  becomes :class:`ServerGoneError`, which says how to get a server back.
"""

from __future__ import annotations

import operator
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from .errors import ConnectionClosedError, IllegalActionError

__all__ = ["ActionSpaceError", "ServerGoneError", "action_index", "check_actions", "server_gone"]


class ActionSpaceError(IllegalActionError):
    """An action outside the environment's action space ``Discrete(n)``
    (negative, or n and above). Raised by the client before anything is
    sent, in every ``illegal_action`` mode; the environment is unchanged.
    It is an :class:`IllegalActionError` (and so a ``ValueError``), so that
    code catching refused actions catches it too, but it never ends an
    episode the way an illegal move does under ``"terminate"``.

    Attributes: ``index`` (the environment's index in the batch) and
    ``action`` (the refused value), as for IllegalActionError.
    """

    code = "action_space"


class ServerGoneError(ConnectionClosedError):
    """The server stopped answering: the connection was lost without a close
    frame (the private local server exited or was killed, or the remote
    server or the network went down). The environment's episodes are lost
    with it; the message says how to get a server back (make the
    environment again: without ``url`` that starts a new private server)."""


def action_index(action: Any, n: int) -> int:
    """The integer action in ``[0, n)`` that action denotes.

    Raises TypeError for a non-integer (a float, a string, a float array)
    and ActionSpaceError for an integer outside ``Discrete(n)``."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iub":
        action = action.reshape(()).item()
    try:
        a = operator.index(action)
    except TypeError:
        raise TypeError(f"an action is an integer in [0, {n}), got {action!r} ({type(action).__name__})") from None
    if not 0 <= a < n:
        raise ActionSpaceError(f"action {a} is outside the action space Discrete({n})", index=0, action=a)
    return a


def check_actions(actions: Any, n: int, num_envs: int, ignored: NDArray[Any] | None = None) -> NDArray[Any]:
    """actions as an integer array of num_envs entries in ``[0, n)``.

    ignored (bool, (num_envs,)) marks the environments whose action is not
    played (an episode that just ended, reset by this step under NEXT_STEP
    autoreset): any integer is accepted there. Raises TypeError for a
    non-integer dtype, ValueError for a wrong shape and ActionSpaceError
    (with the first offending ``index``) for an action outside
    ``Discrete(n)``."""
    a = np.asarray(actions)
    if a.dtype.kind not in "iub":
        raise TypeError(f"actions must be integers in [0, {n}), got dtype {a.dtype}")
    if a.shape != (num_envs,):
        a = a.reshape(-1) if a.size == num_envs else a
        if a.shape != (num_envs,):
            raise ValueError(f"want {num_envs} actions, got shape {np.shape(actions)}")
    if a.dtype.kind != "b" and num_envs:
        bad = (a < 0) | (a >= n)
        if ignored is not None:
            bad &= ~ignored
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ActionSpaceError(f"environment {i}: action {int(a[i])} is outside the action space Discrete({n})",
                                   index=i, action=int(a[i]))
    return a


def server_gone(err: ConnectionClosedError, url: str, local: bool) -> NoReturn:
    """Raises err as a :class:`ServerGoneError` (from err) when the
    connection was lost without a close frame (close_code None), else
    re-raises err. url is the session's server; local says whether it was
    this process's private server. Call it in the except clause."""
    if err.close_code is not None or isinstance(err, ServerGoneError):
        raise err
    if local:
        how = ("the private galaxygym server this process started has exited or was killed. Make the "
               "environment again (galaxygym.make / make_vec / aec_env without url start a new private server)")
    else:
        how = (f"the server at {url} stopped answering (it exited, or the network is down). Start "
               "`galaxygym serve` again there and make the environment again")
    raise ServerGoneError(f"galaxygym: the server is gone: {how}; the episodes it held are lost ({err})",
                          close_code=None, reason=err.reason) from err
