"""galaxygym.train: the dataset loader, behaviour cloning, the board
networks and their export against the fixture the Go agent reads
(agents/testdata/policy/conv_*.npz, written by make_policy_fixture.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import galaxygym

torch = pytest.importorskip("torch", reason="galaxygym.train needs torch (make venv installs it)")
pytest.importorskip("pyarrow")

from galaxygym import train  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "agents" / "testdata" / "policy"
ENV_ID = "galaxy-express-v1"


@pytest.fixture(scope="module")
def cases() -> dict[str, np.ndarray]:
    with np.load(FIXTURE / "cases.npz") as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope="module")
def dataset(server_bin, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "heuristic"
    subprocess.run([server_bin, "generate", "--agent", "heuristic", "--episodes", "120", "--seed", "5",
                    "--episodes-per-part", "50", "--obs-encoding", "plain", "--out", str(out)],
                   check=True, capture_output=True)
    return out


@pytest.mark.parametrize("act,center", [("relu", 0), ("tanh", -1)])
def test_conv_fixture_reproduced(act, center, cases, tmp_path):
    src = galaxygym.load_policy(FIXTURE / f"conv_{act}.npz")
    assert src["meta"]["version"] == 2 and src["board"] == dict(train.GALAXY_EXPRESS_BOARD, center_plane=center)
    assert [w.shape for w, _ in src["conv"]] == [(8, 9, 3, 3), (8, 8, 3, 3)]
    assert [w.shape for w, _ in src["layers"]] == [(32, 8 * 48 + 71), (56, 32)]
    path = tmp_path / "p.npz"
    galaxygym.export_policy(path, src["layers"], src["obs_scale"], ENV_ID, activation=act, conv=src["conv"],
                            board=src["board"])
    assert path.read_bytes() == (FIXTURE / f"conv_{act}.npz").read_bytes(), \
        "export_policy's output changed: rerun python/tests/make_policy_fixture.py"
    probs = galaxygym.policy_probs(path, cases["obs"], cases["mask"])
    assert np.abs(probs - cases[f"conv_{act}_numpy"]).max() <= 1e-12
    assert np.abs(probs - cases[f"conv_{act}_torch"]).max() <= 1e-5
    assert np.all(probs[cases["mask"] == 0] == 0)


@pytest.mark.parametrize("arch", ["mlp", "conv-nocenter", "conv"])
def test_export_matches_torch(arch, cases, tmp_path):
    scale = galaxygym.load_policy(FIXTURE / "tanh.npz")["obs_scale"].astype(np.float32)
    torch.manual_seed(3)
    kw = {"hidden": (16, 16)} if arch == "mlp" else {"channels": (4,), "hidden": (16,)}
    net = train.make_policy(arch, scale, 56, **kw).eval()
    train.export(net, tmp_path / "p.npz", ENV_ID)
    with torch.no_grad():
        logits = net(torch.from_numpy(cases["obs"])).masked_fill(~torch.from_numpy(cases["mask"] != 0), -1e9)
        want = torch.softmax(logits, -1).double().numpy()
    got = galaxygym.policy_probs(tmp_path / "p.npz", cases["obs"], cases["mask"])
    assert np.abs(got - want).max() <= 1e-5


def test_centring_is_translation_invariant(cases):
    scale = np.ones(503, np.float32)
    torch.manual_seed(0)
    net = train.make_policy("conv", scale, 56, channels=(4,), hidden=(8,)).eval()
    obs = cases["obs"][cases["obs"][:, :48].any(1)][:50]
    board = obs[:, :432].reshape(-1, 9, 6, 8)
    moved = obs.copy()
    moved[:, :432] = np.roll(board, (2, 5), axis=(2, 3)).reshape(len(obs), -1)
    with torch.no_grad():
        assert torch.allclose(net(torch.from_numpy(obs)), net(torch.from_numpy(moved)), atol=1e-6)


def test_export_refuses_bad_boards(tmp_path):
    scale = np.ones(503, np.float32)
    with pytest.raises(ValueError, match="do not fit"):
        galaxygym.export_policy(tmp_path / "p.npz", [(np.zeros((56, 503), np.float32), np.zeros(56, np.float32))],
                                scale, ENV_ID, board={"offset": 100, "planes": 9, "height": 6, "width": 8,
                                                      "center_plane": 0})
    with pytest.raises(ValueError, match="need a board"):
        galaxygym.export_policy(tmp_path / "p.npz", [(np.zeros((56, 503), np.float32), np.zeros(56, np.float32))],
                                scale, ENV_ID, conv=[(np.zeros((4, 9, 3, 3), np.float32), np.zeros(4, np.float32))])


def test_load_steps_and_behaviour_cloning(dataset, server_bin, tmp_path):
    data = train.load_steps(dataset)
    manifest = json.loads((dataset / "manifest.json").read_text())
    assert len(data["action"]) == manifest["total_steps"]  # final rows (action -1) skipped
    assert data["obs"].shape == (len(data["action"]), 503) and data["obs"].dtype == np.uint8
    assert data["mask"][np.arange(len(data["action"])), data["action"]].all()  # every action was legal
    assert np.all(np.diff(data["episode_id"]) >= 0) and data["episode_id"].max() == 119
    first = train.load_steps(dataset, max_episodes=10)
    assert np.array_equal(first["obs"], data["obs"][:len(first["obs"])])
    scale = 1.0 / np.maximum(np.asarray(manifest["env_spec"]["obs_high"], np.float32), 1.0)
    torch.manual_seed(0)
    net = train.make_policy("conv", scale, 56, channels=(8,), hidden=(64,))
    curve = train.behaviour_cloning(data, net, samples=30 * 256, batch_size=256, checkpoints=3, holdout=0.1,
                                    log=None)
    assert [p["samples"] for p in curve] == [10 * 256, 20 * 256, 30 * 256]
    assert curve[-1]["loss"] < curve[0]["loss"]
    assert curve[-1]["agreement"] > 0.2  # above a uniform choice among ~9 legal actions (0.11)
    train.export(net, tmp_path / "bc.npz", ENV_ID)
    row = train.evaluate_native(tmp_path / "bc.npz", episodes=20, binary=server_bin)
    assert row["agent"] == "policy" and row["episodes"] == 20


@pytest.fixture(scope="module")
def expert_labels(tmp_path_factory) -> Path:
    """60 of the heuristic's own episodes labelled with its action values
    (tools/dagger -beta 1 -values), built with the Go toolchain."""
    import shutil
    if shutil.which("go") is None:
        pytest.skip("tools/dagger needs the Go toolchain")
    out = tmp_path_factory.mktemp("labels") / "expert.npz"
    subprocess.run(["go", "run", "./tools/dagger", "-beta", "1", "-values", "-episodes", "60", "-seed", "7",
                    "-out", str(out)], cwd=REPO, check=True, capture_output=True)
    return out


def test_soft_targets(expert_labels, dataset, server_bin, tmp_path):
    data = train.load_labels(expert_labels)
    env_id, high = train.labels_meta(expert_labels)
    assert env_id == ENV_ID and high.shape == (503,)
    q = data["q"]
    assert q.dtype == np.float16 and q.shape == data["mask"].shape
    assert np.array_equal(np.isnan(q), ~data["mask"])  # a value for exactly the legal actions
    n = len(q)
    assert (q[np.arange(n), data["action"]] == np.where(data["mask"], q, -np.inf).max(1)).all()  # labels are best

    # A steps dataset joined to it gets values that make its labels the target.
    both = train.concat_before([data], train.load_steps(dataset, max_episodes=5))
    tail = both["q"][n:]
    assert (tail[np.arange(len(tail)), both["action"][n:]] == 0).all() and np.isinf(tail).sum(1).min() == 55

    scale = 1.0 / np.maximum(high.astype(np.float32), 1.0)
    torch.manual_seed(0)
    net = train.make_policy("conv", scale, 56, channels=(), hidden=(64,))
    curve = train.behaviour_cloning(data, net, samples=40 * 256, batch_size=256, checkpoints=2, holdout=0.1,
                                    log=None, soft=1.0)
    assert {"best", "regret"} <= curve[-1].keys()
    assert curve[-1]["regret"] < curve[0]["regret"] and curve[-1]["best"] >= curve[-1]["agreement"]
    with pytest.raises(ValueError, match="q"):
        train.behaviour_cloning(train.load_steps(dataset, max_episodes=5), net, samples=256, soft=1.0, log=None)

    # The command line takes the .npz as its data.
    train.main(["--data", str(expert_labels), "--arch", "conv", "--channels", "none", "--hidden", "32",
                "--samples", "2048", "--batch-size", "256", "--checkpoints", "1", "--soft", "0.5",
                "--threads", "1", "--out", str(tmp_path / "soft.npz")])
    assert galaxygym.load_policy(tmp_path / "soft.npz")["meta"]["env_id"] == ENV_ID


def test_soft_targets_where_the_expert_values_no_action():
    """Galaxy Fighters' heuristic leaves some legal actions unvalued (NaN:
    its weapon, bonus and engine choices): those actions get no share of a
    soft target, a decision with no valued action is trained on its label,
    and training stays finite."""
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]], dtype=torch.bool)
    nan = float("nan")
    q = torch.tensor([[0.0, nan, -1.0, nan], [nan, nan, nan, nan], [-2.0, -2.0, nan, -np.inf]]).half()
    act = torch.tensor([0, 1, 0])
    v = train._valued(q, mask, act)
    target = torch.softmax(v / 0.5, 1)
    assert torch.isfinite(target).all()
    assert target[0, 1] == 0 and target[0, 3] == 0 and target[0, 0] > target[0, 2] > 0
    assert target[1].tolist() == [0.0, 1.0, 0.0, 0.0]  # no value: the label
    assert target[2].tolist() == [0.5, 0.5, 0.0, 0.0]  # a tie shares the target; NaN and -inf get none

    rng = np.random.default_rng(0)
    n = 600
    masks = rng.random((n, 4)) < 0.7
    masks[:, 0] = True
    qs = np.where(masks, rng.normal(size=(n, 4)), np.nan).astype(np.float16)
    qs[::3] = np.nan  # a third of the decisions valued by no one
    valued = np.where(masks & ~np.isnan(qs), qs, -np.inf).astype(np.float32)
    acts = np.where(np.isinf(valued).all(1), 0, valued.argmax(1))
    data = {"obs": rng.integers(0, 5, (n, 6), dtype=np.uint8), "mask": masks, "action": acts.astype(np.int64),
            "episode_id": np.arange(n, dtype=np.int64) // 10, "q": qs}
    torch.manual_seed(0)
    net = train.make_policy("mlp", np.full(6, 0.25, np.float32), 4, hidden=(16,))
    curve = train.behaviour_cloning(data, net, samples=60 * 64, batch_size=64, checkpoints=2, holdout=0.2,
                                    log=None, soft=0.5)
    assert all(np.isfinite(p["loss"]) and np.isfinite(p["regret"]) for p in curve)
    assert all(torch.isfinite(p).all() for p in net.parameters())


# The board from the server's observation layout (train.board_from_layout).

def _grid(offset: int, *shape: int) -> dict:
    return {"offset": offset, "shape": list(shape), "dtype": "uint8", "meaning": ""}


def test_board_of_galaxy_express_is_the_committed_board():
    """The layout rule gives Galaxy Express the board of the committed
    weights and fixtures, from the server's own spec as from the id."""
    assert train.board_of(ENV_ID) == train.GALAXY_EXPRESS_BOARD
    (spec,) = [s for s in galaxygym.list_envs() if s["id"] == ENV_ID]
    assert train.board_of(spec) == train.GALAXY_EXPRESS_BOARD
    assert train.board_of(ENV_ID, center=False) == dict(train.GALAXY_EXPRESS_BOARD, center_plane=-1)
    shipped = galaxygym.load_policy(REPO / "notebooks" / "weights" / "galaxy-express-v1-bc.npz")["board"]
    assert shipped == train.board_of(ENV_ID)


