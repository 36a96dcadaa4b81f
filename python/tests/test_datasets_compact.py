"""Compact datasets (``generate --observations none``, issue 37): ``load``
derives the observations and masks by replaying the episodes in the binary
and gives the arrays of the full dataset, for every game; datasets this
build cannot replay are refused with galaxygym.errors.DeriveError."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import galaxygym.datasets as gd
from galaxygym.errors import DeriveError

pytest.importorskip("pyarrow")

# Every game of the binary: heuristic in every seat, mixed seats for two.
GAMES = {
    "galaxy-express-v1": ["--agent", "heuristic", "--episodes", "40", "--episodes-per-part", "15"],
    "express-v1": ["--env-param", "players=3", "--seats", "heuristic,random,heuristic", "--episodes", "4"],
    "express-v2": ["--agent", "heuristic", "--episodes", "3"],
    "pilots-of-gallaxia-v1": ["--env-param", "players=3", "--agent", "heuristic", "--episodes", "4"],
    "pilots-of-gallaxia-v2": ["--agent", "heuristic", "--episodes", "3"],
    "galaxy-fighters-v1": ["--env-param", "players=3", "--env-param", "max_turns=30", "--agent", "heuristic",
                           "--episodes", "4"],
    "galaxy-fighters-v2": ["--env-param", "players=3", "--seats", "heuristic,random,heuristic", "--episodes", "4"],
}


def _generate(server_bin: str, out: Path, env_id: str, *extra: str) -> Path:
    subprocess.run([server_bin, "generate", "--env", env_id, *GAMES[env_id], "--seed", "9", "--workers", "2",
                    "--episodes-per-part", GAMES[env_id][GAMES[env_id].index("--episodes-per-part") + 1]
                    if "--episodes-per-part" in GAMES[env_id] else "2", *extra, "--out", str(out)],
                   check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def pairs(server_bin: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("compact")
    out = {}
    for env_id in GAMES:
        full = _generate(server_bin, root / f"{env_id}-full", env_id)
        compact = _generate(server_bin, root / f"{env_id}-compact", env_id, "--observations", "none")
        out[env_id] = (full, compact)
    return out


COLUMNS = ("episode_id", "step", "player", "obs", "action_mask", "action", "reward", "rewards", "terminated",
           "truncated")
TRANSITIONS = ("obs", "action", "reward", "next_obs", "terminated", "truncated", "mask", "next_mask", "episode_id",
               "player", "stale_next_obs")


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_load_compact_equals_load_full(pairs, env_id, server_bin, monkeypatch):
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    full_dir, compact_dir = pairs[env_id]
    full, compact = gd.load(full_dir), gd.load(compact_dir)
    assert compact.manifest["observations"] == "none" and "observations" not in full.manifest
    assert compact.manifest["derive"]["env_id"] == env_id
    for name in COLUMNS:
        a, b = getattr(full, name), getattr(compact, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert full.episodes.equals(compact.episodes)
    for per_player in (False, True) if full.num_players > 1 else (False,):
        ta, tb = gd.transitions(full, per_player=per_player), gd.transitions(compact, per_player=per_player)
        for name in TRANSITIONS:
            np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=f"{name} {per_player}")
    # obs=False skips the observations, not the masks.
    light = gd.load(compact_dir, obs=False)
    assert light.obs.shape == (len(full), 0)
    np.testing.assert_array_equal(light.action_mask, full.action_mask)


def test_materialize_is_the_full_dataset(pairs, server_bin, tmp_path):
    """The binary's materialize writes the files generate writes with stored
    observations, byte for byte (the manifest's created_by names its own
    --out); every reader then reads observations from it."""
    full_dir, compact_dir = pairs["express-v1"]
    out = tmp_path / "m"
    subprocess.run([server_bin, "dataset", "materialize", str(compact_dir), str(out)], check=True, capture_output=True)
    for f in sorted(p for p in full_dir.rglob("*") if p.is_file()):
        rel = f.relative_to(full_dir)
        if rel.name == "manifest.json":
            a, b = json.loads(f.read_text()), json.loads((out / rel).read_text())
            assert a.pop("created_by").replace(str(full_dir), str(out)) == b.pop("created_by")
            assert a == b
        else:
            assert f.read_bytes() == (out / rel).read_bytes(), rel


def _edit_manifest(d: Path, edit) -> None:
    m = json.loads((d / "manifest.json").read_text())
    edit(m)
    (d / "manifest.json").write_text(json.dumps(m))


def _set_default(m: dict, name: str, value) -> None:
    for p in m["env_spec"]["params"]:
        if p["name"] == name:
            p["default"] = value


def _illegal_action(full_dir: Path, compact_dir: Path) -> None:
    """Rewrites part 0 of the compact dataset with row 2's action one the
    full dataset's mask says is illegal there."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    full = gd.load(full_dir)
    bad = int(np.flatnonzero(full.action_mask[2] == 0)[0])
    path = compact_dir / "steps" / "part-00000.parquet"
    t = pq.read_table(path)
    action = t["action"].to_numpy().copy()
    action[2] = bad
    i = t.schema.get_field_index("action")
    t = t.set_column(i, t.schema.field(i), pa.array(action, pa.int32()))
    pq.write_table(t, path)


