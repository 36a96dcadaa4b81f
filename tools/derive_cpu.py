"""The CPU of deriving alone (docs/performance.md, "Deriving the observations
on read"): for each game, `BIN dataset derive DIR/GAME-none > /dev/null` of
two builds, OLD and NEW, alternated N times (default 10); CPU is user + sys
of the child (getrusage), which other jobs on a loaded machine disturb less
than wall time. Prints each build's median and range and the ratio of the
medians (new / old).

    N=10 python tools/derive_cpu.py OLD/bin/galaxygym bin/galaxygym DIR [GAME ...]
"""

import os
import resource
import statistics
import subprocess
import sys


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    bins = {"old": sys.argv[1], "new": sys.argv[2]}
    root = sys.argv[3]
    games = sys.argv[4:] or ["galaxy-express-v1", "express-v1", "pilots-of-gallaxia-v1", "galaxy-fighters-v2"]
    n = int(os.environ.get("N", "10"))
    for g in games:
        cpu: dict[str, list[float]] = {k: [] for k in bins}
        for _ in range(n):
            for k, b in bins.items():
                c0 = child_cpu()
                subprocess.run([b, "dataset", "derive", os.path.join(root, f"{g}-none")],
                               stdout=subprocess.DEVNULL, check=True)
                cpu[k].append(child_cpu() - c0)
        mo, mn = statistics.median(cpu["old"]), statistics.median(cpu["new"])
        print(f"{g}: old {mo:.3f} s ({min(cpu['old']):.3f}-{max(cpu['old']):.3f})  "
              f"new {mn:.3f} s ({min(cpu['new']):.3f}-{max(cpu['new']):.3f})  new/old {mn / mo:.2f}", flush=True)
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
