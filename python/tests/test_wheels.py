"""The five platform wheels of `make wheels`: the right tags, the right
binary inside each (checked by its file header), executable bits, the same
Python code and environment table in all, and the Linux aarch64 binary run
under qemu-user where Debian's qemu-user-static is installed.

The wheels are taken from $GALAXYGYM_WHEELS_DIR (the release workflow and
`make test-wheels` set it after `make wheels`); without it the tests skip,
since cross-compiling five servers takes minutes.
"""

from __future__ import annotations

import os
import shutil
import stat
import struct
import subprocess
import zipfile
from pathlib import Path

import pytest

#: platform tag of each wheel -> (binary name, format, machine) of its server.
PLATFORMS = {
    "manylinux_2_17_x86_64.manylinux2014_x86_64": ("galaxygym", "elf", 62),      # EM_X86_64
    "manylinux_2_17_aarch64.manylinux2014_aarch64": ("galaxygym", "elf", 183),   # EM_AARCH64
    "macosx_12_0_arm64": ("galaxygym", "macho", 0x0100000C),                     # CPU_TYPE_ARM64
    "macosx_12_0_x86_64": ("galaxygym", "macho", 0x01000007),                    # CPU_TYPE_X86_64
    "win_amd64": ("galaxygym.exe", "pe", 0x8664),                                # IMAGE_FILE_MACHINE_AMD64
}


@pytest.fixture(scope="module")
def wheels() -> dict[str, Path]:
    d = os.environ.get("GALAXYGYM_WHEELS_DIR")
    if not d:
        pytest.skip("set GALAXYGYM_WHEELS_DIR to `make wheels`' output (make test-wheels)")
    found = {}
    for w in Path(d).glob("galaxygym-*.whl"):
        tag = w.name[:-len(".whl")].split("-")[-1]
        found[tag] = w
    return found


def header(data: bytes) -> tuple[str, int]:
    """(format, machine) of an executable's first bytes."""
    if data[:4] == b"\x7fELF":
        return "elf", struct.unpack_from("<H", data, 18)[0]
    if data[:4] == b"\xcf\xfa\xed\xfe":  # MH_MAGIC_64, little-endian
        return "macho", struct.unpack_from("<I", data, 4)[0]
    if data[:2] == b"MZ":
        pe = struct.unpack_from("<I", data, 0x3C)[0]
        assert data[pe:pe + 4] == b"PE\0\0"
        return "pe", struct.unpack_from("<H", data, pe + 4)[0]
    return "unknown", 0


def test_five_wheels_with_their_tags(wheels: dict[str, Path]):
    assert sorted(wheels) == sorted(PLATFORMS), sorted(wheels)
    for tag, w in wheels.items():
        assert w.name.startswith("galaxygym-") and "-py3-none-" in w.name, w.name
        wheel_file = next(n for n in zipfile.ZipFile(w).namelist() if n.endswith(".dist-info/WHEEL"))
        meta = zipfile.ZipFile(w).read(wheel_file).decode()
        for t in tag.split("."):
            assert f"Tag: py3-none-{t}" in meta, (w.name, meta)
        assert "Root-Is-Purelib: false" in meta


def test_each_wheel_carries_its_platforms_binary(wheels: dict[str, Path]):
    code = None
    for tag, w in wheels.items():
        exe, fmt, machine = PLATFORMS[tag]
        z = zipfile.ZipFile(w)
        names = z.namelist()
        bins = [n for n in names if n.startswith("galaxygym/bin/")]
        assert bins == [f"galaxygym/bin/{exe}"], (w.name, bins)
        assert header(z.read(bins[0])[:4096]) == (fmt, machine), w.name
        if fmt != "pe":
            mode = z.getinfo(bins[0]).external_attr >> 16
            assert mode & stat.S_IXUSR, (w.name, oct(mode))
        ours = sorted((n, z.read(n)) for n in names if n.startswith("galaxygym/") and not n.startswith("galaxygym/bin/"))
        assert any(n == "galaxygym/_envs.json" for n, _ in ours)
        if code is None:
            code = ours
        assert ours == code, f"{w.name}: its Python files differ from another wheel's"


def test_aarch64_binary_runs_under_qemu(wheels: dict[str, Path], tmp_path: Path):
    qemu = shutil.which("qemu-aarch64-static") or shutil.which("qemu-aarch64")
    if qemu is None:
        pytest.skip("qemu-user is not installed (Debian: apt-get install qemu-user-static)")
    w = wheels["manylinux_2_17_aarch64.manylinux2014_aarch64"]
    out = zipfile.ZipFile(w).extract("galaxygym/bin/galaxygym", tmp_path)
    os.chmod(out, 0o755)  # zipfile does not restore the mode; qemu-user runs only executables
    version = next(n for n in zipfile.ZipFile(w).namelist() if n.endswith(".dist-info/METADATA"))
    want = next(line.split(": ", 1)[1] for line in zipfile.ZipFile(w).read(version).decode().splitlines()
                if line.startswith("Version: "))
    p = subprocess.run([qemu, out, "--version"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"galaxygym version {want}"), p.stdout
    # More than a banner: the aarch64 server lists the environments and plays.
    envs = subprocess.run([qemu, out, "envs"], capture_output=True, text=True, timeout=120)
    assert envs.returncode == 0 and "galaxy-express-v1" in envs.stdout, envs.stderr
    bench = subprocess.run([qemu, out, "bench", "--env", "galaxy-express-v1", "--agent", "random",
                            "--episodes", "200", "--workers", "1"], capture_output=True, text=True, timeout=300)
    assert bench.returncode == 0 and "steps/s" in bench.stdout, bench.stderr
