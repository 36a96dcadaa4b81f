"""pip alone: the platform wheel, installed into a fresh venv whose PATH has
no Go toolchain, runs episodes on the server binary it carries.

The wheel is $GALAXYGYM_WHEEL (make test-python builds it with `make
wheel`), else built here. The venv comes from the system interpreter
without the test venv's packages; pip downloads the wheel's dependencies
(numpy, gymnasium, pettingzoo, websocket-client, and pyarrow and minari for
the datasets check) through its cache.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO

SCRIPT = textwrap.dedent("""
    import os, shutil, subprocess, sys, warnings
    import numpy as np, gymnasium, galaxygym
    from gymnasium.utils.env_checker import check_env
    assert shutil.which("go") is None and "GALAXYGYM_BIN" not in os.environ and "GALAXYGYM_URL" not in os.environ
    assert "site-packages" in galaxygym.__file__, galaxygym.__file__
    # An episode on the private server, no url anywhere.
    env = galaxygym.make("galaxy-express-v1")
    obs, info = env.reset(seed=0)
    done, steps = False, 0
    while not done:
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done, steps = term or trunc, steps + 1
    env.close()
    # Registered ids, the checkers unchanged.
    warnings.simplefilter("ignore")
    for gid in galaxygym.GYM_IDS:
        e = gymnasium.make(gid)
        check_env(e.unwrapped)
        e.close()
    # The console script is the Go CLI.
    out = subprocess.run(["galaxygym", "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("galaxygym version " + galaxygym.__version__), out
    print("WHEEL-OK", steps, galaxygym.GYM_IDS)
""")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("GALAXYGYM_WHEEL")
    if given:
        return Path(given)
    if shutil.which("go") is None:
        pytest.skip("building the wheel needs go (or set GALAXYGYM_WHEEL)")
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO / "python")],
                   check=True)
    shutil.rmtree(REPO / "python" / "build", ignore_errors=True)
    return Path(glob.glob(str(out / "galaxygym-*.whl"))[0])


@pytest.fixture(scope="module")
def wheel_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = os.environ.get("GALAXYGYM_WHEEL_PYTHON", "/usr/bin/python3")
    if not os.path.exists(base):
        base = sys.executable
    venv = tmp_path_factory.mktemp("wheelvenv") / "venv"
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{wheel}[minari]"],
                   check=True)
    return venv


def run_in(venv: Path, code: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GALAXYGYM_BIN", "GALAXYGYM_URL", "PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"  # no Go on it
    p = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


DATASETS = textwrap.dedent("""
    import os, subprocess, warnings
    import numpy as np, minari, galaxygym, galaxygym.datasets as gd
    warnings.simplefilter("ignore")
    # The console script generates; the loader and Minari read.
    subprocess.run(["galaxygym", "generate", "--env", "galaxy-fighters-v1", "--env-param", "players=2",
                    "--agent", "random", "--episodes", "40", "--seed", "2", "--out", "ds"], check=True,
                   capture_output=True)
    ds = gd.load("ds")
    t = gd.transitions(ds)
    assert len(t) == ds.manifest["total_steps"] and ds.obs.shape[1:] == (4092,)
    # One Minari dataset per seat, each of the player's own transitions.
    out = gd.to_minari(ds, "galaxygym/galaxy-fighters-random-v0")
    assert sorted(out) == [0, 1]
    pt = gd.transitions(ds, per_player=True)
    returns = np.array(ds.episodes["returns"].to_pylist())
    for p in (0, 1):
        m = minari.load_dataset(f"galaxygym/galaxy-fighters-random-p{p}-v0")
        assert m.total_episodes == 40 and m.total_steps == int((pt.player == p).sum())
        ep = next(iter(m.iterate_episodes()))
        np.testing.assert_array_equal(ep.observations, gd.player_episodes(ds, p)[0].observations)
        assert abs(ep.rewards.sum() - returns[0, p]) < 1e-3 and (ep.terminations[-1] or ep.truncations[-1])
    env = m.recover_environment()
    assert env.spec.id == "galaxygym/GalaxyFighters-v1" and env.unwrapped.num_players == 2
    obs, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    env.close()
    print("MINARI-OK", np.__version__, minari.__version__)
""")


def test_wheel_is_a_platform_wheel(wheel: Path):
    assert "-py3-none-" in wheel.name and not wheel.name.endswith("-any.whl"), wheel.name
    import zipfile
    names = zipfile.ZipFile(wheel).namelist()
    assert "galaxygym/bin/galaxygym" in names and "galaxygym/_envs.json" in names


def test_wheel_runs_without_go(wheel_venv: Path, tmp_path: Path):
    out = run_in(wheel_venv, SCRIPT, tmp_path)
    assert "WHEEL-OK" in out


def test_datasets_and_minari_in_the_wheel_venv(wheel_venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """numpy 2 and Minari 0.5 live here, beside the Debian-torch test venv's numpy 1."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    out = run_in(wheel_venv, DATASETS, tmp_path)
    assert "MINARI-OK" in out


def test_python_readme_blocks_in_the_wheel_venv(wheel_venv: Path, tmp_path: Path):
    """python/README.md's blocks need only the wheel and its dependencies."""
    from test_docs import blocks
    code = "\n".join(c for _, c, skip in blocks(REPO / "python" / "README.md") if skip is None)
    assert "galaxygym.make" in code
    run_in(wheel_venv, code + "\nprint('README-OK')\n", tmp_path)


@pytest.fixture(scope="module")
def wheel_torch_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel in a venv that sees the system's site-packages (Debian's
    python3-torch: galaxygym.ppo needs torch, which the wheel does not pull)."""
    base = os.environ.get("GALAXYGYM_WHEEL_PYTHON", "/usr/bin/python3")
    if not os.path.exists(base):
        base = sys.executable
    venv = tmp_path_factory.mktemp("wheeltorch") / "venv"
    subprocess.run([base, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    if subprocess.run([str(py), "-c", "import torch"], capture_output=True).returncode != 0:
        pytest.skip("no torch beside the system interpreter (Debian: apt-get install python3-torch)")
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}  # pip must not see a checkout
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)], check=True,
                   env=clean)
    return venv


PPO_SELFPLAY = textwrap.dedent("""
    import json, os, subprocess, sys
    # From the wheel: no checkout, no GALAXYGYM_BIN, no Go on PATH.
    import galaxygym._server as s
    assert s.binary_path().startswith(os.path.dirname(s.__file__)), s.binary_path()
    for env_id, params in [("express-v2", ["players=3", "target=30", "max_hands=2"]),
                           ("pilots-of-gallaxia-v1", ["players=3"])]:
        out = env_id + ".npz"
        args = [a for p in params for a in ("--param", p)]
        subprocess.run([sys.executable, "-m", "galaxygym.ppo", "--env", env_id, *args, "--arch", "mlp",
                        "--hidden", "16", "--steps", "256", "--num-envs", "8", "--rollout-steps", "16",
                        "--epochs", "1", "--minibatches", "2", "--checkpoints", "1", "--eval-episodes", "3",
                        "--final-eval-episodes", "3", "--out", out], check=True, capture_output=True)
        doc = json.load(open(env_id + ".json"))
        assert doc["env_steps"] == 256 and "vs_heuristic_win_rate" in doc["curve"][-1], doc["curve"][-1]
    print("SELFPLAY-OK")
""")


def test_ppo_selfplay_from_the_wheel(wheel_torch_venv: Path, tmp_path: Path):
    """galaxygym.ppo's self-play at a tiny budget on Express and Pilots of
    Gallaxia, run from the installed wheel (its bundled binary)."""
    assert "SELFPLAY-OK" in run_in(wheel_torch_venv, PPO_SELFPLAY, tmp_path)
