"""Deriving on read against reading the stored observations
(docs/performance.md, "Deriving the observations on read"): for each game,
galaxygym.datasets.load of DIR/GAME-stored and DIR/GAME-none (the same
episodes, generated with and without --observations none), alternated REPS
times (default 7) in this process, best wall time of each, the arrays
checked equal after every compact load. CPU is this process's and its
children's (the derive binary, or the derive server it keeps).

    GALAXYGYM_BIN=$PWD/bin/galaxygym PYTHONPATH=$PWD/python python tools/derive_bench.py DIR [GAME ...]
"""

import os
import resource
import sys
import time

import numpy as np

import galaxygym.datasets as gd


def cpu() -> float:
    """CPU seconds of this process, its waited-for children (a derive
    process of its own) and the derive server (``dataset derive --serve``,
    which lives on between loads: read from /proc)."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    served = 0.0
    for srv in getattr(gd, "_SERVERS", {}).values():
        try:
            with open(f"/proc/{srv.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            served += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime + served


def main() -> None:
    root = sys.argv[1]
    games = sys.argv[2:] or ["galaxy-express-v1", "express-v1", "pilots-of-gallaxia-v1", "galaxy-fighters-v2"]
    for g in games:
        best: dict[str, tuple[float, float, int]] = {}
        worst: dict[str, float] = {}
        full = None
        for _ in range(int(os.environ.get("REPS", "7"))):
            for kind in ("stored", "none"):
                c0, t0 = cpu(), time.perf_counter()
                ds = gd.load(os.path.join(root, f"{g}-{kind}"))
                t, c = time.perf_counter() - t0, cpu() - c0
                if kind not in best or t < best[kind][0]:
                    best[kind] = (t, c, len(ds))
                worst[kind] = max(worst.get(kind, 0.0), t)
                if kind == "stored":
                    full = ds
                else:
                    assert full is not None
                    assert np.array_equal(ds.obs, full.obs) and np.array_equal(ds.action_mask, full.action_mask)
                del ds
        (ts, cs, n), (tn, cn, _) = best["stored"], best["none"]
        print(f"{g} rows={n} stored {n / ts:,.0f} rows/s ({ts:.2f} s; {cs:.2f} s CPU)  "
              f"compact {n / tn:,.0f} rows/s ({tn:.2f} s; {cn:.2f} s CPU)  compact/full {ts / tn:.2f}x  "
              f"(slowest: stored {worst['stored']:.2f} s, compact {worst['none']:.2f} s)", flush=True)
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
