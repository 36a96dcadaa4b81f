"""galaxygym.play: a Python agent takes a seat at a table of ``galaxygym
serve``'s page over the page's websocket (docs/play.md, "Your own agent at
the table")."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import websocket

import galaxygym
import galaxygym.play as gp
from galaxygym import datasets
from conftest import Server

ENV = "express-v1"
PARAMS = {"players": 2, "hand_only": True}


@pytest.fixture(scope="module")
def page(server_bin: str, tmp_path_factory: pytest.TempPathFactory):
    """A `galaxygym serve` whose games with a seat taken are recorded."""
    record = tmp_path_factory.mktemp("record")
    s = Server(server_bin, "--record", str(record))
    s.record = record  # type: ignore[attr-defined]
    yield s
    s.kill()


class Recorder:
    """A seeded random policy (an object with .act) that keeps what it got."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.seen: list[tuple[int, np.ndarray, np.ndarray]] = []  # (steps, obs, mask)
        self.steps = -1

    def on_message(self, m: dict[str, Any]) -> None:
        if m.get("op") == "table":
            self.steps = m["status"]["steps"]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int:
        self.seen.append((self.steps, obs.copy(), mask.copy()))
        return int(self.rng.choice(np.flatnonzero(mask)))


class Spectator(threading.Thread):
    """A raw page connection watching a table; it keeps every message."""

    def __init__(self, url: str, table: str):
        super().__init__(daemon=True)
        self.ws = websocket.create_connection(url.replace("http://", "ws://") + "/play/ws", timeout=60,
                                              suppress_origin=True)
        self.ws.send(json.dumps({"op": "watch", "table": table}))
        self.raw: list[str] = []
        self.over = threading.Event()

    def run(self) -> None:
        try:
            while True:
                data = self.ws.recv()
                self.raw.append(data)
                m = json.loads(data)
                if m.get("op") == "table" and m["status"].get("over"):
                    self.over.set()
                    return
        except websocket.WebSocketException:
            return
        finally:
            self.ws.close()


def test_agent_plays_a_seat_against_the_heuristic(page: Server):
    """Seat 0 is the Python agent, seat 1 the heuristic: the game is played
    to the end; every observation and mask the agent got equals what
    galaxygym.make gives for that seat at that step (the recorded game's
    actions replayed from the table's environment seed); a spectator never
    gets an observation or a mask."""
    seed = 7
    table = gp.create_table(ENV, ["human", "heuristic"], url=page.url, params=PARAMS, seed=seed)
    assert set(table.secrets) == {0} and table.creator_secret
    assert table.link(0).endswith(f"/#table={table.id}&seat=0")
    assert table.secrets[0] not in repr(table)
    spec = Spectator(table.url, table.id)
    spec.start()
    agent = Recorder(1)
    result = gp.connect(None, table, 0, agent, timeout=60, on_message=agent.on_message)

    assert result.table == table.id and result.seat == 0 and not result.error
    assert result.decisions == len(agent.seen) > 5
    assert result.info["scores"] and len(result.returns) == 2
    assert result.rank == result.info["ranks"][0] and result.outcome == result.info["outcomes"][0]
    assert result.ret == result.returns[0]
    assert result.record, "a game with a seat taken is recorded"

    # The recorded game: its actions, replayed in galaxygym's Env from the
    # table's environment seed (episode 0 of run seed 7).
    data = datasets.load(Path(page.record).parent / result.record, obs=False)  # the name is "<record folder>/<game>"
    actions = data.action[data.action >= 0]
    players = data.player[data.action >= 0]
    assert len(actions) == result.steps
    assert [s for s, _, _ in agent.seen] == [i for i, p in enumerate(players) if p == 0]
    env = galaxygym.make(ENV, url=page.url, **PARAMS)
    try:
        obs, info = env.reset(seed=galaxygym.episode_seed(seed, 1))
        seen = iter(agent.seen)
        returns = np.zeros(2)
        for i, (a, p) in enumerate(zip(actions, players)):
            assert info["current_player"] == p
            if p == 0:
                steps, got_obs, got_mask = next(seen)
                assert steps == i
                assert got_obs.dtype == np.uint8 and got_obs.shape == obs.shape
                np.testing.assert_array_equal(got_obs, obs)
                assert got_mask.dtype == info["action_mask"].dtype
                np.testing.assert_array_equal(got_mask, info["action_mask"])
            obs, _, terminated, truncated, info = env.step(int(a))
            returns += info["rewards"]
        assert terminated or truncated
        np.testing.assert_allclose(returns, result.returns)
    finally:
        env.close()

    spec.join(30)
    assert spec.over.is_set(), "the spectator saw the end"
    assert len(spec.raw) > result.steps // 2
    for raw in spec.raw:
        assert '"observation"' not in raw and '"mask"' not in raw


def test_free_seat_by_link_and_refusals(page: Server):
    """take=[] leaves the seats free: the program takes one by joining (it
    gets the seat's secret), a second program cannot take it without the
    secret, and an illegal action is refused by the page as for a person."""
    table = gp.create_table(ENV, ["human", "random"], url=page.url, params=PARAMS, seed=3, take=[])
    assert table.secrets == {}

    def illegal(obs: np.ndarray, mask: np.ndarray) -> int:
        # The second program tries the seat while the first holds it.
        with pytest.raises(gp.PlayError) as e:
            gp.connect(page.url, table.id, 0, lambda o, m: 0, timeout=30)
        assert e.value.code == "seat_taken"
        return int(np.flatnonzero(mask == 0)[0])

    with pytest.raises(gp.PlayError) as e:
        gp.connect(page.url, table.id, 0, illegal, timeout=30)
    assert e.value.code == "illegal_action"
    with pytest.raises(gp.PlayError) as e:
        gp.connect(page.url, "no-such-table", 0, illegal, timeout=30)
    assert e.value.code == "unknown_table"
    with pytest.raises(gp.PlayError) as e:
        gp.create_table(ENV, ["human"], url=page.url, params=PARAMS)
    assert e.value.code == "bad_lineup"


def test_page_url_forms():
    assert gp.page_url("ws://127.0.0.1:8765")[0] == "ws://127.0.0.1:8765/play/ws"
    assert gp.page_url("http://localhost:1/#table=3-ab&seat=1")[0] == "ws://localhost:1/play/ws"
    assert gp.page_url("https://h.example/?token=T")[0] == "wss://h.example/play/ws?token=T"
    with pytest.raises(ValueError):
        gp.page_url("ftp://h")
