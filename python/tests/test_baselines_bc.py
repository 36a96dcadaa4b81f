"""notebooks/baselines/bc.py, the multi-player imitation stage
(docs/learning-baselines-multiplayer.md): its reader keeps exactly the
dataset's decisions and active observation bytes, its export over the whole
observation computes the network trained on the active bytes, and a short
training run writes weights the Go agent plays."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]


def _bc():
    spec = importlib.util.spec_from_file_location("baselines_bc", REPO / "notebooks" / "baselines" / "bc.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def pilots_dataset(server_bin, tmp_path_factory) -> Path:
    """12 two-player Pilots of Gallaxia v2 games of the heuristic, 5 per part
    (so the reader crosses parts)."""
    out = tmp_path_factory.mktemp("ds") / "pilots"
    subprocess.run([server_bin, "generate", "--env", "pilots-of-gallaxia-v2", "--env-param", "players=2",
                    "--agent", "heuristic", "--episodes", "12", "--episodes-per-part", "5", "--seed", "3",
                    "--out", str(out)], check=True, capture_output=True)
    return out


def test_read_dataset_matches_load(pilots_dataset):
    from galaxygym.datasets import load

    bc = _bc()
    d = bc.read_dataset(pilots_dataset, batch_rows=700)
    ds = load(pilots_dataset)
    keep = ds.action >= 0
    full = ds.obs.reshape(len(ds), -1)[keep]
    want_active = np.flatnonzero((full != 0).any(0))
    np.testing.assert_array_equal(d["active"], want_active)
    assert len(want_active) < full.shape[1] // 2  # a 2-player game sets few of the 7,954 bytes
    np.testing.assert_array_equal(d["obs"], full[:, want_active])
    np.testing.assert_array_equal(d["mask"], ds.action_mask[keep] != 0)
    np.testing.assert_array_equal(d["action"], ds.action[keep])
    np.testing.assert_array_equal(d["episode_id"], ds.episode_id[keep])
    d6 = bc.read_dataset(pilots_dataset, max_episodes=6)
    assert set(np.unique(d6["episode_id"])) == set(range(6))


def test_export_over_whole_observation(pilots_dataset, tmp_path):
    import galaxygym

    bc = _bc()
    d = bc.read_dataset(pilots_dataset)
    m = d["manifest"]
    high = np.asarray(m["env_spec"]["obs_high"], np.float32).reshape(-1)
    size = high.size
    active = d["active"]
    torch.manual_seed(0)
    net = bc.MLP(1.0 / np.maximum(high[active], 1.0), d["mask"].shape[1], [32, 16])
    for p in net.parameters():  # larger weights than the default init, so the probabilities differ
        torch.nn.init.normal_(p, 0, 0.3)
    path = tmp_path / "p.npz"
    meta = bc.export(net, path, m["env_id"], active, high, size)
    assert meta["env_id"] == "pilots-of-gallaxia-v2" and meta["obs_shape"] == [size]
    rows = np.arange(0, len(d["action"]), max(1, len(d["action"]) // 50))
    obs = np.zeros((len(rows), size), np.uint8)
    obs[:, active] = d["obs"][rows]
    rng = np.random.default_rng(1)
    inactive = np.setdiff1d(np.arange(size), active)
    obs[:, inactive[:20]] = rng.integers(0, 2, (len(rows), 20))  # bytes the net never saw: ignored
    mask = d["mask"][rows]
    with torch.no_grad():
        logits = net(torch.from_numpy(d["obs"][rows])).masked_fill(~torch.from_numpy(mask), -1e9)
        want = torch.softmax(logits.double(), 1).numpy()
    got = galaxygym.policy_probs(path, obs, mask.astype(np.uint8))
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert np.abs(want - want.mean(1, keepdims=True)).max() > 0.05  # not a uniform policy


def test_train_and_play_natively(pilots_dataset, server_bin, tmp_path, monkeypatch):
    bc = _bc()
    monkeypatch.setattr(bc, "BIN", server_bin)
    out = tmp_path / "bc.npz"
    ev = "--env pilots-of-gallaxia-v2 --env-param players=2 --seats policy,random --rotate --episodes 3 --seed 1"
    bc.main(["--data", str(pilots_dataset), "--hidden", "32", "--samples", "4096", "--batch-size", "256",
             "--checkpoints", "2", "--threads", "1", "--out", str(out), "--eval", ev, "--final-eval", ev])
    rec = json.loads(out.with_suffix(".json").read_text())
    assert [p["samples"] for p in rec["curve"]] == [2048, 4096]
    assert all(p["eval"]["games"] == 6 for p in rec["curve"])
    assert rec["dataset"]["episodes"] == 12 and rec["obs_size"] == 7954
    assert [a["agent"] for a in rec["evaluation"]["agents"]] == ["policy", "random"]
    assert rec["meta"]["num_actions"] == 380


def test_seatblock_exports_as_the_mlp_it_equals(pilots_dataset, tmp_path):
    """SeatBlock (the per-seat fields through one shared encoder) exported
    over the whole observation: the Go agent's probabilities are the torch
    network's on the data, and every seat's columns carry the same shared
    weights, also the seats a 2-player game never fills."""
    import galaxygym

    bc = _bc()
    d = bc.read_dataset(pilots_dataset)
    m = d["manifest"]
    layout = m["env_spec"]["observation_layout"]
    high = np.asarray(m["env_spec"]["obs_high"], np.float32).reshape(-1)
    size, active = high.size, d["active"]
    fields = ["ships", "durriken", "caravans", "rings", "seats"]
    torch.manual_seed(0)
    net = bc.SeatBlock(1.0 / np.maximum(high[active], 1.0), d["mask"].shape[1], active, layout, fields, 24, 8, [16])
    for p in net.parameters():
        torch.nn.init.normal_(p, 0, 0.3)
    assert net.seats == 6
    path = tmp_path / "sb.npz"
    bc.export_seatblock(net, path, m["env_id"], active, high, size)
    rows = np.arange(0, len(d["action"]), max(1, len(d["action"]) // 50))
    obs = np.zeros((len(rows), size), np.uint8)
    obs[:, active] = d["obs"][rows]
    mask = d["mask"][rows]
    with torch.no_grad():
        logits = net(torch.from_numpy(d["obs"][rows])).masked_fill(~torch.from_numpy(mask), -1e9)
        want = torch.softmax(logits.double(), 1).numpy()
    np.testing.assert_allclose(galaxygym.policy_probs(path, obs, mask.astype(np.uint8)), want, atol=1e-5)
    assert np.abs(want - want.mean(1, keepdims=True)).max() > 0.05

    from galaxygym.policy import load_policy
    w0 = load_policy(path)["layers"][0][0]
    seat = net.enc_seat.weight.detach().numpy()
    g, k = 24, 8
    ships, per = int(layout["ships"]["offset"]), 282
    for s in range(6):  # seat s's columns hold the shared weights
        cols = net.full_idx[s]
        np.testing.assert_array_equal(w0[g + s * k:g + (s + 1) * k, cols], seat)
        on_ships = cols[cols < ships + 6 * per]
        assert ((on_ships - ships) // per == s).all()  # and they are seat s's own ships
    assert not w0[g + 5 * k:, :].any(axis=0)[np.setdiff1d(np.arange(size), net.full_idx[5])].any()
    assert not (obs[:, net.full_idx[5]] != 0).any()  # seat 5 is absent from 2-player games...
    assert np.abs(w0[g + 5 * k:g + 6 * k]).sum() > 0  # ...yet reads the same weights


def test_make_selfplay_chain_runs(server_bin, tmp_path):
    """notebooks/weights/make_selfplay.sh, the chain of the committed self-play
    weights, end to end at a tiny size (SMOKE=1, one game): data, both
    networks cloned, two PPO legs each, native evaluations, and the picked
    file with the record of every run."""
    import os
    import sys

    env = dict(os.environ, SMOKE="1", GAMES="express", OUT_DIR=str(tmp_path), PY=sys.executable,
               GALAXYGYM_BIN=server_bin, THREADS="1", WORKERS="1")
    subprocess.run(["sh", "notebooks/weights/make_selfplay.sh"], cwd=REPO, env=env, check=True,
                   capture_output=True, timeout=600)
    rec = json.loads((tmp_path / "express-v2-selfplay.json").read_text())
    assert set(rec["runs"]) == {"mlp", "seatblock"}
    for run in rec["runs"].values():
        assert {"bc", "ppo", "ppo2", "ppo_final_evaluation", "ppo2_final_evaluation"} <= set(run)
        assert run["ppo2"]["init_weights"].endswith(run["ppo"]["meta"]["env_id"] + "-ppo-" +
                                                    ("mlp.npz" if run is rec["runs"]["mlp"] else "seatblock.npz"))
    assert rec["chosen"]["leg"] == "ppo2" and rec["chosen"]["arch"] in ("mlp", "seatblock")
    import galaxygym
    p = galaxygym.load_policy(tmp_path / "express-v2-selfplay.npz")
    assert p["meta"]["env_id"] == "express-v2"
