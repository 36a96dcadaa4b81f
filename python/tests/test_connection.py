"""Connections: refused, dropped, shut down, token, limits."""

from __future__ import annotations

import socket
import time

import numpy as np
import pytest

import galaxygym

from conftest import ENV_ID


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connection_refused():
    t = time.monotonic()
    with pytest.raises(galaxygym.ConnectionClosedError, match="connection refused"):
        galaxygym.make(ENV_ID, url=f"ws://127.0.0.1:{free_port()}")
    assert time.monotonic() - t < 5


def test_server_killed_mid_session(start_server):
    srv = start_server()
    env = galaxygym.make(ENV_ID, url=srv.url, timeout=10)
    obs, info = env.reset(seed=1)
    srv.kill()
    t = time.monotonic()
    with pytest.raises(galaxygym.ConnectionClosedError):
        env.step(int(np.argmax(info["action_mask"])))
    assert time.monotonic() - t < 5
    env.close()  # still fine


def test_vector_server_killed(start_server):
    srv = start_server()
    envs = galaxygym.make_vec(ENV_ID, 8, url=srv.url, timeout=10)
    envs.reset(seed=1)
    srv.kill()
    with pytest.raises(galaxygym.ConnectionClosedError):
        envs.step(np.argmax(envs.action_masks(), axis=1))
    envs.close()


def test_sigterm_closes_going_away(start_server):
    srv = start_server()
    env = galaxygym.make(ENV_ID, url=srv.url)
    obs, info = env.reset(seed=1)
    assert srv.terminate() == 0
    with pytest.raises(galaxygym.ConnectionClosedError) as e:
        env.step(int(np.argmax(info["action_mask"])))
    assert e.value.close_code == 1001
    env.close()


def test_token(start_server):
    srv = start_server("--token", "s3cret-token-0123456789")
    with pytest.raises(galaxygym.AuthenticationError):
        galaxygym.make(ENV_ID, url=srv.url)
    with pytest.raises(galaxygym.AuthenticationError):
        galaxygym.make(ENV_ID, url=srv.url, token="wrong")
    with galaxygym.make(ENV_ID, url=srv.url, token="s3cret-token-0123456789") as env:
        env.reset(seed=0)


def test_limits(start_server):
    srv = start_server("--max-envs", "4", "--max-sessions", "1")
    with pytest.raises(galaxygym.TooManyEnvsError):
        galaxygym.make_vec(ENV_ID, 5, url=srv.url)
    with galaxygym.make_vec(ENV_ID, 4, url=srv.url) as envs:
        envs.reset(seed=0)
        with pytest.raises(galaxygym.TooManySessionsError):
            galaxygym.make(ENV_ID, url=srv.url)


def test_idle_timeout_is_a_clear_error(start_server):
    srv = start_server("--idle-timeout", "300ms", "--ping-interval", "100ms")
    env = galaxygym.make(ENV_ID, url=srv.url)
    obs, info = env.reset(seed=0)
    time.sleep(0.8)
    with pytest.raises(galaxygym.ConnectionClosedError) as e:
        env.step(int(np.argmax(info["action_mask"])))
    assert e.value.close_code == 1008 and "idle" in str(e.value)


def test_keepalive_survives_pong_timeout(start_server):
    # The client sends nothing for 3 pong timeouts; its keepalive pongs keep
    # the session.
    srv = start_server("--ping-interval", "50ms", "--pong-timeout", "200ms")
    with galaxygym.make(ENV_ID, url=srv.url) as env:
        obs, info = env.reset(seed=0)
        time.sleep(0.7)
        env.step(int(np.argmax(info["action_mask"])))


def test_session_protocol_errors(url):
    s = galaxygym.Session(url)
    with pytest.raises(galaxygym.BadRequestError):
        s.reset()  # before make
    s.make(ENV_ID, 2)
    with pytest.raises(galaxygym.NotResetError):
        s.step(np.zeros(2, np.int32))
    with pytest.raises(galaxygym.BadRequestError):
        s.reset(seeds=[1])
    r = s.reset(seeds=[1, 2])
    assert r.obs.shape == (2, 503) and r.obs.flags.writeable
    assert s.render([1])[0].startswith("Galaxy Express")
    s.close()
    s.close()
    assert s.closed


def test_dropped_env_closes_its_session(start_server):
    import gc
    import json
    import urllib.request

    srv = start_server()

    def sessions() -> int:
        with urllib.request.urlopen(f"http://{srv.addr}/healthz") as r:
            return json.load(r)["sessions"]

    env = galaxygym.make(ENV_ID, url=srv.url)
    env.reset(seed=0)
    assert sessions() == 1
    del env
    gc.collect()
    deadline = time.monotonic() + 5
    while sessions() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sessions() == 0
