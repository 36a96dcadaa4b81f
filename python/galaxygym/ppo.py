"""Masked PPO through ``galaxygym.make_vec``, from scratch or fine-tuning a
policy from a Go weights file (docs/policy-format.md), such as the cloned
``notebooks/weights/galaxy-express-v1-bc.npz``.

The actor is a :mod:`galaxygym.train` network (by default the clone's:
``make_policy("conv", scale, 56, channels=(), hidden=(512, 512))``, the
ship-centred board planes and the scalar features, 503 -> 512 -> 512 -> 56
ReLU), so the trained actor exports to the Go ``policy`` agent's format
unchanged; the critic is a separate network of the same kind with one
output. Illegal actions get the logit -1e9 (``where(mask, logits, -1e9)``)
before the softmax: the policy never samples them and they carry no
gradient.

Fine-tuning a clone: the critic first learns the clone's values with the
policy frozen (``critic_warmup_steps``), then PPO runs with a small step
size, a tight clip, a target-KL early stop of each update's epochs and no
entropy bonus, so that the first noisy updates cannot undo what cloning
learned. The defaults for each start are in :data:`FINETUNE_DEFAULTS` and
:data:`SCRATCH_DEFAULTS` (why each value: their comments).

Checkpoints export the actor and play it natively (``galaxygym eval``,
greedy, seeded games; :func:`galaxygym.train.evaluate_native`). The final
weights written are the last ones, not the best checkpoint's.

Multi-player games train by self-play through the batched path: one
learner seat per environment, the other seats played inside the server by
a pool of the learner's past snapshots and built-in agents, and the curve
measured against fixed opponents (random, heuristic), never against itself
(:class:`PPOConfig`, :class:`OpponentPool`; docs/self-play.md). The code is
a config record (:class:`PPOConfig`) and small functions: :func:`collect`
(a rollout), :func:`gae`, :func:`update` (the epochs of one update) and
:func:`train` (the loop); :func:`ppo` is :func:`train` with keywords. The
server binary is the client's (``$GALAXYGYM_BIN``, the wheel's own, or a
checkout's ``bin/galaxygym``).

Command line (``python -m galaxygym.ppo --help``)::

    python -m galaxygym.ppo --init-weights notebooks/weights/galaxy-express-v1-bc.npz \\
        --minutes 25 --threads 1 --out /tmp/ppo/ft.npz
    python -m galaxygym.ppo --arch conv --channels none --hidden 512,512 --minutes 25 --threads 1 \\
        --out /tmp/ppo/scratch.npz
    python -m galaxygym.ppo --env express-v2 --param players=4 --arch mlp --hidden 256,256 \\
        --opponents random,heuristic --out /tmp/ppo/express-sp.npz
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._client import episode_seed
from .train import evaluate_native, export, layers_of, make_policy

__all__ = ["FINETUNE_DEFAULTS", "SCRATCH_DEFAULTS", "PPOConfig", "Rollout", "OpponentPool", "SelfPlayEnvs",
           "load_torch_policy", "make_critic", "collect", "gae", "update", "train", "ppo", "evaluate_point",
           "evaluate_against", "json_safe", "main"]

#: PPO settings when fine-tuning from a weights file. Measured on the
#: committed clone (galaxy-express-v1-bc.npz, 95.25 greedy over 5,000
#: native games; 600k-step runs, 200k of them critic warm-up, seed 0, then
#: 5,000 games): actor lr 1e-5 -> 98.15, 3e-5 -> 99.67, 1e-4 -> 100.40
#: [99.94, 100.86]; none of them fell below the start at any checkpoint,
#: and the approximate KL per update stayed under 1e-3 even at 1e-4, so
#: the target-KL stop is a guard rather than the brake. The clip, target
#: KL, entropy weight and warm-up length were set, not tuned (no ablation
#: run). Full runs and figures: docs/learning-baselines.md.
FINETUNE_DEFAULTS: dict[str, Any] = {
    "lr": 1e-4,            # actor Adam step (annealed to 0): the best of 1e-5, 3e-5, 1e-4 above, 3x below scratch's
    "critic_lr": 3e-4,     # the critic's head is new: it needs the usual step size
    "clip": 0.1,           # tighter than the usual 0.2: ratios stay near the clone's probabilities
    "target_kl": 0.01,     # stop an update's epochs once a minibatch's approximate KL passes it
    "ent_coef": 0.0,       # the clone is already stochastic (entropy ~0.75 nats over the legal actions)
    "critic_warmup_steps": 200_000,  # env steps of value regression on the clone's own rollouts, policy frozen
    "critic_from_actor": True,  # the critic starts as a copy of the actor's body; measured no better than a
                                # fresh one (warm-up value loss 0.4190 vs 0.4187, 99.67 vs 99.30 at lr 3e-5),
                                # kept because it costs nothing and starts from features that know the game
    "init_logit_scale": 3.0,  # the start's logits x 3 (sampling temperature 1/3; greedy play unchanged). The
                              # soft-target clone (102.5 greedy) samples far worse than it plays greedily
                              # (training episodes ~40): PPO on those samples first pulled the greedy policy
                              # down (100.5 over 2,000 games at 400k steps). Measured on 1.2M-step runs from
                              # it, lr 1e-4: scale 1 -> 100.5, 101.0, 101.8 at 0.4M, 0.8M, 1.2M steps; scale 3
                              # -> 103.0, 103.4, 103.3 (sampled training returns 93-100 from the start)
}

#: PPO settings from scratch: the notebook's PPO (CleanRL-style) values.
SCRATCH_DEFAULTS: dict[str, Any] = {
    "lr": 3e-4,
    "critic_lr": 3e-4,
    "clip": 0.2,
    "target_kl": None,
    "ent_coef": 0.01,
    "critic_warmup_steps": 0,
    "critic_from_actor": False,
    "init_logit_scale": 1.0,
}


def _torch() -> Any:
    import torch
    return torch


def load_torch_policy(path: str | os.PathLike[str]) -> Any:
    """Rebuilds the torch network of a weights file (docs/policy-format.md):
    a :class:`galaxygym.train.ConvPolicy` for a format-version-2 file with a
    board (its conv layers, kernel and board from the file; no conv layer
    when the file has none), else a :class:`galaxygym.train.MLPPolicy`, with
    the file's activation, obs_scale and float32 weights. Its forward pass
    (uint8 obs (B, obs_size) -> float32 logits (B, num_actions)), masked and
    softmaxed, gives :func:`galaxygym.policy_probs`'s probabilities (to
    float32 rounding). The network is in eval mode."""
    torch = _torch()
    from .policy import load_policy

    p = load_policy(path)
    layers = p["layers"]
    hidden = tuple(int(w.shape[0]) for w, _ in layers[:-1])
    num_actions = int(layers[-1][0].shape[0])
    scale = p["obs_scale"].astype(np.float32)
    if p["board"] is not None:
        convs = p["conv"]
        kernel = int(convs[0][0].shape[2]) if convs else 3
        if any(int(w.shape[2]) != kernel for w, _ in convs):
            raise ValueError("conv layers of different kernel sizes: ConvPolicy has one kernel size")
        net = make_policy("conv", scale, num_actions, board=dict(p["board"]),
                          channels=tuple(int(w.shape[0]) for w, _ in convs), kernel=kernel, hidden=hidden,
                          activation=p["activation"])
        for m, (w, b) in zip(layers_of(net, "Conv2d", "conv"), convs):
            m.weight.data.copy_(torch.from_numpy(w.astype(np.float32)))
            m.bias.data.copy_(torch.from_numpy(b.astype(np.float32)))
    else:
        net = make_policy("mlp", scale, num_actions, hidden=hidden, activation=p["activation"])
    for m, (w, b) in zip(layers_of(net), layers):
        m.weight.data.copy_(torch.from_numpy(w.astype(np.float32)))
        m.bias.data.copy_(torch.from_numpy(b.astype(np.float32)))
    net.eval()
    return net


def make_critic(actor: Any, from_actor: bool) -> Any:
    """A value network of the actor's kind (same board handling, conv layers
    and hidden widths) with one output: uint8 obs (B, obs_size) -> float32
    (B, 1), the value of the acting player in scaled reward units. from_actor:
    start from a copy of the actor's weights (the last layer replaced by a
    zero-initialised one-output layer), else a fresh initialisation from
    torch's global generator."""
    torch = _torch()
    if from_actor:
        critic = copy.deepcopy(actor)
    else:
        critic = copy.deepcopy(actor)
        for m in critic.modules():
            if hasattr(m, "reset_parameters") and m is not critic:
                m.reset_parameters()
    last = layers_of(critic)[-1]
    head = torch.nn.Linear(last.in_features, 1)
    torch.nn.init.zeros_(head.weight)
    torch.nn.init.zeros_(head.bias)
    critic.pi[len(critic.pi) - 1] = head
    critic.train()
    return critic


