"""Learning baselines from galaxygym datasets: behaviour cloning of a Go
agent's Parquet dataset (masked cross-entropy over the legal actions), with
a network chosen from the observation's structure, exported in the Go
``policy`` agent's weights format (docs/policy-format.md) and evaluated
natively by ``galaxygym eval``.

Galaxy Express's observation (env/galaxyexpress/observe.go) is 9 board
planes of 6 rows x 8 columns on a torus (movement wraps around), then 71
scalar features. :class:`ConvPolicy` reads the planes with circular-padded
convolutions (the torus has no edge) after an optional translation that puts
the Starship at square (0, 0) (the rules are the same on every square of a
torus, so a position seen from the ship is all that matters), flattens them
and joins the scalar features for the fully connected layers.
:class:`MLPPolicy` is the flat reference on the same data.

The board comes from the environment's ``observation_layout`` (the server's
spec, ``galaxygym.list_envs()``), not from Python: :func:`board_from_layout`
states the rule and :func:`board_of` applies it to an id, so
``make_policy("conv", ..., env_id=...)`` builds a board network for any
game whose layout has a board (Galaxy Express, Galaxy Fighters) and raises
:class:`NoBoardError` for one whose layout has none (Express, Pilots of
Gallaxia: their per-seat tables are not grids).

Labels are the dataset's actions (one-hot), or, with ``soft`` and an .npz
written by ``tools/dagger -values``, the expert's value of every legal
action (soft targets). ``notebooks/weights/make_bc.sh`` made the committed
``notebooks/weights/galaxy-express-v1-bc.npz``; its steps are::

    go run ./tools/dagger -beta 1 -values -episodes 100000 -out expert.npz
    python -m galaxygym.train --data expert.npz --arch conv --channels none --hidden 512,512 --soft 1 --out r0.npz
    go run ./tools/dagger -weights r0.npz -values -episodes 40000 -out v1.npz    # then DAgger rounds
    python -m galaxygym.train --data expert.npz --dagger v1.npz --init r0.pt ... --soft 1 --out r1.npz

(``python -m galaxygym.train --help``; docs/learning-baselines.md).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .errors import GalaxyGymError

__all__ = ["GALAXY_EXPRESS_BOARD", "NoBoardError", "board_from_layout", "board_of", "codes_from_layout", "codes_of",
           "action_kind", "agreement_by_kind", "load_steps", "load_labels", "labels_meta", "labels_feature_names", "hard_q", "concat_before",
           "MLPPolicy", "ConvPolicy", "behaviour_cloning", "layers_of", "export", "evaluate_native", "main"]

#: Where Galaxy Express's board planes lie in its observation (observe.go):
#: 9 planes of 6 x 8 from byte 0, plane 0 the Starship. It is what
#: :func:`board_from_layout` gives for galaxy-express-v1's layout (a test
#: checks it); networks take their board from the layout, this constant
#: names the board of the committed weights and fixtures.
GALAXY_EXPRESS_BOARD = {"offset": 0, "planes": 9, "height": 6, "width": 8, "center_plane": 0}

#: The layout field whose single plane the "conv" arch centres on (a one-hot
#: position: Galaxy Express's Starship), when the board includes it.
CENTER_FIELD = "ship"


class NoBoardError(GalaxyGymError, ValueError):
    """The environment's observation layout has no board (see
    :func:`board_from_layout`), or the environment's spec (with its
    ``observation_layout``) cannot be found: the "conv" archs cannot be
    built for it; "mlp" can."""


def board_from_layout(layout: Mapping[str, Mapping[str, Any]], center: bool = True) -> dict[str, int]:
    """The board of an observation layout (a spec's ``observation_layout``:
    name -> {offset, shape, dtype, meaning}), as the board dict of the Go
    policy agent's weights format (docs/policy-format.md): {"offset",
    "planes", "height", "width", "center_plane"}.

    The rule: a grid field has shape (rows, cols) (one plane) or (k, rows,
    cols) (k planes), rows and cols at least 2. The board is the run of
    consecutive grid fields (each starting where the previous one ends) of
    one (rows, cols) that holds the most bytes, among the runs with at least
    one (k, rows, cols) field (so a lone table such as a (suits, values)
    coin count is not a board); the first such run on a tie. Its planes are
    the planes of its fields in order. center_plane is the plane of the
    run's field named :data:`CENTER_FIELD` when it is one plane and center
    is true, else -1 (no translation).

    galaxy-express-v1: ship, unscanned, planet (6 planes) and target, 9
    planes of 6 x 8 from byte 0, centred on ship (= GALAXY_EXPRESS_BOARD);
    galaxy-fighters-v1/-v2: top, count, height, ships, drones, sds,
    shielded and board, 33 planes of 11 x 11 from byte 0, not centred.
    Express and Pilots of Gallaxia have no board (their 2-D fields are
    per-seat tables). The Go agent's convolutions pad circularly (the
    torus of Galaxy Express); on a board with edges, such as Galaxy
    Fighters', opposite edges are neighbours to them.

    Raises :class:`NoBoardError` when no run qualifies."""
    fields = sorted(((int(f["offset"]), [int(d) for d in f["shape"]], name) for name, f in layout.items()))
    best: dict[str, int] | None = None
    best_bytes, cube = 0, False
    run: list[tuple[int, int, str]] = []  # (offset, planes, name) of the current run's fields
    grid: tuple[int, ...] | None = None  # the current run's (rows, cols)

    def close() -> None:
        nonlocal best, best_bytes
        if not run or not cube or grid is None:
            return
        planes = sum(p for _, p, _ in run)
        if planes * grid[0] * grid[1] <= best_bytes:
            return
        best_bytes = planes * grid[0] * grid[1]
        cp, plane = -1, 0
        for _, p, name in run:
            if center and name == CENTER_FIELD and p == 1:
                cp = plane
            plane += p
        best = {"offset": run[0][0], "planes": planes, "height": grid[0], "width": grid[1], "center_plane": cp}

    end = None
    for off, shape, name in fields:
        g = tuple(shape[-2:]) if len(shape) in (2, 3) and min(shape[-2:]) >= 2 else None
        if g is None or g != grid or off != end:
            close()
            run, grid, cube = [], g, False
        if g is not None:
            run.append((off, shape[0] if len(shape) == 3 else 1, name))
            cube = cube or len(shape) == 3
        end = off + int(np.prod(shape))
    close()
    if best is None:
        multi = ", ".join(f"{n} {s}" for _, s, n in fields if len(s) > 1) or "none"
        raise NoBoardError("the observation layout has no board, no run of grid fields with a (planes, rows, cols) "
                           f"one (its fields of more than one dimension: {multi}); use arch 'mlp'")
    return best


def board_of(env: str | Mapping[str, Any], center: bool = True) -> dict[str, int]:
    """The board of an environment (:func:`board_from_layout` of its
    ``observation_layout``): env is a spec dict (``galaxygym.list_envs()``,
    a vector env's ``game_spec``, a dataset manifest's ``env_spec``) or an
    id, whose spec comes from the server's list (the wheel's table, the
    binary, or $GALAXYGYM_URL; see galaxygym._registration). Raises
    :class:`NoBoardError` when the layout has no board or the spec (or its
    layout) cannot be found."""
    spec: Mapping[str, Any]
    if isinstance(env, str):
        from ._registration import spec_of
        found = spec_of(env)
        if found is None:
            raise NoBoardError(f"no spec of {env!r}: the environment is unknown, or no server binary "
                               "($GALAXYGYM_BIN) or server ($GALAXYGYM_URL) answered")
        spec = found
    else:
        spec = env
    layout = spec.get("observation_layout")
    env_id = spec.get("id", "?")
    if not layout:
        raise NoBoardError(f"{env_id}: its spec has no observation_layout, so no board; use arch 'mlp'")
    try:
        return board_from_layout(layout, center)
    except NoBoardError as e:
        raise NoBoardError(f"{env_id}: {e}") from None


def codes_from_layout(layout: Mapping[str, Mapping[str, Any]]) -> list[dict[str, int]]:
    """The codes of an observation layout (a spec's ``observation_layout``),
    as the weights format's ``meta.codes`` (version 4,
    docs/policy-format.md): one {"offset", "size", "classes"} for each
    field that declares ``classes`` (each of its bytes a code 0 to
    classes-1: a card kind + 1, a seat + 1), in offset order. [] when no
    field does."""
    out = []
    for _, f in sorted(layout.items(), key=lambda kv: int(kv[1]["offset"])):
        if f.get("classes"):
            out.append({"offset": int(f["offset"]), "size": int(np.prod(f["shape"])), "classes": int(f["classes"])})
    return out


def codes_of(env: str | Mapping[str, Any]) -> list[dict[str, int]]:
    """:func:`codes_from_layout` of an environment: env is a spec dict or
    an id, found as :func:`board_of` finds it. Raises ValueError when the
    spec (or its layout) cannot be found."""
    spec: Mapping[str, Any] | None
    if isinstance(env, str):
        from ._registration import spec_of
        spec = spec_of(env)
    else:
        spec = env
    if not spec or not spec.get("observation_layout"):
        raise ValueError(f"{env if isinstance(env, str) else env.get('id', '?')}: no spec with an observation_layout, "
                         "so no codes ($GALAXYGYM_BIN or $GALAXYGYM_URL must reach a server that knows it)")
    return codes_from_layout(spec["observation_layout"])


def load_steps(path: str | os.PathLike[str], max_episodes: int | None = None) -> dict[str, NDArray[Any]]:
    """The decisions of a galaxygym dataset (docs/datasets.md), read with
    :func:`galaxygym.datasets.load`: the steps table's rows with an action
    (an episode's final row, action -1, is skipped). Returns {"obs": uint8
    (N, obs_size), "mask": bool (N, num_actions), "action": int64 (N,),
    "episode_id": int64 (N,)}, in episode then step order. max_episodes:
    keep the first episodes only."""
    from .datasets import load

    ds = load(path)
    keep = ds.action >= 0
    if max_episodes is not None:
        keep &= ds.episode_id < max_episodes
    return {"obs": ds.obs.reshape(len(ds), -1)[keep], "mask": ds.action_mask[keep] != 0,
            "action": ds.action[keep].astype(np.int64), "episode_id": ds.episode_id[keep].astype(np.int64)}


def load_labels(path: str | os.PathLike[str]) -> dict[str, NDArray[Any]]:
    """Expert-labelled decisions written by tools/dagger (the states a
    learned policy, or the expert itself with -beta 1, visits, each with the
    expert's action): the same dict as :func:`load_steps`, plus "q" (float16
    (N, num_actions): the expert's value of each legal action in score
    points, NaN for illegal ones and for legal ones the expert left
    unvalued) when the file was written with -values, and "afeat" (uint8
    (N, num_actions, F): the game's action features, whose names
    :func:`labels_feature_names` gives) when it was written with -features."""
    with np.load(path) as z:
        out = {"obs": z["obs"], "mask": z["mask"] != 0, "action": z["action"].astype(np.int64),
               "episode_id": z["episode_id"].astype(np.int64)}
        if "q" in z.files:
            out["q"] = z["q"]
        if "afeat" in z.files:
            out["afeat"] = z["afeat"]
        return out


def labels_feature_names(path: str | os.PathLike[str]) -> list[str]:
    """The action features' names recorded in a tools/dagger .npz written
    with -features ([] without them)."""
    with np.load(path) as z:
        return bytes(z["afeat_names"]).decode("ascii").split(",") if "afeat_names" in z.files else []


def labels_meta(path: str | os.PathLike[str]) -> tuple[str, NDArray[Any]]:
    """The environment id and the observation's upper bounds (uint8,
    (obs_size,)) recorded in a tools/dagger .npz."""
    with np.load(path) as z:
        return bytes(z["env_id"]).decode("ascii"), np.asarray(z["obs_high"])


def hard_q(action: NDArray[Any], num_actions: int) -> NDArray[Any]:
    """Values that make the soft target of a labelled decision its label:
    float16 (N, num_actions), 0 at the action, -inf elsewhere."""
    q = np.full((len(action), num_actions), -np.inf, np.float16)
    q[np.arange(len(action)), action] = 0
    return q


def concat_before(extra: Sequence[dict[str, NDArray[Any]]], data: dict[str, NDArray[Any]]) -> dict[str, NDArray[Any]]:
    """data with the extra decisions first, their episode ids made negative
    (so that behaviour_cloning's held-out episodes stay data's last ones).
    When any part has "q", the parts without it get :func:`hard_q`."""
    parts: list[dict[str, NDArray[Any]]] = []
    base = 0
    for k, e in enumerate(reversed(extra)):
        ids = e["episode_id"] - e["episode_id"].max() - 1 - base
        base = -int(ids.min())
        parts.insert(0, dict(e, episode_id=ids))
    parts.append(data)
    keys = ["obs", "mask", "action", "episode_id"]
    with_features = sum("afeat" in p for p in parts)
    if with_features not in (0, len(parts)):
        raise ValueError(f"{with_features} of {len(parts)} label files hold action features (tools/dagger -features): "
                         "all or none must")
    if with_features:
        keys.append("afeat")
    if any("q" in p for p in parts):
        keys.append("q")
        for p in parts:
            if "q" not in p:
                p["q"] = hard_q(p["action"], p["mask"].shape[1])
    return {key: np.concatenate([p[key] for p in parts]) for key in keys}


def _torch() -> Any:
    import torch
    return torch


@functools.lru_cache(maxsize=None)
def _modules() -> tuple[Any, Any]:
    """The network classes (galaxygym._nets; torch imported on first use)."""
    from ._nets import ConvPolicy, MLPPolicy

    return MLPPolicy, ConvPolicy


def __getattr__(name: str) -> Any:  # MLPPolicy, ConvPolicy: torch imported on first use
    if name in ("MLPPolicy", "ConvPolicy"):
        mlp, conv = _modules()
        globals().update(MLPPolicy=mlp, ConvPolicy=conv)
        return globals()[name]
    raise AttributeError(name)


def training_device(name: str = "auto") -> Any:
    """The torch device of the gradient steps (``--device``): ``"auto"``
    (the default) is CUDA device 0 where torch sees one and the CPU
    otherwise; ``"cpu"``, ``"cuda"`` and ``"cuda:N"`` are torch's names.
    The data stay in host memory and each minibatch is copied to the
    device, so a dataset larger than the GPU's memory trains as well.

    Raises ValueError for a name torch does not know, and for a CUDA device
    torch does not see (no GPU, or a CPU-only torch such as Debian's), so a
    run asked for a GPU never falls back to the CPU unnoticed. On the CPU
    the results are the same bytes as before the option existed; on a GPU
    they are not bit-for-bit reproducible (cuBLAS)."""
    torch = _torch()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(name)
    except RuntimeError as e:
        raise ValueError(f"galaxygym: --device {name!r}: {e}") from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"galaxygym: --device {name}: torch {torch.__version__} sees no CUDA device "
                             "(torch.cuda.is_available() is False); use --device cpu or auto")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(f"galaxygym: --device {name}: torch sees {torch.cuda.device_count()} CUDA device(s)")
    elif dev.type != "cpu":
        raise ValueError(f"galaxygym: --device {name}: want auto, cpu, cuda or cuda:N")
    return dev


def device_of_command(name: str) -> Any:
    """:func:`training_device` for a command line's ``--device``: its
    ValueError becomes SystemExit with the same message, called before the
    command reads its data, so a run asked for a GPU it cannot have stops
    at once."""
    try:
        return training_device(name)
    except ValueError as e:
        raise SystemExit(str(e)) from None


def _move_to(net: Any, device: Any) -> tuple[Any, Any]:
    """Moves net to device (a torch device, its name for
    :func:`training_device`, or None: the CPU) for the gradient steps;
    returns (that device, the device net was on, to move it back to)."""
    torch = _torch()
    dev = training_device(device) if isinstance(device, str) else (device or torch.device("cpu"))
    home = next(net.parameters()).device
    net.to(dev)
    return dev, home


def device_name(dev: Any) -> str:
    """A device's name for a run's record: "cpu", or "cuda:N (the GPU's
    name)"."""
    torch = _torch()
    if dev.type != "cuda":
        return str(dev)
    index = dev.index if dev.index is not None else torch.cuda.current_device()
    return f"cuda:{index} ({torch.cuda.get_device_name(index)})"


