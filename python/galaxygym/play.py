"""Your own agent at a table of ``galaxygym serve``'s page (docs/play.md,
"Your own agent at the table").

A Python policy takes a human seat of a page table over the page's
websocket (``/play/ws``, docs/protocol.md "The page's protocol") exactly as a
person's browser tab does: it joins the seat (a free one, or a held one with
the seat's secret), gets the seat's table messages, which carry that seat's
own observation and, when it is to act, its legal mask (``observation``:
sent to the seat's person only, never to spectators or other seats), and
answers each decision with an ``act`` message that names the position it
answers (``steps``). The seat's secret, the seat grace and every budget of
the page hold as for a person: if the program drops, its seat is kept for it
for ``--seat-grace`` (join again with the secret), then the game's
heuristic plays it.

>>> import galaxygym.play, numpy as np                       # doctest: +SKIP
>>> table = galaxygym.play.create_table("express-v1", ["human", "heuristic"],
...                                     params={"players": 2})  # doctest: +SKIP
>>> result = galaxygym.play.connect(None, table, 0,
...     lambda obs, mask: int(np.flatnonzero(mask)[0]))      # doctest: +SKIP
>>> result.ret, result.rank                                   # doctest: +SKIP

With ``take=[]`` the table's human seats stay free: a person opens
``table.link(k)`` in a browser and plays the agent.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
import websocket

from . import _server
from .errors import AuthenticationError, ConnectionClosedError, GalaxyGymError, ServerTimeoutError

__all__ = ["Table", "Result", "PlayError", "create_table", "connect", "page_url"]

#: The name of a seat a person, or a program through :func:`connect`, plays.
HUMAN = "human"


class PlayError(GalaxyGymError):
    """The page refused a request or closed the game: ``code`` is the page's
    stable error code (docs/protocol.md, "The page's protocol": ``seat_taken``,
    ``bad_secret``, ``illegal_action``, ``unknown_table`` ...; ``seat_lost``
    when an agent took the seat after its grace period, ``game_closed`` when
    the game ended without a result), ``message`` says why in words."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass
class Table:
    """A table made by :func:`create_table`.

    Attributes:
        id: the table's id (``#table=ID`` in the page's links).
        url: the server's page address, ``http://host:port`` (or https).
        env: the environment id; seats: the lineup (``"human"`` or an agent).
        secrets: seat -> seat secret of the human seats this table's maker
            took (``take``); pass one to :func:`connect` (it does so itself
            when given this Table).
        creator_secret: the creator's secret (op ``watch`` with it controls a
            table at which nobody is seated).
        seed: the run seed the table was made with (0: the server drew one).
    """

    id: str
    url: str
    env: str
    seats: list[str]
    secrets: dict[int, str] = field(default_factory=dict, repr=False)
    creator_secret: str = field(default="", repr=False)
    seed: int = 0
    token: str | None = field(default=None, repr=False)
    _local: str | None = field(default=None, repr=False)

    def link(self, seat: int | None = None) -> str:
        """The page's link to the table: to seat ``seat`` (a person opening it
        takes the seat if it is free), or to watch it (None)."""
        frag = f"#table={self.id}" + (f"&seat={seat}" if seat is not None else "")
        query = f"?token={urllib.parse.quote(self.token)}" if self.token else ""
        return f"{self.url}/{query}{frag}"

    def close(self) -> None:
        """Releases this process's local server when the table was made on
        it (``url=None``); the table itself ends when its game does."""
        if self._local is not None:
            _server.release(self._local)
            self._local = None

    def __enter__(self) -> "Table":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class Result:
    """How a seat's game ended (:func:`connect`).

    Attributes:
        table, seat: the table and the seat played.
        ret: the seat's return (its rewards' sum); returns: every seat's.
        score, rank, outcome: the seat's score, rank (1 best) and outcome
            name (``win``, ``loss``, ``draw``) from the game's result.
        info: the episode's ``env.Info`` as JSON (``outcome``, ``score``,
            ``scores``, ``outcomes``, ``ranks``, statistics).
        steps: moves played at the table; decisions: the policy's.
        record: the recorded dataset's name (``serve --record``), or "".
        secret: the seat's secret (to join again while the game runs).
        error: what closed the game early, or "".
    """

    table: str
    seat: int
    ret: float
    returns: list[float]
    score: float
    rank: int
    outcome: str
    info: dict[str, Any]
    steps: int
    decisions: int
    record: str = ""
    secret: str = field(default="", repr=False)
    error: str = ""


