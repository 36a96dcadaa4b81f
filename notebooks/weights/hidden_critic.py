"""A critic that sees the whole state: how much the hidden part tells a value network
(docs/learning-baselines.md, "A critic that sees the hidden part").

PerfectDou trains its critic on every hand while its policy sees one seat's; our simulator holds
the whole state, and ``galaxygym.datasets.hidden`` gives every row of a dataset its player's hidden
part (the other seats' hands, the face-down decks' order, the unscanned planets' numbers). This
script fits the same MLP twice to the acting player's return to go (its rewards summed from the
row's step to the end of the episode, in reward units) on the decisions of a dataset: once from
the observation alone (what an actor-critic's critic reads today) and once from the observation
followed by the hidden part, each byte of a code field read one-hot and every other byte divided
by its bound. Episodes are split 90/10, the same split for both; it prints and writes (``--out``)
the held-out RMSE, the explained variance and the target's standard deviation.

    python notebooks/weights/hidden_critic.py --data DATASET [--epochs 8] [--out result.json]
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
import torch
from torch import nn

import galaxygym.datasets as gd


def returns_to_go(d: Any) -> np.ndarray:
    """Every row's acting player's rewards summed from the row to the end of its episode: float64 (R,)."""
    rows = len(d.action)
    cum = np.zeros((rows + 1, d.rewards.shape[1]), np.float64)
    np.cumsum(d.rewards, axis=0, dtype=np.float64, out=cum[1:])
    ends = np.flatnonzero(np.r_[d.episode_id[1:] != d.episode_id[:-1], True]) + 1  # one past each episode's last row
    end_of = ends[np.searchsorted(ends, np.arange(rows), side="right")]
    return cum[end_of, d.player] - cum[np.arange(rows), d.player]


def encode(raw: np.ndarray, layout: dict[str, Any], high: np.ndarray) -> np.ndarray:
    """uint8 (R, n) bytes as network inputs: code fields one-hot (classes per byte), the rest / bound."""
    parts = []
    for f in sorted(layout.values(), key=lambda f: int(f["offset"])):
        off, n = int(f["offset"]), int(np.prod(f["shape"]))
        x = raw[:, off:off + n]
        if f.get("classes"):
            parts.append(np.eye(int(f["classes"]), dtype=np.float32)[x].reshape(len(raw), -1))
        else:
            parts.append(x.astype(np.float32) / np.maximum(high[off:off + n], 1).astype(np.float32))
    return np.concatenate(parts, axis=1)


def fit(x: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, epochs: int, seed: int) -> dict[str, float]:
    """An MLP (256, 256) fitted by MSE (targets standardised) with Adam; held-out RMSE and R^2."""
    torch.manual_seed(seed)
    mu, sd = float(y[train].mean()), float(y[train].std() + 1e-9)
    net = nn.Sequential(nn.Linear(x.shape[1], 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    xt, yt = torch.from_numpy(x), torch.from_numpy(((y - mu) / sd).astype(np.float32))
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for b in torch.randperm(len(train), generator=g).split(256):
            i = torch.from_numpy(train)[b]
            loss = ((net(xt[i]).squeeze(1) - yt[i]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        pred = net(xt[torch.from_numpy(test)]).squeeze(1).numpy().astype(np.float64) * sd + mu
    err = pred - y[test]
    return {"rmse": float(np.sqrt((err ** 2).mean())), "explained_variance": float(1 - err.var() / y[test].var())}


def run(data: str, epochs: int, seed: int, threads: int, max_rows: int,
        fields: list[str] | None = None) -> dict[str, Any]:
    torch.set_num_threads(threads)
    t0 = time.process_time()
    d = gd.load(data)
    h = gd.hidden(data)
    spec = d.manifest["env_spec"]
    obs_layout, obs_high = spec["observation_layout"], np.asarray(spec["obs_high"], np.uint8)
    y = returns_to_go(d)
    decide = np.flatnonzero(d.action >= 0)  # the decisions (the final rows take none)
    if len(decide) > max_rows:  # a seeded sample of the decisions, in row order
        decide = np.sort(np.random.default_rng(seed + 1).choice(decide, max_rows, replace=False))
    eps = np.unique(d.episode_id)
    held = np.random.default_rng(seed).permutation(eps)[: max(1, len(eps) // 10)]
    is_test = np.isin(d.episode_id[decide], held)
    train, test = np.flatnonzero(~is_test), np.flatnonzero(is_test)
    x_obs = encode(d.obs[decide], obs_layout, obs_high)
    first = {f.split(":")[0]: int(f.split(":")[1]) for f in fields or [] if ":" in f}  # NAME:K, the first K rows
    names = [f.split(":")[0] for f in fields or []]
    layout = {k: dict(v) for k, v in h.layout.items() if not names or k in names}
    if names and set(names) - set(layout):
        raise SystemExit(f"no hidden field {sorted(set(names) - set(layout))}: the game's are {sorted(h.layout)}")
    for k, n in first.items():
        layout[k]["shape"] = [min(n, int(layout[k]["shape"][0])), *layout[k]["shape"][1:]]
    x_hid = encode(h.array[decide], layout, h.high)
    yd = y[decide]
    out: dict[str, Any] = {"data": data, "env_id": d.manifest["env_id"], "env_params": d.manifest["env_params"],
                           "episodes": int(len(eps)), "max_rows": max_rows,
                           "hidden_fields": sorted(f"{k}:{first[k]}" if k in first else k for k in layout),
                           "decisions": int(len(decide)), "held_out_decisions": int(len(test)),
                           "target_std": float(yd[test].std()), "epochs": epochs, "seed": seed,
                           "inputs": {"observation": int(x_obs.shape[1]),
                                      "observation + hidden part": int(x_obs.shape[1] + x_hid.shape[1])}}
    out["observation"] = fit(x_obs, yd, train, test, epochs, seed)
    out["observation + hidden part"] = fit(np.concatenate([x_obs, x_hid], 1), yd, train, test, epochs, seed)
    out["cpu_seconds"] = round(time.process_time() - t0, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="a dataset directory (compact or full)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-rows", type=int, default=60000, help="decisions sampled (seeded) when there are more")
    ap.add_argument("--field", action="append",
                    help="read only this field of the hidden part, NAME or NAME:K for its first K rows (the next K "
                         "cards of a pile); repeat; default all")
    ap.add_argument("--out", help="write the result as JSON here")
    a = ap.parse_args()
    r = run(a.data, a.epochs, a.seed, a.threads, a.max_rows, a.field)
    print(json.dumps(r, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(r, f, indent=1)


if __name__ == "__main__":
    main()
