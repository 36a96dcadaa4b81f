"""Pilots of Gallaxia (pilots-of-gallaxia-v2 and -v1) through the generic Python
path: PettingZoo's api_test at two, four and six pilots, and a whole game in
which every pilot's rewards sum to the zero-sum result."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

import galaxygym
from test_aec import api_test_warnings

POG = "pilots-of-gallaxia-v2"
IDS = ["pilots-of-gallaxia-v1", "pilots-of-gallaxia-v2"]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("players", [2, 4, 6])
@api_test_warnings
def test_pettingzoo_api_test(server, env_id, players):
    with galaxygym.aec_env(env_id, url=server.url, players=players) as env:
        assert env.game_spec["num_players"] == players
        assert env.possible_agents == [f"player_{i}" for i in range(players)]
        api_test(env, num_cycles=300)


def test_game_through_aec(server):
    rng = np.random.default_rng(7)
    with galaxygym.aec_env(POG, url=server.url, players=4, max_turns=12) as env:
        env.reset(seed=11)
        totals = {a: 0.0 for a in env.possible_agents}
        acted = set()
        for agent in env.agent_iter(max_iter=20000):
            obs, reward, terminated, truncated, info = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            acted.add(agent)
            mask = obs["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        assert acted == set(env.possible_agents)
        # Rookie Run is zero-sum at the end (0 each when truncated).
        assert abs(sum(totals.values())) < 1e-9 or abs(sum(totals.values()) + 2) < 1e-9
