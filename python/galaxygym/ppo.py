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

Command line (``python -m galaxygym.ppo --help``)::

    python -m galaxygym.ppo --init-weights notebooks/weights/galaxy-express-v1-bc.npz \\
        --minutes 25 --threads 1 --out /tmp/ppo/ft.npz
    python -m galaxygym.ppo --arch conv --channels none --hidden 512,512 --minutes 25 --threads 1 \\
        --out /tmp/ppo/scratch.npz
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
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .train import GALAXY_EXPRESS_BOARD, evaluate_native, export, layers_of, make_policy

__all__ = ["FINETUNE_DEFAULTS", "SCRATCH_DEFAULTS", "load_torch_policy", "make_critic", "ppo",
           "evaluate_point", "json_safe", "main"]

#: PPO settings when fine-tuning from a weights file. Measured on the
#: committed clone (galaxy-express-v1-bc.npz, 95.25 greedy over 5,000
#: native games; 600k-step runs, 200k of them critic warm-up, seed 0, then
#: 5,000 games): actor lr 1e-5 -> 98.15, 3e-5 -> 99.67, 1e-4 -> 100.40
#: [99.94, 100.86]; none of them fell below the start at any checkpoint,
#: and the approximate KL per update stayed under 1e-3 even at 1e-4, so
#: the target-KL stop is a guard rather than the brake. The clip, target
#: KL, entropy weight and warm-up length were set, not tuned (no ablation
#: run). Full runs and figures: README "Learning baselines".
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


