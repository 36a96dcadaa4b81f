"""galaxygym.aec_env: the PettingZoo AEC API, checked by PettingZoo's own
api_test and by full games."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test

import galaxygym
from conftest import ENV_ID

# PettingZoo's api_test warns about what every masked classic environment
# does (chess_v6 included): the observation is a Dict of "observation" and
# "action_mask", not a Box or a NumPy array; and it resets with an unknown
# option, which galaxygym reports with a UserWarning of its own.
API_TEST_WARNINGS = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
    pytest.mark.filterwarnings("ignore:galaxygym. ignoring unknown reset options:UserWarning"),
]


def api_test_warnings(f):
    for mark in API_TEST_WARNINGS:
        f = mark(f)
    return f


@pytest.fixture
def aec(server):
    env = galaxygym.aec_env(ENV_ID, url=server.url)
    yield env
    env.close()


def test_is_a_pettingzoo_aec_env(aec):
    assert isinstance(aec, AECEnv)
    assert aec.possible_agents == ["player_0"]
    space = aec.observation_space("player_0")
    assert space["observation"].shape == (503,) and space["observation"].dtype == np.uint8
    assert space["action_mask"].shape == (56,)
    assert aec.action_space("player_0").n == 56


@api_test_warnings
def test_pettingzoo_api_test(aec):
    api_test(aec, num_cycles=200)


def test_unknown_reset_option_warns(aec):
    # PettingZoo passes options through unchecked, so an unknown one is a
    # warning, not an error; the episode still starts from the seed.
    with pytest.warns(UserWarning, match=r"ignoring unknown reset options \['bogus'\]"):
        aec.reset(seed=3, options={"bogus": 1})
    first, *_ = aec.last()
    aec.reset(seed=3)
    again, *_ = aec.last()
    assert np.array_equal(first["observation"], again["observation"])


def play(env, seed, rng):
    env.reset(seed=seed)
    total, steps, last = 0.0, 0, None
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        total += reward
        if terminated or truncated:
            last = (obs, info)
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert env.observation_space(agent).contains(obs)
        env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return total, steps, last


def test_full_games_match_the_gymnasium_env(server):
    """A game through aec_env is the same game as through make: same
    observations, rewards summing to the score, same outcome."""
    rng = np.random.default_rng(1)
    with galaxygym.aec_env(ENV_ID, url=server.url) as aec, galaxygym.make(ENV_ID, url=server.url) as gym_env:
        for seed in range(5):
            aec.reset(seed=seed)
            obs, info = gym_env.reset(seed=seed)
            total = 0.0
            for agent in aec.agent_iter():
                o, reward, terminated, truncated, ainfo = aec.last()
                total += reward
                if terminated or truncated:
                    assert galaxygym.OUTCOMES[ainfo["outcome"]] in ("win", "loss", "truncated")
                    assert ainfo["outcome"] == info["outcome"] and ainfo["rank"] == 1
                    assert total == pytest.approx(info["score"])
                    aec.step(None)
                    continue
                np.testing.assert_array_equal(o["observation"], obs)
                np.testing.assert_array_equal(o["action_mask"], info["action_mask"])
                a = int(rng.choice(np.flatnonzero(o["action_mask"])))
                aec.step(a)
                obs, _, _, _, info = gym_env.step(a)
            assert aec.agents == []


def test_deterministic_by_seed(server):
    with galaxygym.aec_env(ENV_ID, url=server.url) as env:
        a = play(env, 11, np.random.default_rng(3))
        b = play(env, 11, np.random.default_rng(3))
    assert a[0] == b[0] and a[1] == b[1]
    np.testing.assert_array_equal(a[2][0]["observation"], b[2][0]["observation"])


def test_illegal_action_raises_and_changes_nothing(server):
    aec = galaxygym.aec_env(ENV_ID, url=server.url, illegal_action="raise")
    aec.reset(seed=2)
    obs = aec.observe("player_0")
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(galaxygym.IllegalActionError):
        aec.step(bad)
    after = aec.observe("player_0")
    np.testing.assert_array_equal(after["observation"], obs["observation"])
    assert aec.agent_selection == "player_0" and not aec.terminations["player_0"]
    aec.close()


def test_illegal_action_ends_the_game_by_default(aec):
    aec.reset(seed=2)
    bad = int(np.flatnonzero(aec.observe("player_0")["action_mask"] == 0)[0])
    with pytest.warns(galaxygym.IllegalActionWarning):
        aec.step(bad)
    assert aec.terminations["player_0"] and aec.infos["player_0"]["illegal_action"]
    assert aec.rewards["player_0"] == aec.game_spec["reward_range"][0]


def test_dead_agent_must_step_none(aec):
    total, steps, last = play(aec, 4, np.random.default_rng(0))
    assert steps > 0 and last is not None
    assert not last[0]["action_mask"].any()  # no legal action once over


@pytest.mark.parametrize("players", [4, 3, 2])
@api_test_warnings
def test_pettingzoo_api_test_multiplayer(server, players):
    with galaxygym.aec_env("galaxy-fighters-v2", url=server.url, players=players) as env:
        assert env.game_spec["num_players"] == players
        assert env.possible_agents == [f"player_{i}" for i in range(players)]
        api_test(env, num_cycles=300)


def test_multiplayer_game_through_aec(server):
    """Galaxy Fighters (4 players): every player acts, observations are each
    player's own rotated view, rewards are the team's and sum to the returns."""
    rng = np.random.default_rng(5)
    with galaxygym.aec_env("galaxy-fighters-v2", url=server.url, mission="rookie") as env:
        env.reset(seed=3)
        acted, totals = set(), {a: 0.0 for a in env.possible_agents}
        views = {a: env.observe(a)["observation"] for a in env.possible_agents}
        # Seats see the board from their own side: the four views differ.
        assert len({v.tobytes() for v in views.values()}) == 4
        # Only the agent to act has legal actions.
        for a in env.possible_agents:
            assert env.observe(a)["action_mask"].any() == (a == env.agent_selection)
        outcome = None
        for agent in env.agent_iter(max_iter=20000):
            obs, reward, terminated, truncated, info = env.last()
            totals[agent] += reward
            if terminated or truncated:
                outcome = galaxygym.OUTCOMES[info["outcome"]]
                # Cooperative: every agent shares rank 1 and the team's outcome.
                assert info["rank"] == 1
                assert galaxygym.OUTCOMES[info["player_outcome"]] in ("win", "loss", "draw")
                env.step(None)
                continue
            acted.add(agent)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.agents == []
        assert acted == set(env.possible_agents)
        assert outcome in ("win", "loss", "truncated")
        # Cooperative: the whole team gets the same return (+1 win, -1 loss).
        assert len(set(totals.values())) == 1
        assert totals["player_0"] == {"win": 1.0, "loss": -1.0, "truncated": 0.0}[outcome]


def test_vector_env_multiplayer_rewards(server):
    """make_vec on a multiplayer game: rewards are the acting player's, and
    info["rewards"] carries every player's."""
    with galaxygym.make_vec("galaxy-fighters-v1", 4, url=server.url, players=2) as envs:
        obs, infos = envs.reset(seed=0)
        assert obs.shape == (4, 4092)
        rng = np.random.default_rng(0)
        for _ in range(200):
            masks = infos["action_mask"].astype(bool)
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, rew, term, trunc, infos = envs.step(actions)
            assert infos["rewards"].shape == (4, 2)
            assert set(np.unique(infos["current_player"])) <= {-1, 0, 1}
