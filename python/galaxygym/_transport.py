"""The websocket connection under a galaxygym session (docs/protocol.md,
"Transport"): connecting (its errors mapped to galaxygym's), sending,
reading frames, answering pings, keeping an idle connection alive, and
closing, with no knowledge of the messages it carries (galaxygym._wire).

websocket-client (a dependency) makes the connection, does the handshake,
and frames and masks what the client sends; :class:`FrameReader` reads the
server's frames instead of websocket-client's reader (or websockets'),
which both return each message as immutable bytes: a reply read into one
fresh bytearray gives writable numpy views with no copy or join (a copy of
every reply otherwise; docs/protocol.md).
"""

from __future__ import annotations

import os
import socket
import threading
import weakref
from typing import Any

import websocket

from .errors import (
    AuthenticationError,
    ConnectionClosedError,
    GalaxyGymError,
    ProtocolError,
    ServerTimeoutError,
    SessionTimeoutError,
)

__all__ = ["Connection", "FrameReader", "OPCODE_TEXT", "OPCODE_BINARY"]

OPCODE_TEXT = websocket.ABNF.OPCODE_TEXT
OPCODE_BINARY = websocket.ABNF.OPCODE_BINARY

_CLOSE_NAMES = {
    1000: "normal closure", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
    1006: "abnormal closure", 1008: "policy violation", 1009: "message too big",
    1011: "internal error", 1013: "try again later",
}



def _keepalive_loop(ref: "weakref.ref[Connection]", stop: threading.Event, interval: float) -> None:
    """websocket-client answers the server's pings only while a read is under
    way; an idle session sends unsolicited pongs (RFC 6455 5.5.3) instead,
    so that the server's liveness check keeps it. The thread holds only a
    weak reference: a session dropped without close() is still collected
    (and its connection closed)."""
    seen = -1
    while not stop.wait(interval):
        conn = ref()
        if conn is None:
            return
        if conn.sends == seen:
            try:
                conn.ws.pong(b"")
            except Exception:
                return
        seen = conn.sends
        del conn


class FrameReader:
    """Reads websocket frames sent by the server from a connected socket.

    Replies are read here rather than by websocket-client's frame reader
    (which galaxygym still uses for the handshake, and to frame and mask
    what it sends) so that a payload lands in one fresh bytearray with a few
    large recv_into calls: the numpy views of a reply are then writable and
    no copy or join is needed. A server frame is never masked and the
    protocol negotiates no extension."""

    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._hdr = memoryview(bytearray(10))

    def _read_into(self, buf: memoryview) -> None:
        recv_into = self._sock.recv_into
        got, n = 0, len(buf)
        while got < n:
            k = recv_into(buf[got:], n - got)
            if k == 0:
                raise ConnectionClosedError("connection lost (end of stream)")
            got += k

    def read_frame(self) -> tuple[bool, int, bytearray]:
        """One frame: (fin, opcode, payload)."""
        hdr = self._hdr
        self._read_into(hdr[:2])
        b0, b1 = hdr[0], hdr[1]
        if b0 & 0x70 or b1 & 0x80:
            raise ProtocolError(f"server sent a frame with reserved bits or a mask (bytes {b0:02x} {b1:02x})")
        n = b1 & 0x7F
        if n == 126:
            self._read_into(hdr[2:4])
            n = int.from_bytes(hdr[2:4], "big")
        elif n == 127:
            self._read_into(hdr[2:10])
            n = int.from_bytes(hdr[2:10], "big")
            if n >= 1 << 40:
                raise ProtocolError(f"server sent a frame of {n} bytes")
        payload = bytearray(n)
        if n:
            self._read_into(memoryview(payload))
        return bool(b0 & 0x80), b0 & 0x0F, payload


