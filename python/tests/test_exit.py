"""Expert iteration (issue 35): generate --record-search's columns read back
by galaxygym.datasets.load, python -m galaxygym.exit's training and its
format-version-3 export (played by the Go policy and mcts@weights agents),
and notebooks/weights/make_exit.sh's SMOKE chain, resumed stage by stage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]
BC = REPO / "notebooks" / "weights" / "galaxy-express-v1-bc.npz"


@pytest.fixture(scope="module")
def search_dataset(server_bin, tmp_path_factory) -> Path:
    """A compact dataset of the guided search with its search columns."""
    out = tmp_path_factory.mktemp("ds") / "search"
    subprocess.run([server_bin, "generate", "--env", "galaxy-express-v1", "--agent", "mcts", "--agent-opt", "sims=6",
                    "--agent-opt", f"weights={BC}", "--record-search", "--observations", "none", "--episodes", "6",
                    "--episodes-per-part", "4", "--seed", "2", "--out", str(out)], check=True, capture_output=True)
    return out


def test_load_reads_search_columns(search_dataset, server_bin):
    from galaxygym.datasets import load

    ds = load(search_dataset)
    assert ds.manifest["search"] == "visits"
    assert ds.search_policy.shape == ds.action_mask.shape and ds.search_policy.dtype == np.float32
    dec = ds.action >= 0
    pol, mask, val = ds.search_policy[dec], ds.action_mask[dec], ds.search_value[dec]
    assert np.allclose(pol.sum(1), 1, atol=1e-5)
    assert (pol[mask == 0] == 0).all()
    searched = ~np.isnan(val)
    assert searched.mean() > 0.5
    # Unsearched decisions hold 1 on the action played; final rows zeros and NaN.
    rows = np.flatnonzero(dec)[~searched]
    assert (ds.search_policy[rows, ds.action[rows]] == 1).all()
    assert (ds.search_policy[~dec] == 0).all() and np.isnan(ds.search_value[~dec]).all()
    # A full dataset of the same run has the same search columns.
    full = Path(str(search_dataset) + "-full")
    subprocess.run([server_bin, "generate", "--env", "galaxy-express-v1", "--agent", "mcts", "--agent-opt", "sims=6",
                    "--agent-opt", f"weights={BC}", "--record-search", "--episodes", "6", "--episodes-per-part", "4",
                    "--seed", "2", "--out", str(full)], check=True, capture_output=True)
    f = load(full)
    assert np.array_equal(f.search_policy, ds.search_policy)
    assert np.array_equal(f.search_value, ds.search_value, equal_nan=True)


def test_targets_played_and_best(search_dataset, tmp_path, server_bin):
    """--target played: 1 on the action played; best: 1 on the most visited
    action (refused on sequential halving's data, whose visits tie);
    mcts@follow=1 plays the policy's games and records them unsearched."""
    from galaxygym.datasets import load
    from galaxygym.exit import load_search_data

    ds = load(search_dataset)
    dec = ds.action >= 0
    visits = load_search_data([search_dataset])
    played = load_search_data([search_dataset], target="played")
    best = load_search_data([search_dataset], target="best")
    assert (played["pi"].argmax(1) == ds.action[dec]).all() and (played["pi"].sum(1) == 1).all()
    assert (best["pi"].argmax(1) == visits["pi"].argmax(1)).all() and (best["pi"].sum(1) == 1).all()
    with pytest.raises(ValueError, match="target"):
        load_search_data([search_dataset], target="q")
    # follow=1: the policy plays every decision, the search still answers.
    out = tmp_path / "follow"
    subprocess.run([server_bin, "generate", "--env", "galaxy-express-v1", "--agent", "mcts", "--agent-opt", "sims=16",
                    "--agent-opt", f"weights={BC}", "--agent-opt", "follow=1", "--record-search", "--observations",
                    "none", "--episodes", "6", "--seed", "2", "--out", str(out)], check=True, capture_output=True)
    pol = subprocess.run([server_bin, "generate", "--env", "galaxy-express-v1", "--agent", "policy", "--agent-opt",
                          f"weights={BC}", "--agent-opt", "greedy=true", "--observations", "none", "--episodes", "6",
                          "--seed", "2", "--out", str(tmp_path / "policy")], check=True, capture_output=True)
    assert pol.returncode == 0
    f, g = load(out), load(tmp_path / "policy")
    assert np.array_equal(f.action, g.action)  # the policy's games, move for move
    # Every decision was followed, so none counts as searched: no policy target.
    assert not load_search_data([out], target="played")["searched"].any()
    # Sequential halving's visits tie at most decisions: "best" is refused on its data.
    halv = tmp_path / "halving"
    subprocess.run([server_bin, "generate", "--env", "galaxy-express-v1", "--agent", "mcts", "--agent-opt", "sims=16",
                    "--agent-opt", "search=halving", "--agent-opt", f"weights={BC}", "--record-search",
                    "--observations", "none", "--episodes", "2", "--seed", "2", "--out", str(halv)],
                   check=True, capture_output=True)
    with pytest.raises(ValueError, match="halving"):
        load_search_data([halv], target="best")
    assert load_search_data([halv], target="played")["pi"].sum() > 0


def test_returns_to_go():
    from galaxygym.exit import returns_to_go

    eid = np.array([0, 0, 0, 1, 1])
    player = np.array([0, 1, 0, 1, 0])
    rewards = np.array([[1, 0], [0, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    assert returns_to_go(eid, player, rewards).tolist() == [4, 6, 3, 14, 7]


def test_exit_trains_and_exports_version_3(search_dataset, server_bin, tmp_path, monkeypatch):
    import galaxygym
    from galaxygym.exit import build_net, export_exit, load_search_data, train_exit

    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    data = load_search_data([search_dataset])
    net = build_net(BC, data)
    ce0 = None
    curve = train_exit(data, net, samples=2048, batch_size=64, lr=1e-3, checkpoints=2, log=None)
    assert len(curve) == 2 and all(np.isfinite(p["loss"]) for p in curve)
    out = tmp_path / "w.npz"
    meta = export_exit(net, out, "galaxy-express-v1")
    assert meta["version"] == 3 and meta["value_outputs"] == 1
    p = galaxygym.load_policy(out)
    assert p["value"]
    # The file computes the torch network: probabilities and value.
    obs = data["obs"][:16]
    with torch.no_grad():
        logits, v = net(torch.from_numpy(obs))
    mask = data["mask"][:16]
    want = torch.softmax(logits.masked_fill(~torch.from_numpy(mask), -1e9), 1).numpy()
    got = galaxygym.policy_probs(out, obs, mask)
    assert np.allclose(got, want, atol=1e-4), ce0
    assert np.allclose(galaxygym.policy_value(out, obs)[:, 0], v.numpy(), rtol=1e-4, atol=1e-3)
    # The warm start kept the clone's policy layers at the start: a fresh net from BC has them.
    fresh = build_net(BC, data)
    first = [m for m in fresh.policy.pi if isinstance(m, torch.nn.Linear)][0]
    assert np.allclose(first.weight.detach().numpy(), galaxygym.load_policy(BC)["layers"][0][0], atol=1e-6)
    # The Go agents load it: the policy and the guided search play.
    for agent in (f"policy@weights={out}", f"mcts@sims=4@weights={out}"):
        res = subprocess.run([server_bin, "eval", "--env", "galaxy-express-v1", "--agents", agent, "--episodes", "2",
                              "--format", "json"], check=True, capture_output=True, text=True)
        assert json.loads(res.stdout)["agents"][0]["episodes"] == 2


def test_make_exit_smoke_chain_resumes(server_bin, tmp_path):
    """notebooks/weights/make_exit.sh SMOKE=1 for galaxy-express-v1: two
    rounds of generate -> train -> eval, the record of the chain, and a
    rerun that skips every complete stage and redoes only a removed one."""
    env = dict(os.environ, SMOKE="1", OUT_DIR=str(tmp_path), PY=sys.executable, GALAXYGYM_BIN=server_bin,
               THREADS="1", WORKERS="2")
    run = ["sh", "notebooks/weights/make_exit.sh", "galaxy-express-v1"]
    subprocess.run(run, cwd=REPO, env=env, check=True, capture_output=True, timeout=300)
    rec = json.loads((tmp_path / "galaxy-express-v1-exit.json").read_text())
    assert len(rec["rounds"]) == 2 and rec["machine"]["cpus"] >= 1
    for rnd in rec["rounds"]:
        assert rnd["data"]["episodes"] == 6 and "--record-search" in rnd["data"]["created_by"]
        assert rnd["train"]["curve"] and rnd["evaluations"]["policy"]["agents"]
        assert rnd["train"]["device"].startswith("cuda" if torch.cuda.is_available() else "cpu")
        assert all(s is not None and s["cpu_seconds"] >= 0 for s in rnd["stages"].values())
    assert rec["rounds"][1]["data"]["agent_version"].startswith("sha256:")
    import galaxygym
    assert galaxygym.load_policy(tmp_path / "galaxy-express-v1-exit.npz")["value"]
    w2 = (tmp_path / "galaxy-express-v1" / "r2" / "w.npz").read_bytes()
    # A killed training stage: its outputs gone; the rerun redoes it alone.
    (tmp_path / "galaxy-express-v1" / "r2" / "w.json").unlink()
    res = subprocess.run(run, cwd=REPO, env=env, check=True, capture_output=True, text=True, timeout=300)
    skipped = [ln for ln in res.stdout.splitlines() if ln.endswith("skipped")]
    assert len(skipped) == 7, res.stdout
    assert "r2-train: " in res.stdout
    assert (tmp_path / "galaxy-express-v1" / "r2" / "w.npz").read_bytes() == w2  # seeded: the same weights


def test_make_exit_smoke_chain_top(server_bin, tmp_path):
    """make_exit.sh with the Gumbel-style teacher (SEARCH=halving PRIOR=rollout
    TOP=1, TARGET=played) and EVAL_OPTS: the options reach the generated data's
    command, the evaluated search's spec and the chain's record."""
    env = dict(os.environ, SMOKE="1", ROUNDS="1", OUT_DIR=str(tmp_path), PY=sys.executable,
               GALAXYGYM_BIN=server_bin, THREADS="1", WORKERS="2", SEARCH="halving", PRIOR="rollout", TOP="1",
               TARGET="played", EVAL_OPTS="@search=halving@prior=rollout@top=1")
    subprocess.run(["sh", "notebooks/weights/make_exit.sh", "galaxy-express-v1"], cwd=REPO, env=env, check=True,
                   capture_output=True, timeout=300)
    rec = json.loads((tmp_path / "galaxy-express-v1-exit.json").read_text())
    rnd = rec["rounds"][0]
    assert "--agent-opt top=1" in rnd["stages"]["gen"]["command"]
    assert "--agent-opt search=halving" in rnd["stages"]["gen"]["command"]
    assert "--target played" in rnd["train"]["command"]
    agents = [a["agent"] for a in rnd["evaluations"]["mcts"]["agents"]]
    assert any(a.endswith("@leaf=rollout@search=halving@prior=rollout@top=1") for a in agents), agents
    assert rec["settings"]["TOP"] == "1" and rec["settings"]["EVAL_OPTS"] == "@search=halving@prior=rollout@top=1"


def test_exit_record_chain_from_an_exit_file(tmp_path):
    """A chain whose INIT is another chain's -exit file embeds that chain's record, adds its
    CPU, and its rerun replays both legs: the first into run-exit/leg1, the second from there;
    a third leg puts the second into leg2, so no two legs share a directory."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("exit_record", REPO / "notebooks" / "weights" / "exit_record.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    first = {"method": "expert iteration (make_exit.sh)", "cpu_seconds_total": 100.0,
             "rerun": "ROUNDS=1 INIT=notebooks/weights/g-selfplay.npz sh notebooks/weights/make_exit.sh g"}
    (tmp_path / "g-exit.json").write_text(json.dumps(first))
    rec = {"method": first["method"], "settings": {"ROUNDS": "1", "INIT": str(tmp_path / "g-exit.npz")},
           "cpu_seconds_total": 50.0}
    mod._chain_from(rec, "g", str(tmp_path / "g-exit.npz"))
    assert rec["legs"] == 2 and rec["cpu_seconds_with_init"] == 150.0 and rec["init_record"] == first
    assert rec["rerun"] == ("(export OUT_DIR=notebooks/weights/run-exit/leg1; " + first["rerun"] + ") && ROUNDS=1 "
                            "INIT=notebooks/weights/run-exit/leg1/g-exit.npz sh notebooks/weights/make_exit.sh g")
    (tmp_path / "g-exit.json").write_text(json.dumps(rec))
    third = {"settings": {"INIT": str(tmp_path / "g-exit.npz")}, "cpu_seconds_total": 1.0}
    mod._chain_from(third, "g", str(tmp_path / "g-exit.npz"))
    assert third["legs"] == 3 and third["cpu_seconds_with_init"] == 151.0
    assert third["rerun"].startswith("(export OUT_DIR=notebooks/weights/run-exit/leg2; (export OUT_DIR=")
    assert third["rerun"].endswith("INIT=notebooks/weights/run-exit/leg2/g-exit.npz sh notebooks/weights/make_exit.sh g")
    # An INIT without a chain's record beside it (the committed clones): nothing is added.
    plain = {"settings": {}, "cpu_seconds_total": 1.0}
    mod._chain_from(plain, "g", str(tmp_path / "other.npz"))
    assert "init_record" not in plain and "legs" not in plain


def test_make_dagger_fighters_smoke_and_chain_from_it(server_bin, tmp_path):
    """notebooks/weights/make_dagger_fighters.sh SMOKE=1: the expert's labels, the clone and two
    DAgger rounds, each stage timed; the record (exit_record.py dagger) holds every round's
    command and curve and the rerun; a second run skips every stage; a make_exit.sh chain whose
    INIT is a copy of the output beside that record embeds it and reruns it first."""
    env = dict(os.environ, SMOKE="1", DATA=str(tmp_path), PY=sys.executable, GALAXYGYM_BIN=server_bin)
    run = ["sh", "notebooks/weights/make_dagger_fighters.sh"]
    subprocess.run(run, cwd=REPO, env=env, check=True, capture_output=True, timeout=600)
    rec = json.loads((tmp_path / "galaxy-fighters-v2-dagger.json").read_text())
    assert rec["method"].startswith("DAgger") and rec["output"] == "datasets/out/gf-dagger/r2.npz"
    assert [r["round"] for r in rec["rounds"]] == [0, 1, 2]
    assert "--dagger" not in rec["rounds"][0]["command"]
    assert rec["rounds"][2]["command"].count("--dagger") == 3 and "--init" in rec["rounds"][2]["command"]
    assert all(r["curve"] and r["stage"]["cpu_seconds"] > 0 for r in rec["rounds"])
    assert set(rec["labels"]) == {"expert.npz", "v1.npz", "v1g.npz", "v2.npz"}
    assert rec["cpu_seconds_total"] > 0 and rec["rerun"].startswith("ROUNDS=2 EXPERT=6 ")
    import galaxygym
    assert galaxygym.load_policy(tmp_path / "r2.npz")["meta"]["env_id"] == "galaxy-fighters-v2"
    r2 = (tmp_path / "r2.npz").read_bytes()
    subprocess.run(run, cwd=REPO, env=env, check=True, capture_output=True, timeout=300)
    assert (tmp_path / "r2.npz").read_bytes() == r2
    assert (tmp_path / "r2.time").read_text().count("\n") == 1  # not trained again

    import importlib.util
    spec = importlib.util.spec_from_file_location("exit_record", REPO / "notebooks" / "weights" / "exit_record.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    (tmp_path / "g-dagger.json").write_text(json.dumps(rec))
    chain = {"settings": {"ROUNDS": "1", "INIT": str(tmp_path / "g-dagger.npz")}, "cpu_seconds_total": 5.0}
    mod._chain_from(chain, "galaxy-fighters-v2", str(tmp_path / "g-dagger.npz"))
    assert chain["init_record"] == rec and "legs" not in chain
    assert chain["cpu_seconds_with_init"] == round(5.0 + rec["cpu_seconds_total"], 1)
    assert chain["rerun"] == (rec["rerun"] + " && ROUNDS=1 INIT=datasets/out/gf-dagger/r2.npz "
                              "sh notebooks/weights/make_exit.sh galaxy-fighters-v2")


def test_make_bc_smoke_resumes_and_installs(server_bin, tmp_path):
    """notebooks/weights/make_bc.sh SMOKE=1 (Galaxy Express's DAgger chain, which made the
    committed -bc and -dagger files): the expert's labels, the clone and two DAgger rounds, each
    round trained on every label file so far from the previous round's weights at the chosen
    width, and evaluated; the record (exit_record.py dagger ... galaxy-express-v1 make_bc.sh)
    holds them and the rerun; a second run skips every stage; INSTALL=1 writes the last round's
    weights, compressed, and the record under WEIGHTS_DIR."""
    import numpy as np

    data, weights = tmp_path / "run", tmp_path / "weights"
    weights.mkdir()
    env = dict(os.environ, SMOKE="1", DATA=str(data), PY=sys.executable, GALAXYGYM_BIN=server_bin, NAME="ge-smoke")
    run = ["sh", "notebooks/weights/make_bc.sh"]
    subprocess.run(run, cwd=REPO, env=env, check=True, capture_output=True, timeout=600)
    rec = json.loads((data / "ge-smoke.json").read_text())
    assert rec["env_id"] == "galaxy-express-v1" and rec["method"].endswith("(make_bc.sh)")
    assert rec["output"] == "datasets/out/ge-smoke/r2.npz"
    assert rec["rerun"].startswith("ROUNDS=2 EXPERT=8 ") and "HIDDEN=16,16" in rec["rerun"]
    assert rec["rerun"].endswith("NAME=ge-smoke DATA=datasets/out/ge-smoke sh notebooks/weights/make_bc.sh")
    assert [r["round"] for r in rec["rounds"]] == [0, 1, 2]
    assert all("--hidden 16,16" in r["command"] for r in rec["rounds"])
    assert "--dagger" not in rec["rounds"][0]["command"]
    assert rec["rounds"][2]["command"].count("--dagger") == 2 and "--init" in rec["rounds"][2]["command"]
    for r in rec["rounds"]:
        assert r["curve"] and r["stage"]["cpu_seconds"] > 0
        (row,) = r["evaluation"]["agents"]
        assert row["episodes"] == 4 and row["agent"].endswith(f"r{r['round']}.npz@greedy=true")
    assert set(rec["labels"]) == {"expert.npz", "v1.npz", "v2.npz"}
    r2 = (data / "r2.npz").read_bytes()
    subprocess.run(run, cwd=REPO, env=dict(env, INSTALL="1", WEIGHTS_DIR=str(weights)), check=True,
                   capture_output=True, timeout=300)
    assert (data / "r2.npz").read_bytes() == r2
    assert (data / "r2.time").read_text().count("\n") == 1  # not trained again
    assert json.loads((weights / "ge-smoke.json").read_text()) == rec
    with np.load(data / "r2.npz") as a, np.load(weights / "ge-smoke.npz") as b:
        assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files)
    assert (weights / "ge-smoke.npz").stat().st_size < len(r2)  # compressed
    # WINDOW=1: each round trains on the heuristic's episodes and its own label file only.
    win = tmp_path / "win"
    subprocess.run(run, cwd=REPO, env=dict(env, DATA=str(win), WINDOW="1"), check=True, capture_output=True,
                   timeout=600)
    rec = json.loads((win / "ge-smoke.json").read_text())
    assert rec["settings"]["WINDOW"] == "1" and "WINDOW=1 " in rec["rerun"]
    assert rec["rounds"][1]["command"].count("--dagger") == 1 and f"--dagger {win}/v1.npz" in rec["rounds"][1]["command"]
    assert rec["rounds"][2]["command"].count("--dagger") == 1 and f"--dagger {win}/v2.npz" in rec["rounds"][2]["command"]
    # FEATURES=1 INIT=FILE: the labels hold the game's action features, round 0 fine-tunes FILE on
    # the heuristic's episodes at LR0, every round is greedy at LR from the previous one, and the
    # clone reads the features (weights format version 5).
    feat = tmp_path / "feat"
    subprocess.run(run, cwd=REPO, env=dict(env, DATA=str(feat), FEATURES="1", INIT=str(data / "r2.npz")), check=True,
                   capture_output=True, timeout=600)
    rec = json.loads((feat / "ge-smoke.json").read_text())
    assert rec["settings"]["FEATURES"] == "1" and rec["settings"]["INIT"] == str(data / "r2.npz")
    r0, r1 = rec["rounds"][0]["command"], rec["rounds"][1]["command"]
    assert f"--init {data}/r2.npz" in r0 and "--lr 1e-4" in r0 and "--action-features" in r0
    assert "--lr 5e-4" in r1 and "--action-features" in r1 and f"--init {feat}/r0.pt" in r1
    with np.load(feat / "v1.npz") as z:
        assert z["afeat"].shape == (len(z["obs"]), 56, 4)
    meta = json.loads(np.load(feat / "r2.npz")["meta"].tobytes())
    assert meta["version"] == 5 and meta["action_features"] == ["lost", "orbit", "deliver", "trap"]
    # A search teacher (TEACHER=mcts@sims=4, START the features run's weights, KEEP=0): no
    # heuristic episodes, hard labels with the features, every round greedy from START on the
    # teacher's label files alone (the newest as --data, WINDOW=2: the one before it beside).
    teach = tmp_path / "teacher"
    start = feat / "r2.npz"
    subprocess.run(run, cwd=REPO, env=dict(env, DATA=str(teach), FEATURES="1", START=str(start),
                                            TEACHER="mcts@sims=4", KEEP="0", WINDOW="2"),
                   check=True, capture_output=True, timeout=600)
    assert (teach / "r0.npz").read_bytes() == start.read_bytes() and not (teach / "expert.npz").exists()
    with np.load(teach / "v2.npz") as z:
        assert "q" not in z.files and len(z["action"]) > 0 and "afeat" in z.files
        assert all(z["mask"][i, a] for i, a in enumerate(z["action"]))
    rec = json.loads((teach / "ge-smoke.json").read_text())
    assert rec["method"] == "DAgger from mcts@sims=4's choices (make_bc.sh)"
    assert rec["rounds"][0]["start"] == str(start) and "evaluation" in rec["rounds"][0]
    r1, r2 = rec["rounds"][1]["command"], rec["rounds"][2]["command"]
    assert f"--data {teach}/v1.npz" in r1 and "--dagger" not in r1 and f"--init {teach}/r0.npz" in r1
    assert f"--data {teach}/v2.npz" in r2 and f"--dagger {teach}/v1.npz" in r2 and f"--init {teach}/r1.pt" in r2
    assert "--soft" not in r1 + r2 and "--lr 5e-4" in r2 and "--action-features" in r2
    assert "TEACHER=mcts@sims=4" in rec["rerun"] and "KEEP=0" in rec["rerun"] and "START=" in rec["rerun"]
    # VALUES=1: the search's mean return per action as soft targets.
    soft = tmp_path / "teacher-values"
    subprocess.run(run, cwd=REPO, env=dict(env, DATA=str(soft), FEATURES="1", START=str(start), ROUNDS="1",
                                            TEACHER="mcts@sims=4", KEEP="0", VALUES="1"),
                   check=True, capture_output=True, timeout=600)
    with np.load(soft / "v1.npz") as z:
        q, m = z["q"].astype(np.float32), z["mask"] != 0
        assert np.isnan(q[~m]).all() and np.isfinite(q[np.arange(len(q)), z["action"]][m.sum(1) >= 2]).all()
    rec = json.loads((soft / "ge-smoke.json").read_text())
    assert "--soft 1" in rec["rounds"][1]["command"] and "VALUES=1" in rec["rerun"]
    assert rec["method"] == "DAgger from mcts@sims=4's values per action (make_bc.sh)"
    # WIDEN=1: a START narrower than HIDDEN; round 1 starts from exactly its function (--widen).
    import galaxygym
    wide = tmp_path / "widen"
    subprocess.run(run, cwd=REPO, env=dict(env, DATA=str(wide), FEATURES="1", START=str(start), ROUNDS="1",
                                            SMOKE_HIDDEN="32,24", WIDEN="1"),
                   check=True, capture_output=True, timeout=600)
    rec = json.loads((wide / "ge-smoke.json").read_text())
    assert "--widen" in rec["rounds"][1]["command"] and "--hidden 32,24" in rec["rounds"][1]["command"]
    assert "WIDEN=1" in rec["rerun"]
    assert [w.shape[0] for w, _ in galaxygym.load_policy(wide / "r1.npz")["layers"]] == [32, 24, 56]


def test_make_dagger_pilots_smoke_resumes_and_installs(server_bin, tmp_path):
    """notebooks/weights/make_dagger_pilots.sh SMOKE=1 (Pilots of Gallaxia's DAgger chain): the
    heuristic's labels with the game's action features, the clone reading its codes and the
    features (weights format version 5), a DAgger round, each evaluated against the heuristic with
    seats rotated; the record holds them and the rerun; a second run retrains nothing; INSTALL=1
    writes the weights and the record. FEATURES=0 trains without the features (version 4). A search
    teacher (TEACHER=mcts@sims=4, START the first run's weights, KEEP=0, EXPERT_SEAT=rotate: it plays
    one seat of the clone's games) labels with its choices, hard labels only, and trains from START
    on its labels alone."""
    import numpy as np

    data, weights = tmp_path / "run", tmp_path / "weights"
    weights.mkdir()
    env = dict(os.environ, SMOKE="1", DATA=str(data), PY=sys.executable, GALAXYGYM_BIN=server_bin, NAME="pog-smoke")
    run = ["sh", "notebooks/weights/make_dagger_pilots.sh"]
    subprocess.run(run, cwd=REPO, env=env, check=True, capture_output=True, timeout=600)
    rec = json.loads((data / "pog-smoke.json").read_text())
    assert rec["env_id"] == "pilots-of-gallaxia-v2" and rec["method"].endswith("(make_dagger_pilots.sh)")
    assert rec["rerun"].endswith("NAME=pog-smoke DATA=datasets/out/pog-smoke sh notebooks/weights/make_dagger_pilots.sh")
    assert [r["round"] for r in rec["rounds"]] == [0, 1]
    assert all("--codes --action-features" in r["command"] for r in rec["rounds"])
    assert rec["rounds"][1]["device"].startswith("cuda" if torch.cuda.is_available() else "cpu")
    assert f"--dagger {data}/v1.npz" in rec["rounds"][1]["command"] and "--init" in rec["rounds"][1]["command"]
    for r in rec["rounds"]:
        (row,) = [a for a in r["evaluation"]["agents"] if a["agent"].startswith("policy@")]
        assert row["games"] == 2
    with np.load(data / "v1.npz") as z:
        assert z["afeat"].shape == (len(z["obs"]), 380, 2)
        assert bytes(z["afeat_names"]).decode() == "togo,nearer"
    meta = json.loads(np.load(data / "r1.npz")["meta"].tobytes())
    assert meta["version"] == 5 and meta["action_features"] == ["togo", "nearer"] and meta["codes"]
    r1 = (data / "r1.npz").read_bytes()
    subprocess.run(run, cwd=REPO, env=dict(env, INSTALL="1", WEIGHTS_DIR=str(weights)), check=True,
                   capture_output=True, timeout=300)
    assert (data / "r1.npz").read_bytes() == r1 and (data / "r1.time").read_text().count("\n") == 1
    assert json.loads((weights / "pog-smoke.json").read_text()) == rec
    with np.load(data / "r1.npz") as a, np.load(weights / "pog-smoke.npz") as b:
        assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files)
    plain = tmp_path / "plain"
    subprocess.run(run, cwd=REPO, env=dict(env, DATA=str(plain), FEATURES="0"), check=True, capture_output=True,
                   timeout=600)
    meta = json.loads(np.load(plain / "r1.npz")["meta"].tobytes())
    assert meta["version"] == 4 and "action_features" not in meta
    teach = tmp_path / "teacher"
    out = subprocess.run(run, cwd=REPO, env=dict(env, DATA=str(teach), START=str(data / "r1.npz"),
                                                  TEACHER="mcts@sims=4", KEEP="0", EXPERT_SEAT="rotate"),
                         check=True, capture_output=True, text=True, timeout=600).stdout
    assert "the expert playing seat i mod players" in out  # the teacher played a seat of the clone's games
    assert (teach / "r0.npz").read_bytes() == r1 and not (teach / "expert.npz").exists()
    with np.load(teach / "v1.npz") as z:
        assert "q" not in z.files and len(z["action"]) > 0
        assert all(z["mask"][i, a] for i, a in enumerate(z["action"]))
    rec = json.loads((teach / "pog-smoke.json").read_text())
    assert rec["method"] == "DAgger from mcts@sims=4's choices (make_dagger_pilots.sh)"
    assert rec["rounds"][0]["start"] == str(data / "r1.npz") and "evaluation" in rec["rounds"][0]
    cmd = rec["rounds"][1]["command"]
    assert f"--data {teach}/v1.npz" in cmd and f"--init {teach}/r0.npz" in cmd and "--soft" not in cmd
    assert "TEACHER=mcts@sims=4" in rec["rerun"] and "KEEP=0" in rec["rerun"] and "EXPERT_SEAT=rotate" in rec["rerun"]
    # VALUES=1: the search's mean return per action (a win 1, a loss -1) as soft targets at TEMP.
    soft = tmp_path / "teacher-values"
    subprocess.run(run, cwd=REPO, env=dict(env, DATA=str(soft), START=str(data / "r1.npz"), TEACHER="mcts@sims=4",
                                            KEEP="0", VALUES="1", TEMP="0.3"), check=True, capture_output=True,
                   timeout=600)
    with np.load(soft / "v1.npz") as z:
        q, m = z["q"].astype(np.float32), z["mask"] != 0
        assert np.isnan(q[~m]).all() and (np.abs(q[np.isfinite(q)]) <= 1).all()
    rec = json.loads((soft / "pog-smoke.json").read_text())
    assert "--soft 0.3" in rec["rounds"][1]["command"] and "VALUES=1" in rec["rerun"] and "TEMP=0.3" in rec["rerun"]
    assert rec["method"] == "DAgger from mcts@sims=4's values per action (make_dagger_pilots.sh)"


def test_exit_device(search_dataset, tmp_path):
    """python -m galaxygym.exit --device: cpu trains the same bytes as the
    default on this CPU-only machine, and a CUDA device torch does not see
    stops the command before it reads its data."""
    from galaxygym.exit import build_net, load_search_data, main, train_exit

    data = load_search_data([search_dataset])
    states = []
    for device in (None, "cpu"):
        torch.manual_seed(0)
        net = build_net(BC, data)
        train_exit(data, net, samples=512, batch_size=64, checkpoints=1, log=None, device=device)
        assert next(net.parameters()).device.type == "cpu"
        states.append(net.state_dict())
    assert all(torch.equal(states[0][k], states[1][k]) for k in states[0])
    if not torch.cuda.is_available():
        with pytest.raises(SystemExit, match="sees no CUDA device"):
            main(["--data", str(tmp_path / "missing"), "--device", "cuda:0", "--out", str(tmp_path / "w.npz")])
