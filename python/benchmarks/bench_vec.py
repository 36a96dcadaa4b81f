"""Throughput and latency of galaxygym through the websocket server.

Measures, for N = 1, 64 and 1024 (--sizes):
  * env steps/s through make_vec, with uniformly random legal actions drawn
    from the masks in numpy (vectorized, counted in the loop);
  * the round trip of a bare echo of same-sized frames (a step request of
    8 + 4N bytes out, a frame of the step reply's size back) through the same
    client library, on the server's /echo endpoint: the transport limit;
and the single-env latency of GalaxyGymEnv.step beside the echo of its frames,
the two round trips alternating in one loop (see single_vs_echo).

It starts `galaxygym serve --echo` itself (the binary from --bin,
$GALAXYGYM_BIN, or a fresh `go build`), or uses --url (a server started
with --echo).

    python python/benchmarks/bench_vec.py [--seconds 3] [--sizes 1,64,1024]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import websocket

import galaxygym
from galaxygym import Layout
from galaxygym._client import FrameReader

REPO = Path(__file__).resolve().parents[2]
ENV_ID = "galaxy-express-v1"


def start_server(binary: str | None) -> tuple[subprocess.Popen, str]:
    binary = binary or os.environ.get("GALAXYGYM_BIN")
    if not binary:
        if shutil.which("go") is None:
            sys.exit("need --bin, $GALAXYGYM_BIN or a Go toolchain")
        binary = str(Path(tempfile.mkdtemp()) / "galaxygym")
        subprocess.run(["go", "build", "-o", binary, "./cmd/galaxygym"], cwd=REPO, check=True)
    proc = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--echo"],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    return proc, "ws://" + line.split()[-1]


def random_legal(masks: np.ndarray, rng: np.random.Generator, starts: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row of masks ((N, A) of 0/1;
    0 for a row without a legal action), vectorized: one cumulative sum over
    the flattened masks and a binary search for each row's k-th legal one."""
    n, a = masks.shape
    cs = np.cumsum(masks.reshape(-1), dtype=np.int32)
    before = np.empty(n, np.int32)
    before[0] = 0
    before[1:] = cs[starts[1:] - 1]
    count = cs[starts + a - 1] - before
    k = (rng.random(n) * count).astype(np.int32)
    pos = np.searchsorted(cs, before + k + 1)
    return np.where(count > 0, pos - starts, 0).astype(np.int32)


def bench_vec(url: str, n: int, seconds: float, copy: bool) -> tuple[float, float]:
    """(env steps/s, microseconds per batch step)."""
    rng = np.random.default_rng(0)
    starts = np.arange(n) * 56
    with galaxygym.make_vec(ENV_ID, n, url=url, copy=copy) as envs:
        obs, infos = envs.reset(seed=0)
        masks = infos["action_mask"]
        for _ in range(20):
            obs, rew, term, trunc, infos = envs.step(random_legal(masks, rng, starts))
            masks = infos["action_mask"]
        steps, t0 = 0, time.perf_counter()
        while True:
            for _ in range(10):
                obs, rew, term, trunc, infos = envs.step(random_legal(masks, rng, starts))
                masks = infos["action_mask"]
            steps += 10
            dt = time.perf_counter() - t0
            if dt >= seconds:
                break
    return steps * n / dt, dt / steps * 1e6


def echo_rtt(url: str, request_size: int, reply_size: int, seconds: float) -> float:
    """Microseconds per echo round trip through websocket-client, sending
    and reading frames exactly the way galaxygym's Session does."""
    ws = websocket.create_connection(
        url.rstrip("/") + "/echo", suppress_origin=True, enable_multithread=True, skip_utf8_validation=True,
        sockopt=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1), (socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)))
    read = FrameReader(ws.sock).read_frame
    req = b"ECHO" + reply_size.to_bytes(4, "little") + bytes(request_size - 8)
    for _ in range(50):
        ws.send_binary(req)
        read()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(20):
            ws.send_binary(req)
            _, _, payload = read()
        n += 20
    dt = time.perf_counter() - t0
    assert len(payload) == reply_size
    ws.close()
    return dt / n * 1e6