def test_board_rule():
    # A run of grids of one size with a 3-D field; the ship plane centres it.
    layout = {"flag": _grid(0, 1), "a": _grid(1, 4, 5), "ship": _grid(21, 4, 5), "many": _grid(41, 3, 4, 5),
              "tail": _grid(101, 2)}
    assert train.board_from_layout(layout) == {"offset": 1, "planes": 5, "height": 4, "width": 5, "center_plane": 1}
    # A table of grids alone (no 3-D field) is not a board.
    with pytest.raises(train.NoBoardError, match=r"coins \[2, 6\]"):
        train.board_from_layout({"coins": _grid(0, 2, 6), "more": _grid(12, 2, 6)})
    # A field of another grid size ends a run; the biggest run wins.
    layout = {"small": _grid(0, 2, 3, 3), "big": _grid(18, 1, 4, 4), "big2": _grid(34, 4, 4),
              "ship": _grid(50, 3, 3)}
    assert train.board_from_layout(layout) == {"offset": 18, "planes": 2, "height": 4, "width": 4,
                                               "center_plane": -1}
    # A multi-plane field named ship does not centre; rows or cols of 1 are not grids.
    assert train.board_from_layout({"ship": _grid(0, 2, 3, 3)})["center_plane"] == -1
    with pytest.raises(train.NoBoardError):
        train.board_from_layout({"row": _grid(0, 3, 1, 8)})