def json_safe(obj: Any) -> Any:
    """obj with every non-finite float (NaN, an infinity) replaced by None,
    recursively through dicts, lists and tuples, so that json.dumps writes
    strict JSON (null) that any parser reads (Python's own json writes NaN,
    which JSON does not have)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def evaluate_point(actor: Any, path: str | os.PathLike[str], env_id: str, episodes: int, seed: int = 1,
                   workers: int = 1) -> dict[str, Any]:
    """Exports actor to path (Go weights format) and plays it natively,
    greedy, over `episodes` seeded games (seeds seed, seed+1, ...). Returns
    {"mean_score", "ci95_low", "ci95_high" (the 95 % interval of the mean,
    from galaxygym eval), "win_rate", "eval_episodes", "eval_seconds" (wall
    seconds of export and play)}."""
    started = time.time()
    export(actor, path, env_id)
    row = evaluate_native(path, episodes, seed=seed, greedy=True, env_id=env_id, workers=workers)
    return {"mean_score": float(row["mean_return"]), "ci95_low": float(row["ci95_low"]),
            "ci95_high": float(row["ci95_high"]), "win_rate": float(row["win_rate"]),
            "eval_episodes": int(row["episodes"]), "eval_seconds": round(time.time() - started, 2)}


@dataclass
class PPOConfig:
    """Every setting of a :func:`train` run (CleanRL-style: one flat record,
    the defaults of a run from scratch). :func:`ppo` takes the same names as
    keyword arguments.

    Budget: ``total_steps`` env steps (the learner's decisions; rounded up to
    whole rollouts of num_envs x rollout_steps, the horizon of the step
    size's annealing), cut short, when ``minutes`` is given, after the
    rollout that passes that many minutes of training wall time (evaluation
    excluded). ``init_logit_scale`` (> 0) first multiplies the actor's last
    layer (its logits): greedy play is unchanged, sampling sharper. The first
    ``critic_warmup_steps`` env steps train only the critic (policy frozen).

    Each update: a rollout of rollout_steps per env, GAE(gamma, gae_lambda)
    on rewards x reward_scale (an ended episode bootstraps nothing), then
    ``epochs`` passes of ``minibatches`` minibatches: clipped policy loss on
    per-minibatch normalised advantages, entropy over the legal actions
    (ent_coef), value loss 0.5 (v - return)^2 x vf_coef; separate Adam
    optimisers (lr, critic_lr) linearly annealed to 0 if anneal, gradients
    clipped to max_grad_norm; target_kl stops an update's remaining epochs
    once a minibatch's approximate KL (mean of (r - 1) - log r) exceeds it.

    Self-play (a multi-player env_id): each environment has one learner
    seat, rotated per episode (``seat_rule="rotate"``), and every other seat
    is played inside the server by an opponent drawn for it (see
    :class:`OpponentPool`): with probability ``snapshot_prob`` one of the
    learner's past snapshots (the actor exported every ``snapshot_every``
    updates, the latest ``pool_size`` kept; the pool starts with the initial
    actor), else one of ``builtin_opponents``. The environments are split
    into ``opponent_groups`` sessions with a lineup each, drawn again after
    every update. Evaluation plays the actor (greedy, natively) in every
    seat of a rotated lineup against each of ``eval_opponents`` in every
    other seat (``galaxygym eval --seats ... --rotate``), never against
    itself.

    Evaluation: at the start, at ``checkpoints`` evenly spaced points and at
    the end, over eval_episodes (final_eval_episodes at start and end)
    seeded games from eval_seed; 0: none.

    Randomness: actions from a torch Generator seeded with seed, minibatches
    from another (seed + 1), opponents from numpy's default_rng(seed + 2),
    the critic's fresh initialisation from torch.manual_seed(seed).
    """

    env_id: str = "galaxy-express-v1"
    total_steps: int = 1_000_000
    minutes: float | None = None
    num_envs: int = 64
    rollout_steps: int = 128
    epochs: int = 4
    minibatches: int = 8
    lr: float = 3e-4
    critic_lr: float = 3e-4
    clip: float = 0.2
    target_kl: float | None = None
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    gamma: float = 0.995
    gae_lambda: float = 0.95
    reward_scale: float = 1 / 20
    max_grad_norm: float = 0.5
    anneal: bool = True
    critic_warmup_steps: int = 0
    critic_from_actor: bool = False
    init_logit_scale: float = 1.0
    seed: int = 0
    url: str | None = None
    checkpoints: int = 10
    eval_episodes: int = 2000
    final_eval_episodes: int | None = None
    eval_seed: int = 1
    threads: int | None = None
    #: Environment parameters (``{"players": 4}``).
    params: dict[str, Any] = field(default_factory=dict)
    builtin_opponents: tuple[str, ...] = ("random", "heuristic")
    snapshot_prob: float = 0.5
    snapshot_every: int = 5
    pool_size: int = 8
    opponent_groups: int = 4
    #: Updates between two draws of the lineups (self-play). Every draw
    #: starts new sessions, so the episodes in progress are cut there (the
    #: critic bootstraps them). 1 redraws after every update, which on a
    #: long game means the learner sees little but openings: express-v2 at
    #: 2 players has about 340 learner decisions a game, and with rollouts
    #: of 64 steps and a redraw each update, 16 episodes ended in 155,648
    #: env steps (measured). 10 lets each lineup play several whole games.
    lineup_every: int = 10
    eval_opponents: tuple[str, ...] = ("random", "heuristic")

    def budget(self) -> tuple[int, int, int]:
        """(env steps per update, updates, critic warm-up updates)."""
        per_update = int(self.num_envs) * int(self.rollout_steps)
        updates = max(1, math.ceil(self.total_steps / per_update))
        warm = math.ceil(self.critic_warmup_steps / per_update) if self.critic_warmup_steps > 0 else 0
        return per_update, updates, warm


@dataclass
class Rollout:
    """One rollout's buffers, (T, N, ...) torch tensors."""

    obs: Any
    mask: Any
    act: Any
    logp: Any
    val: Any
    rew: Any
    done: Any

    @classmethod
    def zeros(cls, t_len: int, n: int, obs_dim: int, num_actions: int) -> "Rollout":
        torch = _torch()
        return cls(torch.zeros((t_len, n, obs_dim), dtype=torch.uint8),
                   torch.zeros((t_len, n, num_actions), dtype=torch.bool), torch.zeros((t_len, n), dtype=torch.long),
                   torch.zeros((t_len, n)), torch.zeros((t_len, n)), torch.zeros((t_len, n)), torch.zeros((t_len, n)))


