"""galaxygym.evaluate against `galaxygym eval` on one lineup: a weights
file's greedy policy against the heuristic in two-player Express, every deal
in both seat rotations. The Python policy is the file's own forward pass
(galaxygym.policy_probs, numpy), called per observation and batched; eval
plays the same file with the Go policy agent. Prints games/s of each.

    python python/benchmarks/bench_evaluate.py --episodes 200
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

import numpy as np

import galaxygym
from galaxygym.policy import load_policy, policy_probs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=200)
    ap.add_argument("--weights", default="notebooks/weights/express-v2-selfplay.npz")
    args = ap.parse_args()
    p = load_policy(args.weights)
    lineup = dict(seats=[None, "heuristic"], episodes=args.episodes, players=2, seed=0)

    def one(obs, mask):
        return int(policy_probs(p, obs, mask).argmax())

    def batch(obs, mask):
        return policy_probs(p, obs, mask).argmax(axis=1)

    # The same network in float32, as a user's own numpy policy would be.
    scale = p["obs_scale"].reshape(-1).astype(np.float32)
    layers = [(w.astype(np.float32).T.copy(), b.astype(np.float32)) for w, b in p["layers"]]
    act = np.tanh if p["activation"] == "tanh" else (lambda h: np.maximum(h, 0))

    def batch32(obs, mask):
        h = obs.reshape(len(obs), -1).astype(np.float32) * scale
        for i, (w, b) in enumerate(layers):
            h = (act(h) if i else h) @ w + b
        return np.where(mask != 0, h, -np.inf).argmax(axis=1)

    games = 2 * args.episodes
    for name, pol, kw in (("evaluate, per observation", one, {}), ("evaluate, batched", batch, {"batched": True}),
                          ("evaluate, batched float32", batch32, {"batched": True})):
        t = time.perf_counter()
        rep = galaxygym.evaluate(pol, "express-v2", **lineup, **kw)
        dt = time.perf_counter() - t
        print(f"{name:28s} {games / dt:7.1f} games/s  (mean score {rep['agents'][0]['mean_score']:.1f})")
    binary = os.environ.get("GALAXYGYM_BIN", "galaxygym")
    t = time.perf_counter()
    subprocess.run([binary, "eval", "--env", "express-v2", "--env-param", "players=2", "--seats",
                    f"policy@weights={os.path.abspath(args.weights)}@greedy=true,heuristic", "--rotate",
                    "--episodes", str(args.episodes), "--workers", "1"], check=True, capture_output=True)
    dt = time.perf_counter() - t
    print(f"{'galaxygym eval --workers 1':28s} {games / dt:7.1f} games/s")


if __name__ == "__main__":
    main()
