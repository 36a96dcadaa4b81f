"""One environment of a multi-player game seen by a learner whose other
seats are played by built-in agents inside the server (docs/self-play.md).

>>> import galaxygym                                                        # doctest: +SKIP
>>> env = galaxygym.make("express-v2", players=4, opponents="heuristic")    # doctest: +SKIP
>>> obs, info = env.reset(seed=0)                                           # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray

from .vector import GalaxyGymVectorEnv

__all__ = ["OpponentsEnv"]


class OpponentsEnv(gym.Env[NDArray[np.uint8], np.int64]):
    """A Gymnasium ``Env`` whose every step is one of the learner's own
    decisions in a multi-player game; the other seats are played by
    built-in agents inside the server between two learner decisions.

    ``reward`` is everything the learner's player earned since its previous
    decision (the opponents' moves included), so the rewards of an episode
    sum to the learner's return. ``info``: ``action_mask`` (int8, (A,)),
    ``learner_seat`` (the seat the learner plays this episode; fixed, or
    rotated per episode with ``seat_rule="rotate"``), ``current_player``,
    ``rewards`` (every seat's reward delivered by the step, (P,)); once the
    episode is over also every player's ``scores``, ``ranks``,
    ``outcomes`` and ``returns`` (float64, (P,)).

    Args:
        env_id: a multi-player galaxygym id (``"express-v2"``).
        opponents: one agent spec for every other seat (``"heuristic"``,
            ``"random"``, ``"mcts@sims=64"``, ``"policy@weights=NAME"`` for a
            file of the folder the server serves with ``--weights``), or a
            list with one per opponent seat in seat order.
        learner_seat: the learner's seat (default 0).
        seat_rule: ``"fixed"`` (default) or ``"rotate"`` (the lineup rotated
            per episode, drawn from the episode's seed: over episodes the
            learner plays every seat).
        url, token, timeout: as :class:`galaxygym.GalaxyGymVectorEnv`.
        **params: environment parameters (``players=4``).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, env_id: str, opponents: str | list[str], learner_seat: int = 0, seat_rule: str = "fixed",
                 url: str | None = None, render_mode: str | None = None, **params: Any):
        self._venv = GalaxyGymVectorEnv(env_id, 1, url=url, autoreset_mode="disabled", render_mode=render_mode,
                                        opponents=opponents, learner_seats=[int(learner_seat)], seat_rule=seat_rule,
                                        **params)
        self.env_id = env_id
        self.render_mode = render_mode
        self.observation_space = self._venv.single_observation_space
        self.action_space = self._venv.single_action_space
        self.num_players = self._venv.num_players
        self.game_spec = self._venv.game_spec
        #: The lineup the server plays (learner_seats, lineup, seat_rule).
        self.opponents = self._venv.opponents
        self._seat = -1
        self._mask: NDArray[np.int8] = np.zeros(len(self._venv.action_names), dtype=np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[NDArray[np.uint8], dict[str, Any]]:
        super().reset(seed=seed)
        if options:
            raise ValueError("reset options (state, states) are not available with opponents")
        obs, infos = self._venv.reset(seed=None if seed is None else [int(seed)])
        self._seat = int(infos["current_player"][0])
        return obs[0], self._info(infos, done=False)

    def step(self, action: Any) -> tuple[NDArray[np.uint8], float, bool, bool, dict[str, Any]]:
        obs, rewards, term, trunc, infos = self._venv.step(np.asarray([action]))
        done = bool(term[0] or trunc[0])
        info = self._info(infos, done)
        if not done:
            self._seat = int(infos["current_player"][0])
        return obs[0], float(rewards[0]), bool(term[0]), bool(trunc[0]), info

    def action_masks(self) -> NDArray[np.bool_]:
        """bool (A,): the legal actions of the last observation."""
        return self._mask.astype(bool)

    def render(self) -> Any:
        frames = self._venv.render()
        return None if frames is None else frames[0]

    def close(self) -> None:
        self._venv.close()

    def _info(self, infos: dict[str, Any], done: bool) -> dict[str, Any]:
        self._mask = infos["action_mask"][0]
        info: dict[str, Any] = {"action_mask": self._mask, "current_player": int(infos["current_player"][0]),
                                "learner_seat": self._seat, "rewards": infos["rewards"][0]}
        if done:
            info["scores"] = infos["scores"][0]
            info["ranks"] = infos["ranks"][0]
            info["outcomes"] = infos["outcomes"][0]
            info["returns"] = np.asarray(self._venv.episode_info([0])[0]["returns"], dtype=np.float64)
        return info