@pytest.mark.parametrize("case,field", [
    ("env version", "env_id"),
    ("unknown parameter", "env_params"),
    ("changed default", "env_spec.params"),
    ("illegal action", "action"),
])
def test_refusals(pairs, server_bin, monkeypatch, tmp_path, case, field):
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    full_dir, src = pairs["galaxy-express-v1"]
    d = tmp_path / "c"
    shutil.copytree(src, d)
    if case == "env version":
        _edit_manifest(d, lambda m: m.update(env_id="galaxy-express-v9"))
    elif case == "unknown parameter":
        _edit_manifest(d, lambda m: m["env_params"].update(warp_drive=True))
    elif case == "changed default":
        _edit_manifest(d, lambda m: _set_default(m, "max_turns", 150))
    else:
        _illegal_action(full_dir, d)
    with pytest.raises(DeriveError) as e:
        gd.load(d)
    assert e.value.field == field and str(d) in str(e.value)
    if case == "illegal action":
        assert (e.value.episode, e.value.step) == (0, 2)
    r = subprocess.run([server_bin, "dataset", "materialize", str(d), str(tmp_path / "m")], capture_output=True,
                       text=True)
    assert r.returncode != 0 and "cannot derive the observations" in r.stderr
    assert not (tmp_path / "m" / "manifest.json").exists()


@pytest.mark.parametrize("env_id", ["galaxy-express-v1", "pilots-of-gallaxia-v1"])
def test_derive_pipe_equals_into(pairs, env_id, server_bin, monkeypatch):
    """The binary writes the rows straight into the arrays (Linux); the
    pipe it streams them through elsewhere gives the same arrays, with and
    without observations."""
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    full = gd.load(pairs[env_id][0])
    flat = full.obs.reshape(len(full), -1)
    for obs in (True, False):
        monkeypatch.setattr(gd, "_INTO_PROCESS", False)
        o, m = gd.derive(pairs[env_id][1], obs=obs, workers=2)
        monkeypatch.setattr(gd, "_INTO_PROCESS", True)
        o2, m2 = gd.derive(pairs[env_id][1], obs=obs, workers=3)
        for a in (m, m2):
            np.testing.assert_array_equal(a, full.action_mask)
        for a in (o, o2):
            np.testing.assert_array_equal(a, flat if obs else flat[:, :0])


def test_derive_falls_back_to_the_pipe(pairs, server_bin, tmp_path, monkeypatch):
    """Where the system refuses process_vm_writev the binary says so and
    derive reads the pipe instead (a stand-in binary whose derive server
    and --into-pid both answer that)."""
    refused = "dataset derive: --into-pid: process_vm_writev refused (operation not permitted)"
    fake = _stand_in(tmp_path, server_bin, f"*--serve*) while read line; do echo '{{\"error\": \"{refused}\", "
                     f"\"refused\": true}}'; done; exit 0;; *--into-pid*) echo '{refused}' >&2; exit 1;;")
    piped = []
    monkeypatch.setattr(gd, "_derive_pipe", lambda *a: piped.append(1) or _derive_pipe(*a))
    _derives_as_full(pairs["express-v1"], fake)
    assert piped, "the pipe was not read"


