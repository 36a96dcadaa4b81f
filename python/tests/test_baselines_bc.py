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
