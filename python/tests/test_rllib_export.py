"""The RLlib example's export and evaluation (python/examples/rllib_galaxygym.py)
without Ray: a state dict laid out as RLlib's action-masking RLModule's
(actor encoder, critic encoder, policy and value heads) exports to a Go
``policy`` file whose probabilities are the module's policy's, and the
file plays natively against the heuristic with the learner seat's own
return and win rate reported. The training loop that calls them needs Ray
(test_rllib.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import galaxygym

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import rllib_galaxygym as ex  # noqa: E402


def _module_weights(rng: np.random.Generator, obs: int, hidden: int, actions: int) -> dict[str, np.ndarray]:
    """A state dict in the order and with the names RLlib 2.x's
    DefaultPPOTorchRLModule gives (vf_share_layers=False)."""
    def lin(n_out: int, n_in: int) -> tuple[np.ndarray, np.ndarray]:
        return (rng.normal(0, 0.3, (n_out, n_in)).astype(np.float32), rng.normal(0, 0.1, n_out).astype(np.float32))

    w: dict[str, np.ndarray] = {}
    for part in ("actor_encoder", "critic_encoder"):
        w[f"encoder.{part}.net.mlp.0.weight"], w[f"encoder.{part}.net.mlp.0.bias"] = lin(hidden, obs)
        w[f"encoder.{part}.net.mlp.2.weight"], w[f"encoder.{part}.net.mlp.2.bias"] = lin(hidden, hidden)
    w["pi.net.mlp.0.weight"], w["pi.net.mlp.0.bias"] = lin(actions, hidden)
    w["vf.net.mlp.0.weight"], w["vf.net.mlp.0.bias"] = lin(1, hidden)
    return w


def test_export_is_the_modules_policy(server, tmp_path):
    env_id, params = "express-v2", {"players": 2}
    players, high = ex.game_info(env_id, params, server.url)
    assert players == 2
    env = galaxygym.make(env_id, url=server.url, **params)
    try:
        obs, info = env.reset(seed=4)
        n_act = int(env.action_space.n)
    finally:
        env.close()
    weights = _module_weights(np.random.default_rng(0), obs.size, 16, n_act)
    layers = ex.policy_layers(weights)
    assert [w.shape for w, _ in layers] == [(16, obs.size), (16, 16), (n_act, 16)]
    path = tmp_path / "rllib.npz"
    ex.export(weights, str(path), env_id, high)
    # The module's forward: observations / max(high, 1), tanh MLP, pi head;
    # illegal actions masked out.
    x = obs.reshape(-1).astype(np.float32) / np.maximum(high.reshape(-1).astype(np.float32), 1.0)
    for w, b in layers[:-1]:
        x = np.tanh(w @ x + b)
    logits = layers[-1][0] @ x + layers[-1][1]
    mask = info["action_mask"].astype(bool)
    logits = np.where(mask, logits, -np.inf)
    want = np.exp(logits - logits.max())
    want /= want.sum()
    got = galaxygym.policy_probs(str(path), obs.reshape(1, -1), info["action_mask"].reshape(1, -1))[0]
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_evaluate_reports_the_learner_seat(server, tmp_path):
    env_id, params = "express-v2", {"players": 2}
    _, high = ex.game_info(env_id, params, server.url)
    env = galaxygym.make(env_id, url=server.url, **params)
    n_obs, n_act = int(np.prod(env.observation_space.shape)), int(env.action_space.n)
    env.close()
    path = tmp_path / "rllib.npz"
    ex.export(_module_weights(np.random.default_rng(1), n_obs, 8, n_act), str(path), env_id, high)
    res = ex.evaluate(str(path), env_id, params, episodes=4, opponent="random")
    assert res["eval_episodes"] == 4
    assert 0.0 <= res["eval_win_rate"] <= 1.0
    low, high_ci = res["eval_win_ci95"]
    assert low <= res["eval_win_rate"] <= high_ci
    # The learner seat's own row: random weights lose to the heuristic.
    vs = ex.evaluate(str(path), env_id, params, episodes=4, opponent="heuristic")
    assert vs["eval_episodes"] == 4 and vs["eval_win_rate"] <= 0.5