@pytest.mark.parametrize("env_id", ["express-v1", "pilots-of-gallaxia-v1"])
def test_conv_refuses_games_without_a_board(env_id):
    spec = galaxygym.list_envs()
    (spec,) = [s for s in spec if s["id"] == env_id]
    scale = np.ones(int(np.prod(spec["obs_shape"])), np.float32)
    n = len(spec["action_names"])
    with pytest.raises(train.NoBoardError, match=f"{env_id}: .*no board.*mlp"):
        train.make_policy("conv", scale, n, env_id=env_id)
    with pytest.raises(train.NoBoardError):
        train.make_policy("conv-nocenter", scale, n, env_id=spec)
    assert isinstance(train.make_policy("mlp", scale, n, hidden=(8,)), train.MLPPolicy)


def test_conv_board_must_fit_the_observation():
    with pytest.raises(ValueError, match="does not fit"):
        train.make_policy("conv", np.ones(503, np.float32), 44, env_id="galaxy-fighters-v1")


def test_conv_for_galaxy_fighters(server_bin, tmp_path):
    """A second game: train's command line builds the conv network over
    Galaxy Fighters' board (33 planes of 11 x 11 from its layout, not
    centred), exports it, and the Go policy agent plays it natively with
    the probabilities torch computes."""
    ds = tmp_path / "gf"
    subprocess.run([server_bin, "generate", "--env", "galaxy-fighters-v1", "--agent", "random", "--episodes", "4",
                    "--seed", "3", "--out", str(ds)], check=True, capture_output=True)
    out = tmp_path / "gf.npz"
    train.main(["--data", str(ds), "--arch", "conv", "--channels", "4", "--hidden", "16", "--samples", "256",
                "--batch-size", "64", "--checkpoints", "1", "--threads", "1", "--out", str(out)])
    p = galaxygym.load_policy(out)
    board = {"offset": 0, "planes": 33, "height": 11, "width": 11, "center_plane": -1}
    assert p["meta"]["env_id"] == "galaxy-fighters-v1" and p["board"] == board
    assert [w.shape for w, _ in p["conv"]] == [(4, 33, 3, 3)]
    assert p["layers"][0][0].shape == (16, 4 * 121 + 4092 - 33 * 121)

    manifest = json.loads((ds / "manifest.json").read_text())
    scale = 1.0 / np.maximum(np.asarray(manifest["env_spec"]["obs_high"], np.float32), 1.0)
    net = train.make_policy("conv", scale, 44, env_id="galaxy-fighters-v1", channels=(4,), hidden=(16,))
    net.load_state_dict(torch.load(out.with_suffix(".pt")))
    net.eval()
    data = train.load_steps(ds)
    obs, mask = data["obs"][:64], data["mask"][:64]
    with torch.no_grad():
        logits = net(torch.from_numpy(obs)).masked_fill(~torch.from_numpy(mask), -1e9)
        want = torch.softmax(logits, -1).double().numpy()
    got = galaxygym.policy_probs(out, obs, mask.astype(np.uint8))
    assert np.abs(got - want).max() <= 1e-5

    row = train.evaluate_native(out, episodes=2, env_id="galaxy-fighters-v1", binary=server_bin, workers=1)
    assert row["agent"] == "policy" and row["episodes"] == 2


