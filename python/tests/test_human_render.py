"""render_mode="human": the env prints once the URL of the server's page,
which shows the session's position live to whoever holds the URL."""

from __future__ import annotations

import json
import re
import urllib.parse

import numpy as np
import websocket

import galaxygym

URL_RE = re.compile(r"http://127\.0\.0\.1:\d+/play/#training=([0-9a-f]{32})&env=(\d+)&key=([0-9a-f]{64})")


def page_messages(url: str, msg: dict, want: str, n: int = 1, timeout: float = 20.0) -> list[dict]:
    """Opens the page's websocket of url's server, sends msg and returns
    the first n messages with op want (an error reply: raised)."""
    u = urllib.parse.urlsplit(url)
    ws = websocket.create_connection(f"ws://{u.netloc}/play/ws", timeout=timeout)
    try:
        ws.send(json.dumps(msg))
        out = []
        while len(out) < n:
            m = json.loads(ws.recv())
            if m["op"] == "error":
                return [m]
            if m["op"] == want:
                out.append(m)
        return out
    finally:
        ws.close()


def watch_msg(url: str, **over) -> dict:
    frag = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).fragment))
    m = {"op": "watch_training", "session": frag["training"], "key": frag["key"], "index": int(frag["env"])}
    m.update(over)
    return m


def test_human_prints_one_url_and_the_page_follows(capsys):
    with galaxygym.make("galaxy-express-v1", render_mode="human") as env:
        err = capsys.readouterr().err
        urls = URL_RE.findall(err)
        assert len(urls) == 1 and env.watch_url and URL_RE.fullmatch(env.watch_url), err
        assert env.render() is None
        obs, info = env.reset(seed=3)
        first = page_messages(env.watch_url, watch_msg(env.watch_url), "training")[0]
        assert first["view"]["seat"] == -1 and first["view"]["actions"] == [], first
        turn = first["view"]["turn"]
        for _ in range(4):
            obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        later = page_messages(env.watch_url, watch_msg(env.watch_url), "training")[0]
        assert later["view"]["turn"] > turn
        assert env.render() is None
        # A wrong key is refused; so is an environment the session lacks.
        bad = watch_msg(env.watch_url, key="0" * 64)
        assert page_messages(env.watch_url, bad, "training")[0]["code"] == "watch_denied"
        assert page_messages(env.watch_url, watch_msg(env.watch_url, index=1), "training")[0]["code"] == "bad_request"
        assert capsys.readouterr().err == ""  # printed once, not per step


def test_human_aec_and_vector(capsys):
    aec = galaxygym.aec_env("galaxy-fighters-v1", render_mode="human", players=2)
    try:
        assert URL_RE.fullmatch(aec.watch_url)
        aec.reset(seed=0)
        m = page_messages(aec.watch_url, watch_msg(aec.watch_url), "training")[0]
        assert m["view"]["env"] == "galaxy-fighters-v1" and m["view"]["players"] == 2
    finally:
        aec.close()
    envs = galaxygym.make_vec("galaxy-express-v1", 2, render_mode="human")
    try:
        envs.reset(seed=0)
        assert URL_RE.fullmatch(envs.watch_url)
        m = page_messages(envs.watch_url, watch_msg(envs.watch_url, index=1), "training")[0]
        assert m["env"] == 1
    finally:
        envs.close()
    assert len(URL_RE.findall(capsys.readouterr().err)) == 2
