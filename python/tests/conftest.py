"""Fixtures: build the Go server once per test session (or use
$GALAXYGYM_BIN) and run it on a free loopback port."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENV_ID = "galaxy-express-v1"


@pytest.fixture(scope="session")
def server_bin(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Path of the galaxygym binary: $GALAXYGYM_BIN, or a fresh go build."""
    if os.environ.get("GALAXYGYM_BIN"):
        return os.environ["GALAXYGYM_BIN"]
    if shutil.which("go") is None:
        pytest.skip("go is not installed and GALAXYGYM_BIN is not set")
    out = tmp_path_factory.mktemp("bin") / "galaxygym"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/galaxygym"], cwd=REPO, check=True)
    return str(out)


class Server:
    """A running `galaxygym serve` process."""

    def __init__(self, binary: str, *args: str):
        self.proc = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()  # "listening on 127.0.0.1:PORT"
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError(f"server did not start: {line!r} {self.proc.stderr.read()}")
        self.addr = line.split()[-1]
        self.url = f"ws://{self.addr}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)

    def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(10)


@pytest.fixture(scope="session", autouse=True)
def local_binary(server_bin: str):
    """Clients made without url start their private local server from the
    binary under test (GALAXYGYM_BIN); GALAXYGYM_URL must not redirect them."""
    saved = {k: os.environ.get(k) for k in ("GALAXYGYM_BIN", "GALAXYGYM_URL")}
    os.environ["GALAXYGYM_BIN"] = server_bin
    os.environ.pop("GALAXYGYM_URL", None)
    yield server_bin
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def server(server_bin: str):
    """One server shared by the tests that need nothing special."""
    s = Server(server_bin, "--echo")
    yield s
    s.kill()


@pytest.fixture
def url(server: Server) -> str:
    return server.url


@pytest.fixture
def start_server(server_bin: str):
    """Starts a private server with extra flags; killed after the test."""
    started: list[Server] = []

    def start(*args: str) -> Server:
        s = Server(server_bin, *args)
        started.append(s)
        return s

    yield start
    for s in started:
        s.kill()


if sys.platform == "win32":  # pragma: no cover
    collect_ignore = ["."]
