"""Play a Python policy against the built-in Go agents through the server
(docs/self-play.md): :func:`evaluate`, the Python side of ``galaxygym eval
--seats ... --rotate``.

>>> import numpy as np, galaxygym                                  # doctest: +SKIP
>>> first_legal = lambda obs, mask: int(np.flatnonzero(mask)[0])   # doctest: +SKIP
>>> galaxygym.evaluate(first_legal, "express-v2",                  # doctest: +SKIP
...                    seats=[None, "heuristic", "random", "random"], episodes=20)

A policy that acts on a whole batch at once (``batched=True``: observations
(B, *obs_shape) and masks (B, A) in, B actions out) and a Stable-Baselines3
model (anything with ``.policy.get_distribution``: PPO, A2C, MaskablePPO;
it plays its most probable legal action) are called once per step for
every game waiting on it, which is what makes evaluation fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._client import episode_seed
from .vector import GalaxyGymVectorEnv

__all__ = ["evaluate", "COLUMNS"]

#: The columns of a report's rows, those of ``galaxygym eval --seats``.
COLUMNS = ("agent", "games", "win_rate", "win_ci95_low", "win_ci95_high", "mean_score", "score_ci95_low",
           "score_ci95_high", "mean_rank", "rank_ci95_low", "rank_ci95_high", "mean_return", "mean_length",
           "score_diff_vs_first", "score_diff_ci95_low", "score_diff_ci95_high")

_WIN = 1  # outcome code of a win (galaxygym.OUTCOMES)


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    if n == 0:
        return math.nan, math.nan
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


_T975_SMALL = (12.706204736, 4.302652730, 3.182446305, 2.776445105)


def _t975(df: int) -> float:
    """The 0.975 quantile of Student's t with df degrees of freedom: exact
    for df <= 4, else the Cornish-Fisher expansion in 1/df (error < 1e-4)."""
    if df <= 4:
        return _T975_SMALL[df - 1]
    z = 1.959963984540054
    v = float(df)
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4))


def _t_ci(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% t interval."""
    a = np.asarray(xs, dtype=np.float64)
    if len(a) == 0:
        return math.nan, math.nan, math.nan
    m = float(a.mean())
    if len(a) < 2:
        return m, math.nan, math.nan
    h = float(_t975(len(a) - 1) * a.std(ddof=1) / math.sqrt(len(a)))
    return m, m - h, m + h


#: A batch of actions for a batch of observations and masks.
BatchPolicy = Callable[[NDArray[np.uint8], NDArray[np.int8]], Any]


def _batch_policy(policy: Any, batched: bool) -> BatchPolicy:
    """The policy as a function of (B, *obs_shape) observations and (B, A)
    masks to B actions: an SB3 model through its distribution's logits
    (illegal actions masked out, the most probable legal one played), a
    batched callable as it is, a per-observation callable row by row."""
    if hasattr(policy, "policy") and hasattr(policy.policy, "get_distribution"):
        return _sb3_policy(policy)
    if batched:
        batch_policy: BatchPolicy = policy
        return batch_policy
    return lambda obs, mask: np.array([int(policy(o, m)) for o, m in zip(obs, mask)], dtype=np.int64)


def _sb3_policy(model: Any) -> BatchPolicy:
    """An SB3 model's greedy legal action: argmax of its logits over the
    legal actions, on a batch, without gradients. A model whose observations
    are dicts of the observation and the game's action features
    (galaxygym.sb3.VecEnv(..., action_features=True)) is called with the
    features as a third argument; the returned function's
    ``action_features`` attribute says so."""
    import torch

    spaces = getattr(getattr(model.policy, "observation_space", None), "spaces", None)
    features = spaces is not None and "action_features" in spaces

    def act(obs: NDArray[np.uint8], mask: NDArray[np.int8], afeat: Any = None) -> NDArray[np.int64]:
        x: Any = obs
        if features:
            if afeat is None:
                raise ValueError("this SB3 model reads the game's action features: give them")
            x = {"obs": obs, "action_features": np.asarray(afeat, np.uint8)}
        with torch.no_grad():
            t, _ = model.policy.obs_to_tensor(x)
            dist = model.policy.get_distribution(t)
            logits = dist.distribution.logits.cpu().numpy()
        masked: NDArray[np.float64] = np.where(np.asarray(mask) != 0, logits, -np.inf)
        return np.asarray(masked.argmax(axis=1), dtype=np.int64)

    setattr(act, "action_features", features)
    return act


