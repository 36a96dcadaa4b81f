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


class SeatBlock(nn.Module):
    """The observation's structure (docs/learning-baselines-multiplayer.md):
    uint8 (B, A) active observation bytes -> logits (B, num_actions).

    The per-seat fields of the layout (``seat_fields``: fields of shape
    (S, ...), one block per seat-relative seat, the observer first) are
    gathered into (B, S, L) blocks, the same L in-block elements for every
    seat, and each block goes through one shared Linear(L, seat_width): a
    seat's pieces, cards and score mean the same whichever seat it is. The
    remaining active bytes go through Linear(G, global_width). Both are
    ReLU'd and concatenated (global_width + S * seat_width), then Linear
    layers (``hidden``) with ReLU between them.

    Layer 0 is linear in the observation, so the network exports exactly as
    an MLP (:func:`export_seatblock`): its first weight matrix is the
    global weights beside S copies of the shared seat weights, at every
    seat's columns, also those of seats the training data never had (a
    2-player clone reads a 4-player table's other seats with the same
    weights)."""

    def __init__(self, scale: NDArray[Any], num_actions: int, active: NDArray[Any], layout: dict[str, Any],
                 seat_fields: Sequence[str], global_width: int, seat_width: int, hidden: Sequence[int]):
        super().__init__()
        active = np.asarray(active, np.int64)
        pos = {int(c): i for i, c in enumerate(active)}
        blocks = []  # per field: (offset, seats, per-seat size)
        for name in seat_fields:
            if name not in layout:
                raise SystemExit(f"--seat-fields: no field {name!r} in the layout ({', '.join(sorted(layout))})")
            f = layout[name]
            shape = [int(x) for x in f["shape"]]
            blocks.append((int(f["offset"]), shape[0], int(np.prod(shape[1:]))))
        seats = {b[1] for b in blocks}
        if len(seats) != 1:
            raise SystemExit(f"--seat-fields: the fields have different seat counts {sorted(seats)}")
        self.seats = seats.pop()
        full = np.concatenate([off + np.arange(self.seats)[:, None] * per + np.arange(per)[None, :]
                               for off, _, per in blocks], axis=1)  # (S, L_all) observation columns
        in_block = set(full.reshape(-1).tolist())
        used = np.array([any(int(c) in pos for c in full[:, j]) for j in range(full.shape[1])], bool)
        self.full_idx = full[:, used]  # the in-block elements some seat sets in the data
        pad = len(active)
        self.register_buffer("seat_idx", torch.as_tensor(
            np.vectorize(lambda c: pos.get(int(c), pad))(self.full_idx).astype(np.int64)))
        self.glob = np.array([i for i, c in enumerate(active) if int(c) not in in_block], np.int64)
        self.register_buffer("glob_idx", torch.as_tensor(self.glob))
        self.register_buffer("scale", torch.as_tensor(np.asarray(scale, np.float32)))
        self.seat_fields = list(seat_fields)
        self.enc_global = nn.Linear(len(self.glob), global_width)
        self.enc_seat = nn.Linear(self.full_idx.shape[1], seat_width)
        sizes = [global_width + self.seats * seat_width, *hidden, num_actions]
        mods: list[nn.Module] = []
        for i in range(len(sizes) - 1):
            mods += [nn.ReLU(), nn.Linear(sizes[i], sizes[i + 1])]
        self.pi = nn.Sequential(*mods)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs.float() * self.scale
        xp = torch.cat([x, torch.zeros_like(x[:, :1])], 1)
        seat = self.enc_seat(xp[:, self.seat_idx])  # (B, S, seat_width)
        return self.pi(torch.cat([self.enc_global(x[:, self.glob_idx]), seat.flatten(1)], 1))


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
    w0[:, active] = lin[0].weight.detach().cpu().numpy()
    layers = [(w0, lin[0].bias.detach().cpu().numpy())] + [(m.weight.detach().cpu().numpy(),
                                                            m.bias.detach().cpu().numpy()) for m in lin[1:]]
    scale = (1.0 / np.maximum(np.asarray(obs_high, np.float32), 1.0)).astype(np.float32)
    return export_policy(path, layers, scale, env_id, activation="relu")