def test_action_kind():
    from galaxygym.train import action_kind
    assert [action_kind(n) for n in ["to-s0-H", "raid-r1-ship-1", "end-moves", "warp-zone-2-col-4", "ship-2", "7"]] == \
        ["to", "raid", "end-moves", "warp-zone", "ship", "7"]


def test_agreement_by_kind(tmp_path):
    """A policy that always plays its highest-numbered legal action, against
    labels whose agreement is known kind by kind."""
    import galaxygym
    from galaxygym.train import agreement_by_kind
    names = ["to-s0", "to-s1", "stop", "higher", "lower"]
    path = tmp_path / "p.npz"
    galaxygym.export_policy(path, [(np.zeros((5, 3)), np.arange(5.0))], np.ones(3), "x-v1")
    nan = np.nan
    data = {"obs": np.zeros((6, 3), np.uint8),
            "mask": np.array([[1, 1, 1, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 1, 1], [1, 0, 0, 0, 0],
                              [1, 1, 0, 0, 0]]),
            "action": np.array([2, 0, 3, 4, 0, 1]),
            "q": np.array([[-3, -2, -1.5, nan, nan], [-1, -2, nan, nan, nan], [nan] * 5, [nan] * 5, [0, nan, nan, nan, nan],
                           [-1, -1, nan, nan, nan]], np.float16)}
    rows = {(r["kind"], r["valued"]): r for r in agreement_by_kind(path, data, names)}
    assert set(rows) == {("to", True), ("stop", True), ("higher", False), ("lower", False)}  # row 4: one legal action
    assert rows["to", True] == {"kind": "to", "valued": True, "decisions": 2, "share": 0.4, "agree": 0.5, "best": 0.5}
    assert rows["stop", True]["agree"] == 1 and rows["stop", True]["best"] == 1
    assert rows["higher", False]["agree"] == 0 and rows["higher", False]["best"] is None
    assert rows["lower", False]["agree"] == 1
    assert agreement_by_kind(path, data, names)[0]["kind"] == "to"  # the largest group first
    # A file reading one action feature, on labels of two (the game's): its own column, by name.
    feat = tmp_path / "f.npz"
    galaxygym.export_policy(feat, [(np.zeros((5, 3)), np.zeros(5))], np.ones(3), "x-v1",
                            action_features=(["first"], [1.0]))
    afeat = np.zeros((6, 5, 2), np.uint8)
    afeat[:, 0, 0] = 1  # "other": to-s0 everywhere; "first": the label where legal
    afeat[np.arange(6), data["action"], 1] = 1
    both = dict(data, afeat=afeat)
    with pytest.raises(ValueError, match="afeat of 2 features, the file reads 1"):
        agreement_by_kind(feat, both, names)
    rows = agreement_by_kind(feat, both, names, afeat_names=["other", "first"])
    assert all(r["agree"] == 1 for r in rows)


