"""galaxygym.export_policy / load_policy / policy_probs against the fixture
the Go policy agent's parity test reads (agents/testdata/policy, written by
make_policy_fixture.py), so that the Python side, the fixture and Go agree,
and against the training notebook's torch model."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

import galaxygym
from galaxygym.policy import write_npz

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "agents" / "testdata" / "policy"
NOTEBOOK = REPO / "notebooks" / "train_galaxy_express.ipynb"
ENV_ID = "galaxy-express-v1"


@pytest.fixture(scope="module")
def cases() -> dict[str, np.ndarray]:
    with np.load(FIXTURE / "cases.npz") as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("act", ["tanh", "relu"])
def test_fixture_reproduced(act, cases, tmp_path):
    src = galaxygym.load_policy(FIXTURE / f"{act}.npz")
    assert src["meta"] == {"format": "galaxygym-mlp-policy", "version": 1, "env_id": ENV_ID, "obs_shape": [503],
                           "num_actions": 56, "activation": act}
    assert [w.shape for w, _ in src["layers"]] == [(32, 503), (32, 32), (56, 32)]
    # export_policy writes the same bytes again (fixed zip timestamps), so a
    # file's SHA-256 identifies its weights.
    path = tmp_path / "p.npz"
    meta = galaxygym.export_policy(path, src["layers"], src["obs_scale"], ENV_ID, activation=act)
    assert meta == src["meta"]
    assert path.read_bytes() == (FIXTURE / f"{act}.npz").read_bytes(), \
        "export_policy's output changed: rerun python/tests/make_policy_fixture.py"
    probs = galaxygym.policy_probs(path, cases["obs"], cases["mask"])
    assert probs.dtype == np.float64 and probs.shape == cases["mask"].shape
    assert np.abs(probs - cases[f"{act}_numpy"]).max() <= 1e-12
    assert np.abs(probs - cases[f"{act}_torch"]).max() <= 1e-5
    assert np.all(probs[cases["mask"] == 0] == 0)
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-12)
    # One observation at a time, and from the arrays rather than the file.
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    one = galaxygym.policy_probs(arrays, cases["obs"][7], cases["mask"][7])
    assert one.shape == (56,) and np.abs(one - probs[7]).max() <= 1e-15


@pytest.mark.parametrize("act", ["tanh", "relu"])
def test_fixture_torch_probs(act, cases):
    torch = pytest.importorskip("torch")
    from make_policy_fixture import torch_probs

    src = galaxygym.load_policy(FIXTURE / f"{act}.npz")
    layers = [(w.astype(np.float32), b.astype(np.float32)) for w, b in src["layers"]]
    torch.set_num_threads(1)
    got = torch_probs(layers, act, src["obs_scale"].astype(np.float32), cases["obs"], cases["mask"])
    assert np.abs(got - cases[f"{act}_torch"]).max() <= 1e-6


def test_notebook_builds_the_clone_network():
    """The training notebook's actor, from scratch, is galaxygym.train's
    ship-centred board network without conv layers (the clone's), which
    test_notebook_network_exported checks against the Go reference."""
    nb = json.loads(NOTEBOOK.read_text())
    src = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert 'train.make_policy("conv", obs_scale, num_actions, channels=(), hidden=tuple(HIDDEN))' in src
    assert "ppo.load_torch_policy(" in src and "train.export(actor" in src


@pytest.mark.parametrize("hidden", [32, 256])
def test_notebook_network_exported(hidden, cases, tmp_path):
    torch = pytest.importorskip("torch")
    from galaxygym import train

    obs_scale = galaxygym.load_policy(FIXTURE / "tanh.npz")["obs_scale"].astype(np.float32)
    torch.manual_seed(hidden)
    net = train.make_policy("conv", obs_scale, 56, channels=(), hidden=(hidden, hidden))
    with torch.no_grad():  # logits far from uniform
        net.pi[-1].weight.normal_(0, 1)
        net.pi[-1].bias.normal_(0, 1)
    path = tmp_path / "policy.npz"
    meta = train.export(net, path, ENV_ID)
    assert meta["activation"] == "relu" and meta["num_actions"] == 56 and meta["version"] == 2
    with torch.no_grad():
        logits = net(torch.from_numpy(cases["obs"].reshape(len(cases["obs"]), -1)))
        logits = logits.masked_fill(~torch.from_numpy(cases["mask"].astype(bool)), -1e9)
        want = torch.softmax(logits, -1).double().numpy()
    got = galaxygym.policy_probs(path, cases["obs"], cases["mask"])
    assert np.abs(got - want).max() <= 1e-5
    assert np.all(got[cases["mask"] == 0] == 0)


def test_export_errors(tmp_path):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w0, b0 = rng.normal(size=(8, 503)), np.zeros(8)
    w1, b1 = rng.normal(size=(56, 8)), np.zeros(56)
    scale = np.ones(503, np.float32)
    path = tmp_path / "p.npz"
    ok = [(w0, b0), (w1, b1)]
    for kwargs, match in [
        ({"layers": [(w0, b0), (w1[:, :7], b1)]}, r"layer1.weight: shape \(56, 7\), want \(out, 8\)"),
        ({"layers": [(w0, b0[:7]), (w1, b1)]}, r"layer0.bias"),
        ({"layers": [(w0, b0), (np.where(w1 > 2, np.nan, w1), b1)]}, r"layer1.weight: element \d+ is nan"),
        ({"layers": []}, "no layers"),
        ({"activation": "gelu"}, "activation"),
        ({"env_id": ""}, "env_id"),
        ({"obs_scale": np.ones(502)}, r"want \(out, 502\)"),
        ({"obs_scale": np.ones(503), "obs_shape": [2, 250]}, "obs_shape"),
        ({"layers": torch.nn.Sequential(torch.nn.Linear(503, 8), torch.nn.ReLU(), torch.nn.Linear(8, 56))},
         "ReLU, but activation='tanh'"),
        ({"layers": torch.nn.Sequential(torch.nn.Linear(503, 8), torch.nn.Tanh())}, "between Linear layers"),
        ({"layers": torch.nn.Sequential(torch.nn.Linear(503, 8), torch.nn.Sigmoid(), torch.nn.Linear(8, 56))},
         "Sigmoid"),
    ]:
        args = {"layers": ok, "obs_scale": scale, "env_id": ENV_ID, **kwargs}
        with pytest.raises(ValueError, match=match):
            galaxygym.export_policy(path, args.pop("layers"), args.pop("obs_scale"), args.pop("env_id"), **args)
    relu = torch.nn.Sequential(torch.nn.Linear(503, 8), torch.nn.ReLU(), torch.nn.Linear(8, 56))
    assert galaxygym.export_policy(path, relu, scale, ENV_ID, activation="relu")["activation"] == "relu"
    # A multi-dimensional observation: obs_scale in the observation's shape.
    meta = galaxygym.export_policy(path, ok, scale.reshape(1, 503), ENV_ID)
    assert meta["obs_shape"] == [1, 503]
    with np.load(path) as z:
        assert z["obs_scale"].shape == (503,)


def test_load_errors(tmp_path):
    good = {k: v for k, v in np.load(FIXTURE / "tanh.npz").items()}
    path = tmp_path / "bad.npz"
    for edit, match in [
        (lambda a: a.pop("layer1.bias"), "layer1.bias: missing"),
        (lambda a: a.pop("layer1.weight"), "layer1.weight: missing"),
        (lambda a: a.__setitem__("layer0.weight", a["layer0.weight"].astype(np.float64)), "dtype float64"),
        (lambda a: a.__setitem__("layer2.bias", np.full(56, np.inf, np.float32)), "is inf"),
        (lambda a: a.__setitem__("meta", np.frombuffer(b'{"format": "x", "version": 1}', np.uint8)), "meta"),
    ]:
        arrays = dict(good)
        edit(arrays)
        write_npz(path, arrays)
        with pytest.raises(ValueError, match=match):
            galaxygym.policy_probs(path, np.zeros(503, np.uint8), np.ones(56, np.uint8))


def test_policy_probs_edge_cases():
    src = galaxygym.load_policy(FIXTURE / "relu.npz")
    obs = np.zeros((2, 503), np.uint8)
    mask = np.zeros((2, 56), np.uint8)
    mask[1, 9] = 1
    p = galaxygym.policy_probs(src, obs, mask)
    assert np.all(p[0] == 0) and p[1, 9] == 1 and p[1].sum() == 1
    with pytest.raises(ValueError, match="502 elements"):
        galaxygym.policy_probs(src, obs[:, :502], mask)
    with pytest.raises(ValueError, match="masks"):
        galaxygym.policy_probs(src, obs, mask[:, :55])


def test_written_npz_is_standard(tmp_path):
    """write_npz's files are what np.load reads, at exactly the path given."""
    path = tmp_path / "x.bin"
    write_npz(path, {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.zeros(0, np.uint8)}, compress=True)
    with np.load(path) as z:
        assert z["a"].tolist() == [[0, 1, 2], [3, 4, 5]] and z["b"].size == 0
    with zipfile.ZipFile(path) as z:
        assert [i.date_time for i in z.infolist()] == [(1980, 1, 1, 0, 0, 0)] * 2


def test_value_fixture_reproduced(cases, tmp_path):
    """A format-version-3 file with a value head (value.npz): export_policy
    writes its bytes again, and policy_value and policy_probs reproduce the
    numbers the Go agent is checked against (agents/policy_value_test.go)."""
    src = galaxygym.load_policy(FIXTURE / "value.npz")
    assert src["meta"] == {"format": "galaxygym-mlp-policy", "version": 3, "env_id": ENV_ID, "obs_shape": [503],
                           "num_actions": 56, "activation": "tanh", "value_outputs": 2}
    assert [w.shape for w, _ in src["value"]] == [(16, 32), (2, 16)]
    path = tmp_path / "v.npz"
    meta = galaxygym.export_policy(path, src["layers"], src["obs_scale"], ENV_ID, value=src["value"])
    assert meta == src["meta"]
    assert path.read_bytes() == (FIXTURE / "value.npz").read_bytes(), \
        "export_policy's output changed: rerun python/tests/make_policy_fixture.py"
    with np.load(FIXTURE / "value_cases.npz") as z:
        want = {k: z[k] for k in z.files}
    value = galaxygym.policy_value(path, cases["obs"])
    assert value.dtype == np.float64 and value.shape == (len(cases["obs"]), 2)
    assert np.abs(value - want["value_numpy"]).max() <= 1e-12
    assert np.abs(value - want["value_torch"]).max() <= 1e-4
    assert np.abs(galaxygym.policy_probs(path, cases["obs"], cases["mask"]) - want["probs_numpy"]).max() <= 1e-12
    assert galaxygym.policy_value(src, cases["obs"][3]).shape == (2,)
    # Without a value head the file is written as before (version 1), and
    # policy_value refuses it.
    assert galaxygym.export_policy(path, src["layers"], src["obs_scale"], ENV_ID)["version"] == 1
    with pytest.raises(ValueError, match="no value head"):
        galaxygym.policy_value(path, cases["obs"])


def test_value_export_errors(tmp_path):
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(8, 503)), np.zeros(8)), (rng.normal(size=(56, 8)), np.zeros(56))]
    scale = np.ones(503, np.float32)
    path = tmp_path / "p.npz"
    for args, value, match in [
        ([(np.ones((56, 503)), np.zeros(56))], [(np.ones((1, 503)), np.zeros(1))], "one layer"),
        (layers, [(np.ones((1, 7)), np.zeros(1))], r"value0.weight: shape \(1, 7\), want \(out, 8\)"),
        (layers, [(np.ones((4, 8)), np.zeros(4)), (np.ones((2, 4)), np.zeros(3))], "value1.bias"),
        (layers, [(np.full((1, 8), np.inf), np.zeros(1))], "value0.weight: element 0 is inf"),
        (layers, [], "value: no layers"),
    ]:
        with pytest.raises(ValueError, match=match):
            galaxygym.export_policy(path, args, scale, ENV_ID, value=value)