_derive_pipe = gd._derive_pipe


def _stand_in(tmp_path, server_bin: str, case: str) -> str:
    """A galaxygym binary that does what the shell case pattern case says
    for its arguments and runs the real one otherwise."""
    fake = tmp_path / "galaxygym"
    fake.write_text(f"#!/bin/sh\ncase \"$*\" in {case} esac\nexec {server_bin} \"$@\"\n")
    fake.chmod(0o755)
    return str(fake)


def _derives_as_full(pair, binary: str) -> None:
    """gd.derive of pair's compact dataset with binary gives its full one's arrays."""
    full = gd.load(pair[0])
    o, m = gd.derive(pair[1], binary=binary)
    np.testing.assert_array_equal(o, full.obs.reshape(len(full), -1))
    np.testing.assert_array_equal(m, full.action_mask)


def test_derive_into_refuses_other_arrays(pairs, server_bin):
    """Arrays of another size than the dataset's are refused before the
    binary writes anything into them."""
    import os

    small = np.full(20, 7, np.uint8)
    at = small.ctypes.data
    r = subprocess.run([server_bin, "dataset", "derive", str(pairs["express-v1"][1]), "--into-pid", str(os.getpid()),
                        "--into-obs", f"{at}:10", "--into-masks", f"{at + 10}:10"], capture_output=True, text=True)
    assert r.returncode != 0 and "the reader's arrays hold 10 and 10 bytes" in r.stderr
    assert (small == 7).all()


def test_rows_array_comes_from_the_arrow_pool() -> None:
    # The derived rows' arrays come from pyarrow's pool (reused between
    # loads, as the stored observations' buffers are), writable, the shape asked.
    import pyarrow as pa

    before = pa.total_allocated_bytes()
    a = gd._rows_array(1000, 7)
    assert a.shape == (1000, 7) and a.dtype == np.uint8 and a.flags.writeable
    assert pa.total_allocated_bytes() >= before + 7000
    a[:] = 3
    assert int(a.sum()) == 21000
    assert gd._rows_array(0, 7).shape == (0, 7)


def test_derive_server_serves_every_load(pairs, server_bin, monkeypatch):
    """Loads of compact datasets are derived by one server process (a
    child of this one, started on first use), each load's arrays equal to
    the full dataset's; a server that was killed is replaced at the next
    load."""
    import os
    import signal

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    gd._close_servers()
    full = {g: gd.load(pairs[g][0]) for g in ("express-v1", "galaxy-express-v1")}
    pids = []
    for g in ("express-v1", "galaxy-express-v1", "express-v1"):
        ds = gd.load(pairs[g][1])
        np.testing.assert_array_equal(ds.obs, full[g].obs)
        np.testing.assert_array_equal(ds.action_mask, full[g].action_mask)
        pids.append(gd._SERVERS[server_bin].proc.pid)
    assert len(set(pids)) == 1
    os.kill(pids[0], signal.SIGKILL)
    gd._SERVERS[server_bin].proc.wait()
    ds = gd.load(pairs["express-v1"][1])
    np.testing.assert_array_equal(ds.obs, full["express-v1"].obs)
    assert gd._SERVERS[server_bin].proc.pid != pids[0]
    gd._close_servers()
    assert not gd._SERVERS


def test_derive_server_dying_mid_load(pairs, server_bin, tmp_path):
    """A server that exits while it derives (a stand-in that reads the
    request and quits) costs nothing but time: the load derives in a
    process of its own and gives the full dataset's arrays."""
    fake = _stand_in(tmp_path, server_bin, "*--serve*) read line; exit 3;;")
    _derives_as_full(pairs["pilots-of-gallaxia-v1"], fake)
    assert fake not in gd._SERVERS


