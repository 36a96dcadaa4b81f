"""The private local server: the ``galaxygym`` Go binary started on a free
loopback port when a client is made without a URL.

Where the URL comes from, in order: the ``url`` argument, the
``GALAXYGYM_URL`` environment variable, else this module's local server.
The binary is ``$GALAXYGYM_BIN``, the one the wheel carries
(``galaxygym/bin/galaxygym``), or, in a source checkout, the repository's
``bin/galaxygym`` (``make build``).

One server serves every client of a Python process: it starts with the
first client that needs it and stops when the last one closes, at
interpreter exit, or, as it reads its stdin (``serve --stdin-lifetime``),
whenever this process dies, even by SIGKILL. A forked child (multiprocessing)
starts its own rather than share its parent's.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

__all__ = ["resolve_url", "binary_path", "LocalServer", "release", "main"]

_PKG = Path(__file__).resolve().parent
_EXE = "galaxygym.exe" if sys.platform == "win32" else "galaxygym"


def binary_path() -> str:
    """The galaxygym binary to run: $GALAXYGYM_BIN, the one in the wheel,
    or a checkout's bin/galaxygym. Raises FileNotFoundError saying how to
    get one."""
    env = os.environ.get("GALAXYGYM_BIN")
    if env:
        if not os.path.isfile(env):
            raise FileNotFoundError(f"GALAXYGYM_BIN={env} is not a file")
        return env
    for cand in (_PKG / "bin" / _EXE, _PKG.parent.parent / "bin" / _EXE):
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    raise FileNotFoundError(
        "no galaxygym server binary: install the platform wheel (make wheel), run `make build` in the "
        "checkout, set GALAXYGYM_BIN, or pass url= / set GALAXYGYM_URL to a running `galaxygym serve`")


class LocalServer:
    """A ``galaxygym serve --addr 127.0.0.1:0 --stdin-lifetime`` process."""

    def __init__(self, binary: str | None = None, timeout: float = 30.0, args: Sequence[str] = ()):
        self.binary = binary or binary_path()
        self.pid_owner = os.getpid()
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--addr", "127.0.0.1:0", "--stdin-lifetime", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, close_fds=True)
        line = self._first_line(timeout)
        if not line.startswith("listening on "):
            self.stop()
            raise RuntimeError(f"galaxygym serve did not start ({self.binary}): {line!r}")
        self.addr = line.split()[-1]
        self.url = f"ws://{self.addr}"

    def _first_line(self, timeout: float) -> str:
        out: list[str] = []
        assert self.proc.stdout is not None
        stdout = self.proc.stdout
        t = threading.Thread(target=lambda: out.append(stdout.readline()), daemon=True)
        t.start()
        t.join(timeout)
        return out[0].strip() if out else ""

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """Stops the server (closing its stdin ends it; then SIGTERM, SIGKILL)."""
        if os.getpid() != self.pid_owner:
            return  # a forked child's inherited handle: the parent's server
        proc = self.proc
        for f in (proc.stdin, proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        if proc.poll() is None:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


_lock = threading.Lock()
_server: LocalServer | None = None
_users = 0


def acquire() -> str:
    """The URL of this process's local server, started if needed; each
    call must be matched by one :func:`release`."""
    global _server, _users
    with _lock:
        if _server is not None and (_server.pid_owner != os.getpid() or not _server.running):
            if _server.pid_owner == os.getpid():
                _server.stop()
            _server, _users = None, 0
        if _server is None:
            _server = LocalServer()
        _users += 1
        return _server.url


def release(url: str) -> None:
    """Drops one user of the local server at url; the last one stops it."""
    global _server, _users
    with _lock:
        if _server is None or _server.url != url or _server.pid_owner != os.getpid():
            return
        _users -= 1
        if _users <= 0:
            _server.stop()
            _server, _users = None, 0


def local_url() -> str | None:
    """The running local server's URL, or None."""
    s = _server
    return s.url if s is not None and s.pid_owner == os.getpid() and s.running else None


@atexit.register
def _stop_at_exit() -> None:
    global _server, _users
    with _lock:
        if _server is not None:
            _server.stop()
            _server, _users = None, 0


def resolve_url(url: str | None) -> tuple[str, bool]:
    """(the URL to connect to, whether it is a counted use of the local
    server to release when the client closes)."""
    if url:
        return url, False
    env = os.environ.get("GALAXYGYM_URL")
    if env:
        return env, False
    return acquire(), True


def main() -> None:
    """The ``galaxygym`` console script: runs the Go CLI the package carries
    with this process's arguments (``galaxygym serve``, ``generate``, ...)."""
    try:
        binary = binary_path()
    except FileNotFoundError as e:
        sys.exit(f"galaxygym: {e}")
    if shutil.which(binary) is None and not os.path.isfile(binary):  # pragma: no cover
        sys.exit(f"galaxygym: {binary} not found")
    if sys.platform == "win32":  # pragma: no cover
        sys.exit(subprocess.call([binary, *sys.argv[1:]]))
    os.execv(binary, [binary, *sys.argv[1:]])
