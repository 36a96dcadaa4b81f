"""Every Python code block of README.md, python/README.md and docs/**/*.md runs.

Two pages are where a newcomer starts, README.md and python/README.md:
each of their blocks runs **alone**, in its own process, in a fresh venv
that holds only what the page's install line installs (the one
``pip install "$(ls dist/galaxygym-*.whl)[extras]"`` line of the page: the
platform wheel with those extras and their dependencies, nothing else). A
block that needs an earlier block or a package the install line does not
bring fails there.

The blocks of a docs/ page run in order in one namespace in the test venv
(which has the extras and SuperSuit, SB3, torch ...), since a docs page
reads as a session.

Every block runs in a scratch directory holding a small dataset at the
path the docs use (datasets/out/galaxy-express-v1-heuristic), with clients
on the auto-started local server. A block that cannot run is marked by a
comment line just above its fence that gives the reason::

    <!-- docs-test: skip (why it cannot run here) -->
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import REPO

FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s*\((.+?)\)\s*-->\s*$")
#: The pages whose blocks must each run alone in a wheel-only venv.
FRONT = [REPO / "README.md", REPO / "python" / "README.md"]
DOCS = sorted((REPO / "docs").glob("**/*.md"))
FILES = [*FRONT, *DOCS]
#: A page's install line: pip install of the wheel file, with its extras.
INSTALL = re.compile(r'^pip install "\$\(ls dist/galaxygym-\*\.whl\)(?:\[([\w,-]+)\])?"', re.M)


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


def install_extras(path: Path) -> list[str]:
    """The extras of path's one install line (an empty list: the plain wheel)."""
    lines = INSTALL.findall(path.read_text())
    assert len(lines) == 1, f"{path}: want one install line `pip install \"$(ls dist/galaxygym-*.whl)[...]\"`, got {lines}"
    return [e for e in lines[0].split(",") if e]


def test_the_markers_give_reasons():
    for path in FILES:
        text = path.read_text()
        for m in re.finditer(r"<!--\s*docs-test[^>]*-->", text):
            assert SKIP.search(m.group(0)), f"{path}: malformed marker {m.group(0)!r}"


def test_front_pages_block_nothing():
    """The pages a newcomer copies from skip no block: all of them run."""
    for path in FRONT:
        found = blocks(path)
        assert found, path
        assert all(skip is None for _, _, skip in found), f"{path}: a skipped block on a front page"


def test_relative_links_resolve():
    """Every relative link of every page names a file that exists (pages
    moved into docs/ keep working links)."""
    link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)|<img src=\"([^\"]+)\"")
    for path in FILES:
        for m in link.finditer(path.read_text()):
            target = m.group(1) or m.group(2)
            if re.match(r"^[a-z]+:", target):
                continue
            assert (path.parent / target).exists(), f"{path.relative_to(REPO)}: broken link {target}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, server_bin: str) -> Path:
    d = tmp_path_factory.mktemp("docs")
    for agent in ("heuristic",):
        subprocess.run([server_bin, "generate", "--env", "galaxy-express-v1", "--agent", agent,
                        "--episodes", "300", "--seed", "0", "--workers", "1",
                        "--out", str(d / "datasets" / "out" / f"galaxy-express-v1-{agent}")],
                       check=True, capture_output=True)
    # The same episodes as a compact dataset (docs/datasets.md, "Compact datasets").
    subprocess.run([server_bin, "generate", "--env", "galaxy-express-v1", "--agent", "heuristic",
                    "--episodes", "300", "--seed", "0", "--workers", "1", "--observations", "none",
                    "--out", str(d / "datasets" / "out" / "galaxy-express-v1-heuristic-compact")],
                   check=True, capture_output=True)
    return d


@pytest.mark.parametrize("path", DOCS, ids=[str(p.relative_to(REPO)) for p in DOCS])
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


# --- the front pages, block by block, in a wheel-only venv -----------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """$GALAXYGYM_WHEEL (make test-python passes `make wheel`'s), else one
    built here with pip (build isolation, no test venv needed)."""
    given = os.environ.get("GALAXYGYM_WHEEL")
    if given:
        return Path(given).resolve()  # the blocks run in other folders
    if shutil.which("go") is None:
        pytest.skip("building the wheel needs go (or set GALAXYGYM_WHEEL)")
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO / "python")],
                   check=True)
    shutil.rmtree(REPO / "python" / "build", ignore_errors=True)
    return Path(glob.glob(str(out / "galaxygym-*.whl"))[0])


_venvs: dict[tuple[str, ...], Path] = {}


def clean_env(venv: Path) -> dict[str, str]:
    """The environment of a wheel-only process: no PYTHONPATH (which would
    show pip and Python the checkout's package), no Go, no galaxygym
    server settings; the venv's bin first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GALAXYGYM_BIN", "GALAXYGYM_URL", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    return env


def page_venv(wheel: Path, extras: list[str], root: Path) -> Path:
    """A fresh venv of the system interpreter with only the wheel[extras]
    (one per set of extras, shared by the pages that name the same)."""
    key = tuple(sorted(extras))
    if key not in _venvs:
        base = os.environ.get("GALAXYGYM_WHEEL_PYTHON", "/usr/bin/python3")
        if not os.path.exists(base):
            base = sys.executable
        venv = root / ("venv-" + ("-".join(key) or "plain"))
        subprocess.run([base, "-m", "venv", str(venv)], check=True, env=clean_env(venv))
        spec = f"{wheel}[{','.join(key)}]" if key else str(wheel)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        spec], check=True, env=clean_env(venv), cwd=root)
        _venvs[key] = venv
    return _venvs[key]


@pytest.fixture(scope="module")
def venv_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pagevenvs")


def front_blocks() -> list[tuple[Path, int, str]]:
    return [(p, line, code) for p in FRONT for line, code, skip in blocks(p) if skip is None]


@pytest.mark.parametrize("path,line,code", front_blocks(),
                         ids=[f"{p.relative_to(REPO)}:{line}" for p, line, _ in front_blocks()])
def test_front_page_block_runs_alone(path: Path, line: int, code: str, wheel: Path, venv_root: Path,
                                     workdir: Path, tmp_path: Path):
    venv = page_venv(wheel, install_extras(path), venv_root)
    cwd = tmp_path / "cwd"
    shutil.copytree(workdir, cwd)
    p = subprocess.run([str(venv / "bin" / "python"), "-W", "ignore", "-c", code], cwd=cwd, env=clean_env(venv),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"{path.relative_to(REPO)}, block at line {line}, alone:\n{p.stdout}{p.stderr}"
