"""A single galaxygym environment with the Gymnasium API."""

from __future__ import annotations

import json
import struct
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray
from gymnasium import spaces

from ._client import HEADER_SIZE, KIND_STEP_REPLY, Reply, Session
from ._actions import action_index, server_gone
from .errors import ConnectionClosedError, EpisodeOverError, IllegalActionError, NotResetError, ProtocolError

_I32 = struct.Struct("<i")

__all__ = ["GalaxyGymEnv", "IllegalActionWarning", "spaces_from_spec"]


class IllegalActionWarning(UserWarning):
    """Warned when an illegal action ends an episode under
    ``illegal_action="terminate"`` (the default)."""


def spaces_from_spec(spec: dict[str, Any]) -> tuple[spaces.Box, spaces.Discrete]:
    """The observation space (Box of uint8 with the spec's true upper
    bounds) and action space (Discrete) of one environment.

    A byte whose bound is 0 (always 0, as Pilots of Gallaxia's count of
    Rekkoning cards in a hand, which a hand never holds) gets the bound 1:
    Gymnasium's checker warns on every ``make`` about a Box whose low
    equals its high, and the observations still lie inside."""
    shape = tuple(int(d) for d in spec["obs_shape"])
    high = np.maximum(np.asarray(spec["obs_high"], dtype=np.uint8), 1).reshape(shape)
    obs_space = spaces.Box(low=np.zeros(shape, np.uint8), high=high, shape=shape, dtype=np.uint8)
    return obs_space, spaces.Discrete(len(spec["action_names"]))


def _state_option(state: Any) -> Any:
    if isinstance(state, (str, bytes)):
        return json.loads(state)
    return state


