"""The learner's view of a multi-player game (docs/self-play.md): the make
fields that ask the server for it and the rewards it gives."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["learner_fields", "learner_rewards"]

_REWARDS = ("learner", "actor")


def learner_fields(params: dict[str, Any]) -> dict[str, Any]:
    """Pops ``opponents``, ``learner_seats``, ``seat_rule`` and ``rewards``
    from ``params`` (an environment's keyword arguments) and returns the
    make fields they ask for. ``rewards="learner"`` (the default) with
    neither opponents nor learner seats asks for every seat as a learner
    seat ("all"; a one-player game is then served as it is);
    ``rewards="actor"`` asks for none (the raw stepping of every seat)."""
    opponents = params.pop("opponents", None)
    seats = params.pop("learner_seats", None)
    rule = params.pop("seat_rule", None)
    rewards = params.pop("rewards", "learner")
    if rewards not in _REWARDS:
        raise ValueError(f"rewards={rewards!r}: want one of {_REWARDS}")
    if rewards == "actor":
        if opponents is not None or seats is not None or rule is not None:
            raise ValueError('rewards="actor" is the raw stepping of every seat: no opponents, learner_seats or seat_rule')
        return {}
    if isinstance(seats, (int, np.integer)):
        seats = [int(seats)]
    elif seats is not None and not isinstance(seats, str):
        seats = [int(k) for k in seats]
    if opponents is None and seats is None:
        seats = "all"
    if opponents is not None and not isinstance(opponents, str):
        opponents = [str(o) for o in opponents]
    return {"opponents": opponents, "learner_seats": seats, "seat_rule": rule}


def learner_rewards(r: Any, actor: NDArray[np.int32]) -> tuple[NDArray[np.float64], NDArray[np.int32]]:
    """The learner rewards of a step reply r in a session with the
    learner's view, and the seat each belongs to: the seat now to act, or,
    where the step ended the episode, ``actor`` (the seat that made the last
    decision, the current player before the step)."""
    done = r.terminated.astype(bool) | r.truncated.astype(bool)
    seat = np.where(done | (r.current_player < 0), actor, r.current_player).astype(np.int32)
    rows = np.arange(len(seat))
    rewards = np.where(seat >= 0, r.rewards[rows, np.maximum(seat, 0)], 0).astype(np.float64)
    return rewards, seat

