"""The command line of :mod:`galaxygym.ppo` (``python -m galaxygym.ppo``):
its arguments, the actor they describe and the files a run writes."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._nets import load_torch_policy
from .train import codes_from_layout, export, make_policy

__all__ = ["main", "json_safe"]


def _torch() -> Any:
    import torch
    return torch


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


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """python -m galaxygym.ppo: masked PPO from a weights file
    (--init-weights, fine-tuning defaults) or from scratch (--arch,
    --channels, --hidden; scratch defaults). Writes the final actor as
    OUT (Go weights format), OUT with .pt (the actor's torch state_dict,
    loadable by galaxygym.train --init) and .critic.pt, and OUT with .json
    (command, settings, learning curve). Returns the JSON's dict."""
    from .ppo import train
    from .train import device_of_command

    a = _parser().parse_args(argv)
    device_of_command(a.device)  # before a server starts
    torch = _torch()
    torch.manual_seed(a.seed)
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.init_weights:
        actor = load_torch_policy(a.init_weights)
    else:
        actor = _scratch_actor(a)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    res = train(actor, _config(a))
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


def _parser() -> argparse.ArgumentParser:
    """The arguments of python -m galaxygym.ppo."""
    ap = argparse.ArgumentParser(prog="python -m galaxygym.ppo", description=main.__doc__)
    ap.add_argument("--env", default="galaxy-express-v1")
    ap.add_argument("--init-weights", default=None, help="a Go weights file (.npz) to fine-tune")
    ap.add_argument("--arch", default="conv", choices=["conv", "conv-nocenter", "mlp"],
                    help="from scratch: the network (conv: over the board of the env's observation layout, "
                         "galaxygym.train.board_of; a game without a board needs mlp)")
    ap.add_argument("--channels", default="none", help="from scratch: conv channels, comma-separated, or none")
    ap.add_argument("--hidden", default="512,512", help="from scratch: hidden widths, comma-separated")
    ap.add_argument("--codes", action="store_true",
                    help="from scratch: also read the observation layout's codes (card kinds, seats) one-hot "
                         "(weights format version 4)")
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
    ap.add_argument("--device", default="auto",
                    help="where the updates' gradient steps run: auto (a CUDA GPU where torch sees one, else the CPU), "
                         "cpu, cuda, cuda:N; the rollouts stay on the CPU")
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
    return ap


def _config(a: argparse.Namespace) -> Any:
    """The run's PPOConfig: the start's defaults (FINETUNE_DEFAULTS with
    --init-weights, else SCRATCH_DEFAULTS), overridden by the arguments."""
    from .ppo import FINETUNE_DEFAULTS, SCRATCH_DEFAULTS, PPOConfig

    defaults = dict(FINETUNE_DEFAULTS if a.init_weights else SCRATCH_DEFAULTS)
    for k in ("lr", "critic_lr", "clip", "target_kl", "ent_coef", "critic_warmup_steps", "init_logit_scale"):
        if getattr(a, k) is not None:
            defaults[k] = getattr(a, k)
    if a.no_target_kl:
        defaults["target_kl"] = None
    if a.critic_from_actor is not None:
        defaults["critic_from_actor"] = a.critic_from_actor == "yes"
    return PPOConfig(env_id=a.env, total_steps=a.steps, minutes=a.minutes, num_envs=a.num_envs,
                     rollout_steps=a.rollout_steps, epochs=a.epochs, minibatches=a.minibatches, gamma=a.gamma,
                     reward_scale=a.reward_scale, lineup_every=a.lineup_every,
                     seed=a.seed, url=a.url, checkpoints=a.checkpoints, eval_episodes=a.eval_episodes,
                     final_eval_episodes=a.final_eval_episodes, threads=a.threads, device=a.device,
                     params=_params(a.param),
                     builtin_opponents=_names(a.opponents), snapshot_prob=a.snapshot_prob,
                     snapshot_every=a.snapshot_every, pool_size=a.pool_size,
                     eval_opponents=_names(a.eval_opponents), **defaults)


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
    if getattr(a, "codes", False):
        # The codes of the server's observation layout, read one-hot (weights format version 4).
        kw["codes"] = codes_from_layout(spec.get("observation_layout") or {})
        if not kw["codes"]:
            raise ValueError(f"--codes: the observation layout of {a.env} declares no codes")
    # The conv archs' board: from the server's observation layout of a.env
    # (train.board_of); NoBoardError for a game without one.
    return make_policy(a.arch, scale, num_actions, env_id=spec, **kw)
