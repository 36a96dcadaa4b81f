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
from functools import partial
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from numpy.typing import NDArray
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from torch import nn
from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _SB3VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs

from .vector import GalaxyGymVectorEnv

__all__ = ["VecEnv", "export", "from_weights", "BoardExtractor", "ActionFeaturesExtractor", "ActionFeaturesPolicy",
           "ActionFeaturesActorCriticPolicy"]


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
    SB3) is not exported. A model with :class:`BoardExtractor` is written
    with its board and codes, one with :class:`ActionFeaturesPolicy` as a
    format-version-5 file (its features' names and weights). env_id: the environment it plays (None: the id of
    the :class:`VecEnv` the model trains on). play: "greedy" (the most
    probable legal action, as :func:`galaxygym.evaluate` plays a model) or
    "sample".

    Raises ValueError for a model of another shape (a CNN or a custom
    extractor, another activation) or when env_id is unknown.
    """
    from stable_baselines3.common.preprocessing import is_image_space
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from .policy import export_policy

    pol = getattr(model, "policy", None)
    if pol is None or not hasattr(pol, "mlp_extractor") or not hasattr(pol, "action_net"):
        raise ValueError(f"galaxygym.sb3.export: {type(model).__name__} has no actor-critic MLP policy "
                         "(PPO, A2C or MaskablePPO with 'MlpPolicy')")
    fx, head, afeat = pol.features_extractor, pol.action_net, None
    if isinstance(fx, ActionFeaturesExtractor):  # its inner BoardExtractor, the logits' Linear, the feature weights
        fx, head, afeat = fx.inner, head.linear, (head.names, head.weight.detach().cpu().numpy())
    if isinstance(fx, BoardExtractor):
        env_id = env_id or _env_id(model)
        if env_id is None:
            raise ValueError("galaxygym.sb3.export: give env_id (the model trains on no galaxygym.sb3.VecEnv)")
        linear = [m for m in pol.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
        acts0 = {nn.Tanh: "tanh", nn.ReLU: "relu"}
        return export_policy(path, linear + [head], fx.obs_scale.detach().cpu().numpy(), env_id,
                             activation=acts0[pol.activation_fn], board=fx.board, play=play, codes=fx.codes,
                             action_features=afeat)
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
        obs = observations.flatten(1)
        x = obs.float() * self.obs_scale
        if self.board is not None:
            x = self._board(obs, x)
        return torch.cat([x, self.onehot(obs)], 1) if self.codes else x

    def _board(self, obs: Any, x: Any) -> Any:
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


class ActionFeaturesExtractor(BaseFeaturesExtractor):
    """SB3 features extractor for a policy that reads the game's action
    features (weights format version 5). The observation is the dict
    ``{"obs": uint8 obs_shape, "action_features": uint8 (A, F_env)}`` that a
    :class:`VecEnv` made with ``action_features=True`` returns. The output,
    float32 (B, D + A x F), is :class:`BoardExtractor`'s D inputs of layer 0
    (obs x obs_scale, a board's centred planes, codes' one-hot inputs)
    followed by the A x F features the policy reads, selected by name from
    the environment's columns. :class:`ActionFeaturesPolicy` gives the first
    part to the MLP and the second to the logits' linear term.

    names: the features the policy reads (a file's ``action_features``).
    env_names: the names of the environment's F_env columns (a VecEnv's
    ``action_feature_names``); None: the first len(names) columns, in
    order. board, obs_scale, codes: as for :class:`BoardExtractor`
    (obs_scale None: ones). ValueError for another observation space or a
    name the environment lacks.
    """

    def __init__(self, observation_space: gym.Space[Any], names: Sequence[str],
                 env_names: Sequence[str] | None = None, board: dict[str, int] | None = None,
                 obs_scale: Sequence[float] | None = None, codes: Sequence[dict[str, int]] | None = None):
        from .policy import feature_columns

        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
                "obs", "action_features"}:
            raise ValueError("galaxygym.sb3.ActionFeaturesExtractor: the observation space must be "
                             "Dict(obs, action_features): make the VecEnv with action_features=True")
        obs_space, af = observation_space["obs"], observation_space["action_features"]
        if af.shape is None or len(af.shape) != 2:
            raise ValueError(f"galaxygym.sb3.ActionFeaturesExtractor: action_features of shape {af.shape}, want (A, F)")
        n = int(np.prod(obs_space.shape or (1,)))
        scale = [1.0] * n if obs_scale is None else [float(x) for x in obs_scale]
        inner = BoardExtractor(obs_space, board, scale, codes)
        want = [str(x) for x in names]
        have = [str(x) for x in env_names] if env_names is not None else want[:int(af.shape[1])]
        cols = feature_columns(have, want, "the policy", "the environment")
        if max(cols, default=-1) >= int(af.shape[1]):
            raise ValueError(f"galaxygym.sb3.ActionFeaturesExtractor: the environment has {af.shape[1]} "
                             f"feature columns, the policy reads {want}")
        super().__init__(observation_space, int(inner.features_dim) + int(af.shape[0]) * len(want))
        self.names = want
        self.num_actions = int(af.shape[0])
        self.obs_dim = int(inner.features_dim)
        self.inner = inner
        self.register_buffer("cols", torch.as_tensor(cols, dtype=torch.long))

    def forward(self, observations: Any) -> Any:
        f = observations["action_features"].float().index_select(2, self.cols)
        return torch.cat([self.inner(observations["obs"]), f.flatten(1)], 1)


class _SplitMlp(MlpExtractor):
    """SB3's MlpExtractor on the first obs_dim inputs; the actor's latent
    also carries the A x F action features after them, the critic's does
    not. hidden_pi: the MLP's own latent width."""

    def __init__(self, obs_dim: int, extra: int, net_arch: Any, activation_fn: type[nn.Module], device: Any):
        super().__init__(obs_dim, net_arch=net_arch, activation_fn=activation_fn, device=device)
        self.obs_dim = obs_dim
        self.hidden_pi = self.latent_dim_pi
        self.latent_dim_pi = self.latent_dim_pi + extra

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.policy_net(features[:, :self.obs_dim]), features[:, self.obs_dim:]], 1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.value_net(features[:, :self.obs_dim])
        return out


