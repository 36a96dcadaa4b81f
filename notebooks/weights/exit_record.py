"""Writes the record of an expert-iteration chain (notebooks/weights/make_exit.sh):
    python exit_record.py GAME RUN_DIR ROUNDS INIT OUT.json
from the chain's files: per round the generate command and dataset size (its manifest), the
training's command, curve, CPU seconds and device (w.json), the evaluations (eval JSON), and every
stage's command line and CPU seconds (the .stage files); the machine it ran on.

    python exit_record.py dagger DATA_DIR OUT.json [GAME SCRIPT]
writes the record of a DAgger chain (notebooks/weights/make_dagger_fighters.sh, the default,
or SCRIPT, make_bc.sh with GAME galaxy-express-v1; its settings from the environment): every
training's command, curve and device (r<R>.json), its greedy evaluation where the chain made one
(eval-r<R>.json), every stage's CPU seconds (<stage>.time), the rerun and the weights it writes
(output). A make_exit.sh chain whose INIT is that output's copy beside this record embeds it
(init_record).

    python exit_record.py install WEIGHTS.npz RECORD.json DIR NAME
installs a chain's output: DIR/NAME.npz, the weights' arrays compressed (galaxygym.policy.write_npz),
and DIR/NAME.json, a copy of the record (the DAgger scripts' INSTALL=1)."""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any


# make_exit.sh's variables, recorded as the chain ran them.
SETTINGS = ("ROUNDS", "EPISODES", "PER_PART", "SIMS", "GEN_SIMS", "SEARCH", "FOLLOW", "PRIOR", "TOP", "EVAL_OPTS", "LEAF", "WINDOW",
            "EPOCHS", "LR", "TARGET", "EVAL_EPISODES", "EVAL_MCTS", "SEED", "INIT", "THREADS")


def _stage(run: Path, name: str) -> dict[str, Any] | None:
    f = run / f"{name}.stage"
    if not f.exists():
        return None
    cmd, times = f.read_text().splitlines()[:2]
    user, system, wall = (float(x) for x in times.split())
    return {"command": cmd, "cpu_seconds": round(user + system, 1), "wall_seconds": round(wall, 1)}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


# The DAgger scripts: the settings each reads from the environment (recorded in that order), and
# the data directory it writes by default ({NAME}: the NAME setting).
DAGGER_SETTINGS = {
    "make_dagger_fighters.sh": ("ROUNDS", "EXPERT", "EPISODES", "SAMPLES", "KEEP", "EVAL"),
    "make_bc.sh": ("ROUNDS", "EXPERT", "EPISODES", "SAMPLES0", "SAMPLES1", "SAMPLES", "HIDDEN", "THREADS", "EVAL",
                   "WINDOW", "FEATURES", "INIT", "TEACHER", "START", "KEEP", "VALUES", "WIDEN", "LR", "LR0",
                   "NAME"),
    "make_dagger_pilots.sh": ("ROUNDS", "EXPERT", "EPISODES", "SAMPLES", "KEEP", "WINDOW", "HIDDEN", "THREADS", "EVAL",
                              "FEATURES", "TEACHER", "START", "VALUES", "TEMP", "LR", "EXPERT_SEAT", "NAME"),
}
DAGGER_DATA = {"make_dagger_fighters.sh": "datasets/out/gf-dagger", "make_bc.sh": "datasets/out/{NAME}",
               "make_dagger_pilots.sh": "datasets/out/{NAME}"}


def _times(f: Path) -> dict[str, float] | None:
    """A stage's <stage>.time (/usr/bin/time -a -f "%U %S %e", a line an attempt): CPU and wall
    seconds summed over every attempt; None when the stage was not timed."""
    if not f.exists():
        return None
    cpu = wall = 0.0
    for line in f.read_text().split("\n"):
        parts = line.split()
        if len(parts) == 3 and all(p.replace(".", "", 1).isdigit() for p in parts):
            cpu += float(parts[0]) + float(parts[1])
            wall += float(parts[2])
    return {"cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1)}


def dagger_main(argv: list[str]) -> None:
    """python exit_record.py dagger DATA_DIR OUT.json [GAME SCRIPT] (see the module's doc)."""
    d, out = Path(argv[0]), Path(argv[1])
    game, script = (argv[2], argv[3]) if len(argv) >= 4 else ("galaxy-fighters-v2", "make_dagger_fighters.sh")
    settings = {k: os.environ[k] for k in DAGGER_SETTINGS[script] if os.environ.get(k)}
    data = DAGGER_DATA[script].format(NAME=settings.get("NAME", ""))
    rounds = int(settings.get("ROUNDS", "0"))
    rerun = " ".join(f"{k}={v}" for k, v in settings.items())
    rec: dict[str, Any] = {
        "env_id": game,
        "method": (f"DAgger from the heuristic's action values ({script})"
                   if settings.get("TEACHER", "heuristic") == "heuristic"
                   else f"DAgger from {settings['TEACHER']}'s values per action ({script})"
                   if settings.get("VALUES") == "1"
                   else f"DAgger from {settings['TEACHER']}'s choices ({script})"),
        "settings": settings,
        "rerun": f"{rerun} DATA={data} sh notebooks/weights/{script}",
        "output": f"{data}/r{rounds}.npz",
        "machine": {"cpus": os.cpu_count(), "cpu": _cpu_model(), "platform": platform.platform()},
        "labels": {},
        "rounds": [],
    }
    for f in sorted(d.glob("*.npz.time")):
        rec["labels"][f.name.removesuffix(".time")] = _times(f)
    for r in range(rounds + 1):
        rnd: dict[str, Any]
        if r == 0 and settings.get("START"):  # round 0 is the START file, not trained here
            rnd = {"round": 0, "start": settings["START"]}
        else:
            w = json.loads((d / f"r{r}.json").read_text())
            rnd = {"round": r, "command": w["command"], "curve": w["curve"], "stage": _times(d / f"r{r}.time"),
                   "device": w.get("device", "cpu")}  # where the gradient steps ran (files before --device: the CPU)
        ev = d / f"eval-r{r}.json"
        if ev.exists():
            rnd["evaluation"] = json.loads(ev.read_text())
        rec["rounds"].append(rnd)
    timed = [t for t in list(rec["labels"].values()) + [x.get("stage") for x in rec["rounds"]] if t]
    rec["cpu_seconds_total"] = round(sum(t["cpu_seconds"] for t in timed), 1)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(rec, indent=1))
    tmp.replace(out)


