"""Executes notebooks/train_galaxy_express.ipynb headless with a tiny budget
(its parameters cell is replaced), from both starts (the committed clone and
scratch), so that the notebook never rots."""

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
CLONE = "weights/galaxy-express-v1-bc.npz"


def small_budget(url: str, out_dir: Path, init: str | None) -> str:
    return "\n".join([
        f"INIT_WEIGHTS = {init!r}",
        "HIDDEN = (32, 32)",
        "TOTAL_STEPS = 2 * 16 * 32",
        "MINUTES = None",
        "CRITIC_WARMUP_STEPS = 16 * 32",
        "NUM_ENVS = 16",
        "ROLLOUT_STEPS = 32",
        "EPOCHS = 2",
        "MINIBATCHES = 2",
        "CHECKPOINTS = 2",
        "EVAL_EPISODES = 20",
        "FINAL_EVAL_EPISODES = 30",
        "BASELINE_EPISODES = 50",
        "SEED = 7",
        f"SERVER_URL = {url!r}",
        f"OUT_DIR = {str(out_dir)!r}",
        "TORCH_THREADS = 1",
    ])


@pytest.mark.parametrize("init", [CLONE, None], ids=["clone", "scratch"])
def test_notebook_runs_with_a_small_budget(init, server, server_bin, tmp_path, monkeypatch):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "the notebook needs exactly one cell tagged 'parameters'"
    names = {line.split("=")[0].strip() for line in params[0].source.splitlines() if "=" in line}
    override = small_budget(server.url, tmp_path / "out", init)
    assert {line.split("=")[0].strip() for line in override.splitlines()} == names, \
        "the test's parameters must be the notebook's parameters"
    params[0].source = override
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()

    out = tmp_path / "out"
    assert {p.name for p in out.iterdir()} == {"learning_curve.png", "policy.pt", "critic.pt", "policy.npz",
                                               "results.json"}
    results = json.loads((out / "results.json").read_text())
    assert results["total_steps"] == 2 * 16 * 32 and results["init_weights"] == init
    base = results["baselines"]
    assert base["random"]["episodes"] == base["heuristic"]["episodes"] == 50
    # The Go baselines as the README reports them: random loses, the heuristic wins.
    assert base["random"]["mean_return"] < 20 and base["random"]["win_rate"] < 0.1
    assert base["heuristic"]["mean_return"] > 90 and base["heuristic"]["win_rate"] > 0.9
    curve = results["curve"]
    assert [p["env_steps"] for p in curve] == [0, 16 * 32, 2 * 16 * 32]
    assert [p["phase"] for p in curve] == ["start", "warmup", "ppo"]
    assert [p["eval_episodes"] for p in curve] == [30, 20, 30]
    ev = results["evaluation"]
    assert ev["start"] == curve[0] and ev["final"] == curve[-1]
    if init:
        # The clone plays at its level from the first point (it scores 95 over 10,000 games).
        assert ev["start"]["mean_score"] > 70
        assert results["settings"]["lr"] == 1e-4 and results["settings"]["critic_from_actor"]
    else:
        assert ev["start"]["mean_score"] < 30
    assert (out / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # policy.npz: the documented export (docs/policy-format.md), the clone's network for both starts.
    width = 512 if init else 32
    with np.load(out / "policy.npz") as z:
        assert z["obs_scale"].shape == (503,) and z["obs_scale"].dtype == np.float32
        assert z["layer0.weight"].shape == (width, 503)
        assert z["layer1.weight"].shape == (width, width)
        assert z["layer2.weight"].shape == (56, width) and z["layer2.bias"].shape == (56,)
        assert not any(k.startswith("conv") for k in z.files)
        assert all(z[k].dtype == np.float32 for k in z.files if k != "meta")
        meta = json.loads(z["meta"].tobytes())
        assert meta["version"] == 2 and meta["activation"] == "relu" and meta["num_actions"] == 56
        assert meta["board"] == {"offset": 0, "planes": 9, "height": 6, "width": 8, "center_plane": 0}
    # The Go policy agent plays it.
    gen = subprocess.run([server_bin, "generate", "--agent", "policy", "--weights", str(out / "policy.npz"),
                          "--episodes", "10", "--workers", "1", "--out", str(tmp_path / "ds")],
                         capture_output=True, text=True)
    assert gen.returncode == 0 and gen.stdout.startswith("10 episodes, "), gen.stderr
