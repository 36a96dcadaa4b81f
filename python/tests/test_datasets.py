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


def test_per_player_transitions(made):
    ds = gd.load(made["gf"])
    assert ds.num_players == 3 and ds.rewards.shape[1] == 3
    t = gd.transitions(ds, per_player=True)
    # Each transition's successor is the same player's next row in the episode,
    # or the episode's final row.
    order = np.lexsort((ds.step, ds.player, ds.episode_id))
    assert len(t) == ds.manifest["total_steps"]
    for k in range(0, len(t), max(1, len(t) // 50)):
        e, p = t.episode_id[k], t.player[k]
        rows = order[(ds.episode_id[order] == e) & (ds.player[order] == p)]
        obs_rows = [r for r in rows if np.array_equal(ds.obs[r], t.obs[k]) and ds.action[r] == t.action[k]]
        assert obs_rows
        later = rows[rows > obs_rows[0]]
        want = later[0] if len(later) else np.flatnonzero(ds.episode_id == e)[-1]
        np.testing.assert_array_equal(t.next_obs[k], ds.obs[want])


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
