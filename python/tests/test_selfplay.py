"""Self-play training at a tiny budget (issue 23): galaxygym.ppo on the
multi-player games through the learner's view, and SB3's shortest correct
path (docs/self-play.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="galaxygym.ppo needs torch (make venv installs it)")

import galaxygym  # noqa: E402
from galaxygym import ppo, train  # noqa: E402


def test_make_policy_classes_are_shared():
    a = train.make_policy("mlp", np.ones(4, np.float32), 3, hidden=(8,))
    b = train.make_policy("mlp", np.ones(4, np.float32), 3, hidden=(8,))
    assert type(a) is type(b) and isinstance(a, train.MLPPolicy)


def _actor(env_id: str, **params):
    with galaxygym.make_vec(env_id, 1, **params) as v:
        high = v.single_observation_space.high.reshape(-1).astype(np.float32)
        n = int(v.single_action_space.n)
    torch.manual_seed(0)
    return train.make_policy("mlp", 1.0 / np.maximum(high, 1.0), n, hidden=(32,))


@pytest.mark.parametrize("env_id,params", [("express-v2", {"players": 3, "target": 30, "max_hands": 2}),
                                           ("pilots-of-gallaxia-v1", {"players": 3})])
def test_selfplay_tiny_budget(env_id, params):
    actor = _actor(env_id, **params)
    res = ppo.train(actor, ppo.PPOConfig(env_id=env_id, params=params, total_steps=3 * 8 * 16, num_envs=8,
                                         rollout_steps=16, epochs=1, minibatches=2, checkpoints=1,
                                         eval_episodes=6, final_eval_episodes=6, snapshot_every=1, pool_size=2,
                                         opponent_groups=2, threads=1), log=None)
    curve = res["curve"]
    assert [p["phase"] for p in curve] == ["start", "ppo"]
    for p in curve:
        for opp in ("random", "heuristic"):
            assert 0 <= p[f"vs_{opp}_win_rate"] <= 1 and 1 <= p[f"vs_{opp}_mean_rank"] <= 3
    # a snapshot after every update, the latest two kept
    assert curve[-1]["pool"] == ["snapshot-00002.npz", "snapshot-00003.npz"]
    assert res["env_steps"] == 3 * 8 * 16 and np.isfinite(curve[-1]["policy_loss"])


def test_opponent_pool_sampling(tmp_path):
    actor = _actor("express-v2", players=3)
    pool = ppo.OpponentPool(tmp_path, "express-v2", ["random", "heuristic"], 0.5, 3, np.random.default_rng(0))
    for _ in range(5):
        pool.add(actor)
    assert pool.snapshots == ["snapshot-00002.npz", "snapshot-00003.npz", "snapshot-00004.npz"]
    assert sorted(p.name for p in tmp_path.iterdir()) == pool.snapshots
    draws = [pool.lineup(1)[0] for _ in range(2000)]
    snap = sum(d.startswith("policy@weights=snapshot-") for d in draws) / len(draws)
    assert 0.45 < snap < 0.55
    assert {d for d in draws if not d.startswith("policy")} == {"random", "heuristic"}


def test_selfplay_command_line(tmp_path):
    out = tmp_path / "sp.npz"
    subprocess.run([sys.executable, "-m", "galaxygym.ppo", "--env", "express-v2", "--param", "players=3",
                    "--param", "target=30", "--arch", "mlp", "--hidden", "16", "--steps", "128", "--num-envs",
                    "8", "--rollout-steps", "16", "--epochs", "1", "--minibatches", "2", "--checkpoints", "1",
                    "--eval-episodes", "3", "--final-eval-episodes", "3", "--out", str(out)], check=True,
                   capture_output=True)
    doc = json.loads(out.with_suffix(".json").read_text())
    assert doc["settings"]["params"] == {"players": 3, "target": 30}
    assert "vs_heuristic_mean_score" in doc["curve"][-1]
    assert galaxygym.load_policy(out)["layers"][-1][0].shape[0] == len(galaxygym.make_vec("express-v2", 1).action_names)


def test_sb3_selfplay_shortest_path():
    """docs/self-play.md's SB3 recipe: MaskablePPO against heuristic
    opponents, then the learner as an opponent pool member is a Go policy."""
    from sb3_contrib import MaskablePPO

    from galaxygym.sb3 import VecEnv

    venv = VecEnv("express-v2", num_envs=8, players=3, opponents=["heuristic", "random"], seat_rule="rotate",
                  target=30, max_hands=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=128, n_epochs=1, seed=0, verbose=0)
        model.learn(512)
    assert model.num_timesteps >= 512
    venv.close()
    rng = np.random.default_rng(0)
    rep = galaxygym.evaluate(
        lambda obs, mask: int(model.predict(obs, action_masks=mask.astype(bool), deterministic=True)[0]),
        "express-v2", seats=[None, "heuristic", "random"], episodes=2, players=3, target=30, max_hands=2)
    assert rep["agents"][0]["games"] == 6
    del rng


def test_lineups_redrawn_every_lineup_every_updates(monkeypatch):
    """The lineups (new sessions, episodes cut) are drawn at the start and
    then after every lineup_every-th update, not after each one."""
    calls = []
    orig = ppo.SelfPlayEnvs.remake

    def counting(self):
        calls.append(1)
        return orig(self)

    monkeypatch.setattr(ppo.SelfPlayEnvs, "remake", counting)
    params = {"players": 2, "target": 30, "max_hands": 2}
    actor = _actor("express-v2", **params)
    res = ppo.train(actor, ppo.PPOConfig(env_id="express-v2", params=params, total_steps=5 * 4 * 8, num_envs=4,
                                         rollout_steps=8, epochs=1, minibatches=1, checkpoints=1, eval_episodes=0,
                                         final_eval_episodes=0, snapshot_every=1, pool_size=2, opponent_groups=2,
                                         lineup_every=2, threads=1), log=None)
    assert res["env_steps"] == 5 * 4 * 8
    assert len(calls) == 1 + 2  # at the start, after updates 2 and 4
