"""Express (express-v2 and express-v1, 2-6 players, hidden hands) through the generic
client: PettingZoo's api_test at 2, 4 and 6 players, full games whose
returns are the final scores, and make_vec with every player's rewards."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

import galaxygym
from test_aec import api_test_warnings

EXPRESS = "express-v2"
IDS = ["express-v1", "express-v2"]


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("players", [2, 4, 6])
@api_test_warnings
def test_pettingzoo_api_test(server, env_id, players):
    with galaxygym.aec_env(env_id, url=server.url, players=players) as env:
        assert env.game_spec["num_players"] == players
        assert env.possible_agents == [f"player_{i}" for i in range(players)]
        space = env.observation_space("player_0")
        assert space["observation"].shape == (1058,) and space["action_mask"].shape == (648,)
        api_test(env, num_cycles=300)


def test_full_game_returns_are_scores(server):
    """A whole 3-player game through aec_env: the block decisions make the
    agent to act jump out of turn; every player's summed rewards equal its
    final score, and the player outcomes and ranks follow the scores."""
    rng = np.random.default_rng(7)
    with galaxygym.aec_env(EXPRESS, url=server.url, players=3) as env:
        env.reset(seed=5)
        totals = {a: 0.0 for a in env.possible_agents}
        final = {}
        for agent in env.agent_iter(max_iter=200_000):
            obs, reward, terminated, truncated, info = env.last()
            totals[agent] += reward
            if terminated or truncated:
                final[agent] = info
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.agents == []
        assert galaxygym.OUTCOMES[final["player_0"]["outcome"]] in ("win", "draw")
        # Info.score is the best final score: the best return.
        best = max(totals.values())
        assert best == pytest.approx(final["player_0"]["score"])
        for a in env.possible_agents:
            info = final[a]
            assert info["player_score"] == pytest.approx(totals[a])
            assert (info["rank"] == 1) == (totals[a] == best)
            want = "loss" if totals[a] < best else ("win" if list(totals.values()).count(best) == 1 else "draw")
            assert galaxygym.OUTCOMES[info["player_outcome"]] == want


def test_vector_env_every_players_rewards(server):
    """make_vec on express-v1 with 4 players: info["rewards"] holds every
    player's reward, (N, 4); summed over a run, each player's rewards are
    paid when hands are scored."""
    with galaxygym.make_vec(EXPRESS, 3, url=server.url, players=4, hand_only=True) as envs:
        obs, infos = envs.reset(seed=0)
        assert obs.shape == (3, 1058)
        rng = np.random.default_rng(0)
        paid = np.zeros((3, 4))
        for _ in range(3000):
            masks = infos["action_mask"].astype(bool)
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, rew, term, trunc, infos = envs.step(actions)
            assert infos["rewards"].shape == (3, 4)
            paid += infos["rewards"]
            assert set(np.unique(infos["current_player"])) <= {-1, 0, 1, 2, 3}
        assert np.count_nonzero(paid) > 0
