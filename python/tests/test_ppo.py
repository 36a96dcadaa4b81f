"""galaxygym.ppo at a tiny budget: the weights-file loader against the
numpy reference of the Go agent, runs from scratch and from the committed
clone, the curve's fields, determinism, and two properties of learning
that can fail (the critic warm-up lowers the value loss; lr 0 leaves the
policy unchanged)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import galaxygym

torch = pytest.importorskip("torch", reason="galaxygym.ppo needs torch (make venv installs it)")

from galaxygym import ppo, train  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "agents" / "testdata" / "policy"
CLONE = REPO / "notebooks" / "weights" / "galaxy-express-v1-bc.npz"
ENV_ID = "galaxy-express-v1"
POINT_FIELDS = {"env_steps", "updates", "seconds", "wall_seconds", "phase", "train_return", "train_episodes",
                "mean_score", "ci95_low", "ci95_high", "win_rate", "eval_episodes", "eval_seconds"}
TIMING = {"seconds", "wall_seconds", "eval_seconds"}


@pytest.fixture(scope="module")
def cases() -> dict[str, np.ndarray]:
    with np.load(FIXTURE / "cases.npz") as z:
        return {k: z[k] for k in z.files}


def torch_probs(net: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        logits = net(torch.from_numpy(obs.reshape(len(obs), -1)))
        m = torch.from_numpy(mask != 0)
        return torch.softmax(torch.where(m, logits, torch.full_like(logits, -1e9)), -1).double().numpy()


@pytest.mark.parametrize("path", [FIXTURE / "tanh.npz", FIXTURE / "relu.npz", FIXTURE / "conv_relu.npz",
                                  FIXTURE / "conv_tanh.npz", CLONE], ids=lambda p: p.name)
def test_load_torch_policy_matches_policy_probs(path, cases, tmp_path):
    net = ppo.load_torch_policy(path)
    want = galaxygym.policy_probs(path, cases["obs"], cases["mask"])
    got = torch_probs(net, cases["obs"], cases["mask"])
    assert np.abs(got - want).max() <= 1e-5
    # Round trip: exporting the rebuilt network gives the same arrays.
    out = tmp_path / "again.npz"
    train.export(net, out, ENV_ID)
    with np.load(path) as a, np.load(out) as b:
        assert sorted(a.files) == sorted(b.files)
        for k in a.files:
            if k != "meta":
                assert np.array_equal(a[k], b[k]), k
        if "meta" in a.files:
            # How a file is meant to be played ("play") is written only when
            # export is told; everything else round-trips.
            want = json.loads(a["meta"].tobytes())
            want.pop("play", None)
            assert want == json.loads(b["meta"].tobytes())


def test_clone_is_the_briefed_network():
    net = ppo.load_torch_policy(CLONE)
    assert type(net).__name__ == "ConvPolicy" and len(net.conv) == 0
    assert [(m.in_features, m.out_features) for m in net.pi if type(m).__name__ == "Linear"] == \
        [(503, 512), (512, 512), (512, 56)]


def small(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = dict(num_envs=8, rollout_steps=32, epochs=2, minibatches=2, checkpoints=2,
                                eval_episodes=20, final_eval_episodes=30, threads=1, log=None)
    base.update(kw)
    return base


def scratch_actor(hidden: tuple[int, ...] = (32, 32), seed: int = 3) -> Any:
    torch.manual_seed(seed)
    scale = galaxygym.load_policy(FIXTURE / "tanh.npz")["obs_scale"].astype(np.float32)
    return train.make_policy("conv", scale, 56, channels=(), hidden=hidden)


def test_scratch_run_curve_and_determinism(url):
    runs = []
    for _ in range(2):
        actor = scratch_actor()
        res = ppo.ppo(actor, ENV_ID, 4 * 8 * 32, url=url, seed=11, **small())
        runs.append((res, {k: v.clone() for k, v in actor.state_dict().items()}))
    res, weights = runs[0]
    curve = res["curve"]
    assert res["env_steps"] == 4 * 8 * 32
    assert [p["env_steps"] for p in curve] == [0, 2 * 8 * 32, 4 * 8 * 32]
    assert [p["phase"] for p in curve] == ["start", "ppo", "ppo"]
    assert [p["eval_episodes"] for p in curve] == [30, 20, 30]
    for p in curve:
        assert POINT_FIELDS <= set(p), POINT_FIELDS - set(p)
        assert p["ci95_low"] <= p["mean_score"] <= p["ci95_high"]
        assert 0 <= p["win_rate"] <= 1
    for p in curve[1:]:
        assert p["train_episodes"] > 0 and math.isfinite(p["train_return"])
        assert {"value_loss", "policy_loss", "entropy", "approx_kl", "clip_frac"} <= set(p)
    # Same seed: the same curve (timings aside) and the same weights.
    strip = [[{k: v for k, v in p.items() if k not in TIMING} for p in r["curve"]] for r, _ in runs]
    assert json.dumps(strip[0]) == json.dumps(strip[1])
    assert all(torch.equal(weights[k], runs[1][1][k]) for k in weights)
    # device="cpu" (the default "auto" is the CPU here): the same weights.
    assert res["settings"]["device"] == "auto" and res["settings"]["device_used"] == "cpu"
    actor = scratch_actor()
    on_cpu = ppo.ppo(actor, ENV_ID, 4 * 8 * 32, url=url, seed=11, device="cpu", **small())
    assert on_cpu["settings"]["device_used"] == "cpu"
    assert all(torch.equal(weights[k], v) for k, v in actor.state_dict().items())
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="sees no CUDA device"):
            ppo.ppo(scratch_actor(), ENV_ID, 256, url=url, device="cuda", **small())
        with pytest.raises(SystemExit, match="sees no CUDA device"):
            ppo.main(["--device", "cuda", "--url", url, "--out", "/nonexistent/w.npz"])
    # A different seed: different rollouts.
    other = ppo.ppo(scratch_actor(), ENV_ID, 2 * 8 * 32, url=url, seed=12, **small(eval_episodes=0,
                                                                                     final_eval_episodes=0))
    assert other["curve"][1]["train_return"] != curve[1]["train_return"] or \
        other["curve"][1]["value_loss"] != curve[1]["value_loss"]


def test_lr_zero_keeps_the_clone(url):
    actor = ppo.load_torch_policy(CLONE)
    before = {k: v.clone() for k, v in actor.state_dict().items()}
    res = ppo.ppo(actor, ENV_ID, 2 * 8 * 32, url=url, seed=5, lr=0.0, clip=0.1, target_kl=None, ent_coef=0.0,
                  critic_from_actor=True, **small())
    assert all(torch.equal(before[k], v) for k, v in actor.state_dict().items())
    start, end = res["curve"][0], res["curve"][-1]
    assert start["eval_episodes"] == end["eval_episodes"] == 30
    assert start["mean_score"] == end["mean_score"]  # same network, same seeded games
    # And with a step size the policy moves.
    moved = ppo.load_torch_policy(CLONE)
    ppo.ppo(moved, ENV_ID, 8 * 32, url=url, seed=5, lr=1e-4, target_kl=None, **small(eval_episodes=0,
                                                                                     final_eval_episodes=0))
    assert any(not torch.equal(before[k], v) for k, v in moved.state_dict().items())


def held_out_values(server_bin: str, tmp_path: Path) -> tuple[Any, Any]:
    """States of the clone's own (sampled) play, 40 seeded games the warm-up
    never sees, and their discounted returns-to-go in the critic's units
    (rewards x 1/20, gamma 0.995, as ppo's defaults)."""
    import subprocess
    out = tmp_path / "clone-games"
    subprocess.run([server_bin, "generate", "--agent", "policy", "--weights", str(CLONE), "--episodes", "40",
                    "--seed", "99", "--obs-encoding", "plain", "--out", str(out)], check=True, capture_output=True)
    from galaxygym.datasets import load
    ds = load(out)
    keep = ds.action >= 0
    g = np.zeros(len(ds.action), np.float32)
    for i in range(len(ds.action) - 1, -1, -1):
        nxt = g[i + 1] if i + 1 < len(ds.action) and ds.episode_id[i + 1] == ds.episode_id[i] else 0.0
        g[i] = ds.reward[i] / 20 + 0.995 * nxt if keep[i] else 0.0
    return torch.from_numpy(ds.obs.reshape(len(ds.action), -1)[keep]), torch.from_numpy(g[keep])


def test_init_logit_scale_sharpens_sampling_not_greedy_play(url, cases):
    clone = ppo.load_torch_policy(CLONE)
    actor = ppo.load_torch_policy(CLONE)
    res = ppo.ppo(actor, ENV_ID, 8 * 32, url=url, seed=5, lr=0.0, init_logit_scale=3.0, **small())
    assert res["settings"]["init_logit_scale"] == 3.0
    obs, mask = cases["obs"], cases["mask"]
    p0, p1 = torch_probs(clone, obs, mask), torch_probs(actor, obs, mask)
    assert (p0.argmax(1) == p1.argmax(1)).all()  # the same greedy choices ...
    assert (p1.max(1) >= p0.max(1) - 1e-9).all() and p1.max(1).mean() > p0.max(1).mean() + 0.05  # ... surer
    greedy = ppo.ppo(ppo.load_torch_policy(CLONE), ENV_ID, 8 * 32, url=url, seed=5, lr=0.0, **small())
    assert res["curve"][0]["mean_score"] == greedy["curve"][0]["mean_score"]  # same greedy games
    with pytest.raises(ValueError, match="positive"):
        ppo.ppo(ppo.load_torch_policy(CLONE), ENV_ID, 8 * 32, url=url, init_logit_scale=0.0, **small())


def test_critic_warmup_lowers_the_value_loss(url, server_bin, tmp_path):
    obs, returns = held_out_values(server_bin, tmp_path)
    actor = ppo.load_torch_policy(CLONE)
    before = {k: v.clone() for k, v in actor.state_dict().items()}
    torch.manual_seed(0)
    critic = ppo.make_critic(actor, from_actor=True)

    def held_out_loss() -> float:
        with torch.no_grad():
            return float(((critic(obs).view(-1) - returns) ** 2).mean())

    start = held_out_loss()  # the zero head predicts 0 where the clone's games are worth about 5
    steps = 24 * 16 * 32  # 24 updates of 4 epochs x 8 minibatches
    res = ppo.ppo(actor, ENV_ID, steps, url=url, seed=2, critic_warmup_steps=steps, critic=critic, critic_lr=3e-4,
                  lr=1e-5, **small(num_envs=16, epochs=4, minibatches=8, checkpoints=3, eval_episodes=0,
                                   final_eval_episodes=0))
    assert res["critic"] is critic
    curve = res["curve"]
    assert [p["phase"] for p in curve] == ["start", "warmup", "warmup", "warmup"]
    # On games the warm-up never saw, the critic's error against their Monte Carlo returns (noisy: a
    # delivery's +1 comes at a chance time, so the error cannot reach 0) falls well below the zero head's.
    assert held_out_loss() < 0.7 * start, (start, held_out_loss())
    # Warm-up freezes the policy.
    assert all(torch.equal(before[k], v) for k, v in actor.state_dict().items())


def test_command_line_from_weights_and_from_scratch(server, tmp_path):
    common = ["--url", server.url, "--steps", str(2 * 8 * 32), "--num-envs", "8", "--rollout-steps", "32",
              "--epochs", "1", "--minibatches", "2", "--checkpoints", "1", "--eval-episodes", "10",
              "--final-eval-episodes", "20", "--threads", "1"]
    ft = ppo.main(["--init-weights", str(CLONE), "--critic-warmup-steps", "256", *common,
                   "--out", str(tmp_path / "ft.npz")])
    assert ft["settings"]["lr"] == ppo.FINETUNE_DEFAULTS["lr"] and ft["settings"]["critic_warmup_steps"] == 256
    assert [p["phase"] for p in ft["curve"]] == ["start", "ppo"]
    assert ft["curve"][-1]["env_steps"] == ft["env_steps"] == 512
    sc = ppo.main(["--arch", "conv", "--channels", "none", "--hidden", "16,16", *common,
                   "--out", str(tmp_path / "sc.npz")])
    assert sc["settings"]["lr"] == ppo.SCRATCH_DEFAULTS["lr"]
    for name in ("ft", "sc"):
        for suffix in (".npz", ".pt", ".critic.pt", ".json"):
            assert (tmp_path / (name + suffix)).exists(), name + suffix
        text = (tmp_path / f"{name}.json").read_text()
        assert "NaN" not in text and "Infinity" not in text  # strict JSON: the start point's train_return is null
        doc = json.loads(text)
        assert doc["command"].startswith("python -m galaxygym.ppo ") and len(doc["curve"]) == 2
        assert doc["curve"][0]["train_return"] is None
        # The written weights are the final actor's: the .pt reloads to the same probabilities.
        net = ppo.load_torch_policy(tmp_path / f"{name}.npz")
        again = ppo.load_torch_policy(tmp_path / f"{name}.npz")
        again.load_state_dict(torch.load(tmp_path / f"{name}.pt"))
        with np.load(FIXTURE / "cases.npz") as z:
            obs, mask = z["obs"], z["mask"]
        p = galaxygym.policy_probs(tmp_path / f"{name}.npz", obs, mask)
        assert np.abs(torch_probs(net, obs, mask) - p).max() <= 1e-5
        assert np.abs(torch_probs(again, obs, mask) - p).max() <= 1e-5
    assert not (tmp_path / "ft.eval.npz").exists()


def test_scratch_conv_takes_the_board_from_the_servers_layout(url):
    """--arch conv from scratch on another game: the board of the server's
    observation layout (Galaxy Fighters: 33 planes of 11 x 11, not
    centred); a game without a board is refused with NoBoardError."""
    import argparse

    def args(env: str, arch: str = "conv") -> argparse.Namespace:
        return argparse.Namespace(env=env, url=url, param=[], arch=arch, channels="4", hidden="16")

    net = ppo._scratch_actor(args("galaxy-fighters-v1"))
    assert net.board == {"offset": 0, "planes": 33, "height": 11, "width": 11, "center_plane": -1}
    assert net.obs_scale.numel() == 4092 and net.pi[-1].out_features == 44
    assert ppo._scratch_actor(args(ENV_ID)).board == train.GALAXY_EXPRESS_BOARD
    assert ppo._scratch_actor(args(ENV_ID, "conv-nocenter")).board["center_plane"] == -1
    with pytest.raises(train.NoBoardError, match="pilots-of-gallaxia-v1"):
        ppo._scratch_actor(args("pilots-of-gallaxia-v1"))


def test_scratch_codes_from_the_servers_layout(url):
    """--codes from scratch: the network reads the codes of the server's
    observation layout one-hot (Pilots of Gallaxia: 13 fields, 1,089 more
    inputs); a game without codes is refused."""
    import argparse

    def args(env: str) -> argparse.Namespace:
        return argparse.Namespace(env=env, url=url, param=[], arch="mlp", channels="none", hidden="16", codes=True)

    net = ppo._scratch_actor(args("pilots-of-gallaxia-v2"))
    assert len(net.codes) == 13 and net.pi[0].in_features == 7954 + 1089
    spec = next(s for s in galaxygym.list_envs(url) if s["id"] == "pilots-of-gallaxia-v2")
    assert net.codes == train.codes_of(spec)
    with pytest.raises(ValueError, match="declares no codes"):
        ppo._scratch_actor(args("galaxy-fighters-v2"))


def test_action_features_actor_trains_on_the_servers_features(url, server_bin, tmp_path):
    """A weights file of format version 5 (it reads the game's action
    features) fine-tunes: the rollouts carry the server's features beside
    every observation (make's action_features), the features' weights learn
    with the rest, the critic reads the observation only, and the export is
    a version-5 file that Go and numpy play alike. The evaluation (Go's
    eval of the exported file) runs at the start and the end."""
    fixture = FIXTURE / "afeat.npz"
    actor = ppo.load_torch_policy(fixture)
    assert actor.action_features == ["lost", "orbit", "deliver"]
    before = {k: v.clone() for k, v in actor.state_dict().items()}
    res = ppo.ppo(actor, ENV_ID, 2 * 8 * 32, url=url, seed=5, lr=1e-3, target_kl=None,
                  **small(checkpoints=1, eval_episodes=0, final_eval_episodes=10))
    assert not res["critic"].action_features and not hasattr(res["critic"], "afeat")
    assert not torch.equal(before["afeat.weight"], actor.state_dict()["afeat.weight"]), "the features' weights learn"
    assert [p["eval_episodes"] for p in res["curve"]] == [10, 10]
    out = tmp_path / "ft.npz"
    train.export(actor, out, ENV_ID)
    assert galaxygym.load_policy(out)["action_features"] == actor.action_features
    with np.load(FIXTURE / "afeat_cases.npz") as z:
        obs, mask, afeat = z["obs"], z["mask"], z["afeat"]
    with torch.no_grad():
        logits = actor(torch.from_numpy(obs.reshape(len(obs), -1)), torch.from_numpy(afeat))
        logits = torch.where(torch.from_numpy(mask != 0), logits, torch.full_like(logits, -1e9))
        want = torch.softmax(logits, -1).double().numpy()
    assert np.abs(galaxygym.policy_probs(out, obs, mask, afeat) - want).max() <= 1e-5
    # The command line takes such a file too.
    doc = ppo.main(["--url", url, "--init-weights", str(fixture), "--steps", "256", "--num-envs", "8",
                    "--rollout-steps", "32", "--epochs", "1", "--minibatches", "2", "--checkpoints", "1",
                    "--eval-episodes", "0", "--final-eval-episodes", "0", "--threads", "1",
                    "--out", str(tmp_path / "cli.npz")])
    assert doc["meta"]["action_features"] == actor.action_features


def test_action_features_self_play(server_bin, monkeypatch):
    """Self-play from the committed Pilots of Gallaxia file (version 5): the
    learner's rollouts carry the features, and its snapshots, version-5
    files too, play as opponents inside the server (the Go agent computes
    their features itself)."""
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    actor = ppo.load_torch_policy(REPO / "notebooks" / "weights" / "pilots-of-gallaxia-v2-mcts-dagger.npz")
    before = actor.state_dict()["afeat.weight"].clone()
    res = ppo.ppo(actor, "pilots-of-gallaxia-v2", 2 * 4 * 8, num_envs=4, rollout_steps=8, epochs=1, minibatches=2,
                  params={"players": 2}, builtin_opponents=("random",), opponent_groups=1, snapshot_prob=1.0,
                  snapshot_every=1, lineup_every=1, checkpoints=1, eval_episodes=0, final_eval_episodes=0,
                  threads=1, lr=1e-3, target_kl=None, log=None)
    assert res["env_steps"] == 64 and len(res["curve"][-1]["pool"]) == 3  # the start and two snapshots
    assert not torch.equal(before, actor.state_dict()["afeat.weight"])