class Connection:
    """One websocket connection to a galaxygym server.

    Args:
        url: the server's websocket URL.
        token: bearer token (None: the GALAXYGYM_TOKEN environment variable).
        connect_timeout: seconds for the connection and handshake
            (ServerTimeoutError past it); refused: AuthenticationError (HTTP
            401, 403) or ConnectionClosedError.

    After :meth:`ready` (the timeout for replies), a read or send past the
    timeout aborts the connection with SessionTimeoutError; a lost
    connection aborts it with ConnectionClosedError (carrying the server's
    close code and reason when it sent a close frame). Nothing is ever sent
    twice. ``pending`` names the request awaited, for those errors."""

    def __init__(self, url: str, token: str | None, connect_timeout: float):
        self.url = url
        self.closed = False
        self.sends = 0  # messages sent; the keepalive pongs while it stands still
        self.pending = "a request"
        self.timeout: float | None = connect_timeout
        self._stop: threading.Event | None = None
        self._pushback: tuple[bool, int, bytearray] | None = None
        self.ws = self._open(url, token, connect_timeout)
        assert self.ws.sock is not None
        self.read_frame = FrameReader(self.ws.sock).read_frame

    @staticmethod
    def _open(url: str, token: str | None, connect_timeout: float) -> websocket.WebSocket:
        token = token if token is not None else os.environ.get("GALAXYGYM_TOKEN") or None
        header = [f"Authorization: Bearer {token}"] if token else []
        try:
            return websocket.create_connection(
                url, timeout=connect_timeout, header=header, suppress_origin=True,
                enable_multithread=True, skip_utf8_validation=True,
                sockopt=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),
                         (socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)))
        except websocket.WebSocketBadStatusException as e:
            status = getattr(e, "status_code", None)
            if status in (401, 403):
                what = "bearer token" if status == 401 else "origin"
                raise AuthenticationError(f"{url} refused the {what} (HTTP {status})") from None
            raise ConnectionClosedError(f"{url} refused the websocket upgrade (HTTP {status}): {e}") from None
        except (socket.timeout, websocket.WebSocketTimeoutException):
            raise ServerTimeoutError(f"connecting to {url} timed out after {connect_timeout} s") from None
        except ConnectionRefusedError:
            raise ConnectionClosedError(
                f"cannot connect to {url}: connection refused (is `galaxygym serve` running?)") from None
        except (OSError, websocket.WebSocketException) as e:
            raise ConnectionClosedError(f"cannot connect to {url}: {e}") from None

    def ready(self, timeout: float | None, keepalive_interval: float) -> None:
        """After the handshake: sets the reply timeout and starts the
        keepalive thread (an unsolicited pong every keepalive_interval
        seconds in which nothing was sent)."""
        self.timeout = timeout
        self.ws.settimeout(timeout)
        self._stop = threading.Event()
        threading.Thread(target=_keepalive_loop, args=(weakref.ref(self), self._stop, keepalive_interval),
                         name="galaxygym-keepalive", daemon=True).start()

    def _check_open(self) -> websocket.WebSocket:
        if self.closed:
            raise ConnectionClosedError("the session is closed")
        return self.ws

    def send(self, data: bytes | str, binary: bool) -> None:
        """Sends one message (binary or text)."""
        ws = self._check_open()
        self.sends += 1
        try:
            if binary:
                ws.send_binary(data)  # type: ignore[arg-type]
            else:
                ws.send(data)
        except (websocket.WebSocketTimeoutException, socket.timeout):
            self.abort()
            raise self.timeout_error(f"sending {self.pending}") from None
        except (OSError, websocket.WebSocketException) as e:
            # The server may have said why before it went: read its close
            # frame if one is waiting.
            raise self._lost(e) from None

    def exchange(self, data: bytes) -> tuple[bool, int, bytearray]:
        """The step hot path: sends data as one binary message and returns
        the next frame (fin, opcode, payload), whatever it is (give it back
        with :meth:`push_back` to read it as a message)."""
        if self.closed:
            raise ConnectionClosedError("the session is closed")
        self.sends += 1
        sent = False
        try:
            self.ws.send_binary(data)
            sent = True
            return self.read_frame()
        except (websocket.WebSocketTimeoutException, socket.timeout):
            self.abort()
            raise self.timeout_error(self.pending if sent else f"sending a {self.pending}") from None
        except (OSError, websocket.WebSocketException) as e:
            # Lost: say why if the server sent a close frame. Never resend.
            raise self._lost(e) from None

    def push_back(self, frame: tuple[bool, int, bytearray]) -> None:
        """Makes frame the next one :meth:`recv` reads."""
        self._pushback = frame

    def _lost(self, e: BaseException) -> ConnectionClosedError:
        """Aborts a connection whose send or read failed with e: the
        server's close frame's error if one is waiting, else one naming e."""
        closing = self._pending_close()
        self.abort()
        if closing is not None:
            return closing
        return ConnectionClosedError(f"connection to {self.url} lost: {e or type(e).__name__}")

    def _pending_close(self) -> ConnectionClosedError | None:
        ws = self.ws
        try:
            ws.settimeout(0.2)
            for _ in range(64):
                # Pings are not answered here: the socket is dead.
                fin, op, payload = self.read_frame()
                if op == websocket.ABNF.OPCODE_CLOSE:
                    return self._close_error(payload)
        except Exception:
            pass
        return None

    def _close_error(self, data: bytes | bytearray) -> ConnectionClosedError:
        code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
        reason = data[2:].decode("utf-8", "replace")
        name = _CLOSE_NAMES.get(code or 0, "")
        return ConnectionClosedError(
            f"server closed the session with code {code} ({name}){': ' + reason if reason else ''}",
            close_code=code, reason=reason)

    def recv(self) -> tuple[int, bytearray]:
        """The next message: (opcode (text or binary), payload), its
        fragments joined; answers pings, and a close frame aborts the
        connection with its ConnectionClosedError."""
        ws = self._check_open()
        ABNF = websocket.ABNF
        parts: list[bytearray] = []
        opcode = 0
        try:
            while True:
                if self._pushback is not None:
                    (fin, op, payload), self._pushback = self._pushback, None
                else:
                    fin, op, payload = self.read_frame()
                if op in (ABNF.OPCODE_TEXT, ABNF.OPCODE_BINARY):
                    if fin:
                        return op, payload
                    opcode, parts = op, [payload]
                elif op == ABNF.OPCODE_CONT and parts:
                    parts.append(payload)
                    if fin:
                        return opcode, bytearray().join(parts)
                elif op == ABNF.OPCODE_PING:
                    try:
                        ws.pong(bytes(payload))
                    except Exception:
                        pass  # a dead socket shows on the next read
                elif op == ABNF.OPCODE_CLOSE:
                    try:
                        ws.send_close()
                    except Exception:
                        pass
                    self.abort()
                    raise self._close_error(payload)
                elif op != ABNF.OPCODE_PONG:
                    raise ProtocolError(f"unexpected websocket frame opcode {op}")
        except GalaxyGymError:
            raise
        except (websocket.WebSocketTimeoutException, socket.timeout):
            self.abort()
            raise self.timeout_error() from None
        except (OSError, websocket.WebSocketException) as e:
            raise self._lost(e) from None

    def timeout_error(self, what: str | None = None) -> SessionTimeoutError:
        """The error of a reply (to what; default the pending request) not
        come within the timeout."""
        what = what or self.pending
        return SessionTimeoutError(
            f"no reply to {what} from {self.url} within {self.timeout} s: the session is closed and cannot be used "
            "again (the request may still take effect on the server, so it is not sent twice). Make new environments "
            "(galaxygym.make / make_vec; reset them from get_state snapshots to go on from known positions), or pass "
            "a larger timeout= if the server is only slow", request=what, timeout=self.timeout)

    def abort(self) -> None:
        """Marks the connection closed and shuts its socket down (no close
        handshake); never raises."""
        self.closed = True
        if self._stop is not None:
            self._stop.set()
        try:
            self.ws.shutdown()  # type: ignore[no-untyped-call]
        except Exception:
            pass

    def close(self, goodbye: str) -> None:
        """Sends goodbye (a text message), then the close handshake (a
        second at most), and shuts the socket down; idempotent, never
        raises."""
        if self.closed:
            return
        self.closed = True
        if self._stop is not None:
            self._stop.set()
        ws = self.ws
        try:
            ws.settimeout(2.0)
            ws.send(goodbye)
            ws.close(timeout=1.0)
        except Exception:
            pass
        finally:
            try:
                ws.shutdown()  # type: ignore[no-untyped-call]
            except Exception:
                pass