def page_url(url: str | None) -> tuple[str, str | None]:
    """(the page's websocket address ``ws://host:port/play/ws``, the local
    server's URL to release or None) for a server given as ``ws://``,
    ``wss://``, ``http://`` or ``https://host:port`` (a page link is fine: its
    path and fragment are dropped, its ``?token=`` kept). None: $GALAXYGYM_URL,
    else this process's local server (started if needed)."""
    url, local = _server.resolve_url(url)
    u = urllib.parse.urlsplit(url)
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(u.scheme)
    if scheme is None or not u.netloc:
        if local:
            _server.release(url)
        raise ValueError(f"{url!r} is not a ws://, wss://, http:// or https:// address of galaxygym serve")
    ws = urllib.parse.urlunsplit((scheme, u.netloc, "/play/ws", u.query, ""))
    return ws, (url if local else None)


def _http_url(ws_url: str) -> str:
    u = urllib.parse.urlsplit(ws_url)
    return f"{'https' if u.scheme == 'wss' else 'http'}://{u.netloc}"


def _dial(ws_url: str, token: str | None, timeout: float) -> websocket.WebSocket:
    token = token if token is not None else os.environ.get("GALAXYGYM_TOKEN") or None
    if token:
        u = urllib.parse.urlsplit(ws_url)
        q = urllib.parse.parse_qs(u.query)
        q["token"] = [token]
        ws_url = urllib.parse.urlunsplit((u.scheme, u.netloc, u.path, urllib.parse.urlencode(q, doseq=True), ""))
    try:
        return websocket.create_connection(ws_url, timeout=timeout, suppress_origin=True,
                                           sockopt=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),))
    except websocket.WebSocketBadStatusException as e:
        status = getattr(e, "status_code", None)
        if status in (401, 403):
            raise AuthenticationError(f"{ws_url} refused the {'token' if status == 401 else 'origin'} (HTTP {status})") from None
        raise ConnectionClosedError(f"{ws_url} refused the websocket upgrade (HTTP {status}): {e}") from None
    except (socket.timeout, websocket.WebSocketTimeoutException):
        raise ServerTimeoutError(f"connecting to {ws_url} timed out after {timeout} s") from None
    except (OSError, websocket.WebSocketException) as e:
        raise ConnectionClosedError(f"cannot connect to {ws_url}: {e} (is `galaxygym serve` running?)") from None


def _recv(ws: websocket.WebSocket) -> dict[str, Any]:
    try:
        data = ws.recv()
    except (socket.timeout, websocket.WebSocketTimeoutException):
        raise ServerTimeoutError("no message from the page's server within the timeout") from None
    except (OSError, websocket.WebSocketException) as e:
        raise ConnectionClosedError(f"the page's server closed the connection: {e}") from None
    m = json.loads(data)
    if not isinstance(m, dict):
        raise PlayError("bad_reply", f"not a JSON object: {data[:200]!r}")
    return m


