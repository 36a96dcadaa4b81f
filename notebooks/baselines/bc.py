"""Behaviour cloning of a Go agent's dataset for any galaxygym environment,
exported in the Go ``policy`` agent's weights format (docs/policy-format.md).

The multi-player games observe far more bytes than a position uses (Pilots
of Gallaxia: 7,954 bytes, of which 1,536 are ever nonzero in 1,500
two-player games of the heuristic, the rest belonging to absent seats and
board cells nothing reached; Express: 317 of 1,058; Galaxy Fighters: 1,275
of 4,092). On a 2-core machine a dense first layer over every byte costs
most of the training time, so this script

1. reads the dataset's parts in record batches (pyarrow) and keeps only the
   observation columns that are nonzero somewhere in the data (the
   "active" columns) and the decisions (rows with an action);
2. trains an MLP (ReLU) over the active columns scaled by 1 / obs_high,
   masked cross-entropy over the legal actions against the dataset's
   actions (for a dataset played by one agent in every seat, every decision
   is that agent's), Adam with a cosine-annealed step size, the last
   ``--holdout`` fraction of the episodes held out for the agreement;
3. exports the network over the *whole* observation: layer 0's weights are
   zero in the columns that were never active, so the Go agent computes
   exactly the trained function (bytes that only rare unseen positions set
   are ignored, as the network never learnt anything about them).

At each checkpoint it can play the current weights natively
(``--eval ARGS``: ``galaxygym eval`` arguments, --weights and --format json
added) and records the policy's row (win rate, mean score).

Usage (notebooks/weights/make_baselines.sh runs it for the three games)::

    bin/galaxygym generate --env express-v2 --env-param players=2 --agent heuristic \\
        --episodes 2000 --seed 0 --out /tmp/ds
    python notebooks/baselines/bc.py --data /tmp/ds --hidden 256,256 --samples 2000000 \\
        --out express-v2-bc.npz \\
        --eval "--env express-v2 --env-param players=2 --seats policy,heuristic --rotate --episodes 100 --seed 1"

Writes OUT (the weights) and OUT with .json (the command, settings,
dataset size, active columns and the learning curve).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import torch
import torch.nn as nn
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from galaxygym.policy import export_policy  # noqa: E402

BIN = os.environ.get("GALAXYGYM_BIN") or str(Path(__file__).resolve().parents[2] / "bin" / "galaxygym")


def _fixed(col: Any, width: int) -> NDArray[np.uint8]:
    """A pyarrow binary column of fixed-width values as uint8 (rows, width)."""
    import pyarrow as pa

    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_fixed_size_binary(col.type):
        buf = col.buffers()[1]
        return np.frombuffer(buf, np.uint8)[col.offset * width:(col.offset + len(col)) * width].reshape(-1, width)
    return np.frombuffer(b"".join(v.as_py() for v in col), np.uint8).reshape(-1, width)


def read_dataset(path: str | os.PathLike[str], max_episodes: int | None = None,
                 batch_rows: int = 20000) -> dict[str, Any]:
    """The decisions of a galaxygym dataset directory with the observation
    reduced to its active columns: {"obs": uint8 (N, A), "active": int64
    (A,) the columns' indices, "mask": bool (N, num_actions), "action":
    int64 (N,), "episode_id": int64 (N,), "manifest": dict}. Two passes over
    the parts (active columns, then the rows), so that the full observation
    of every row is never held at once."""
    root = Path(path)
    m = json.loads((root / "manifest.json").read_text())
    size = int(np.prod(m["env_spec"]["obs_shape"]))
    na = len(m["action_names"])
    parts = [root / p["steps"]["path"] for p in sorted(m["parts"], key=lambda p: int(p["index"]))]

    def batches(cols: list[str]) -> Any:
        for f in parts:
            for b in pq.ParquetFile(f).iter_batches(batch_size=batch_rows, columns=cols):
                eid = b.column("episode_id").to_numpy()
                keep = b.column("action").to_numpy() >= 0
                if max_episodes is not None:
                    keep &= eid < max_episodes
                yield b, keep

    nonzero = np.zeros(size, bool)
    for b, keep in batches(["episode_id", "action", "obs"]):
        if keep.any():
            nonzero |= (_fixed(b.column("obs"), size)[keep] != 0).any(0)
    active = np.flatnonzero(nonzero)
    obs, mask, act, eps = [], [], [], []
    for b, keep in batches(["episode_id", "action", "action_mask", "obs"]):
        obs.append(_fixed(b.column("obs"), size)[keep][:, active])
        mask.append(_fixed(b.column("action_mask"), na)[keep] != 0)
        act.append(b.column("action").to_numpy()[keep].astype(np.int64))
        eps.append(b.column("episode_id").to_numpy()[keep].astype(np.int64))
    return {"obs": np.concatenate(obs), "active": active, "mask": np.concatenate(mask),
            "action": np.concatenate(act), "episode_id": np.concatenate(eps), "manifest": m}


class MLP(nn.Module):
    """uint8 (B, A) active observation bytes -> logits (B, num_actions):
    x * scale, then Linear layers with ReLU between them."""

    def __init__(self, scale: NDArray[Any], num_actions: int, hidden: Sequence[int]):
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(np.asarray(scale, np.float32)))
        sizes = [len(scale), *hidden, num_actions]
        mods: list[nn.Module] = []
        for i in range(len(sizes) - 1):
            if i:
                mods.append(nn.ReLU())
            mods.append(nn.Linear(sizes[i], sizes[i + 1]))
        self.pi = nn.Sequential(*mods)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.pi(obs.float() * self.scale)


def export(net: MLP, path: str | os.PathLike[str], env_id: str, active: NDArray[Any], obs_high: NDArray[Any],
           obs_size: int) -> dict[str, Any]:
    """Writes net in the Go policy format over the whole observation:
    layer 0's weights in the active columns, zero elsewhere; obs_scale
    1 / max(obs_high, 1) everywhere (the scale the net was trained with on
    the active columns)."""
    lin = [m for m in net.pi if isinstance(m, nn.Linear)]
    w0 = np.zeros((lin[0].out_features, obs_size), np.float32)
    w0[:, active] = lin[0].weight.detach().numpy()
    layers = [(w0, lin[0].bias.detach().numpy())] + [(m.weight.detach().numpy(), m.bias.detach().numpy())
                                                      for m in lin[1:]]
    scale = (1.0 / np.maximum(np.asarray(obs_high, np.float32), 1.0)).astype(np.float32)
    return export_policy(path, layers, scale, env_id, activation="relu")


def eval_json(weights: str | os.PathLike[str], args: str) -> dict[str, Any]:
    """`galaxygym eval ARGS --weights WEIGHTS --format json`, parsed."""
    cmd = [BIN, "eval", *shlex.split(args), "--weights", str(weights), "--format", "json"]
    res: dict[str, Any] = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return res


def native_eval(weights: str | os.PathLike[str], args: str) -> dict[str, Any]:
    """`galaxygym eval ARGS --weights WEIGHTS --format json`: the policy's
    row (the first agent named policy), its main columns."""
    res = eval_json(weights, args)
    row = next(r for r in res["agents"] if str(r["agent"]).startswith("policy"))
    return {k: row[k] for k in ("games", "episodes", "win_rate", "win_ci95_low", "win_ci95_high", "mean_score",
                                "mean_return", "score_diff_vs_first") if k in row}


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description="behaviour cloning of a galaxygym dataset to Go policy weights")
    ap.add_argument("--data", required=True, help="dataset directory (galaxygym generate --out)")
    ap.add_argument("--episodes", type=int, default=None, help="read the first episodes only")
    ap.add_argument("--hidden", default="256,256", help="hidden widths, comma-separated")
    ap.add_argument("--samples", type=int, default=1_000_000, help="training budget in decisions seen")
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--holdout", type=float, default=0.02, help="fraction of the episodes held out (the last ones)")
    ap.add_argument("--checkpoints", type=int, default=8)
    ap.add_argument("--eval", default="", help="galaxygym eval arguments played at each checkpoint (empty: none)")
    ap.add_argument("--final-eval", default="",
                    help="galaxygym eval arguments played once with the final weights; every row is recorded")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    t0 = time.time()
    d = read_dataset(a.data, a.episodes)
    m = d["manifest"]
    env_id, size = m["env_id"], int(np.prod(m["env_spec"]["obs_shape"]))
    high = np.asarray(m["env_spec"]["obs_high"], np.float32).reshape(-1)
    active = d["active"]
    n = len(d["action"])
    n_eps = len(np.unique(d["episode_id"]))
    print(f"{n} decisions of {n_eps} episodes, {len(active)} of {size} observation bytes active "
          f"({time.time() - t0:.1f}s to read)", flush=True)
    episodes = np.unique(d["episode_id"])
    cut = episodes[int(len(episodes) * (1 - a.holdout))]
    train_rows = int(np.searchsorted(d["episode_id"], cut))
    obs, mask, act = torch.from_numpy(d["obs"]), torch.from_numpy(d["mask"]), torch.from_numpy(d["action"])
    net = MLP(1.0 / np.maximum(high[active], 1.0), mask.shape[1], [int(h) for h in a.hidden.split(",")])
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)
    steps = max(1, a.samples // a.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + np.cos(np.pi * min(s, steps) / steps)))
    marks = {max(1, round(steps * (k + 1) / a.checkpoints)) for k in range(a.checkpoints)}
    gen = torch.Generator().manual_seed(a.seed)
    perm, pos = torch.randperm(train_rows, generator=gen), 0
    curve: list[dict[str, Any]] = []
    loss_sum, loss_n, trained, started = 0.0, 0, 0.0, time.time()
    out = Path(a.out)
    for step in range(1, steps + 1):
        if pos + a.batch_size > train_rows:
            perm, pos = torch.randperm(train_rows, generator=gen), 0
        idx = perm[pos:pos + a.batch_size]
        pos += a.batch_size
        loss = nn.functional.cross_entropy(net(obs[idx]).masked_fill(~mask[idx], -1e9), act[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        loss_sum += float(loss)
        loss_n += 1
        if step in marks:
            trained += time.time() - started
            net.eval()
            hits = 0
            with torch.no_grad():
                for k in range(train_rows, n, 4096):
                    e = min(k + 4096, n)
                    hits += int((net(obs[k:e]).masked_fill(~mask[k:e], -1e9).argmax(1) == act[k:e]).sum())
            net.train()
            point: dict[str, Any] = {"samples": step * a.batch_size, "seconds": round(trained, 1),
                                     "loss": round(loss_sum / loss_n, 4),
                                     "agreement": round(hits / max(1, n - train_rows), 4)}
            loss_sum, loss_n = 0.0, 0
            if a.eval:
                export(net, out, env_id, active, high, size)
                point["eval"] = native_eval(out, a.eval)
            curve.append(point)
            print(json.dumps(point), flush=True)
            started = time.time()
    net.eval()
    meta = export(net, out, env_id, active, high, size)
    torch.save({"state_dict": net.state_dict(), "active": active}, out.with_suffix(".pt"))
    final: dict[str, Any] | None = None
    if a.final_eval:
        t1 = time.time()
        res = eval_json(out, a.final_eval)
        final = {"command": f"galaxygym eval {a.final_eval} --weights {out.name}",
                 "seconds": round(time.time() - t1, 1),
                 "agents": [{k: v for k, v in r.items() if not k.startswith(("steps_per", "seconds"))}
                            for r in res["agents"]]}
        print(json.dumps(final), flush=True)
    out.with_suffix(".json").write_text(json.dumps({
        "command": "python notebooks/baselines/bc.py " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "args": vars(a), "meta": meta, "dataset": {"path": str(a.data), "env_id": env_id,
                                                    "created_by": m.get("created_by"),
                                                    "env_params": m.get("env_params"), "agent": m.get("agent"),
                                                    "seed": m.get("seed"), "episodes": n_eps, "decisions": n,
                                                    "train_decisions": train_rows},
        "active_columns": len(active), "obs_size": size, "train_seconds": round(trained, 1), "curve": curve,
        "evaluation": final},
        indent=1) + "\n")
    print("wrote", out, flush=True)


if __name__ == "__main__":
    main()
