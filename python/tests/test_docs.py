"""Every Python code block of README.md, python/README.md and docs/*.md runs.

The blocks of one file run in order in one namespace (later blocks use what
earlier ones defined), in a scratch directory that holds a small dataset at
the path the docs use (datasets/out/galaxy-express-v1-heuristic), with
clients on the auto-started local server. A block that cannot run is marked
by a comment line just above its fence that gives the reason::

    <!-- docs-test: skip (why it cannot run here) -->
"""

from __future__ import annotations

import os
import re
import subprocess
import warnings
from pathlib import Path

import pytest

from conftest import REPO

FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s*\((.+?)\)\s*-->\s*$")
FILES = [REPO / "README.md", REPO / "python" / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def blocks(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, code, skip reason) of each python block of path."""
    text = path.read_text()
    out = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP.search(before)
        out.append((line, m.group(1), skip.group(1) if skip else None))
    return out


def test_the_markers_give_reasons():
    for path in FILES:
        text = path.read_text()
        for m in re.finditer(r"<!--\s*docs-test[^>]*-->", text):
            assert SKIP.search(m.group(0)), f"{path}: malformed marker {m.group(0)!r}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, server_bin: str) -> Path:
    d = tmp_path_factory.mktemp("docs")
    for agent in ("heuristic",):
        subprocess.run([server_bin, "generate", "--env", "galaxy-express-v1", "--agent", agent,
                        "--episodes", "300", "--seed", "0", "--workers", "1",
                        "--out", str(d / "datasets" / "out" / f"galaxy-express-v1-{agent}")],
                       check=True, capture_output=True)
    return d


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(REPO)) for p in FILES])
def test_python_blocks_run(path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch):
    todo = blocks(path)
    if not todo:
        pytest.skip("no python blocks")
    monkeypatch.chdir(workdir)
    ns: dict[str, object] = {"__name__": "__docs__"}
    ran = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for line, code, skip in todo:
            if skip is not None:
                continue
            try:
                exec(compile(code, f"{path.name}:{line}", "exec"), ns)
            except Exception as e:
                raise AssertionError(f"{path.relative_to(REPO)}, block at line {line}: {e!r}") from e
            ran += 1
    for v in ns.values():  # close what the blocks left open
        if type(v).__module__.startswith("galaxygym") and callable(getattr(v, "close", None)):
            v.close()
    if not ran:
        pytest.skip("every block is marked skip")
