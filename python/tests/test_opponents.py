"""The learner's view of the multi-player games (issue 23): opponents in
the server, every player's reward, galaxygym.evaluate, and SB3 on it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import galaxygym

#: Every multi-player id, at a player count that keeps episodes short.
MULTI = [("express-v1", {"players": 3}), ("express-v2", {"players": 4}), ("galaxy-fighters-v1", {"players": 2}),
         ("galaxy-fighters-v2", {"players": 4}), ("pilots-of-gallaxia-v1", {"players": 4}),
         ("pilots-of-gallaxia-v2", {"players": 4})]
#: Games whose reward is the score change, so that returns equal final scores.
SCORE_REWARD = {"express-v1", "express-v2", "galaxy-fighters-v1", "galaxy-fighters-v2"}


def test_every_multiplayer_id_is_covered():
    ids = {s["id"] for s in galaxygym.list_envs() if int(s["max_players"]) > 1}
    assert ids == {i for i, _ in MULTI}


def _legal(rng, mask):
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])


@pytest.mark.parametrize("env_id,params", MULTI)
def test_returns_rebuilt_from_make_vec(env_id, params):
    """make_vec's default on a multi-player game (every seat a learner seat,
    self-play in one batch): each player's return rebuilt from what the API
    gives, two ways, equals the server's returns (and the final scores in the
    games that reward the score)."""
    n = 3
    venv = galaxygym.make_vec(env_id, n, **params)
    assert venv.opponents is not None and venv.opponents["learner_seats"] == list(range(venv.num_players))
    rng = np.random.default_rng(1)
    obs, infos = venv.reset(seed=10)
    p = venv.num_players
    by_column = np.zeros((n, p))
    by_seat = np.zeros((n, p))
    done = np.zeros(n, dtype=bool)
    steps = 0
    while not done.all():
        acting = infos["current_player"]
        assert (acting[~done] >= 0).all()
        obs, rewards, term, trunc, infos = venv.step(_legal(rng, infos["action_mask"]))
        steps += 1
        live = ~done
        by_column[live] += infos["rewards"][live]
        seat = infos["learner_seat"]
        ended = (term | trunc) & live
        for i in np.flatnonzero(live):
            by_seat[i, seat[i]] += rewards[i]
            # outside its own decision a seat receives nothing, until the end
            others = np.delete(infos["rewards"][i], seat[i])
            if not ended[i]:
                assert not others.any(), (i, infos["rewards"][i], seat[i])
            else:
                assert (seat[i] == acting[i]), "the episode's last reward belongs to the seat that decided"
                by_seat[i] += np.where(np.arange(p) == seat[i], 0, infos["rewards"][i])
        for i, info in zip(np.flatnonzero(ended), venv.episode_info(np.flatnonzero(ended).tolist())):
            returns = np.asarray(info["returns"])
            np.testing.assert_allclose(by_column[i], returns, atol=1e-3)
            np.testing.assert_allclose(by_seat[i], returns, atol=1e-3)
            if env_id in SCORE_REWARD:
                np.testing.assert_allclose(returns, infos["scores"][i], atol=1e-3)
            done[i] = True
        # the next step of a finished env (next_step autoreset) is ignored: keep stepping the others
    venv.close()


@pytest.mark.parametrize("env_id,params", [m for m in MULTI if m[0] in ("express-v2", "pilots-of-gallaxia-v1",
                                                                         "galaxy-fighters-v2")])
def test_opponents_env_learner_view(env_id, params):
    """make(opponents=...): every step is the learner's decision, and the
    rewards of an episode sum to its player's return (and score)."""
    env = galaxygym.make(env_id, opponents="heuristic", seat_rule="rotate", **params)
    rng = np.random.default_rng(2)
    seats = set()
    for ep in range(4):
        obs, info = env.reset(seed=100 + ep)
        seat = info["learner_seat"]
        seats.add(seat)
        total = 0.0
        while True:
            assert info["current_player"] == seat
            obs, r, term, trunc, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
            total += r
            if term or trunc:
                break
        assert info["learner_seat"] == seat
        assert total == pytest.approx(info["returns"][seat], abs=1e-4)
        if env_id in SCORE_REWARD:
            assert total == pytest.approx(info["scores"][seat], abs=1e-4)
    assert len(seats) >= 2, "seat_rule rotate: the learner played one seat in 4 episodes"
    env.close()


