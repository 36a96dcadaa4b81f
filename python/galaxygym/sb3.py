"""Stable-Baselines3 on one batched connection.

:class:`VecEnv` adapts :class:`galaxygym.GalaxyGymVectorEnv` (one websocket,
one binary round trip per step for all N environments) to SB3's
``VecEnv``, so PPO, A2C, DQN and sb3-contrib's MaskablePPO train on it
directly instead of on N single environments in a ``DummyVecEnv``:

>>> from sb3_contrib import MaskablePPO                    # doctest: +SKIP
>>> from galaxygym.sb3 import VecEnv, export               # doctest: +SKIP
>>> venv = VecEnv("galaxy-express-v1", num_envs=64)        # doctest: +SKIP
>>> model = MaskablePPO("MlpPolicy", venv).learn(100_000)  # doctest: +SKIP
>>> export(model, "ppo.npz")                              # doctest: +SKIP

:func:`export` writes the model's policy as a weights file for the Go
``policy`` agent (``galaxygym eval --seats policy@weights=ppo.npz,...``),
and :func:`galaxygym.evaluate` takes the model as it is.

SB3's conventions: ``step`` returns ``(obs, rewards, dones, infos)`` with
``infos`` a list of N dicts; an environment whose episode ended is reset at
once (the server's SAME_STEP autoreset): ``obs[i]`` is then the new
episode's first observation, ``infos[i]["terminal_observation"]`` the last
one, ``infos[i]["TimeLimit.truncated"]`` whether it was cut by the turn
limit, ``infos[i]["episode"]`` ``{"r": return, "l": steps}`` (what
``VecMonitor`` would add, so SB3 logs ``ep_rew_mean`` without it) and
``infos[i]["outcome"]`` (the outcome code, named by ``galaxygym.OUTCOMES``). ``action_masks()`` (also through
``env_method("action_masks")``, as MaskablePPO asks) gives the bool masks
of the observations just returned.

Rewards on a multi-player game (docs/self-play.md): with ``opponents``
(``VecEnv("express-v2", 64, opponents="heuristic")``) the other seats are
played by built-in agents inside the server, every step is one of the
learner's decisions and ``rewards[i]`` is everything the learner's player
earned since its previous decision, so ``ep_rew_mean`` is the learner's
return (in Express its score). Without opponents every seat is a learner
seat ("all"): ``rewards[i]`` is then the reward of the seat to act
(``infos[i]["learner_seat"]`` at an episode's end names the seat of its last
decision) and the stream of environment i interleaves the seats, which SB3's
algorithms do not separate: use opponents, or galaxygym.ppo's self-play.
At an episode's end ``infos[i]`` also holds ``learner_seat``, every
player's ``scores`` and ``returns`` (float64, (P,)), and ``episode["r"]`` is
the return of that learner seat. In a one-player (or cooperative) game
``rewards[i]`` is the team's reward.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _SB3VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

from .vector import GalaxyGymVectorEnv

__all__ = ["VecEnv", "export", "from_weights", "BoardExtractor"]


def _env_id(model: Any) -> str | None:
    """The galaxygym environment id of the VecEnv a model trains on (through
    SB3's wrappers), or None."""
    v = model.get_env() if hasattr(model, "get_env") else None
    while v is not None:
        if isinstance(v, VecEnv):
            return v.env_id
        v = getattr(v, "venv", None)
    return None


def export(model: Any, path: str | os.PathLike[str], env_id: str | None = None, *,
           play: str = "greedy") -> dict[str, Any]:
    """Writes a Stable-Baselines3 model's policy to ``path`` in galaxygym's
    weights format (docs/policy-format.md), for the Go ``policy`` agent, and
    returns the file's metadata (:func:`galaxygym.export_policy`'s).

    model: an on-policy SB3 model with an MLP actor (PPO, A2C or
    sb3-contrib's MaskablePPO with ``"MlpPolicy"``: a flatten feature
    extractor, ``mlp_extractor.policy_net`` of Linear layers with the
    policy's Tanh or ReLU between them, and ``action_net``). The actor's
    logits are what the Go agent reads; the critic (a separate network in
    SB3) is not exported. env_id: the environment it plays (None: the id of
    the :class:`VecEnv` the model trains on). play: "greedy" (the most
    probable legal action, as :func:`galaxygym.evaluate` plays a model) or
    "sample".

    Raises ValueError for a model of another shape (a CNN or a custom
    extractor, another activation) or when env_id is unknown.
    """
    import torch.nn as nn
    from stable_baselines3.common.preprocessing import is_image_space
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from .policy import export_policy

    pol = getattr(model, "policy", None)
    if pol is None or not hasattr(pol, "mlp_extractor") or not hasattr(pol, "action_net"):
        raise ValueError(f"galaxygym.sb3.export: {type(model).__name__} has no actor-critic MLP policy "
                         "(PPO, A2C or MaskablePPO with 'MlpPolicy')")
    if isinstance(pol.features_extractor, BoardExtractor):
        fx = pol.features_extractor
        env_id = env_id or _env_id(model)
        if env_id is None:
            raise ValueError("galaxygym.sb3.export: give env_id (the model trains on no galaxygym.sb3.VecEnv)")
        linear = [m for m in pol.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
        acts0 = {nn.Tanh: "tanh", nn.ReLU: "relu"}
        return export_policy(path, linear + [pol.action_net], fx.obs_scale.detach().cpu().numpy(), env_id,
                             activation=acts0[pol.activation_fn], board=fx.board, play=play, codes=fx.codes)
    if not isinstance(pol.features_extractor, FlattenExtractor):
        raise ValueError(f"galaxygym.sb3.export: feature extractor {type(pol.features_extractor).__name__}, "
                         "the weights format reads a flattened observation (FlattenExtractor)")
    acts = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    if pol.activation_fn not in acts:
        raise ValueError(f"galaxygym.sb3.export: activation {pol.activation_fn.__name__}, want Tanh or ReLU")
    trunk = list(pol.mlp_extractor.policy_net)
    linear = [m for m in trunk if isinstance(m, nn.Linear)]
    if any(not isinstance(m, (nn.Linear, pol.activation_fn)) for m in trunk):
        raise ValueError("galaxygym.sb3.export: the policy net holds layers other than Linear and its activation")
    env_id = env_id or _env_id(model)
    if env_id is None:
        raise ValueError("galaxygym.sb3.export: give env_id (the model trains on no galaxygym.sb3.VecEnv)")
    space = pol.observation_space
    scale = np.ones(space.shape, dtype=np.float32)
    if pol.normalize_images and is_image_space(space):
        scale /= 255.0
    return export_policy(path, linear + [pol.action_net], scale, env_id,
                         activation=acts[pol.activation_fn], play=play)


class BoardExtractor(BaseFeaturesExtractor):
    """SB3 features extractor of what layer 0 of a weights file reads when
    SB3's flatten extractor cannot: a board without convolutions (format
    version 2, no conv layers: galaxy-express-v1's committed files) and
    codes read one-hot (version 4). x = obs x obs_scale; with a board, its
    planes translated so that the first nonzero byte of center_plane lies
    at (0, 0) (docs/policy-format.md), flattened, followed by x's other
    elements; then, with codes, their one-hot inputs. :func:`from_weights`
    makes it; :func:`export` writes it back as the same board and codes."""

    def __init__(self, observation_space: gym.Space[Any], board: dict[str, int] | None, obs_scale: Sequence[float],
                 codes: Sequence[dict[str, int]] | None = None):
        import torch

        from ._nets import _Codes

        n = int(np.prod(observation_space.shape or (1,)))
        onehot = _Codes(codes)
        super().__init__(observation_space, n + onehot.width)
        self.onehot = onehot
        self.codes = onehot.codes
        self.board = None if board is None else {k: int(v) for k, v in board.items()}
        self.register_buffer("obs_scale", torch.as_tensor(np.asarray(obs_scale, np.float32).reshape(-1)))
        if self.board is None:
            return
        off, p, h, w = self.board["offset"], self.board["planes"], self.board["height"], self.board["width"]
        self.register_buffer("scalar_idx", torch.as_tensor(
            [i for i in range(n) if not off <= i < off + p * h * w], dtype=torch.long))
        self.register_buffer("_rows", torch.arange(h).view(h, 1))
        self.register_buffer("_cols", torch.arange(w).view(1, w))

    def forward(self, observations: Any) -> Any:
        import torch

        obs = observations.flatten(1)
        x = obs.float() * self.obs_scale
        if self.board is not None:
            x = self._board(obs, x)
        return torch.cat([x, self.onehot(obs)], 1) if self.codes else x

    def _board(self, obs: Any, x: Any) -> Any:
        import torch

        b = self.board
        assert b is not None
        off, p, h, w = b["offset"], b["planes"], b["height"], b["width"]
        board = x[:, off:off + p * h * w].reshape(-1, p, h * w)
        cp = b.get("center_plane", -1)
        if cp >= 0:
            plane = obs[:, off + cp * h * w:off + (cp + 1) * h * w]
            nz: Any = plane != 0
            sq: Any = torch.where(nz.any(1), nz.float().argmax(1), torch.zeros_like(plane[:, 0], dtype=torch.long))
            sr, sc = (sq // w).view(-1, 1, 1), (sq % w).view(-1, 1, 1)
            idx = ((self._rows + sr) % h) * w + (self._cols + sc) % w
            board = board.gather(2, idx.view(-1, 1, h * w).expand(-1, p, -1))
        return torch.cat([board.flatten(1), x[:, self.scalar_idx]], 1)


def from_weights(path: str | os.PathLike[str], env: Any, *, algo: Any = None, value: bool = True,
                 **ppo_kwargs: Any) -> Any:
    """A MaskablePPO model (sb3-contrib; ``algo`` another on-policy class such
    as PPO) whose actor computes the weights file ``path``
    (docs/policy-format.md): the inverse of :func:`export`, so that a model
    starts at a committed policy's level instead of at random.

    The file must be an MLP (versions 1 and 3: the Express, Pilots of
    Gallaxia and Galaxy Fighters clones and self-play files), whose
    obs_scale is folded into the first layer (SB3's ``MlpPolicy`` reads
    the observation as float, unscaled), or a board without convolutions
    (galaxy-express-v1's files) or codes read one-hot (version 4), read
    through :class:`BoardExtractor`. The model's
    ``policy_kwargs`` net_arch and activation are set from the file; with
    ``value`` and a value head (format version 3) the critic is the file's
    trunk followed by its value head (output 0), else SB3's fresh critic.
    ``ppo_kwargs`` go to the algorithm (n_steps, batch_size, seed, ...).
    Greedy actions (``model.predict(obs, action_masks=..., deterministic=True)``)
    are the Go ``policy`` agent's greedy actions on the same observations.

    Raises ValueError for a file with convolutions or action features
    (format version 5: SB3's policies see the observation only)."""
    import torch
    import torch.nn as nn

    from .policy import load_policy

    p = load_policy(path)
    if p.get("conv"):
        raise ValueError(f"galaxygym.sb3.from_weights: {path} has convolutions; MlpPolicy has none "
                         "(MLP files and boards without convolutions load)")
    if p.get("action_features"):
        raise ValueError(f"galaxygym.sb3.from_weights: {path} reads the game's action features "
                         f"{p['action_features']} beside the observation; SB3's policies see the observation only")
    layers = p["layers"]
    if len(layers) < 2:
        raise ValueError("galaxygym.sb3.from_weights: a policy of one layer has no hidden layer for MlpPolicy")
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[p["activation"]]
    hidden = [int(w.shape[0]) for w, _ in layers[:-1]]
    vhead = (p.get("value") or []) if value else []
    vf = hidden + [int(w.shape[0]) for w, _ in vhead[:-1]] if vhead else hidden
    if algo is None:
        from sb3_contrib import MaskablePPO
        algo = MaskablePPO
    kw = dict(ppo_kwargs)
    pk = dict(kw.pop("policy_kwargs", None) or {})
    pk.update(net_arch=dict(pi=hidden, vf=vf), activation_fn=act)
    board, codes = p["board"], p.get("codes") or []
    if board is not None or codes:
        pk.update(features_extractor_class=BoardExtractor,
                  features_extractor_kwargs=dict(board=None if board is None else dict(board), codes=codes,
                                                 obs_scale=np.asarray(p["obs_scale"]).tolist()))
    model = algo("MlpPolicy", env, policy_kwargs=pk, **kw)
    pol = model.policy
    scale = np.asarray(p["obs_scale"], np.float64).reshape(-1)
    from stable_baselines3.common.preprocessing import is_image_space
    if board is not None or codes:
        scale = np.ones(int(layers[0][0].shape[1]))  # the extractor scales
    elif pol.normalize_images and is_image_space(pol.observation_space):
        scale = scale * 255.0  # SB3 divides images by 255 first

    def put(mod: Any, w: NDArray[Any], b: NDArray[Any]) -> None:
        if tuple(mod.weight.shape) != w.shape:
            raise ValueError(f"galaxygym.sb3.from_weights: layer {tuple(mod.weight.shape)}, file {w.shape}")
        mod.weight.data.copy_(torch.as_tensor(w, dtype=mod.weight.dtype))
        mod.bias.data.copy_(torch.as_tensor(b, dtype=mod.bias.dtype))

    def trunk(seq: Any) -> list[Any]:
        return [m for m in seq if isinstance(m, nn.Linear)]

    w0, b0 = layers[0]
    if w0.shape[1] != scale.size:
        raise ValueError(f"galaxygym.sb3.from_weights: {path} reads {w0.shape[1]} inputs, obs_scale has {scale.size}")
    scaled = [(w0 * scale[None, :], b0)] + list(layers[1:])
    for mod, (w, b) in zip(trunk(pol.mlp_extractor.policy_net), scaled[:-1]):
        put(mod, w, b)
    put(pol.action_net, *scaled[-1])
    if vhead:
        vlin = trunk(pol.mlp_extractor.value_net)
        for mod, (w, b) in zip(vlin, scaled[:-1] + list(vhead[:-1])):
            put(mod, w, b)
        w, b = vhead[-1]
        put(pol.value_net, w[:1], b[:1])
    return model


class VecEnv(_SB3VecEnv):
    """``num_envs`` galaxygym environments as one SB3 ``VecEnv``.

    Args:
        env_id: a galaxygym environment id (``"galaxy-express-v1"``).
        num_envs: N.
        url: the server (None: $GALAXYGYM_URL, else the private local server).
        render_mode: None or ``"ansi"``.
        **kwargs: environment parameters, GalaxyGymVectorEnv's token and
            timeout, and on a multi-player game opponents, learner_seats,
            seat_rule and rewards (see :class:`galaxygym.GalaxyGymVectorEnv`).
    """

    def __init__(self, env_id: str, num_envs: int, url: str | None = None,
                 render_mode: str | None = None, **kwargs: Any):
        self.venv = GalaxyGymVectorEnv(env_id, num_envs, url=url, autoreset_mode="same_step",
                                       render_mode=render_mode, **kwargs)
        super().__init__(self.venv.num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self.env_id = env_id
        self.render_mode = render_mode
        self._actions: NDArray[Any] | None = None
        self._masks: NDArray[np.bool_] = np.zeros((self.num_envs, len(self.venv.action_names)), dtype=np.bool_)
        self._empty: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._returns = np.zeros(self.num_envs, dtype=np.float64)
        #: Every seat's rewards of the running episode, (N, P).
        self._seat_returns = np.zeros((self.num_envs, self.venv.num_players), dtype=np.float64)

    # -- SB3 VecEnv --------------------------------------------------------

    def reset(self) -> NDArray[Any]:
        seeds: list[int | None] | None = None if all(s is None for s in self._seeds) else list(self._seeds)
        obs, infos = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self._masks = infos["action_mask"].astype(bool)
        self._returns[:] = 0
        self._seat_returns[:] = 0
        return obs

    def step_async(self, actions: NDArray[Any]) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], list[dict[str, Any]]]:
        assert self._actions is not None, "step_async first"
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        self._actions = None
        self._masks = infos["action_mask"].astype(bool)
        dones = terminated | truncated
        self._returns += rewards
        self._seat_returns += infos["rewards"]
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)] if dones.any() else list(self._empty)
        if "final_obs" in infos:
            fin = infos["final_info"]
            for i in np.flatnonzero(infos["_final_obs"]):
                out[i] = {
                    "terminal_observation": infos["final_obs"][i],
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                    "episode": {"r": float(self._returns[i]), "l": int(fin["steps"][i])},
                    "outcome": int(fin["outcome"][i]),
                }
                if "learner_seat" in infos:
                    seat = int(infos["learner_seat"][i])
                    out[i]["learner_seat"] = seat
                    out[i]["scores"] = fin["scores"][i].astype(np.float64)
                    out[i]["returns"] = self._seat_returns[i].copy()
                    out[i]["episode"]["r"] = float(self._seat_returns[i, seat])
            self._returns[dones] = 0
            self._seat_returns[dones] = 0
        return obs, rewards.astype(np.float32), dones, out

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> NDArray[Any]:
        """bool (N, A): the legal actions of the last observations."""
        return self._masks

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name) if hasattr(self, attr_name) else getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            return [self._masks[i] for i in idx]
        if method_name == "get_state":
            return [self.venv.get_state(i) for i in idx]
        if method_name == "render":
            frames = self.venv.render()
            return [None if frames is None else frames[i] for i in idx]
        raise AttributeError(f"galaxygym.sb3.VecEnv: no per-environment method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[NDArray[Any] | None]:
        return [None for _ in range(self.num_envs)]

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices

    def __repr__(self) -> str:
        return f"galaxygym.sb3.VecEnv({self.env_id}, num_envs={self.num_envs})"
