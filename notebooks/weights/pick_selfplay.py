"""The last step of notebooks/weights/make_selfplay.sh: per game, the better
network of the last PPO leg (the policy's win rate in the final native
evaluation; Galaxy Fighters: the team's mission win rate) becomes the
committed name, written compressed (the columns no training ever touched
are zeros), with a record of every run beside it.

Usage: python notebooks/weights/pick_selfplay.py OUT_DIR GAME... (GAME:
express, pilots, fighters). Reads OUT_DIR/compare/<id>-{bc,ppo,ppo2}-<arch>.json
and their .eval.json, OUT_DIR/logs/gen-<game>.log; writes OUT_DIR/<name>.npz
and .json (name: <id>-selfplay, galaxy-fighters-v2-team). The environment
variable MADE_ON, if set, is recorded as the machine the chain ran on.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from galaxygym.policy import write_npz  # noqa: E402

IDS = {"express": "express-v2", "pilots": "pilots-of-gallaxia-v2", "fighters": "galaxy-fighters-v2"}


def policy_row(ev: dict[str, Any]) -> dict[str, Any]:
    """The policy's row of a galaxygym eval JSON."""
    row: dict[str, Any] = next(r for r in ev["agents"] if str(r["agent"]).startswith("policy"))
    return row


def main(argv: list[str]) -> None:
    out, games = Path(argv[0]), argv[1:]
    for g in games:
        i = IDS[g]
        comp = out / "compare"
        legs = [leg for leg in ("ppo", "ppo2") if list(comp.glob(f"{i}-{leg}-*.json"))]
        last = legs[-1]
        gen = out / "logs" / f"gen-{g}.log"
        rec: dict[str, Any] = {"env_id": i, "script": "notebooks/weights/make_selfplay.sh",
                               "made_on": os.environ.get("MADE_ON", ""),
                               "data": gen.read_text().strip() if gen.exists() else None, "runs": {}}
        best: tuple[str, float] | None = None
        for arch in sorted({p.name[len(i) + len(last) + 2:-len(".eval.json")]
                            for p in comp.glob(f"{i}-{last}-*.eval.json")}):
            run: dict[str, Any] = {"bc": json.loads((comp / f"{i}-bc-{arch}.json").read_text())}
            for leg in legs:
                run[leg] = json.loads((comp / f"{i}-{leg}-{arch}.json").read_text())
                ev = comp / f"{i}-{leg}-{arch}.eval.json"
                if ev.exists():
                    run[f"{leg}_final_evaluation"] = json.loads(ev.read_text())
            rec["runs"][arch] = run
            wr = float(policy_row(run[f"{last}_final_evaluation"])["win_rate"])
            if best is None or wr > best[1]:
                best = (arch, wr)
        if best is None:
            continue
        rec["chosen"] = {"arch": best[0], "leg": last, "win_rate": best[1]}
        name = f"{i}-team" if g == "fighters" else f"{i}-selfplay"
        with np.load(comp / f"{i}-{last}-{best[0]}.npz") as z:
            write_npz(out / f"{name}.npz", {k: z[k] for k in z.files}, compress=True)
        (out / f"{name}.json").write_text(json.dumps(rec, indent=1, allow_nan=False) + "\n")
        print(f"{name} <- {last} {best[0]}, win rate {best[1]}")


if __name__ == "__main__":
    main(sys.argv[1:])