def make_policy(arch: str, obs_scale: NDArray[Any], num_actions: int, *,
                env_id: str | Mapping[str, Any] = "galaxy-express-v1", **kw: Any) -> Any:
    """A fresh policy network: arch "conv" (:class:`ConvPolicy`, the board
    centred on its ship plane when it has one), "conv-nocenter" (no
    translation) or "mlp" (:class:`MLPPolicy`). The conv archs take the
    board from ``kw["board"]`` when given, else from env_id's observation
    layout (:func:`board_of`: an id or a spec dict); they raise
    :class:`NoBoardError` for an environment without a board and ValueError
    when the board does not fit obs_scale's size. Other keywords go to the
    network's class."""
    mlp, conv = _modules()
    if arch == "mlp":
        return mlp(obs_scale, num_actions, **kw)
    if arch in ("conv", "conv-nocenter"):
        given = kw.pop("board", None)
        board = dict(given) if given is not None else board_of(env_id)
        if arch == "conv-nocenter":
            board["center_plane"] = -1
        n = int(np.asarray(obs_scale).size)
        if board["offset"] + board["planes"] * board["height"] * board["width"] > n:
            raise ValueError(f"board {board} does not fit an observation of {n} elements "
                             f"(obs_scale of another environment than {env_id if isinstance(env_id, str) else env_id.get('id')}?)")
        return conv(obs_scale, num_actions, board=board, **kw)
    raise ValueError(f"arch {arch!r}: want conv, conv-nocenter or mlp")


