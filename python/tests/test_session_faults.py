"""Client-side fault tests (issue 28, defect 1): the client against a server
that stalls, answers late, drops the connection or answers another request.

A request is never sent twice, a timeout closes the session with
SessionTimeoutError (and says how to recover), and a reply to another
request closes it with SessionDesyncError: no later reply can answer the
wrong step. Before the fix, the client resent a step that timed out, so
that a server stalled for between one and two timeouts left every later
reply one step behind.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time

import numpy as np
import pytest

import galaxygym
from galaxygym import ConnectionClosedError, SessionDesyncError, SessionTimeoutError
from galaxygym._client import Session

from conftest import ENV_ID


class FaultProxy:
    """A TCP proxy in front of a server that understands the server's
    websocket frames (unmasked) and can fault the next binary reply: hold
    it ("late", released after `delay`, or never: "stall"), drop the
    connection instead ("drop"), or change its request id ("wrong_id").
    It counts the bytes the client sends after the fault was armed, to
    show that a request was sent once."""

    def __init__(self, addr: str):
        host, port = addr.rsplit(":", 1)
        self.target = (host, int(port))
        self.lsock = socket.create_server(("127.0.0.1", 0))
        self.url = "ws://127.0.0.1:%d" % self.lsock.getsockname()[1]
        self.mode: str | None = None
        self.delay = 0.0
        self.client_bytes_after_arm = 0
        self.released = threading.Event()
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, mode: str, delay: float = 0.0) -> None:
        self.client_bytes_after_arm = 0
        self.delay = delay
        self.mode = mode

    def _accept(self) -> None:
        while True:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            s = socket.create_connection(self.target)
            self.conns += [c, s]
            threading.Thread(target=self._up, args=(c, s), daemon=True).start()
            threading.Thread(target=self._down, args=(s, c), daemon=True).start()

    def _up(self, c: socket.socket, s: socket.socket) -> None:
        try:
            while data := c.recv(65536):
                if self.mode is not None:
                    self.client_bytes_after_arm += len(data)
                s.sendall(data)
        except OSError:
            pass
        finally:
            _close(s)

    @staticmethod
    def _read(sock: socket.socket, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            part = sock.recv(n - len(buf))
            if not part:
                raise EOFError
            buf += part
        return buf

    def _down(self, s: socket.socket, c: socket.socket) -> None:
        try:
            # The HTTP upgrade answer, up to its blank line.
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += self._read(s, 1)
            c.sendall(head)
            while True:
                hdr = self._read(s, 2)
                n = hdr[1] & 0x7F
                ext = b""
                if n == 126:
                    ext = self._read(s, 2)
                    n = int.from_bytes(ext, "big")
                elif n == 127:
                    ext = self._read(s, 8)
                    n = int.from_bytes(ext, "big")
                payload = bytearray(self._read(s, n))
                mode = self.mode
                if hdr[0] & 0x0F == 2 and mode is not None:  # a binary reply
                    self.mode = None
                    if mode == "drop":
                        _close(c)
                        _close(s)
                        return
                    if mode == "stall":
                        threading.Event().wait(3600)
                    if mode == "late":
                        time.sleep(self.delay)
                        self.released.set()
                    if mode == "wrong_id":
                        payload[-4:] = (int.from_bytes(payload[-4:], "little") - 1 & 0xFFFFFFFF).to_bytes(4, "little")
                c.sendall(hdr + ext + payload)
        except (OSError, EOFError):
            pass
        finally:
            _close(c)

    def close(self) -> None:
        _close(self.lsock)
        for c in self.conns:
            _close(c)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


@pytest.fixture
def proxy(url: str):
    p = FaultProxy(url.removeprefix("ws://"))
    yield p
    p.close()


N = 4
# A step request for N envs as the client frames it: 2 header bytes, a
# 4-byte mask key, 8 + 4N + 4 payload bytes.
STEP_FRAME_BYTES = 2 + 4 + 8 + 4 * N + 4


def _session(url: str, timeout: float) -> tuple[Session, np.ndarray]:
    s = Session(url, timeout=timeout)
    s.make(ENV_ID, N)
    r = s.reset([1, 2, 3, 4])
    return s, r.mask


def _first_legal(mask: np.ndarray) -> np.ndarray:
    return np.argmax(mask, axis=1).astype(np.int32)  # 0 where none is legal (ignored)


@pytest.mark.parametrize("mode", ["stall", "late"])
def test_timeout_closes_session_without_resending(proxy: FaultProxy, mode: str):
    s, mask = _session(proxy.url, timeout=0.5)
    r = s.step(_first_legal(mask))
    proxy.arm(mode, delay=1.0)  # late: between one and two timeouts
    with pytest.raises(SessionTimeoutError) as exc:
        s.step(_first_legal(r.mask))
    msg = str(exc.value)
    assert "cannot be used" in msg and "galaxygym.make" in msg and exc.value.request == "step"
    assert s.closed
    assert proxy.client_bytes_after_arm == STEP_FRAME_BYTES, "the step was sent more than once"
    if mode == "late":
        proxy.released.wait(5)
    with pytest.raises(ConnectionClosedError):
        s.step(_first_legal(r.mask))
    s.close()


def test_dropped_connection_is_not_resent(proxy: FaultProxy):
    s, mask = _session(proxy.url, timeout=5)
    proxy.arm("drop")
    with pytest.raises(ConnectionClosedError):
        s.step(_first_legal(mask))
    assert proxy.client_bytes_after_arm <= STEP_FRAME_BYTES
    assert s.closed
    s.close()


def test_reply_to_another_request_is_a_desync(proxy: FaultProxy):
    s, mask = _session(proxy.url, timeout=5)
    proxy.arm("wrong_id")
    with pytest.raises(SessionDesyncError):
        s.step(_first_legal(mask))
    assert s.closed
    s.close()


def test_reset_reply_id_checked(proxy: FaultProxy):
    s, _ = _session(proxy.url, timeout=5)
    proxy.arm("wrong_id")
    with pytest.raises(SessionDesyncError):
        s.reset([5, 6, 7, 8])
    s.close()


def test_sigstop_server_during_vector_step(start_server):
    """The issue's reproduction: make_vec(..., timeout=...), SIGSTOP the
    server for between one and two timeouts during a step, SIGCONT it. The
    step raises SessionTimeoutError; the environments are closed; new ones
    step in lockstep with a local reference."""
    srv = start_server()
    timeout = 1.0
    envs = galaxygym.make_vec(ENV_ID, N, url=srv.url, timeout=timeout)
    try:
        obs, info = envs.reset(seed=11)
        actions = np.argmax(info["action_mask"], axis=1)
        envs.step(actions)
        os.kill(srv.proc.pid, signal.SIGSTOP)
        timer = threading.Timer(1.5 * timeout, os.kill, (srv.proc.pid, signal.SIGCONT))
        timer.start()
        try:
            with pytest.raises(SessionTimeoutError):
                envs.step(actions)
        finally:
            timer.join()
            os.kill(srv.proc.pid, signal.SIGCONT)
        with pytest.raises(ConnectionClosedError):
            envs.step(actions)
    finally:
        envs.close()
    # A new session after the stall answers each step with its own reply:
    # two sessions from the same seed agree step by step.
    a = galaxygym.make_vec(ENV_ID, N, url=srv.url, timeout=5)
    b = galaxygym.make_vec(ENV_ID, N, url=srv.url, timeout=5)
    try:
        oa, ia = a.reset(seed=3)
        ob, ib = b.reset(seed=3)
        for _ in range(20):
            act = np.argmax(ia["action_mask"], axis=1)
            oa, ra, ta, ua, ia = a.step(act)
            ob, rb, tb, ub, ib = b.step(act)
            assert np.array_equal(oa, ob) and np.array_equal(ra, rb)
    finally:
        a.close()
        b.close()


def test_error_reply_with_raw_bytes_is_a_typed_error(url: str):
    """Issue 28 defect 6 / issue 27: a state whose position quotes a NUL is
    refused with BadStateError (the reply is valid JSON), not "not JSON";
    the session goes on."""
    s = Session(url, timeout=10)
    try:
        s.make("pilots-of-gallaxia-v1", 1)
        s.reset([1])
        for pos in ["players=\u0000", "players=\udcff".encode("utf-8", "surrogatepass").decode("latin-1")]:
            with pytest.raises(galaxygym.BadStateError):
                s.reset([1], options={"state": {"position": pos}})
        assert s.reset([2]).steps[0] == 0
    finally:
        s.close()