def _masked(logits: Any, mask: Any) -> Any:
    torch = _torch()
    return torch.where(mask, logits, torch.full_like(logits, -1e9))


class OpponentPool:
    """The opponents of a self-play run: built-in agents and the learner's
    past snapshots, exported as Go weights files into ``folder`` (which the
    run's private server serves with ``--weights``).

    Sampling: each opponent seat of a lineup independently draws, with
    probability ``snapshot_prob``, a snapshot uniformly from the pool (the
    latest ``size`` snapshots, the initial actor first), else an agent
    uniformly from ``builtin``."""

    def __init__(self, folder: Path, env_id: str, builtin: Sequence[str], snapshot_prob: float, size: int,
                 rng: np.random.Generator):
        self.folder, self.env_id = folder, env_id
        self.builtin, self.snapshot_prob, self.size, self.rng = list(builtin), snapshot_prob, size, rng
        self.snapshots: list[str] = []
        self._count = 0

    def add(self, actor: Any) -> str:
        """Exports actor as the newest snapshot; returns its agent spec."""
        name = f"snapshot-{self._count:05d}.npz"
        self._count += 1
        export(actor, self.folder / name, self.env_id)
        self.snapshots.append(name)
        if len(self.snapshots) > self.size:
            (self.folder / self.snapshots.pop(0)).unlink(missing_ok=True)
        return name

    def lineup(self, seats: int) -> list[str]:
        """Agent specs for `seats` opponent seats."""
        out = []
        for _ in range(seats):
            if self.snapshots and (not self.builtin or self.rng.random() < self.snapshot_prob):
                out.append("policy@weights=" + self.snapshots[int(self.rng.integers(len(self.snapshots)))])
            else:
                out.append(self.builtin[int(self.rng.integers(len(self.builtin)))])
        return out


