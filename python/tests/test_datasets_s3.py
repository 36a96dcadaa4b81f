"""Reading a dataset back from a bucket (docs/scaling.md): ``galaxygym
generate --out s3://...`` into moto's S3 server, started on loopback by the
test, then ``galaxygym.datasets.load("s3://...")``, pyarrow, polars and
DuckDB straight from the bucket, against the same run written locally.

moto's server (``moto[s3]``, flask, flask-cors: the test extra) is skipped
without it; the DuckDB test needs DuckDB's httpfs extension for the
installed DuckDB (see test_duckdb_reads_the_bucket)."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import galaxygym.datasets as gd

moto_server = pytest.importorskip("moto.server", reason="moto[s3] with flask and flask-cors (the test extra)")
boto3 = pytest.importorskip("boto3")

GEN = ["--env", "galaxy-express-v1", "--agent", "heuristic", "--episodes", "60", "--episodes-per-part", "25",
       "--seed", "4", "--workers", "1"]
KEY = "testing"


@pytest.fixture(scope="module")
def s3(server_bin: str, tmp_path_factory: pytest.TempPathFactory):
    """moto's S3 server on 127.0.0.1 (a free port), a bucket ``data`` with
    the run written by generate under ``ge/``, the same run in a local
    directory, and the environment a client needs (as a dict, and set in
    os.environ for the module's tests)."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one log line per request otherwise
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {"AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": KEY, "AWS_REGION": "us-east-1",
           "AWS_ENDPOINT_URL": f"http://{host}:{port}",
           # moto returns no response checksums; the Go SDK would log each read
           "AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required"}
    saved = {k: os.environ.get(k) for k in [*env, "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_SESSION_TOKEN"]}
    for k in ("AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        os.environ.pop(k, None)
    os.environ.update(env)
    try:
        boto3.client("s3", endpoint_url=env["AWS_ENDPOINT_URL"]).create_bucket(Bucket="data")
        local = tmp_path_factory.mktemp("s3ds") / "ge"
        for out in ("s3://data/ge?use_path_style=true", str(local)):
            r = subprocess.run([server_bin, "generate", *GEN, "--out", out], env={**os.environ, **env},
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
        yield {"env": env, "host": host, "port": port, "local": local}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        server.stop()


def _assert_same(a: gd.Dataset, b: gd.Dataset) -> None:
    # The manifests differ only in the command line (its --out).
    assert {k: v for k, v in a.manifest.items() if k != "created_by"} == \
        {k: v for k, v in b.manifest.items() if k != "created_by"}
    for name in ("episode_id", "step", "player", "obs", "action_mask", "action", "reward", "rewards",
                 "terminated", "truncated"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.episodes.equals(b.episodes)


def test_load_from_the_bucket_equals_the_local_run(s3):
    remote = gd.load("s3://data/ge")
    local = gd.load(s3["local"])
    assert remote.path == "s3://data/ge" and len(remote.manifest["parts"]) == 3
    assert len(remote) == remote.manifest["total_steps"] + remote.manifest["total_episodes"]
    _assert_same(remote, local)
    # The part files are the same bytes too (generate's promise, checked here
    # through pyarrow's S3 filesystem).
    import pyarrow.fs as pafs
    fs = gd._s3_filesystem("s3://data/ge")[0]
    for p in remote.manifest["parts"]:
        with fs.open_input_stream(f"data/ge/{p['steps']['path']}") as fh:
            assert fh.read() == (s3["local"] / p["steps"]["path"]).read_bytes()
    assert isinstance(fs, pafs.S3FileSystem)


def test_load_takes_the_endpoint_from_the_url(s3, monkeypatch):
    """The URL generate was given (``?endpoint=...&use_path_style=true``)
    reads back without AWS_ENDPOINT_URL; obs=False skips the observations."""
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    url = f"s3://data/ge/?endpoint=http://{s3['host']}:{s3['port']}&use_path_style=true&region=us-east-1"
    d = gd.load(url, obs=False)
    assert d.obs.shape == (len(d), 0)
    np.testing.assert_array_equal(d.action, gd.load(s3["local"], obs=False).action)
    # transitions() works on it like on a local dataset
    t = gd.transitions(d)
    assert len(t) == d.manifest["total_steps"]


def test_load_with_a_given_pyarrow_filesystem(s3):
    import pyarrow.fs as pafs
    fs = pafs.S3FileSystem(endpoint_override=f"{s3['host']}:{s3['port']}", scheme="http",
                           access_key=KEY, secret_key=KEY, region="us-east-1")
    _assert_same(gd.load("data/ge", filesystem=fs), gd.load(s3["local"]))


def test_load_with_an_fsspec_filesystem(s3):
    s3fs = pytest.importorskip("s3fs", reason="s3fs (fsspec) not installed")
    fs = s3fs.S3FileSystem(key=KEY, secret=KEY, endpoint_url=s3["env"]["AWS_ENDPOINT_URL"])
    _assert_same(gd.load("s3://data/ge", filesystem=fs), gd.load(s3["local"]))


def test_load_with_fsspec_memory_filesystem(s3):
    """Any fsspec filesystem goes through pyarrow's FSSpecHandler: the run
    copied into fsspec's in-memory filesystem loads the same."""
    fsspec = pytest.importorskip("fsspec")
    mem = fsspec.filesystem("memory")
    for f in sorted(s3["local"].rglob("*")):
        if f.is_file():
            mem.pipe(f"/ge-copy/{f.relative_to(s3['local']).as_posix()}", f.read_bytes())
    try:
        _assert_same(gd.load("memory://ge-copy", filesystem=mem), gd.load(s3["local"]))
    finally:
        mem.rm("/ge-copy", recursive=True)


def test_load_errors(s3):
    # An unfinished (or unmerged sharded) run has no manifest.json.
    with pytest.raises(FileNotFoundError, match="manifest.json not found"):
        gd.load("s3://data/nothing-here")
    # A bucket that does not exist: pyarrow's OSError names it.
    with pytest.raises(OSError, match="no-such-bucket"):
        gd.load("s3://no-such-bucket/ge")
    with pytest.raises(ValueError, match="unknown query parameter"):
        gd.load("s3://data/ge?endpoint_url=http://x")


def test_polars_reads_the_bucket(s3):
    pl = pytest.importorskip("polars")
    opts = {"aws_endpoint_url": s3["env"]["AWS_ENDPOINT_URL"], "aws_allow_http": "true",
            "aws_region": "us-east-1", "aws_access_key_id": KEY, "aws_secret_access_key": KEY}
    df = (pl.scan_parquet("s3://data/ge/steps/*.parquet", storage_options=opts)
          .select(pl.len(), pl.col("reward").sum()).collect())
    local = gd.load(s3["local"], obs=False)
    assert df.item(0, 0) == len(local)
    assert df.item(0, 1) == pytest.approx(float(local.reward.sum()))


def _duckdb_httpfs(con) -> str | None:
    """Loads httpfs into con: already installed (DuckDB's own INSTALL, which
    downloads from DuckDB's site), or from the PyPI package
    duckdb-ext-httpfs (duckdb_ext/extensions/v<version>/<platform>/, made
    for one DuckDB version). Returns why not, or None when loaded."""
    import duckdb
    try:
        con.execute("LOAD httpfs")
        return None
    except duckdb.Error as e:
        why = str(e).splitlines()[0]
    try:
        import duckdb_ext
    except ImportError:
        return f"no httpfs for DuckDB {duckdb.__version__} ({why}); pip install duckdb-ext-httpfs (DuckDB 1.4.x)"
    root = Path(list(duckdb_ext.__path__)[0]) / "extensions"
    if not (root / f"v{duckdb.__version__}").is_dir():
        have = sorted(p.name for p in root.iterdir()) if root.is_dir() else []
        return f"duckdb-ext-httpfs has {have}, not DuckDB v{duckdb.__version__}"
    con.execute("SET extension_directory = ?", [str(root)])
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("LOAD httpfs")
    return None


def test_duckdb_reads_the_bucket(s3):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    why = _duckdb_httpfs(con)
    if why:
        pytest.skip(why)
    con.execute(f"CREATE SECRET (TYPE s3, KEY_ID '{KEY}', SECRET '{KEY}', ENDPOINT '{s3['host']}:{s3['port']}', "
                "URL_STYLE 'path', USE_SSL false, REGION 'us-east-1')")
    n, total, eps = con.sql("SELECT count(*), sum(reward), count(DISTINCT episode_id) "
                            "FROM read_parquet('s3://data/ge/steps/*.parquet')").fetchone()
    local = gd.load(s3["local"], obs=False)
    assert n == len(local) and eps == 60
    assert total == pytest.approx(float(local.reward.sum()))
