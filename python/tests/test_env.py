"""The single environment: Gymnasium API, spaces, seeds, masks, errors."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import galaxygym
from galaxygym import episode_seed

from conftest import ENV_ID


def legal(info: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def play(env: galaxygym.GalaxyGymEnv, seed: int, steps: int, action_seed: int = 0):
    rng = np.random.default_rng(action_seed)
    obs, info = env.reset(seed=seed)
    traj = [obs]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(legal(info, rng))
        traj.append((obs, reward, terminated, truncated))
        if terminated or truncated:
            break
    return traj


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


def test_spaces(url):
    with galaxygym.make(ENV_ID, url=url) as env:
        assert isinstance(env, gym.Env)
        spec = env.game_spec
        assert env.observation_space == gym.spaces.Box(
            0, np.array(spec["obs_high"], np.uint8), shape=(503,), dtype=np.uint8)
        assert env.observation_space.dtype == np.uint8
        assert env.observation_space.shape == tuple(spec["obs_shape"]) == (503,)
        assert np.array_equal(env.observation_space.high, np.array(spec["obs_high"], np.uint8))
        assert env.observation_space.high.max() > 1  # true bounds, not a blanket 255
        assert env.action_space == gym.spaces.Discrete(56)
        assert len(env.action_names) == 56 and env.num_players == 1
        assert env.params["max_turns"] == 200
        obs, info = env.reset(seed=1)
        assert obs in env.observation_space and obs.dtype == np.uint8 and obs.flags.writeable


def test_determinism_by_seed(url):
    with galaxygym.make(ENV_ID, url=url) as a, galaxygym.make(ENV_ID, url=url) as b:
        ta, tb = play(a, 42, 60), play(b, 42, 60)
        assert len(ta) == len(tb) and all(same(x, y) for x, y in zip(ta, tb))
        other = play(b, 43, 0)
        assert not np.array_equal(ta[0], other[0])
        # seed=None after a seeded reset is reproducible (drawn from np_random).
        a.reset(seed=7)
        b.reset(seed=7)
        oa, _ = a.reset()
        ob, _ = b.reset()
        assert np.array_equal(oa, ob)


def test_reset_matches_go_episode_seed(url):
    # reset(seed=s) on the server is env.Reset(s): two sessions agree, and
    # episode_seed(s, 0) == s.
    assert episode_seed(5, 0) == 5
    assert episode_seed(0, 1) == 0xE220A8397B1DCDAF


def test_masks(url):
    rng = np.random.default_rng(0)
    with galaxygym.make(ENV_ID, url=url) as env:
        obs, info = env.reset(seed=3)
        for _ in range(30):
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (56,)
            assert np.array_equal(env.action_masks(), mask.astype(bool))
            assert env.action_masks().dtype == bool
            a = env.action_space.sample(mask=mask)
            assert mask[a] == 1
            obs, r, term, trunc, info = env.step(a)
            assert isinstance(r, float) and isinstance(term, bool) and isinstance(trunc, bool)
            assert set(info) >= {"action_mask", "current_player", "score", "outcome", "steps", "rewards",
                                  "scores", "ranks", "outcomes"}
            if term or trunc:
                assert info["action_mask"].sum() == 0 and info["current_player"] == -1
                assert galaxygym.OUTCOMES[info["outcome"]] in ("win", "loss", "truncated")
                # One player: its result is the episode's, rank 1.
                assert info["ranks"].tolist() == [1] and info["scores"][0] == info["score"]
                assert galaxygym.OUTCOMES[info["outcomes"][0]] in ("win", "loss", "draw")
                break
            assert info["ranks"].tolist() == [0] and info["outcomes"].tolist() == [0]
            assert info["current_player"] == 0
        _ = rng


def test_illegal_action_error(url):
    with galaxygym.make(ENV_ID, url=url, render_mode="ansi", illegal_action="raise") as env:
        obs, info = env.reset(seed=11)
        board = env.render()
        state = env.get_state()
        bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
        with pytest.raises(galaxygym.IllegalActionError) as e:
            env.step(bad)
        assert e.value.code == "illegal_action" and e.value.action == bad and e.value.index == 0
        assert str(e.value).startswith("server: ")
        assert isinstance(e.value, galaxygym.GalaxyGymError) and isinstance(e.value, ValueError)
        for bad in (-1, 56, 2**40):
            with pytest.raises(galaxygym.IllegalActionError):
                env.step(bad)
        # Nothing changed: same board, same state, and play goes on.
        assert env.render() == board
        assert env.get_state() == state
        obs2, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert obs2 in env.observation_space


def test_illegal_action_terminates_by_default(url):
    with galaxygym.make(ENV_ID, url=url) as env:
        assert env.illegal_action == "terminate"
        obs, info = env.reset(seed=11)
        bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
        with pytest.warns(galaxygym.IllegalActionWarning, match="ended a galaxy-express-v1 episode"):
            obs2, r, term, trunc, info2 = env.step(bad)
        assert np.array_equal(obs, obs2) and term and not trunc and info2["illegal_action"]
        assert r == env.game_spec["reward_range"][0]
        with pytest.raises(galaxygym.EpisodeOverError):
            env.step(0)
        env.reset(seed=1)


def test_episode_over_without_reset(url):
    with galaxygym.make(ENV_ID, url=url, max_turns=1) as env:
        obs, info = env.reset(seed=2)
        rng = np.random.default_rng(1)
        for _ in range(5):
            obs, r, term, trunc, info = env.step(legal(info, rng))
            if term or trunc:
                break
        assert trunc or term
        with pytest.raises(galaxygym.EpisodeOverError):
            env.step(0)
        with pytest.raises(galaxygym.NotResetError):
            galaxygym.make(ENV_ID, url=url).step(0)


def test_state_through_options(url):
    rng = np.random.default_rng(5)
    with galaxygym.make(ENV_ID, url=url) as a, galaxygym.make(ENV_ID, url=url) as b:
        obs, info = a.reset(seed=99)
        for _ in range(6):
            obs, r, term, trunc, info = a.step(legal(info, rng))
        snap = a.get_state()
        assert snap["env"] == ENV_ID and "position" in snap["state"]
        ob, ib = b.reset(options={"state": snap})
        assert np.array_equal(ob, obs) and ib["steps"] == info["steps"] == 6
        # The same actions give the same trajectory from here on.
        for _ in range(10):
            act = legal(info, rng)
            oa, ra, ta_, tra, info = a.step(act)
            ob, rb, tb_, trb, _ = b.step(act)
            assert np.array_equal(oa, ob) and ra == rb and ta_ == tb_ and tra == trb
            if ta_ or tra:
                break
        # As a JSON string, and as the game's own state (a fresh episode).
        ob, ib = b.reset(options={"state": json.dumps(snap)})
        assert ib["steps"] == 6
        ob, ib = b.reset(seed=1, options={"state": snap["state"]})
        assert ib["steps"] == 0
        with pytest.raises(galaxygym.BadStateError):
            b.reset(options={"state": {"position": "not a position"}})
        with pytest.raises(ValueError):
            b.reset(options={"unknown": 1})


def test_render(url):
    with galaxygym.make(ENV_ID, url=url, render_mode="ansi") as env:
        env.reset(seed=0)
        text = env.render()
        assert isinstance(text, str) and "Galaxy Express" in text
    with galaxygym.make(ENV_ID, url=url) as env:
        env.reset(seed=0)
        assert env.render() is None
    with pytest.raises(ValueError):
        galaxygym.make(ENV_ID, url=url, render_mode="window")


def test_check_env(url):
    # check_env steps with unmasked action_space.sample(), which is usually
    # illegal here: illegal_action="terminate" turns those into terminal
    # steps instead of exceptions.
    env = galaxygym.make(ENV_ID, url=url, render_mode="ansi", illegal_action="terminate")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*not having a spec.*")
        check_env(env)
    env.close()


def test_errors_and_close(url):
    with pytest.raises(galaxygym.UnknownEnvError) as e:
        galaxygym.make("no-such-env-v9", url=url)
    assert "galaxy-express-v1" in str(e.value)
    with pytest.raises(galaxygym.InvalidParamError):
        galaxygym.make(ENV_ID, url=url, max_turns=-3)
    with pytest.raises(galaxygym.InvalidParamError):
        galaxygym.make(ENV_ID, url=url, warp_speed=9)
    env = galaxygym.make(ENV_ID, url=url)
    env.reset(seed=0)
    env.close()
    env.close()  # idempotent
    with pytest.raises(galaxygym.ConnectionClosedError):
        env.step(0)
    specs = galaxygym.list_envs(url)
    ids = [s["id"] for s in specs]
    assert ENV_ID in ids and "galaxy-fighters-v1" in ids and "galaxy-fighters-v2" in ids and ids == sorted(ids)
