"""Action features over the protocol: a weights file of format version 5
(it reads the game's action features beside the observation) plays from
Python, through GalaxyGymEnv(action_features=True), exactly the Go policy
agent's games, and the vector env carries the same features."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
W = REPO / "notebooks" / "weights"
CASES = {  # a version-5 file per game that declares action features
    "galaxy-express": (W / "galaxy-express-v1-trap.npz", "galaxy-express-v1", {}, 3),
    # written before the game's fourth feature (trap): it reads the first three, by name
    "galaxy-express-older": (W / "galaxy-express-v1-mcts-values.npz", "galaxy-express-v1", {}, 3),
    "pilots": (W / "pilots-of-gallaxia-v2-mcts-dagger.npz", "pilots-of-gallaxia-v2", {"players": 2}, 1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_v5_file_plays_the_go_policy_from_python(case, server_bin, tmp_path, monkeypatch):
    import galaxygym
    from galaxygym.datasets import load

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    weights, env_id, params, episodes = CASES[case]
    policy = galaxygym.load_policy(weights)
    assert policy["action_features"], "a version-5 file"
    out = tmp_path / "go"
    cmd = [server_bin, "generate", "--env", env_id, "--agent", "policy", "--agent-opt", f"weights={weights}",
           "--agent-opt", "greedy=true", "--episodes", str(episodes), "--seed", "4", "--out", str(out)]
    for k, v in params.items():
        cmd += ["--env-param", f"{k}={v}"]
    subprocess.run(cmd, check=True, capture_output=True)
    ds = load(out)
    seeds = [s & (2**64 - 1) for s in ds.episodes["seed"].to_pylist()]  # stored as int64

    env = galaxygym.GalaxyGymEnv(env_id, illegal_action="raise", action_features=True, **params)
    try:
        names = env.action_feature_names
        assert set(policy["action_features"]) <= set(names)
        if env_id == "galaxy-express-v1":
            assert names == ["lost", "orbit", "deliver", "trap"]
            assert policy["action_features"] == names[:3 if case.endswith("older") else 4]
        for e, seed in enumerate(seeds):
            rows = np.flatnonzero((ds.episode_id == e) & (ds.action >= 0))
            obs, info = env.reset(seed=int(seed))
            for r in rows:
                np.testing.assert_array_equal(obs, ds.obs[r])
                afeat = info["action_features"]
                assert afeat.shape == (len(env.action_names), len(names))
                with pytest.raises(ValueError, match="give afeat"):
                    galaxygym.policy_probs(policy, obs, info["action_mask"])
                if len(names) != len(policy["action_features"]):
                    with pytest.raises(ValueError, match="features, the file reads"):
                        galaxygym.policy_probs(policy, obs, info["action_mask"], afeat)
                a = int(np.argmax(galaxygym.policy_probs(policy, obs, info["action_mask"], afeat, names)))
                assert a == ds.action[r], f"episode {e} step {ds.step[r]}"
                obs, _, terminated, truncated, info = env.step(a)
            assert terminated or truncated
            assert not info["action_features"].any(), "all zero once over"
    finally:
        env.close()


def test_vector_env_carries_the_same_features(server_bin, monkeypatch):
    import galaxygym

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    venv = galaxygym.GalaxyGymVectorEnv("galaxy-express-v1", 2, action_features=True)
    env = galaxygym.GalaxyGymEnv("galaxy-express-v1", action_features=True)
    plain = galaxygym.GalaxyGymEnv("galaxy-express-v1")
    try:
        _, infos = venv.reset(seed=[5, 6])
        _, info = env.reset(seed=6)  # as venv's environment 1
        assert venv.action_feature_names == ["lost", "orbit", "deliver", "trap"]
        lit = 0
        for _ in range(8):
            assert infos["action_features"].shape == (2, 56, 4)
            np.testing.assert_array_equal(infos["action_features"][1], info["action_features"])
            lit += int(infos["action_features"].sum())
            acts = infos["action_mask"].argmax(axis=1)
            _, _, term, trunc, infos = venv.step(acts)
            info = env.step(int(acts[1]))[4]
            if term.any() or trunc.any():
                break
        assert lit > 0, "the first moves set some feature"
        _, info = plain.reset(seed=5)
        assert "action_features" not in info and plain.action_feature_names == []
        with pytest.raises(galaxygym.ServerError, match="declares no action features"):
            galaxygym.GalaxyGymEnv("express-v2", action_features=True)
    finally:
        venv.close()
        env.close()
        plain.close()


def test_aec_env_gives_the_actor_its_features(server_bin, monkeypatch):
    import galaxygym
    from galaxygym.aec import GalaxyGymAECEnv

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    aec = GalaxyGymAECEnv("pilots-of-gallaxia-v2", action_features=True, players=2)
    env = galaxygym.GalaxyGymEnv("pilots-of-gallaxia-v2", action_features=True, players=2)
    try:
        aec.reset(seed=3)
        _, info = env.reset(seed=3)
        for _ in range(40):
            actor = aec.agent_selection
            assert [a for a in aec.agents if "action_features" in aec.infos[a]] == [actor]
            np.testing.assert_array_equal(aec.infos[actor]["action_features"], info["action_features"])
            a = int(np.flatnonzero(aec.observe(actor)["action_mask"])[0])
            aec.step(a)
            info = env.step(a)[4]
    finally:
        aec.close()
        env.close()