def echo_rtt_websockets(url: str, request_size: int, reply_size: int, seconds: float) -> float | None:
    """The same echo through the websockets library's sync client (the
    alternative client library), or None when it is not installed."""
    try:
        from websockets.sync.client import connect
    except ImportError:
        return None
    kw = {"max_size": None, "compression": None}
    try:
        ws = connect(url.rstrip("/") + "/echo", legacy=True, **kw)
    except TypeError:
        ws = connect(url.rstrip("/") + "/echo", **kw)
    req = b"ECHO" + reply_size.to_bytes(4, "little") + bytes(request_size - 8)
    for _ in range(50):
        ws.send(req)
        ws.recv()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(20):
            ws.send(req)
            ws.recv()
        n += 20
    dt = time.perf_counter() - t0
    ws.close()
    return dt / n * 1e6


def single_vs_echo(url: str, seconds: float) -> tuple[float, float, float, float]:
    """Single-env round trip beside the echo of the same frames, measured the
    same way: one loop that alternates GalaxyGymEnv.step and an echo round
    trip (12-byte request, a step reply's size back) through the same
    websocket-client connection setup and frame reader, with the same work
    between round trips (a random legal action drawn with numpy), each call
    timed alone. Interleaving puts both under the same machine state (CPU
    frequency, the other core's load, the server's goroutines parked or
    not), which a tight echo loop timed against a gapped step loop does not.
    Returns (step mean, step median, echo mean, echo median) in microseconds."""
    ws = websocket.create_connection(
        url.rstrip("/") + "/echo", suppress_origin=True, enable_multithread=True, skip_utf8_validation=True,
        sockopt=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1), (socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)))
    read = FrameReader(ws.sock).read_frame
    req = b"ECHO" + Layout(1, 503, 56, 1).size(0).to_bytes(4, "little") + bytes(4)
    rng = np.random.default_rng(0)
    step_t, echo_t = [], []
    clock = time.perf_counter
    with galaxygym.make(ENV_ID, url=url) as env:
        obs, info = env.reset(seed=0)
        t_end = clock() + 2 * seconds
        i = 0
        while clock() < t_end:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            if i & 1:
                t = clock()
                ws.send_binary(req)
                read()
                echo_t.append(clock() - t)
            else:
                t = clock()
                obs, r, term, trunc, info = env.step(a)
                step_t.append(clock() - t)
                if term or trunc:
                    obs, info = env.reset()
            i += 1
    ws.close()
    st, et = np.array(step_t[50:]) * 1e6, np.array(echo_t[50:]) * 1e6
    return float(st.mean()), float(np.median(st)), float(et.mean()), float(np.median(et))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running server (started with --echo); default: start one")
    ap.add_argument("--bin", help="the galaxygym binary to start")
    ap.add_argument("--sizes", default="1,64,1024")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--copy", action="store_true",
                    help="make_vec(copy=True): every array copied out of the reply (default False, as make_vec's: "
                         "fresh writable views that no later step overwrites)")
    ap.add_argument("--compare-libs", action="store_true", help="also time the echo with `websockets`")
    args = ap.parse_args()
    proc = None
    url = args.url
    if url is None:
        proc, url = start_server(args.bin)
    try:
        print(f"server {url}, {os.cpu_count()} CPUs, python {sys.version.split()[0]}, "
              f"numpy {np.__version__}, websocket-client {websocket.__version__}")
        print(f"{'N':>6} {'env steps/s':>13} {'us/step':>9} {'echo us':>9} {'step/echo':>9}"
              + (f" {'echo(websockets) us':>20}" if args.compare_libs else ""))
        for n in [int(x) for x in args.sizes.split(",")]:
            lay = Layout(n, 503, 56, 1)
            sps, us = bench_vec(url, n, args.seconds, copy=args.copy)
            echo = echo_rtt(url, 8 + 4 * n, lay.size(0), args.seconds)
            line = f"{n:>6} {sps:>13,.0f} {us:>9.1f} {echo:>9.1f} {us / echo:>9.2f}"
            if args.compare_libs:
                other = echo_rtt_websockets(url, 8 + 4 * n, lay.size(0), args.seconds)
                line += f" {other:>20.1f}" if other else f" {'(not installed)':>20}"
            print(line, flush=True)
        s_mean, s_med, e_mean, e_med = single_vs_echo(url, args.seconds)
        print(f"single env (interleaved with the echo): step {s_mean:.1f} us mean / {s_med:.1f} median, "
              f"echo of the same frames {e_mean:.1f} / {e_med:.1f}, ratio {s_mean / e_mean:.2f} / {s_med / e_med:.2f}")
    finally:
        if proc is not None:
            proc.kill()


if __name__ == "__main__":
    main()
