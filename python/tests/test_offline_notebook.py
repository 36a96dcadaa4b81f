"""Executes notebooks/offline_galaxy_express.ipynb headless with a tiny budget
(its parameters cell is replaced), so that the notebook never rots; `make
notebooks` runs it at full budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("torch", reason="the offline notebook needs torch (make venv installs it)")
pytest.importorskip("matplotlib")
pytest.importorskip("pyarrow")

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "offline_galaxy_express.ipynb"
ARCHS = ["mlp", "conv-nocenter", "centred-mlp", "conv"]


def small_budget(out_dir: Path) -> str:
    return "\n".join([
        "EPISODES = 60",
        "SAMPLES = 2048",
        "CHECKPOINTS = 2",
        "EVAL_EPISODES = 20",
        "FINAL_EVAL_EPISODES = 50",
        'WEIGHTS = "weights/galaxy-express-v1-bc.npz"',
        f"ARCHS = {ARCHS!r}",
        "SEED = 3",
        f"OUT_DIR = {str(out_dir)!r}",
        "TORCH_THREADS = 1",
    ])


def test_offline_notebook_runs_with_a_small_budget(server_bin, tmp_path, monkeypatch):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "the notebook needs exactly one cell tagged 'parameters'"
    names = {line.split("=")[0].strip() for line in params[0].source.splitlines() if "=" in line}
    override = small_budget(tmp_path / "out")
    assert {line.split("=")[0].strip() for line in override.splitlines()} == names, \
        "the test's parameters must be the notebook's parameters"
    params[0].source = override
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()

    out = tmp_path / "out"
    names = {"bc_curves.png", "results.json", "centred-mlp-soft.npz"} | {f"{a}.npz" for a in ARCHS}
    assert {p.name for p in out.iterdir()} >= names
    assert (out / "bc_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = json.loads((out / "results.json").read_text())
    assert set(results["curves"]) == set(ARCHS) | {"centred-mlp, soft targets"}
    for point in results["curves"]["centred-mlp, soft targets"]:  # the teacher's values were there
        assert point["agreement"] <= point["best"] <= 1 and point["regret"] >= 0
    for arch, curve in results["curves"].items():
        assert len(curve) == 2, arch
        assert curve[-1]["samples"] == 2048
        for point in curve:
            assert 0 <= point["agreement"] <= 1
            assert -2000 <= point["mean_score"] <= 132
    # The committed weights, played natively on the heuristic's games: the README's claim at a small sample.
    final = results["final"]["agents"]
    assert final["heuristic"]["episodes"] == final["policy"]["episodes"] == 50
    assert final["heuristic"]["mean_return"] > 95
    assert final["policy"]["mean_return"] > 80
