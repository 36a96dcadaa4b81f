"""Every Python code block of README.md, python/README.md and docs/**/*.md runs.

Every block of every page runs **alone**, in its own process, with only
what the page's install line installs (the one
``pip install "$(ls dist/galaxygym-*.whl)[extras]"`` line of the page: the
platform wheel with those extras and their dependencies, nothing else), in
a scratch directory holding only the data the page's own commands make
(its ``galaxygym generate ... --out datasets/out/...`` lines, run first,
with the server binary the wheel carries). A block that needs an earlier
block, a package the install line does not bring, or data the page does
not say how to make fails there. A page whose extras are all in a wheel
venv (none, ``datasets``) runs its blocks in a fresh venv of the wheel;
one whose install line names ``train`` or ``sb3`` (torch, which a wheel
venv here cannot take: Debian's torch needs the test venv's pins) runs them
in the test venv (sys.executable), each block still in a process of its own.
A page with Python blocks that run has exactly one install line.

The blocks of a docs/ page also run in order in one namespace in the test
venv (which has the extras and SuperSuit, SB3, torch ...), as a session,
in a scratch directory holding a small dataset at the path the docs use
(datasets/out/galaxy-express-v1-heuristic) and whatever else the page's own
data commands make, with clients on the
auto-started local server. A block that cannot run is marked by a comment
line just above its fence that gives the reason::

    <!-- docs-test: skip (why it cannot run here) -->
"""

from __future__ import annotations

import glob
import os
import re
import shlex
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
INSTALL = re.compile(r'^pip install "\$\(ls dist/galaxygym-\*\.whl\)(?:\[([\w,-]+)\])?"([^\n#]*)', re.M)
#: A page's data command, in a sh block: galaxygym generate ... --out datasets/out/NAME.
DATA = re.compile(r"^(galaxygym generate [^\n#]*--out datasets/out/[^\s#]+[^\n#]*)", re.M)
SH_FENCE = re.compile(r"^```(?:sh|bash|console)[^\n]*\n(.*?)^```", re.S | re.M)
#: Extras a wheel-only venv here cannot install (torch): their pages' blocks run in the test venv.
TEST_VENV_EXTRAS = {"train", "sb3"}


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


def data_commands(path: Path) -> list[str]:
    """The page's commands that make data (its sh blocks' ``galaxygym
    generate ... --out datasets/out/...`` lines), in page order."""
    return [c.strip() for b in SH_FENCE.finditer(path.read_text()) for c in DATA.findall(b.group(1))]


def install_line(path: Path) -> tuple[list[str], list[str]]:
    """(extras, other packages) of path's one install line (no extras: the
    plain wheel)."""
    lines = INSTALL.findall(path.read_text())
    assert len(lines) == 1, f"{path}: want one install line `pip install \"$(ls dist/galaxygym-*.whl)[...]\"`, got {lines}"
    extras, rest = lines[0]
    return [e for e in extras.split(",") if e], rest.split()


def install_extras(path: Path) -> list[str]:
    """The extras of path's one install line (an empty list: the plain wheel)."""
    return install_line(path)[0]


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
def test_python_blocks_run(path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch, server_bin: str):
    todo = blocks(path)
    if not todo:
        pytest.skip("no python blocks")
    monkeypatch.chdir(workdir)
    for cmd in data_commands(path):  # the page's own data that the shared scratch directory lacks
        argv = shlex.split(cmd)
        if not (workdir / argv[argv.index("--out") + 1]).exists():
            subprocess.run([server_bin, *argv[1:]], cwd=workdir, check=True, capture_output=True, timeout=600)
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


# --- every page, block by block, with only its install line and its data ---


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


def page_venv(wheel: Path, extras: list[str], root: Path, packages: list[str] | None = None) -> Path:
    """A fresh venv of the system interpreter with only the wheel[extras]
    and packages (one per install line, shared by the pages that have the
    same)."""
    key = tuple(sorted(extras)) + tuple(f"+{p}" for p in sorted(packages or []))
    if key not in _venvs:
        base = os.environ.get("GALAXYGYM_WHEEL_PYTHON", "/usr/bin/python3")
        if not os.path.exists(base):
            base = sys.executable
        venv = root / ("venv-" + (re.sub(r"[^\w+-]", "_", "-".join(key)) or "plain"))
        subprocess.run([base, "-m", "venv", str(venv)], check=True, env=clean_env(venv))
        spec = f"{wheel}[{','.join(sorted(extras))}]" if extras else str(wheel)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        spec, *(packages or [])], check=True, env=clean_env(venv), cwd=root)
        _venvs[key] = venv
    return _venvs[key]


@pytest.fixture(scope="module")
def venv_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pagevenvs")


_page_data: dict[Path, Path] = {}


def page_data(path: Path, server_bin: str, root: Path) -> Path:
    """A directory holding only what path's data commands make (run with
    the server binary the wheel carries, one directory per page)."""
    if path not in _page_data:
        d = root / ("data-" + re.sub(r"\W", "_", str(path.relative_to(REPO))))
        d.mkdir()
        for cmd in data_commands(path):
            argv = shlex.split(cmd)
            subprocess.run([server_bin, *argv[1:]], cwd=d, check=True, capture_output=True, timeout=600)
        _page_data[path] = d
    return _page_data[path]


def alone_blocks() -> list[tuple[Path, int, str]]:
    return [(p, line, code) for p in FILES for line, code, skip in blocks(p) if skip is None]


def test_every_page_with_blocks_has_one_install_line():
    for path in {p for p, _, _ in alone_blocks()}:
        install_extras(path)  # asserts one line


@pytest.mark.parametrize("path,line,code", alone_blocks(),
                         ids=[f"{p.relative_to(REPO)}:{line}" for p, line, _ in alone_blocks()])
def test_block_runs_alone(path: Path, line: int, code: str, wheel: Path, venv_root: Path, server_bin: str,
                          tmp_path: Path):
    extras, packages = install_line(path)
    cwd = tmp_path / "cwd"
    shutil.copytree(page_data(path, server_bin, venv_root), cwd)
    if TEST_VENV_EXTRAS & set(extras):
        python, env = sys.executable, dict(os.environ)
    else:
        venv = page_venv(wheel, extras, venv_root, packages)
        python, env = str(venv / "bin" / "python"), clean_env(venv)
    p = subprocess.run([python, "-W", "ignore", "-c", code], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"{path.relative_to(REPO)}, block at line {line}, alone:\n{p.stdout}{p.stderr}"