def test_value_head_plays_in_go(tmp_path, server_bin):
    """export -> Go: a file exported with a value head is read by the Go
    agents, the policy (which ignores the head) and mcts@weights=FILE (which
    scores its leaves with it), and a broken one is refused by Go too."""
    import subprocess
    rng = np.random.default_rng(1)
    layers = [(rng.normal(0, 0.1, (16, 503)), np.zeros(16)), (rng.normal(0, 0.1, (56, 16)), np.zeros(56))]
    path = tmp_path / "v.npz"
    galaxygym.export_policy(path, layers, np.full(503, 1 / 8), ENV_ID, value=[(rng.normal(0, 0.1, (1, 16)), [100.0])])
    for agent in ("policy@weights=" + str(path), "mcts@sims=4@weights=" + str(path)):
        r = subprocess.run([server_bin, "eval", "--env", ENV_ID, "--agents", agent, "--episodes", "2", "--seed", "0",
                            "--format", "json"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    arrays = {k: v for k, v in np.load(path).items()}
    arrays.pop("value0.bias")
    write_npz(path, arrays)
    r = subprocess.run([server_bin, "eval", "--env", ENV_ID, "--agents", "mcts@sims=4@weights=" + str(path),
                        "--episodes", "1"], capture_output=True, text=True)
    assert r.returncode != 0 and "value0.bias: missing" in r.stderr, r.stderr


CODES = [{"offset": 432, "size": 71, "classes": 12}, {"offset": 0, "size": 48, "classes": 2}]


@pytest.mark.parametrize("name", ["codes", "codes_conv"])
def test_codes_fixture_reproduced(name, cases, tmp_path):
    """Format-version-4 files (codes read one-hot): export_policy writes
    their bytes again, and policy_probs reproduces the probabilities the Go
    agent is checked against (agents/policy_codes_test.go)."""
    src = galaxygym.load_policy(FIXTURE / f"{name}.npz")
    assert src["meta"]["version"] == 4 and src["meta"]["codes"] == CODES and src["codes"] == CODES
    width = (503 if name == "codes" else 8 * 48 + 503 - 9 * 48) + 71 * 12 + 48 * 2
    assert src["layers"][0][0].shape[1] == width
    path = tmp_path / "c.npz"
    meta = galaxygym.export_policy(path, src["layers"], src["obs_scale"], ENV_ID, activation="relu",
                                   conv=src["conv"] or None, board=src["board"], codes=src["codes"])
    assert meta == src["meta"]
    assert path.read_bytes() == (FIXTURE / f"{name}.npz").read_bytes(), \
        "export_policy's output changed: rerun python/tests/make_policy_fixture.py"
    with np.load(FIXTURE / "codes_cases.npz") as z:
        want = z[f"{name}_numpy"]
    probs = galaxygym.policy_probs(path, cases["obs"], cases["mask"])
    assert np.abs(probs - want).max() <= 1e-12
    # The codes matter: without their inputs' weights the probabilities move.
    cut = dict(src, layers=[(src["layers"][0][0].copy(), src["layers"][0][1])] + src["layers"][1:])
    cut["layers"][0][0][:, -(71 * 12 + 48 * 2):] = 0
    assert np.abs(galaxygym.policy_probs(cut, cases["obs"], cases["mask"]) - want).max() > 1e-3


def test_code_features():
    from galaxygym.policy import code_features
    obs = np.array([[0, 1, 2, 9], [2, 0, 0, 1]], np.uint8)
    got = code_features([{"offset": 1, "size": 2, "classes": 3}, {"offset": 3, "size": 1, "classes": 2}], obs)
    assert got.tolist() == [[0, 1, 0, 0, 0, 1, 0, 0],   # 1, 2 one-hot; 9 past 2 classes: no input
                            [1, 0, 0, 1, 0, 0, 0, 1]]
    assert code_features([], obs).shape == (2, 0)


def test_codes_errors(tmp_path):
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(8, 503 + 12)), np.zeros(8)), (rng.normal(size=(56, 8)), np.zeros(56))]
    scale = np.ones(503, np.float32)
    path = tmp_path / "p.npz"
    for codes, match in [
        ([{"offset": 500, "size": 4, "classes": 3}], "past the observation"),
        ([{"offset": 0, "size": 1, "classes": 1}], "classes 2 to 256"),
        ([{"offset": 0, "size": 1}], "want exactly the keys"),
        ([{"offset": 0, "size": 2, "classes": 3}], r"layer0.weight: shape \(8, 515\), want \(out, 509\)"),
    ]:
        with pytest.raises(ValueError, match=match):
            galaxygym.export_policy(path, layers, scale, ENV_ID, codes=codes)
    galaxygym.export_policy(path, layers, scale, ENV_ID, codes=[{"offset": 440, "size": 4, "classes": 3}])
    arrays = {k: v for k, v in np.load(path).items()}
    meta = json.loads(arrays["meta"].tobytes())
    arrays["meta"] = np.frombuffer(json.dumps(dict(meta, version=3)).encode(), np.uint8)
    write_npz(path, arrays)
    with pytest.raises(ValueError, match="codes need format version 4"):
        galaxygym.load_policy(path)


