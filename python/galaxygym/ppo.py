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
(:class:`PPOConfig`, :class:`OpponentPool`; docs/self-play.md). This module
holds the config record (:class:`PPOConfig`) and the loop (:func:`train`;
:func:`ppo` is :func:`train` with keywords); each other job has a module of
its own, and every name is importable from here: the PPO maths
(``_ppo_algo``: :func:`collect` a rollout, :func:`gae`, :func:`update` the
epochs of one update, :func:`make_critic`), the environments and opponent
pool (``_ppo_envs``), native evaluation (``_ppo_eval``), the command line
(``_ppo_cli``) and the torch networks (``_nets``: :func:`load_torch_policy`). The
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

import math
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ._nets import load_torch_policy
from ._ppo_algo import Rollout, collect, gae, make_critic, update
from ._ppo_cli import _names, _params, _scratch_actor, json_safe, main
from ._ppo_envs import OpponentPool, SelfPlayEnvs, SingleEnvs
from ._ppo_eval import evaluate_against, evaluate_point
from .train import layers_of

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

    Device: the updates' gradient steps run on ``device`` (``"auto"``, the
    default: a CUDA GPU where torch sees one, else the CPU; ``"cpu"``,
    ``"cuda"``, ``"cuda:N"``; :func:`galaxygym.train.training_device`, whose
    ValueError a device torch does not see raises); the rollouts, the
    snapshots and the evaluations stay on the CPU, the networks moving to
    the device for each update and back. On the CPU the results are the
    same bytes as without the setting.

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
    device: str = "auto"
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
    from .train import device_name, training_device
    torch = _torch()
    dev = training_device(cfg.device)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    sample_gen = torch.Generator().manual_seed(cfg.seed)
    batch_gen = torch.Generator().manual_seed(cfg.seed + 1)
    _scale_logits(actor, cfg.init_logit_scale)
    if critic is None:
        critic = make_critic(actor, cfg.critic_from_actor)
    final_eval = cfg.eval_episodes if cfg.final_eval_episodes is None else cfg.final_eval_episodes
    tmpdir = tempfile.TemporaryDirectory(prefix="galaxygym-ppo-")
    per_update, updates, warmup_updates = cfg.budget()
    marks = sorted({max(1, round(updates * (k + 1) / cfg.checkpoints)) for k in range(max(1, cfg.checkpoints))})
    settings = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(cfg).items()}
    settings.update(total_steps=updates * per_update, critic_warmup_steps=warmup_updates * per_update,
                    device_used=device_name(dev))
    opt_pi = torch.optim.Adam(actor.parameters(), lr=cfg.lr, eps=1e-5)
    opt_v = torch.optim.Adam(critic.parameters(), lr=cfg.critic_lr, eps=1e-5)
    envs, pool = _make_envs(actor, cfg, Path(tmpdir.name))
    obs_dim = int(np.prod(actor.obs_scale.shape))
    num_actions = int(layers_of(actor)[-1].out_features)
    features = list(getattr(actor, "action_features", None) or [])
    buf = Rollout.zeros(int(cfg.rollout_steps), int(cfg.num_envs), obs_dim, num_actions, len(features))
    players = 1 if pool is None else envs.players
    curve = _Curve(actor, cfg, pool, players, Path(tmpdir.name) / "actor.npz", log)
    env_steps = 0
    try:
        actor.eval()
        curve.add(0, 0, "start", final_eval)
        actor.train()
        obs, mask, afeat = envs.remake()
        ep_return = np.zeros(cfg.num_envs)
        n_update = 0
        deadline = None if cfg.minutes is None else cfg.minutes * 60.0
        while n_update < updates and (deadline is None or curve.train_seconds < deadline):
            started = time.time()
            warm = n_update < warmup_updates
            _anneal(opt_pi, opt_v, cfg, n_update, updates)
            obs, mask, next_value, afeat = collect(actor, critic, envs, buf, obs, mask, cfg, sample_gen, ep_return,
                                                   curve.finished, afeat)
            adv, ret = gae(buf, next_value, cfg.gamma, cfg.gae_lambda)
            env_steps += per_update
            actor.to(dev)  # no-ops on the CPU; Adam's state lives where the steps run
            critic.to(dev)
            update(actor, critic, opt_pi, opt_v, buf, adv, ret, cfg, batch_gen, curve.stats, warm, dev)
            actor.to("cpu")  # the rollouts, snapshots and evaluations run on the CPU
            critic.to("cpu")
            n_update += 1
            if pool is not None:
                if n_update % max(1, cfg.snapshot_every) == 0:
                    pool.add(actor)
                if n_update % max(1, cfg.lineup_every) == 0:
                    obs, mask, afeat = envs.remake()  # new lineups; the episodes cut here were bootstrapped by the critic
                    ep_return[:] = 0
            curve.train_seconds += time.time() - started
            over = n_update >= updates or (deadline is not None and curve.train_seconds >= deadline)
            phase = "warmup" if warm else "ppo"
            if over:
                curve.add(env_steps, n_update, phase, final_eval)
            elif (n_update in marks) if deadline is None else (
                    curve.train_seconds >= deadline * len(curve.points) / cfg.checkpoints):
                curve.add(env_steps, n_update, phase, cfg.eval_episodes)
            if log and n_update % max(1, updates // 50) == 0:
                log(f"update {n_update}/{updates}  steps {env_steps}  "
                    f"{env_steps / max(curve.train_seconds, 1e-9):.0f} steps/s")
    finally:
        envs.close()
        tmpdir.cleanup()
    actor.eval()
    return {"curve": curve.points, "critic": critic, "env_steps": env_steps,
            "train_seconds": round(curve.train_seconds, 1),
            "wall_seconds": round(time.time() - curve.wall_start, 1), "settings": settings}


def _scale_logits(actor: Any, factor: float) -> None:
    """Multiplies the actor's last layer (its logits) by factor (> 0; 1:
    nothing to do)."""
    if factor == 1.0:
        return
    if factor <= 0:
        raise ValueError(f"init_logit_scale {factor}: want a positive factor")
    torch = _torch()
    with torch.no_grad():
        last = layers_of(actor)[-1]
        last.weight.mul_(factor)
        last.bias.mul_(factor)


def _make_envs(actor: Any, cfg: PPOConfig, folder: Path) -> tuple[Any, OpponentPool | None]:
    """The run's environments: make_vec's batch for a one-player game, else
    self-play sessions around an opponent pool (kept in folder/pool, the
    initial actor its first snapshot), returned with the pool. An actor that
    reads the game's action features (weights format version 5) gets them
    from the server beside every observation (make's action_features),
    selected by name (ValueError for one the game does not declare)."""
    features = list(getattr(actor, "action_features", None) or [])
    envs: Any = SingleEnvs(cfg, features)
    players = envs.num_players
    if players == 1:
        return envs, None
    envs.close()
    snap_dir = folder / "pool"
    snap_dir.mkdir()
    pool = OpponentPool(snap_dir, cfg.env_id, cfg.builtin_opponents, cfg.snapshot_prob, cfg.pool_size,
                        np.random.default_rng(cfg.seed + 2))
    pool.add(actor)
    return SelfPlayEnvs(cfg, pool, players, features), pool


def _anneal(opt_pi: Any, opt_v: Any, cfg: PPOConfig, n_update: int, updates: int) -> None:
    """Sets both optimisers' step sizes for update n_update (linearly
    annealed to 0 over the run's updates when cfg.anneal)."""
    frac = 1.0 - min(n_update, updates - 1) / updates if cfg.anneal else 1.0
    for g in opt_pi.param_groups:
        g["lr"] = cfg.lr * frac
    for g in opt_v.param_groups:
        g["lr"] = cfg.critic_lr * frac


class _Curve:
    """A run's learning curve: the points so far, and what the next point
    sums up (the training episodes ended and the update statistics since
    the previous point, the training wall time)."""

    def __init__(self, actor: Any, cfg: PPOConfig, pool: OpponentPool | None, players: int, eval_path: Path,
                 log: Callable[[str], None] | None):
        self.actor, self.cfg, self.pool, self.eval_path, self.log = actor, cfg, pool, eval_path, log
        self.players = players
        self.points: list[dict[str, Any]] = []
        self.stats: dict[str, list[float]] = {}
        self.finished: list[float] = []
        self.wall_start = time.time()
        self.train_seconds = 0.0

    def add(self, env_steps: int, n_update: int, phase: str, episodes: int) -> None:
        """Appends a point (evaluating the actor over `episodes` games when
        > 0), logs it and starts the next interval."""
        finished, stats = self.finished, self.stats
        point: dict[str, Any] = {"env_steps": env_steps, "updates": n_update, "seconds": round(self.train_seconds, 1),
                                 "phase": phase,
                                 "train_return": float(np.mean(finished)) if finished else float("nan"),
                                 "train_episodes": len(finished)}
        for k, v in stats.items():
            point[k] = float(np.mean(v)) if v else float("nan")
        if episodes > 0:
            point.update(self._evaluate(episodes))
        if self.pool is not None:
            point["pool"] = list(self.pool.snapshots)
        point["wall_seconds"] = round(time.time() - self.wall_start, 1)
        self.points.append(point)
        finished.clear()
        stats.clear()
        if self.log:
            self.log("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in point.items()
                               if k != "pool"))

    def _evaluate(self, episodes: int) -> dict[str, Any]:
        self.actor.eval()
        try:
            if self.pool is None:
                return evaluate_point(self.actor, self.eval_path, self.cfg.env_id, episodes, seed=self.cfg.eval_seed)
            return evaluate_against(self.actor, self.eval_path, self.cfg, episodes, self.players)
        finally:
            self.actor.train()


def ppo(actor: Any, env_id: str = "galaxy-express-v1", total_steps: int = 1_000_000, *, critic: Any = None,
        log: Callable[[str], None] | None = print, eval_path: Any = None, **settings: Any) -> dict[str, Any]:
    """:func:`train` with the settings as keyword arguments (the fields of
    :class:`PPOConfig`; eval_path is accepted and ignored: evaluation
    exports to a temporary file)."""
    for k in ("builtin_opponents", "eval_opponents"):
        if k in settings:
            settings[k] = tuple(settings[k])
    return train(actor, PPOConfig(env_id=env_id, total_steps=total_steps, **settings), critic=critic, log=log)


if __name__ == "__main__":
    main()
