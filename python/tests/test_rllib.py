"""The RLlib example (python/examples/rllib_galaxygym.py) trains at a tiny
budget on the new API stack: PPO with RLlib's action-masking RLModule on
Galaxy Express (one player) and on Express v2 (two players, RLlib's
PettingZoo wrapper), each EnvRunner a process of its own with its own
private galaxygym server.

Needs Ray's RLlib and torch: skipped without them. ``make test-ray`` makes
the venv it runs in (.venv-ray, docs/scaling.md) and runs it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

import galaxygym  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import rllib_galaxygym as ex  # noqa: E402


@pytest.fixture(scope="module")
def ray_cluster(server_bin: str):
    # The EnvRunner processes find the server binary through the environment.
    os.environ["GALAXYGYM_BIN"] = server_bin
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"GALAXYGYM_BIN": server_bin,
                                       "PYTHONPATH": os.pathsep.join(sys.path)}})
    yield
    ray.shutdown()


# illegal_action="raise": an action outside the mask raises inside the
# EnvRunner, which fails the iteration (the mask must hold throughout).
def test_single_agent_trains_with_masks_on_two_env_runners(ray_cluster):
    cfg = ex.build_config("galaxy-express-v1", params={"illegal_action": "raise"}, env_runners=2,
                          rollout_len=32, train_batch=128, minibatch=64, epochs=1, hidden=(32,))
    algo = cfg.build_algo()
    try:
        # Each EnvRunner is its own process with its own private server.
        where = algo.env_runner_group.foreach_env_runner(
            lambda r: (os.getpid(), galaxygym._server.local_url()), local_env_runner=False)
        assert len(where) == 2
        assert len({pid for pid, _ in where}) == 2 and len({url for _, url in where}) == 2
        assert all(url and url.startswith("ws://127.0.0.1:") for _, url in where)
        before = algo.learner_group.get_weights()["default_policy"]  # numpy copies
        results = [algo.train() for _ in range(2)]
        after = algo.learner_group.get_weights()["default_policy"]
    finally:
        algo.stop()
    steps = [r["env_runners"]["num_env_steps_sampled_lifetime"] for r in results]
    assert steps[0] >= 128 and steps[1] >= steps[0] + 128
    assert results[1]["env_runners"]["num_episodes_lifetime"] > 0
    # Galaxy Express episodes score within the spec's bounds.
    assert -1000 < results[1]["env_runners"]["episode_return_mean"] < 1000
    changed = [k for k in before if not np.array_equal(before[k], after[k])]
    assert changed, "PPO updated no weight"


def test_multi_agent_pettingzoo_trains_one_shared_policy(ray_cluster):
    params = {"players": 2, "illegal_action": "raise"}
    cfg = ex.build_config("express-v2", params=params, env_runners=1,
                          rollout_len=64, train_batch=256, minibatch=128, epochs=1, hidden=(32,))
    algo = cfg.build_algo()
    try:
        results = [algo.train() for _ in range(2)]
        env_types = algo.env_runner_group.foreach_env_runner(
            lambda r: type(r).__name__, local_env_runner=False)
    finally:
        algo.stop()
    assert env_types == ["MultiAgentEnvRunner"]
    r = results[-1]
    assert r["env_runners"]["num_env_steps_sampled_lifetime"] >= 512
    # Both seats' steps went to the one shared module.
    learned = r["learners"]
    assert "shared" in learned and set(learned) <= {"shared", "__all_modules__"}
    agent_steps = r["env_runners"].get("num_agent_steps_sampled_lifetime", {})
    assert {"player_0", "player_1"} <= set(agent_steps), agent_steps


def test_env_creator_gives_masked_observations(server_bin, monkeypatch):
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    env = ex.env_creator({"env": "galaxy-express-v1", "params": {}, "multi_agent": False})
    try:
        obs, info = env.reset(seed=3)
        assert env.observation_space.contains(obs)
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"].astype(np.float32))
    finally:
        env.close()
    menv = ex.env_creator({"env": "express-v2", "params": {"players": 2}, "multi_agent": True})
    try:
        obs, _ = menv.reset(seed=3)
        (agent, o), = obs.items()
        assert agent in ("player_0", "player_1") and menv.observation_spaces[agent].contains(o)
        assert o["action_mask"].sum() >= 1
    finally:
        menv.close()


def test_train_evaluates_the_learner_and_exports_it(ray_cluster, tmp_path):
    """Every eval_every iterations the learner's policy is exported and
    played natively against the heuristic: the learner seat's own return
    and win rate, and a Go weights file that is the module's policy."""
    params = {"players": 2}
    cfg = ex.build_config("express-v2", params=params, env_runners=1,
                          rollout_len=64, train_batch=128, minibatch=64, epochs=1, hidden=(16,))
    path = tmp_path / "rllib-express.npz"
    rows = ex.train(cfg, 2, eval_every=1, eval_episodes=4, export_path=str(path))
    assert [("eval_return" in r) for r in rows] == [True, True]
    for r in rows:
        assert r["eval_episodes"] == 4 and 0.0 <= r["eval_win_rate"] <= 1.0
        assert r["exported"] == str(path)
    meta = galaxygym.load_policy(str(path))
    assert meta["activation"] == "tanh" and len(meta["layers"]) == 2