def test_codes_from_layout():
    from galaxygym.train import codes_from_layout
    layout = {"b": {"offset": 4, "shape": [3], "dtype": "uint8", "meaning": "", "classes": 67},
              "a": {"offset": 0, "shape": [2, 2], "dtype": "uint8", "meaning": ""},
              "c": {"offset": 7, "shape": [2, 3], "dtype": "uint8", "meaning": "", "classes": 7}}
    assert codes_from_layout(layout) == [{"offset": 4, "size": 3, "classes": 67}, {"offset": 7, "size": 6, "classes": 7}]


def test_codes_train_export_play(tmp_path, server_bin, monkeypatch):
    """Pilots of Gallaxia's layout declares codes; a network built with them
    (codes_of) exports as version 4, loads back into torch with the same
    outputs, and the Go policy agent plays it."""
    torch = pytest.importorskip("torch")
    import subprocess
    from galaxygym import train
    from galaxygym._nets import load_torch_policy
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    env_id = "pilots-of-gallaxia-v2"
    codes = train.codes_of(env_id)
    from galaxygym._registration import spec_of
    gambit = spec_of(env_id)["observation_layout"]["gambit"]
    assert len(codes) == 13, codes
    assert codes[0] == {"offset": gambit["offset"], "size": 3, "classes": 67}  # The Gambit's cards, kind + 1
    torch.manual_seed(0)
    net = train.make_policy("mlp", np.full(7954, 1 / 8, np.float32), 380, hidden=(16,), codes=codes)
    path = tmp_path / "p.npz"
    meta = train.export(net, path, env_id)
    assert meta["version"] == 4 and meta["codes"] == codes
    back = load_torch_policy(path)
    obs = torch.randint(0, 70, (5, 7954), dtype=torch.uint8)
    with torch.no_grad():
        assert torch.equal(back(obs), net(obs))
    r = subprocess.run([server_bin, "eval", "--env", env_id, "--env-param", "players=2", "--seats",
                        f"policy@weights={path},random", "--episodes", "2", "--seed", "0", "--format", "json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


AFEAT_NAMES = ["lost", "orbit", "deliver"]  # the fixture's: the game's first three
GAME_FEATURES = AFEAT_NAMES + ["trap"]  # all galaxy-express-v1 declares (tools/dagger -features writes them)


def test_afeat_fixture_reproduced(tmp_path):
    """A format-version-5 file (a linear term over Galaxy Express's action
    features): export_policy writes its bytes again, policy_probs with the
    recorded features reproduces the probabilities the Go agent is checked
    against (agents/policy_afeat_test.go), and refuses to run without them."""
    src = galaxygym.load_policy(FIXTURE / "afeat.npz")
    assert src["meta"]["version"] == 5 and src["meta"]["action_features"] == AFEAT_NAMES
    assert src["action_features"] == AFEAT_NAMES and src["action_features_weight"].tolist() == [-4.0, 1.5, 3.0]
    path = tmp_path / "f.npz"
    meta = galaxygym.export_policy(path, src["layers"], src["obs_scale"], ENV_ID, activation="relu",
                                   action_features=(src["action_features"], src["action_features_weight"]))
    assert meta == src["meta"]
    assert path.read_bytes() == (FIXTURE / "afeat.npz").read_bytes(), \
        "export_policy's output changed: rerun python/tests/make_policy_fixture.py"
    with np.load(FIXTURE / "afeat_cases.npz") as z:
        c = {k: z[k] for k in z.files}
    probs = galaxygym.policy_probs(path, c["obs"], c["mask"], c["afeat"])
    assert np.abs(probs - c["probs_numpy"]).max() <= 1e-12
    assert np.abs(probs - c["probs_torch"]).max() <= 1e-5
    one = galaxygym.policy_probs(path, c["obs"][0], c["mask"][0], c["afeat"][0])
    assert np.abs(one - c["probs_numpy"][0]).max() <= 1e-12
    # The features matter: with their weights at 0 the probabilities move.
    cut = dict(src, action_features_weight=np.zeros(3))
    assert np.abs(galaxygym.policy_probs(cut, c["obs"], c["mask"], c["afeat"]) - probs).max() > 1e-2
    with pytest.raises(ValueError, match="give afeat"):
        galaxygym.policy_probs(path, c["obs"], c["mask"])


def test_afeat_errors(tmp_path):
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(8, 503)), np.zeros(8)), (rng.normal(size=(56, 8)), np.zeros(56))]
    scale = np.ones(503, np.float32)
    path = tmp_path / "p.npz"
    for features, match in [((["lost", "orbit"], [1.0]), "one weight per non-empty name"),
                            ((["lost", ""], [1.0, 2.0]), "one weight per non-empty name"),
                            (([], []), "one weight per non-empty name"),
                            ((["lost"], [np.nan]), "action_features.weight: element 0 is nan")]:
        with pytest.raises(ValueError, match=match):
            galaxygym.export_policy(path, layers, scale, ENV_ID, action_features=features)
    galaxygym.export_policy(path, layers, scale, ENV_ID, action_features=(["lost"], [-2.0]))
    arrays = {k: v for k, v in np.load(path).items()}
    meta = json.loads(arrays["meta"].tobytes())
    assert meta["version"] == 5
    arrays["meta"] = np.frombuffer(json.dumps(dict(meta, version=4)).encode(), np.uint8)
    write_npz(path, arrays)
    with pytest.raises(ValueError, match="action_features need format version 5"):
        galaxygym.load_policy(path)
    arrays["meta"] = np.frombuffer(json.dumps({k: v for k, v in meta.items() if k != "action_features"}).encode(),
                                   np.uint8)
    write_npz(path, arrays)
    with pytest.raises(ValueError, match="meta names no action_features"):
        galaxygym.load_policy(path)