def test_widen_preserves_the_function_and_trains(tmp_path):
    """--init --widen: a 12 x 12 network placed in a 32 x 20 one computes
    the same logits (Net2Net), its new units' outgoing weights are 0 and
    training moves them; a network narrower than the file, or one of
    another depth, is refused."""
    rng = np.random.default_rng(0)
    scale = np.full(30, 1 / 255, np.float32)
    torch.manual_seed(1)
    small = train.make_policy("mlp", scale, 7, hidden=(12, 12))
    start = tmp_path / "small.pt"
    torch.save(small.state_dict(), start)
    obs = torch.from_numpy(rng.integers(0, 256, (64, 30), dtype=np.uint8))
    torch.manual_seed(2)
    wide = train.make_policy("mlp", scale, 7, hidden=(32, 20))
    train._init_from(wide, str(start), widen=True)
    with torch.no_grad():
        assert torch.allclose(wide.eval()(obs), small.eval()(obs), atol=1e-5)
    linears = [m for m in wide.modules() if isinstance(m, torch.nn.Linear)]
    assert float(linears[1].weight[:12, 12:].abs().sum()) == 0  # new units of layer 1 into old ones of layer 2
    assert float(linears[2].weight[:, 12:].abs().sum()) == 0  # new units of layer 2 into the logits
    assert float(linears[1].weight[12:].abs().sum()) > 0  # new units have random inputs
    opt = torch.optim.SGD(wide.parameters(), lr=0.1)
    wide.train()
    loss = torch.nn.functional.cross_entropy(wide(obs), torch.from_numpy(rng.integers(0, 7, 64)))
    loss.backward()
    opt.step()
    assert float(linears[2].weight[:, 12:].abs().sum()) > 0  # gradients reach them
    with pytest.raises(SystemExit, match="cannot widen"):
        train._init_from(train.make_policy("mlp", scale, 7, hidden=(8, 12)), str(start), widen=True)
    with pytest.raises(SystemExit, match="not this network"):
        train._init_from(train.make_policy("mlp", scale, 7, hidden=(32, 20, 20)), str(start), widen=True)
    with pytest.raises(SystemExit, match="not this network"):
        train._init_from(train.make_policy("mlp", scale, 7, hidden=(32, 20)), str(start))


