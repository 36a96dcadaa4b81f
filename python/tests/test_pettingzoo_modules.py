"""PettingZoo-style modules, parallel_env, flat observations for SuperSuit,
pickling."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

import galaxygym
from galaxygym import pettingzoo as gpz


def test_a_module_per_environment():
    from galaxygym.pettingzoo import galaxy_express_v1, galaxy_fighters_v1
    assert galaxy_fighters_v1.ENV_ID == "galaxy-fighters-v1"
    assert galaxy_express_v1 is gpz.module("galaxy-express-v1")
    import galaxygym.pettingzoo.galaxy_fighters_v1 as again  # cached in sys.modules
    assert again is galaxy_fighters_v1
    assert "galaxy_fighters_v1" in dir(gpz)
    with pytest.raises(AttributeError, match="environments"):
        gpz.no_such_game_v1
    env = galaxy_fighters_v1.env(players=4)
    env.reset(seed=0)
    assert env.unwrapped.game_spec["num_players"] == 4 and len(env.agents) == 4
    env.close()


@pytest.mark.parametrize("players", [2, 4])
def test_parallel_env(players):
    from galaxygym.pettingzoo import galaxy_fighters_v1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(galaxy_fighters_v1.parallel_env(players=players), num_cycles=200)
    env = galaxy_fighters_v1.parallel_env(players=players)
    obs, infos = env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) if obs[a]["action_mask"].any() else 0
                   for a in env.agents}
        obs, rewards, term, trunc, infos = env.step(actions)
        steps += 1
    assert steps > 0 and set(rewards) == {f"player_{i}" for i in range(players)}
    env.close()


@pytest.mark.parametrize("env_id", ["galaxy-express-v1", "galaxy-fighters-v1"])
def test_flat_observations(env_id):
    env = galaxygym.aec_env(env_id, flat=True)
    assert env.observation_space("player_0").shape == tuple(env.game_spec["obs_shape"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=100)
    env.reset(seed=0)
    for agent in env.agent_iter(500):
        obs, reward, term, trunc, info = env.last()
        assert isinstance(obs, np.ndarray) and obs.dtype == np.uint8
        env.step(None if term or trunc else int(np.flatnonzero(info["action_mask"])[0]))
    env.close()


def test_supersuit_accepts_flat():
    ss = pytest.importorskip("supersuit")
    from galaxygym.pettingzoo import galaxy_fighters_v1
    env = galaxy_fighters_v1.raw_env(players=2, flat=True)
    env = ss.dtype_v0(env, np.float32)
    env = ss.normalize_obs_v0(env, env_min=0, env_max=1)
    env.reset(seed=0)
    obs, *_ = env.last()
    assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1
    # The parallel form through SuperSuit's vector conversion (which copies envs).
    par = ss.dtype_v0(galaxy_fighters_v1.parallel_env(players=2, flat=True), np.float32)
    vec = ss.pettingzoo_env_to_vec_env_v1(par)
    vobs, _ = vec.reset(seed=0)
    assert vobs.shape[0] == 2 and vobs.dtype == np.float32
    vec.close()
    env.close()


def test_aec_and_vector_pickle():
    env = galaxygym.aec_env("galaxy-fighters-v1", players=3)
    env.reset(seed=5)
    for _ in range(4):
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    clone = pickle.loads(pickle.dumps(env))
    assert clone.agent_selection == env.agent_selection and clone.state() == env.state()
    clone.close()
    env.close()
    envs = galaxygym.make_vec("galaxy-express-v1", 3)
    envs.reset(seed=2)
    envs.step(np.argmax(envs.action_masks(), axis=1))
    twin = copy.deepcopy(envs)
    a = np.argmax(envs.action_masks(), axis=1)
    o1, r1, *_ = envs.step(a)
    o2, r2, *_ = twin.step(a)
    np.testing.assert_array_equal(o1, o2)
    np.testing.assert_array_equal(r1, r2)
    twin.close()
    envs.close()
