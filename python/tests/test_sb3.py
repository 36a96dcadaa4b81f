"""galaxygym.sb3.VecEnv with the real stable-baselines3 and sb3-contrib."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv as SB3VecEnv, VecMonitor  # noqa: E402

import galaxygym  # noqa: E402
from galaxygym.sb3 import VecEnv  # noqa: E402


def test_vecenv_semantics():
    venv = VecEnv("galaxy-express-v1", num_envs=8)
    assert isinstance(venv, SB3VecEnv) and is_masking_supported(venv)
    venv.seed(3)
    obs = venv.reset()
    assert obs.shape == (8, 503) and obs.dtype == np.uint8
    with galaxygym.make("galaxy-express-v1") as single:  # env i is seeded 3 + i
        np.testing.assert_array_equal(single.reset(seed=5)[0], obs[2])
    rng = np.random.default_rng(0)
    ended = 0
    returns = np.zeros(8)
    for _ in range(400):
        masks = get_action_masks(venv)
        assert masks.shape == (8, 56) and masks.any(axis=1).all()  # SAME_STEP: never an empty mask
        actions = np.argmax(np.where(masks, rng.random(masks.shape), -1), axis=1)
        obs, rewards, dones, infos = venv.step(actions)
        returns += rewards
        assert len(infos) == 8 and rewards.dtype == np.float32
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert info["terminal_observation"].shape == (503,)
            assert not np.array_equal(info["terminal_observation"], obs[i])  # obs is the next episode's
            assert info["episode"]["r"] == pytest.approx(returns[i], abs=1e-4)
            assert info["episode"]["l"] > 0 and galaxygym.OUTCOMES[info["outcome"]] in ("win", "loss", "truncated")
            returns[i] = 0
            ended += 1
        for i in np.flatnonzero(~dones):
            assert "terminal_observation" not in infos[i]
    assert ended > 50
    venv.close()


@pytest.mark.parametrize("env_id,kwargs", [("galaxy-express-v1", {}), ("galaxy-fighters-v1", {"players": 2})])
def test_maskable_ppo_trains_on_one_connection(env_id, kwargs):
    """A few thousand steps of MaskablePPO: the vector env raises on any
    illegal action, so finishing proves the masks reach the policy."""
    venv = VecMonitor(VecEnv(env_id, num_envs=16, **kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=512, n_epochs=2, seed=0, verbose=0)
        model.learn(4096)
    assert model.num_timesteps >= 4096 and len(model.ep_info_buffer) > 0
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
    assert get_action_masks(venv)[np.arange(16), actions].all()
    venv.close()