def test_training_device():
    """--device: auto is the CPU where torch sees no CUDA device (this
    machine's Debian torch); cpu gives the same bytes as before the option
    (the default device); a CUDA device torch does not see and a name it
    does not know are refused, the command line stopping before it reads
    its data."""
    cuda = torch.cuda.is_available()
    assert train.training_device("auto").type == ("cuda" if cuda else "cpu")
    assert train.training_device("cpu") == torch.device("cpu") and train.device_name(torch.device("cpu")) == "cpu"
    with pytest.raises(ValueError, match="want auto, cpu, cuda"):
        train.training_device("meta")
    with pytest.raises(ValueError, match="--device 'gpu'"):
        train.training_device("gpu")
    if not cuda:
        with pytest.raises(ValueError, match="sees no CUDA device"):
            train.training_device("cuda")
        with pytest.raises(SystemExit, match="sees no CUDA device"):
            train.main(["--data", "/nonexistent.npz", "--device", "cuda", "--out", "/nonexistent/w.npz"])

    rng = np.random.default_rng(0)
    n = 400
    masks = rng.random((n, 5)) < 0.6
    masks[:, 0] = True
    data = {"obs": rng.integers(0, 5, (n, 7), dtype=np.uint8), "mask": masks,
            "action": np.where(masks[:, 2], 2, 0).astype(np.int64), "episode_id": np.arange(n, dtype=np.int64) // 8}
    states, curves = [], []
    for device in (None, "cpu", torch.device("cpu")):
        torch.manual_seed(0)
        net = train.make_policy("mlp", np.full(7, 0.25, np.float32), 5, hidden=(16,))
        curves.append(train.behaviour_cloning(data, net, samples=200 * 32, batch_size=32, lr=1e-2, checkpoints=2,
                                              holdout=0.2, log=None, device=device))
        assert next(net.parameters()).device.type == "cpu"  # back where it was
        states.append(net.state_dict())
    for s in states[1:]:
        assert all(torch.equal(s[k], states[0][k]) for k in s)
    assert [p["agreement"] for p in curves[1]] == [p["agreement"] for p in curves[0]]
    assert curves[0][-1]["agreement"] > 0.9  # it learnt the rule: action 2 where legal, else 0
