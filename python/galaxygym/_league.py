"""A Python policy in a league of Go agents (docs/self-play.md, "A Python
policy in a league"): :func:`league`, the Python side of ``galaxygym eval
--league ... --games FILE``.

>>> import numpy as np, galaxygym                                   # doctest: +SKIP
>>> first_legal = lambda obs, mask: int(np.flatnonzero(mask)[0])    # doctest: +SKIP
>>> rep = galaxygym.league(first_legal, "express-v2", pool=["heuristic", "random"],
...                        deals=20, players=2)                      # doctest: +SKIP
>>> [(a["agent"], round(a["rating"])) for a in rep["agents"]]        # doctest: +SKIP
>>> print("\n".join(rep["notes"]))                                  # doctest: +SKIP

Reading the ratings: they are Elo points relative to the anchor, the
first pool agent, rated 0 by definition (so its interval is [0, 0]); the
intervals are 95% bootstrap percentile intervals over the deals. Each
rating has a N(0, 3²) prior on its log-worth (SD 521 Elo): between an
agent that never wins and one that beats it the games alone would put an
infinite gap, so that gap is the prior's, not measured (random's ~900
points below the heuristic). The report's ``rating_wide_prior`` refits
with the prior twice as wide, and ``notes`` names the ratings that move
(those the prior sets).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._server import binary_path
from .evaluation import evaluate
from .vector import GalaxyGymVectorEnv

__all__ = ["league", "lineups"]


def lineups(m: int, n: int) -> list[list[int]]:
    """The lineups of a league of ``m`` agents on an ``n``-player game, as
    agent indices by position, in lexicographic order: every n-subset of
    the pool when m >= n; when m < n, every multiset of n seats holding each
    agent at least once (for 2 agents in 4 seats: AAAB, AABB, ABBB). The
    same rule as the Go league's ``evaluate.Lineups``."""
    out: list[list[int]] = []
    cur: list[int] = []
    if m >= n:
        def rec(start: int) -> None:
            if len(cur) == n:
                out.append(list(cur))
                return
            for a in range(start, m):
                cur.append(a)
                rec(a + 1)
                cur.pop()
        rec(0)
        return out
    extra = n - m

    def rec_multi(start: int) -> None:
        if len(cur) == extra:
            out.append(sorted(list(range(m)) + cur))
            return
        for a in range(start, m):
            cur.append(a)
            rec_multi(a)
            cur.pop()
    rec_multi(0)
    return out


