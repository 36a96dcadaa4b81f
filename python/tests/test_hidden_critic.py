"""notebooks/weights/hidden_critic.py (docs/learning-baselines.md, "A critic that sees the hidden
part"): its return-to-go targets are each row's player's rewards to the end of its episode, its
inputs read code fields one-hot, and a run fits both critics on a real dataset."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("pyarrow")

REPO = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("hidden_critic", REPO / "notebooks" / "weights" / "hidden_critic.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_returns_to_go_by_hand():
    C = _module()
    rng = np.random.default_rng(3)
    ep = np.repeat([0, 1, 2], [4, 1, 6])
    rewards = rng.integers(-3, 4, (len(ep), 2)).astype(np.float32)
    player = rng.integers(0, 2, len(ep)).astype(np.int32)
    got = C.returns_to_go(SimpleNamespace(episode_id=ep, rewards=rewards, player=player, action=ep))
    for r in range(len(ep)):
        same = np.flatnonzero(ep == ep[r])
        want = rewards[r:same[-1] + 1, player[r]].sum()
        assert got[r] == pytest.approx(want), r


def test_encode_reads_codes_one_hot():
    C = _module()
    layout = {"n": {"offset": 0, "shape": [2]}, "c": {"offset": 2, "shape": [1], "classes": 3}}
    x = C.encode(np.array([[2, 4, 1]], np.uint8), layout, np.array([4, 4, 2], np.uint8))
    assert x.tolist() == [[0.5, 1.0, 0.0, 1.0, 0.0]]


def test_fits_both_critics(server_bin, tmp_path, monkeypatch):
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    out = tmp_path / "ex"
    subprocess.run([server_bin, "generate", "--env", "express-v2", "--env-param", "players=2", "--agent", "heuristic",
                    "--episodes", "6", "--seed", "2", "--workers", "1", "--observations", "none", "--out", str(out)],
                   check=True, capture_output=True)
    r = _module().run(str(out), epochs=1, seed=0, threads=1, max_rows=500)
    assert r["decisions"] == 500 and 0 < r["held_out_decisions"] < 500
    assert r["inputs"]["observation + hidden part"] > r["inputs"]["observation"]
    for k in ("observation", "observation + hidden part"):
        assert np.isfinite(r[k]["rmse"]) and r[k]["rmse"] > 0
    one = _module().run(str(out), epochs=1, seed=0, threads=1, max_rows=500, fields=["other_hands"])
    assert one["hidden_fields"] == ["other_hands"]
    assert one["inputs"]["observation + hidden part"] == one["inputs"]["observation"] + 5 * 24
    two = _module().run(str(out), epochs=1, seed=0, threads=1, max_rows=500, fields=["other_hands", "deck_order:3"])
    assert two["hidden_fields"] == ["deck_order:3", "other_hands"]
    assert two["inputs"]["observation + hidden part"] == two["inputs"]["observation"] + 5 * 24 + 3 * 25
