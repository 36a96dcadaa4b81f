"""galaxygym.sb3.from_weights (issue 35): a MaskablePPO model started from a
committed weights file plays, greedily, the Go policy agent's actions on the
same observations, and its critic is the file's value head when it has one."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
W = REPO / "notebooks" / "weights"
CASES = {  # weights file, env, env params: an MLP (version 1) and a centred board (version 2)
    "express-v2-selfplay": (W / "express-v2-selfplay.npz", "express-v2", {"players": 2}),
    "galaxy-express-v1-bc": (W / "galaxy-express-v1-bc.npz", "galaxy-express-v1", {}),
    "galaxy-express-v1-dagger": (W / "galaxy-express-v1-dagger.npz", "galaxy-express-v1", {}),  # 1,024 x 1,024
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_from_weights_plays_the_go_policy(case, server_bin, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from galaxygym.datasets import load
    from galaxygym.sb3 import VecEnv, export, from_weights

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    weights, env_id, params = CASES[case]
    # The Go policy agent, greedy, in every seat: its observations and actions.
    out = tmp_path / "go"
    cmd = [server_bin, "generate", "--env", env_id, "--agent", "policy", "--agent-opt", f"weights={weights}",
           "--agent-opt", "greedy=true", "--episodes", "3", "--seed", "4", "--out", str(out)]
    for k, v in params.items():
        cmd += ["--env-param", f"{k}={v}"]
    subprocess.run(cmd, check=True, capture_output=True)
    ds = load(out)
    dec = ds.action >= 0
    obs, mask, act = ds.obs.reshape(len(ds), -1)[dec], ds.action_mask[dec] != 0, ds.action[dec]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = {"opponents": "heuristic", **params} if params else {}
        venv = VecEnv(env_id, num_envs=2, **kw)
        try:
            model = from_weights(weights, venv, n_steps=16, batch_size=32, seed=0)
            got, _ = model.predict(obs, action_masks=mask, deterministic=True)
            np.testing.assert_array_equal(got, act)
            # export(from_weights(f)) computes the same policy as f.
            back = tmp_path / "back.npz"
            export(model, back, env_id)
            import galaxygym
            np.testing.assert_allclose(galaxygym.policy_probs(back, obs[:20], mask[:20]),
                                       galaxygym.policy_probs(weights, obs[:20], mask[:20]), atol=1e-5)
            model.learn(32)  # it trains on
        finally:
            venv.close()


def test_from_weights_value_head_and_refusals(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    import galaxygym
    from galaxygym.sb3 import from_weights

    rng = np.random.default_rng(0)
    n_obs, n_act = 12, 5
    layers = [(rng.normal(size=(8, n_obs)), rng.normal(size=8)), (rng.normal(size=(n_act, 8)), rng.normal(size=n_act))]
    value = [(rng.normal(size=(4, 8)), rng.normal(size=4)), (rng.normal(size=(1, 4)), rng.normal(size=1))]
    scale = rng.uniform(0.1, 1, size=n_obs)
    f = tmp_path / "v3.npz"
    galaxygym.export_policy(f, layers, scale, "express-v2", activation="tanh", value=value)

    class Dummy(gym.Env):
        observation_space = gym.spaces.Box(0, 255, (n_obs,), np.uint8)
        action_space = gym.spaces.Discrete(n_act)

        def reset(self, *, seed=None, options=None):
            return np.zeros(n_obs, np.uint8), {}

        def step(self, a):
            return np.zeros(n_obs, np.uint8), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(n_act, bool)

    model = from_weights(f, Dummy(), n_steps=8, batch_size=8)
    obs = rng.integers(0, 5, size=(6, n_obs)).astype(np.uint8)
    with torch.no_grad():
        v = model.policy.predict_values(torch.as_tensor(obs).float()).numpy()[:, 0]
    np.testing.assert_allclose(v, galaxygym.policy_value(f, obs)[:, 0], rtol=1e-4, atol=1e-4)
    conv = tmp_path / "conv.npz"
    board = {"offset": 0, "planes": 1, "height": 2, "width": 3, "center_plane": -1}
    galaxygym.export_policy(conv, [(rng.normal(size=(8, 2 * 6 + 6)), rng.normal(size=8)),
                                   (rng.normal(size=(n_act, 8)), rng.normal(size=n_act))], scale, "express-v2",
                            conv=[(rng.normal(size=(2, 1, 3, 3)), rng.normal(size=2))], board=board)
    with pytest.raises(ValueError, match="convolutions"):
        from_weights(conv, Dummy())
    # A file that reads the game's action features (format version 5) is
    # refused on an env without them (test_from_weights_reads_action_features
    # plays such files on a VecEnv made with action_features=True).
    feats = tmp_path / "feats.npz"
    galaxygym.export_policy(feats, [(rng.normal(size=(8, n_obs)), rng.normal(size=8)),
                                    (rng.normal(size=(n_act, 8)), rng.normal(size=n_act))], scale, "express-v2",
                            action_features=(["lost"], [-3.0]))
    with pytest.raises(ValueError, match="action features"):
        from_weights(feats, Dummy())
    # Codes read one-hot (format version 4) go through the extractor: the
    # model's greedy actions and probabilities are the file's, and export
    # writes the same codes back.
    codes = tmp_path / "codes.npz"
    spec = [{"offset": 3, "size": 2, "classes": 4}]
    galaxygym.export_policy(codes, [(rng.normal(size=(8, n_obs + 2 * 4)), rng.normal(size=8)),
                                    (rng.normal(size=(n_act, 8)), rng.normal(size=n_act))], scale, "express-v2",
                            codes=spec, activation="tanh")
    model = from_weights(codes, Dummy(), n_steps=8, batch_size=8)
    obs = rng.integers(0, 6, size=(16, n_obs)).astype(np.uint8)  # some code bytes past their 4 classes
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs))
        probs = dist.distribution.probs.numpy()
    np.testing.assert_allclose(probs, galaxygym.policy_probs(codes, obs, np.ones((16, n_act), np.uint8)), atol=1e-5)
    from galaxygym.sb3 import export
    meta = export(model, tmp_path / "back.npz", "express-v2")
    assert meta["version"] == 4 and meta["codes"] == spec
    np.testing.assert_allclose(galaxygym.policy_probs(tmp_path / "back.npz", obs, np.ones((16, n_act), np.uint8)),
                               probs, atol=1e-5)


FEATURE_CASES = {  # version-5 files: the game's action features beside a centred board / codes read one-hot
    "galaxy-express-v1-trap": (W / "galaxy-express-v1-trap.npz", "galaxy-express-v1", {}),
    "galaxy-express-v1-features": (W / "galaxy-express-v1-features.npz", "galaxy-express-v1", {}),  # 3 of 4
    "pilots-of-gallaxia-v2-mcts-dagger": (W / "pilots-of-gallaxia-v2-mcts-dagger.npz", "pilots-of-gallaxia-v2",
                                          {"players": 2, "opponents": "heuristic"}),
}


@pytest.mark.parametrize("case", sorted(FEATURE_CASES))
def test_from_weights_reads_action_features(case, server_bin, tmp_path, monkeypatch):
    """A format-version-5 file starts an ActionFeaturesPolicy on a VecEnv
    made with action_features=True: at every decision of its games its
    greedy action is the file's (policy_probs, the Go agent's reference,
    features selected by name), export writes the same policy back, and
    it trains on."""
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    import galaxygym
    from galaxygym.sb3 import ActionFeaturesPolicy, VecEnv, export, from_weights

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    weights, env_id, params = FEATURE_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = VecEnv(env_id, num_envs=2, **params)
        try:
            with pytest.raises(ValueError, match="action_features=True"):
                from_weights(weights, plain)
        finally:
            plain.close()
        venv = VecEnv(env_id, num_envs=3, action_features=True, **params)
        try:
            assert venv.action_feature_names and set(venv.observation_space.spaces) == {"obs", "action_features"}
            model = from_weights(weights, venv, n_steps=16, batch_size=16, seed=0)
            assert isinstance(model.policy, ActionFeaturesPolicy)
            venv.seed(7)
            obs = venv.reset()
            seen, moved = [], 0
            for _ in range(60):
                masks = venv.action_masks()
                got, _ = model.predict(obs, action_masks=masks, deterministic=True)
                probs = galaxygym.policy_probs(weights, obs["obs"], masks, obs["action_features"],
                                               venv.action_feature_names)
                np.testing.assert_array_equal(got, probs.argmax(1))
                moved += int((obs["action_features"].astype(int).sum(axis=(1, 2)) > 0).sum())
                seen.append((obs["obs"].copy(), masks.copy(), obs["action_features"].copy()))
                obs, _, _, _ = venv.step(got)
            assert moved > 0  # the features were there to read
            back = tmp_path / "back.npz"
            meta = export(model, back, env_id)
            assert meta["version"] == 5
            o, m, f = (np.concatenate(x) for x in zip(*seen))
            np.testing.assert_allclose(galaxygym.policy_probs(back, o, m, f, venv.action_feature_names),
                                       galaxygym.policy_probs(weights, o, m, f, venv.action_feature_names), atol=1e-5)
            model.learn(32)  # it trains on
            if case == "galaxy-express-v1-trap":  # SB3's PPO (no masks) gets the same actor
                import torch
                from stable_baselines3 import PPO
                from galaxygym.sb3 import ActionFeaturesActorCriticPolicy
                ppo = from_weights(weights, venv, algo=PPO, n_steps=16, batch_size=16, seed=0)
                assert isinstance(ppo.policy, ActionFeaturesActorCriticPolicy)
                with torch.no_grad():
                    t, _ = ppo.policy.obs_to_tensor({"obs": o[:40], "action_features": f[:40]})
                    logits = ppo.policy.get_distribution(t).distribution.logits.numpy()
                np.testing.assert_array_equal(np.where(m[:40], logits, -np.inf).argmax(1),
                                              galaxygym.policy_probs(weights, o[:40], m[:40], f[:40],
                                                                     venv.action_feature_names).argmax(1))
            if env_id != "galaxy-express-v1":  # a two-player game: galaxygym.evaluate plays the model as it is
                # Training from the clone (0.98 on one move of 380) past the step where sb3-contrib's
                # float32 simplex check failed (in the third rollout's updates) before from_weights
                # turned torch's argument validation off.
                wide = VecEnv(env_id, num_envs=16, action_features=True, **params)
                try:
                    from_weights(weights, wide, n_steps=256, batch_size=512, n_epochs=4, learning_rate=1e-5,
                                 seed=0).learn(16384)
                finally:
                    wide.close()
                res = galaxygym.evaluate(model, env_id, seats=["heuristic"], episodes=2,
                                         **{k: v for k, v in params.items() if k != "opponents"})
                assert res["agents"][0]["games"] == 4
        finally:
            venv.close()
