"""galaxygym.league: a Python policy rated in a league of Go agents
(``galaxygym eval --league ... --games FILE``), at a tiny budget."""

from __future__ import annotations

import json

import numpy as np
import pytest

import galaxygym
from galaxygym._league import lineups


def test_lineups_mirror_go():
    """The rule of evaluate.Lineups (its Go test's cases)."""
    assert lineups(3, 3) == [[0, 1, 2]]
    assert lineups(4, 2) == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    assert lineups(2, 4) == [[0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 1, 1]]
    assert lineups(3, 4) == [[0, 0, 1, 2], [0, 1, 1, 2], [0, 1, 2, 2]]
    assert len(lineups(5, 4)) == 5


def test_league_rates_python_policy(tmp_path):
    """A first-legal-action policy joins heuristic and random on Express
    (2 players): its rating is in the report with an interval, the games
    file holds its lineups (python against each pool agent, both seats),
    and random rates below heuristic."""
    def first_legal(obs, mask):
        return int(np.flatnonzero(mask)[0])

    deals = 6
    games = tmp_path / "games.jsonl"
    record = tmp_path / "record.jsonl"
    rep = galaxygym.league(first_legal, "express-v2", pool=["heuristic", "random"], deals=deals, players=2,
                           seed=3, bootstrap=30, games_file=games, games_out=record)
    rows = {r["agent"]: r for r in rep["agents"]}
    assert set(rows) == {"heuristic", "random", "python"}
    py = rows["python"]
    assert py["ci95_low"] <= py["rating"] <= py["ci95_high"]
    assert py["games"] == 2 * 2 * deals  # two lineups, two rotations each
    assert rep["external_games"] == 2 * 2 * deals and rep["games"] == 2 * deals
    assert rows["heuristic"]["rating"] == 0
    assert rows["random"]["rating"] < rows["heuristic"]["rating"]
    h2h = rep["head_to_head"]
    i, j = h2h["agents"].index("python"), h2h["agents"].index("heuristic")
    assert h2h["meetings"][i][j] == 2 * deals
    lines = [json.loads(x) for x in games.read_text().splitlines()]
    assert len(lines) == 2 * 2 * deals
    seatings = {tuple(g["seats"]) for g in lines}
    assert seatings == {("heuristic", "python"), ("python", "heuristic"), ("random", "python"), ("python", "random")}
    assert {g["deal"] for g in lines} == set(range(deals))
    for g in lines:
        assert sorted(g["ranks"]) in ([1, 2], [1, 1])
    # The report explains the anchor, the intervals and the prior.
    assert rep["anchor"] == "heuristic" and round(rep["prior_sd_elo"]) == 521
    assert len(rep["rating_wide_prior"]) == 3
    assert rep["notes"][0].startswith("rating: Plackett-Luce rating in Elo points relative to the anchor, heuristic")
    assert "95% bootstrap percentile interval over the deals (30 resamples of the 6 deals" in rep["notes"][1]
    # The binary's record: the Go games (with lineup, rotation and seed), then the policy's.
    rec = [json.loads(x) for x in record.read_text().splitlines()]
    assert len(rec) == rep["games"] + rep["external_games"]
    assert all(set(g) >= {"lineup", "rotation", "seed"} for g in rec[:rep["games"]])
    assert [g["seats"] for g in rec[rep["games"]:]] == [g["seats"] for g in lines]


def test_league_bad_pool():
    pick = lambda obs, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    with pytest.raises(ValueError, match="at least 2"):
        galaxygym.league(pick, "express-v2", pool=["heuristic"], deals=1, players=2)
    with pytest.raises(ValueError, match="twice"):
        galaxygym.league(pick, "express-v2", pool=["heuristic", "heuristic"], deals=1, players=2)
    with pytest.raises(ValueError, match="also a pool agent"):
        galaxygym.league(pick, "express-v2", pool=["heuristic", "python"], deals=1, players=2)


def test_league_fewer_agents_than_seats(tmp_path):
    """Two pool agents and the policy at four seats: the three Go-rule
    lineups that hold every agent (the policy twice in the last), each
    rotated; the policy's appearances are counted per seat."""
    rng = np.random.default_rng(0)

    def random_legal(obs, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    games = tmp_path / "games.jsonl"
    rep = galaxygym.league(random_legal, "express-v2", pool=["heuristic", "random"], deals=1, players=4,
                           bootstrap=5, games_file=games, name="rnd")
    rows = {r["agent"]: r for r in rep["agents"]}
    assert rep["external_games"] == 3 * 4 and rep["games"] == 3 * 4
    assert rows["rnd"]["games"] == 4 * (1 + 1 + 2)
    counts = sorted(sum(s == "rnd" for s in json.loads(x)["seats"]) for x in games.read_text().splitlines())
    assert counts == [1] * 8 + [2] * 4
