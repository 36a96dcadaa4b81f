"""make and make_vec check actions alike: integers only, inside the action
space, and a dead server says so."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import galaxygym
from galaxygym import _server

from conftest import ENV_ID, Server


@pytest.mark.parametrize("mode", ["terminate", "raise"])
def test_single_env_rejects_what_is_not_an_action(url, mode):
    with galaxygym.make(ENV_ID, url=url, illegal_action=mode) as env:
        obs, info = env.reset(seed=3)
        state = env.get_state()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing may end the episode with a warning
            for bad in (3.7, "3", 3.0, None, np.float32(2), np.array([1.5])):
                with pytest.raises(TypeError, match="integer"):
                    env.step(bad)
            for bad in (999, -1, 56, 2**40, np.int64(-5)):
                with pytest.raises(galaxygym.ActionSpaceError) as e:
                    env.step(bad)
                assert e.value.action == int(bad) and isinstance(e.value, ValueError)
                assert "outside the action space Discrete(56)" in str(e.value)
        assert env.get_state() == state  # nothing was stepped, the episode goes on
        legal = int(np.flatnonzero(info["action_mask"])[0])
        for ok in (np.int64(legal), np.array(legal), np.array([legal], dtype=np.int32)):
            env.reset(seed=3)
            obs2, r, term, trunc, info2 = env.step(ok)
            assert "illegal_action" not in info2


def test_vector_env_rejects_the_same(url):
    with galaxygym.make_vec(ENV_ID, 3, url=url) as envs:
        envs.reset(seed=1)
        before = [envs.get_state(i) for i in range(3)]
        good = np.argmax(envs.action_masks(), axis=1)
        with pytest.raises(TypeError, match="integers"):
            envs.step(good.astype(np.float64) + 0.7)
        with pytest.raises(TypeError):
            envs.step(["3", "1", "2"])
        for bad in (999, -1):
            acts = good.copy()
            acts[1] = bad
            with pytest.raises(galaxygym.ActionSpaceError) as e:
                envs.step(acts)
            assert e.value.index == 1 and e.value.action == bad
        assert [envs.get_state(i) for i in range(3)] == before
        envs.step(good)


def test_a_dead_private_server_says_it_is_gone():
    env = galaxygym.make(ENV_ID)  # the private local server
    envs = galaxygym.make_vec(ENV_ID, 2)
    obs, info = env.reset(seed=0)
    envs.reset(seed=0)
    srv = _server._server
    assert srv is not None and srv.running
    srv.proc.kill()
    srv.proc.wait(10)
    with pytest.raises(galaxygym.ServerGoneError, match="the server is gone") as e:
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    msg = str(e.value)
    assert "private galaxygym server" in msg and "make the environment again" in msg.lower()
    assert isinstance(e.value, galaxygym.ConnectionClosedError)
    with pytest.raises(galaxygym.ServerGoneError):
        envs.step(np.zeros(2, dtype=np.int64))
    env.close()
    envs.close()
    # As the message says: a new environment starts a new private server.
    with galaxygym.make(ENV_ID) as again:
        again.reset(seed=0)


def test_a_dead_remote_server_names_its_url(server_bin):
    srv = Server(server_bin)
    try:
        env = galaxygym.make(ENV_ID, url=srv.url)
        env.reset(seed=0)
    finally:
        srv.kill()
    with pytest.raises(galaxygym.ServerGoneError, match="galaxygym serve") as e:
        env.reset(seed=1)
    assert srv.url in str(e.value)
    env.close()


def test_export_policy_states_how_to_play(tmp_path, server_bin):
    """export_policy(play="greedy") writes meta play, load_policy reads it
    back, and the Go agent then plays greedily without being told."""
    import json
    import subprocess
    rng = np.random.default_rng(0)
    layers = [(rng.normal(0, 0.1, (16, 503)), np.zeros(16)), (rng.normal(0, 0.1, (56, 16)), np.zeros(56))]
    scale = np.full(503, 1 / 8)
    out = {}
    for play in ("greedy", "sample", None):
        path = tmp_path / f"{play}.npz"
        meta = galaxygym.export_policy(path, layers, scale, ENV_ID, play=play)
        assert meta.get("play") == play and galaxygym.load_policy(path)["meta"].get("play") == play
        r = subprocess.run([server_bin, "eval", "--env", ENV_ID, "--agents", "policy", "--weights", str(path),
                            "--episodes", "20", "--seed", "0", "--format", "json"],
                           capture_output=True, text=True, check=True)
        out[play] = r.stdout
    forced = subprocess.run([server_bin, "eval", "--env", ENV_ID, "--agents", "policy", "--weights",
                             str(tmp_path / "None.npz"), "--agent-opt", "policy.greedy=true", "--episodes", "20",
                             "--seed", "0", "--format", "json"], capture_output=True, text=True, check=True).stdout
    def play_of(report: str) -> tuple[float, float, float]:
        a = json.loads(report)["agents"][0]
        return a["mean_return"], a["sd_return"], a["mean_length"]

    ret = {k: play_of(v) for k, v in out.items()}
    assert ret["greedy"] != ret["sample"] and ret["sample"] == ret[None]
    assert play_of(forced) == ret["greedy"]
    with pytest.raises(ValueError, match="play"):
        galaxygym.export_policy(tmp_path / "bad.npz", layers, scale, ENV_ID, play="argmax")