def evaluate(policy: Any, env_id: str,
             seats: Sequence[str | None] | None = None, episodes: int = 100, *, seed: int = 0,
             rotate: bool = True, name: str = "python", batch: int = 256, url: str | None = None,
             batched: bool = False, **params: Any) -> dict[str, Any]:
    """Plays ``policy`` against built-in agents on ``episodes`` deals and
    returns a report with the rows of ``galaxygym eval --seats``.

    The lineup ``seats`` has one entry per seat: an agent spec
    (``"heuristic"``, ``"random"``, ``"mcts@sims=64"``, ``"policy@weights=NAME"``
    from the server's ``--weights`` folder) or None for the Python policy
    (``seats`` with one entry fewer than the players puts the policy first;
    None: the policy against ``heuristic`` in every other seat). With
    ``rotate`` (the default) every deal is played once per rotation of the
    lineup (seat k played by ``seats[(k + r) % n]`` in rotation r), so every
    agent meets every deal from every seat, as ``eval --rotate`` does. Deal d
    is environment seed ``episode_seed(seed, d)`` in every rotation (the
    opponents' agent seed follows from it, docs/protocol.md "Opponents"):
    results are paired by deal, though not the same deals as ``eval``'s.

    ``policy(obs, mask) -> action`` is called once per decision of the
    policy's seats, with the seat's observation (uint8, obs_shape) and legal
    mask (int8, (A,)). With ``batched=True`` it is called once per step with
    every waiting game's observations (uint8, (B, *obs_shape)) and masks
    (int8, (B, A)) and returns B actions (any integer sequence). A
    Stable-Baselines3 model (PPO, A2C, MaskablePPO: anything with
    ``.policy.get_distribution``) may be passed as it is: it plays its most
    probable legal action, a batch at a time (one trained on
    ``galaxygym.sb3.VecEnv(..., action_features=True)`` is given the game's
    action features too). The games run ``batch`` at a
    time on one connection; the opponents play inside the server.

    Returns a dict: env, episodes, seats (the labels, ``name`` for the
    policy), rotate, columns (:data:`COLUMNS`) and agents (one row dict per
    distinct label, in order of first seat), and games (per game: deal,
    rotation, scores, ranks, outcomes, returns, length).
    """
    # The probe stays open until the end: it keeps the private local server
    # (when url is None) running for every rotation's connection.
    probe = GalaxyGymVectorEnv(env_id, 1, url=url, rewards="actor", **params)
    try:
        return _evaluate(probe, policy, env_id, seats, episodes, seed, rotate, name, batch, url, batched, params)
    finally:
        probe.close()