class SelfPlayEnvs:
    """``groups`` make_vec sessions of one private server (serving the
    pool's folder) that together hold num_envs environments, each with one
    learner seat rotated per episode and a lineup of opponents from the
    pool; stepped one after the other and concatenated."""

    def __init__(self, cfg: PPOConfig, pool: OpponentPool, players: int):
        from ._server import LocalServer

        self.cfg, self.pool, self.players = cfg, pool, players
        self.server = LocalServer(args=["--weights", str(pool.folder)])
        n, g = cfg.num_envs, max(1, min(cfg.opponent_groups, cfg.num_envs))
        self.sizes = [n // g + (1 if k < n % g else 0) for k in range(g)]
        self.venvs: list[Any] = []
        self.episode = 0

    def remake(self) -> tuple[NDArray[Any], NDArray[Any]]:
        """New lineups for every group; returns the first obs and masks."""
        from .vector import GalaxyGymVectorEnv

        self.close_sessions()
        obs, masks = [], []
        for k, size in enumerate(self.sizes):
            v = GalaxyGymVectorEnv(self.cfg.env_id, size, url=self.server.url, autoreset_mode="same_step",
                                   opponents=self.pool.lineup(self.players - 1), learner_seats=[0],
                                   seat_rule="rotate", **self.cfg.params)
            self.venvs.append(v)
            o, info = v.reset(seed=[episode_seed(self.cfg.seed, self.episode + i) for i in range(size)])
            self.episode += size
            obs.append(o)
            masks.append(info["action_mask"].astype(bool))
        return np.concatenate(obs), np.concatenate(masks)

    def step(self, actions: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
        """Steps every group: obs, learner rewards, dones, masks."""
        obs, rew, done, masks = [], [], [], []
        lo = 0
        for v, size in zip(self.venvs, self.sizes):
            o, r, te, tr, info = v.step(actions[lo:lo + size])
            lo += size
            obs.append(o)
            rew.append(r)
            done.append(te | tr)
            masks.append(info["action_mask"].astype(bool))
        return np.concatenate(obs), np.concatenate(rew), np.concatenate(done), np.concatenate(masks)

    def close_sessions(self) -> None:
        for v in self.venvs:
            v.close()
        self.venvs = []

    def close(self) -> None:
        self.close_sessions()
        self.server.stop()


class SingleEnvs:
    """make_vec's same_step batch of a one-player game, as SelfPlayEnvs."""

    def __init__(self, cfg: PPOConfig):
        from . import make_vec

        self.cfg = cfg
        self.venv: Any = make_vec(cfg.env_id, cfg.num_envs, url=cfg.url, autoreset_mode="same_step", **cfg.params)
        self.num_players = self.venv.num_players

    def remake(self) -> tuple[NDArray[Any], NDArray[Any]]:
        obs, infos = self.venv.reset(seed=self.cfg.seed)
        return obs, infos["action_mask"].astype(bool)

    def step(self, actions: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
        obs, reward, term, trunc, infos = self.venv.step(actions)
        return obs, reward, term | trunc, infos["action_mask"].astype(bool)

    def close(self) -> None:
        self.venv.close()


def collect(actor: Any, critic: Any, envs: Any, buf: Rollout, obs: NDArray[Any], mask: NDArray[Any],
            cfg: PPOConfig, gen: Any, ep_return: NDArray[Any], finished: list[float]) -> tuple[Any, Any, Any]:
    """Fills buf with one rollout from (obs, mask); returns the next obs,
    mask and the critic's value of the next obs. Ended episodes' unscaled
    returns are appended to finished."""
    torch = _torch()
    with torch.no_grad():
        for t in range(buf.obs.shape[0]):
            o, m = torch.from_numpy(obs), torch.from_numpy(mask)
            logits = _masked(actor(o), m)
            action = torch.multinomial(torch.softmax(logits, -1), 1, generator=gen).squeeze(-1)
            buf.obs[t], buf.mask[t], buf.act[t] = o, m, action
            buf.logp[t] = torch.log_softmax(logits, -1).gather(1, action.view(-1, 1)).squeeze(-1)
            buf.val[t] = critic(o).squeeze(-1)
            obs, reward, done, mask = envs.step(action.numpy())
            ep_return += reward
            if done.any():
                finished.extend(ep_return[done].tolist())
                ep_return[done] = 0
            buf.rew[t] = torch.from_numpy(reward * cfg.reward_scale).float()
            buf.done[t] = torch.from_numpy(done.astype(np.float32))
        next_value = critic(torch.from_numpy(obs)).squeeze(-1)
    return obs, mask, next_value


def gae(buf: Rollout, next_value: Any, gamma: float, lam: float) -> tuple[Any, Any]:
    """Advantages and returns (T, N) by GAE(gamma, lam); an ended episode
    bootstraps nothing."""
    torch = _torch()
    t_len, n = buf.rew.shape
    adv = torch.zeros((t_len, n))
    last = torch.zeros(n)
    for t in reversed(range(t_len)):
        nv = next_value if t == t_len - 1 else buf.val[t + 1]
        nonterminal = 1.0 - buf.done[t]
        delta = buf.rew[t] + gamma * nv * nonterminal - buf.val[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + buf.val


def update(actor: Any, critic: Any, opt_pi: Any, opt_v: Any, buf: Rollout, adv: Any, ret: Any, cfg: PPOConfig,
           gen: Any, stats: dict[str, list[float]], warm: bool) -> None:
    """The epochs of one PPO update over the rollout (the critic only while
    warm); appends each minibatch's losses to stats."""
    torch = _torch()
    size_all = buf.act.numel()
    b_obs, b_mask = buf.obs.reshape(size_all, -1), buf.mask.reshape(size_all, -1)
    b_act, b_logp, b_adv, b_ret = buf.act.reshape(-1), buf.logp.reshape(-1), adv.reshape(-1), ret.reshape(-1)
    size = size_all // cfg.minibatches
    epochs_run = 0
    for _ in range(cfg.epochs):
        perm = torch.randperm(size_all, generator=gen)
        epochs_run += 1
        for k in range(cfg.minibatches):
            idx = perm[k * size:(k + 1) * size]
            v_loss = 0.5 * (critic(b_obs[idx]).squeeze(-1) - b_ret[idx]).pow(2).mean()
            opt_v.zero_grad()
            (cfg.vf_coef * v_loss).backward()
            torch.nn.utils.clip_grad_norm_(critic.parameters(), cfg.max_grad_norm)
            opt_v.step()
            stats.setdefault("value_loss", []).append(float(v_loss))
            if warm:
                continue
            logp_all = torch.log_softmax(_masked(actor(b_obs[idx]), b_mask[idx]), -1)
            log_ratio = logp_all.gather(1, b_act[idx].view(-1, 1)).squeeze(-1) - b_logp[idx]
            ratio = log_ratio.exp()
            a = b_adv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
            p = logp_all.exp()
            entropy = -(p * torch.where(b_mask[idx], logp_all, torch.zeros_like(p))).sum(-1).mean()
            opt_pi.zero_grad()
            (pg_loss - cfg.ent_coef * entropy).backward()
            torch.nn.utils.clip_grad_norm_(actor.parameters(), cfg.max_grad_norm)
            opt_pi.step()
            with torch.no_grad():
                kl = float(((ratio - 1) - log_ratio).mean())
                stats.setdefault("policy_loss", []).append(float(pg_loss))
                stats.setdefault("entropy", []).append(float(entropy))
                stats.setdefault("approx_kl", []).append(kl)
                stats.setdefault("clip_frac", []).append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
            if cfg.target_kl is not None and kl > cfg.target_kl:
                stats.setdefault("epochs_run", []).append(float(epochs_run))
                return
    stats.setdefault("epochs_run", []).append(float(epochs_run))


def evaluate_against(actor: Any, path: str | os.PathLike[str], cfg: PPOConfig, episodes: int,
                     players: int) -> dict[str, Any]:
    """Exports actor to path and plays it natively (greedy) against each of
    cfg.eval_opponents in every other seat, seats rotated (``galaxygym eval
    --seats policy@weights=PATH@greedy=true,OPP,... --rotate``, seeds from
    cfg.eval_seed). Returns, per opponent OPP, ``vs_OPP_mean_score``,
    ``vs_OPP_win_rate``, ``vs_OPP_mean_rank``, ``vs_OPP_score_diff`` (the
    actor's score minus OPP's, paired by deal), and eval_seconds."""
    import subprocess

    from ._server import binary_path

    started = time.time()
    export(actor, path, cfg.env_id)
    out: dict[str, Any] = {}
    for opp in cfg.eval_opponents:
        seats = ",".join([f"policy@weights={path}@greedy=true"] + [opp] * (players - 1))
        cmd = [binary_path(), "eval", "--env", cfg.env_id, "--seats", seats, "--rotate", "--episodes",
               str(max(1, episodes // players)), "--seed", str(cfg.eval_seed), "--format", "json"]
        for k, v in cfg.params.items():
            cmd += ["--env-param", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
        res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        me, other = res["agents"][0], res["agents"][1]
        out[f"vs_{opp}_mean_score"] = float(me["mean_score"])
        out[f"vs_{opp}_win_rate"] = float(me["win_rate"])
        out[f"vs_{opp}_mean_rank"] = float(me["mean_rank"])
        out[f"vs_{opp}_score_diff"] = -float(other["score_diff_vs_first"])
    out["eval_seconds"] = round(time.time() - started, 2)
    return out


def train(actor: Any, cfg: PPOConfig, critic: Any = None, log: Callable[[str], None] | None = print) -> dict[str, Any]:
    """Trains actor (a galaxygym.train network, uint8 obs (B, obs_size) ->
    logits (B, num_actions)) in place with masked PPO as cfg says (see
    :class:`PPOConfig`): through ``make_vec`` on a one-player game, by
    self-play against the pool on a multi-player one.

    Returns {"curve": [point, ...], "critic", "env_steps", "train_seconds",
    "wall_seconds", "settings"}. A point: env_steps, updates, seconds
    (training wall seconds so far), wall_seconds, phase ("start", "warmup"
    or "ppo"), train_return (mean unscaled return of the training episodes
    ended since the previous point, NaN if none), train_episodes, the means
    over the interval's minibatches of value_loss, policy_loss, entropy,
    approx_kl, clip_frac, epochs_run; with evaluation on a one-player game
    evaluate_point's fields (mean_score, ci95_low, ci95_high, win_rate,
    eval_episodes, eval_seconds), on a multi-player game
    :func:`evaluate_against`'s (the learning curve against fixed
    opponents) and pool (the snapshots held)."""
    torch = _torch()
    import tempfile

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    sample_gen = torch.Generator().manual_seed(cfg.seed)
    batch_gen = torch.Generator().manual_seed(cfg.seed + 1)
    if cfg.init_logit_scale != 1.0:
        if cfg.init_logit_scale <= 0:
            raise ValueError(f"init_logit_scale {cfg.init_logit_scale}: want a positive factor")
        with torch.no_grad():
            last = layers_of(actor)[-1]
            last.weight.mul_(cfg.init_logit_scale)
            last.bias.mul_(cfg.init_logit_scale)
    if critic is None:
        critic = make_critic(actor, cfg.critic_from_actor)
    final_eval = cfg.eval_episodes if cfg.final_eval_episodes is None else cfg.final_eval_episodes
    tmpdir = tempfile.TemporaryDirectory(prefix="galaxygym-ppo-")
    eval_path = Path(tmpdir.name) / "actor.npz"
    per_update, updates, warmup_updates = cfg.budget()
    marks = sorted({max(1, round(updates * (k + 1) / cfg.checkpoints)) for k in range(max(1, cfg.checkpoints))})
    settings = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(cfg).items()}
    settings.update(total_steps=updates * per_update, critic_warmup_steps=warmup_updates * per_update)
    opt_pi = torch.optim.Adam(actor.parameters(), lr=cfg.lr, eps=1e-5)
    opt_v = torch.optim.Adam(critic.parameters(), lr=cfg.critic_lr, eps=1e-5)

    envs: Any = SingleEnvs(cfg)
    players = envs.num_players
    pool = None
    if players > 1:
        envs.close()
        snap_dir = Path(tmpdir.name) / "pool"
        snap_dir.mkdir()
        pool = OpponentPool(snap_dir, cfg.env_id, cfg.builtin_opponents, cfg.snapshot_prob, cfg.pool_size,
                            np.random.default_rng(cfg.seed + 2))
        pool.add(actor)
        envs = SelfPlayEnvs(cfg, pool, players)
    obs_dim = int(np.prod(actor.obs_scale.shape))
    num_actions = int(layers_of(actor)[-1].out_features)
    buf = Rollout.zeros(int(cfg.rollout_steps), int(cfg.num_envs), obs_dim, num_actions)
    curve: list[dict[str, Any]] = []
    wall_start = time.time()
    train_seconds = 0.0
    stats: dict[str, list[float]] = {}
    finished: list[float] = []

    def add_point(env_steps: int, n_update: int, phase: str, episodes: int) -> None:
        point: dict[str, Any] = {"env_steps": env_steps, "updates": n_update, "seconds": round(train_seconds, 1),
                                 "phase": phase,
                                 "train_return": float(np.mean(finished)) if finished else float("nan"),
                                 "train_episodes": len(finished)}
        for k, v in stats.items():
            point[k] = float(np.mean(v)) if v else float("nan")
        if episodes > 0:
            actor.eval()
            if pool is None:
                point.update(evaluate_point(actor, eval_path, cfg.env_id, episodes, seed=cfg.eval_seed))
            else:
                point.update(evaluate_against(actor, eval_path, cfg, episodes, players))
            actor.train()
        if pool is not None:
            point["pool"] = list(pool.snapshots)
        point["wall_seconds"] = round(time.time() - wall_start, 1)
        curve.append(point)
        finished.clear()
        stats.clear()
        if log:
            log("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in point.items()
                          if k != "pool"))

    try:
        actor.eval()
        add_point(0, 0, "start", final_eval)
        actor.train()
        obs, mask = envs.remake()
        ep_return = np.zeros(cfg.num_envs)
        env_steps = n_update = 0
        deadline = None if cfg.minutes is None else cfg.minutes * 60.0
        while n_update < updates and (deadline is None or train_seconds < deadline):
            started = time.time()
            warm = n_update < warmup_updates
            frac = 1.0 - min(n_update, updates - 1) / updates if cfg.anneal else 1.0
            for g in opt_pi.param_groups:
                g["lr"] = cfg.lr * frac
            for g in opt_v.param_groups:
                g["lr"] = cfg.critic_lr * frac
            obs, mask, next_value = collect(actor, critic, envs, buf, obs, mask, cfg, sample_gen, ep_return, finished)
            adv, ret = gae(buf, next_value, cfg.gamma, cfg.gae_lambda)
            env_steps += per_update
            update(actor, critic, opt_pi, opt_v, buf, adv, ret, cfg, batch_gen, stats, warm)
            n_update += 1
            if pool is not None:
                if n_update % max(1, cfg.snapshot_every) == 0:
                    pool.add(actor)
                if n_update % max(1, cfg.lineup_every) == 0:
                    obs, mask = envs.remake()  # new lineups; the episodes cut here were bootstrapped by the critic
                    ep_return[:] = 0
            train_seconds += time.time() - started
            over = n_update >= updates or (deadline is not None and train_seconds >= deadline)
            phase = "warmup" if warm else "ppo"
            if over:
                add_point(env_steps, n_update, phase, final_eval)
            elif (n_update in marks) if deadline is None else (train_seconds >= deadline * len(curve) / cfg.checkpoints):
                add_point(env_steps, n_update, phase, cfg.eval_episodes)
            if log and n_update % max(1, updates // 50) == 0:
                log(f"update {n_update}/{updates}  steps {env_steps}  {env_steps / max(train_seconds, 1e-9):.0f} steps/s")
    finally:
        envs.close()
        tmpdir.cleanup()
    actor.eval()
    return {"curve": curve, "critic": critic, "env_steps": env_steps, "train_seconds": round(train_seconds, 1),
            "wall_seconds": round(time.time() - wall_start, 1), "settings": settings}


def ppo(actor: Any, env_id: str = "galaxy-express-v1", total_steps: int = 1_000_000, *, critic: Any = None,
        log: Callable[[str], None] | None = print, eval_path: Any = None, **settings: Any) -> dict[str, Any]:
    """:func:`train` with the settings as keyword arguments (the fields of
    :class:`PPOConfig`; eval_path is accepted and ignored: evaluation
    exports to a temporary file)."""
    for k in ("builtin_opponents", "eval_opponents"):
        if k in settings:
            settings[k] = tuple(settings[k])
    return train(actor, PPOConfig(env_id=env_id, total_steps=total_steps, **settings), critic=critic, log=log)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """python -m galaxygym.ppo: masked PPO from a weights file
    (--init-weights, fine-tuning defaults) or from scratch (--arch,
    --channels, --hidden; scratch defaults). Writes the final actor as
    OUT (Go weights format), OUT with .pt (the actor's torch state_dict,
    loadable by galaxygym.train --init) and .critic.pt, and OUT with .json
    (command, settings, learning curve). Returns the JSON's dict."""
    ap = argparse.ArgumentParser(prog="python -m galaxygym.ppo", description=main.__doc__)
    ap.add_argument("--env", default="galaxy-express-v1")
    ap.add_argument("--init-weights", default=None, help="a Go weights file (.npz) to fine-tune")
    ap.add_argument("--arch", default="conv", choices=["conv", "conv-nocenter", "mlp"],
                    help="from scratch: the network (conv: over the board of the env's observation layout, "
                         "galaxygym.train.board_of; a game without a board needs mlp)")
    ap.add_argument("--channels", default="none", help="from scratch: conv channels, comma-separated, or none")
    ap.add_argument("--hidden", default="512,512", help="from scratch: hidden widths, comma-separated")
    ap.add_argument("--steps", type=int, default=4_000_000,
                    help="env steps (the budget; with --minutes, the step size's annealing horizon)")
    ap.add_argument("--minutes", type=float, default=None, help="budget in minutes of training (evaluation excluded)")
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--rollout-steps", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatches", type=int, default=8)
    for k, typ in [("lr", float), ("critic-lr", float), ("clip", float), ("target-kl", float),
                   ("ent-coef", float), ("critic-warmup-steps", int), ("init-logit-scale", float)]:
        ap.add_argument(f"--{k}", type=typ, default=None, help="default: the start's (FINETUNE_DEFAULTS or SCRATCH_DEFAULTS)")
    ap.add_argument("--no-target-kl", action="store_true", help="no target-KL early stop")
    ap.add_argument("--critic-from-actor", choices=["yes", "no"], default=None)
    ap.add_argument("--gamma", type=float, default=0.995)
    ap.add_argument("--reward-scale", type=float, default=1 / 20,
                    help="rewards x this before GAE (1/20 suits score rewards; 1 suits win/loss rewards)")
    ap.add_argument("--lineup-every", type=int, default=10,
                    help="self-play: updates between draws of the opponents' lineups (episodes in progress are cut)")
    ap.add_argument("--checkpoints", type=int, default=10)
    ap.add_argument("--eval-episodes", type=int, default=2000, help="native greedy games per checkpoint")
    ap.add_argument("--final-eval-episodes", type=int, default=10000, help="native greedy games at start and end")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--url", default=None, help="a galaxygym server (default: a private local one; self-play "
                    "always runs its own, which serves the snapshots)")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="an environment parameter (players=4), repeatable")
    ap.add_argument("--opponents", default="random,heuristic",
                    help="self-play: the built-in agents of the opponent pool, comma-separated")
    ap.add_argument("--snapshot-prob", type=float, default=0.5,
                    help="self-play: chance that an opponent seat gets a past snapshot rather than a built-in agent")
    ap.add_argument("--snapshot-every", type=int, default=5, help="self-play: updates between snapshots")
    ap.add_argument("--pool-size", type=int, default=8, help="self-play: snapshots kept (the latest)")
    ap.add_argument("--eval-opponents", default="random,heuristic",
                    help="self-play: the fixed opponents of the learning curve, comma-separated")
    ap.add_argument("--out", required=True, help="the final actor's weights file (.npz)")
    a = ap.parse_args(argv)
    torch = _torch()
    torch.manual_seed(a.seed)
    if a.threads:
        torch.set_num_threads(a.threads)
    defaults = dict(FINETUNE_DEFAULTS if a.init_weights else SCRATCH_DEFAULTS)
    for k in ("lr", "critic_lr", "clip", "target_kl", "ent_coef", "critic_warmup_steps", "init_logit_scale"):
        if getattr(a, k) is not None:
            defaults[k] = getattr(a, k)
    if a.no_target_kl:
        defaults["target_kl"] = None
    if a.critic_from_actor is not None:
        defaults["critic_from_actor"] = a.critic_from_actor == "yes"
    if a.init_weights:
        actor = load_torch_policy(a.init_weights)
    else:
        actor = _scratch_actor(a)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cfg = PPOConfig(env_id=a.env, total_steps=a.steps, minutes=a.minutes, num_envs=a.num_envs,
                    rollout_steps=a.rollout_steps, epochs=a.epochs, minibatches=a.minibatches, gamma=a.gamma,
                    reward_scale=a.reward_scale, lineup_every=a.lineup_every,
                    seed=a.seed, url=a.url, checkpoints=a.checkpoints, eval_episodes=a.eval_episodes,
                    final_eval_episodes=a.final_eval_episodes, threads=a.threads, params=_params(a.param),
                    builtin_opponents=_names(a.opponents), snapshot_prob=a.snapshot_prob,
                    snapshot_every=a.snapshot_every, pool_size=a.pool_size,
                    eval_opponents=_names(a.eval_opponents), **defaults)
    res = train(actor, cfg)
    torch.save(actor.state_dict(), out.with_suffix(".pt"))
    torch.save(res["critic"].state_dict(), out.with_suffix(".critic.pt"))
    meta = export(actor, out, a.env)
    doc = {"command": "python -m galaxygym.ppo " + " ".join(argv if argv is not None else sys.argv[1:]),
           "init_weights": a.init_weights, "settings": res["settings"], "env_steps": res["env_steps"],
           "train_seconds": res["train_seconds"], "wall_seconds": res["wall_seconds"], "meta": meta,
           "curve": res["curve"]}
    out.with_suffix(".json").write_text(json.dumps(json_safe(doc), indent=1, allow_nan=False))
    print("wrote", out)
    return doc


def _names(s: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in s.split(",") if x.strip())


def _params(kvs: Sequence[str]) -> dict[str, Any]:
    """--param KEY=VALUE list -> parameters (ints where they parse)."""
    out: dict[str, Any] = {}
    for kv in kvs:
        k, sep, v = kv.partition("=")
        if not sep:
            raise SystemExit(f"--param {kv!r}: want KEY=VALUE")
        try:
            out[k.strip()] = int(v)
        except ValueError:
            out[k.strip()] = {"true": True, "false": False}.get(v.strip().lower(), v.strip())
    return out


def _scratch_actor(a: argparse.Namespace) -> Any:
    """A fresh actor of --arch/--channels/--hidden for env a.env."""
    from . import make_vec
    envs: Any
    with make_vec(a.env, 1, url=a.url, **_params(a.param)) as envs:
        high = envs.single_observation_space.high.reshape(-1).astype(np.float32)
        num_actions = int(envs.single_action_space.n)
        spec = dict(envs.game_spec)
    scale: NDArray[Any] = (1.0 / np.maximum(high, 1.0)).astype(np.float32)
    hidden = tuple(int(h) for h in a.hidden.split(",") if h.strip())
    kw: dict[str, Any] = {"hidden": hidden, "activation": "relu"}
    if a.arch != "mlp":
        kw["channels"] = tuple(int(c) for c in a.channels.split(",") if c.strip() and c != "none")
    # The conv archs' board: from the server's observation layout of a.env
    # (train.board_of); NoBoardError for a game without one.
    return make_policy(a.arch, scale, num_actions, env_id=spec, **kw)


if __name__ == "__main__":
    main()
