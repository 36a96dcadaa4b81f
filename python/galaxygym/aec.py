"""A galaxygym environment with PettingZoo's AEC (agent environment cycle)
API, for turn-based games of any number of players."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray
from gymnasium import spaces
from pettingzoo import AECEnv

from .env import GalaxyGymEnv, spaces_from_spec

__all__ = ["GalaxyGymAECEnv", "agent_name"]


def agent_name(player: int) -> str:
    """The PettingZoo agent name of player index ``player``: ``"player_<i>"``."""
    return f"player_{player}"


class GalaxyGymAECEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """One environment served by ``galaxygym serve``, with the PettingZoo AEC API.

    Agents are ``"player_0"`` ... ``"player_<P-1>"`` (P = the spec's
    num_players; Galaxy Express has one). ``agent_selection`` is the player
    to act, as the server reports it. ``observe(agent)`` returns
    ``{"observation": uint8 array of the spec's obs_shape, "action_mask":
    int8 (A,)}``: the agent's own view of the table (asked of the server for
    an agent who is not the one to act), with the legal actions for the
    agent to act and an all-zero mask for every other agent and once the
    game is over. ``rewards`` are every agent's rewards of the last step
    (cooperative games reward the whole team); ``_cumulative_rewards`` (what
    ``last()`` returns) sum them since the agent last acted. When the
    episode ends every agent is terminated (or truncated, after the
    environment's turn limit) and, as PettingZoo requires, each must then
    step with ``None``. ``infos[agent]`` holds ``score``, ``outcome`` (the
    code, named by ``galaxygym.OUTCOMES``), ``steps``, ``current_player``
    and, once the episode is over, the agent's own ``player_score``,
    ``rank`` and ``player_outcome`` (code).

    An illegal action ends the game (with an IllegalActionWarning), the
    offender getting the spec's lowest reward, as in PettingZoo's classic
    games; ``illegal_action="raise"`` raises
    :class:`galaxygym.IllegalActionError` instead and changes nothing.

    ``action_features=True`` (a game that declares them, as for
    :class:`galaxygym.GalaxyGymEnv`) also puts the game's features of each
    action, uint8 (A, F), in ``infos[agent]["action_features"]`` of the
    agent to act (no other agent's info holds them), for a weights file of
    format version 5.

    ``flat=True`` makes the observation space the plain Box of the
    observation (what SuperSuit's wrappers and most PettingZoo trainers
    expect) and puts the mask in ``infos[agent]["action_mask"]`` instead.

    The environment pickles and deep-copies (the copy opens its own
    session and continues from the same position).

    Args:
        env_id: a registered environment id.
        url: the server's websocket URL (None: $GALAXYGYM_URL, else the
            process's private local server).
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (the
            server's page shows the game live; the URL is printed once and
            kept in ``watch_url``), as :class:`galaxygym.GalaxyGymEnv`.
        flat: observations are the bare uint8 arrays, masks in infos.
        token, timeout, illegal_action, illegal_action_reward,
            action_features: as for :class:`galaxygym.GalaxyGymEnv`.
        **params: the environment's parameters.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "galaxygym", "is_parallelizable": False}

    def __init__(self, env_id: str, url: str | None = None, render_mode: str | None = None, *,
                 flat: bool = False, **kwargs: Any):
        super().__init__()
        self.flat = bool(flat)
        self._env = GalaxyGymEnv(env_id, url=url, render_mode=render_mode, **kwargs)
        self.env_id = env_id
        self.metadata = {**self.metadata, "name": env_id}
        self.render_mode = render_mode
        #: render_mode "human": the page that shows the game live.
        self.watch_url = self._env.watch_url
        n = self._env.num_players
        self.possible_agents = [agent_name(i) for i in range(n)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space, act_space = spaces_from_spec(self._env.game_spec)
        num_actions = int(act_space.n)
        self._obs_box = obs_space
        self._obs_space: spaces.Space[Any] = obs_space if self.flat else spaces.Dict({
            "observation": obs_space,
            "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
        })
        self._act_space = act_space
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.agents: list[str] = []
        self._obs: NDArray[Any] | None = None  # the acting player's (or last actor's) observation
        self._mask: NDArray[np.int8] = np.zeros(num_actions, dtype=np.int8)
        self._actor = -1  # whose view _obs is
        self._no_mask: NDArray[np.int8] = np.zeros(num_actions, dtype=np.int8)

    @property
    def game_spec(self) -> dict[str, Any]:
        """The server's spec of the environment."""
        return self._env.game_spec

    @property
    def params(self) -> dict[str, Any]:
        """The resolved environment parameters."""
        return self._env.params

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Starts an episode: ``seed`` as for GalaxyGymEnv.reset; ``options``
        may hold ``state`` (a snapshot to start from). Other option keys are
        ignored with a warning (PettingZoo's api_test passes arbitrary ones)."""
        opts = dict(options or {})
        unknown = sorted(k for k in opts if k != "state")
        if unknown:
            warnings.warn(f"galaxygym: ignoring unknown reset options {unknown} (known: state)", stacklevel=2)
            opts = {k: v for k, v in opts.items() if k == "state"}
        obs, info = self._env.reset(seed=seed, options=opts or None)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._skip_agent_selection = None
        self._take(obs, info)
        self.infos = {a: self._public_info(info, self._index[a]) for a in self.agents}
        self.agent_selection = agent_name(max(info["current_player"], 0))
        self._actor_features(info)
        self._flat_masks()

    def _actor_features(self, info: dict[str, Any]) -> None:
        """action_features=True: the actor's features in its info only."""
        if "action_features" in info and self._actor >= 0:
            self.infos[agent_name(self._actor)]["action_features"] = info["action_features"]

    def _flat_masks(self) -> None:
        """flat=True: each agent's mask in its info (all zero but the actor's)."""
        if self.flat:
            for a in self.agents:
                self.infos[a]["action_mask"] = (self._mask if self._index[a] == self._actor
                                                else self._no_mask).copy()

    def _take(self, obs: NDArray[Any], info: dict[str, Any]) -> None:
        self._obs = obs
        self._mask = info["action_mask"]
        self._actor = int(info["current_player"])

    @staticmethod
    def _public_info(info: dict[str, Any], player: int = 0) -> dict[str, Any]:
        out = {"score": info["score"], "outcome": info["outcome"], "steps": info["steps"],
               "current_player": info["current_player"]}
        if info["ranks"][player] > 0:  # the episode is over
            out["player_score"] = float(info["scores"][player])
            out["rank"] = int(info["ranks"][player])
            out["player_outcome"] = int(info["outcomes"][player])
        return out

    def observe(self, agent: str) -> Any:
        if self._obs is None:
            raise RuntimeError("call reset() before observe()")
        player = self._index[agent]
        if player == self._actor or (self._actor < 0 and self._env.num_players == 1):
            obs = self._obs
        else:
            # Another player's view: ask the server (a control message, not the hot path).
            raw = self._env._session.request({"type": "observe", "index": 0, "player": player},
                                             expect="observation")["obs"]
            obs = np.asarray(raw, dtype=np.uint8).reshape(tuple(self._env.game_spec["obs_shape"]))
        if self.flat:
            return obs
        mask = self._mask if player == self._actor else self._no_mask
        return {"observation": obs, "action_mask": mask.copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations.get(agent, False) or self.truncations.get(agent, False):
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is alive: step needs an action, not None")
        self._cumulative_rewards[agent] = 0.0
        obs, _, terminated, truncated, info = self._env.step(action)
        rewards = info["rewards"]
        if info.get("illegal_action"):
            # illegal_action="terminate": the offender gets the penalty.
            rewards = np.zeros(len(self.possible_agents))
            rewards[self._index[agent]] = self._env.illegal_action_reward
        self.rewards = {a: float(rewards[self._index[a]]) for a in self.agents}
        self.infos = {a: self._public_info(info, self._index[a]) for a in self.agents}
        if info.get("illegal_action"):
            for a in self.agents:
                self.infos[a]["illegal_action"] = True
        if terminated or truncated:
            for a in self.agents:
                self.terminations[a] = bool(terminated)
                self.truncations[a] = bool(truncated) and not terminated
            self._obs = obs
            self._mask = self._no_mask
            # The view returned at the end is the last actor's.
            self._actor = self._index[agent]
            # Dead agents step with None in turn order, from the one who acted.
        else:
            self._take(obs, info)
            self.agent_selection = agent_name(self._actor)
            self._actor_features(info)
        self._flat_masks()
        self._accumulate_rewards()

    def render(self) -> Any:
        """The text board in render_mode "ansi", the picture in
        "rgb_array"; None otherwise."""
        return self._env.render()

    def state(self) -> dict[str, Any]:
        """The environment's snapshot (hidden information included), loadable
        with ``reset(options={"state": ...})``."""
        return self._env.get_state()

    def close(self) -> None:
        """Closes the session; safe to call more than once."""
        self._env.close()

    def __enter__(self) -> "GalaxyGymAECEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<GalaxyGymAECEnv {self.env_id} agents={self.possible_agents}>"