def _param_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def league(policy: Callable[[NDArray[np.uint8], NDArray[np.int8]], int], env_id: str,
           pool: Sequence[str] = ("heuristic", "random"), deals: int = 20, players: int | None = None,
           name: str = "python", seed: int = 0, *, bootstrap: int = 0, workers: int = 0,
           games_file: str | os.PathLike[str] | None = None, url: str | None = None, batch: int = 256,
           games_out: str | os.PathLike[str] | None = None, **params: Any) -> dict[str, Any]:
    """Rates a Python policy (obs, mask -> action) in a league with the Go
    agents of ``pool`` and returns the report of ``galaxygym eval --league
    POOL --games FILE --format json``.

    The league is that of ``eval --league`` over the agents ``pool + [name]``
    (the policy last): of the lineups of :func:`lineups` (the Go rule), those
    that hold the policy are played here through the server with
    :func:`galaxygym.evaluate` (``deals`` deals, each once per rotation of
    the seats, the other seats played by the Go agents inside the server),
    written to a games file (JSON lines ``{"seats", "scores", "ranks",
    "deal"}``, ``games_file`` when given, else a temporary file deleted
    afterwards); the binary (``$GALAXYGYM_BIN``, the wheel's, or the
    checkout's ``bin/galaxygym``) then plays the lineups of the pool alone
    on the same number of deals and fits Plackett-Luce ratings over all the
    games, with 95% intervals from a bootstrap over the deal keys
    (``bootstrap`` resamples, 0: the binary's default). The Python games of
    deal d are environment seed ``episode_seed(seed, d)``, the Go games' deal
    d is ``eval``'s deal d: different deals under the same key, so the
    bootstrap resamples them together without their being the same cards.

    ``pool`` needs at least two agent specs (``"heuristic"``, ``"random"``,
    ``"mcts@sims=64"``, ...), all distinct and none equal to ``name``.
    ``players`` and ``params`` are environment parameters, given to the
    server and to the binary (``--env-param``); ``workers`` is the binary's
    ``--workers`` (0: its CPUs). ``games_out``, when given, is where the
    binary writes every game rated (``--games-out``: the Go games, with
    their lineup, rotation and seed, then the policy's), a games file that
    ``eval --league POOL --games FILE --rate-only`` rates again without
    playing.

    Returns the parsed JSON report: env, env_params, seed, deals, players,
    games (the Go games), external_games (the policy's), bootstrap,
    lineups, columns and agents (rows best first: rank, agent, rating,
    ci95_low, ci95_high, games, win_rate, mean_rank, mean_score; the
    first pool agent, ``anchor``, is rated 0), head_to_head (agents, score,
    meetings), prior_sd_elo, rating_wide_prior (the ratings by row with the
    prior twice as wide) and notes (the lines ``eval`` prints under its
    table: the anchor, the intervals, the prior and the ratings it sets).
    Raises ValueError for a bad pool, RuntimeError with the binary's
    message when ``eval`` fails.
    """
    pool = [str(p) for p in pool]
    if len(pool) < 2:
        raise ValueError("a league wants at least 2 pool agents besides the policy")
    if len(set(pool)) != len(pool):
        raise ValueError(f"pool {pool} names an agent twice (give instances different options: name@key=value)")
    if name in pool:
        raise ValueError(f"name {name!r} is also a pool agent")
    if deals < 1:
        raise ValueError(f"deals={deals}: want at least 1")
    env_params = dict(params)
    if players is not None:
        env_params["players"] = players
    probe = GalaxyGymVectorEnv(env_id, 1, url=url, rewards="actor", **env_params)
    n = probe.num_players
    probe.close()
    if n < 2:
        raise ValueError(f"{env_id} has one player: a league wants a multi-player game")
    m = len(pool)
    labels = pool + [name]
    lines: list[str] = []
    for lu in lineups(m + 1, n):
        if m not in lu:
            continue
        seats = [None if a == m else pool[a] for a in lu]
        rep = evaluate(policy, env_id, seats=seats, episodes=deals, seed=seed, rotate=True, name=name,
                       batch=batch, url=url, **env_params)
        for g in rep["games"]:
            r = g["rotation"]
            scores = [float(s) for s in g["scores"]]
            if not all(math.isfinite(s) for s in scores):
                raise RuntimeError(f"deal {g['deal']}: non-finite scores {scores}")
            lines.append(json.dumps({"seats": [labels[lu[(k + r) % n]] for k in range(n)], "scores": scores,
                                     "ranks": [int(x) for x in g["ranks"]], "deal": int(g["deal"])},
                                    allow_nan=False))
    tmp = None
    if games_file is None:
        fd, tmp = tempfile.mkstemp(prefix="galaxygym-league-", suffix=".jsonl")
        os.close(fd)
        path = tmp
    else:
        path = os.fspath(games_file)
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        cmd = [binary_path(), "eval", "--env", env_id, "--league", ",".join(pool), "--games", path,
               "--episodes", str(deals), "--seed", str(seed), "--workers", str(workers), "--format", "json"]
        if bootstrap:
            cmd += ["--bootstrap", str(bootstrap)]
        if games_out is not None:
            cmd += ["--games-out", os.fspath(games_out)]
        for k, v in env_params.items():
            cmd += ["--env-param", f"{k}={_param_value(v)}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed (exit {proc.returncode}): {proc.stderr.strip()}")
        out: dict[str, Any] = json.loads(proc.stdout)
        return out
    finally:
        if tmp is not None:
            os.unlink(tmp)
