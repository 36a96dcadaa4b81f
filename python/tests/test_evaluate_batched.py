"""galaxygym.evaluate on batched policies and SB3 models, and
galaxygym.sb3.export: the exported file plays as the model does."""

from __future__ import annotations

import json
import subprocess
import warnings

import numpy as np
import pytest

import galaxygym


def _first_legal(obs, mask):
    return int(np.flatnonzero(mask)[0])


def test_batched_policy_plays_the_same_games_as_per_observation():
    """A batched policy that plays like a per-observation one gives the
    same report, game for game; its calls see whole batches."""
    sizes = []

    def batched(obs, mask):
        sizes.append(len(obs))
        assert obs.dtype == np.uint8 and mask.ndim == 2 and len(mask) == len(obs)
        return [int(np.flatnonzero(m)[0]) for m in mask]

    kw = dict(seats=[None, "heuristic"], episodes=6, players=2, seed=3)
    one = galaxygym.evaluate(_first_legal, "express-v2", **kw)
    many = galaxygym.evaluate(batched, "express-v2", batched=True, **kw)
    assert one["games"] == many["games"]
    assert one["agents"] == many["agents"]
    assert max(sizes) == 6  # every game of a rotation in one call


def test_batched_policy_wrong_length_is_refused():
    with pytest.raises(ValueError, match="returned 1 actions for 4 observations"):
        galaxygym.evaluate(lambda obs, mask: [0], "express-v2", seats=[None, "random"], episodes=4,
                           players=2, batched=True, rotate=False)


def test_sb3_model_evaluates_and_exports(tmp_path, server_bin):
    torch = pytest.importorskip("torch")
    contrib = pytest.importorskip("sb3_contrib")
    import galaxygym.sb3 as gsb3
    from galaxygym.sb3 import VecEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        venv = VecEnv("express-v2", num_envs=4, opponents="heuristic", players=2)
        try:
            model = contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, seed=0)
            model.learn(128)
            path = tmp_path / "ppo.npz"
            meta = gsb3.export(model, path)
            obs = venv.reset()
            masks = venv.action_masks()
        finally:
            venv.close()
    assert meta["env_id"] == "express-v2"
    # The file's policy is the model's actor: the same greedy legal action.
    want, _ = model.predict(obs, action_masks=masks, deterministic=True)
    probs = galaxygym.policy_probs(path, obs, masks.astype(np.int8))
    np.testing.assert_array_equal(probs.argmax(axis=1), want)
    with torch.no_grad():
        t, _ = model.policy.obs_to_tensor(obs)
        ref = torch.softmax(model.policy.get_distribution(t).distribution.logits.masked_fill(
            ~torch.as_tensor(masks), -1e9), dim=1).numpy()
    np.testing.assert_allclose(probs, ref, atol=1e-5)
    # evaluate takes the model as it is.
    rep = galaxygym.evaluate(model, "express-v2", seats=[None, "random"], episodes=4, players=2, name="ppo")
    assert [r["agent"] for r in rep["agents"]] == ["ppo", "random"] and rep["agents"][0]["games"] == 8
    # The Go policy agent loads the exported file.
    out = subprocess.run([server_bin, "eval", "--env", "express-v2", "--env-param", "players=2", "--episodes", "4",
                          "--seats", "policy@weights=ppo.npz,random", "--format", "json"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert "policy" in json.dumps(rows)


def test_export_refuses_what_it_cannot_write(tmp_path):
    pytest.importorskip("torch")
    sb3 = pytest.importorskip("stable_baselines3")
    import galaxygym.sb3 as gsb3
    from galaxygym.sb3 import VecEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        venv = VecEnv("galaxy-express-v1", num_envs=2)
        try:
            model = sb3.PPO("MlpPolicy", venv, n_steps=8, batch_size=16, seed=0,
                            policy_kwargs={"activation_fn": __import__("torch").nn.ELU})
            with pytest.raises(ValueError, match="activation ELU"):
                gsb3.export(model, tmp_path / "x.npz")
            model = sb3.DQN("MlpPolicy", venv, seed=0, buffer_size=100)
            with pytest.raises(ValueError, match="no actor-critic MLP policy"):
                gsb3.export(model, tmp_path / "x.npz")
        finally:
            venv.close()
