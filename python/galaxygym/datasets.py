"""Datasets written by ``galaxygym generate`` (docs/datasets.md), in numpy.

>>> import galaxygym.datasets as gd                                # doctest: +SKIP
>>> ds = gd.load("datasets/out/galaxy-express-v1-heuristic")       # doctest: +SKIP
>>> ds.obs.shape, ds.obs.dtype                                     # doctest: +SKIP
((33993745, 503), dtype('uint8'))
>>> t = gd.transitions(ds)                                         # doctest: +SKIP
>>> t.obs.shape, t.next_obs.shape                                  # doctest: +SKIP

:func:`load` reads every part of the steps table (pyarrow; PLAIN and
BYTE_STREAM_SPLIT observations alike) into column arrays with no per-row
Python code: the observations are one ``np.frombuffer`` of the column's
fixed-size binary data. :func:`transitions` pairs each step row with the
next one, :func:`torch_dataset` wraps transitions as a
``torch.utils.data.Dataset`` and :func:`to_minari` writes a Minari dataset
whose ``recover_environment()`` makes the galaxygym environment.

:func:`load` also reads a dataset straight from object storage, the URL
that ``galaxygym generate --out`` wrote to (docs/scaling.md): ``s3://`` with
the AWS SDK's usual credentials and ``AWS_ENDPOINT_URL`` for an
S3-compatible service, ``gs://``, or any ``filesystem=`` (pyarrow or fsspec).

pyarrow is the one dependency (``pip install galaxygym[datasets]``);
torch and minari are imported only by the functions that need them.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    import pyarrow.fs as pafs

__all__ = ["Dataset", "Transitions", "HiddenPart", "load", "derive", "hidden", "transitions", "torch_dataset", "to_minari", "episode_spans",
           "player_episodes", "seat_dataset_id"]


@dataclass
class Dataset:
    """A loaded dataset: one array per steps-table column, rows in episode
    then step order (R rows; an episode of T steps has T+1 rows, the last
    one holding the final observation with ``action == -1``).

    Attributes:
        path: the dataset directory, or its URL (a str) when it was read
            from object storage.
        manifest: manifest.json as a dict (env spec, agent, seed, stats).
        episode_id: int64 (R,). step: int32 (R,). player: int32 (R,), the
            player whose view ``obs`` is.
        obs: uint8 (R, *obs_shape). action_mask: uint8 (R, A), 1 = legal.
        action: int32 (R,), -1 on final rows. reward: float32 (R,), the
            acting player's. rewards: float32 (R, P), every player's.
        terminated, truncated: bool (R,), set on an episode's last
            transition row.
        episodes: the episodes table (a pyarrow Table: episode_id, seed,
            agent, length, returns, outcome, info, ...).
        search_policy: float32 (R, A) in a dataset generated with
            ``--record-search`` (manifest ``search: visits``): the search's
            visit fractions at each decision (0 off the legal mask; 1 on the
            action played where the seat did not search; zeros on final
            rows); None otherwise.
        search_value: float32 (R,), the search's root value for the acting
            seat (its mean return from the decision on, in reward units;
            NaN unsearched and on final rows); None without the columns.
    """

    path: Path | str
    manifest: dict[str, Any]
    episode_id: NDArray[Any]
    step: NDArray[Any]
    player: NDArray[Any]
    obs: NDArray[Any]
    action_mask: NDArray[Any]
    action: NDArray[Any]
    reward: NDArray[Any]
    rewards: NDArray[Any]
    terminated: NDArray[Any]
    truncated: NDArray[Any]
    episodes: "pa.Table" = field(repr=False)
    search_policy: NDArray[Any] | None = field(default=None, repr=False)
    search_value: NDArray[Any] | None = field(default=None, repr=False)

    @property
    def env_id(self) -> str:
        return str(self.manifest["env_id"])

    @property
    def env_params(self) -> dict[str, Any]:
        return dict(self.manifest.get("env_params") or {})

    @property
    def obs_shape(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self.manifest["env_spec"]["obs_shape"])

    @property
    def num_players(self) -> int:
        return int(self.manifest["num_players"])

    def __len__(self) -> int:
        return len(self.action)


@dataclass
class Transitions:
    """(s, a, r, s', done) arrays of the transition rows (``action >= 0``),
    M of them: ``obs``/``next_obs`` uint8 (M, *obs_shape), ``action`` int32,
    ``reward`` float32, ``terminated``/``truncated`` bool, ``mask`` and
    ``next_mask`` uint8 (M, A) (``next_mask`` is all 0 after the last step),
    ``episode_id`` int64 and ``player`` int32 (M,).

    ``stale_next_obs`` bool (M,) is set only by ``transitions(per_player=True)``
    on a player's last transition of an episode when the dataset holds no view
    of that player after it (the final row is the last mover's view only):
    ``next_obs`` then repeats the transition's own ``obs`` rather than show
    another player's view. It is always False otherwise."""

    obs: NDArray[Any]
    action: NDArray[Any]
    reward: NDArray[Any]
    next_obs: NDArray[Any]
    terminated: NDArray[Any]
    truncated: NDArray[Any]
    mask: NDArray[Any]
    next_mask: NDArray[Any]
    episode_id: NDArray[Any]
    player: NDArray[Any]
    stale_next_obs: NDArray[Any] = field(default_factory=lambda: np.zeros(0, np.bool_))

    def __len__(self) -> int:
        return len(self.action)


def _fixed_binary(col: "pa.ChunkedArray", width: int) -> NDArray[Any]:
    """(rows, width) uint8 view of a FIXED_LEN_BYTE_ARRAY column."""
    arr = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    data = np.frombuffer(arr.buffers()[1], np.uint8)
    start = arr.offset * width
    return data[start:start + len(arr) * width].reshape(len(arr), width)


def _manifest(path: Path) -> dict[str, Any]:
    f = path / "manifest.json"
    if not f.is_file():
        raise FileNotFoundError(f"galaxygym.datasets: {f} not found (not a finished galaxygym generate output?)")
    return dict(json.loads(f.read_text()))


def _is_url(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a URL (``scheme://...``) rather than a local path."""
    return isinstance(path, str) and "://" in path


def _s3_filesystem(url: str) -> tuple["pafs.FileSystem", str]:
    """A pyarrow S3FileSystem for an ``s3://bucket/prefix`` URL and the
    ``bucket/prefix`` path in it.

    The endpoint and region come from the URL's query, the one ``galaxygym
    generate --out`` takes (``?endpoint=http://host:9000&region=...``;
    ``use_path_style`` is accepted, pyarrow always uses path-style requests
    on a custom endpoint), else from ``AWS_ENDPOINT_URL_S3`` or
    ``AWS_ENDPOINT_URL`` and ``AWS_REGION`` or ``AWS_DEFAULT_REGION`` (which
    pyarrow does not read by itself). Credentials are the AWS SDK's usual
    chain inside pyarrow: ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``
    (and ``AWS_SESSION_TOKEN``), ``AWS_PROFILE``, an instance or pod role."""
    import pyarrow.fs as pafs

    u = urlsplit(url)
    q = {k: v[-1] for k, v in parse_qs(u.query).items()}
    unknown = set(q) - {"endpoint", "region", "use_path_style", "profile"}
    if unknown:
        raise ValueError(f"galaxygym.datasets: unknown query parameter(s) {sorted(unknown)} in {url!r} "
                         "(endpoint, region, use_path_style, profile are known)")
    if not u.netloc:
        raise ValueError(f"galaxygym.datasets: no bucket in {url!r} (want s3://bucket/prefix)")
    opts: dict[str, Any] = {}
    endpoint = q.get("endpoint") or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        e = urlsplit(endpoint if "://" in endpoint else "https://" + endpoint)
        opts["endpoint_override"] = e.netloc + e.path.rstrip("/")
        opts["scheme"] = e.scheme
    region = q.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        opts["region"] = region
    if q.get("profile"):
        opts["profile"] = q["profile"]
    root = (u.netloc + "/" + u.path.strip("/")).rstrip("/")
    return pafs.S3FileSystem(**opts), root


def _remote(url: str, filesystem: Any) -> tuple["pafs.FileSystem", str]:
    """(pyarrow filesystem, root path in it) for a dataset URL, or for a
    path in a given pyarrow or fsspec filesystem."""
    import pyarrow.fs as pafs

    if filesystem is not None:
        fs = filesystem if isinstance(filesystem, pafs.FileSystem) else pafs.PyFileSystem(pafs.FSSpecHandler(filesystem))
        u = urlsplit(url)
        root = (u.netloc + u.path) if "://" in url else url
        return fs, root.rstrip("/")
    if urlsplit(url).scheme == "s3":
        return _s3_filesystem(url)
    fs, root = pafs.FileSystem.from_uri(url)  # gs://, file://, hdfs:// ...
    return fs, root.rstrip("/")


def _remote_manifest(fs: "pafs.FileSystem", root: str, url: str) -> dict[str, Any]:
    import pyarrow.fs as pafs

    key = f"{root}/manifest.json"
    if fs.get_file_info(key).type != pafs.FileType.File:
        raise FileNotFoundError(f"galaxygym.datasets: {url.rstrip('/')}/manifest.json not found "
                                "(not a finished galaxygym generate output? a sharded run needs "
                                "`galaxygym dataset merge` first)")
    with fs.open_input_stream(key) as fh:
        return dict(json.loads(fh.read()))


def load(path: str | os.PathLike[str], *, obs: bool = True, filesystem: Any = None) -> Dataset:
    """Loads a dataset (all its parts, in part order) into numpy arrays;
    ``obs=False`` skips the observation column (an empty (R, 0) array then),
    for statistics over actions and rewards only.

    ``path`` is a local directory or the URL ``galaxygym generate --out``
    wrote to: ``s3://bucket/prefix`` (endpoint and region from the URL's
    ``?endpoint=``/``?region=`` or from ``AWS_ENDPOINT_URL``/``AWS_REGION``,
    credentials from the AWS SDK's usual sources), ``gs://bucket/prefix``,
    ``file:///dir``, anything ``pyarrow.fs.FileSystem.from_uri`` opens. With
    ``filesystem`` (a ``pyarrow.fs.FileSystem`` or an fsspec filesystem such
    as ``s3fs.S3FileSystem``) ``path`` is read in it.

    A compact dataset (``generate --observations none``) gets the same
    arrays as the full one, its observations and masks derived by
    replaying its episodes in the galaxygym binary (:func:`derive`); on
    Linux the first such load starts one ``galaxygym dataset derive
    --serve`` child of this process that serves the later ones too, until
    this process exits. Raises :class:`galaxygym.errors.DeriveError` when
    this build cannot replay it faithfully.

    Raises FileNotFoundError when there is no ``manifest.json`` (an
    unfinished or unmerged run), OSError (pyarrow's) when the bucket cannot
    be read (missing, credentials refused, endpoint unreachable)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    fs: Any = None
    location: Path | str
    if filesystem is not None or _is_url(path):
        url = os.fspath(path)
        fs, base = _remote(url, filesystem)
        m = _remote_manifest(fs, base, url)
        location = url
    else:
        location = Path(path)
        m = _manifest(location)
        base = str(location)
    spec = m["env_spec"]
    obs_shape = tuple(int(d) for d in spec["obs_shape"])
    obs_size = int(np.prod(obs_shape))
    num_actions = len(m["action_names"])
    players = int(m["num_players"])
    compact = m.get("observations") == "none"
    cols = ["episode_id", "step", "player", "action", "reward", "rewards", "terminated", "truncated"]
    search = bool(m.get("search"))
    if search:
        cols += ["search_policy", "search_value"]
    if not compact:
        cols.insert(3, "action_mask")
        if obs:
            cols.append("obs")
    elif filesystem is not None:
        raise ValueError("galaxygym.datasets: a compact dataset (observations: none) is derived by the galaxygym "
                         "binary, which reads directories and bucket URLs, not a Python filesystem=; pass the URL, "
                         "or run `galaxygym dataset materialize IN OUT` and load OUT")
    parts = sorted(m["parts"], key=lambda p: int(p["index"]))

    def read() -> tuple["pa.Table", "pa.Table"]:
        return (pa.concat_tables([pq.read_table(f"{base}/{p['steps']['path']}", columns=cols, filesystem=fs)
                                  for p in parts]),
                pa.concat_tables([pq.read_table(f"{base}/{p['episodes']['path']}", filesystem=fs) for p in parts]))

    if compact:
        # pyarrow reads the stored columns while the binary replays.
        obs_arr, mask_arr, (steps, episodes) = _derive(os.fspath(path), m, None, obs, None, None, read)
        rows = steps.num_rows
        if len(mask_arr) != rows:
            raise RuntimeError(f"galaxygym.datasets: derived {len(mask_arr)} rows of {path}, its steps table has {rows}")
        obs_arr = obs_arr.reshape((rows, *obs_shape)) if obs else obs_arr
    else:
        steps, episodes = read()
        rows = steps.num_rows
        obs_arr = (_fixed_binary(steps["obs"], obs_size).reshape((rows, *obs_shape)) if obs
                   else np.zeros((rows, 0), np.uint8))
        mask_arr = _fixed_binary(steps["action_mask"], num_actions)
    flat_rewards = pc.list_flatten(steps["rewards"]).to_numpy()
    search_policy = search_value = None
    if search:
        search_policy = np.asarray(pc.list_flatten(steps["search_policy"]).to_numpy(),
                                   dtype=np.float32).reshape(rows, num_actions)
        search_value = np.asarray(steps["search_value"].to_numpy(), dtype=np.float32)
    return Dataset(
        path=location,
        manifest=m,
        episode_id=steps["episode_id"].to_numpy(),
        step=steps["step"].to_numpy(),
        player=steps["player"].to_numpy(),
        obs=obs_arr,
        action_mask=mask_arr,
        action=steps["action"].to_numpy(),
        reward=steps["reward"].to_numpy(),
        rewards=np.asarray(flat_rewards, dtype=np.float32).reshape(rows, players),
        terminated=steps["terminated"].to_numpy(zero_copy_only=False),
        truncated=steps["truncated"].to_numpy(zero_copy_only=False),
        episodes=episodes,
        search_policy=search_policy,
        search_value=search_value,
    )


def _read_into(f: Any, buf: memoryview) -> None:
    """Fills buf from the binary stream f (EOFError if it ends first)."""
    got = 0
    while got < len(buf):
        n = f.readinto(buf[got:])
        if not n:
            raise EOFError
        got += n


def _derive_error(message: str) -> Exception:
    """The exception of a failed ``galaxygym dataset derive``: a
    :class:`galaxygym.errors.DeriveError` for a dataset this build cannot
    replay, a RuntimeError otherwise."""
    import re

    from .errors import DeriveError

    if "cannot derive the observations" in message:
        f = re.search(r"observations of the compact dataset \S+: (\S+)( at episode (\d+) step (\d+))? is ", message)
        if f:
            return DeriveError(message, f.group(1), int(f.group(3)) if f.group(3) else None,
                               int(f.group(4)) if f.group(4) else None)
        return DeriveError(message)
    return RuntimeError(f"galaxygym.datasets: deriving the observations failed: {message}")


def derive(path: str | os.PathLike[str], *, rows: int | None = None, obs: bool = True,
           workers: int | None = None, binary: str | None = None) -> tuple[NDArray[Any], NDArray[Any]]:
    """The observations and action masks of a compact dataset
    (``galaxygym generate --observations none``), derived by replaying its
    episodes in the galaxygym binary (``galaxygym dataset derive``, Go
    speed, every core), its workers writing every batch of rows straight
    into the returned arrays at its final offset (Linux; elsewhere, or
    where the system refuses that, read from a pipe batch by batch into
    them): nothing else of that size is held. Returns ``(obs, action_mask)``:
    uint8 (R, ObsSize) (or (R, 0) with ``obs=False``) and uint8 (R, A), the
    arrays :func:`load` gives for the full dataset. ``path`` is a directory
    or a bucket URL the binary reads (``s3://``, ``gs://``, ...); ``rows``
    defaults to the manifest's total_steps + total_episodes.

    Raises :class:`galaxygym.errors.DeriveError` when this build cannot
    replay the dataset faithfully (another environment version or
    parameters, a changed default, an illegal action); nothing is returned
    then."""
    src = os.fspath(path)
    m = _remote_manifest(*_remote(src, None), src) if _is_url(src) else _manifest(Path(src))
    obs_arr, mask_arr, _ = _derive(src, m, rows, obs, workers, binary, None)
    return obs_arr, mask_arr


@dataclass(frozen=True)
class HiddenPart:
    """The hidden part of every row of a dataset (:func:`hidden`): for
    critics trained with the whole state, never for a policy.

    Attributes:
        array: uint8 (R, H), row ``r`` the hidden part of row ``r``'s
            player (the steps table's ``player`` column; on a final row the
            last to act), in the dataset's row order.
        layout: the game's names for its bytes, ``name -> {"offset",
            "shape", "dtype", "meaning", "classes"?}`` as the observation
            layout (``classes``: each byte a code 0..classes-1).
        high: uint8 (H,), the inclusive upper bound of every byte.
    """

    array: NDArray[Any]
    layout: dict[str, Any]
    high: NDArray[Any]

    def field(self, name: str) -> NDArray[Any]:
        """The field ``name`` of every row: uint8 (R, *shape), a view."""
        f = self.layout[name]
        off, shape = int(f["offset"]), [int(d) for d in f["shape"]]
        return self.array[:, off:off + int(np.prod(shape))].reshape(len(self.array), *shape)


def hidden(path: str | os.PathLike[str], *, workers: int | None = None, binary: str | None = None) -> HiddenPart:
    """The hidden part of every row of a dataset (compact or full): what
    the row's player's observation does not show (the other seats' hands,
    the order of the face-down decks and coins, the unscanned planets'
    numbers), derived by replaying its episodes in the galaxygym binary
    (``galaxygym dataset derive --hidden``), as a compact dataset's
    observations are. The row's observation followed by its hidden part is
    the whole position but for the chance generator: the input of a critic
    trained with the whole state (PerfectDou's perfect-information critic,
    an asymmetric actor-critic), while the policy reads the observation
    alone. Nothing is stored: any dataset of a game that declares a hidden
    part has one. Returns a :class:`HiddenPart`.

    Raises :class:`galaxygym.errors.DeriveError` when this build cannot
    replay the dataset faithfully, RuntimeError when the game declares no
    hidden part (the binary's message says so)."""
    import subprocess

    from ._server import binary_path

    src = os.fspath(path)
    m = _remote_manifest(*_remote(src, None), src) if _is_url(src) else _manifest(Path(src))
    rows = int(m["total_steps"]) + int(m["total_episodes"])
    cmd = [binary or binary_path(), "dataset", "derive", src, "--hidden"]
    got = subprocess.run([*cmd, "--layout"], capture_output=True, text=True)
    if got.returncode != 0:
        raise _derive_error(got.stderr.strip() or f"galaxygym dataset derive exited with status {got.returncode}")
    spec = json.loads(got.stdout)
    if workers:
        cmd += ["--workers", str(workers)]
    arr, _, _ = _derive_pipe(cmd, src, rows, int(spec["size"]), len(m["action_names"]), None)
    return HiddenPart(arr, spec["layout"], np.asarray(spec["high"], np.uint8))


def _derive(src: str, m: dict[str, Any], rows: int | None, obs: bool, workers: int | None, binary: str | None,
            during: Any) -> tuple[NDArray[Any], NDArray[Any], Any]:
    """:func:`derive` of the dataset src whose manifest is m; ``during()``,
    when given, runs while the binary replays (load reads the other columns
    then) and its result is returned third."""
    from ._server import binary_path

    if m.get("observations") != "none":
        raise ValueError(f"galaxygym.datasets: {src} stores its observations (not a compact dataset); use load")
    if rows is None:
        rows = int(m["total_steps"]) + int(m["total_episodes"])
    obs_size = int(np.prod([int(d) for d in m["env_spec"]["obs_shape"]]))
    num_actions = len(m["action_names"])
    cmd = [binary or binary_path(), "dataset", "derive", src]
    if workers:
        cmd += ["--workers", str(workers)]
    if not obs:
        cmd.append("--no-obs")
    if _INTO_PROCESS and sys.platform.startswith("linux"):
        got = _derive_served(cmd[0], cmd, src, rows, obs_size if obs else 0, num_actions, workers, during)
        if got is None:  # no server (it could not start, or died): a process of its own
            got = _derive_into(cmd, src, rows, obs_size if obs else 0, num_actions, during)
        if not isinstance(got[0], Exception):
            return got
        during = None  # ran already: its result is got[2]
        obs_arr, mask_arr, _ = _derive_pipe(cmd, src, rows, obs_size if obs else 0, num_actions, None)
        return obs_arr, mask_arr, got[2]
    return _derive_pipe(cmd, src, rows, obs_size if obs else 0, num_actions, during)


def _rows_array(rows: int, width: int) -> NDArray[Any]:
    """An uninitialized, writable (rows, width) uint8 array for derived
    rows, from pyarrow's memory pool where pyarrow is installed: the pool
    that holds the stored observations :func:`load` reads, which keeps
    freed memory for the next allocation, where ``np.empty`` of hundreds
    of MB maps fresh pages that the kernel zeroes (about half the CPU of
    a compact load; docs/performance.md). Without pyarrow, ``np.empty``."""
    try:
        import pyarrow as pa
    except ImportError:
        return np.empty((rows, width), np.uint8)
    n = rows * width
    buf = pa.allocate_buffer(max(n, 1))
    return np.frombuffer(buf, np.uint8, n).reshape(rows, width)


# Whether _derive lets the binary write the rows straight into the arrays
# (Linux); tests turn it off to cover the pipe.
_INTO_PROCESS = True


def _derive_into(cmd: list[str], src: str, rows: int, obs_size: int, num_actions: int,
                 during: Any) -> tuple[Any, Any, Any]:
    """_derive with ``dataset derive --into-pid``: the binary's workers
    write every batch of rows at its final offset in the arrays, from
    every core at once (process_vm_writev: one copy, no pipe). Where the
    system refuses that (ptrace rules, seccomp) it returns (the error,
    None, during's result) and the caller reads the pipe instead."""
    import subprocess

    obs_arr, mask_arr = _rows_array(rows, obs_size), _rows_array(rows, num_actions)
    into = ["--into-pid", str(os.getpid()), "--into-obs", f"{obs_arr.ctypes.data}:{obs_arr.nbytes}",
            "--into-masks", f"{mask_arr.ctypes.data}:{mask_arr.nbytes}"]
    with subprocess.Popen([*cmd, *into], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        assert proc.stderr is not None
        try:
            extra = during() if during is not None else None
            err = proc.stderr.read().decode(errors="replace").strip()
            code = proc.wait()
        except BaseException:
            # The binary writes into obs_arr and mask_arr: it is gone before they can be freed.
            proc.kill()
            proc.wait()
            raise
    if code != 0:
        if "process_vm_writev refused" in err:
            return RuntimeError(err), None, extra
        raise _derive_error(err or f"galaxygym dataset derive exited with status {code}")
    return obs_arr, mask_arr, extra


class _DeriveServer:
    """A ``galaxygym dataset derive --serve`` child of this process, which
    derives every compact dataset :func:`load` and :func:`derive` ask it
    for into their arrays, one at a time, so that a load costs the replay
    and not a process start (about 15 ms of a 0.1 s load;
    docs/performance.md). It lives until this process exits (its stdin
    then ends) or until a load is interrupted while it writes (it is then
    killed, and the next load starts another). A process forked from this
    one starts its own."""

    def __init__(self, binary: str) -> None:
        import subprocess

        self.owner = os.getpid()
        # Its own session: a terminal's Ctrl-C interrupts the load, which
        # stops the server, not the server behind the load's back.
        self.proc = subprocess.Popen([binary, "dataset", "derive", "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        _let_write_into_us(self.proc.pid)

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None

    def close(self) -> None:
        """Stops the server (kills it: it may be writing into arrays being freed)."""
        if self.owner != os.getpid():
            return
        try:
            self.proc.kill()
            self.proc.wait()
        except OSError:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()


def _let_write_into_us(pid: int) -> None:
    """Lets process pid (this process's derive server) write into this
    process's memory where Yama's ptrace_scope 1 (Ubuntu's default) lets a
    process do so only to its own descendants, not to its parent:
    prctl(PR_SET_PTRACER, pid). Nothing where there is no Yama (the call
    fails, and the writes are allowed as they are) or no libc."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(0x59616D61, ctypes.c_ulong(pid), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    except (OSError, AttributeError):
        pass


_SERVERS: dict[str, _DeriveServer] = {}  # by binary
_SERVERS_LOCK = threading.Lock()
_ATEXIT = False


def _close_servers() -> None:
    for srv in list(_SERVERS.values()):
        srv.close()
    _SERVERS.clear()


def _derive_served(binary: str, cmd: list[str], src: str, rows: int, obs_size: int, num_actions: int,
                   workers: int | None, during: Any) -> tuple[Any, Any, Any] | None:
    """_derive through this process's derive server (:class:`_DeriveServer`
    of binary, started on first use): the arrays, or (the error, None,
    during's result) where the system refuses the server's writes, as
    :func:`_derive_into`. None when there is no server to ask (it could not
    start, or exited since the last load), before during has run; a server
    that dies while deriving is replaced by a process of its own (cmd)."""
    global _ATEXIT
    if not _ATEXIT:
        import atexit

        atexit.register(_close_servers)
        _ATEXIT = True
    with _SERVERS_LOCK:
        srv = _SERVERS.get(binary)
        if srv is None or not srv.alive():
            try:
                srv = _SERVERS[binary] = _DeriveServer(binary)
            except OSError:
                return None
        obs_arr, mask_arr = _rows_array(rows, obs_size), _rows_array(rows, num_actions)
        # The server's working directory is the one it started in: a local path goes absolute,
        # so that it names what it names here (a URL, "scheme://...", goes as it is).
        where = src if "://" in src else os.path.abspath(src)
        req = {"in": where, "workers": workers or 0, "no_obs": obs_size == 0,
               "obs": f"{obs_arr.ctypes.data}:{obs_arr.nbytes}", "masks": f"{mask_arr.ctypes.data}:{mask_arr.nbytes}"}
        assert srv.proc.stdin is not None and srv.proc.stdout is not None
        try:
            srv.proc.stdin.write((json.dumps(req) + "\n").encode())
            srv.proc.stdin.flush()
        except OSError:  # it exited since it was last asked
            srv.close()
            del _SERVERS[binary]
            return None
        try:
            extra = during() if during is not None else None
            line = srv.proc.stdout.readline()
        except BaseException:
            # The server writes into obs_arr and mask_arr: it is gone before they can be freed.
            srv.close()
            del _SERVERS[binary]
            raise
        if not line:  # it died while deriving: derive again in a process of its own
            srv.close()
            del _SERVERS[binary]
            got = _derive_into(cmd, src, rows, obs_size, num_actions, None)
            return got[0], got[1], extra
    reply = json.loads(line)
    if reply.get("ok"):
        return obs_arr, mask_arr, extra
    if reply.get("refused"):
        return RuntimeError(reply.get("error", "")), None, extra
    raise _derive_error(reply.get("error") or "galaxygym dataset derive --serve failed")


def _derive_pipe(cmd: list[str], src: str, rows: int, obs_size: int, num_actions: int,
                 during: Any) -> tuple[NDArray[Any], NDArray[Any], Any]:
    """_derive through a pipe (``dataset derive``'s stream on stdout), read
    batch by batch into the arrays: where there is no memfd."""
    import subprocess

    obs_arr, mask_arr = _rows_array(rows, obs_size), _rows_array(rows, num_actions)
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        try:  # a 1 MiB pipe (Linux): 16x fewer switches between the binary and us than the default 64 KiB
            import fcntl

            fcntl.fcntl(proc.stdout.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
        except (ImportError, OSError):
            pass
        off, ended = 0, False
        hdr = bytearray(4)
        try:
            extra = during() if during is not None else None
        except BaseException:
            proc.kill()
            raise
        try:
            while True:
                _read_into(proc.stdout, memoryview(hdr))
                n = int.from_bytes(hdr, "little")
                if n == 0:
                    ended = True
                    break
                if off + n > rows:
                    raise RuntimeError(f"galaxygym.datasets: the binary derived more than the {rows} rows of {src}")
                if obs_size:
                    _read_into(proc.stdout, obs_arr[off:off + n].data.cast("B"))
                _read_into(proc.stdout, mask_arr[off:off + n].data.cast("B"))
                off += n
        except EOFError:
            pass
        err = proc.stderr.read().decode(errors="replace").strip()
        code = proc.wait()
    if code != 0 or not ended:
        raise _derive_error(err or f"galaxygym dataset derive exited with status {code}")
    if off != rows:
        raise RuntimeError(f"galaxygym.datasets: derived {off} rows of {src}, its manifest says {rows}")
    return obs_arr, mask_arr, extra


def _as_dataset(data: Dataset | str | os.PathLike[str]) -> Dataset:
    return data if isinstance(data, Dataset) else load(data)


def episode_spans(data: Dataset) -> tuple[NDArray[Any], NDArray[Any]]:
    """(start, end) row indices of each episode, in order: rows
    ``start[k]:end[k]`` are episode k's T+1 rows."""
    eid = data.episode_id
    if len(eid) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    cut = np.flatnonzero(eid[1:] != eid[:-1]) + 1
    start = np.concatenate([[0], cut])
    end = np.concatenate([cut, [len(eid)]])
    return start, end


def transitions(data: Dataset | str | os.PathLike[str], *, per_player: bool = False) -> Transitions:
    """The transitions of a dataset (or of the directory path).

    By default each step row is one transition: ``next_obs`` is the next
    row's observation (the final row's after an episode's last step), the
    reward is the acting player's for that step, and only the episode's last
    step is done. In a multiplayer game the next row is the next player's
    view.

    ``per_player=True`` (multiplayer games; the same as the default for one
    player) gives each player's own transitions, the learner's view of
    ``rollout.LearnerEnv``: a transition goes from one of the player's
    decisions to its next decision in the episode, and

    - ``reward`` is everything the player earned in between (every player's
      steps, from the ``rewards`` column), plus, on its first transition,
      what it earned before its first decision; the player's rewards over an
      episode sum to its return (the episodes table's ``returns``) whenever
      it decided at least once (a player that never decided has no
      transition);
    - ``next_obs``/``next_mask`` are the player's own view at its next
      decision; on its last transition of the episode ``terminated`` and
      ``truncated`` are the episode's, ``next_mask`` is all 0 and
      ``next_obs`` is the final row's observation if the player moved last,
      else (the dataset stores no later view of that player, and the final
      row is another player's private view) the transition's own ``obs``,
      flagged by ``stale_next_obs``.

    Transitions keep the steps table's order."""
    d = _as_dataset(data)
    i = np.flatnonzero(d.action >= 0)
    if not (per_player and d.num_players > 1):
        j = i + 1
        return Transitions(
            obs=d.obs[i], action=d.action[i], reward=d.reward[i], next_obs=d.obs[j],
            terminated=d.terminated[i], truncated=d.truncated[i], mask=d.action_mask[i],
            next_mask=d.action_mask[j], episode_id=d.episode_id[i], player=d.player[i],
            stale_next_obs=np.zeros(len(i), np.bool_))
    start, end = episode_spans(d)
    eps = d.episode_id[start]
    ep_of = np.searchsorted(eps, d.episode_id[i])  # each transition's episode index
    ep_i, pl_i = d.episode_id[i], d.player[i]
    # Sort the transitions by (episode, player, step): a transition's
    # successor is the next one in that order when it is the same player's
    # in the same episode.
    order = np.lexsort((d.step[i], pl_i, ep_i))
    same_next = np.zeros(len(i), np.bool_)
    if len(i) > 1:
        same_next[:-1] = (ep_i[order][1:] == ep_i[order][:-1]) & (pl_i[order][1:] == pl_i[order][:-1])
    succ = np.full(len(i), -1, np.int64)  # by transition: the successor's row, -1 for the last
    succ[order[:-1][same_next[:-1]]] = i[order[1:][same_next[:-1]]]
    first = np.ones(len(i), np.bool_)  # by transition: the player's first of the episode
    first[order[1:][same_next[:-1]]] = False
    last = succ < 0
    final = end[ep_of] - 1  # the episode's final row
    j = np.where(last, final, succ)
    # Reward: every player's rewards from the decision (the episode's start
    # for a first transition) up to the next decision (the final row for a
    # last one), from cumulative sums of the rewards column.
    cum = np.zeros((len(d.action) + 1, d.num_players), np.float64)
    np.cumsum(d.rewards, axis=0, dtype=np.float64, out=cum[1:])
    from_row = np.where(first, start[ep_of], i)
    reward = (cum[j, pl_i] - cum[from_row, pl_i]).astype(np.float32)
    # The episode's end flags, from its last transition row (final - 1).
    ep_term = np.zeros(len(start), np.bool_)
    ep_trunc = np.zeros(len(start), np.bool_)
    has = end - start > 1
    ep_term[has] = d.terminated[end[has] - 2]
    ep_trunc[has] = d.truncated[end[has] - 2]
    stale = last & (d.player[final] != pl_i)
    next_obs = d.obs[np.where(stale, i, j)]
    next_mask = d.action_mask[j]
    next_mask[last] = 0
    return Transitions(
        obs=d.obs[i], action=d.action[i], reward=reward, next_obs=next_obs,
        terminated=last & ep_term[ep_of], truncated=last & ep_trunc[ep_of], mask=d.action_mask[i],
        next_mask=next_mask, episode_id=ep_i, player=pl_i, stale_next_obs=stale)


def torch_dataset(data: Dataset | Transitions | str | os.PathLike[str]) -> Any:
    """A ``torch.utils.data.Dataset`` of transitions: item k is a dict of
    tensors (obs, action, reward, next_obs, terminated, truncated, mask,
    next_mask), sharing memory with the numpy arrays (no copy), ready for a
    ``DataLoader``."""
    import torch
    from torch.utils.data import Dataset as TorchDataset

    t = data if isinstance(data, Transitions) else transitions(_as_dataset(data))
    names = ("obs", "action", "reward", "next_obs", "terminated", "truncated", "mask", "next_mask")
    tensors = {k: torch.from_numpy(np.ascontiguousarray(getattr(t, k))) for k in names}

    # (misc: torch absent, its Dataset is Any; unused-ignore: torch present)
    class TransitionDataset(TorchDataset[dict[str, Any]]):  # type: ignore[misc,unused-ignore]
        """Transitions of a galaxygym dataset as tensors."""

        def __len__(self) -> int:
            return len(t)

        def __getitem__(self, k: int) -> dict[str, Any]:
            return {name: v[k] for name, v in tensors.items()}

    ds = TransitionDataset()
    ds.tensors = tensors  # type: ignore[attr-defined]
    return ds


@dataclass
class PlayerEpisode:
    """One player's episode in Minari's layout (from per-player transitions):
    ``observations`` (T+1, *obs_shape) uint8, the player's own views at its T
    decisions then after its last one; ``actions`` int64, ``rewards``
    float64 (each from one of its decisions to its next, see
    :func:`transitions`), ``terminations``, ``truncations`` bool (T,);
    ``action_mask`` (T+1, A) uint8 (the last all 0); ``stale_final_obs``:
    the final observation repeats the last decision's (see
    ``Transitions.stale_next_obs``); ``episode_id`` and ``seed`` of the
    game."""

    episode_id: int
    seed: int
    observations: NDArray[Any]
    actions: NDArray[Any]
    rewards: NDArray[Any]
    terminations: NDArray[Any]
    truncations: NDArray[Any]
    action_mask: NDArray[Any]
    stale_final_obs: bool


def player_episodes(data: Dataset | Transitions | str | os.PathLike[str], player: int, *,
                    dataset: Dataset | None = None) -> list[PlayerEpisode]:
    """Player ``player``'s episodes (:class:`PlayerEpisode`, in episode
    order) from the per-player transitions of a dataset, skipping episodes
    in which it made no decision. Pass the :class:`Dataset` (or its path);
    a :class:`Transitions` needs ``dataset=`` for the seeds."""
    if isinstance(data, Transitions):
        if dataset is None:
            raise ValueError("galaxygym.datasets.player_episodes: a Transitions needs dataset= (for the seeds)")
        d, t = dataset, data
    else:
        d = _as_dataset(data)
        t = transitions(d, per_player=True)
    if not 0 <= player < d.num_players:
        raise ValueError(f"galaxygym.datasets.player_episodes: player {player} of a {d.num_players}-player dataset")
    k = np.flatnonzero(t.player == player)
    if len(k) == 0:
        return []
    eid = t.episode_id[k]
    cut = np.flatnonzero(eid[1:] != eid[:-1]) + 1
    starts = np.concatenate([[0], cut])
    ends = np.concatenate([cut, [len(k)]])
    ep_ids = d.episodes["episode_id"].to_numpy()
    seeds = d.episodes["seed"].to_numpy().astype(np.uint64)
    out = []
    for a, b in zip(starts.tolist(), ends.tolist()):
        rows = k[a:b]
        e = int(eid[a])
        out.append(PlayerEpisode(
            episode_id=e, seed=int(seeds[np.searchsorted(ep_ids, e)]),
            observations=np.concatenate([t.obs[rows], t.next_obs[rows[-1:]]]),
            actions=t.action[rows].astype(np.int64), rewards=t.reward[rows].astype(np.float64),
            terminations=t.terminated[rows], truncations=t.truncated[rows],
            action_mask=np.concatenate([t.mask[rows], t.next_mask[rows[-1:]]]),
            stale_final_obs=bool(t.stale_next_obs[rows[-1]])))
    return out


def seat_dataset_id(dataset_id: str, player: int) -> str:
    """The Minari id of one seat's dataset: ``namespace/name-vN`` becomes
    ``namespace/name-p<player>-vN`` (``name-p<player>`` without a version)."""
    head, sep, ver = dataset_id.rpartition("-v")
    if sep and ver.isdigit():
        return f"{head}-p{player}-v{ver}"
    return f"{dataset_id}-p{player}"


def to_minari(data: Dataset | str | os.PathLike[str], dataset_id: str, *, author: str | None = None,
              description: str | None = None, data_format: str = "arrow",
              players: int | list[int] | None = None) -> Any:
    """Writes a Minari dataset (Minari 0.5) under Minari's datasets root
    ($MINARI_DATASETS_PATH, default ~/.minari/datasets) and returns the
    ``MinariDataset``. ``dataset_id`` is Minari's ``namespace/name-vN``,
    e.g. ``"galaxygym/galaxy-express-heuristic-v0"``.

    A multiplayer dataset is written as one Minari dataset per seat, never
    mixing seats: ``players`` (default: every seat) picks them; seat p's id
    is :func:`seat_dataset_id` (``namespace/name-p<p>-vN``), its episodes
    are :func:`player_episodes` (the player's own views, its reward from
    each decision to its next, its last transition done), and the return is
    a dict {player: MinariDataset} (a MinariDataset when ``players`` is one
    int). Each episode's infos carry ``player`` and ``stale_final_obs``,
    (T+1, 1) arrays.

    Episodes follow Minari's layout: ``observations`` T+1 rows, ``actions``,
    ``rewards``, ``terminations``, ``truncations`` T; infos carry each
    step's ``action_mask`` (T+1 rows). The env spec is the registered
    Gymnasium id (``galaxygym/GalaxyExpress-v1``) with the dataset's
    parameters, so ``dataset.recover_environment()`` builds the same
    environment (on the private local server)."""
    import gymnasium
    import minari

    from ._registration import gym_id, register_envs
    from .env import spaces_from_spec

    d = _as_dataset(data)
    if d.num_players > 1:
        seats = list(range(d.num_players)) if players is None else (
            [players] if isinstance(players, int) else list(players))
        t = transitions(d, per_player=True)
        written = {p: _write_minari(d, seat_dataset_id(dataset_id, p), player_episodes(t, p, dataset=d),
                                    author, description, data_format, p) for p in seats}
        return written[players] if isinstance(players, int) else written
    register_envs()
    spec = gymnasium.spec(gym_id(d.env_id))
    env_spec = copy.deepcopy(spec)
    env_spec.kwargs = {**spec.kwargs, **d.env_params}
    if d.num_players > 1:
        env_spec.kwargs.setdefault("players", d.num_players)
    obs_space, act_space = spaces_from_spec(d.manifest["env_spec"])
    start, end = episode_spans(d)
    from minari.data_collector import EpisodeBuffer

    seeds = d.episodes["seed"].to_numpy().astype(np.uint64)
    buffer = [  # one item per episode, arrays sliced (no per-row work)
        EpisodeBuffer(
            id=k, seed=int(seeds[k]),
            observations=d.obs[s:e],
            actions=d.action[s:e - 1].astype(np.int64),
            rewards=d.reward[s:e - 1].astype(np.float64),
            terminations=d.terminated[s:e - 1],
            truncations=d.truncated[s:e - 1],
            infos={"action_mask": d.action_mask[s:e]},
        )
        for k, (s, e) in enumerate(zip(start.tolist(), end.tolist()))]
    agent = d.manifest.get("agent", {})
    return minari.create_dataset_from_buffers(
        dataset_id=dataset_id,
        buffer=buffer,
        env=env_spec,
        algorithm_name=str(agent.get("name", d.manifest.get("algorithm_name", ""))),
        author=author or d.manifest.get("author") or None,
        description=description or f"galaxygym generate: {d.manifest.get('created_by', '')}",
        observation_space=obs_space,
        action_space=act_space,
        data_format=data_format,
    )


def _write_minari(d: Dataset, dataset_id: str, episodes: list[PlayerEpisode], author: str | None,
                  description: str | None, data_format: str, player: int) -> Any:
    """Writes one seat's episodes as a Minari dataset (see :func:`to_minari`)."""
    import gymnasium
    import minari
    from minari.data_collector import EpisodeBuffer

    from ._registration import gym_id, register_envs
    from .env import spaces_from_spec

    register_envs()
    spec = gymnasium.spec(gym_id(d.env_id))
    env_spec = copy.deepcopy(spec)
    env_spec.kwargs = {**spec.kwargs, **d.env_params}
    env_spec.kwargs.setdefault("players", d.num_players)
    obs_space, act_space = spaces_from_spec(d.manifest["env_spec"])
    buffer = [
        EpisodeBuffer(
            id=n, seed=e.seed, observations=e.observations, actions=e.actions, rewards=e.rewards,
            terminations=e.terminations, truncations=e.truncations,
            # (T+1, 1): Minari's arrow storage cannot read back scalar-shaped infos
            infos={"action_mask": e.action_mask,
                   "player": np.full((len(e.observations), 1), player, np.int64),
                   "stale_final_obs": np.array([False] * (len(e.observations) - 1) + [e.stale_final_obs]).reshape(-1, 1)},
        )
        for n, e in enumerate(episodes)]
    agent = d.manifest.get("agent", {})
    return minari.create_dataset_from_buffers(
        dataset_id=dataset_id,
        buffer=buffer,
        env=env_spec,
        algorithm_name=str(agent.get("name", d.manifest.get("algorithm_name", ""))),
        author=author or d.manifest.get("author") or None,
        description=description or (f"galaxygym generate: {d.manifest.get('created_by', '')}; "
                                    f"player {player}'s own transitions"),
        observation_space=obs_space,
        action_space=act_space,
        data_format=data_format,
    )