def test_derive_server_stopped_by_an_interrupted_load(pairs, server_bin):
    """A load interrupted while the server writes into its arrays stops
    the server before the arrays can be freed; the next load starts
    another."""
    gd._close_servers()
    m = gd._manifest(pairs["express-v1"][1])

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        gd._derive(str(pairs["express-v1"][1]), m, None, True, None, server_bin, interrupted)
    assert server_bin not in gd._SERVERS
    o, _ = gd.derive(pairs["express-v1"][1], binary=server_bin)
    assert o.shape[0] == int(m["total_steps"]) + int(m["total_episodes"])
    assert gd._SERVERS[server_bin].alive()
    gd._close_servers()


def test_derive_server_reads_relative_paths_from_the_callers_directory(pairs, server_bin, monkeypatch, tmp_path):
    """A relative path means the same dataset to the derive server as to
    the caller: after os.chdir, a later load of "data/x" reads the new
    directory's data/x, not the one below the directory the server started
    in (it did, and the docs' tests failed when another test had started
    the server elsewhere)."""
    import shutil

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    gd._close_servers()
    for name, game in (("a", "express-v1"), ("b", "galaxy-express-v1")):
        shutil.copytree(pairs[game][1], tmp_path / name / "data" / "x")
    monkeypatch.chdir(tmp_path / "a")
    first = gd.load("data/x")
    assert gd._SERVERS[server_bin].alive()
    monkeypatch.chdir(tmp_path / "b")
    second = gd.load("data/x")
    np.testing.assert_array_equal(second.obs, gd.load(pairs["galaxy-express-v1"][0]).obs)
    assert first.obs.shape != second.obs.shape
    gd._close_servers()


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_hidden_part_of_every_game(pairs, env_id, server_bin):
    """``hidden`` replays any dataset, compact or full, and gives every row
    its player's hidden part: the same bytes for both, within the bounds,
    the layout tiling them."""
    full, compact = pairs[env_id]
    a, b = gd.hidden(full, binary=server_bin), gd.hidden(compact, binary=server_bin, workers=1)
    d = gd.load(full)
    assert a.array.shape == (len(d.action), a.high.shape[0]) and a.array.dtype == np.uint8
    assert np.array_equal(a.array, b.array) and a.layout == b.layout
    assert sum(int(np.prod(f["shape"])) for f in a.layout.values()) == a.array.shape[1]
    assert (a.array <= a.high).all()
    assert a.array.any(), "every hidden byte is 0"
    for name in a.layout:
        assert a.field(name).shape == (len(a.array), *a.layout[name]["shape"])


def test_hidden_part_orders_the_face_down_coins(pairs, server_bin):
    """Galaxy Express: the hidden part orders exactly the coins the
    observation says are face down, and names the number of every
    unscanned planet."""
    full, _ = pairs["galaxy-express-v1"]
    h, d = gd.hidden(full, binary=server_bin), gd.load(full)
    lay = json.loads(subprocess.run([server_bin, "envs", "--json"], check=True, capture_output=True,
                                    text=True).stdout)
    obs_layout = next(s for s in lay if s["id"] == "galaxy-express-v1")["observation_layout"]

    def obs_field(name: str) -> np.ndarray:
        f = obs_layout[name]
        n = int(np.prod(f["shape"]))
        return d.obs[:, f["offset"]:f["offset"] + n].reshape(len(d.obs), *f["shape"])

    down, order = obs_field("down"), h.field("face_down")  # (R, 2, 6) flags, (R, 2, 6) value+1 codes
    for r in range(0, len(order), 7):
        for suit in range(2):
            coded = sorted(int(c) - 1 for c in order[r, suit] if c)
            assert coded == [v for v in range(6) if down[r, suit, v]], (r, suit)
    unscanned, numbers = obs_field("unscanned"), h.field("unscanned_number")
    assert np.array_equal(unscanned.astype(bool), numbers > 0)