class _FeatureLogits(nn.Module):
    """logits (B, A) = linear(latent[:, :hidden]) + features (B, A, F) @
    weight (F,): the weights format's last layer and
    ``action_features.weight`` (starts at zero)."""

    def __init__(self, hidden: int, num_actions: int, names: Sequence[str]):
        super().__init__()
        self.hidden, self.num_actions, self.names = hidden, num_actions, [str(x) for x in names]
        self.linear = nn.Linear(hidden, num_actions)
        self.weight = nn.Parameter(torch.zeros(len(self.names)))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        f = latent[:, self.hidden:].reshape(-1, self.num_actions, len(self.names))
        out: torch.Tensor = self.linear(latent[:, :self.hidden]) + f @ self.weight
        return out


class _FeaturesMixin:
    """What the action-features policies add to SB3's actor-critic policies:
    the split MLP extractor and the feature logits as action_net."""

    def _build_mlp_extractor(self) -> None:
        s: Any = self
        fx = s.features_extractor
        if not isinstance(fx, ActionFeaturesExtractor):
            raise ValueError("galaxygym.sb3.ActionFeaturesPolicy: needs features_extractor_class="
                             "ActionFeaturesExtractor (from_weights sets it)")
        s.mlp_extractor = _SplitMlp(fx.obs_dim, fx.num_actions * len(fx.names), s.net_arch, s.activation_fn,
                                    s.device)

    def _build(self, lr_schedule: Any) -> None:
        s: Any = self
        super()._build(lr_schedule)  # type: ignore[misc]
        fx = s.features_extractor
        s.action_net = _FeatureLogits(s.mlp_extractor.hidden_pi, fx.num_actions, fx.names).to(s.device)
        if s.ortho_init:
            s.action_net.linear.apply(partial(s.init_weights, gain=0.01))
        s.optimizer = s.optimizer_class(s.parameters(), lr=lr_schedule(1), **s.optimizer_kwargs)


class ActionFeaturesPolicy(_FeaturesMixin, MaskableActorCriticPolicy):
    """sb3-contrib's MaskableActorCriticPolicy for a policy that reads the
    game's action features (weights format version 5), with
    :class:`ActionFeaturesExtractor` as its features extractor (required):
    the actor's MLP reads the observation's inputs, and each action's logit
    is the MLP's output plus the action's features times one weight per
    feature (the format's ``action_features.weight``); the critic reads the
    observation's inputs only. :func:`from_weights` makes it for a
    version-5 file, :func:`export` writes it back as one. For SB3's PPO and
    A2C (no masks): :class:`ActionFeaturesActorCriticPolicy`."""


