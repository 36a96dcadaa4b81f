"""The checkers as users call them, on every environment id the server
lists, and the Gymnasium registration and help() texts made from the
server's specs (no id is written in Python)."""

from __future__ import annotations

import pydoc
import subprocess
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import galaxygym

import conftest


def _server_ids() -> list[str]:
    """The ids of the server under test (as at collection time: the
    checkout's binary or $GALAXYGYM_BIN)."""
    import json
    import os
    binary = os.environ.get("GALAXYGYM_BIN") or str(conftest.REPO / "bin" / "galaxygym")
    try:
        out = subprocess.run([binary, "envs", "--json"], capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [s["id"] for s in json.loads(out)]


IDS = _server_ids()


def test_ids_come_from_the_server(server):
    ids = [s["id"] for s in galaxygym.list_envs(url=server.url)]
    assert IDS == ids, "the checkers below run on every id the server lists"
    assert not hasattr(galaxygym._registration, "KNOWN_IDS")
    assert galaxygym._registration.env_ids() == ids


def test_every_server_env_is_registered(server):
    ids = [s["id"] for s in galaxygym.list_envs(url=server.url)]
    assert ids and set(ids) <= set(galaxygym._registration.env_ids())
    for env_id in ids:
        assert galaxygym.gym_id(env_id) in gymnasium.registry
    assert galaxygym.gym_id("galaxy-express-v1") == "galaxygym/GalaxyExpress-v1"
    assert galaxygym.gym_id("pilots-of-gallaxia-v1") == "galaxygym/PilotsOfGallaxia-v1"
    with pytest.raises(ValueError):
        galaxygym.gym_id("no-version")


@pytest.mark.parametrize("env_id", IDS)
def test_make_warns_nothing(env_id):
    """Gymnasium's passive checker has nothing to say on make (it warned
    about Pilots' Box, whose bound of an always-zero byte was 0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", DeprecationWarning)  # galaxy-fighters-v1: "out of date", v2 exists
        env = gymnasium.make(galaxygym.gym_id(env_id), disable_env_checker=False)
        env.reset(seed=0)
        env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_help_tells_the_game(env_id, server):
    from galaxygym.pettingzoo import module
    spec = next(s for s in galaxygym.list_envs(url=server.url) if s["id"] == env_id)
    mod = module(env_id)
    for f in (mod.env, mod.raw_env, mod.parallel_env):
        text = pydoc.render_doc(f, renderer=pydoc.plaintext)
        assert "env(**kwargs) -> Any" not in text and spec["description"][:60] in text
        assert f"({'x'.join(map(str, spec['obs_shape']))})" in text
        for p in spec["params"]:
            assert f"{p['name']}={p['default']!r}" in text, (env_id, p["name"])
            if "max" in p:
                assert f"{p.get('min', 0)}, {p['max']}]" in text
            for c in p.get("choices", []):
                assert repr(c) in text
    assert spec["description"][:60] in pydoc.render_doc(mod, renderer=pydoc.plaintext)


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_check_env_unchanged(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", galaxygym.IllegalActionWarning)
        env = galaxygym.make(env_id)
        check_env(env)
        env.close()
        env = gymnasium.make(galaxygym.gym_id(env_id))
        check_env(env.unwrapped)
        env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_sb3_check_env_unchanged(env_id):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", galaxygym.IllegalActionWarning)
        env = galaxygym.make(env_id)
        sb3_checker.check_env(env)
        env.close()


def test_gymnasium_make_spec_and_make_vec():
    env = gymnasium.make("galaxygym/GalaxyFighters-v1", players=2, mission="rookie")
    assert env.spec is not None and env.spec.id == "galaxygym/GalaxyFighters-v1"
    assert env.spec.kwargs == {"env_id": "galaxy-fighters-v1", "players": 2, "mission": "rookie"}
    assert env.unwrapped.num_players == 2
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    # The spec re-creates the same environment (what Minari's recover_environment does).
    again = gymnasium.make(env.spec)
    np.testing.assert_array_equal(again.reset(seed=0)[0], env.reset(seed=0)[0])
    again.close()
    env.close()
    # The module:id form needs no prior import.
    gymnasium.make("galaxygym:galaxygym/GalaxyExpress-v1").close()
    envs = gymnasium.make_vec("galaxygym/GalaxyExpress-v1", num_envs=4)
    assert isinstance(envs, galaxygym.GalaxyGymVectorEnv) and envs.num_envs == 4
    assert envs.reset(seed=0)[0].shape == (4, 503)
    envs.close()