def _evaluate(probe: GalaxyGymVectorEnv, policy: Any, env_id: str, seats: Sequence[str | None] | None,
              episodes: int, seed: int, rotate: bool, name: str, batch: int, url: str | None, batched: bool,
              params: dict[str, Any]) -> dict[str, Any]:
    """evaluate's work, with the probe environment open."""
    n = probe.num_players
    if n < 2:
        raise ValueError(f"{env_id} has one player: use gymnasium's own evaluation for it")
    lineup: list[str | None] = [None]
    lineup += ["heuristic"] * (n - 1) if seats is None else list(seats)
    if seats is not None and len(seats) != n - 1:
        lineup = list(seats)
    if len(lineup) != n:
        raise ValueError(f"seats has {len(lineup)} entries for {n} players (one per seat, None for the policy)")
    if all(s is not None for s in lineup):
        raise ValueError("seats has no None entry: the policy plays no seat")
    labels = [name if s is None else str(s) for s in lineup]
    act = _batch_policy(policy, batched)
    rotations = range(n) if rotate else range(1)
    games: list[dict[str, Any]] = []
    for r in rotations:
        by_seat = [lineup[(k + r) % n] for k in range(n)]
        learner = [k for k in range(n) if by_seat[k] is None]
        opponents = [s for s in by_seat if s is not None]
        for lo in range(0, episodes, batch):
            deals = list(range(lo, min(episodes, lo + batch)))
            games += _play(act, env_id, url, params, learner, opponents, deals, seed, r)
    # Rows: per label, its appearances.
    order = list(dict.fromkeys(labels))
    rows = []
    first_means: dict[int, float] = {}
    per_label_deal: dict[str, dict[int, list[float]]] = {lab: {} for lab in order}
    app: dict[str, list[tuple[float, int, int, float, int]]] = {lab: [] for lab in order}
    for g in games:
        for k in range(n):
            lab = labels[(k + g["rotation"]) % n]
            app[lab].append((g["scores"][k], g["ranks"][k], g["outcomes"][k], g["returns"][k], g["length"]))
            per_label_deal[lab].setdefault(g["deal"], []).append(g["scores"][k])
    for d, xs in per_label_deal[order[0]].items():
        first_means[d] = float(np.mean(xs))
    for lab in order:
        a = app[lab]
        sc, rk, oc, rt, ln = (list(x) for x in zip(*a))
        wins = sum(1 for o in oc if o == _WIN)
        wl, wh = _wilson(wins, len(a))
        ms, sl, sh = _t_ci(sc)
        mr, rl, rh = _t_ci(rk)
        row: dict[str, Any] = {"agent": lab, "games": len(a), "win_rate": wins / len(a), "win_ci95_low": wl,
                               "win_ci95_high": wh, "mean_score": ms, "score_ci95_low": sl, "score_ci95_high": sh,
                               "mean_rank": mr, "rank_ci95_low": rl, "rank_ci95_high": rh,
                               "mean_return": float(np.mean(rt)), "mean_length": float(np.mean(ln)),
                               "score_diff_vs_first": None, "score_diff_ci95_low": None, "score_diff_ci95_high": None}
        if lab != order[0]:
            diffs = [float(np.mean(xs)) - first_means[d] for d, xs in per_label_deal[lab].items()]
            row["score_diff_vs_first"], row["score_diff_ci95_low"], row["score_diff_ci95_high"] = _t_ci(diffs)
        rows.append(row)
    return {"env": env_id, "env_params": params, "seed": seed, "episodes": episodes, "seats": labels,
            "rotate": rotate, "columns": list(COLUMNS), "agents": rows, "games": games}


def _play(act: BatchPolicy, env_id: str, url: str | None, params: dict[str, Any], learner: list[int],
          opponents: list[str], deals: list[int], seed: int, rotation: int) -> list[dict[str, Any]]:
    """Plays deals with the policy in the learner seats, one connection."""
    extra: dict[str, Any] = {"learner_seats": learner}
    if opponents:
        extra["opponents"] = opponents
    features = bool(getattr(act, "action_features", False))  # an SB3 model that reads them
    if features:
        extra["action_features"] = True
    venv = GalaxyGymVectorEnv(env_id, len(deals), url=url, autoreset_mode="next_step", **extra, **params)
    try:
        obs, infos = venv.reset(seed=[episode_seed(seed, d) for d in deals])
        m = len(deals)
        p = venv.num_players
        done = np.zeros(m, dtype=bool)
        sums = np.zeros((m, p))
        out: list[dict[str, Any] | None] = [None] * m
        while not done.all():
            mask = infos["action_mask"]
            actions = mask.argmax(axis=1).astype(np.int64)  # a legal action of a finished game (ignored)
            waiting = np.flatnonzero(~done)
            if features:
                act3: Any = act
                chosen = np.asarray(act3(obs[waiting], mask[waiting], infos["action_features"][waiting])).reshape(-1)
            else:
                chosen = np.asarray(act(obs[waiting], mask[waiting])).reshape(-1)
            if len(chosen) != len(waiting):
                raise ValueError(f"the policy returned {len(chosen)} actions for {len(waiting)} observations")
            actions[waiting] = chosen
            obs, _, term, trunc, infos = venv.step(actions)
            live = ~done
            sums[live] += infos["rewards"][live]
            for i in np.flatnonzero(live & (term | trunc)):
                done[i] = True
                out[i] = {"deal": deals[i], "rotation": rotation, "scores": infos["scores"][i].tolist(),
                          "ranks": infos["ranks"][i].tolist(), "outcomes": infos["outcomes"][i].tolist(),
                          "returns": sums[i].tolist(), "length": int(infos["steps"][i])}
        return [g for g in out if g is not None]
    finally:
        venv.close()
