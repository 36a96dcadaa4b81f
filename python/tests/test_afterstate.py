"""notebooks/weights/afterstate.py (docs/learning-baselines.md, item 25): its afterstate encoding
agrees with the game's own action features, its head starts as the committed file's function,
and its greedy player plays the Go eval's seeded games (the same mean return)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]
WEIGHTS = REPO / "notebooks" / "weights" / "galaxy-express-v1-trap.npz"


def _module():
    spec = importlib.util.spec_from_file_location("afterstate", REPO / "notebooks" / "weights" / "afterstate.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_encoding_agrees_with_the_games_features(server_bin, monkeypatch):
    import galaxygym

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    A = _module()
    env = galaxygym.GalaxyGymEnv("galaxy-express-v1", action_features=True)
    rng = np.random.default_rng(0)
    orbits = 0
    try:
        for seed in range(6):
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                f = torch.from_numpy(np.asarray(info["action_features"])[None])
                psi = A.encode(torch.from_numpy(np.asarray(obs)[None]), f)[0]
                legal = np.flatnonzero(info["action_mask"])
                for a in legal:
                    ns = int(psi[a, :11].argmax())
                    off = int(psi[a, 11:32].argmax())
                    if f[0, a, 1]:  # orbit: the coin leaves the ship at rest on a planet
                        orbits += 1
                        assert A.COIN[a] >= 0 and ns == 0
                    if f[0, a, 2]:  # deliver: ... on the scanned target
                        assert off == 0
                    if A.COIN[a] >= 0:  # the played coin leaves the unspent set
                        assert psi[a, 32 + int(A.COIN[a])] == 0
                obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
                done = term or trunc
    finally:
        env.close()
    assert orbits > 0


def test_head_starts_as_the_file(server_bin, monkeypatch):
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)  # encode reads the game's layout from its spec
    A = _module()
    net = A.load_base(str(WEIGHTS))
    head = A.Head(net.pi[-1].in_features)
    obs = torch.zeros((2, 503), dtype=torch.uint8)
    obs[:, 497] = 1  # the launch phase
    f = torch.zeros((2, 56, 4), dtype=torch.uint8)
    h, lg = A.base_parts(net, obs, f)
    assert torch.equal(lg + head(h, A.encode(obs, f)), lg)
    assert torch.allclose(lg, net(obs, f))


def test_player_plays_the_go_evals_games(server_bin, monkeypatch):
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    env = {"PYTHONPATH": str(REPO / "python"), "GALAXYGYM_BIN": server_bin, "PATH": "/usr/bin:/bin"}
    py = subprocess.run([__import__("sys").executable, str(REPO / "notebooks" / "weights" / "afterstate.py"), "eval",
                         "--base", str(WEIGHTS), "--episodes", "6", "--seed", "3", "--batch", "4", "--threads", "1"],
                        check=True, capture_output=True, text=True, env=env)
    got = json.loads(py.stdout.strip().splitlines()[-1])
    go = subprocess.run([server_bin, "eval", "--env", "galaxy-express-v1", "--agents",
                         f"policy@weights={WEIGHTS}@greedy=true", "--episodes", "6", "--seed", "3", "--format", "json"],
                        check=True, capture_output=True, text=True)
    want = json.loads(go.stdout)
    rows = want["agents"] if isinstance(want, dict) and "agents" in want else want
    assert got["episodes"] == 6
    assert got["mean"] == pytest.approx(float(rows[0]["mean_return"]), abs=1e-9)
    # an ensemble of the file with itself is the file: its greedy moves, the same games
    twice = subprocess.run([*py.args, "--ensemble", str(WEIGHTS)], check=True, capture_output=True, text=True, env=env)
    assert json.loads(twice.stdout.strip().splitlines()[-1])["mean"] == got["mean"]
