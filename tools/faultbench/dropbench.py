"""The fault benchmark of issue 33: what a dropped client leaves running.

A client makes an environment whose opponent is a long search
(``mcts@sims=SIMS``), steps it, and is killed (SIGKILL) mid-step. The
script then reads the server's CPU time (/proc/PID/stat, Linux) over the
next WINDOW seconds and its /healthz ``sessions`` just after the kill.
A server that stops a dropped client's work burns ~0 cores; one that
does not burns a core for as long as the search runs.

Usage (a galaxygym binary, and the Python client importable):

    python tools/faultbench/dropbench.py BIN [--sims N] [--window S] [--rounds R] [-- SERVE_FLAGS...]

e.g. ``python tools/faultbench/dropbench.py bin/galaxygym -- --max-agent-sims 100000000``
(the cap is raised so that the long search is accepted at all; docs/performance.md).
"""

import argparse
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
import urllib.request


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def client(url: str, sims: int) -> None:
    import numpy as np
    import galaxygym

    env = galaxygym.make("express-v2", url=url, opponents=f"mcts@sims={sims}")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:  # each step waits for the opponent's search; killed meanwhile
        mask = info["action_mask"].astype(bool)
        a = int(np.flatnonzero(mask)[rng.integers(mask.sum())])
        obs, r, term, trunc, info = env.step(a)
        if term or trunc:
            obs, info = env.reset()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bin")
    p.add_argument("--sims", type=int, default=100_000_000)
    p.add_argument("--window", type=float, default=10.0)
    p.add_argument("--rounds", type=int, default=3)
    argv = sys.argv[1:]
    serve_flags = argv[argv.index("--") + 1:] if "--" in argv else []
    args = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    srv = subprocess.Popen([args.bin, "serve", "--addr", "127.0.0.1:0", *serve_flags],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = srv.stdout.readline()
        addr = line.split("listening on ", 1)[1].strip()
        url = f"ws://{addr}/"
        for k in range(args.rounds):
            c = mp.get_context("spawn").Process(target=client, args=(url, args.sims))
            c.start()
            time.sleep(3.0)  # made, reset, a step's search under way
            os.kill(c.pid, signal.SIGKILL)
            c.join()
            time.sleep(0.5)
            with urllib.request.urlopen(f"http://{addr}/healthz") as r:
                sessions = json.load(r)["sessions"]
            t0, c0 = time.monotonic(), cpu_seconds(srv.pid)
            time.sleep(args.window)
            used = (cpu_seconds(srv.pid) - c0) / (time.monotonic() - t0)
            print(f"round {k}: sessions 0.5 s after the kill {sessions}; server CPU over the next "
                  f"{args.window:.0f} s: {used:.2f} cores", flush=True)
    finally:
        srv.send_signal(signal.SIGTERM)
        try:
            srv.wait(10)
        except subprocess.TimeoutExpired:
            srv.kill()


if __name__ == "__main__":
    sys.exit(main())
