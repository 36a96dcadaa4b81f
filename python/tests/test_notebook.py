"""Executes notebooks/train_galaxy_express.ipynb headless with a tiny budget
(its parameters cell is replaced), so that the notebook never rots."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("torch", reason="the training notebook needs torch (make venv installs it)")
pytest.importorskip("matplotlib")

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "train_galaxy_express.ipynb"


def small_budget(url: str, out_dir: Path) -> str:
    return "\n".join([
        "BC_EPOCHS = 1",
        "TOTAL_STEPS = 2 * 16 * 32",
        "NUM_ENVS = 16",
        "ROLLOUT_STEPS = 32",
        "EPOCHS = 2",
        "MINIBATCHES = 2",
        "LEARNING_RATE = 3e-4",
        "ENT_COEF = 0.01",
        "HIDDEN = 32",
        "EVAL_EPISODES = 20",
        "BASELINE_EPISODES = 50",
        "SEED = 7",
        f"SERVER_URL = {url!r}",
        f"OUT_DIR = {str(out_dir)!r}",
        "TORCH_THREADS = 1",
    ])


def test_notebook_runs_with_a_small_budget(server, server_bin, tmp_path, monkeypatch):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "the notebook needs exactly one cell tagged 'parameters'"
    names = {line.split("=")[0].strip() for line in params[0].source.splitlines() if "=" in line}
    override = small_budget(server.url, tmp_path / "out")
    assert {line.split("=")[0].strip() for line in override.splitlines()} == names, \
        "the test's parameters must be the notebook's parameters"
    params[0].source = override
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()

    out = tmp_path / "out"
    assert {p.name for p in out.iterdir()} >= {"learning_curve.png", "policy.pt", "policy.npz", "results.json"}
    results = json.loads((out / "results.json").read_text())
    assert results["total_steps"] == 2 * 16 * 32
    base = results["baselines"]
    assert base["random"]["episodes"] == base["heuristic"]["episodes"] == 50
    # The Go baselines as the README reports them: random loses, the heuristic wins.
    assert base["random"]["mean_return"] < 20 and base["random"]["win_rate"] < 0.1
    assert base["heuristic"]["mean_return"] > 90 and base["heuristic"]["win_rate"] > 0.9
    # One epoch of behaviour cloning on the heuristic's 50 episodes ran.
    assert len(results["behaviour_cloning"]) == 1
    assert 0 <= results["behaviour_cloning"][0]["accuracy"] <= 1
    for name in ["ppo (sampled)", "ppo (greedy)"]:
        ev = results["evaluation"][name]
        assert ev["episodes"] == 20
        assert -200 <= ev["mean_return"] <= 130
    assert (out / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # policy.npz: the documented export (docs/policy-format.md), consistent with the env's spec.
    with np.load(out / "policy.npz") as z:
        assert z["obs_scale"].shape == (503,) and z["obs_scale"].dtype == np.float32
        assert z["layer0.weight"].shape == (32, 503)
        assert z["layer1.weight"].shape == (32, 32)
        assert z["layer2.weight"].shape == (56, 32) and z["layer2.bias"].shape == (56,)
        assert all(z[k].dtype == np.float32 for k in z.files if k != "meta")
        assert z["meta"].dtype == np.uint8
        assert json.loads(z["meta"].tobytes()) == {
            "format": "galaxygym-mlp-policy", "version": 1, "env_id": "galaxy-express-v1", "obs_shape": [503],
            "num_actions": 56, "activation": "tanh"}
    # The Go policy agent plays it.
    gen = subprocess.run([server_bin, "generate", "--agent", "policy", "--weights", str(out / "policy.npz"),
                          "--episodes", "10", "--workers", "1", "--out", str(tmp_path / "ds")],
                         capture_output=True, text=True)
    assert gen.returncode == 0 and gen.stdout.startswith("10 episodes, "), gen.stderr
