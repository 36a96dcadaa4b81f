"""galaxygym.datasets on datasets made by `galaxygym generate` with default
flags, and the readers users reach for reading every column."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import galaxygym
import galaxygym.datasets as gd


@pytest.fixture(scope="module")
def made(server_bin: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("ds")
    out = {}
    for name, args in {
        "ge": ["--env", "galaxy-express-v1", "--agent", "heuristic", "--episodes", "120", "--episodes-per-part", "50"],
        "gf": ["--env", "galaxy-fighters-v1", "--env-param", "players=3", "--agent", "random", "--episodes", "20"],
        "ge-split": ["--env", "galaxy-express-v1", "--agent", "random", "--episodes", "60", "--obs-encoding", "split"],
    }.items():
        d = root / name
        subprocess.run([server_bin, "generate", *args, "--seed", "4", "--workers", "1", "--out", str(d)],
                       check=True, capture_output=True)
        out[name] = d
    return out


def test_load_matches_the_environment(made):
    ds = gd.load(made["ge"])
    m = ds.manifest
    assert m["galaxygym_version"] == galaxygym.__version__
    rows = m["total_steps"] + m["total_episodes"]
    assert len(ds) == rows and ds.obs.shape == (rows, 503) and ds.obs.dtype == np.uint8
    assert ds.action_mask.shape == (rows, 56) and ds.rewards.shape == (rows, 1)
    assert ds.episode_id.dtype == np.int64 and ds.terminated.dtype == np.bool_
    start, end = gd.episode_spans(ds)
    assert len(start) == 120 and (ds.action[end - 1] == -1).all() and (ds.step[start] == 0).all()
    assert (ds.terminated[end - 2] | ds.truncated[end - 2]).all()
    # Replaying an episode from its seed gives the stored rows.
    seeds = ds.episodes["seed"].to_numpy().astype(np.uint64)
    with galaxygym.make("galaxy-express-v1", illegal_action="raise") as env:
        for k in (0, 77, 119):
            obs, info = env.reset(seed=int(seeds[k]))
            s, e = start[k], end[k]
            for r in range(s, e - 1):
                np.testing.assert_array_equal(obs, ds.obs[r])
                np.testing.assert_array_equal(info["action_mask"], ds.action_mask[r])
                obs, reward, term, trunc, info = env.step(int(ds.action[r]))
                assert reward == pytest.approx(ds.reward[r]) and term == ds.terminated[r]
            np.testing.assert_array_equal(obs, ds.obs[e - 1])


def test_transitions(made):
    ds = gd.load(made["ge"])
    t = gd.transitions(made["ge"])
    assert len(t) == ds.manifest["total_steps"]
    assert (t.action >= 0).all() and t.obs.shape == t.next_obs.shape == (len(t), 503)
    i = np.flatnonzero(ds.action >= 0)
    np.testing.assert_array_equal(t.next_obs, ds.obs[i + 1])
    done = t.terminated | t.truncated
    assert done.sum() == 120 and not t.next_mask[done].any() and t.mask.any(axis=1).all()


# Every multi-player game of the binary, with mixed lineups (envtest-trio-v1
# exists only in Go tests: the binary does not register it).
MULTIPLAYER = {
    "express-v1": ["--env-param", "players=3", "--seats", "heuristic,random,heuristic", "--episodes", "12"],
    "pilots-of-gallaxia-v1": ["--env-param", "players=3", "--seats", "heuristic,random,heuristic", "--episodes", "10"],
    "galaxy-fighters-v1": ["--env-param", "players=3", "--env-param", "max_turns=30", "--agent", "heuristic",
                           "--episodes", "8"],
    "galaxy-fighters-v2": ["--env-param", "players=3", "--env-param", "max_turns=30", "--seats",
                           "heuristic,random,heuristic", "--episodes", "8"],
}


@pytest.fixture(scope="module")
def multiplayer(server_bin: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("mp")
    out = {}
    for env_id, args in MULTIPLAYER.items():
        d = root / env_id
        subprocess.run([server_bin, "generate", "--env", env_id, *args, "--seed", "6", "--workers", "1",
                        "--episodes-per-part", "5", "--out", str(d)], check=True, capture_output=True)
        out[env_id] = d
    return out


@pytest.mark.parametrize("env_id", sorted(MULTIPLAYER))
def test_per_player_transitions(multiplayer, env_id):
    """Each player's transitions go from one of its decisions to its next: their
    rewards rebuild every player's return of the episodes table, every player's
    last transition (and only it) is done with the episode's flags, and
    next_obs/next_mask are the player's own next decision's (or its final view)."""
    ds = gd.load(multiplayer[env_id])
    n = ds.num_players
    assert n == 3
    t = gd.transitions(ds, per_player=True)
    assert len(t) == ds.manifest["total_steps"]
    start, end = gd.episode_spans(ds)
    returns = np.array(ds.episodes["returns"].to_pylist())
    assert returns.shape == (len(start), n) and np.abs(returns).sum() > 0
    rows = np.flatnonzero(ds.action >= 0)  # transition k is row rows[k]
    for e, (s, f) in enumerate(zip(start.tolist(), end.tolist())):
        final = f - 1
        term, trunc = bool(ds.terminated[final - 1]), bool(ds.truncated[final - 1])
        assert term or trunc
        for p in range(n):
            k = np.flatnonzero((t.episode_id == ds.episode_id[s]) & (t.player == p))
            assert len(k) > 0, f"player {p} never decided in episode {e}"
            # the return, rebuilt from the player's rewards
            assert t.reward[k].sum(dtype=np.float64) == pytest.approx(returns[e, p], abs=1e-3)
            done = t.terminated[k] | t.truncated[k]
            assert done[-1] and not done[:-1].any()
            assert t.terminated[k[-1]] == term and t.truncated[k[-1]] == trunc
            own = rows[k]  # the player's decision rows, in order
            assert (ds.player[own] == p).all()
            np.testing.assert_array_equal(t.next_obs[k[:-1]], ds.obs[own[1:]])
            np.testing.assert_array_equal(t.next_mask[k[:-1]], ds.action_mask[own[1:]])
            assert not t.next_mask[k[-1]].any()
            # rewards between two decisions: the sum of the rows in between
            for a, b, kk in zip(own[:-1].tolist(), own[1:].tolist(), k[:-1].tolist()):
                assert t.reward[kk] == pytest.approx(ds.rewards[(s if kk == k[0] else a):b, p].sum(), abs=1e-4)
            if ds.player[final] == p:
                assert not t.stale_next_obs[k[-1]]
                np.testing.assert_array_equal(t.next_obs[k[-1]], ds.obs[final])
            else:
                assert t.stale_next_obs[k[-1]]
                np.testing.assert_array_equal(t.next_obs[k[-1]], t.obs[k[-1]])
    assert t.stale_next_obs.sum() == len(start) * (n - 1)
    # The per-player episodes (what to_minari writes per seat) carry the same returns.
    for p in range(n):
        eps = gd.player_episodes(ds, p)
        assert len(eps) == len(start)
        for e, pe in enumerate(eps):
            assert len(pe.observations) == len(pe.actions) + 1 == len(pe.action_mask)
            assert pe.rewards.sum() == pytest.approx(returns[e, p], abs=1e-3)
            assert pe.terminations[-1] or pe.truncations[-1]
    assert gd.seat_dataset_id("galaxygym/express-heuristic-v0", 2) == "galaxygym/express-heuristic-p2-v0"


def test_transitions_of_one_player_are_unchanged_by_per_player(made):
    a, b = gd.transitions(made["ge"]), gd.transitions(made["ge"], per_player=True)
    for name in ("obs", "action", "reward", "next_obs", "terminated", "truncated", "mask", "next_mask"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_split_encoding_loads_the_same_way(made):
    ds = gd.load(made["ge-split"])
    assert ds.manifest["obs_encoding"] == "BYTE_STREAM_SPLIT" and ds.obs.shape[1] == 503
    assert ds.obs.any()


def test_torch_dataset(made):
    torch = pytest.importorskip("torch")
    td = gd.torch_dataset(made["ge"])
    item = td[3]
    assert item["obs"].dtype == torch.uint8 and item["obs"].shape == (503,)
    batch = next(iter(torch.utils.data.DataLoader(td, batch_size=32, shuffle=True)))
    assert batch["next_obs"].shape == (32, 503) and batch["action"].dtype == torch.int32


def test_duckdb_and_polars_read_every_column_by_default(made):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    ds = gd.load(made["ge"])
    steps = str(made["ge"] / "steps" / "*.parquet")
    episodes = str(made["ge"] / "episodes" / "*.parquet")
    rows = duckdb.sql(f"SELECT * FROM read_parquet('{steps}') ORDER BY episode_id, step").fetchall()
    assert len(rows) == len(ds) and bytes(rows[5][3]) == ds.obs[5].tobytes()
    assert len(duckdb.sql(f"SELECT * FROM read_parquet('{episodes}')").fetchall()) == 120
    df = pl.read_parquet(steps).sort(["episode_id", "step"])
    assert df.height == len(ds) and df["obs"][5] == ds.obs[5].tobytes()
    assert df["rewards"][0].to_list() == ds.rewards[0].tolist()
    assert pl.read_parquet(episodes).height == 120
