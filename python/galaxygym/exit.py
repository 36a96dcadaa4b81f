"""Expert iteration's training step: a policy+value network learns from the
search's games (docs/learning-baselines.md, "Expert iteration").

``galaxygym generate --agent mcts@... --record-search`` writes, at every
decision, the search's visit fractions (``search_policy``) and root value
(``search_value``); this module trains a network on them and writes a
format-version-3 weights file (docs/policy-format.md) that the Go ``policy``
agent and ``mcts@weights=FILE`` load:

- the policy head: cross-entropy to ``search_policy`` over the legal mask, on
  the searched decisions (search_value not NaN);
- the value head (one output, value[0]: the observer's return from the
  observed position on, in the environment's reward units): mean squared
  error to the acting seat's return from the decision to the end of the
  episode (its rewards summed over the steps table's rows), optionally mixed
  with the search's root value (``--value-mix``). The loss is divided by the
  targets' variance so that its scale does not depend on the game's reward
  units; the head's outputs stay in reward units, as the format says.

Warm start: ``--init FILE.npz`` (any committed weights file: the -bc, -ppo,
-selfplay or an earlier -exit) gives the policy layers, and its value head
when it has one; a fresh value head is a small MLP on the policy's last
hidden layer, its output bias set to the targets' mean.

    python -m galaxygym.exit --data DIR [--data DIR2] --init W.npz --out OUT.npz
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["load_search_data", "returns_to_go", "ExItNet", "train_exit", "export_exit", "main"]


def returns_to_go(episode_id: NDArray[Any], player: NDArray[Any], rewards: NDArray[Any]) -> NDArray[Any]:
    """Per row of a steps table (episode then step order), the acting
    player's return from that row on: the sum of its rewards (column
    ``player`` of ``rewards``, (R, P)) over the rows of its episode from this
    one to the end. float64 (R,)."""
    r = np.asarray(rewards, np.float64)
    rows = len(r)
    out = np.zeros(rows)
    if rows == 0:
        return out
    # Reverse cumulative sums per episode, every player's, then the actor's column.
    starts = np.flatnonzero(np.r_[True, episode_id[1:] != episode_id[:-1]])
    ends = np.r_[starts[1:], rows]
    togo = np.empty_like(r)
    for s, e in zip(starts, ends):
        togo[s:e] = np.cumsum(r[s:e][::-1], axis=0)[::-1]
    out[:] = togo[np.arange(rows), np.asarray(player, np.int64)]
    return out


def load_search_data(paths: Sequence[str | os.PathLike[str]], value_mix: float = 0.0,
                     target: str = "visits") -> dict[str, Any]:
    """The decisions of datasets written with ``--record-search``, read with
    :func:`galaxygym.datasets.load`: {"obs": uint8 (N, obs_size), "mask":
    bool (N, A), "pi": float32 (N, A) the search policy, "searched": bool
    (N,), "z": float32 (N,) the value target (the acting seat's return to go,
    mixed with search_value by value_mix where searched), "episode_id":
    int64 (N,) renumbered to run on across the datasets, "env_id", "obs_high"
    float32, "layout": the spec (for a conv net's board)}. target "played"
    replaces the visit fractions by 1 on the action played (for
    search=halving, whose visits spread over the actions it eliminates);
    "best" by 1 on the most visited action (the lowest on ties). The
    policy loss counts the searched decisions only, and a decision where
    ``mcts@follow=P`` played the policy's move (DAgger's mixture) is
    recorded unsearched, so either target learns the search's choices at
    the positions the mixture reached. Raises ValueError for "best" on data
    of search=halving (its visits say how far each action got and mostly
    tie: use "played").
    Raises ValueError
    for a dataset without the search columns or of another environment."""
    from .datasets import load

    parts: list[dict[str, Any]] = []
    env_id = None
    spec: dict[str, Any] = {}
    offset = 0
    for p in paths:
        ds = load(p)
        if ds.search_policy is None or ds.search_value is None:
            raise ValueError(f"{p}: no search columns (generate it with --record-search)")
        if env_id is not None and ds.env_id != env_id:
            raise ValueError(f"{p}: {ds.env_id}, the other datasets {env_id}")
        env_id, spec = ds.env_id, ds.manifest["env_spec"]
        opts = (ds.manifest.get("agent") or {}).get("options") or {}
        if target == "best" and opts.get("search") == "halving":
            raise ValueError(f"{p}: target 'best' needs the PUCT search's visits (search=ismcts): sequential "
                             "halving's visits say how far each action got, and most of its decisions tie")
        z = returns_to_go(ds.episode_id, ds.player, ds.rewards)
        keep = ds.action >= 0
        sv = ds.search_value[keep].astype(np.float64)
        searched = ~np.isnan(sv)
        zk = z[keep]
        if value_mix:
            zk = np.where(searched, (1 - value_mix) * zk + value_mix * np.nan_to_num(sv), zk)
        eid = ds.episode_id[keep].astype(np.int64)
        pi = ds.search_policy[keep].astype(np.float32)
        if target == "played":
            pi = np.zeros_like(pi)
            pi[np.arange(len(pi)), ds.action[keep]] = 1
        elif target == "best":
            best = pi.argmax(1)
            pi = np.zeros_like(pi)
            pi[np.arange(len(pi)), best] = 1
        elif target != "visits":
            raise ValueError(f"target {target!r}: want 'visits', 'played' or 'best'")
        parts.append({"obs": ds.obs.reshape(len(ds), -1)[keep], "mask": ds.action_mask[keep] != 0,
                      "pi": pi, "searched": searched,
                      "z": zk.astype(np.float32), "episode_id": eid + offset})
        offset += int(eid.max()) + 1 if len(eid) else 0
    if not parts:
        raise ValueError("no datasets")
    out: dict[str, Any] = {k: np.concatenate([d[k] for d in parts]) for k in parts[0]}
    out["env_id"], out["layout"] = env_id, spec
    out["obs_high"] = np.asarray(spec["obs_high"], np.float32)
    return out


def _torch() -> Any:
    import torch
    return torch


def ExItNet(policy: Any, value: Any) -> Any:  # noqa: N802 (a class made on first use: torch is optional)
    """A policy network of :mod:`galaxygym.train` (MLPPolicy or ConvPolicy)
    with a value head (an ``nn.Sequential`` of Linear layers with the
    policy's activation between them) on its last hidden layer: forward(obs)
    returns (logits (B, A), value (B,)), the value in reward units."""
    return _exit_net_class()(policy, value)


_CLASS: Any = None


def _exit_net_class() -> Any:
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    torch = _torch()
    nn = torch.nn

    class _ExItNet(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self, policy: Any, value: Any):
            super().__init__()
            self.policy = policy
            self.value = value

        def hidden(self, obs: Any) -> Any:
            return self.policy.pi[:-1](self.policy.features(obs))

        def forward(self, obs: Any) -> Any:
            h = self.hidden(obs)
            return self.policy.pi[-1](h), self.value(h)[:, 0]

    _CLASS = _ExItNet
    return _CLASS


def _value_head(policy: Any, hidden: int, mean: float, scale: float) -> Any:
    torch = _torch()
    nn = torch.nn
    width = [m for m in policy.pi if isinstance(m, nn.Linear)][-1].in_features
    act = nn.ReLU if policy.activation == "relu" else nn.Tanh
    head = nn.Sequential(nn.Linear(width, hidden), act(), nn.Linear(hidden, 1))
    with torch.no_grad():
        head[2].weight.mul_(scale)
        head[2].bias.fill_(mean)
    return head


def build_net(init: str | os.PathLike[str] | None, data: dict[str, Any], arch: str = "mlp",
              hidden: Sequence[int] = (256, 256), value_hidden: int = 64) -> Any:
    """The network to train: init's policy (and value head, if it has one:
    format version 3) or a fresh ``arch`` policy, with a fresh value head of
    value_hidden units otherwise."""
    torch = _torch()
    nn = torch.nn
    from .train import make_policy

    z = data["z"].astype(np.float64)
    mean, scale = float(z.mean()) if len(z) else 0.0, float(z.std()) if len(z) else 1.0
    if init is not None:
        from ._nets import load_torch_policy
        from .policy import load_policy
        policy = load_torch_policy(init)
        if policy.action_features:
            raise ValueError(f"{init} reads the game's action features {policy.action_features} (weights format "
                             "version 5), which the search's datasets do not carry")
        p = load_policy(init)
        if p["meta"]["env_id"] != data["env_id"]:
            raise ValueError(f"{init} plays {p['meta']['env_id']}, the data is {data['env_id']}")
        if p.get("value"):
            act = nn.ReLU if policy.activation == "relu" else nn.Tanh
            mods: list[Any] = []
            for i, (w, b) in enumerate(p["value"]):
                if i:
                    mods.append(act())
                lin = nn.Linear(w.shape[1], w.shape[0])
                lin.weight.data.copy_(torch.from_numpy(w.astype(np.float32)))
                lin.bias.data.copy_(torch.from_numpy(b.astype(np.float32)))
                mods.append(lin)
            value = nn.Sequential(*mods)
            if int(p["value"][-1][0].shape[0]) != 1:
                raise ValueError(f"{init}: a value head of {p['value'][-1][0].shape[0]} outputs; want 1")
        else:
            value = _value_head(policy, value_hidden, mean, max(scale, 1e-3))
    else:
        obs_scale = 1.0 / np.maximum(data["obs_high"], 1.0)
        num_actions = data["mask"].shape[1]
        kw: dict[str, Any] = {"hidden": tuple(hidden)}
        policy = make_policy(arch, obs_scale, num_actions, env_id=data["layout"] if arch != "mlp" else data["env_id"], **kw)
        value = _value_head(policy, value_hidden, mean, max(scale, 1e-3))
    return ExItNet(policy, value)


def train_exit(data: dict[str, Any], net: Any, samples: int, batch_size: int = 256, lr: float = 1e-3,
               value_weight: float = 1.0, holdout: float = 0.05, checkpoints: int = 5, seed: int = 0,
               threads: int | None = None, log: Callable[[str], None] | None = print,
               device: Any = None) -> list[dict[str, Any]]:
    """Trains net (:func:`ExItNet`) for `samples` decisions seen (Adam,
    cosine step size): loss = cross-entropy(search_policy, masked softmax)
    on the searched decisions + value_weight x MSE(value, z) / var(z). The
    last `holdout` fraction of the episodes is held out. Returns the curve:
    per checkpoint samples, seconds, loss, and on the held-out decisions
    policy_ce, agreement (the net's most probable legal action is the
    search's most visited) and value_rmse (reward units).

    device (a torch device or its name, :func:`galaxygym.train.training_device`;
    default the CPU) is where the gradient steps run: net moves there for
    the training and back before this returns; the data stay in host
    memory, a minibatch copied at a time."""
    from .train import _move_to
    torch = _torch()
    if threads:
        torch.set_num_threads(threads)
    dev, home = _move_to(net, device)
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    eid = data["episode_id"]
    episodes = np.unique(eid)
    cut = episodes[min(len(episodes) - 1, int(len(episodes) * (1 - holdout)))] if holdout > 0 and len(episodes) > 1 \
        else episodes[-1] + 1
    train_idx = np.flatnonzero(eid < cut)
    val_idx = np.flatnonzero(eid >= cut)
    obs = torch.from_numpy(np.ascontiguousarray(data["obs"]))
    mask = torch.from_numpy(data["mask"])
    pi = torch.from_numpy(data["pi"])
    searched = torch.from_numpy(data["searched"])
    z = torch.from_numpy(data["z"].astype(np.float32))
    var = float(max(np.var(data["z"][train_idx]) if len(train_idx) else 1.0, 1e-6))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = max(1, samples // batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + np.cos(np.pi * min(s, steps) / steps)))
    marks = {max(1, round(steps * (k + 1) / checkpoints)) for k in range(checkpoints)}
    tr = torch.from_numpy(train_idx)
    perm, pos = tr[torch.randperm(len(tr), generator=gen)], 0
    history: list[dict[str, Any]] = []
    loss_sum, loss_n, trained = 0.0, 0, 0.0

    def loss_of(idx: Any) -> tuple[Any, Any, Any]:
        m = mask[idx].to(dev)
        logits, v = net(obs[idx].to(dev))
        logp = torch.log_softmax(logits.masked_fill(~m, -1e9), 1)
        s = searched[idx].to(dev)
        ce = -(pi[idx].to(dev) * logp.masked_fill(~m, 0)).sum(1)
        ce = (ce * s).sum() / s.sum().clamp(min=1)
        mse = ((v - z[idx].to(dev)) ** 2).mean()
        return ce, mse, logits

    net.train()
    started = time.time()
    for step in range(1, steps + 1):
        if pos + batch_size > len(perm):
            perm, pos = tr[torch.randperm(len(tr), generator=gen)], 0
        idx = perm[pos:pos + batch_size]
        pos += batch_size
        ce, mse, _ = loss_of(idx)
        loss = ce + value_weight * mse / var
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        loss_sum += float(loss)
        loss_n += 1
        if step in marks:
            trained += time.time() - started
            point: dict[str, Any] = {"samples": step * batch_size, "seconds": round(trained, 1),
                                     "loss": loss_sum / loss_n}
            if len(val_idx):
                net.eval()
                with torch.no_grad():
                    vi = torch.from_numpy(val_idx)
                    ce, mse, logits = loss_of(vi)
                    s = searched[vi].to(dev)
                    best = logits.masked_fill(~mask[vi].to(dev), -1e9).argmax(1) == pi[vi].to(dev).argmax(1)
                    point["policy_ce"] = float(ce)
                    point["agreement"] = float((best & s).sum()) / max(1, int(s.sum()))
                    point["value_rmse"] = float(mse) ** 0.5
                net.train()
            loss_sum, loss_n = 0.0, 0
            history.append(point)
            if log:
                log("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in point.items()))
            started = time.time()
    net.eval()
    net.to(home)
    return history


def export_exit(net: Any, path: str | os.PathLike[str], env_id: str) -> dict[str, Any]:
    """Writes net (:func:`ExItNet`) as a format-version-3 weights file: the
    policy's layers (and convolutions), the value head (value_outputs 1)."""
    from .policy import export_policy
    from .train import layers_of

    p = net.policy
    linear = layers_of(p)
    value = [m for m in net.value if type(m).__name__ == "Linear"]
    scale = p.obs_scale.detach().cpu().numpy()
    if hasattr(p, "conv"):
        return export_policy(path, linear, scale, env_id, activation=p.activation,
                             conv=layers_of(p, "Conv2d", "conv"), board=p.board, value=value, codes=p.codes)
    return export_policy(path, linear, scale, env_id, activation=p.activation, value=value, codes=p.codes)


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv: Sequence[str] | None = None) -> None:
    """python -m galaxygym.exit: trains a policy+value network on the
    search's decisions (datasets from generate --record-search) and writes
    a format-version-3 weights file and OUT.json (command, data sizes,
    curve, CPU seconds)."""
    from .train import device_name, device_of_command
    a = _parser().parse_args(argv)
    dev = device_of_command(a.device)  # before the data are read
    t0, c0 = time.time(), _cpu_seconds()
    data = load_search_data(a.data, a.value_mix, a.target)
    n, ns = len(data["z"]), int(data["searched"].sum())
    print(f"{n} decisions ({ns} searched) of {len(np.unique(data['episode_id']))} episodes from {', '.join(a.data)}")
    torch = _torch()
    torch.manual_seed(a.seed)
    if a.threads:
        torch.set_num_threads(a.threads)
    hidden = tuple(int(h) for h in a.hidden.split(","))
    net = build_net(a.init, data, a.arch, hidden, a.value_hidden)
    samples = a.samples if a.samples else max(a.batch_size, int(a.epochs * n))
    print(f"gradient steps on {device_name(dev)}")
    curve = train_exit(data, net, samples, batch_size=a.batch_size, lr=a.lr, value_weight=a.value_weight,
                       checkpoints=a.checkpoints, seed=a.seed, threads=a.threads, device=dev)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp.npz")
    meta = export_exit(net, tmp, data["env_id"])
    os.replace(tmp, out)  # a killed run leaves no half-written OUT
    info = {"command": "python -m galaxygym.exit " + " ".join(argv if argv is not None else sys.argv[1:]),
            "args": vars(a), "meta": meta, "decisions": n, "searched": ns,
            "episodes": int(len(np.unique(data["episode_id"]))), "samples": samples, "device": device_name(dev),
            "curve": curve,
            "wall_seconds": round(time.time() - t0, 1), "cpu_seconds": round(_cpu_seconds() - c0, 1)}
    out.with_suffix(".json").write_text(json.dumps(info, indent=1))
    print("wrote", out)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m galaxygym.exit", description=main.__doc__)
    ap.add_argument("--data", action="append", required=True,
                    help="a dataset written by generate --record-search (repeat for several)")
    ap.add_argument("--init", default=None, help="warm start from this weights file (.npz, any format version)")
    ap.add_argument("--arch", default="mlp", choices=["mlp", "conv", "conv-nocenter"], help="without --init")
    ap.add_argument("--hidden", default="256,256", help="hidden widths without --init")
    ap.add_argument("--value-hidden", type=int, default=64, help="a fresh value head's hidden units")
    ap.add_argument("--samples", type=int, default=0, help="decisions seen (default: --epochs x the data)")
    ap.add_argument("--epochs", type=float, default=4.0)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--value-weight", type=float, default=1.0, help="weight of the value loss (MSE / var(z))")
    ap.add_argument("--value-mix", type=float, default=0.0,
                    help="value target: (1-m) x the return to go + m x the search's root value")
    ap.add_argument("--target", default="visits", choices=["visits", "played", "best"],
                    help="policy target: the visit fractions, 1 on the action played, or 1 on the most visited")
    ap.add_argument("--checkpoints", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="auto",
                    help="where the gradient steps run: auto (a CUDA GPU where torch sees one, else the CPU), cpu, cuda, cuda:N")
    ap.add_argument("--out", required=True, help="the weights file (.npz) to write; OUT.json beside it")
    return ap


if __name__ == "__main__":
    main()