def create_table(env: str, seats: Sequence[str], *, url: str | None = None, params: dict[str, Any] | None = None,
                 seed: int = 0, take: Sequence[int] | None = None, delay_ms: int = 0,
                 agent_opts: dict[str, dict[str, Any]] | None = None, hint: str = "",
                 token: str | None = None, timeout: float = 30.0) -> Table:
    """Starts a game at the page of ``galaxygym serve`` (op ``new``) and
    returns it as a :class:`Table`.

    Args:
        env: the environment id (``galaxygym envs`` lists them).
        seats: one entry per player: ``"human"`` (a person's, or a program's
            through :func:`connect`) or an agent (``heuristic``, ``random``,
            ``mcts`` ...).
        url: the server (see :func:`page_url`); None: $GALAXYGYM_URL, else
            this process's local server, held until :meth:`Table.close`.
        params: the environment's parameters (``{"players": 2}``).
        seed: the run seed (0: the server draws one): the environment and the
            agents are seeded as episode 0 of ``generate --seed SEED``.
        take: the human seats taken now, whose secrets the Table keeps for
            :func:`connect` (default: every human seat; ``[]``: none, for
            people and programs to join by link). A seat taken here is kept
            for its taker for the seat grace (``serve --seat-grace``, 2
            minutes): connect to it within that time.
        delay_ms: the pause before each agent move; agent_opts: options by
            agent name (``{"mcts": {"sims": 200}}``); hint: the agent people
            may ask for hints ("" none).
        token: the server's token (default $GALAXYGYM_TOKEN).
        timeout: seconds to wait for the server.

    Raises:
        PlayError: the page refused the lineup (``bad_lineup``,
            ``unknown_env``, ``bad_params``, ``limit_exceeded`` ...).
    """
    ws_url, local = page_url(url)
    try:
        lineup: dict[str, Any] = {"env": env, "params": dict(params or {}), "seats": list(seats), "seed": int(seed),
                                  "delay_ms": int(delay_ms), "agent_opts": dict(agent_opts or {}), "hint": hint}
        msg: dict[str, Any] = {"op": "new", "req": "new", "lineup": lineup}
        if take is not None:
            msg["take"] = [int(k) for k in take]
        ws = _dial(ws_url, token, timeout)
        try:
            ws.send(json.dumps(msg))
            secrets: dict[int, str] = {}
            creator = ""
            while True:
                m = _recv(ws)
                if m.get("op") == "error":
                    raise PlayError(str(m.get("code")), str(m.get("message")))
                if m.get("op") == "secret":
                    if m.get("creator"):
                        creator = m["secret"]
                    else:
                        secrets[int(m["seat"])] = m["secret"]
                elif m.get("op") == "table":
                    tid = m["status"]["table"]
                    break
        finally:
            ws.close()
        return Table(id=tid, url=_http_url(ws_url), env=env, seats=list(seats), secrets=secrets, creator_secret=creator,
                     seed=int(seed), token=token, _local=local)
    except BaseException:
        if local is not None:
            _server.release(local)
        raise


Policy = Callable[[NDArray[np.uint8], NDArray[np.int8]], Any]


