"""Writes agents/testdata/policy/, the fixture of the Go policy agent's parity
test (agents/policy_test.go) and of python/tests/test_policy.py:

  tanh.npz, relu.npz   503 -> 32 -> 32 -> 56 Galaxy Express policies with random
                       weights (fixed seed), written by galaxygym.export_policy
  conv_relu.npz        ship-centred board policies (format version 2, galaxygym.train's
  conv_tanh.npz        ConvPolicy): the 9 board planes through 3x3 circular convolutions of
                       8 and 8 channels, joined with the 71 scalar features, -> 32 -> 56;
                       conv_tanh without the translation (center_plane -1)
  value.npz            a format-version-3 policy with a value head: the tanh policy's
                       shape with its own random weights, and a value head on its
                       trunk (the last hidden layer), 32 -> 16 -> 2 (two outputs, to
                       check their layout; a solitaire game's search reads output 0)
  value_cases.npz      that file's value head outputs for cases.npz's observations:
                       value_numpy from galaxygym.policy_value (float64), value_torch
                       from a float32 torch forward, and its probabilities (probs_numpy)
  codes.npz            format-version-4 policies reading codes one-hot (galaxygym.train's
  codes_conv.npz       MLPPolicy, and ConvPolicy as conv_relu.npz, with codes): CODES, the
                       71 scalar bytes as codes of 12 classes (bytes of 12 or more read as
                       no class) and the ship plane as codes of 2
  codes_cases.npz      their probabilities for cases.npz's observations: <name>_numpy from
                       galaxygym.policy_probs, <name>_torch from the float32 torch forward
  afeat.npz            a format-version-5 policy reading Galaxy Express's action features
                       (galaxygym.train's MLPPolicy, 503 -> 32 -> 32 -> 56 with the features'
                       weights AFEAT_WEIGHTS)
  afeat_cases.npz      CASES decisions of the heuristic's play (tools/dagger -beta 1 -features,
                       20 episodes, seed 5): obs, mask, afeat (the game's features, from Go),
                       and afeat.npz's probabilities: probs_numpy from galaxygym.policy_probs,
                       probs_torch from the float32 torch forward
  cases.npz            CASES real observations and legal-action masks, half from
                       seeded random play and half from the heuristic's (read
                       from `galaxygym generate` datasets), and each policy's
                       action probabilities: <act>_torch from a float32 torch
                       forward (as the training notebook computes them) stored
                       as float64, and <act>_numpy from galaxygym.policy_probs

Run from the repository root: .venv/bin/python python/tests/make_policy_fixture.py
(it uses $GALAXYGYM_BIN or builds the binary with go build). The output is the
same bytes on every run with the same numpy and torch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import torch
import torch.nn as nn

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from galaxygym.policy import export_policy, policy_probs, policy_value, write_npz  # noqa: E402

ENV_ID = "galaxy-express-v1"
OUT = REPO / "agents" / "testdata" / "policy"
SIZES = [503, 32, 32, 56]
CASES = 300
SEED = 20240611


def torch_probs(layers: list[tuple[np.ndarray, np.ndarray]], activation: str, obs_scale: np.ndarray,
                obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The notebook's forward pass in float32: obs.float() * obs_scale, the
    Sequential, logits.masked_fill(~mask, -1e9), softmax."""
    mods: list[nn.Module] = []
    for i, (w, b) in enumerate(layers):
        if i > 0:
            mods.append(nn.Tanh() if activation == "tanh" else nn.ReLU())
        lin = nn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
        mods.append(lin)
    net = nn.Sequential(*mods)
    with torch.no_grad():
        x = torch.from_numpy(obs).float() * torch.from_numpy(obs_scale)
        logits = net(x).masked_fill(~torch.from_numpy(mask.astype(bool)), -1e9)
        return torch.softmax(logits, -1).numpy().astype(np.float64)


