"""Env steps/s through SB3's VecEnv interface: galaxygym.sb3.VecEnv (one
connection, one round trip per batch step) against SB3's DummyVecEnv of N
galaxygym.make environments (N connections, N round trips per step), with
uniform masked random actions; and MaskablePPO end to end on each.

    python python/benchmarks/bench_sb3.py [--env galaxy-express-v1] [--num-envs 16,64] [--steps 20000]

Runs on the private local server (or $GALAXYGYM_URL). Prints one line per
(adapter, N): env steps/s of rollout only, and of MaskablePPO.learn.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import DummyVecEnv

import galaxygym
from galaxygym.sb3 import VecEnv


def rollout(venv, steps: int) -> float:
    rng = np.random.default_rng(0)
    venv.reset()
    n = venv.num_envs
    t = time.perf_counter()
    for _ in range(steps // n):
        m = get_action_masks(venv)
        venv.step(np.argmax(np.where(m, rng.random(m.shape), -1), axis=1))
    return (steps // n) * n / (time.perf_counter() - t)


def learn(venv, steps: int) -> float:
    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=1024, n_epochs=1, seed=0, verbose=0)
    t = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", default="galaxy-express-v1")
    ap.add_argument("--num-envs", default="16,64")
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    for n in (int(x) for x in a.num_envs.split(",")):
        makers = {
            "galaxygym.sb3.VecEnv": lambda: VecEnv(a.env, n),
            "DummyVecEnv(make)": lambda: DummyVecEnv([lambda: galaxygym.make(a.env, illegal_action="raise")] * n),
        }
        res: dict[str, list[tuple[float, float]]] = {k: [] for k in makers}
        for _ in range(a.rounds):  # interleaved A/B rounds
            for name, mk in makers.items():
                venv = mk()
                res[name].append((rollout(venv, a.steps), learn(venv, a.steps)))
                venv.close()
        for name, rs in res.items():
            ro = [r[0] for r in rs]
            le = [r[1] for r in rs]
            print(f"{a.env} N={n:<4} {name:<22} rollout {min(ro):>9,.0f}-{max(ro):>9,.0f} steps/s"
                  f"   MaskablePPO.learn {min(le):>7,.0f}-{max(le):>7,.0f} steps/s")


if __name__ == "__main__":
    main()
