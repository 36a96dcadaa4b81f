"""The vector environment: batching, infos, the three autoreset modes."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

import galaxygym
from galaxygym import episode_seed

from conftest import ENV_ID


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (0 where none is legal)."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def single_obs(url: str, seed: int, **params) -> np.ndarray:
    with galaxygym.make(ENV_ID, url=url, **params) as env:
        return env.reset(seed=seed)[0]


def test_vector_api(url):
    n = 5
    with galaxygym.make_vec(ENV_ID, n, url=url, render_mode="ansi") as envs:
        assert isinstance(envs, VectorEnv)
        assert envs.num_envs == n
        assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        assert envs.single_observation_space.shape == (503,)
        assert envs.observation_space.shape == (n, 503) and envs.observation_space.dtype == np.uint8
        assert envs.single_action_space.n == 56
        assert envs.action_space.shape == (n,)
        obs, infos = envs.reset(seed=10)
        assert obs.shape == (n, 503) and obs.dtype == np.uint8 and obs in envs.observation_space
        for i in range(n):  # seed=int seeds env i with seed + i
            assert np.array_equal(obs[i], single_obs(url, 10 + i))
        for key in ("action_mask", "current_player", "score", "outcome", "steps", "rewards"):
            assert key in infos and infos["_" + key].all() and len(infos[key]) == n
        assert infos["action_mask"].dtype == np.int8 and infos["action_mask"].shape == (n, 56)
        assert np.array_equal(envs.action_masks(), infos["action_mask"].astype(bool))
        rng = np.random.default_rng(0)
        obs, rew, term, trunc, infos = envs.step(random_legal(envs.action_masks(), rng))
        assert rew.dtype == np.float64 and rew.shape == (n,)
        assert term.dtype == bool and trunc.dtype == bool and term.shape == (n,)
        assert infos["rewards"].shape == (n, 1)
        frames = envs.render()
        assert isinstance(frames, tuple) and len(frames) == n and "Galaxy Express" in frames[0]
        # Seed lists; None continues an env's chain.
        obs2, _ = envs.reset(seed=[10, 11, 12, 13, 14])
        assert np.array_equal(obs2[0], single_obs(url, 10))
        with pytest.raises(ValueError):
            envs.reset(seed=[1, 2])
        with pytest.raises(ValueError):
            envs.step(np.zeros(n + 1, dtype=np.int64))
    assert envs.closed
    envs.close()


def test_vector_matches_single_envs(url):
    n = 3
    rng = np.random.default_rng(1)
    with galaxygym.make_vec(ENV_ID, n, url=url) as envs:
        singles = [galaxygym.make(ENV_ID, url=url) for _ in range(n)]
        obs, _ = envs.reset(seed=100)
        for i, e in enumerate(singles):
            assert np.array_equal(obs[i], e.reset(seed=100 + i)[0])
        for _ in range(15):
            acts = random_legal(envs.action_masks(), rng)
            obs, rew, term, trunc, _ = envs.step(acts)
            for i, e in enumerate(singles):
                o, r, t, tr, _ = e.step(int(acts[i]))
                assert np.array_equal(obs[i], o) and rew[i] == r and term[i] == t and trunc[i] == tr
            if (term | trunc).any():
                break
        for e in singles:
            e.close()


def run_until_done(envs, rng, limit=200):
    for _ in range(limit):
        obs, rew, term, trunc, infos = envs.step(random_legal(envs.action_masks(), rng))
        if (term | trunc).any():
            return obs, rew, term, trunc, infos
    raise AssertionError("no episode ended")


def test_autoreset_next_step(url):
    rng = np.random.default_rng(2)
    with galaxygym.make_vec(ENV_ID, 4, url=url, max_turns=3) as envs:
        envs.reset(seed=50)
        obs, rew, term, trunc, infos = run_until_done(envs, rng)
        done = np.flatnonzero(term | trunc)
        i = int(done[0])
        assert infos["current_player"][i] == -1 and infos["action_mask"][i].sum() == 0
        assert galaxygym.OUTCOMES[infos["outcome"][i]] in ("win", "loss", "truncated")
        assert infos["ranks"][i].tolist() == [1] and infos["scores"][i, 0] == infos["score"][i]
        # Next step: the done env is reset, its action ignored (any value).
        acts = random_legal(envs.action_masks(), rng)
        acts[done] = 12345
        obs2, rew2, term2, trunc2, infos2 = envs.step(acts)
        assert rew2[i] == 0 and not term2[i] and not trunc2[i] and infos2["steps"][i] == 0
        assert np.array_equal(obs2[i], single_obs(url, episode_seed(50 + i, 1), max_turns=3))


def test_autoreset_same_step(url):
    rng = np.random.default_rng(3)
    with galaxygym.make_vec(ENV_ID, 4, url=url, autoreset_mode="same_step", max_turns=3) as envs:
        assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        envs.reset(seed=60)
        obs, rew, term, trunc, infos = run_until_done(envs, rng)
        done = term | trunc
        i = int(np.flatnonzero(done)[0])
        assert np.array_equal(infos["_final_obs"], done) and np.array_equal(infos["_final_info"], done)
        assert infos["final_obs"][i].shape == (503,)
        assert all(infos["final_obs"][j] is None for j in np.flatnonzero(~done))
        fi = infos["final_info"]
        assert galaxygym.OUTCOMES[fi["outcome"][i]] in ("win", "loss", "truncated") and fi["_score"][i]
        assert fi["ranks"][i].tolist() == [1] and fi["scores"][i, 0] == fi["score"][i] and fi["_ranks"][i]
        # The returned obs is already the next episode's first.
        assert infos["steps"][i] == 0 and infos["action_mask"][i].sum() > 0
        assert np.array_equal(obs[i], single_obs(url, episode_seed(60 + i, 1), max_turns=3))
        assert not np.array_equal(infos["final_obs"][i], obs[i])


def test_autoreset_disabled(url):
    rng = np.random.default_rng(4)
    with galaxygym.make_vec(ENV_ID, 3, url=url, autoreset_mode=AutoresetMode.DISABLED, max_turns=3) as envs:
        assert envs.metadata["autoreset_mode"] == AutoresetMode.DISABLED
        envs.reset(seed=70)
        obs, rew, term, trunc, infos = run_until_done(envs, rng)
        done = term | trunc
        with pytest.raises(galaxygym.EpisodeOverError) as e:
            envs.step(random_legal(envs.action_masks(), rng))
        assert e.value.index == int(np.flatnonzero(done)[0])
        obs2, infos2 = envs.reset(options={"reset_mask": done})
        assert np.array_equal(infos2["_steps"], done)
        assert np.array_equal(obs2[~done], obs[~done])
        assert (infos2["steps"][done] == 0).all()
        envs.step(random_legal(envs.action_masks(), rng))


def test_vector_state_options(url):
    rng = np.random.default_rng(6)
    with galaxygym.make_vec(ENV_ID, 2, url=url) as envs:
        envs.reset(seed=80)
        for _ in range(4):
            obs, *_ = envs.step(random_legal(envs.action_masks(), rng))
        snap = envs.get_state(0)
        obs2, infos = envs.reset(options={"states": [None, snap]})
        assert np.array_equal(obs2[1], obs[0])
        obs3, _ = envs.reset(options={"state": snap})
        assert np.array_equal(obs3[0], obs[0]) and np.array_equal(obs3[1], obs[0])


def test_vector_illegal_action_steps_nothing(url):
    with galaxygym.make_vec(ENV_ID, 3, url=url) as envs:
        obs, infos = envs.reset(seed=90)
        acts = np.argmax(envs.action_masks(), axis=1)
        acts[2] = int(np.flatnonzero(infos["action_mask"][2] == 0)[0])
        with pytest.raises(galaxygym.IllegalActionError) as e:
            envs.step(acts)
        assert e.value.index == 2
        assert envs.episode_info()[0]["turns"] == 0
        acts[2] = np.argmax(infos["action_mask"][2])
        _, _, _, _, infos = envs.step(acts)
        assert (infos["steps"] == 1).all()


@pytest.mark.parametrize("copy", [False, True])
def test_arrays_are_fresh(url, copy):
    with galaxygym.make_vec(ENV_ID, 2, url=url, copy=copy) as envs:
        obs, infos = envs.reset(seed=1)
        kept = obs.copy()
        assert obs.flags.writeable and infos["action_mask"].flags.writeable
        obs2, *_ = envs.step(np.argmax(envs.action_masks(), axis=1))
        assert np.array_equal(obs, kept)  # an earlier step's arrays are never overwritten
        assert not np.shares_memory(obs, obs2)
        obs2[:] = 0  # writable, and writing does not disturb the env
        _, infos = envs.reset(seed=1)
        assert np.array_equal(envs.reset(seed=1)[0], kept)


def test_per_player_infos_are_numeric(url):
    """A three-player game: infos carry every player's score, rank and
    outcome code as (N, P) arrays, zeros while an episode runs and the
    result once it is over; every info value is a numeric numpy array (no
    strings, no objects), which torch takes as a tensor."""
    rng = np.random.default_rng(4)
    with galaxygym.make_vec("galaxy-fighters-v1", 3, url=url, players=3, max_turns=4) as envs:
        assert envs.outcome_names == envs.game_spec["outcome_names"] == ["ongoing", "win", "loss", "draw", "truncated"]
        _, infos = envs.reset(seed=70)
        assert infos["scores"].shape == (3, 3) and infos["scores"].dtype == np.float32
        assert infos["ranks"].dtype == np.int32 and not infos["ranks"].any()
        assert infos["outcomes"].dtype == np.uint8 and infos["outcome"].dtype == np.uint8
        obs, rew, term, trunc, infos = run_until_done(envs, rng)
        for i in np.flatnonzero(term | trunc):
            # Cooperative: the team shares rank 1 and one result.
            assert infos["ranks"][i].tolist() == [1, 1, 1]
            assert galaxygym.OUTCOMES[infos["outcome"][i]] in ("win", "loss", "truncated")
            assert len(set(galaxygym.OUTCOMES[infos["outcomes"][i]])) == 1
        for i in np.flatnonzero(~(term | trunc)):
            assert not infos["ranks"][i].any() and infos["outcome"][i] == 0
        for key, value in infos.items():
            assert isinstance(value, np.ndarray) and value.dtype.kind in "biuf", (key, value)
        torch = pytest.importorskip("torch")
        for key, value in infos.items():
            assert torch.as_tensor(value).shape == value.shape, key


def _torch_takes_bool_dlpack() -> bool:
    torch = pytest.importorskip("torch")
    try:
        torch.from_dlpack(np.zeros(1, dtype=bool))
    except (RuntimeError, TypeError, AttributeError):
        return False
    return True


def test_numpy_to_torch(url):
    """gymnasium's NumpyToTorch wraps the vector env: observations, rewards,
    flags and every info come back as tensors."""
    if not _torch_takes_bool_dlpack():
        pytest.skip("this torch cannot import bool arrays through DLPack (Debian's 1.13), which "
                    "NumpyToTorch needs for every vector env's terminations (CartPole's too)")
    torch = pytest.importorskip("torch")
    from gymnasium.wrappers.vector import NumpyToTorch

    rng = np.random.default_rng(5)
    with galaxygym.make_vec("galaxy-fighters-v1", 3, url=url, players=3, max_turns=4) as envs:
        torch_envs = NumpyToTorch(envs)
        _, infos = torch_envs.reset(seed=71)
        assert all(isinstance(v, torch.Tensor) for v in infos.values())
        actions = torch.as_tensor(random_legal(infos["action_mask"].numpy(), rng))
        _, rewards, _, _, infos = torch_envs.step(actions)
        assert isinstance(rewards, torch.Tensor)
        assert all(isinstance(v, torch.Tensor) for v in infos.values())
        assert infos["ranks"].shape == (3, 3) and infos["scores"].dtype == torch.float32
