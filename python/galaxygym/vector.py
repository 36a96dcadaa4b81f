"""A batch of galaxygym environments on one connection, with Gymnasium's
VectorEnv API."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ._actions import check_actions, server_gone
from ._client import Reply, Session
from .errors import ConnectionClosedError
from .env import _state_option, spaces_from_spec
from ._learner import learner_fields, learner_rewards

__all__ = ["GalaxyGymVectorEnv"]

_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}


def _mode_name(mode: str | AutoresetMode) -> str:
    if isinstance(mode, AutoresetMode):
        return {v: k for k, v in _MODES.items()}[mode]
    name = str(mode).lower().replace("-", "_")
    name = {"nextstep": "next_step", "samestep": "same_step"}.get(name, name)
    if name not in _MODES:
        raise ValueError(f"autoreset_mode {mode!r} is not one of {list(_MODES)} or a gymnasium AutoresetMode")
    return name


class GalaxyGymVectorEnv(VectorEnv):
    """``num_envs`` environments of one id, stepped in one binary round trip.

    Gymnasium VectorEnv semantics: ``reset(seed=None, options=None) -> (obs,
    infos)`` and ``step(actions) -> (obs, rewards, terminations, truncations,
    infos)`` with batched arrays; ``metadata["autoreset_mode"]`` is the
    gymnasium AutoresetMode chosen (NEXT_STEP by default). ``infos`` is a
    dict of arrays, each key with a ``_key`` bool mask: ``action_mask``
    (int8, (N, A)), ``current_player``, ``score``, ``outcome`` (uint8
    codes, named by ``galaxygym.OUTCOMES`` and the spec's ``outcome_names``),
    ``steps``, ``rewards`` (every player's, (N, P)) and every player's result
    once the episode is over, zeros while it runs: ``scores`` (float32,
    (N, P)), ``ranks`` (int32, (N, P), 1 = best) and ``outcomes`` (uint8
    codes, (N, P)). Every value is numeric, so that
    ``gymnasium.wrappers.vector.NumpyToTorch`` converts them. In SAME_STEP
    mode also ``final_obs`` (object array) and ``final_info`` (score,
    outcome, steps, scores, ranks, outcomes) for the environments whose
    episode ended in the step.

    Rewards (docs/self-play.md): on a multi-player game the default
    (``rewards="learner"``) is the learner's view served by the server:
    ``rewards[i]`` is the reward of ``infos["learner_seat"][i]``, the seat
    now to act in environment i (or, on the step that ends its episode, the
    seat that made the last decision), earned since that seat's previous
    decision, the other players' moves included; ``infos["rewards"]`` (N, P)
    holds every seat's reward delivered by the step: at the end of an
    episode every seat's reward since its last decision (an opponent's: its
    whole return). Summed over an episode, a seat's column of
    ``infos["rewards"]`` is that player's return, and so is the sum of
    ``rewards[i]`` over the steps whose ``learner_seat`` is that seat plus
    its final entry. Keywords ``opponents`` (an agent spec such as
    ``"heuristic"`` or ``"mcts@sims=64"``, or one per opponent seat),
    ``learner_seats`` (a list of seats, default [0] with opponents; without
    opponents "all", every seat is a learner: self-play in one batch) and
    ``seat_rule`` ("fixed" or "rotate": the lineup rotated per episode, from
    the episode's seed) put built-in agents in the other seats: they play
    inside the server between two learner decisions, and every step is one
    of the learners' own decisions. ``rewards="actor"`` keeps the raw
    stepping of every seat: ``rewards[i]`` is then the reward of the player
    who acted in environment i, ``infos["rewards"]`` every player's reward
    of that step.

    reset: ``seed`` an int seeds env i with seed + i, a list seeds each env
    (None: that env goes on with its seed chain), None continues every
    env's chain (deterministic after a seeded reset; see docs/protocol.md).
    Options: ``reset_mask`` (bool (N,): reset only those, as Gymnasium's
    DISABLED mode needs), ``state`` (one snapshot for every env reset) or
    ``states`` (a list of N snapshots or None).

    Args:
        env_id: a registered environment id.
        num_envs: the batch size N.
        url: the server's websocket URL; None: $GALAXYGYM_URL, else the
            process's private local server (see :class:`GalaxyGymEnv`).
        autoreset_mode: "next_step", "same_step", "disabled" or an
            AutoresetMode.
        render_mode: None, "ansi" (render() returns one board per env),
            "rgb_array" (one picture per env) or "human" (the server's page
            shows environment 0 live; its URL is printed once and kept in
            ``watch_url``).
        copy: observations and infos are always fresh arrays that no later
            step overwrites (writable views into that step's received frame),
            so the default False copies nothing; True copies every array so
            that each owns its memory.
        token: bearer token (default $GALAXYGYM_TOKEN).
        timeout: seconds to wait for a reply.
        action_features: True: ``infos["action_features"]`` also holds the
            game's features of each action for each observation, uint8
            (N, num_actions, F), named by ``action_feature_names`` (see
            :class:`GalaxyGymEnv`); for a game that declares them.
        **params: the environments' parameters.
    """

    def __init__(self, env_id: str, num_envs: int, url: str | None = None,
                 autoreset_mode: str | AutoresetMode = "next_step", render_mode: str | None = None, *,
                 copy: bool = False, token: str | None = None, timeout: float | None = 60.0,
                 action_features: bool = False, **params: Any):
        if render_mode not in (None, "ansi", "rgb_array", "human"):
            raise ValueError(f"render_mode {render_mode!r} is not 'ansi', 'rgb_array', 'human' or None")
        self._init_args: dict[str, Any] = dict(
            env_id=env_id, num_envs=num_envs, url=url, autoreset_mode=autoreset_mode, render_mode=render_mode,
            copy=copy, token=token, timeout=timeout, action_features=action_features, **params)
        mode = _mode_name(autoreset_mode)
        learner = learner_fields(params)
        self._session = Session(url, token=token, timeout=timeout)
        self._local = bool(getattr(self._session, "_local", False))  # the private server: for ServerGoneError
        try:
            made = self._session.make(env_id, int(num_envs), params, autoreset_mode=mode,
                                      action_features=True if action_features else None, **learner)
        except BaseException:
            self._session.close()
            raise
        self.env_id = env_id
        self.num_envs = int(made["num_envs"])
        #: The server's spec of the environments (a dict).
        self.game_spec: dict[str, Any] = made["spec"]
        #: The resolved parameters, defaults included.
        self.params: dict[str, Any] = made["params"]
        self.num_players = int(self.game_spec["num_players"])
        #: The server's lineup when it plays the learner's view (learner_seats,
        #: lineup, seat_rule; None: the raw stepping of every seat).
        self.opponents: dict[str, Any] | None = made.get("opponents")
        self.action_names: list[str] = list(self.game_spec["action_names"])
        #: The names of infos["action_features"]' F columns (empty unless action_features=True).
        self.action_feature_names: list[str] = [str(x) for x in made.get("action_feature_names") or []]
        self._num_actions = len(self.action_names)
        #: Names of the outcome codes of infos' outcome and outcomes (the spec's outcome_names).
        self.outcome_names: list[str] = list(self.game_spec["outcome_names"])
        self.single_observation_space, self.single_action_space = spaces_from_spec(self.game_spec)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {"autoreset_mode": _MODES[mode], "render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}
        self.autoreset_mode = _MODES[mode]
        self.render_mode = render_mode
        #: render_mode "human": the page that shows environment 0 live
        #: (env=k in its fragment shows environment k).
        self.watch_url: str | None = None
        if render_mode == "human":
            try:
                self.watch_url = self._session.announce_watch(0, f"{env_id} (environment 0 of {self.num_envs})")
            except BaseException:
                self._session.close()
                raise
        self.copy = copy
        self._reply: Reply | None = None
        self._actor = np.zeros(self.num_envs, dtype=np.int32)
        self._rows = np.arange(self.num_envs)
        self._every = np.ones(self.num_envs, dtype=bool)

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[NDArray[Any], dict[str, Any]]:
        n = self.num_envs
        seeds: list[int | None] | None
        if seed is None:
            seeds = None
        elif isinstance(seed, (int, np.integer)):
            super().reset(seed=int(seed))
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = [None if s is None else int(s) for s in seed]
            if len(seeds) != n:
                raise ValueError(f"{len(seeds)} seeds for {n} environments")
        opts = dict(options or {})
        reset_mask = opts.pop("reset_mask", None)
        wire: dict[str, Any] = {}
        if "state" in opts:
            wire["state"] = _state_option(opts.pop("state"))
        if "states" in opts:
            states = opts.pop("states")
            wire["states"] = [None if s is None else _state_option(s) for s in states]
        if opts:
            raise ValueError(f"unknown reset options {sorted(opts)}; known: reset_mask, state, states")
        mask = None
        if reset_mask is not None:
            mask = np.asarray(reset_mask, dtype=bool)
            if mask.shape != (n,):
                raise ValueError(f"reset_mask of shape {mask.shape}, want ({n},)")
        try:
            r = self._session.reset(seeds, mask=None if mask is None else mask.tolist(), options=wire or None)
        except ConnectionClosedError as e:
            server_gone(e, self._session.url, self._local)
        self._reply = r
        self._actor = r.current_player
        infos = self._infos(r)
        if mask is not None:
            for key in [k for k in infos if not k.startswith("_")]:
                infos["_" + key] = mask.copy()
        return self._obs(r), infos

    def step(self, actions: Any) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any], dict[str, Any]]:
        """Steps every environment with its action (N integers in ``[0, n)``).

        Raises TypeError for non-integer actions, ActionSpaceError (``index``:
        the first environment) for one outside the action space,
        IllegalActionError for an illegal move (nothing is stepped then) and
        ServerGoneError when the server died. An environment whose episode
        just ended (NEXT_STEP autoreset) takes any integer: it is reset."""
        a = check_actions(actions, self._num_actions, self.num_envs, self._actor < 0)
        try:
            r = self._session.step(a)
        except ConnectionClosedError as e:
            server_gone(e, self._session.url, self._local)
        actor = self._actor
        seat = None
        if self.num_players == 1:
            rewards = r.rewards[:, 0].astype(np.float64)
        elif self.opponents is not None:
            rewards, seat = learner_rewards(r, actor)
        else:
            rewards = np.where(actor >= 0, r.rewards[self._rows, np.maximum(actor, 0)], 0).astype(np.float64)
        self._reply = r
        self._actor = r.current_player
        infos = self._infos(r)
        if seat is not None:
            infos["learner_seat"], infos["_learner_seat"] = seat, self._every.copy()
        return self._obs(r), rewards, r.terminated.copy(), r.truncated.copy(), infos

    def render(self) -> tuple[Any, ...] | None:
        """One text board per environment in render_mode "ansi", one
        picture (uint8 (height, width, 3)) per environment in "rgb_array"."""
        if self.render_mode == "ansi":
            return tuple(self._session.render())
        if self.render_mode == "rgb_array":
            return tuple(self._session.render_rgb())
        return None

    def close_extras(self, **kwargs: Any) -> None:
        self._session.close()

    def action_masks(self) -> NDArray[Any]:
        """The legal-action masks, bool (N, A) (for MaskablePPO)."""
        if self._reply is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._reply.mask.astype(bool)

    def get_state(self, index: int) -> dict[str, Any]:
        """Environment index's snapshot, for reset options state/states."""
        return self._session.get_state(index)

    def episode_info(self, indices: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Full episode infos (outcome, score and every statistic)."""
        return self._session.info(indices)

    @property
    def session(self) -> Session:
        """The underlying protocol session."""
        return self._session

    def _obs(self, r: Reply) -> NDArray[Any]:
        return r.obs.copy() if self.copy else r.obs

    def _infos(self, r: Reply) -> dict[str, Any]:
        n = self.num_envs
        mask = r.mask.view(np.int8)
        every = self._every
        infos: dict[str, Any] = {
            "action_mask": mask.copy() if self.copy else mask,
            "current_player": r.current_player.copy(),
            "score": r.score.copy(),
            "outcome": r.outcome.copy(),
            "steps": r.steps.copy(),
            "rewards": r.rewards.copy(),
            "scores": r.scores.copy(),
            "ranks": r.ranks.copy(),
            "outcomes": r.outcomes.copy(),
            "_action_mask": every.copy(),
            "_current_player": every.copy(),
            "_score": every.copy(),
            "_outcome": every.copy(),
            "_steps": every.copy(),
            "_rewards": every.copy(),
            "_scores": every.copy(),
            "_ranks": every.copy(),
            "_outcomes": every.copy(),
        }
        if r.action_features is not None:
            infos["action_features"] = r.action_features.copy() if self.copy else r.action_features
            infos["_action_features"] = every.copy()
        k = len(r.final_index)
        if k:
            idx = r.final_index
            done = np.zeros(n, dtype=bool)
            done[idx] = True
            final_obs = np.full(n, None, dtype=object)
            for j, i in enumerate(idx):
                final_obs[i] = r.final_obs[j].copy()
            score = np.zeros(n, dtype=np.float32)
            score[idx] = r.final_score
            steps = np.zeros(n, dtype=np.int32)
            steps[idx] = r.final_steps
            outcome = np.zeros(n, dtype=np.uint8)
            outcome[idx] = r.final_outcome
            p = r.final_scores.shape[1]
            scores = np.zeros((n, p), dtype=np.float32)
            scores[idx] = r.final_scores
            ranks = np.zeros((n, p), dtype=np.int32)
            ranks[idx] = r.final_ranks
            outcomes = np.zeros((n, p), dtype=np.uint8)
            outcomes[idx] = r.final_outcomes
            infos["final_obs"], infos["_final_obs"] = final_obs, done
            infos["final_info"] = {"score": score, "_score": done.copy(), "outcome": outcome,
                                   "_outcome": done.copy(), "steps": steps, "_steps": done.copy(),
                                   "scores": scores, "_scores": done.copy(), "ranks": ranks,
                                   "_ranks": done.copy(), "outcomes": outcomes, "_outcomes": done.copy()}
            infos["_final_info"] = done.copy()
        return infos

    def __enter__(self) -> "GalaxyGymVectorEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        """Pickling (and deepcopy) keeps every environment's position: the
        copy opens its own session and loads the snapshots."""
        started = self._reply is not None and not self._session.closed
        return {"init": self._init_args,
                "states": [self.get_state(i) for i in range(self.num_envs)] if started else None,
                "actor": self._actor.copy()}

    def __setstate__(self, d: dict[str, Any]) -> None:
        init = dict(d["init"])
        self.__init__(init.pop("env_id"), init.pop("num_envs"), **init)  # type: ignore[misc]
        if d["states"] is not None:
            self.reset(options={"states": d["states"]})
            self._actor = d["actor"]

    def __repr__(self) -> str:
        return f"GalaxyGymVectorEnv({self.env_id}, num_envs={self.num_envs}, url={self._session.url})"
