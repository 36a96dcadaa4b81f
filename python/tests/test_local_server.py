"""The private local server: started from the binary when no url is given,
stopped with the last client, at interpreter exit and when the process dies."""

from __future__ import annotations

import copy
import os
import pickle
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import galaxygym
from galaxygym import _server

from conftest import ENV_ID


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return True


def wait_dead(pid: int, timeout: float = 10.0) -> bool:
    t = time.monotonic() + timeout
    while time.monotonic() < t:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_make_without_url_starts_and_stops_a_private_server():
    assert _server.local_url() is None
    env = galaxygym.make(ENV_ID)
    envs = galaxygym.make_vec(ENV_ID, 4)
    aec = galaxygym.aec_env("galaxy-fighters-v1", players=2)
    url = _server.local_url()
    assert url is not None and url.startswith("ws://127.0.0.1:")
    assert env.session.url == envs.session.url == url  # one server per process
    pid = _server._server.proc.pid  # type: ignore[union-attr]
    obs, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    envs.reset(seed=0)
    aec.reset(seed=0)
    env.close()
    envs.close()
    assert alive(pid)  # aec still uses it
    aec.close()
    assert wait_dead(pid) and _server.local_url() is None
    assert galaxygym.list_envs()  # starts (and stops) one again
    assert _server.local_url() is None


def test_url_and_env_var_win(server, monkeypatch):
    with galaxygym.make(ENV_ID, url=server.url) as env:
        assert env.session.url == server.url and _server.local_url() is None
    monkeypatch.setenv("GALAXYGYM_URL", server.url)
    with galaxygym.make(ENV_ID) as env:
        assert env.session.url == server.url and _server.local_url() is None


def test_missing_binary_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setenv("GALAXYGYM_BIN", str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match="GALAXYGYM_BIN"):
        galaxygym.make(ENV_ID)


PROGRAM = """
import os, sys, galaxygym
from galaxygym import _server
env = galaxygym.make("galaxy-express-v1")
env.reset(seed=0)
print(_server._server.proc.pid, flush=True)
if sys.argv[1] == "hang":
    import time; time.sleep(60)
"""


@pytest.mark.parametrize("how", ["exit", "sigkill"])
def test_server_dies_with_the_interpreter(how):
    """Never left running: not at a normal exit without close(), not when
    the Python process is killed (the server reads its stdin pipe)."""
    p = subprocess.Popen([sys.executable, "-c", PROGRAM, "exit" if how == "exit" else "hang"],
                         stdout=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline())  # type: ignore[union-attr]
    assert alive(pid)
    if how == "sigkill":
        p.send_signal(signal.SIGKILL)
    p.wait(30)
    assert wait_dead(pid), f"server {pid} outlived its client ({how})"


def test_pickle_and_deepcopy_continue_the_episode():
    env = galaxygym.make(ENV_ID)
    obs, info = env.reset(seed=3)
    for _ in range(3):
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.get_state() == env.get_state()
        a = int(np.flatnonzero(info["action_mask"])[-1])
        o1, r1, t1, u1, i1 = env.step(a)
        o2, r2, t2, u2, i2 = clone.step(a)
        np.testing.assert_array_equal(o1, o2)
        assert (r1, t1, u1) == (r2, t2, u2)
        assert env.np_random.integers(1 << 30) == clone.np_random.integers(1 << 30)
        clone.close()
        env.reset(seed=3)
        obs, info = env.reset(seed=3)
        for _ in range(3):
            obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    env.close()
    # An environment never reset pickles too, and its copy can start.
    with galaxygym.make("galaxy-fighters-v1", players=3) as unstarted:
        fresh = pickle.loads(pickle.dumps(unstarted))
    assert fresh.num_players == 3
    fresh.reset(seed=0)
    fresh.close()