def _chain_from(rec: dict[str, Any], game: str, init: str) -> None:
    """A chain started from another chain's weights (INIT beside its own make_exit record, as
    notebooks/weights/<id>-exit.json is): embeds that record as init_record, counts its CPU
    seconds in cpu_seconds_with_init and its legs in legs, and reruns it first: its rerun into
    OUT_DIR=notebooks/weights/run-exit/legN (N: its own number of legs), then this one from the
    weights it wrote there."""
    init_json = Path(init).with_suffix(".json")
    if not init_json.exists():
        return
    prev = json.loads(init_json.read_text())
    if str(prev.get("method", "")).startswith("DAgger"):  # a warm start: rerun it, start from its output
        rec["init_record"] = prev
        rec["cpu_seconds_with_init"] = round(rec["cpu_seconds_total"] + prev["cpu_seconds_total"], 1)
        own = " ".join(f"{k}={prev['output']}" if k == "INIT" else f"{k}={v}" for k, v in rec["settings"].items())
        rec["rerun"] = f"{prev['rerun']} && {own} sh notebooks/weights/make_exit.sh {game}"
        return
    if not str(prev.get("method", "")).startswith("expert iteration"):
        return
    prev_legs = int(prev.get("legs", 1))
    rec["legs"] = prev_legs + 1
    rec["init_record"] = prev
    rec["cpu_seconds_with_init"] = round(rec["cpu_seconds_total"] + prev.get("cpu_seconds_with_init",
                                                                             prev["cpu_seconds_total"]), 1)
    first = f"notebooks/weights/run-exit/leg{prev_legs}"
    own = " ".join(f"{k}={first}/{game}-exit.npz" if k == "INIT" else f"{k}={v}"
                   for k, v in rec["settings"].items())
    rec["rerun"] = f"(export OUT_DIR={first}; {prev['rerun']}) && {own} sh notebooks/weights/make_exit.sh {game}"


def main(argv: list[str]) -> None:
    game, run_dir, rounds, init, out = argv[0], Path(argv[1]), int(argv[2]), argv[3], Path(argv[4])
    # The chain's settings (make_exit.sh exports them) and the one command that reruns it.
    settings = {k: os.environ[k] for k in SETTINGS if k in os.environ}
    rerun = " ".join(f"{k}={v}" for k, v in settings.items() if k != "OUT_DIR")
    rec: dict[str, Any] = {"env_id": game, "method": "expert iteration (make_exit.sh)", "init_weights": init,
                           "settings": settings,
                           "rerun": (rerun + " " if rerun else "") + f"sh notebooks/weights/make_exit.sh {game}",
                           "machine": {"cpus": os.cpu_count(), "cpu": _cpu_model(), "platform": platform.platform()},
                           "rounds": []}
    for r in range(1, rounds + 1):
        d = run_dir / f"r{r}"
        m = json.loads((d / "data" / "manifest.json").read_text())
        w = json.loads((d / "w.json").read_text())
        rnd: dict[str, Any] = {
            "round": r,
            "data": {"created_by": m["created_by"], "episodes": m["total_episodes"], "steps": m["total_steps"],
                     "bytes": sum(p["steps"]["bytes"] + p["episodes"]["bytes"] for p in m["parts"]),
                     "agent_version": m["agent"]["version"], "return_mean": m["stats"]["return_mean"]},
            "train": {**{k: w[k] for k in ("command", "decisions", "searched", "episodes", "samples", "curve",
                                           "wall_seconds", "cpu_seconds")},
                      "device": w.get("device", "cpu")},  # where the gradient steps ran (before --device: the CPU)
            "evaluations": {k: json.loads((d / f"eval-{k}.json").read_text()) for k in ("policy", "mcts")},
            "stages": {s: _stage(run_dir, f"r{r}-{s}") for s in ("gen", "train", "eval", "eval-mcts")},
        }
        rec["rounds"].append(rnd)
    rec["cpu_seconds_total"] = round(sum(s["cpu_seconds"] for rnd in rec["rounds"]
                                         for s in rnd["stages"].values() if s), 1)
    _chain_from(rec, game, init)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(rec, indent=1))
    tmp.replace(out)


def install_main(argv: list[str]) -> None:
    """python exit_record.py install WEIGHTS.npz RECORD.json DIR NAME (see the module's doc)."""
    import numpy as np
    from galaxygym.policy import write_npz

    weights, record, out, name = Path(argv[0]), Path(argv[1]), Path(argv[2]), argv[3]
    with np.load(weights) as z:
        write_npz(out / f"{name}.npz", {k: z[k] for k in z.files}, compress=True)
    (out / f"{name}.json").write_bytes(record.read_bytes())


if __name__ == "__main__":
    if sys.argv[1:2] == ["dagger"]:
        dagger_main(sys.argv[2:])
    elif sys.argv[1:2] == ["install"]:
        install_main(sys.argv[2:])
    else:
        main(sys.argv[1:])
