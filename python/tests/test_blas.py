"""The test venv's torch multiplies matrices with OpenBLAS, not the
reference BLAS (docs/install.md, "PyTorch without CUDA": a MaskablePPO
update takes about twice as long on the reference BLAS)."""

from __future__ import annotations

import os

import pytest


def test_torch_runs_on_openblas():
    torch = pytest.importorskip("torch")
    if not os.path.exists("/proc/self/maps"):
        pytest.skip("no /proc: cannot see which libraries are loaded")
    x = torch.randn(64, 64)
    (x @ x).sum().item()  # loads the BLAS torch calls
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if ".so" in line}
    blas = sorted(p for p in libs if "blas" in os.path.basename(p).lower() and "numpy" not in p)
    if not blas:
        pytest.skip("torch links its BLAS statically (a PyPI wheel)")
    real = {os.path.realpath(p) for p in blas}
    assert any("openblas" in p for p in real), f"torch runs on {sorted(real)}: apt-get install libopenblas0-pthread"