def export_seatblock(net: SeatBlock, path: str | os.PathLike[str], env_id: str, active: NDArray[Any],
                     obs_high: NDArray[Any], obs_size: int) -> dict[str, Any]:
    """Writes a :class:`SeatBlock` in the Go policy format as the MLP it
    equals: layer 0 (global_width + S * seat_width, obs_size) holds the
    global weights in the active non-seat columns and, for every seat s,
    the shared seat weights in seat s's columns (zero in the columns of
    in-block elements no seat ever set); its bias is the global bias then S
    copies of the seat bias. The layers after it are the network's own."""
    g = net.enc_global.out_features
    k = net.enc_seat.out_features
    w0 = np.zeros((g + net.seats * k, obs_size), np.float32)
    w0[:g, np.asarray(active)[net.glob]] = net.enc_global.weight.detach().cpu().numpy()
    ws = net.enc_seat.weight.detach().cpu().numpy()
    for s in range(net.seats):
        w0[g + s * k:g + (s + 1) * k, net.full_idx[s]] = ws
    b0 = np.concatenate([net.enc_global.bias.detach().cpu().numpy()]
                        + [net.enc_seat.bias.detach().cpu().numpy()] * net.seats)
    lin = [m for m in net.pi if isinstance(m, nn.Linear)]
    layers = [(w0, b0)] + [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in lin]
    scale = (1.0 / np.maximum(np.asarray(obs_high, np.float32), 1.0)).astype(np.float32)
    return export_policy(path, layers, scale, env_id, activation="relu")


def export_any(net: nn.Module, path: str | os.PathLike[str], env_id: str, active: NDArray[Any],
               obs_high: NDArray[Any], obs_size: int) -> dict[str, Any]:
    """:func:`export_seatblock` or :func:`export`, by the network's class."""
    if isinstance(net, SeatBlock):
        return export_seatblock(net, path, env_id, active, obs_high, obs_size)
    return export(net, path, env_id, active, obs_high, obs_size)


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
    ap.add_argument("--arch", default="mlp", choices=["mlp", "seatblock"],
                    help="mlp: Linear layers over the active bytes; seatblock: the per-seat fields (--seat-fields) "
                         "through one shared encoder per seat, the rest through a global one (SeatBlock)")
    ap.add_argument("--seat-fields", default="",
                    help="seatblock: the layout's per-seat fields, comma-separated (express: player_blocks)")
    ap.add_argument("--global-width", type=int, default=256, help="seatblock: units of the global encoder")
    ap.add_argument("--seat-width", type=int, default=64, help="seatblock: units of the shared seat encoder")
    ap.add_argument("--hidden", default="256,256",
                    help="hidden widths, comma-separated (seatblock: the layers after the encoders)")
    ap.add_argument("--device", default="cpu", help="torch device of the training (cpu, cuda)")
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
    hidden = [int(h) for h in a.hidden.split(",") if h.strip()]
    scale = 1.0 / np.maximum(high[active], 1.0)
    net: nn.Module
    if a.arch == "seatblock":
        net = SeatBlock(scale, mask.shape[1], active, m["env_spec"]["observation_layout"],
                        [f.strip() for f in a.seat_fields.split(",") if f.strip()], a.global_width, a.seat_width,
                        hidden)
    else:
        net = MLP(scale, mask.shape[1], hidden)
    dev = torch.device(a.device)
    net = net.to(dev)
    obs, mask, act = obs.to(dev), mask.to(dev), act.to(dev)
    n_params = sum(p.numel() for p in net.parameters())
    print(f"{a.arch}: {n_params} trainable parameters", flush=True)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)
    steps = max(1, a.samples // a.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + np.cos(np.pi * min(s, steps) / steps)))
    marks = {max(1, round(steps * (k + 1) / a.checkpoints)) for k in range(a.checkpoints)}
    gen = torch.Generator().manual_seed(a.seed)
    perm, pos = torch.randperm(train_rows, generator=gen).to(dev), 0
    curve: list[dict[str, Any]] = []
    loss_sum, loss_n, trained, started = 0.0, 0, 0.0, time.time()
    out = Path(a.out)
    for step in range(1, steps + 1):
        if pos + a.batch_size > train_rows:
            perm, pos = torch.randperm(train_rows, generator=gen).to(dev), 0
        idx = perm[pos:pos + a.batch_size]
        pos += a.batch_size
        loss = nn.functional.cross_entropy(net(obs[idx]).masked_fill(~mask[idx], -1e9), act[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        loss_sum += loss.detach()
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
                                     "loss": round(float(loss_sum) / loss_n, 4),
                                     "agreement": round(hits / max(1, n - train_rows), 4)}
            loss_sum, loss_n = 0.0, 0
            if a.eval:
                export_any(net, out, env_id, active, high, size)
                point["eval"] = native_eval(out, a.eval)
            curve.append(point)
            print(json.dumps(point), flush=True)
            started = time.time()
    net.eval()
    meta = export_any(net, out, env_id, active, high, size)
    torch.save({"state_dict": net.cpu().state_dict(), "active": active}, out.with_suffix(".pt"))
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
        "parameters": n_params, "active_columns": len(active), "obs_size": size, "train_seconds": round(trained, 1), "curve": curve,
        "evaluation": final},
        indent=1) + "\n")
    print("wrote", out, flush=True)


if __name__ == "__main__":
    main()
