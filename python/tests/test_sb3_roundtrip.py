"""MaskablePPO saves and loads with the torch the venv has (make test's
venv: Debian's torch 1.13 with Stable-Baselines3 2.4.1 and sb3-contrib
2.4.0; SB3 2.9's load failed there with "Weights only load failed")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest


def test_maskable_ppo_save_load_round_trip(tmp_path):
    torch = pytest.importorskip("torch")
    contrib = pytest.importorskip("sb3_contrib")
    from galaxygym.sb3 import VecEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        venv = VecEnv("galaxy-express-v1", num_envs=4)
        try:
            model = contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, seed=0)
            model.learn(256)
            path = tmp_path / "maskable_ppo.zip"
            model.save(path)
            loaded = contrib.MaskablePPO.load(path, env=venv)
            want = model.policy.state_dict()
            got = loaded.policy.state_dict()
            assert want.keys() == got.keys()
            for k in want:
                assert torch.equal(want[k], got[k]), k
            obs = venv.reset()
            masks = venv.action_masks()
            a1, _ = model.predict(obs, action_masks=masks, deterministic=True)
            a2, _ = loaded.predict(obs, action_masks=masks, deterministic=True)
            np.testing.assert_array_equal(a1, a2)
            assert masks[np.arange(len(a2)), a2].all()
            loaded.learn(64)  # the loaded model trains on
        finally:
            venv.close()
