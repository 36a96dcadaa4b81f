"""The shipped py.typed package type-checks under mypy --strict (the
configuration is pyproject.toml's [tool.mypy])."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO


def test_mypy_strict_clean():
    pytest.importorskip("mypy")
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "galaxygym"],
                       cwd=REPO / "python", capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