def behaviour_cloning(data: dict[str, NDArray[Any]], net: Any, samples: int, batch_size: int = 512,
                      lr: float = 2e-3, holdout: float = 0.02, checkpoints: int = 10, seed: int = 0,
                      threads: int | None = None, log: Callable[[str], None] | None = print,
                      on_checkpoint: Callable[[Any, dict[str, Any]], None] | None = None,
                      soft: float | None = None, afeat_lr: float = 0.05, device: Any = None) -> list[dict[str, Any]]:
    """Trains net (obs -> logits) to imitate data's actions: masked
    cross-entropy over the legal actions (illegal logits set to -1e9), Adam
    with a cosine-annealed step size, for `samples` training samples (the
    budget, counted in decisions seen; several epochs if it exceeds the
    data). The last `holdout` fraction of the episodes is held out.

    soft (a temperature in score points) with data["q"] (the expert's value
    of each legal action, :func:`load_labels`): the target is softmax(q /
    soft) over the legal actions instead of the one label, so actions the
    expert values equally (its exact ties, broken at random, are about a
    fifth of Galaxy Express's decisions) share the target and costly
    mistakes are told apart from harmless ones (distillation of the
    expert's action values, as in Hinton et al. 2015).

    Returns the learning curve: at `checkpoints` evenly spaced points, a dict
    with samples (seen so far), seconds (of training), loss (mean training
    loss since the previous point) and agreement (the held-out decisions
    where the net's most probable legal action is the data's); with
    data["q"] also best (the held-out decisions where that action has the
    expert's highest value, ties included; where the expert valued no
    action, where it is the label) and regret (the mean of the best value
    less that action's, in score points, over the decisions where the
    expert valued that action). on_checkpoint (net, point)
    runs at each point (e.g. to evaluate the net natively and add
    point["mean_score"]); its time is not counted in seconds.

    A network that reads action features (``net.action_features``) gets
    data["afeat"] with each observation; their few weights learn at
    afeat_lr (they start at 0 and a rule such as "this move loses at once"
    needs a weight of many logits), the rest at lr.

    device (a torch device or its name, :func:`training_device`; default
    the CPU) is where the gradient steps run: net moves there for the
    training and back to where it was before this returns; the data stay
    in host memory, a minibatch copied at a time."""
    torch = _torch()
    if threads:
        torch.set_num_threads(threads)
    dev, home = _move_to(net, device)
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    episodes = np.unique(data["episode_id"])
    cut = episodes[int(len(episodes) * (1 - holdout))] if holdout > 0 else episodes[-1] + 1
    train_rows = int(np.searchsorted(data["episode_id"], cut))
    obs = torch.from_numpy(data["obs"])
    mask = torch.from_numpy(data["mask"])
    act = torch.from_numpy(data["action"])
    q = torch.from_numpy(data["q"]) if "q" in data else None
    if soft is not None and q is None:
        raise ValueError("soft targets need data['q'] (tools/dagger -values)")
    afeat = None
    groups: list[dict[str, Any]] = [{"params": [p for n, p in net.named_parameters() if not n.startswith("afeat.")]}]
    if getattr(net, "action_features", None):
        if "afeat" not in data:
            raise ValueError(f"the network reads the action features {net.action_features}: "
                             "data['afeat'] is missing (tools/dagger -features)")
        afeat = torch.from_numpy(data["afeat"])
        groups.append({"params": list(net.afeat.parameters()), "lr": afeat_lr})
    val = slice(train_rows, len(act))
    opt = torch.optim.Adam(groups, lr=lr)
    steps = max(1, samples // batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + np.cos(np.pi * min(s, steps) / steps)))
    marks = {max(1, round(steps * (k + 1) / checkpoints)) for k in range(checkpoints)}
    history: list[dict[str, Any]] = []
    perm, pos, loss_sum, loss_n, trained = torch.randperm(train_rows, generator=gen), 0, 0.0, 0, 0.0

    net.train()
    started = time.time()
    for step in range(1, steps + 1):
        if pos + batch_size > train_rows:
            perm, pos = torch.randperm(train_rows, generator=gen), 0
        idx = perm[pos:pos + batch_size]
        pos += batch_size
        loss = _bc_loss(net, obs[idx].to(dev), mask[idx].to(dev), act[idx].to(dev),
                        None if q is None else q[idx].to(dev), soft, None if afeat is None else afeat[idx].to(dev))
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
            point.update(_agreement(net, obs, mask, act, q, val, afeat, dev) if val.stop > val.start
                         else {"agreement": float("nan")})
            loss_sum, loss_n = 0.0, 0
            if on_checkpoint is not None:
                on_checkpoint(net, point)
            history.append(point)
            if log:
                log("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in point.items()))
            started = time.time()
    net.eval()
    net.to(home)
    return history


def _valued(q: Any, mask: Any, act: Any) -> Any:
    """The expert's values as float32 with -inf at the actions it did not
    value (illegal ones, and the legal ones an expert leaves NaN: Galaxy
    Fighters' heuristic values its commands and spills, not its weapon,
    bonus or engine choices); a row with no finite legal value becomes its
    label's one-hot (0 at act, -inf elsewhere), so that its soft target is
    the label."""
    torch = _torch()
    qf = q.float()
    qf = torch.where(mask & torch.isfinite(qf), qf, torch.full_like(qf, -np.inf))
    unvalued = ~torch.isfinite(qf).any(1)
    if bool(unvalued.any()):
        hard = torch.full_like(qf, -np.inf)
        hard.scatter_(1, act.view(-1, 1), 0.0)
        qf = torch.where(unvalued.view(-1, 1), hard, qf)
    return qf


def _logits(net: Any, obs: Any, afeat: Any) -> Any:
    """net's logits for obs (and the action features afeat, for a network
    that reads them)."""
    return net(obs) if afeat is None else net(obs, afeat)


def _bc_loss(net: Any, obs: Any, mask: Any, act: Any, q: Any, soft: float | None, afeat: Any = None) -> Any:
    """One minibatch's loss: masked cross-entropy against the labels act, or
    with soft against softmax(q / soft) over the actions the expert valued
    (:func:`_valued`)."""
    torch = _torch()
    logits = _logits(net, obs, afeat).masked_fill(~mask, -1e9)
    if soft is not None:
        assert q is not None
        target = torch.softmax(_valued(q, mask, act) / soft, 1)
        return -(target * torch.log_softmax(logits, 1)).sum(1).mean()
    return torch.nn.functional.cross_entropy(logits, act)


def _agreement(net: Any, obs: Any, mask: Any, act: Any, q: Any, val: slice, afeat: Any = None,
               dev: Any = None) -> dict[str, float]:
    """The held-out rows val's agreement (and, with q, best and regret; see
    :func:`behaviour_cloning`), the net in eval mode meanwhile; the rows
    are copied to dev (net's device) 4,096 at a time."""
    torch = _torch()
    dev = dev or torch.device("cpu")
    net.eval()
    hits, best, regret, valued = 0, 0, 0.0, 0
    with torch.no_grad():
        for k in range(val.start, val.stop, 4096):
            e = min(k + 4096, val.stop)
            mk, ak = mask[k:e].to(dev), act[k:e].to(dev)
            choice = _logits(net, obs[k:e].to(dev), None if afeat is None else afeat[k:e].to(dev)) \
                .masked_fill(~mk, -1e9).argmax(1)
            hits += int((choice == ak).sum())
            if q is not None:
                qk = _valued(q[k:e].to(dev), mk, ak)
                gap = qk.max(1).values - qk.gather(1, choice.view(-1, 1)).view(-1)
                best += int((gap <= 0).sum())
                fin = torch.isfinite(gap)  # a choice the expert did not value has no regret to count
                regret += float(gap[fin].sum())
                valued += int(fin.sum())
    net.train()
    n = max(1, val.stop - val.start)
    out = {"agreement": hits / n}
    if q is not None:
        out.update(best=best / n, regret=regret / max(1, valued))
    return out


def action_kind(name: str) -> str:
    """The kind of an action name: its dash-separated words up to the first
    one holding a digit ("to-s0-H" -> "to", "raid-r1-ship-1" -> "raid",
    "end-moves" -> "end-moves", "warp-zone-2-col-4" -> "warp-zone")."""
    words = []
    for w in name.split("-"):
        if any(c.isdigit() for c in w):
            break
        words.append(w)
    return "-".join(words) or name


def agreement_by_kind(weights: str | os.PathLike[str] | Mapping[str, Any], data: Mapping[str, NDArray[Any]],
                      action_names: Sequence[str], batch: int = 2000,
                      afeat_names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """What a clone gets wrong, kind by kind: the weights file's greedy
    action (:func:`galaxygym.policy_probs`' argmax, as the Go agent plays
    it) against the expert's label, on the decisions of data (a
    :func:`load_labels` dict; the decisions with one legal action are left
    out), grouped by the kind of the expert's action (:func:`action_kind`
    of its name in action_names) and by whether the expert valued that
    decision (a finite "q" at a legal action). One row per group, the
    largest first: {"kind", "valued", "decisions", "share" (of the
    decisions counted), "agree" (the share where the clone's action is the
    label), "best" (valued groups: the share where it is among the best
    valued, ties included; None otherwise)}. afeat_names: the names of
    data["afeat"]'s columns (:func:`labels_feature_names` of its file), so
    that a file reading fewer of the game's features takes its own by name;
    without it the columns must be the file's."""
    from .policy import load_policy, policy_probs
    p = weights if isinstance(weights, Mapping) and "layers" in weights else load_policy(weights)
    obs, mask, act = data["obs"], np.asarray(data["mask"]) != 0, np.asarray(data["action"])
    q = data.get("q")
    afeat = data.get("afeat")  # a version-5 file's action features (load_labels of a -features file)
    keep = np.flatnonzero(mask.sum(1) >= 2)
    groups: dict[tuple[str, bool], list[int]] = {}
    for k in range(0, len(keep), batch):
        rows = keep[k:k + batch]
        choice = policy_probs(p, obs[rows], mask[rows], None if afeat is None else afeat[rows],
                              afeat_names).argmax(1)
        for i, c in zip(rows, choice):
            qi = np.full(mask.shape[1], np.nan) if q is None else np.where(mask[i], np.asarray(q[i], np.float64), np.nan)
            valued = bool(np.isfinite(qi).any())
            g = groups.setdefault((action_kind(action_names[int(act[i])]), valued), [0, 0, 0])
            g[0] += 1
            g[1] += int(c == act[i])
            if valued and np.isfinite(qi[c]) and qi[c] >= np.nanmax(qi):
                g[2] += 1
    total = max(1, sum(g[0] for g in groups.values()))
    out = [{"kind": kind, "valued": valued, "decisions": g[0], "share": g[0] / total, "agree": g[1] / g[0],
            "best": g[2] / g[0] if valued else None} for (kind, valued), g in groups.items()]
    return sorted(out, key=lambda r: (-r["decisions"], r["kind"]))


def layers_of(net: Any, kind: str = "Linear", part: str = "pi") -> list[Any]:
    """The torch modules of class `kind` ("Linear" or "Conv2d") in net's
    `part` ("pi": the fully connected stack; "conv": the convolutions), in
    order: what the Go weights format stores, layer by layer."""
    return [m for m in getattr(net, part) if type(m).__name__ == kind]


def export(net: Any, path: str | os.PathLike[str], env_id: str) -> dict[str, Any]:
    """Writes net (an MLPPolicy or ConvPolicy) in the Go policy agent's
    weights format (docs/policy-format.md) with galaxygym.export_policy."""
    from .policy import export_policy
    linear = layers_of(net)
    scale = net.obs_scale.detach().cpu().numpy()
    codes = getattr(net, "codes", None)
    features = (net.action_features, net.afeat.weight) if getattr(net, "action_features", None) else None
    if hasattr(net, "conv"):
        conv = layers_of(net, "Conv2d", "conv")
        return export_policy(path, linear, scale, env_id, activation=net.activation, conv=conv, board=net.board,
                             codes=codes, action_features=features)
    return export_policy(path, linear, scale, env_id, activation=net.activation, codes=codes,
                         action_features=features)


def evaluate_native(weights: str | os.PathLike[str], episodes: int = 1000, seed: int = 1, greedy: bool = True,
                    env_id: str = "galaxy-express-v1", binary: str | None = None, workers: int = 2) -> dict[str, Any]:
    """Plays the weights file with the Go policy agent: `galaxygym eval
    --agents policy` over `episodes` seeded games. Returns eval's JSON row
    for the policy (mean_return, win_rate, ...)."""
    from ._server import binary_path

    binary = binary or binary_path()  # $GALAXYGYM_BIN, the wheel's own binary, or a checkout's
    cmd = [binary, "eval", "--env", env_id, "--agents", "policy", "--weights", str(weights),
           "--agent-opt", f"policy.greedy={str(greedy).lower()}", "--episodes", str(episodes),
           "--seed", str(seed), "--workers", str(workers), "--format", "json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    res = json.loads(out)
    rows = res["agents"] if isinstance(res, dict) and "agents" in res else res
    row: dict[str, Any] = rows[0] if isinstance(rows, list) else rows
    return row


def main(argv: Sequence[str] | None = None) -> None:
    """python -m galaxygym.train: behaviour cloning from a dataset to a
    weights file; prints the learning curve and writes it as JSON beside
    the weights (FILE.json)."""
    a = _parser().parse_args(argv)
    dev = device_of_command(a.device)  # before the data are read
    data, env_id, high, num_actions, layout_source = _training_data(a)
    scale = 1.0 / np.maximum(np.asarray(high, np.float32), 1.0)
    print(f"{len(data['action'])} decisions of {len(np.unique(data['episode_id']))} episodes from {a.data}")
    torch = _torch()
    torch.manual_seed(a.seed)
    hidden = tuple(int(h) for h in (a.hidden or ("256,256" if a.arch == "mlp" else "256")).split(","))
    kw: dict[str, Any] = {"hidden": hidden}
    if a.arch != "mlp":
        kw["channels"] = tuple(int(c) for c in a.channels.split(",") if c.strip() and c != "none")
    if a.codes:
        kw["codes"] = codes_of(layout_source or env_id)
        if not kw["codes"]:
            raise SystemExit(f"--codes: the observation layout of {env_id} declares no codes")
        print(f"codes: {len(kw['codes'])} fields, {sum(c['size'] * c['classes'] for c in kw['codes'])} one-hot inputs")
    if a.action_features:
        if "afeat" not in data:
            raise SystemExit(f"--action-features: {a.data} holds no action features (tools/dagger -features)")
        kw["action_features"] = labels_feature_names(a.data)
        print(f"action features: {', '.join(kw['action_features'])}")
    net = make_policy(a.arch, scale, num_actions, env_id=layout_source or env_id, **kw)
    if a.init:
        _init_from(net, a.init, widen=a.widen)
    out = Path(a.out)

    def on_checkpoint(net: Any, point: dict[str, Any]) -> None:
        if a.save_checkpoints:
            Path(a.save_checkpoints).mkdir(parents=True, exist_ok=True)
            torch.save(net.state_dict(), Path(a.save_checkpoints) / f"ckpt-{point['samples']}.pt")
        if a.eval_episodes:
            export(net, out, env_id)
            point["mean_score"] = evaluate_native(out, a.eval_episodes, seed=1, env_id=env_id)["mean_return"]

    print(f"gradient steps on {device_name(dev)}")
    history = behaviour_cloning(data, net, a.samples, batch_size=a.batch_size, lr=a.lr, checkpoints=a.checkpoints,
                                seed=a.seed, threads=a.threads, on_checkpoint=on_checkpoint, soft=a.soft,
                                afeat_lr=a.afeat_lr, device=dev)
    torch.save(net.state_dict(), out.with_suffix(".pt"))
    meta = export(net, out, env_id)
    args = {k: v for k, v in vars(a).items()}
    out.with_suffix(".json").write_text(json.dumps({"command": "python -m galaxygym.train " + " ".join(
        (argv if argv is not None else __import__("sys").argv[1:])), "args": args, "meta": meta,
        "device": device_name(dev), "curve": history}, indent=1))
    print("wrote", out)


def _init_from(net: Any, path: str, widen: bool = False) -> None:
    """Loads net's starting weights from a state_dict (.pt) or a weights
    file (.npz, :func:`galaxygym._nets.load_torch_policy`) of the same
    network; the action features' weights may be missing (they start at 0:
    a file without them fine-tuned with them), nothing else. A .npz file's
    feature weights go to net's features by name: a feature net reads that
    the file does not (one the game added since) starts at 0; one the file
    reads that net does not is a SystemExit.

    widen: the file's hidden layers may be narrower than net's (the same
    number of them, every other shape equal): net then computes exactly the
    file's function (Net2Net's function-preserving widening, Chen et al.
    2016). Each file tensor fills the top-left block of net's; the new
    units keep net's random initialisation (drawn from torch's generator,
    seeded by --seed) for their inputs and bias, and every weight from a new
    unit to an old one, or to an output, is 0, so they change nothing until
    training moves those weights. Raises SystemExit when a shape cannot be
    widened into (a narrower or differently ordered net)."""
    torch = _torch()
    names = None  # the file's action feature names (a .npz says them)
    if str(path).endswith(".npz"):
        from ._nets import load_torch_policy
        src = load_torch_policy(path)
        state = src.state_dict()
        names = list(getattr(src, "action_features", []) or [])
    else:
        state = torch.load(path, map_location="cpu")  # a .pt saved by a run on a GPU loads anywhere
    want = list(getattr(net, "action_features", []) or [])
    if names and want and names != want and "afeat.weight" in state:
        # The file's feature weights by name: a feature the game added since
        # the file was written starts at 0 (the file's function unchanged).
        from .policy import feature_columns
        try:
            cols = feature_columns(want, names, f"--init {path}", "the data")
        except ValueError as e:
            raise SystemExit(str(e)) from None
        w = torch.zeros(len(want))
        w[cols] = state["afeat.weight"]
        state["afeat.weight"] = w
    if widen:
        state = _widened(net.state_dict(), state, path)
    try:
        res = net.load_state_dict(state, strict=False)
    except RuntimeError as e:  # a tensor of another shape
        raise SystemExit(f"--init {path}: not this network ({e}; --widen starts a wider one)") from None
    missing = [k for k in res.missing_keys if not k.startswith("afeat.")]
    if missing or res.unexpected_keys:
        raise SystemExit(f"--init {path}: not this network (missing {missing}, unexpected {res.unexpected_keys})")


def _widened(target: dict[str, Any], state: dict[str, Any], path: str) -> dict[str, Any]:
    """state (a narrower network's tensors) placed into copies of target's
    tensors, as :func:`_init_from` describes: a linear layer's old rows get
    0 in their new columns (the inputs from new units), the new rows keep
    target's values; a bias or a vector keeps target's values past the old
    length. Keys absent from target are left for load_state_dict to report."""
    out = dict(state)
    for k, old in state.items():
        if k not in target or tuple(target[k].shape) == tuple(old.shape):
            continue
        new = target[k].detach().clone()
        if new.dim() != old.dim() or any(o > n for o, n in zip(old.shape, new.shape)):
            raise SystemExit(f"--init {path} --widen: {k} is {tuple(old.shape)}, cannot widen into {tuple(new.shape)}")
        if new.dim() == 2:
            rows, cols = old.shape
            new[:rows, cols:] = 0
            new[:rows, :cols] = old
        elif new.dim() == 1:
            new[: old.shape[0]] = old
        else:
            raise SystemExit(f"--init {path} --widen: {k} is {tuple(old.shape)}; only linear layers widen")
        out[k] = new
    return out


def _parser() -> argparse.ArgumentParser:
    """The arguments of python -m galaxygym.train."""
    ap = argparse.ArgumentParser(prog="python -m galaxygym.train", description=main.__doc__)
    ap.add_argument("--data", required=True,
                    help="dataset directory (galaxygym generate --out), or an .npz of labelled decisions (tools/dagger)")
    ap.add_argument("--episodes", type=int, default=None, help="read the first episodes only")
    ap.add_argument("--arch", default="conv", choices=["conv", "conv-nocenter", "mlp"],
                    help="conv: over the board of the env's observation layout (board_of); a game without one needs mlp")
    ap.add_argument("--samples", type=int, default=2_000_000, help="training budget in decisions seen")
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--channels", default="32,32", help="conv channels, comma-separated (none: the centred board planes go straight to the linear layers)")
    ap.add_argument("--hidden", default=None, help="hidden widths (default: 256 for conv, 256,256 for mlp)")
    ap.add_argument("--codes", action="store_true",
                    help="also read the observation layout's code fields (card kinds, seats) one-hot "
                         "(weights format version 4; codes_of)")
    ap.add_argument("--checkpoints", type=int, default=10)
    ap.add_argument("--eval-episodes", type=int, default=0,
                    help="at each checkpoint, play this many games natively (galaxygym eval) for the mean score")
    ap.add_argument("--dagger", action="append", default=[],
                    help="an .npz of expert-labelled decisions from tools/dagger, added to the training data (repeatable)")
    ap.add_argument("--soft", type=float, default=None,
                    help="soft targets: softmax of the expert's action values (tools/dagger -values) at this temperature, in score points")
    ap.add_argument("--init", default=None,
                    help="start from this state_dict (.pt) or weights file (.npz) of the same network")
    ap.add_argument("--widen", action="store_true",
                    help="--init may be a narrower network of the same depth: net starts as exactly its "
                         "function, the new hidden units' outgoing weights 0 (Net2Net)")
    ap.add_argument("--action-features", action="store_true",
                    help="also read the game's action features (tools/dagger -features; weights format version 5)")
    ap.add_argument("--afeat-lr", type=float, default=0.05, help="the action features' weights' step size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="auto",
                    help="where the gradient steps run: auto (a CUDA GPU where torch sees one, else the CPU), cpu, cuda, cuda:N")
    ap.add_argument("--out", required=True, help="the weights file (.npz) to write")
    ap.add_argument("--save-checkpoints", default=None,
                    help="directory: also save the torch state_dict at each checkpoint (ckpt-SAMPLES.pt)")
    return ap


def _training_data(a: argparse.Namespace) -> tuple[dict[str, NDArray[Any]], str, Any, int, dict[str, Any] | None]:
    """The decisions --data (a dataset directory or a tools/dagger .npz;
    --episodes, --dagger) names: (data, env_id, obs_high, num_actions, the
    spec whose layout gives the board, None: env_id's)."""
    layout_source: dict[str, Any] | None = None
    if str(a.data).endswith(".npz"):
        data = load_labels(a.data)
        if a.episodes is not None:
            data = {k: v[data["episode_id"] < a.episodes] for k, v in data.items()}
        env_id, high = labels_meta(a.data)
        num_actions = data["mask"].shape[1]
    else:
        data = load_steps(a.data, a.episodes)
        manifest = json.loads((Path(a.data) / "manifest.json").read_text())
        env_id = manifest["env_id"]
        if manifest["env_spec"].get("observation_layout"):
            layout_source = manifest["env_spec"]
        high = np.asarray(manifest["env_spec"]["obs_high"], np.float32)
        num_actions = len(manifest["action_names"])
    if a.dagger:
        data = concat_before([load_labels(f) for f in a.dagger], data)
    return data, env_id, high, num_actions, layout_source


if __name__ == "__main__":
    main()
