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

The module joins the wire format (galaxygym._wire: messages, layouts,
decoding) and the connection (galaxygym._transport: frames, pings,
keepalive, timeouts, closing); every name they define that the client
exported before is importable from here.
"""

from __future__ import annotations

import base64
import sys
import urllib.parse
import zlib
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

from . import _server
from ._transport import OPCODE_BINARY, OPCODE_TEXT, Connection, FrameReader
from ._wire import (
    DEFAULT_URL,
    HEADER_SIZE,
    KIND_RESET_REPLY,
    KIND_STEP,
    KIND_STEP_REPLY,
    OUTCOMES,
    PROTOCOL_VERSION,
    REQUEST_ID_SIZE,
    STEP_HEADER_SIZE,
    Codec,
    Layout,
    Reply,
    decode_json,
    encode_json,
    episode_seed,
)
from .errors import ProtocolError, SessionDesyncError, error_from_reply

__all__ = ["PROTOCOL_VERSION", "DEFAULT_URL", "OUTCOMES", "Layout", "Reply", "Session", "FrameReader",
           "episode_seed", "HEADER_SIZE", "STEP_HEADER_SIZE", "REQUEST_ID_SIZE", "KIND_STEP", "KIND_STEP_REPLY",
           "KIND_RESET_REPLY"]


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
        self._id = 0  # the last request id sent (u32, wrapping)
        self.layout: Layout | None = None
        try:
            self._conn = Connection(url, token, connect_timeout)
        except BaseException:
            self._release_local()
            raise
        try:
            self.hello = self.request({"type": "hello", "version": PROTOCOL_VERSION,
                                       "client": "galaxygym-python"})
        except BaseException:
            self._conn.abort()
            self._release_local()
            raise
        limits = self.hello.get("limits", {})
        interval = min(float(limits.get("ping_interval_s", 20)), float(limits.get("pong_timeout_s", 60)) / 3)
        self._conn.ready(timeout, max(interval, 0.05))

    @property
    def closed(self) -> bool:
        """Whether the session is closed (by close() or by the server)."""
        conn = getattr(self, "_conn", None)
        return conn is None or conn.closed

    # -- request ids -------------------------------------------------------

    def _next_id(self) -> int:
        self._id = (self._id + 1) & 0xFFFFFFFF
        return self._id

    def _desync(self, what: str, want: int, got: Any) -> SessionDesyncError:
        self._conn.abort()
        return SessionDesyncError(
            f"the reply to {what} answers request id {got!r}, not {want}: the session is out of step with "
            f"{self.url} and is closed; make new environments to go on")

    def _release_local(self) -> None:
        if getattr(self, "_local", False):
            self._local = False
            _server.release(self.url)

    def _text(self, data: bytes | bytearray, want_id: int | None = None, what: str = "") -> dict[str, Any]:
        """Decodes a JSON reply; an error reply raises its ServerError. A
        reply (or error reply) with another request id than want_id raises
        SessionDesyncError; an error reply without one (the server could
        not read the request) is taken as the answer."""
        msg = decode_json(data)
        if want_id is not None and msg.get("id", want_id if msg.get("type") == "error" else None) != want_id:
            raise self._desync(what or "a request", want_id, msg.get("id"))
        if msg.get("type") == "error":
            raise error_from_reply(msg)
        return msg

    def request(self, msg: dict[str, Any], expect: str | None = None) -> dict[str, Any]:
        """Sends a control message (with a new request id) and returns its
        JSON reply; an error reply raises the matching ServerError."""
        msg = dict(msg, id=self._next_id())
        conn = self._conn
        conn.pending = repr(msg.get("type"))
        conn.send(encode_json(msg), binary=False)
        opcode, data = conn.recv()
        if opcode != OPCODE_TEXT:
            raise self._desync(conn.pending, msg["id"], "(a binary reply)")
        reply = self._text(data, msg["id"], conn.pending)
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
        rid = self._next_id()
        idb = rid.to_bytes(4, "little")
        conn = self._conn
        conn.pending = "step"
        fin, op, data = conn.exchange(request + idb)
        if fin and op == OPCODE_BINARY:
            if data[-4:] != idb:
                raise self._desync("step", rid, int.from_bytes(data[-4:], "little") if len(data) >= 4 else None)
            del data[-4:]
            return data
        conn.push_back((fin, op, data))
        return self._binary_reply("step", rid)

    def _binary_reply(self, what: str, rid: int) -> bytearray:
        """Reads the binary reply to request rid and strips its trailer."""
        opcode, data = self._conn.recv()
        if opcode == OPCODE_TEXT:
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
        codec = Codec(made)
        self._codec = codec
        self.spec, self.num_envs, self.obs_shape, self.layout = codec.spec, codec.num_envs, codec.obs_shape, codec.layout
        # A step request is _hdr + N int32 actions; roundtrip appends the
        # request id.
        self._hdr = codec.step_header
        return made

    def _reply_prefix(self, kind: int) -> bytes:
        """The first 24 bytes of a reply of kind with K = 0."""
        return self._codec.reply_prefix(kind)

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
        self._conn.pending = "reset"
        self._conn.send(encode_json(msg), binary=False)
        return self.decode(self._binary_reply("reset", rid), KIND_RESET_REPLY)

    def step(self, actions: NDArray[Any]) -> Reply:
        """Steps every environment; actions is an int array of shape (N,)."""
        codec = self._codec
        return codec.decode(self.roundtrip(self._hdr + codec.step_actions(actions)), KIND_STEP_REPLY)

    def decode(self, data: bytes | bytearray, kind: int) -> Reply:
        """Decodes a step or reset reply frame into numpy views (the made
        batch's :meth:`galaxygym._wire.Codec.decode`)."""
        return self._codec.decode(data, kind)

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

    def watch_url(self, index: int = 0) -> str:
        """The URL of the server's page that shows environment index of this
        session live (render_mode="human"): ``http://HOST:PORT/play/#training=
        ID&env=INDEX&key=KEY``, with the session's watch key, a secret the
        server makes for this session only (docs/protocol.md, "Watching a
        session"). Anyone holding the URL sees the session's positions, every
        card face up, while it lasts. A server with a token asks the page for
        it; the URL never carries it."""
        r = self.request({"type": "watch_key"}, expect="watch_key")
        return page_url(self.url, str(r["page"]), str(r["session"]), int(index), str(r["key"]))

    def announce_watch(self, index: int = 0, what: str = "") -> str:
        """Prints (once, to stderr) and returns the :meth:`watch_url` of
        environment index."""
        url = self.watch_url(index)
        print(f"galaxygym: watch {what or 'the environment'} live at {url}", file=sys.stderr, flush=True)
        return url

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
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close(encode_json({"type": "close"}))

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            conn = getattr(self, "_conn", None)
            if conn is not None:
                conn.abort()
            self._release_local()
        except Exception:
            pass


def page_url(ws_url: str, page: str, session: str, index: int, key: str) -> str:
    """The page URL of a training session's environment: ws_url's host and
    port (ws becomes http, wss https), the server's page path, and the watch
    fragment (a fragment never reaches a server's logs)."""
    u = urllib.parse.urlsplit(ws_url)
    scheme = {"ws": "http", "wss": "https"}.get(u.scheme, u.scheme)
    frag = urllib.parse.urlencode({"training": session, "env": index, "key": key})
    return urllib.parse.urlunsplit((scheme, u.netloc, page, "", frag))
