"""Builds the platform wheel: the pure-Python package plus the galaxygym Go
binary, compiled here with the Go toolchain (CGO_ENABLED=0, so the wheel
needs neither Go nor a C library on the user's machine).

Everything else is in pyproject.toml. An editable install
(``pip install -e ./python``) skips the binary: the client then finds the
checkout's bin/galaxygym (``make build``) or $GALAXYGYM_BIN.

Cross-platform wheels (``make wheels``): $GALAXYGYM_BUILD_BIN names a binary
to pack instead of building one (cross-compiled with GOOS/GOARCH),
$GALAXYGYM_PLAT the wheel's platform tag (``manylinux2014_aarch64``,
``macosx_12_0_arm64``, ``win_amd64`` ...; a ``win`` tag packs the binary as
galaxygym.exe) and $GALAXYGYM_ENVS_BIN a binary that runs on this machine to
write the environment table (the packed one may not run here). Without
$GALAXYGYM_PLAT the tag is this machine's.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

from setuptools.command.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PLAT = os.environ.get("GALAXYGYM_PLAT", "")
EXE = "galaxygym.exe" if (PLAT.startswith("win") if PLAT else sys.platform == "win32") else "galaxygym"


class BuildPyWithGo(build_py):
    """build_py, then the Go binary and its environment table into the
    package (galaxygym/bin/galaxygym, galaxygym/_envs.json)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        pkg = Path(self.build_lib).resolve() / "galaxygym"
        out = pkg / "bin" / EXE
        out.parent.mkdir(parents=True, exist_ok=True)
        prebuilt = os.environ.get("GALAXYGYM_BUILD_BIN")
        if prebuilt:
            shutil.copyfile(prebuilt, out)
        else:
            go = shutil.which("go")
            if go is None:
                sys.exit("galaxygym: building the wheel needs the Go toolchain (https://go.dev/dl/) to compile "
                         "the galaxygym server into it; or set GALAXYGYM_BUILD_BIN to a built binary")
            if not (REPO / "go.mod").is_file():
                sys.exit(f"galaxygym: no go.mod in {REPO}: build the wheel from a galaxygym checkout")
            env = dict(os.environ, CGO_ENABLED="0")
            subprocess.run([go, "build", "-trimpath", "-ldflags=-s -w", "-o", str(out), "./cmd/galaxygym"],
                           cwd=REPO, env=env, check=True)
        out.chmod(out.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        runs_here = os.environ.get("GALAXYGYM_ENVS_BIN") or str(out)
        specs = subprocess.run([runs_here, "envs", "--json"], check=True, capture_output=True).stdout
        # Every spec but the per-byte bounds: the ids to register and what
        # help() shows of each game (galaxygym._registration.describe).
        (pkg / "_envs.json").write_text(json.dumps(
            [{k: v for k, v in s.items() if k != "obs_high"} for s in json.loads(specs)], indent=1) + "\n")


class BinaryDistribution(Distribution):
    """Marks the distribution as platform-specific (it carries a binary)."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    """A py3-none-<platform> wheel: the code is pure Python, the binary is
    not. The binary is static (CGO_ENABLED=0), so a Linux wheel is tagged
    manylinux2014: it runs on any glibc or musl distribution of its
    architecture. $GALAXYGYM_PLAT overrides the platform (cross builds)."""

    def get_tag(self) -> tuple[str, str, str]:
        if PLAT:
            return "py3", "none", PLAT
        _, _, plat = super().get_tag()
        if plat.startswith("linux_") and not os.environ.get("GALAXYGYM_BUILD_BIN"):
            arch = plat[len("linux_"):]
            plat = f"manylinux_2_17_{arch}.manylinux2014_{arch}"
        return "py3", "none", plat


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildPyWithGo, "bdist_wheel": PlatformWheel})