def test_opponents_fixed_seats_and_lineup():
    venv = galaxygym.make_vec("express-v2", 2, players=4, opponents=["random", "heuristic"], learner_seats=[0, 2])
    assert venv.opponents["lineup"] == ["learner", "random", "learner", "heuristic"]
    rng = np.random.default_rng(3)
    obs, infos = venv.reset(seed=1)
    for _ in range(200):
        assert set(infos["current_player"][infos["current_player"] >= 0].tolist()) <= {0, 2}
        obs, r, term, trunc, infos = venv.step(_legal(rng, infos["action_mask"]))
    venv.close()
    with pytest.raises(galaxygym.BadRequestError):
        galaxygym.make_vec("express-v2", 1, opponents="policy@weights=../../etc/passwd")
    with pytest.raises(galaxygym.ServerError):
        galaxygym.make_vec("express-v2", 1, opponents="nosuchagent")


def test_rewards_actor_keeps_raw_stepping():
    venv = galaxygym.make_vec("express-v2", 2, rewards="actor")
    assert venv.opponents is None
    obs, infos = venv.reset(seed=0)
    assert "learner_seat" not in venv.step(_legal(np.random.default_rng(0), infos["action_mask"]))[4]
    venv.close()


def test_evaluate_against_go_agents():
    rng = np.random.default_rng(0)
    rep = galaxygym.evaluate(lambda obs, mask: int(rng.choice(np.flatnonzero(mask))), "express-v2",
                             seats=[None, "heuristic", "random"], episodes=3, players=3)
    assert rep["columns"][0] == "agent" and rep["seats"] == ["python", "heuristic", "random"]
    rows = {r["agent"]: r for r in rep["agents"]}
    assert [r["games"] for r in rep["agents"]] == [9, 9, 9]
    assert len(rep["games"]) == 9 and {g["rotation"] for g in rep["games"]} == {0, 1, 2}
    for g in rep["games"]:
        np.testing.assert_allclose(g["returns"], g["scores"], atol=1e-3)
    assert rows["heuristic"]["mean_score"] > rows["python"]["mean_score"]
    assert rows["python"]["score_diff_vs_first"] is None and rows["heuristic"]["score_diff_vs_first"] > 0


def test_maskable_ppo_ep_rew_mean_is_learner_score():
    """MaskablePPO against heuristic opponents in Express: every episode's
    return SB3 logs is the learner's own score change."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from galaxygym.sb3 import VecEnv

    class Check(VecEnvWrapper):
        seen = 0
        returns: list[float] = []

        def reset(self):
            return self.venv.reset()

        def step_wait(self):
            obs, rewards, dones, infos = self.venv.step_wait()
            for i in np.flatnonzero(dones):
                info = infos[i]
                seat = info["learner_seat"]
                assert info["episode"]["r"] == pytest.approx(info["scores"][seat], abs=1e-3)
                assert info["episode"]["r"] == pytest.approx(info["returns"][seat], abs=1e-3)
                Check.seen += 1
                Check.returns.append(info["episode"]["r"])
            return obs, rewards, dones, infos

    venv = Check(VecEnv("express-v2", num_envs=8, players=3, opponents="heuristic", seat_rule="rotate",
                        target=30, max_hands=2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=1, seed=0, verbose=0)
        model.learn(1024)
    assert Check.seen > 0 and len(model.ep_info_buffer) == Check.seen
    assert [ep["r"] for ep in model.ep_info_buffer] == pytest.approx(Check.returns[-len(model.ep_info_buffer):])
    venv.close()