class ActionFeaturesActorCriticPolicy(_FeaturesMixin, ActorCriticPolicy):
    """:class:`ActionFeaturesPolicy` on SB3's ActorCriticPolicy (PPO, A2C)."""


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
    ``policy_kwargs`` net_arch and activation are set from the file; the
    critic is the file's trunk followed, with ``value`` and a value head
    (format version 3), by its value head (output 0), else by a fresh
    output layer (SB3's orthogonal initialisation, gain 1: the other layers
    come from the file, so SB3's initialisation of them, a QR per layer
    that costs 10-17 s for one 1,024 x 1,024 layer here, is skipped).
    ``ppo_kwargs`` go to the algorithm (n_steps, batch_size, seed, ...).
    It turns torch.distributions' argument validation off for the process
    (``Distribution.set_default_validate_args(False)``, a debugging aid): a
    committed clone puts 0.98 or more on one move, and sb3-contrib's masked
    distribution then fails its float32 simplex check during training
    (sb3-contrib issues 81 and 195; 380 actions of Pilots of Gallaxia
    within 16,384 steps) though its probabilities are sound.
    Greedy actions (``model.predict(obs, action_masks=..., deterministic=True)``)
    are the Go ``policy`` agent's greedy actions on the same observations.

    A file that reads the game's action features (format version 5: the
    committed Galaxy Express and Pilots of Gallaxia clones) makes an
    :class:`ActionFeaturesPolicy` (``ActionFeaturesActorCriticPolicy``
    for another algo), and env must be made with ``action_features=True``
    (``VecEnv(env_id, n, action_features=True)``): its observations are
    then dicts of the observation and the features, which the policy
    selects by name (the env's ``action_feature_names``; a file written
    before the game added a feature reads the ones it knows).

    Raises ValueError for a file with convolutions, a version-5 file
    with an env that gives no action features or lacks one the file
    reads."""
    from .policy import load_policy

    p = load_policy(path)
    torch.distributions.Distribution.set_default_validate_args(False)  # type: ignore[no-untyped-call]
    if p.get("conv"):
        raise ValueError(f"galaxygym.sb3.from_weights: {path} has convolutions; MlpPolicy has none "
                         "(MLP files and boards without convolutions load)")
    afeat = [str(x) for x in p.get("action_features") or []]
    space = getattr(env, "observation_space", None)
    if afeat and not (isinstance(space, gym.spaces.Dict) and "action_features" in space.spaces):
        raise ValueError(f"galaxygym.sb3.from_weights: {path} reads the game's action features {afeat} "
                         "beside the observation: make the env with action_features=True "
                         "(galaxygym.sb3.VecEnv(env_id, n, action_features=True))")
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
    # SB3's orthogonal initialisation (a QR per layer: 10-17 s for one
    # 1,024 x 1,024 layer here) would be overwritten by the file; the
    # critic's trunk starts as the actor's (below), its output layer as SB3
    # would start it.
    ortho = bool(pk.pop("ortho_init", True))
    pk["ortho_init"] = False
    board, codes = p["board"], p.get("codes") or []
    policy: Any = "MlpPolicy"
    if afeat:
        names = getattr(env, "action_feature_names", None)
        if names is None and hasattr(env, "get_attr"):
            try:
                names = env.get_attr("action_feature_names")[0]
            except AttributeError:
                names = None
        pk.update(features_extractor_class=ActionFeaturesExtractor,
                  features_extractor_kwargs=dict(names=afeat, env_names=names,
                                                 board=None if board is None else dict(board), codes=codes,
                                                 obs_scale=np.asarray(p["obs_scale"]).reshape(-1).tolist()))
        from sb3_contrib import MaskablePPO
        policy = ActionFeaturesPolicy if issubclass(algo, MaskablePPO) else ActionFeaturesActorCriticPolicy
    elif board is not None or codes:
        pk.update(features_extractor_class=BoardExtractor,
                  features_extractor_kwargs=dict(board=None if board is None else dict(board), codes=codes,
                                                 obs_scale=np.asarray(p["obs_scale"]).tolist()))
    model = algo(policy, env, policy_kwargs=pk, **kw)
    pol = model.policy
    scale = np.asarray(p["obs_scale"], np.float64).reshape(-1)
    from stable_baselines3.common.preprocessing import is_image_space
    if board is not None or codes or afeat:
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
    if afeat:
        put(pol.action_net.linear, *scaled[-1])
        pol.action_net.weight.data.copy_(torch.as_tensor(np.asarray(p["action_features_weight"], np.float32)))
    else:
        put(pol.action_net, *scaled[-1])
    if vhead:
        vlin = trunk(pol.mlp_extractor.value_net)
        for mod, (w, b) in zip(vlin, scaled[:-1] + list(vhead[:-1])):
            put(mod, w, b)
        w, b = vhead[-1]
        put(pol.value_net, w[:1], b[:1])
    else:  # the critic reads the actor's features: its trunk, and a fresh output layer
        for mod, (w, b) in zip(trunk(pol.mlp_extractor.value_net), scaled[:-1]):
            put(mod, w, b)
        if ortho:
            pol.value_net.apply(partial(pol.init_weights, gain=1))
    pol.ortho_init = ortho
    return model


class VecEnv(_SB3VecEnv):
    """``num_envs`` galaxygym environments as one SB3 ``VecEnv``.

    Args:
        env_id: a galaxygym environment id (``"galaxy-express-v1"``).
        num_envs: N.
        url: the server (None: $GALAXYGYM_URL, else the private local server).
        render_mode: None or ``"ansi"``.
        action_features: True: every observation is the dict ``{"obs":
            uint8 obs_shape, "action_features": uint8 (num_actions, F)}``
            (SB3's Dict observation space), the second the game's features of
            each action (docs/protocol.md; all zero for illegal actions and
            in a terminal observation), named by ``action_feature_names``:
            what a weights file of format version 5 reads
            (:func:`from_weights`). A game that declares none (Express,
            Galaxy Fighters) refuses it with a ServerError.
        **kwargs: environment parameters, GalaxyGymVectorEnv's token and
            timeout, and on a multi-player game opponents, learner_seats,
            seat_rule and rewards (see :class:`galaxygym.GalaxyGymVectorEnv`).
    """

    def __init__(self, env_id: str, num_envs: int, url: str | None = None,
                 render_mode: str | None = None, action_features: bool = False, **kwargs: Any):
        self.venv = GalaxyGymVectorEnv(env_id, num_envs, url=url, autoreset_mode="same_step",
                                       render_mode=render_mode, action_features=action_features, **kwargs)
        space: gym.Space[Any] = self.venv.single_observation_space
        #: The names of the action features' F columns (empty unless action_features=True).
        self.action_feature_names: list[str] = list(self.venv.action_feature_names) if action_features else []
        self._features = action_features
        n_act = len(self.venv.action_names)
        self._no_features = np.zeros((n_act, len(self.action_feature_names)), np.uint8)
        if action_features:
            space = gym.spaces.Dict({"obs": space, "action_features": gym.spaces.Box(
                0, 255, (n_act, len(self.action_feature_names)), np.uint8)})
        super().__init__(self.venv.num_envs, space, self.venv.single_action_space)
        self.env_id = env_id
        self.render_mode = render_mode
        self._actions: NDArray[Any] | None = None
        self._masks: NDArray[np.bool_] = np.zeros((self.num_envs, len(self.venv.action_names)), dtype=np.bool_)
        self._empty: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        self._returns = np.zeros(self.num_envs, dtype=np.float64)
        #: Every seat's rewards of the running episode, (N, P).
        self._seat_returns = np.zeros((self.num_envs, self.venv.num_players), dtype=np.float64)

    # -- SB3 VecEnv --------------------------------------------------------

    def reset(self) -> VecEnvObs:
        seeds: list[int | None] | None = None if all(s is None for s in self._seeds) else list(self._seeds)
        obs, infos = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self._masks = infos["action_mask"].astype(bool)
        self._returns[:] = 0
        self._seat_returns[:] = 0
        return self._obs(obs, infos)

    def _obs(self, obs: NDArray[Any], infos: dict[str, Any]) -> VecEnvObs:
        """The observations SB3 sees: obs, or with action_features the dict
        of obs and the features (copied: the rollout buffer keeps them)."""
        if not self._features:
            return obs
        return {"obs": obs, "action_features": np.array(infos["action_features"], dtype=np.uint8)}

    def step_async(self, actions: NDArray[Any]) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[VecEnvObs, NDArray[Any], NDArray[Any], list[dict[str, Any]]]:
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
                last = infos["final_obs"][i]
                out[i] = {
                    "terminal_observation": {"obs": last, "action_features": self._no_features.copy()}
                    if self._features else last,
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
        return self._obs(obs, infos), rewards.astype(np.float32), dones, out

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
