"""galaxygym: Gymnasium environments for tabletop games, served over
websockets by ``galaxygym serve`` (the Go server; protocol in
docs/protocol.md).

>>> import galaxygym
>>> env = galaxygym.make("galaxy-express-v1")            # doctest: +SKIP
>>> obs, info = env.reset(seed=0)                        # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step(
...     env.action_space.sample(mask=info["action_mask"]))  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from gymnasium.vector import AutoresetMode

from ._client import DEFAULT_URL, OUTCOMES, PROTOCOL_VERSION, Layout, Reply, Session, episode_seed
from ._actions import ActionSpaceError, ServerGoneError
from .env import GalaxyGymEnv, IllegalActionWarning
from .policy import export_policy, load_policy, policy_probs, policy_value
from .errors import (
    AuthenticationError,
    BadRequestError,
    BadStateError,
    ConnectionClosedError,
    EpisodeOverError,
    GalaxyGymError,
    IllegalActionError,
    InvalidParamError,
    NotResetError,
    ProtocolError,
    ServerError,
    ServerTimeoutError,
    SessionDesyncError,
    SessionTimeoutError,
    TooManyEnvsError,
    TooManySessionsError,
    UnknownEnvError,
    VersionMismatchError,
)
from .vector import GalaxyGymVectorEnv
from .aec import GalaxyGymAECEnv
from . import play  # noqa: E402  (galaxygym.play.connect: a Python agent at a page table)

__version__ = "0.1.0"

from ._registration import gym_id, register_envs  # noqa: E402

#: The Gymnasium ids registered at import ("galaxygym/GalaxyExpress-v1", ...).
GYM_IDS = register_envs()

__all__ = [
    "make", "make_vec", "evaluate", "league", "list_envs", "episode_seed", "export_policy", "load_policy", "policy_probs", "policy_value",
    "aec_env", "gym_id", "register_envs", "GYM_IDS", "GalaxyGymEnv", "GalaxyGymVectorEnv", "GalaxyGymAECEnv", "Session", "Layout", "Reply",
    "DEFAULT_URL", "OUTCOMES", "PROTOCOL_VERSION",
    "GalaxyGymError", "IllegalActionWarning", "ServerError", "IllegalActionError", "ActionSpaceError", "ServerGoneError", "EpisodeOverError", "NotResetError",
    "UnknownEnvError", "InvalidParamError", "BadRequestError", "BadStateError", "TooManyEnvsError",
    "TooManySessionsError", "ProtocolError", "VersionMismatchError", "ConnectionClosedError",
    "AuthenticationError", "ServerTimeoutError", "SessionTimeoutError", "SessionDesyncError",
]


def make(env_id: str, url: str | None = None, render_mode: str | None = None, **params: Any) -> Any:
    """One environment with the Gymnasium Env API; see :class:`GalaxyGymEnv`
    (its keyword arguments token, timeout, illegal_action and
    illegal_action_reward are accepted here too; any other keyword is an
    environment parameter). Without url (and without $GALAXYGYM_URL) the
    environment runs on this process's private local server.

    With ``opponents`` (an agent spec such as ``"heuristic"``, or one per
    other seat) a multi-player game's other seats are played by built-in
    agents inside the server: an :class:`galaxygym.opponents.OpponentsEnv`
    whose every step is one of the learner's decisions (keywords
    ``learner_seat`` and ``seat_rule``; docs/self-play.md)."""
    if params.get("opponents") is not None:
        from .opponents import OpponentsEnv
        return OpponentsEnv(env_id, url=url, render_mode=render_mode, **params)
    return GalaxyGymEnv(env_id, url=url, render_mode=render_mode, **params)


def make_vec(env_id: str, num_envs: int, url: str | None = None,
             autoreset_mode: str | AutoresetMode = "next_step", **params: Any) -> GalaxyGymVectorEnv:
    """num_envs environments on one connection with the Gymnasium VectorEnv
    API; see :class:`GalaxyGymVectorEnv` (its keyword arguments render_mode,
    copy, token, timeout, action_features, and for a multi-player game opponents,
    learner_seats, seat_rule and rewards, are accepted here too)."""
    return GalaxyGymVectorEnv(env_id, num_envs, url=url, autoreset_mode=autoreset_mode, **params)


def evaluate(policy: Any, env_id: str, seats: Any = None, episodes: int = 100, **kwargs: Any) -> Any:
    """Plays a Python policy (obs, mask -> action) against built-in agents;
    see :func:`galaxygym.evaluation.evaluate`."""
    from .evaluation import evaluate as _evaluate
    return _evaluate(policy, env_id, seats=seats, episodes=episodes, **kwargs)


def league(policy: Any, env_id: str, pool: Any = ("heuristic", "random"), deals: int = 20,
           players: int | None = None, **kwargs: Any) -> Any:
    """Rates a Python policy (obs, mask -> action) in a league with Go
    agents (``galaxygym eval --league ... --games FILE``); see
    :func:`galaxygym._league.league`."""
    from ._league import league as _league
    return _league(policy, env_id, pool=pool, deals=deals, players=players, **kwargs)


def aec_env(env_id: str, url: str | None = None, render_mode: str | None = None, **params: Any) -> GalaxyGymAECEnv:
    """One environment with the PettingZoo AEC API (a ``pettingzoo.AECEnv``;
    agents ``"player_0"`` ...); see :class:`GalaxyGymAECEnv`. Works for every
    environment, one player or many, so one client loop fits all.
    ``flat=True``: Box observations, masks in ``infos`` (for SuperSuit)."""
    return GalaxyGymAECEnv(env_id, url=url, render_mode=render_mode, **params)


def list_envs(url: str | None = None, token: str | None = None) -> list[dict[str, Any]]:
    """The specs of the environments the server at url offers."""
    with Session(url, token=token) as s:
        return s.list_envs()
