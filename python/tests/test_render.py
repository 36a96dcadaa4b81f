"""render_mode="rgb_array": pictures drawn by the server, recorded by
Gymnasium's RecordVideo."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import galaxygym

IDS = ["galaxy-express-v1", "galaxy-fighters-v1", "express-v1", "express-v2", "pilots-of-gallaxia-v2"]


@pytest.mark.parametrize("env_id", IDS)
def test_rgb_array_frames(env_id):
    with galaxygym.make(env_id, render_mode="rgb_array") as env:
        obs, info = env.reset(seed=1)
        a = env.render()
        assert isinstance(a, np.ndarray) and a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3
        assert a.shape[0] > 100 and a.shape[1] > 100 and len(np.unique(a.reshape(-1, 3), axis=0)) > 3
        for _ in range(3):
            obs, *_, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        b = env.render()
        assert b.shape == a.shape and not np.array_equal(a, b)
        # Same position, same picture (drawn in Go, whatever the client).
        with galaxygym.make(env_id, render_mode="rgb_array") as twin:
            twin.reset(seed=1)
            np.testing.assert_array_equal(twin.render(), a)


def test_vector_and_aec_render():
    envs = galaxygym.make_vec("galaxy-express-v1", 3, render_mode="rgb_array")
    envs.reset(seed=0)
    frames = envs.render()
    assert len(frames) == 3 and frames[0].shape[2] == 3
    envs.close()
    aec = galaxygym.aec_env("galaxy-fighters-v1", render_mode="rgb_array", players=2)
    aec.reset(seed=0)
    assert aec.render().shape[2] == 3
    aec.close()


@pytest.mark.parametrize("env_id", IDS)
def test_record_video(env_id, tmp_path):
    pytest.importorskip("moviepy")
    env = gymnasium.make(galaxygym.gym_id(env_id), render_mode="rgb_array")
    env = gymnasium.wrappers.RecordVideo(env, str(tmp_path), episode_trigger=lambda k: True, disable_logger=True)
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while not done and steps < 60:
            obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            done, steps = term or trunc, steps + 1
        env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert videos and videos[0].stat().st_size > 1000
