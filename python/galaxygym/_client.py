"""The wire protocol (docs/protocol.md, version 3) over one websocket.

:class:`Session` is the low-level client the Gymnasium classes are built
on: one connection, one batch of environments. Step and reset replies are
decoded into :class:`Reply` objects whose arrays are ``np.frombuffer`` views
of the received frame: writable, and never overwritten later (every reply is
read into a new buffer), so they need no copy.

Every request carries a request id that its reply echoes (docs/protocol.md,
"Request ids"); the client never sends a request twice, and a timeout or a
reply to another request closes the session (:class:`SessionTimeoutError`,
:class:`SessionDesyncError`), so that a reply can never answer the wrong
request.
"""

from __future__ import annotations

import base64
import json
import os
import zlib
import socket
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray
import websocket

from . import _server
from .errors import (
    AuthenticationError,
    ConnectionClosedError,
    GalaxyGymError,
    ProtocolError,
    ServerTimeoutError,
    SessionDesyncError,
    SessionTimeoutError,
    error_from_reply,
)

__all__ = ["PROTOCOL_VERSION", "DEFAULT_URL", "OUTCOMES", "Layout", "Reply", "Session", "FrameReader",
           "episode_seed"]

#: The protocol version this client speaks (3: request ids).
PROTOCOL_VERSION = 3

#: Where ``galaxygym serve`` listens by default.
DEFAULT_URL = "ws://127.0.0.1:8765"

#: Outcome names by outcome code (u8), as every spec's ``outcome_names``
#: lists them: 0 ongoing, 1 win, 2 loss, 3 draw, 4 truncated; any other code
#: reads "other". Infos carry the codes (numbers, so that vector infos stay
#: numeric); ``OUTCOMES[code]`` names them.
OUTCOMES = np.array(["ongoing", "win", "loss", "draw", "truncated"] + ["other"] * 251, dtype=object)

HEADER_SIZE = 24
STEP_HEADER_SIZE = 8
#: Bytes of the request id trailer of step requests and binary replies.
REQUEST_ID_SIZE = 4
KIND_STEP = 1
KIND_STEP_REPLY = 2
KIND_RESET_REPLY = 3
_MAGIC = b"GG"

_CLOSE_NAMES = {
    1000: "normal closure", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
    1006: "abnormal closure", 1008: "policy violation", 1009: "message too big",
    1011: "internal error", 1013: "try again later",
}


_M64 = (1 << 64) - 1