class GalaxyGymEnv(gym.Env):
    """One environment served by ``galaxygym serve``, with the Gymnasium API.

    ``reset(seed=None, options=None) -> (obs, info)`` and
    ``step(action) -> (obs, reward, terminated, truncated, info)``. The
    observation is a uint8 array of the spec's obs_shape, seen by the player
    to act (by the last player to act once the episode is over); the reward
    is that acting player's. ``info`` holds ``action_mask`` (int8, 1 for a
    legal action, usable as ``action_space.sample(mask=...)``),
    ``current_player`` (-1 once over), ``score``, ``outcome`` (the code: 0
    ongoing, 1 win, 2 loss, 3 draw, 4 truncated; ``galaxygym.OUTCOMES[code]``
    and the spec's ``outcome_names`` name it), ``steps``, ``rewards`` (every
    player's) and every player's result once the episode is over:
    ``scores`` (float64, (P,)), ``ranks`` (int32, 1 = best, ties share) and
    ``outcomes`` (uint8 codes: win, loss or draw); zeros while it runs.

    Reset options: ``{"state": snapshot}`` starts from a serialized state: a
    snapshot from :meth:`get_state` (or ``galaxygym`` Go's Env.MarshalJSON)
    or the game's own state JSON, as a dict or a JSON string.

    The environment pickles (and deep-copies): the copy opens its own
    session (on its own process's local server when url was not given),
    loads the same position and continues the same random generator.

    Args:
        env_id: a registered environment id, e.g. ``"galaxy-express-v1"``.
        url: the server's websocket URL; None (default): $GALAXYGYM_URL, else
            a private local server started from the packaged binary and
            stopped when the last environment using it closes.
        render_mode: None, ``"ansi"`` (render() returns the text board) or
            ``"rgb_array"`` (a uint8 (height, width, 3) picture drawn by the
            server's Go renderer of the game; Gymnasium's RecordVideo and
            HumanRendering take it) or ``"human"``: the server's browser page
            shows the position live, every card face up, read-only, at most
            10 times a second; the URL (with the session's watch key) is
            printed once to stderr and kept in ``watch_url``; no window is
            opened, so it works on a headless machine.
        token: bearer token (default $GALAXYGYM_TOKEN).
        timeout: seconds to wait for a reply.
        illegal_action: ``"terminate"`` (default, as PettingZoo's classic
            games do): an illegal action ends the episode: the step returns
            the unchanged observation, ``illegal_action_reward``,
            terminated=True and ``info["illegal_action"] = True``, with an
            :class:`IllegalActionWarning`; reset before stepping again. This
            is what lets Gymnasium's and SB3's ``check_env``, which step
            with unmasked ``action_space.sample()``, pass. ``"raise"`` (the
            strict mode, recommended when training with masks): an illegal
            action raises IllegalActionError and changes nothing.
        illegal_action_reward: the reward of an illegal action under
            ``"terminate"`` (default: the spec's minimum step reward).
        action_features: True: ``info["action_features"]`` also holds the
            game's features of each action for the observation, uint8
            (num_actions, F), named by ``action_feature_names`` (all zero
            once over), which a weights file of format version 5 reads
            (``galaxygym.policy_probs(file, obs, info["action_mask"],
            info["action_features"])``); for a game that declares them
            (Galaxy Express, Pilots of Gallaxia), else
            :class:`galaxygym.ServerError` ``bad_request``.
        **params: the environment's parameters (see ``galaxygym envs``).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(self, env_id: str, url: str | None = None, render_mode: str | None = None, *,
                 token: str | None = None, timeout: float | None = 60.0,
                 illegal_action: str = "terminate", illegal_action_reward: float | None = None,
                 action_features: bool = False, **params: Any):
        self._init_args: dict[str, Any] = dict(
            env_id=env_id, url=url, render_mode=render_mode, token=token, timeout=timeout,
            illegal_action=illegal_action, illegal_action_reward=illegal_action_reward,
            action_features=action_features, **params)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']} or None")
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action {illegal_action!r}: want 'raise' or 'terminate'")
        self._session = Session(url, token=token, timeout=timeout)
        self._local = bool(getattr(self._session, "_local", False))  # the private server: for ServerGoneError
        try:
            made = self._session.make(env_id, 1, params, autoreset_mode="disabled",
                                      action_features=True if action_features else None)
        except BaseException:
            self._session.close()
            raise
        self.env_id = env_id
        #: The server's spec of the environment (a dict; see docs/protocol.md).
        self.game_spec: dict[str, Any] = made["spec"]
        #: The resolved parameters, defaults included.
        self.params: dict[str, Any] = made["params"]
        self.num_players = int(self.game_spec["num_players"])
        self.action_names: list[str] = list(self.game_spec["action_names"])
        #: Names of the outcome codes of infos' outcome and outcomes (the spec's outcome_names).
        self.outcome_names: list[str] = list(self.game_spec["outcome_names"])
        self.observation_space, self.action_space = spaces_from_spec(self.game_spec)
        #: The names of info["action_features"]' F columns (empty unless action_features=True).
        self.action_feature_names: list[str] = [str(x) for x in made.get("action_feature_names") or []]
        self.render_mode = render_mode
        #: render_mode "human": the page that shows this environment live.
        self.watch_url: str | None = None
        if render_mode == "human":
            try:
                self.watch_url = self._session.announce_watch(0, env_id)
            except BaseException:
                self._session.close()
                raise
        self.illegal_action = illegal_action
        self.illegal_action_reward = float(
            self.game_spec["reward_range"][0] if illegal_action_reward is None else illegal_action_reward)
        self._over = False  # an illegal action ended the episode ("terminate")
        # The last reply, decoded: the step path reads one struct and two
        # arrays instead of going through Session.decode.
        self._obs: NDArray[Any] | None = None
        self._num_actions = len(self.action_names)
        self._mask: NDArray[np.int8] = np.zeros(self._num_actions, dtype=np.int8)
        self._player = -1
        self._fields: tuple[Any, ...] = ()
        lay = self._session.layout
        assert lay is not None
        self._obs_shape = self.observation_space.shape
        p = self.num_players
        # rewards f32[P], current_player i32, score f32, steps i32, scores
        # f32[P], ranks i32[P] (4-byte arrays, contiguous for N = 1), then
        # terminated, truncated, outcome u8 and outcomes u8[P].
        self._scalars = struct.Struct("<" + "f" * p + "ifi" + "f" * p + "i" * p + "BBB" + "B" * p)
        self._reply_prefix = self._session._reply_prefix(KIND_STEP_REPLY)
        self._reply_size = lay.size(0)
        self._obs_off, self._mask_off, self._obs_size = lay.obs, lay.mask, lay.obs_size
        self._feat_off, self._num_features = lay.action_features, lay.num_action_features
        self._feat: NDArray[np.uint8] | None = None

    # -- Gymnasium API -----------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[NDArray[Any], dict[str, Any]]:
        super().reset(seed=seed)
        opts = dict(options or {})
        state = opts.pop("state", None)
        if opts:
            raise ValueError(f"unknown reset options {sorted(opts)}; known: ['state']")
        if seed is None:
            seed = int(self.np_random.integers(0, 2**63))
        wire = {"state": _state_option(state)} if state is not None else None
        try:
            r = self._session.reset([int(seed)], options=wire)
        except ConnectionClosedError as e:
            server_gone(e, self._session.url, self._local)
        self._over = False
        self._set(r)
        assert self._obs is not None
        return self._obs, self._info()

    def step(self, action: Any) -> tuple[NDArray[Any], float, bool, bool, dict[str, Any]]:
        """Plays action (an integer in ``[0, n)``) for the player to act.

        Raises TypeError for a non-integer action (``3.7``, ``"3"``) and
        :class:`galaxygym.ActionSpaceError` for one outside the action space
        (``-1``, ``n``), in every mode; an illegal move inside the space ends
        the episode (``illegal_action="terminate"``) or raises
        IllegalActionError (``"raise"``). ServerGoneError: the server died."""
        if self._obs is None:
            raise NotResetError("call reset() before step()", code="not_reset")
        if self._over:
            raise EpisodeOverError("the episode ended with an illegal action; call reset()", code="episode_over")
        # Outside Discrete(n) or not an integer: a caller's bug, raised
        # whatever illegal_action says (ActionSpaceError, TypeError).
        a = action_index(action, self._num_actions)
        actor = self._player
        session = self._session
        try:
            data = session.roundtrip(session._hdr + _I32.pack(a))
        except ConnectionClosedError as e:
            server_gone(e, session.url, self._local)
        except IllegalActionError as e:
            if self.illegal_action != "terminate":
                raise
            self._over = True
            # One message per environment id, so that the default warnings
            # filter shows it once; the action and the reason are in info.
            warnings.warn(f"galaxygym: an illegal action ended a {self.env_id} episode with reward "
                          f"{self.illegal_action_reward} (info['error'] says which; illegal_action='raise' "
                          "raises instead)", IllegalActionWarning, stacklevel=2)
            info = self._info()
            info["illegal_action"] = True
            info["error"] = str(e)
            info["action_mask"] = np.zeros_like(info["action_mask"])
            if "action_features" in info:
                info["action_features"][:] = 0
            return self._obs.copy(), self.illegal_action_reward, True, False, info
        if len(data) != self._reply_size or data[:HEADER_SIZE] != self._reply_prefix:
            raise ProtocolError(f"unexpected step reply header {bytes(data[:HEADER_SIZE]).hex(' ')}")
        f = self._scalars.unpack_from(data, HEADER_SIZE)
        self._fields = f
        p = self.num_players
        self._player = f[p]
        obs = np.frombuffer(data, np.uint8, self._obs_size, self._obs_off)
        self._obs = obs if len(self._obs_shape) == 1 else obs.reshape(self._obs_shape)
        self._mask = np.frombuffer(data, np.int8, self._num_actions, self._mask_off)
        if self._num_features:
            self._feat = np.frombuffer(data, np.uint8, self._num_actions * self._num_features,
                                       self._feat_off).reshape(self._num_actions, self._num_features)
        reward = float(f[actor]) if actor >= 0 else 0.0
        # The observation is a writable view of this reply's own buffer,
        # which nothing reuses: no copy is needed.
        return self._obs, reward, f[3 * p + 3] == 1, f[3 * p + 4] == 1, self._info()

    def render(self) -> str | NDArray[Any] | None:
        """The text board in render_mode "ansi", the picture (uint8
        (height, width, 3)) in "rgb_array"; None otherwise (in "human" the
        page at ``watch_url`` follows every step by itself)."""
        if self.render_mode == "ansi":
            return self._session.render([0])[0]
        if self.render_mode == "rgb_array":
            return self._session.render_rgb([0])[0]
        return None

    def close(self) -> None:
        """Closes the session; safe to call more than once."""
        if getattr(self, "_session", None) is not None:
            self._session.close()
        super().close()

    # -- extras ------------------------------------------------------------

    def action_masks(self) -> NDArray[Any]:
        """The legal-action mask as a bool array (for MaskablePPO)."""
        if self._obs is None:
            raise NotResetError("call reset() before action_masks()", code="not_reset")
        if self._over:
            return np.zeros(self._num_actions, dtype=bool)
        return self._mask.astype(bool)

    def get_state(self) -> dict[str, Any]:
        """The environment's snapshot (hidden information included): pass it
        back as ``reset(options={"state": snapshot})``."""
        return self._session.get_state(0)

    def episode_info(self) -> dict[str, Any]:
        """The full episode info: outcome, score and every statistic."""
        return self._session.info([0])[0]

    @property
    def session(self) -> Session:
        """The underlying protocol session."""
        return self._session

    def _set(self, r: Reply) -> None:
        """Keeps a decoded reset reply as the current state."""
        p = self.num_players
        self._obs = r.obs[0]
        self._mask = r.mask[0].view(np.int8)
        self._feat = None if r.action_features is None else r.action_features[0]
        self._player = int(r.current_player[0])
        self._fields = (*r.rewards[0].tolist(), self._player, float(r.score[0]), int(r.steps[0]),
                        *r.scores[0].tolist(), *r.ranks[0].tolist(),
                        int(r.terminated[0]), int(r.truncated[0]), int(r.outcome[0]), *r.outcomes[0].tolist())
        assert len(self._fields) == 4 * p + 6

    def _info(self) -> dict[str, Any]:
        f, p = self._fields, self.num_players
        info: dict[str, Any] = {
            "action_mask": self._mask.copy(),
            "current_player": f[p],
            "score": float(f[p + 1]),
            "outcome": f[3 * p + 5],
            "steps": f[p + 2],
            "rewards": np.array(f[:p], dtype=np.float64),
            "scores": np.array(f[p + 3:2 * p + 3], dtype=np.float64),
            "ranks": np.array(f[2 * p + 3:3 * p + 3], dtype=np.int32),
            "outcomes": np.array(f[3 * p + 6:], dtype=np.uint8),
        }
        if self._feat is not None:
            info["action_features"] = self._feat.copy()
        return info

    def __repr__(self) -> str:
        return f"<GalaxyGymEnv {self.env_id} at {self._session.url}>"

    # -- pickling ------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        started = self._obs is not None and not self._session.closed
        return {
            "init": self._init_args,
            "state": self.get_state() if started and not self._over else None,
            "over": self._over,
            "np_random": self._np_random.bit_generator.state if self._np_random is not None else None,
        }

    def __setstate__(self, d: dict[str, Any]) -> None:
        init = dict(d["init"])
        self.__init__(init.pop("env_id"), **init)  # type: ignore[misc]
        if d["state"] is not None:
            self.reset(options={"state": d["state"]})
        if d["np_random"] is not None:
            self.np_random = np.random.Generator(getattr(np.random, d["np_random"]["bit_generator"])())
            self.np_random.bit_generator.state = d["np_random"]