def ppo(actor: Any, env_id: str = "galaxy-express-v1", total_steps: int = 1_000_000, *,
        minutes: float | None = None, num_envs: int = 64, rollout_steps: int = 128, epochs: int = 4,
        minibatches: int = 8, lr: float = 3e-4, critic_lr: float = 3e-4, clip: float = 0.2,
        target_kl: float | None = None, ent_coef: float = 0.01, vf_coef: float = 0.5, gamma: float = 0.995,
        gae_lambda: float = 0.95, reward_scale: float = 1 / 20, max_grad_norm: float = 0.5,
        anneal: bool = True, critic_warmup_steps: int = 0, critic_from_actor: bool = False,
        critic: Any = None, init_logit_scale: float = 1.0, seed: int = 0, url: str | None = None,
        checkpoints: int = 10,
        eval_episodes: int = 2000, final_eval_episodes: int | None = None, eval_seed: int = 1,
        eval_path: str | os.PathLike[str] | None = None, threads: int | None = None,
        log: Callable[[str], None] | None = print) -> dict[str, Any]:
    """Trains actor (a galaxygym.train network, uint8 obs (B, obs_size) ->
    logits (B, num_actions)) in place with masked PPO on `num_envs`
    environments of env_id (``make_vec(..., autoreset_mode="same_step")``,
    env i seeded seed + i).

    Budget: `total_steps` env steps (decisions; rounded up to whole rollouts
    of num_envs x rollout_steps, the horizon of the step size's annealing),
    cut short, when `minutes` is given, after the rollout that passes that
    many minutes of training wall time (evaluation excluded). init_logit_scale
    (> 0) first multiplies the actor's last layer (weights and bias), so its
    logits, in place: greedy play is unchanged, sampling sharper (or flatter)
    for PPO's rollouts. The first `critic_warmup_steps` env steps train only
    the critic (the policy frozen: rollouts of the start policy), which
    count in the budget.

    Each update: a rollout of rollout_steps per env, GAE(gamma, gae_lambda)
    on rewards x reward_scale (an ended episode bootstraps nothing), then
    `epochs` passes of `minibatches` minibatches: clipped policy loss on
    per-minibatch normalised advantages, entropy over the legal actions
    (weight ent_coef), value loss 0.5 (v - return)^2 x vf_coef on the
    critic; separate Adam optimisers (lr for the actor, critic_lr for the
    critic), linearly annealed to 0 if anneal, gradients clipped to
    max_grad_norm. target_kl: stop the update's remaining epochs once a
    minibatch's approximate KL (mean of (r - 1) - log r) exceeds it.

    Randomness: actions sampled with torch.multinomial from a torch
    Generator seeded with seed, minibatches from another; the critic's
    fresh initialisation from torch.manual_seed(seed). Same seed, same
    threads: same curve (timings aside).

    Evaluation: at the start (before any update), at `checkpoints` evenly
    spaced points of the budget (of steps, or of minutes when given) and at
    the end the actor is
    exported to eval_path (a temporary file if None) and played natively,
    greedy, over eval_episodes seeded games (seeds eval_seed...;
    final_eval_episodes at the start and the end, default eval_episodes).
    0 episodes: no evaluation.

    Returns {"curve": [point, ...], "critic": the critic network,
    "env_steps", "train_seconds", "wall_seconds", "settings": dict}. A point:
    env_steps (int, so far), updates, seconds (training wall seconds so
    far), wall_seconds (with evaluations), phase ("start", "warmup" or
    "ppo"), train_return (mean unscaled return of the training episodes
    ended since the previous point, NaN if none; the JSON file written by
    main has null there, :func:`json_safe`), train_episodes, and the
    means over the last interval's minibatches of value_loss (scaled
    units), policy_loss, entropy (nats), approx_kl, clip_frac, epochs_run;
    with evaluation also evaluate_point's fields (mean_score, ci95_low,
    ci95_high, win_rate, eval_episodes, eval_seconds)."""
    torch = _torch()
    import tempfile

    from . import make_vec

    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    sample_gen = torch.Generator().manual_seed(seed)
    batch_gen = torch.Generator().manual_seed(seed + 1)
    if init_logit_scale != 1.0:
        if init_logit_scale <= 0:
            raise ValueError(f"init_logit_scale {init_logit_scale}: want a positive factor")
        with torch.no_grad():  # logits x scale: the argmax, so greedy play, is unchanged
            last = layers_of(actor)[-1]
            last.weight.mul_(init_logit_scale)
            last.bias.mul_(init_logit_scale)
    if critic is None:
        critic = make_critic(actor, critic_from_actor)
    final_eval_episodes = eval_episodes if final_eval_episodes is None else final_eval_episodes
    tmpdir = None
    if eval_path is None:
        tmpdir = tempfile.TemporaryDirectory(prefix="galaxygym-ppo-")
        eval_path = Path(tmpdir.name) / "actor.npz"

    n, t_len = int(num_envs), int(rollout_steps)
    per_update = n * t_len
    updates = max(1, math.ceil(total_steps / per_update))
    warmup_updates = math.ceil(critic_warmup_steps / per_update) if critic_warmup_steps > 0 else 0
    marks = sorted({max(1, round(updates * (k + 1) / checkpoints)) for k in range(max(1, checkpoints))})
    settings = dict(env_id=env_id, total_steps=updates * per_update, minutes=minutes, num_envs=n,
                    rollout_steps=t_len, epochs=epochs, minibatches=minibatches, lr=lr, critic_lr=critic_lr,
                    clip=clip, target_kl=target_kl, ent_coef=ent_coef, vf_coef=vf_coef, gamma=gamma,
                    gae_lambda=gae_lambda, reward_scale=reward_scale, max_grad_norm=max_grad_norm, anneal=anneal,
                    critic_warmup_steps=warmup_updates * per_update, critic_from_actor=critic_from_actor,
                    init_logit_scale=init_logit_scale, seed=seed, checkpoints=checkpoints,
                    eval_episodes=eval_episodes,
                    final_eval_episodes=final_eval_episodes, eval_seed=eval_seed, threads=threads)
    opt_pi = torch.optim.Adam(actor.parameters(), lr=lr, eps=1e-5)
    opt_v = torch.optim.Adam(critic.parameters(), lr=critic_lr, eps=1e-5)

    envs: Any = make_vec(env_id, n, url=url, autoreset_mode="same_step")
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    num_actions = int(envs.single_action_space.n)
    buf_obs = torch.zeros((t_len, n, obs_dim), dtype=torch.uint8)
    buf_mask = torch.zeros((t_len, n, num_actions), dtype=torch.bool)
    buf_act = torch.zeros((t_len, n), dtype=torch.long)
    buf_logp = torch.zeros((t_len, n))
    buf_val = torch.zeros((t_len, n))
    buf_rew = torch.zeros((t_len, n))
    buf_done = torch.zeros((t_len, n))

    curve: list[dict[str, Any]] = []
    wall_start = time.time()
    train_seconds = 0.0
    stats: dict[str, list[float]] = {}
    finished: list[float] = []

    def add_point(env_steps: int, update: int, phase: str, episodes: int) -> None:
        point: dict[str, Any] = {"env_steps": env_steps, "updates": update, "seconds": round(train_seconds, 1),
                                 "phase": phase,
                                 "train_return": float(np.mean(finished)) if finished else float("nan"),
                                 "train_episodes": len(finished)}
        for k, v in stats.items():
            point[k] = float(np.mean(v)) if v else float("nan")
        if episodes > 0:
            actor.eval()
            point.update(evaluate_point(actor, eval_path, env_id, episodes, seed=eval_seed))
            actor.train()
        point["wall_seconds"] = round(time.time() - wall_start, 1)
        curve.append(point)
        finished.clear()
        stats.clear()
        if log:
            log("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in point.items()))

    def masked(logits: Any, mask: Any) -> Any:
        return torch.where(mask, logits, torch.full_like(logits, -1e9))

    try:
        actor.eval()
        add_point(0, 0, "start", final_eval_episodes)
        actor.train()
        obs, infos = envs.reset(seed=seed)
        mask = infos["action_mask"].astype(bool)
        ep_return = np.zeros(n)
        env_steps = 0
        update = 0
        deadline = None if minutes is None else minutes * 60.0
        while update < updates and (deadline is None or train_seconds < deadline):
            started = time.time()
            warm = update < warmup_updates
            frac = 1.0 - min(update, updates - 1) / updates if anneal else 1.0
            for g in opt_pi.param_groups:
                g["lr"] = lr * frac
            for g in opt_v.param_groups:
                g["lr"] = critic_lr * frac
            # Rollout.
            with torch.no_grad():
                for t in range(t_len):
                    o = torch.from_numpy(obs)
                    m = torch.from_numpy(mask)
                    logits = masked(actor(o), m)
                    probs = torch.softmax(logits, -1)
                    action = torch.multinomial(probs, 1, generator=sample_gen).squeeze(-1)
                    buf_obs[t], buf_mask[t], buf_act[t] = o, m, action
                    buf_logp[t] = torch.log_softmax(logits, -1).gather(1, action.view(-1, 1)).squeeze(-1)
                    buf_val[t] = critic(o).squeeze(-1)
                    obs, reward, terminated, truncated, infos = envs.step(action.numpy())
                    done = terminated | truncated
                    ep_return += reward
                    if done.any():
                        finished.extend(ep_return[done].tolist())
                        ep_return[done] = 0
                    buf_rew[t] = torch.from_numpy(reward * reward_scale).float()
                    buf_done[t] = torch.from_numpy(done.astype(np.float32))
                    mask = infos["action_mask"].astype(bool)
                next_value = critic(torch.from_numpy(obs)).squeeze(-1)
                adv = torch.zeros((t_len, n))
                last = torch.zeros(n)
                for t in reversed(range(t_len)):
                    nv = next_value if t == t_len - 1 else buf_val[t + 1]
                    nonterminal = 1.0 - buf_done[t]
                    delta = buf_rew[t] + gamma * nv * nonterminal - buf_val[t]
                    last = delta + gamma * gae_lambda * nonterminal * last
                    adv[t] = last
                ret = adv + buf_val
            env_steps += per_update
            b_obs, b_mask, b_act = buf_obs.reshape(per_update, -1), buf_mask.reshape(per_update, -1), buf_act.reshape(-1)
            b_logp, b_adv, b_ret = buf_logp.reshape(-1), adv.reshape(-1), ret.reshape(-1)
            size = per_update // minibatches
            epochs_run = 0
            stop = False
            for _ in range(epochs):
                perm = torch.randperm(per_update, generator=batch_gen)
                epochs_run += 1
                for k in range(minibatches):
                    idx = perm[k * size:(k + 1) * size]
                    value = critic(b_obs[idx]).squeeze(-1)
                    v_loss = 0.5 * (value - b_ret[idx]).pow(2).mean()
                    opt_v.zero_grad()
                    (vf_coef * v_loss).backward()
                    torch.nn.utils.clip_grad_norm_(critic.parameters(), max_grad_norm)
                    opt_v.step()
                    stats.setdefault("value_loss", []).append(float(v_loss))
                    if warm:
                        continue
                    logits = masked(actor(b_obs[idx]), b_mask[idx])
                    logp_all = torch.log_softmax(logits, -1)
                    logp = logp_all.gather(1, b_act[idx].view(-1, 1)).squeeze(-1)
                    log_ratio = logp - b_logp[idx]
                    ratio = log_ratio.exp()
                    a = b_adv[idx]
                    a = (a - a.mean()) / (a.std() + 1e-8)
                    pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - clip, 1 + clip)).mean()
                    p = logp_all.exp()
                    entropy = -(p * torch.where(b_mask[idx], logp_all, torch.zeros_like(p))).sum(-1).mean()
                    loss = pg_loss - ent_coef * entropy
                    opt_pi.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(actor.parameters(), max_grad_norm)
                    opt_pi.step()
                    with torch.no_grad():
                        kl = float(((ratio - 1) - log_ratio).mean())
                        stats.setdefault("policy_loss", []).append(float(pg_loss))
                        stats.setdefault("entropy", []).append(float(entropy))
                        stats.setdefault("approx_kl", []).append(kl)
                        stats.setdefault("clip_frac", []).append(float(((ratio - 1).abs() > clip).float().mean()))
                    if target_kl is not None and kl > target_kl:
                        stop = True
                        break
                if stop:
                    break
            stats.setdefault("epochs_run", []).append(float(epochs_run))
            update += 1
            train_seconds += time.time() - started
            over = update >= updates or (deadline is not None and train_seconds >= deadline)
            if over:
                add_point(env_steps, update, "warmup" if warm else "ppo", final_eval_episodes)
            elif (update in marks) if deadline is None else (train_seconds >= deadline * len(curve) / checkpoints):
                add_point(env_steps, update, "warmup" if warm else "ppo", eval_episodes)
            if log and update % max(1, updates // 50) == 0:
                log(f"update {update}/{updates}  steps {env_steps}  {env_steps / max(train_seconds, 1e-9):.0f} steps/s")
    finally:
        envs.close()
        if tmpdir is not None:
            tmpdir.cleanup()
    actor.eval()
    return {"curve": curve, "critic": critic, "env_steps": env_steps, "train_seconds": round(train_seconds, 1),
            "wall_seconds": round(time.time() - wall_start, 1), "settings": settings}


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
    ap.add_argument("--arch", default="conv", choices=["conv", "conv-nocenter", "mlp"], help="from scratch: the network")
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
    ap.add_argument("--checkpoints", type=int, default=10)
    ap.add_argument("--eval-episodes", type=int, default=2000, help="native greedy games per checkpoint")
    ap.add_argument("--final-eval-episodes", type=int, default=10000, help="native greedy games at start and end")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--url", default=None, help="a galaxygym server (default: a private local one)")
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
    res = ppo(actor, a.env, a.steps, minutes=a.minutes, num_envs=a.num_envs, rollout_steps=a.rollout_steps,
              epochs=a.epochs, minibatches=a.minibatches, gamma=a.gamma, seed=a.seed, url=a.url,
              checkpoints=a.checkpoints, eval_episodes=a.eval_episodes, final_eval_episodes=a.final_eval_episodes,
              eval_path=out.with_suffix(".eval.npz"), threads=a.threads, **defaults)
    torch.save(actor.state_dict(), out.with_suffix(".pt"))
    torch.save(res["critic"].state_dict(), out.with_suffix(".critic.pt"))
    meta = export(actor, out, a.env)
    out.with_suffix(".eval.npz").unlink(missing_ok=True)
    doc = {"command": "python -m galaxygym.ppo " + " ".join(argv if argv is not None else sys.argv[1:]),
           "init_weights": a.init_weights, "settings": res["settings"], "env_steps": res["env_steps"],
           "train_seconds": res["train_seconds"], "wall_seconds": res["wall_seconds"], "meta": meta,
           "curve": res["curve"]}
    out.with_suffix(".json").write_text(json.dumps(json_safe(doc), indent=1, allow_nan=False))
    print("wrote", out)
    return doc


def _scratch_actor(a: argparse.Namespace) -> Any:
    """A fresh actor of --arch/--channels/--hidden for env a.env."""
    from . import make_vec
    envs: Any
    with make_vec(a.env, 1, url=a.url) as envs:
        high = envs.single_observation_space.high.reshape(-1).astype(np.float32)
        num_actions = int(envs.single_action_space.n)
    scale: NDArray[Any] = (1.0 / np.maximum(high, 1.0)).astype(np.float32)
    hidden = tuple(int(h) for h in a.hidden.split(",") if h.strip())
    kw: dict[str, Any] = {"hidden": hidden, "activation": "relu"}
    if a.arch != "mlp":
        kw["channels"] = tuple(int(c) for c in a.channels.split(",") if c.strip() and c != "none")
        if a.env != "galaxy-express-v1":
            raise ValueError("--arch conv knows Galaxy Express's board only; use --arch mlp")
        kw["board"] = dict(GALAXY_EXPRESS_BOARD)
    return make_policy(a.arch, scale, num_actions, **kw)


if __name__ == "__main__":
    main()