def episode_seed(base: int, k: int) -> int:
    """The seed of episode k of an environment whose seed chain starts at
    base (docs/protocol.md, "Seeds"): base itself for k = 0, else SplitMix64
    of base + k * 0x9E3779B97F4A7C15 (mod 2**64). Autoresets and resets with
    a null seed move an environment to its next episode."""
    if k == 0:
        return base
    z = (base + k * 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


@dataclass(frozen=True)
class Layout:
    """Byte offsets of a reply's arrays (docs/protocol.md, "Step reply")."""

    n: int
    obs_size: int
    num_actions: int
    num_players: int

    @property
    def rewards(self) -> int:
        return HEADER_SIZE

    @property
    def current_player(self) -> int:
        return self.rewards + 4 * self.n * self.num_players

    @property
    def score(self) -> int:
        return self.current_player + 4 * self.n

    @property
    def steps(self) -> int:
        return self.score + 4 * self.n

    @property
    def scores(self) -> int:
        return self.steps + 4 * self.n

    @property
    def ranks(self) -> int:
        return self.scores + 4 * self.n * self.num_players

    @property
    def terminated(self) -> int:
        return self.ranks + 4 * self.n * self.num_players

    @property
    def truncated(self) -> int:
        return self.terminated + self.n

    @property
    def outcome(self) -> int:
        return self.truncated + self.n

    @property
    def outcomes(self) -> int:
        return self.outcome + self.n

    @property
    def obs(self) -> int:
        return self.outcomes + self.n * self.num_players

    @property
    def mask(self) -> int:
        return self.obs + self.n * self.obs_size

    @property
    def final_index(self) -> int:
        return (self.mask + self.n * self.num_actions + 3) & ~3

    def size(self, k: int = 0) -> int:
        """Size in bytes of a reply with k final entries."""
        return self.final_index + k * (13 + 9 * self.num_players + self.obs_size)


class Reply:
    """A decoded step or reset reply: numpy views of the frame (writable; a
    later reply never overwrites them).

    Attributes (N environments, P players, A actions, K final entries):
        kind: 2 for a step reply, 3 for a reset reply.
        rewards: float32 (N, P), every player's reward for the step.
        current_player: int32 (N,), the player to act, -1 once terminal.
        score: float32 (N,), the game's score of the current episode.
        steps: int32 (N,), steps taken in the current episode.
        terminated, truncated: bool (N,).
        outcome: uint8 (N,) outcome codes (see OUTCOMES).
        scores: float32 (N, P), every player's score once the episode is
            over (0 while it runs); ranks: int32 (N, P), every player's rank
            (1 = best, ties share; 0 while it runs); outcomes: uint8 (N, P),
            every player's outcome code (win, loss or draw; 0 while it runs).
        obs: uint8 (N, *obs_shape), the observation of the player to act
            (of the last player to act once the episode is over).
        mask: uint8 (N, A) legal-action masks (all zero once terminal).
        final_index: int32 (K,), envs whose episode ended in this step
            (same_step mode only); final_score, final_steps, final_outcome
            (K,), final_scores, final_ranks, final_outcomes (K, P) and
            final_obs (K, *obs_shape) describe those episodes' ends.
    """

    __slots__ = ("kind", "rewards", "current_player", "score", "steps", "scores", "ranks", "terminated",
                 "truncated", "outcome", "outcomes", "obs", "mask", "final_index", "final_score", "final_steps",
                 "final_scores", "final_ranks", "final_outcome", "final_outcomes", "final_obs")

    kind: int
    rewards: NDArray[np.float32]
    current_player: NDArray[np.int32]
    score: NDArray[np.float32]
    steps: NDArray[np.int32]
    scores: NDArray[np.float32]
    ranks: NDArray[np.int32]
    terminated: NDArray[np.bool_]
    truncated: NDArray[np.bool_]
    outcome: NDArray[np.uint8]
    outcomes: NDArray[np.uint8]
    obs: NDArray[np.uint8]
    mask: NDArray[np.uint8]
    final_index: NDArray[np.int32]
    final_score: NDArray[np.float32]
    final_steps: NDArray[np.int32]
    final_scores: NDArray[np.float32]
    final_ranks: NDArray[np.int32]
    final_outcome: NDArray[np.uint8]
    final_outcomes: NDArray[np.uint8]
    final_obs: NDArray[np.uint8]


def _keepalive_loop(ref: "weakref.ref[Session]", stop: threading.Event, interval: float) -> None:
    """websocket-client answers the server's pings only while a read is under
    way; an idle session sends unsolicited pongs (RFC 6455 5.5.3) instead,
    so that the server's liveness check keeps it. The thread holds only a
    weak reference: a session dropped without close() is still collected
    (and its connection closed)."""
    seen = -1
    while not stop.wait(interval):
        session = ref()
        if session is None:
            return
        if session._sends == seen:
            try:
                session._ws.pong(b"")  # type: ignore[union-attr]
            except Exception:
                return
        seen = session._sends
        del session


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


class Session:
    """One websocket session: handshake, then one batch of environments.

    Args:
        url: the server's websocket URL, e.g. ``ws://127.0.0.1:8765``; None
            (the default): $GALAXYGYM_URL if set, else this process's
            private local server (started from the packaged binary and
            stopped when its last session closes; see galaxygym._server).
        token: bearer token (default: the GALAXYGYM_TOKEN environment variable).
        timeout: seconds to wait for any reply; past it the session is
            closed with :class:`SessionTimeoutError` (the request is never
            sent twice).
        connect_timeout: seconds to wait for the connection and handshake.
    """

    def __init__(self, url: str | None = None, token: str | None = None,
                 timeout: float | None = 60.0, connect_timeout: float = 10.0):
        url, self._local = _server.resolve_url(url)
        self.url = url
        self._closed = False
        self._sends = 0  # messages sent; the keepalive pongs while it stands still
        self._id = 0  # the last request id sent (u32, wrapping)
        self._timeout = timeout
        self._ws: websocket.WebSocket | None = None
        self.layout: Layout | None = None
        try:
            self._connect(url, token, timeout, connect_timeout)
        except BaseException:
            self._release_local()
            raise

    def _connect(self, url: str, token: str | None, timeout: float | None, connect_timeout: float) -> None:
        token = token if token is not None else os.environ.get("GALAXYGYM_TOKEN") or None
        header = [f"Authorization: Bearer {token}"] if token else []
        try:
            self._ws = websocket.create_connection(
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
        self._pushback: tuple[bool, int, bytearray] | None = None
        assert self._ws.sock is not None
        self._reader = FrameReader(self._ws.sock)
        self._read_frame = self._reader.read_frame
        try:
            self.hello = self.request({"type": "hello", "version": PROTOCOL_VERSION,
                                       "client": "galaxygym-python"})
        except BaseException:
            self._abort()
            raise
        self._ws.settimeout(timeout)
        limits = self.hello.get("limits", {})
        interval = min(float(limits.get("ping_interval_s", 20)), float(limits.get("pong_timeout_s", 60)) / 3)
        self._stop = threading.Event()
        self._keepalive = threading.Thread(target=_keepalive_loop,
                                           args=(weakref.ref(self), self._stop, max(interval, 0.05)),
                                           name="galaxygym-keepalive", daemon=True)
        self._keepalive.start()

    # -- transport ---------------------------------------------------------

    @property
    def closed(self) -> bool:
        """Whether the session is closed (by close() or by the server)."""
        return self._closed

    def _check_open(self) -> websocket.WebSocket:
        if self._closed or self._ws is None:
            raise ConnectionClosedError("the session is closed")
        return self._ws

    def _send(self, data: bytes | str, binary: bool) -> None:
        ws = self._check_open()
        self._sends += 1
        try:
            if binary:
                ws.send_binary(data)  # type: ignore[arg-type]
            else:
                ws.send(data)
        except (websocket.WebSocketTimeoutException, socket.timeout):
            self._abort()
            raise self._timeout_error(f"sending {getattr(self, '_pending', 'a request')}") from None
        except (OSError, websocket.WebSocketException) as e:
            # The server may have said why before it went: read its close
            # frame if one is waiting.
            closing = self._pending_close()
            self._abort()
            if closing is not None:
                raise closing from None
            raise ConnectionClosedError(f"connection to {self.url} lost: {e}") from None

    def _pending_close(self) -> ConnectionClosedError | None:
        ws = self._ws
        try:
            ws.settimeout(0.2)  # type: ignore[union-attr]
            for _ in range(64):
                # Pings are not answered here: the socket is dead.
                fin, op, payload = self._read_frame()
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

    def _recv(self) -> tuple[int, bytearray]:
        ws = self._check_open()
        ABNF = websocket.ABNF
        parts: list[bytearray] = []
        opcode = 0
        try:
            while True:
                if self._pushback is not None:
                    (fin, op, payload), self._pushback = self._pushback, None
                else:
                    fin, op, payload = self._read_frame()
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
                    self._abort()
                    raise self._close_error(payload)
                elif op != ABNF.OPCODE_PONG:
                    raise ProtocolError(f"unexpected websocket frame opcode {op}")
        except GalaxyGymError:
            raise
        except (websocket.WebSocketTimeoutException, socket.timeout):
            self._abort()
            raise self._timeout_error() from None
        except (OSError, websocket.WebSocketException) as e:
            closing = self._pending_close()
            self._abort()
            if closing is not None:
                raise closing from None
            raise ConnectionClosedError(f"connection to {self.url} lost: {e or type(e).__name__}") from None

    def _timeout_error(self, what: str | None = None) -> SessionTimeoutError:
        what = what or str(getattr(self, "_pending", "request"))
        return SessionTimeoutError(
            f"no reply to {what} from {self.url} within {self._timeout} s: the session is closed and cannot be used "
            "again (the request may still take effect on the server, so it is not sent twice). Make new environments "
            "(galaxygym.make / make_vec; reset them from get_state snapshots to go on from known positions), or pass "
            "a larger timeout= if the server is only slow", request=what, timeout=self._timeout)

    def _next_id(self) -> int:
        self._id = (self._id + 1) & 0xFFFFFFFF
        return self._id

    def _desync(self, what: str, want: int, got: Any) -> SessionDesyncError:
        self._abort()
        return SessionDesyncError(
            f"the reply to {what} answers request id {got!r}, not {want}: the session is out of step with "
            f"{self.url} and is closed; make new environments to go on")

    def _release_local(self) -> None:
        if getattr(self, "_local", False):
            self._local = False
            _server.release(self.url)

    def _abort(self) -> None:
        self._closed = True
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        if self._ws is not None:
            try:
                self._ws.shutdown()  # type: ignore[no-untyped-call]
            except Exception:
                pass

    def _text(self, data: bytes | bytearray, want_id: int | None = None, what: str = "") -> dict[str, Any]:
        """Decodes a JSON reply; an error reply raises its ServerError. A
        reply (or error reply) with another request id than want_id raises
        SessionDesyncError; an error reply without one (the server could
        not read the request) is taken as the answer."""
        try:
            msg = json.loads(data)
        except ValueError:
            raise ProtocolError(f"server sent a text frame that is not JSON: {data[:80]!r}") from None
        if not isinstance(msg, dict):
            raise ProtocolError(f"server sent a JSON {type(msg).__name__}, want an object")
        if want_id is not None and msg.get("id", want_id if msg.get("type") == "error" else None) != want_id:
            raise self._desync(what or "a request", want_id, msg.get("id"))
        if msg.get("type") == "error":
            raise error_from_reply(msg)
        return msg

    def request(self, msg: dict[str, Any], expect: str | None = None) -> dict[str, Any]:
        """Sends a control message (with a new request id) and returns its
        JSON reply; an error reply raises the matching ServerError."""
        msg = dict(msg, id=self._next_id())
        self._pending = repr(msg.get("type"))
        self._send(json.dumps(msg, separators=(",", ":")), binary=False)
        opcode, data = self._recv()
        if opcode != websocket.ABNF.OPCODE_TEXT:
            raise self._desync(self._pending, msg["id"], "(a binary reply)")
        reply = self._text(data, msg["id"], self._pending)
        want = expect or msg["type"]
        if reply.get("type") != want:
            raise ProtocolError(f"server answered {msg.get('type')!r} with {reply.get('type')!r}, want {want!r}")
        return reply

    def roundtrip(self, request: bytes) -> bytearray:
        """Sends a step request (header and actions; the request id trailer
        is appended here) and returns the binary reply's payload without its
        trailer: the step hot path (an error reply raises its ServerError).
        The request is sent once: a timeout closes the session
        (SessionTimeoutError), a reply to another request too
        (SessionDesyncError)."""
        if self._closed:
            raise ConnectionClosedError("the session is closed")
        rid = self._next_id()
        idb = rid.to_bytes(4, "little")
        self._sends += 1
        self._pending = "step"
        sent = False
        try:
            self._ws.send_binary(request + idb)  # type: ignore[union-attr]
            sent = True
            fin, op, data = self._read_frame()
        except (websocket.WebSocketTimeoutException, socket.timeout):
            self._abort()
            raise self._timeout_error("step" if sent else "sending a step") from None
        except (OSError, websocket.WebSocketException) as e:
            # Lost: say why if the server sent a close frame. Never resend.
            closing = self._pending_close()
            self._abort()
            if closing is not None:
                raise closing from None
            raise ConnectionClosedError(f"connection to {self.url} lost: {e or type(e).__name__}") from None
        if fin and op == 2:
            if data[-4:] != idb:
                raise self._desync("step", rid, int.from_bytes(data[-4:], "little") if len(data) >= 4 else None)
            del data[-4:]
            return data
        self._pushback = (fin, op, data)
        return self._binary_reply("step", rid)

    def _binary_reply(self, what: str, rid: int) -> bytearray:
        """Reads the binary reply to request rid and strips its trailer."""
        opcode, data = self._recv()
        if opcode == websocket.ABNF.OPCODE_TEXT:
            msg = self._text(data, rid, what)  # raises on an error reply
            raise self._desync(what, rid, f"(a {msg.get('type')!r} reply)")
        if len(data) < REQUEST_ID_SIZE or int.from_bytes(data[-4:], "little") != rid:
            raise self._desync(what, rid, int.from_bytes(data[-4:], "little") if len(data) >= 4 else None)
        del data[-4:]
        return data

    # -- messages ----------------------------------------------------------

    def list_envs(self) -> list[dict[str, Any]]:
        """The registered environments' specs."""
        return list(self.request({"type": "list"}, expect="envs")["specs"])

    def make(self, env_id: str, num_envs: int = 1, params: dict[str, Any] | None = None,
             autoreset_mode: str = "next_step", **fields: Any) -> dict[str, Any]:
        """Makes the session's batch; returns the made reply (spec, layout).
        ``fields``: further make fields that are not None (opponents,
        learner_seats, seat_rule: docs/protocol.md, "Opponents")."""
        msg: dict[str, Any] = {"type": "make", "env": env_id, "num_envs": int(num_envs),
                               "autoreset_mode": autoreset_mode}
        if params:
            msg["params"] = params
        msg.update({k: v for k, v in fields.items() if v is not None})
        made = self.request(msg, expect="made")
        spec = made["spec"]
        self.spec = spec
        self.num_envs = int(made["num_envs"])
        self.obs_shape = tuple(int(d) for d in spec["obs_shape"])
        lay = Layout(self.num_envs, int(np.prod(self.obs_shape)), len(spec["action_names"]),
                     int(spec["num_players"]))
        got = made.get("layout", {})
        if (got.get("obs") != lay.obs or got.get("final_index") != lay.final_index
                or got.get("scores") != lay.scores or got.get("outcomes") != lay.outcomes):
            raise ProtocolError(f"server layout {got} differs from this client's {lay}")
        self.layout = lay
        self._offsets = (lay.rewards, lay.current_player, lay.score, lay.steps, lay.terminated,
                         lay.truncated, lay.outcome, lay.obs, lay.mask, lay.final_index)
        p = lay.num_players
        self._obs_batch_shape = (lay.n,) + self.obs_shape
        self._no_finals = (np.zeros(0, np.int32), np.zeros(0, np.float32), np.zeros(0, np.int32),
                           np.zeros(0, np.uint8), np.zeros((0,) + self.obs_shape, np.uint8),
                           np.zeros((0, p), np.float32), np.zeros((0, p), np.int32), np.zeros((0, p), np.uint8))
        for arr in self._no_finals:
            arr.flags.writeable = False
        # A step request is _hdr + N int32 actions; roundtrip appends the
        # request id.
        self._hdr = (_MAGIC + bytes([PROTOCOL_VERSION]) + b"%c" % KIND_STEP
                     + lay.n.to_bytes(4, "little"))
        self._reply_hdr = b"".join(x.to_bytes(4, "little") for x in
                                   (lay.n, lay.obs_size, lay.num_actions, lay.num_players))
        return made

    def _reply_prefix(self, kind: int) -> bytes:
        """The first 24 bytes of a reply of kind with K = 0."""
        return _MAGIC + bytes([PROTOCOL_VERSION, kind]) + self._reply_hdr + bytes(4)

    def reset(self, seeds: Sequence[int | None] | None = None, mask: Sequence[bool] | None = None,
              options: dict[str, Any] | None = None) -> Reply:
        """Resets the environments selected by mask (default all) with
        seeds (None entries continue each env's seed chain)."""
        msg: dict[str, Any] = {"type": "reset"}
        if seeds is not None:
            msg["seeds"] = [None if s is None else int(s) for s in seeds]
        if mask is not None:
            msg["mask"] = [bool(m) for m in mask]
        if options:
            msg["options"] = options
        msg["id"] = rid = self._next_id()
        self._pending = "reset"
        self._send(json.dumps(msg, separators=(",", ":")), binary=False)
        return self.decode(self._binary_reply("reset", rid), KIND_RESET_REPLY)

    def step(self, actions: NDArray[Any]) -> Reply:
        """Steps every environment; actions is an int array of shape (N,)."""
        a = np.asarray(actions)
        if a.shape != (self.layout.n,):  # type: ignore[union-attr]
            if a.size == self.layout.n:  # type: ignore[union-attr]
                a = a.reshape(self.layout.n)  # type: ignore[union-attr]
            else:
                raise ValueError(f"want {self.layout.n} actions, got shape {a.shape}")  # type: ignore[union-attr]
        if a.dtype != np.int32:
            if a.dtype.kind not in "iub":
                raise TypeError(f"actions must be integers, got dtype {a.dtype}")
            if a.size and (a.min() < -(1 << 31) or a.max() >= 1 << 31):
                raise ValueError("action out of the int32 range")
            a = a.astype("<i4")
        return self.decode(self.roundtrip(self._hdr + a.tobytes()), KIND_STEP_REPLY)

    def decode(self, data: bytes | bytearray, kind: int) -> Reply:
        """Decodes a step or reset reply frame into numpy views."""
        lay = self.layout
        assert lay is not None
        if (len(data) < HEADER_SIZE or data[:2] != _MAGIC or data[2] != PROTOCOL_VERSION
                or data[3] != kind or data[4:20] != self._reply_hdr):
            raise ProtocolError(f"unexpected reply header {bytes(data[:HEADER_SIZE]).hex(' ')}")
        k = int.from_bytes(data[20:24], "little")
        if len(data) != lay.size(k):
            raise ProtocolError(f"reply of {len(data)} bytes, want {lay.size(k)}")
        n, p, a, o = lay.n, lay.num_players, lay.num_actions, lay.obs_size
        o_rew, o_cp, o_score, o_steps, o_term, o_trunc, o_out, o_obs, o_mask, fi = self._offsets
        fb = np.frombuffer
        r = Reply()
        r.kind = kind
        r.rewards = fb(data, "<f4", n * p, o_rew).reshape(n, p)
        r.current_player = fb(data, "<i4", n, o_cp)
        r.score = fb(data, "<f4", n, o_score)
        r.steps = fb(data, "<i4", n, o_steps)
        r.scores = fb(data, "<f4", n * p, o_steps + 4 * n).reshape(n, p)
        r.ranks = fb(data, "<i4", n * p, o_steps + 4 * n + 4 * n * p).reshape(n, p)
        flags = fb(data, np.uint8, 3 * n + n * p, o_term)
        r.terminated = flags[:n].view(np.bool_)
        r.truncated = flags[n:2 * n].view(np.bool_)
        r.outcome = flags[2 * n:3 * n]
        r.outcomes = flags[3 * n:].reshape(n, p)
        r.obs = fb(data, np.uint8, n * o, o_obs).reshape(self._obs_batch_shape)
        r.mask = fb(data, np.uint8, n * a, o_mask).reshape(n, a)
        if k == 0:
            (r.final_index, r.final_score, r.final_steps, r.final_outcome, r.final_obs,
             r.final_scores, r.final_ranks, r.final_outcomes) = self._no_finals
        else:
            r.final_index = fb(data, "<i4", k, fi)
            r.final_score = fb(data, "<f4", k, fi + 4 * k)
            r.final_steps = fb(data, "<i4", k, fi + 8 * k)
            r.final_scores = fb(data, "<f4", k * p, fi + 12 * k).reshape(k, p)
            r.final_ranks = fb(data, "<i4", k * p, fi + 12 * k + 4 * k * p).reshape(k, p)
            r.final_outcome = fb(data, np.uint8, k, fi + 12 * k + 8 * k * p)
            r.final_outcomes = fb(data, np.uint8, k * p, fi + 13 * k + 8 * k * p).reshape(k, p)
            r.final_obs = fb(data, np.uint8, k * o, fi + 13 * k + 9 * k * p).reshape((k,) + self.obs_shape)
        return r

    def render(self, indices: Sequence[int] | None = None) -> list[str]:
        """The text boards of the environments (default all)."""
        msg: dict[str, Any] = {"type": "render"}
        if indices is not None:
            msg["indices"] = [int(i) for i in indices]
        return list(self.request(msg)["frames"])

    def render_rgb(self, indices: Sequence[int] | None = None) -> list[NDArray[Any]]:
        """The pictures of the environments (default all): uint8 arrays of
        shape (height, width, 3), drawn by the server (docs/protocol.md)."""
        msg: dict[str, Any] = {"type": "render", "mode": "rgb_array"}
        if indices is not None:
            msg["indices"] = [int(i) for i in indices]
        r = self.request(msg)
        if r.get("encoding") != "zlib-rgb24-base64":
            raise ProtocolError(f"render: unknown frame encoding {r.get('encoding')!r}")
        shape = (int(r["height"]), int(r["width"]), 3)
        return [np.frombuffer(zlib.decompress(base64.b64decode(f)), np.uint8).reshape(shape).copy()
                for f in r["frames"]]

    def info(self, indices: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Full episode infos (outcome, score, every statistic)."""
        msg: dict[str, Any] = {"type": "info"}
        if indices is not None:
            msg["indices"] = [int(i) for i in indices]
        return list(self.request(msg)["infos"])

    def get_state(self, index: int = 0) -> dict[str, Any]:
        """Environment index's snapshot, loadable through reset options."""
        return dict(self.request({"type": "get_state", "index": int(index)}, expect="state")["state"])

    def close(self) -> None:
        """Closes the session (and, for the last session on this process's
        local server, that server); idempotent, never raises."""
        self._release_local()
        if self._closed:
            return
        self._closed = True
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        ws = self._ws
        if ws is None:
            return
        try:
            ws.settimeout(2.0)
            ws.send(json.dumps({"type": "close"}))
            ws.close(timeout=1.0)
        except Exception:
            pass
        finally:
            try:
                ws.shutdown()  # type: ignore[no-untyped-call]
            except Exception:
                pass

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._abort()
            self._release_local()
        except Exception:
            pass

