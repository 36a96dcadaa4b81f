"""Evaluation of a :mod:`galaxygym.ppo` actor: exported to a Go weights
file and played natively by ``galaxygym eval`` (greedy, seeded games),
alone (:func:`evaluate_point`) or against fixed opponents
(:func:`evaluate_against`)."""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from .train import evaluate_native, export

if TYPE_CHECKING:
    from .ppo import PPOConfig

__all__ = ["evaluate_point", "evaluate_against"]


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