def connect(url: str | None, table: str | Table, seat: int, policy: Any, *, secret: str | None = None,
            token: str | None = None, timeout: float | None = None, connect_timeout: float = 10.0,
            on_message: Callable[[dict[str, Any]], None] | None = None) -> Result:
    """Plays seat ``seat`` of a page table with ``policy`` until the game is
    over, and returns the seat's :class:`Result`.

    The program joins the seat as a person's browser tab does (op ``join``):
    a free human seat becomes its own (the page sends it the seat's secret,
    kept in ``Result.secret``); a held one needs its ``secret``. Whenever the
    seat is to act, ``policy(obs, mask)`` is called with the seat's own
    observation (uint8, the spec's ``obs_shape``: the bytes ``galaxygym.make``
    gives for that seat at that position) and its legal mask (int8, 1 legal,
    as ``info["action_mask"]``); an object with ``.act(obs, mask)`` works
    too. Its answer (an int action) goes back as an ``act`` naming the
    position it answers, so a late answer is refused (``stale``) rather than
    played elsewhere.

    Args:
        url: the server (see :func:`page_url`: ``ws://``, ``http://`` or a
            page link); None with a :class:`Table`: the table's server.
        table: a table id (``#table=ID`` of the page's link) or a Table.
        seat: the human seat to play.
        policy: ``policy(obs, mask) -> action`` or an object with ``act``.
        secret: the seat's secret when it is held (default: the Table's,
            for a seat it took).
        token: the server's token (default: the Table's, else
            $GALAXYGYM_TOKEN).
        timeout: seconds to wait for any message (None: as long as the
            other seats take; a person may think for minutes). The policy
            should answer well within the server's ``--pong-timeout`` (60 s):
            the connection answers the server's pings only between calls.
        on_message: called with every message from the page (``table``:
            status, view, the seat's observation), e.g. to log the game.

    Raises:
        PlayError: the page refused the seat (``seat_taken``, ``bad_secret``,
            ``bad_seat``, ``unknown_table``) or a move (``illegal_action``:
            the policy chose an action the mask forbids), the seat was
            handed to an agent (``seat_lost``), or the game was closed
            without a result (``game_closed``).
        ConnectionClosedError, ServerTimeoutError: the connection failed.
    """
    act = getattr(policy, "act", None)
    if not callable(act):
        if not callable(policy):
            raise TypeError("policy must be callable as policy(obs, mask) or have .act(obs, mask)")
        act = policy
    if isinstance(table, Table):
        tid = table.id
        if url is None:
            url = table.url
        if secret is None:
            secret = table.secrets.get(seat)
        if token is None:
            token = table.token
    else:
        tid = str(table)
    ws_url, local = page_url(url)
    try:
        ws = _dial(ws_url, token, connect_timeout)
        try:
            ws.settimeout(timeout)
            join: dict[str, Any] = {"op": "join", "req": "join", "table": tid, "seat": int(seat)}
            if secret:
                join["secret"] = secret
            ws.send(json.dumps(join))
            answered, decisions = -1, 0
            while True:
                m = _recv(ws)
                if on_message is not None:
                    on_message(m)
                op = m.get("op")
                if op == "secret" and m.get("seat") == seat:
                    secret = m["secret"]
                elif op == "error":
                    if m.get("code") == "stale":
                        continue  # the position moved on: the next table message has the new one
                    raise PlayError(str(m.get("code")), str(m.get("message")))
                elif op == "table":
                    s = m["status"]
                    if s.get("over"):
                        return _result(s, tid, seat, decisions, secret or "")
                    heirs = s.get("heirs") or []
                    if seat < len(heirs) and heirs[seat]:
                        raise PlayError("seat_lost", f"seat {seat} is played by {heirs[seat]} since its program left")
                    o = m.get("observation")
                    if (s.get("to_move") == seat and seat in s.get("yours", []) and o and o.get("seat") == seat
                            and o.get("mask") and s["steps"] != answered):
                        obs = np.frombuffer(base64.b64decode(o["obs"]), np.uint8).reshape(o["shape"])
                        mask = np.frombuffer(base64.b64decode(o["mask"]), np.int8)
                        a = int(act(obs, mask))
                        answered = s["steps"]
                        decisions += 1
                        ws.send(json.dumps({"op": "act", "req": "act", "table": tid, "seat": int(seat), "action": a,
                                            "steps": answered}))
        finally:
            ws.close()
    finally:
        if local is not None:
            _server.release(local)


def _result(s: dict[str, Any], table: str, seat: int, decisions: int, secret: str) -> Result:
    info = s.get("result")
    if info is None:
        raise PlayError("game_closed", s.get("error") or "the game ended without a result")
    returns = [float(x) for x in (s.get("returns") or [])]
    scores, ranks, outcomes = info.get("scores") or [], info.get("ranks") or [], info.get("outcomes") or []
    return Result(table=table, seat=seat, ret=returns[seat] if seat < len(returns) else float("nan"), returns=returns,
                  score=float(scores[seat]) if seat < len(scores) else float(info.get("score", 0)),
                  rank=int(ranks[seat]) if seat < len(ranks) else 0,
                  outcome=str(outcomes[seat]) if seat < len(outcomes) else str(info.get("outcome", "")),
                  info=info, steps=int(s.get("steps", 0)), decisions=decisions, record=s.get("record") or "",
                  secret=secret, error=s.get("error") or "")