def test_afeat_train_init_export_play(tmp_path, server_bin, monkeypatch):
    """python -m galaxygym.train --action-features on tools/dagger -features
    labels, started (--init) from a weights file without features: the
    network starts as that file (the features' weights at 0), learns a
    negative weight for "lost" (moves the heuristic never plays), exports
    as version 5, loads back into torch with the same outputs, and the Go
    policy agent plays it."""
    torch = pytest.importorskip("torch")
    import subprocess
    from galaxygym import train
    from galaxygym._nets import load_torch_policy
    monkeypatch.setenv("GALAXYGYM_BIN", server_bin)
    labels = tmp_path / "expert.npz"
    subprocess.run(["go", "run", "./tools/dagger", "-beta", "1", "-values", "-features", "-episodes", "60",
                    "-seed", "3", "-out", str(labels)], cwd=REPO, check=True, capture_output=True)
    assert train.labels_feature_names(labels) == GAME_FEATURES
    start = tmp_path / "start.npz"
    train.main(["--data", str(labels), "--channels", "none", "--hidden", "16", "--samples", "512", "--soft", "1",
                "--threads", "1", "--checkpoints", "1", "--out", str(start)])
    assert galaxygym.load_policy(start)["meta"]["version"] == 2
    with np.load(labels) as z:
        obs0, afeat0 = torch.from_numpy(z["obs"][:50]), torch.from_numpy(z["afeat"][:50])
    fresh = train.make_policy("conv", load_torch_policy(start).obs_scale.numpy(), 56, channels=(), hidden=(16,),
                              action_features=GAME_FEATURES)
    train._init_from(fresh, str(start))
    with torch.no_grad():  # the features' weights start at 0: the network is the file's
        assert torch.equal(fresh.eval()(obs0, afeat0), load_torch_policy(start)(obs0))
    out = tmp_path / "f.npz"
    train.main(["--data", str(labels), "--channels", "none", "--hidden", "16", "--samples", "20000", "--soft", "1",
                "--threads", "1", "--checkpoints", "1", "--action-features", "--afeat-lr", "0.2", "--init", str(start),
                "--out", str(out)])
    p = galaxygym.load_policy(out)
    assert p["meta"]["version"] == 5 and p["action_features"] == GAME_FEATURES
    assert p["action_features_weight"][0] < -1, p["action_features_weight"]
    # A file of fewer features (written before the game added one) starts a
    # network of all of them by name: its weights where the names match, 0
    # for the new one; a file reading a feature the network lacks is refused.
    older = tmp_path / "older.npz"
    src = galaxygym.load_policy(out)
    galaxygym.export_policy(older, src["layers"], src["obs_scale"], ENV_ID, activation=src["activation"],
                            board=src["board"], action_features=(["deliver", "lost"], [3.0, -4.0]))
    grown = train.make_policy("conv", load_torch_policy(start).obs_scale.numpy(), 56, channels=(), hidden=(16,),
                              action_features=GAME_FEATURES)
    train._init_from(grown, str(older))
    assert grown.afeat.weight.tolist() == [-4.0, 0.0, 3.0, 0.0]
    narrow = train.make_policy("conv", load_torch_policy(start).obs_scale.numpy(), 56, channels=(), hidden=(16,),
                               action_features=["lost"])
    with pytest.raises(SystemExit, match=r"reads the action features \['deliver'\], which the data lacks"):
        train._init_from(narrow, str(older))
    net = load_torch_policy(out)
    with np.load(labels) as z:
        obs, mask, afeat = z["obs"][:200], z["mask"][:200], z["afeat"][:200]
    with torch.no_grad():
        logits = net(torch.from_numpy(obs), torch.from_numpy(afeat)).masked_fill(~torch.from_numpy(mask != 0), -1e9)
        with pytest.raises(ValueError, match="give afeat"):
            net(torch.from_numpy(obs))
    want = galaxygym.policy_probs(out, obs, mask, afeat)
    assert np.abs(torch.softmax(logits, 1).numpy() - want).max() < 1e-5
    # Labels without features cannot train a network that reads them.
    plain = tmp_path / "plain.npz"
    subprocess.run(["go", "run", "./tools/dagger", "-beta", "1", "-values", "-episodes", "2", "-seed", "3",
                    "-out", str(plain)], cwd=REPO, check=True, capture_output=True)
    with pytest.raises(SystemExit, match="holds no action features"):
        train.main(["--data", str(plain), "--action-features", "--out", str(tmp_path / "x.npz")])
    r = subprocess.run([server_bin, "eval", "--env", ENV_ID, "--agents", f"policy@weights={out}@greedy=true",
                        "--episodes", "5", "--seed", "0", "--format", "json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_afeat_file_refused_where_features_are_not_carried():
    """The search's datasets (galaxygym.exit) carry observations only: a
    version-5 file is refused as their starting point, with the reason.
    (PPO's rollouts carry the server's features: test_ppo.py's
    test_action_features_actor_trains_on_the_servers_features.)"""
    pytest.importorskip("torch")
    from galaxygym.exit import build_net
    with pytest.raises(ValueError, match="which the search's datasets do not carry"):
        build_net(FIXTURE / "afeat.npz", {"z": np.zeros(3), "env_id": ENV_ID})
