"""The checkers as users call them, and the Gymnasium registration."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import galaxygym

IDS = ["galaxy-express-v1", "galaxy-fighters-v1"]


def test_every_server_env_is_registered(server):
    ids = [s["id"] for s in galaxygym.list_envs(url=server.url)]
    assert ids and set(ids) <= set(galaxygym._registration.env_ids())
    for env_id in ids:
        assert galaxygym.gym_id(env_id) in gymnasium.registry
    assert galaxygym.gym_id("galaxy-express-v1") == "galaxygym/GalaxyExpress-v1"
    assert galaxygym.gym_id("pilots-of-gallaxia-v1") == "galaxygym/PilotsOfGallaxia-v1"
    with pytest.raises(ValueError):
        galaxygym.gym_id("no-version")


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_check_env_unchanged(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", galaxygym.IllegalActionWarning)
        env = galaxygym.make(env_id)
        check_env(env)
        env.close()
        env = gymnasium.make(galaxygym.gym_id(env_id))
        check_env(env.unwrapped)
        env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_check_env_unchanged(env_id):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", galaxygym.IllegalActionWarning)
        env = galaxygym.make(env_id)
        sb3_checker.check_env(env)
        env.close()


def test_gymnasium_make_spec_and_make_vec():
    env = gymnasium.make("galaxygym/GalaxyFighters-v1", players=2, mission="rookie")
    assert env.spec is not None and env.spec.id == "galaxygym/GalaxyFighters-v1"
    assert env.spec.kwargs == {"env_id": "galaxy-fighters-v1", "players": 2, "mission": "rookie"}
    assert env.unwrapped.num_players == 2
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    # The spec re-creates the same environment (what Minari's recover_environment does).
    again = gymnasium.make(env.spec)
    np.testing.assert_array_equal(again.reset(seed=0)[0], env.reset(seed=0)[0])
    again.close()
    env.close()
    # The module:id form needs no prior import.
    gymnasium.make("galaxygym:galaxygym/GalaxyExpress-v1").close()
    envs = gymnasium.make_vec("galaxygym/GalaxyExpress-v1", num_envs=4)
    assert isinstance(envs, galaxygym.GalaxyGymVectorEnv) and envs.num_envs == 4
    assert envs.reset(seed=0)[0].shape == (4, 503)
    envs.close()