def net_probs(net: nn.Module, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A galaxygym.train network's masked softmax in float32 (as float64)."""
    with torch.no_grad():
        logits = net(torch.from_numpy(obs)).masked_fill(~torch.from_numpy(mask.astype(bool)), -1e9)
        return torch.softmax(logits, -1).numpy().astype(np.float64)


def observations(binary: str, tmp: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CASES observations and masks (each with a legal action) from seeded
    random and heuristic play, and the observation's upper bounds."""
    rng = np.random.default_rng(SEED)
    obs, masks = [], []
    for agent, seed in [("random", 1), ("heuristic", 2)]:
        out = tmp / agent
        subprocess.run([binary, "generate", "--env", ENV_ID, "--agent", agent, "--episodes", "40",
                        "--seed", str(seed), "--workers", "1", "--out", str(out)], check=True, capture_output=True)
        t = pq.read_table(out / "steps", columns=["obs", "action_mask"]).combine_chunks()
        o = np.frombuffer(t.column("obs").chunk(0).buffers()[1], np.uint8).reshape(len(t), -1)
        m = np.frombuffer(t.column("action_mask").chunk(0).buffers()[1], np.uint8).reshape(len(t), -1)
        rows = np.flatnonzero(m.any(axis=1))
        pick = np.sort(rng.choice(rows, CASES // 2, replace=False))
        obs.append(o[pick])
        masks.append(m[pick])
        high = np.array(json.loads((out / "manifest.json").read_text())["observation_space"]["high"])
    return np.concatenate(obs), np.concatenate(masks), high


def random_layers(rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """Weights with spread-out logits (probabilities far from uniform)."""
    layers = []
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        std = (0.5 if i == 0 else 2.0) / np.sqrt(n_in) if i < len(SIZES) - 2 else 6.0 / np.sqrt(n_in)
        layers.append((rng.normal(0, std, (n_out, n_in)).astype(np.float32),
                       rng.normal(0, 0.3, n_out).astype(np.float32)))
    return layers


VALUE_SIZES = [32, 16, 2]


def value_layers(rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """The value head's random weights: 32 -> 16 -> 2, outputs of a few points."""
    return [(rng.normal(0, 2.0 / np.sqrt(n_in), (n_out, n_in)).astype(np.float32),
             rng.normal(0, 0.3, n_out).astype(np.float32))
            for n_in, n_out in zip(VALUE_SIZES[:-1], VALUE_SIZES[1:])]


def torch_value(layers: list[tuple[np.ndarray, np.ndarray]], value: list[tuple[np.ndarray, np.ndarray]],
                obs_scale: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """An AlphaZero-style two-headed net in float32 torch: the trunk (every
    policy layer but the last, tanh after each), then the value head."""
    def seq(pairs: list[tuple[np.ndarray, np.ndarray]], tail: bool) -> nn.Sequential:
        mods: list[nn.Module] = []
        for i, (w, b) in enumerate(pairs):
            lin = nn.Linear(w.shape[1], w.shape[0])
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(w))
                lin.bias.copy_(torch.from_numpy(b))
            mods.append(lin)
            if tail or i < len(pairs) - 1:
                mods.append(nn.Tanh())
        return nn.Sequential(*mods)
    trunk, head = seq(layers[:-1], True), seq(value, False)
    with torch.no_grad():
        x = torch.from_numpy(obs).float() * torch.from_numpy(obs_scale)
        return head(trunk(x)).numpy().astype(np.float64)


def write_value_fixture(obs: np.ndarray, mask: np.ndarray, obs_scale: np.ndarray) -> None:
    """value.npz and value_cases.npz (see the module's doc)."""
    rng = np.random.default_rng(SEED + 3)
    layers, value = random_layers(rng), value_layers(rng)
    path = OUT / "value.npz"
    meta = export_policy(path, layers, obs_scale, ENV_ID, activation="tanh", value=value)
    assert meta["version"] == 3 and meta["value_outputs"] == VALUE_SIZES[-1], meta
    ref = policy_value(path, obs)
    tv = torch_value(layers, value, obs_scale, obs)
    assert np.abs(ref - tv).max() < 1e-4, np.abs(ref - tv).max()
    write_npz(OUT / "value_cases.npz", {"value_numpy": ref, "value_torch": tv,
                                        "probs_numpy": policy_probs(path, obs, mask)}, compress=True)
    print(f"{path.relative_to(REPO)}: max |numpy - torch| value {np.abs(ref - tv).max():.2e}; "
          f"values {ref.mean(axis=0)} on average, sd {ref.std(axis=0)}")


CODES = [{"offset": 432, "size": 71, "classes": 12}, {"offset": 0, "size": 48, "classes": 2}]


def write_codes_fixture(obs: np.ndarray, mask: np.ndarray, obs_scale: np.ndarray) -> None:
    """codes.npz, codes_conv.npz and codes_cases.npz (see the module's doc)."""
    from galaxygym import train
    cases: dict[str, np.ndarray] = {}
    for name, arch, kw in [("codes", "mlp", {"hidden": (32, 32)}),
                           ("codes_conv", "conv", {"board": train.GALAXY_EXPRESS_BOARD, "channels": (8,), "hidden": (32,)})]:
        torch.manual_seed(SEED + 5)
        net = train.make_policy(arch, obs_scale, len(mask[0]), activation="relu", codes=CODES, **kw).eval()
        with torch.no_grad():  # spread-out logits, and codes that matter
            net.pi[-1].weight.mul_(8.0)
            net.pi[0].weight[:, -net.onehot.width:].mul_(10.0)
        path = OUT / f"{name}.npz"
        meta = train.export(net, path, ENV_ID)
        assert meta["version"] == 4 and meta["codes"] == CODES, meta
        ref = policy_probs(path, obs, mask)
        tp = net_probs(net, obs, mask)
        assert np.abs(ref - tp).max() < 1e-5, np.abs(ref - tp).max()
        cases[f"{name}_numpy"], cases[f"{name}_torch"] = ref, tp
        print(f"{path.relative_to(REPO)}: max |numpy - torch| {np.abs(ref - tp).max():.2e}; "
              f"max prob {ref.max(axis=1).mean():.3f} on average")
    write_npz(OUT / "codes_cases.npz", cases, compress=True)


AFEAT_NAMES = ["lost", "orbit", "deliver"]
AFEAT_WEIGHTS = [-4.0, 1.5, 3.0]


def write_afeat_fixture(tmp: Path, obs_scale: np.ndarray) -> None:
    """afeat.npz and afeat_cases.npz (see the module's doc)."""
    from galaxygym import train
    labels = tmp / "afeat-labels.npz"
    subprocess.run(["go", "run", "./tools/dagger", "-beta", "1", "-features", "-episodes", "20", "-seed", "5",
                    "-out", str(labels)], cwd=REPO, check=True, capture_output=True)
    with np.load(labels) as z:
        keep = np.flatnonzero(z["mask"].sum(axis=1) >= 2)[:CASES]
        # The fixture is a file of the game's first three features (it now
        # declares more): those columns, by name.
        names = bytes(z["afeat_names"]).decode().split(",")
        obs, mask = z["obs"][keep], z["mask"][keep]
        afeat = z["afeat"][keep][:, :, [names.index(n) for n in AFEAT_NAMES]]
    torch.manual_seed(SEED + 7)
    net = train.make_policy("mlp", obs_scale, mask.shape[1], hidden=(32, 32), activation="relu",
                            action_features=AFEAT_NAMES).eval()
    with torch.no_grad():
        net.pi[-1].weight.mul_(8.0)
        net.afeat.weight.copy_(torch.tensor(AFEAT_WEIGHTS))
    path = OUT / "afeat.npz"
    meta = train.export(net, path, ENV_ID)
    assert meta["version"] == 5 and meta["action_features"] == AFEAT_NAMES, meta
    ref = policy_probs(path, obs, mask, afeat)
    with torch.no_grad():
        logits = net(torch.from_numpy(obs), torch.from_numpy(afeat)).masked_fill(~torch.from_numpy(mask != 0), -1e9)
        tp = torch.softmax(logits, -1).numpy().astype(np.float64)
    assert np.abs(ref - tp).max() < 1e-5, np.abs(ref - tp).max()
    write_npz(OUT / "afeat_cases.npz", {"obs": obs, "mask": mask, "afeat": afeat, "probs_numpy": ref,
                                        "probs_torch": tp}, compress=True)
    print(f"{path.relative_to(REPO)}: {len(obs)} cases, {int(afeat.any(axis=2).sum())} actions with a feature; "
          f"max |numpy - torch| {np.abs(ref - tp).max():.2e}")


def main() -> None:
    binary = os.environ.get("GALAXYGYM_BIN")
    with tempfile.TemporaryDirectory() as tmp:
        if not binary:
            binary = str(Path(tmp) / "galaxygym")
            subprocess.run(["go", "build", "-o", binary, "./cmd/galaxygym"], cwd=REPO, check=True)
        obs, mask, high = observations(binary, Path(tmp))
        afeat_scale = (1.0 / np.maximum(high.astype(np.float32), 1.0)).astype(np.float32)
        OUT.mkdir(parents=True, exist_ok=True)
        write_afeat_fixture(Path(tmp), afeat_scale)
    obs_scale = (1.0 / np.maximum(high.astype(np.float32), 1.0)).astype(np.float32)
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    cases: dict[str, np.ndarray] = {"obs": obs, "mask": mask}
    for act in ["tanh", "relu"]:
        layers = random_layers(rng)
        path = OUT / f"{act}.npz"
        export_policy(path, layers, obs_scale, ENV_ID, activation=act)
        ref = policy_probs(path, obs, mask)
        tp = torch_probs(layers, act, obs_scale, obs, mask)
        assert np.abs(ref - tp).max() < 1e-5, np.abs(ref - tp).max()
        cases[f"{act}_torch"], cases[f"{act}_numpy"] = tp, ref
        legal = mask.astype(bool)
        print(f"{path.relative_to(REPO)}: max |numpy - torch| {np.abs(ref - tp).max():.2e}; "
              f"max prob {ref.max(axis=1).mean():.3f} on average over {legal.sum(axis=1).mean():.1f} legal actions")
    from galaxygym import train
    for act, center in [("relu", 0), ("tanh", -1)]:
        torch.manual_seed(SEED)
        board = dict(train.GALAXY_EXPRESS_BOARD, center_plane=center)
        net = train.make_policy("conv", obs_scale, len(mask[0]), board=board, channels=(8, 8), hidden=(32,),
                                activation=act).eval()
        with torch.no_grad():  # spread-out logits (probabilities far from uniform)
            net.pi[-1].weight.mul_(8.0)
        path = OUT / f"conv_{act}.npz"
        train.export(net, path, ENV_ID)
        ref = policy_probs(path, obs, mask)
        tp = net_probs(net, obs, mask)
        assert np.abs(ref - tp).max() < 1e-5, np.abs(ref - tp).max()
        cases[f"conv_{act}_torch"], cases[f"conv_{act}_numpy"] = tp, ref
        print(f"{path.relative_to(REPO)}: max |numpy - torch| {np.abs(ref - tp).max():.2e}; "
              f"max prob {ref.max(axis=1).mean():.3f} on average")
    write_npz(OUT / "cases.npz", cases, compress=True)
    write_value_fixture(obs, mask, obs_scale)
    write_codes_fixture(obs, mask, obs_scale)
    print(f"{(OUT / 'cases.npz').relative_to(REPO)}: {len(obs)} cases")


if __name__ == "__main__":
    main()
