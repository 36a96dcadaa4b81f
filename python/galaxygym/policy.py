"""MLP policy weights files: the format the Go ``policy`` agent plays
(``galaxygym generate --agent policy --weights FILE``), written by
:func:`export_policy` and evaluated by :func:`policy_probs`, a float64
numpy reference of the Go agent's forward pass. The format is specified in
docs/policy-format.md.

>>> import galaxygym
>>> galaxygym.export_policy("policy.npz", net.pi, obs_scale, "galaxy-express-v1")  # doctest: +SKIP
>>> galaxygym.policy_probs("policy.npz", obs, mask)                              # doctest: +SKIP
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["FORMAT", "FORMAT_VERSION", "ACTIVATIONS", "export_policy", "load_policy", "policy_probs", "policy_value",
           "code_features"]

FORMAT = "galaxygym-mlp-policy"
# 2: board planes and convolutions (conv{i}.*, meta "board"); 3: the value head (value{i}.*, meta
# "value_outputs"); 4: one-hot inputs for the observation's codes (meta "codes"); 5: a linear term over the
# game's action features (meta "action_features", array action_features.weight). A file is written with
# the lowest version that holds it: MLP-only files stay version 1.
FORMAT_VERSION = 5
BOARD_KEYS = ("offset", "planes", "height", "width", "center_plane")
CODE_KEYS = ("offset", "size", "classes")
ACTIVATIONS = ("tanh", "relu")

_LAYER_KEY = re.compile(r"^layer(\d+)\.(weight|bias)$")
_CONV_KEY = re.compile(r"^conv(\d+)\.(weight|bias)$")
_VALUE_KEY = re.compile(r"^value(\d+)\.(weight|bias)$")


def _numpy(x: Any) -> NDArray[Any]:
    """A numpy array of x (a numpy array, a torch tensor or anything array-like)."""
    if hasattr(x, "detach"):  # torch.Tensor
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def _layers(layers: Any, activation: str) -> list[tuple[NDArray[Any], NDArray[Any]]]:
    """(weight, bias) pairs from (weight, bias) pairs, torch Linear modules,
    or a torch Sequential of Linear layers and activations (which must be
    `activation`)."""
    if hasattr(layers, "weight"):  # one torch.nn.Linear
        layers = [layers]
    elif hasattr(layers, "children"):  # a torch container such as nn.Sequential
        pairs, modules = [], list(layers.children())
        for i, m in enumerate(modules):
            kind = type(m).__name__
            if kind == "Linear":
                pairs.append(m)
            elif kind.lower() in ACTIVATIONS:
                if kind.lower() != activation:
                    raise ValueError(f"module {i} is {kind}, but activation={activation!r}")
                if i == 0 or i == len(modules) - 1 or type(modules[i - 1]).__name__ != "Linear":
                    raise ValueError(f"module {i} ({kind}): activations go between Linear layers only")
            else:
                raise ValueError(f"module {i} is {kind}: only Linear, Tanh and ReLU are supported")
        layers = pairs
    out = []
    for i, layer in enumerate(layers):
        if hasattr(layer, "weight") and hasattr(layer, "bias"):  # torch.nn.Linear
            if layer.bias is None:
                raise ValueError(f"layer {i} has no bias")
            w, b = layer.weight, layer.bias
        else:
            w, b = layer
        out.append((_numpy(w), _numpy(b)))
    return out


def _put_dense(arrays: dict[str, NDArray[Any]], prefix: str, pairs: list[tuple[NDArray[Any], NDArray[Any]]],
               width: int) -> tuple[int, int]:
    """Check ``pairs`` (weight (out, in), bias (out,)) as a chain of dense
    layers fed ``width`` inputs and store them as float32
    ``{prefix}{i}.weight``/``.bias`` in ``arrays``; return the last layer's
    input width and its output width. ValueError on a shape or a
    non-finite value."""
    last_in = width
    for i, (w, b) in enumerate(pairs):
        w, b = w.astype(np.float32), b.astype(np.float32)
        if w.ndim != 2 or w.shape[1] != width or w.shape[0] < 1:
            raise ValueError(f"{prefix}{i}.weight: shape {w.shape}, want (out, {width})")
        if b.shape != (w.shape[0],):
            raise ValueError(f"{prefix}{i}.bias: shape {b.shape}, want ({w.shape[0]},)")
        _check_finite(f"{prefix}{i}.weight", w)
        _check_finite(f"{prefix}{i}.bias", b)
        arrays[f"{prefix}{i}.weight"] = np.ascontiguousarray(w)
        arrays[f"{prefix}{i}.bias"] = np.ascontiguousarray(b)
        last_in, width = width, w.shape[0]
    return last_in, width


def _check_finite(name: str, a: NDArray[Any]) -> None:
    if not np.all(np.isfinite(a)):
        k = int(np.flatnonzero(~np.isfinite(a.reshape(-1)))[0])
        raise ValueError(f"{name}: element {k} is {a.reshape(-1)[k]}")


def export_policy(path: str | os.PathLike[str], layers: Any, obs_scale: Any, env_id: str,
                  activation: str = "tanh", obs_shape: Iterable[int] | None = None,
                  conv: Any = None, board: Mapping[str, int] | None = None,
                  play: str | None = None, value: Any = None,
                  codes: Iterable[Mapping[str, int]] | None = None,
                  action_features: tuple[Sequence[str], Any] | None = None) -> dict[str, Any]:
    """Writes an MLP policy to path in galaxygym's weights format
    (docs/policy-format.md) and returns its metadata.

    layers: the policy's linear layers in order, as (weight, bias) pairs of
    arrays or tensors (weight (out, in), bias (out,)), as torch.nn.Linear
    modules, or as one torch.nn.Sequential of Linear layers with
    `activation` modules between them (such as the notebook's ``net.pi``).
    obs_scale: multiplies the uint8 observation before layer 0; its shape
    is the observation's (or give obs_shape). activation: "tanh" or
    "relu", applied between layers, not after the last (whose outputs are
    the logits). env_id: the environment the policy plays; the Go agent
    refuses another.

    The arrays are stored as float32 (values must be finite), uncompressed,
    with fixed zip timestamps: the same weights give the same bytes, so the
    file's SHA-256 (which datasets record as the agent's version)
    identifies them.

    board (a dict of offset, planes, height, width and center_plane) makes a
    format-version-2 file: the observation's board planes (planes x height x
    width float elements from offset), translated so that the first nonzero
    byte of plane center_plane lies at (0, 0) (-1: no translation), go
    through the conv layers (torch.nn.Conv2d modules or (weight (out, in, k,
    k), bias (out,)) pairs, k odd, circular padding (k-1)/2, stride 1,
    `activation` after each); layer 0 then reads their flattened output
    followed by the observation's other elements (docs/policy-format.md).

    play ("greedy" or "sample"; None says nothing, read as "sample") states
    how the weights are meant to be played: the Go policy agent plays so
    unless its greedy option says otherwise.

    value (the value head; None: none) makes a format-version-3 file: its
    linear layers, in any form `layers` takes, read the policy's last hidden
    layer (the input of its last layer, after the activation: a shared
    trunk, so the policy needs two layers at least), with `activation`
    between them and none after the last, whose M outputs are expected
    returns from the observed position on: output k is the return of the
    player k seats after the observer (k = 0: the observer).
    `galaxygym mcts@weights=FILE` scores its leaves with output 0.

    codes (dicts of offset, size and classes; None or empty: none) makes a
    format-version-4 file: each of the `size` observation bytes from
    `offset` is a code 0 to classes-1 (a card kind, a seat: see
    :func:`galaxygym.train.codes_of`), which layer 0 also reads one-hot,
    after its other inputs, code by code and byte by byte
    (docs/policy-format.md); layer 0's width grows by size x classes for
    each.

    action_features ((names, weights): the game's action feature names, in
    its order, and one float weight for each) makes a format-version-5
    file: the Go agent adds sum_f weights[f] * feature[a][f] to action a's
    logit, the features being the game's own (env.ActionFeaturer) for the
    observation (docs/policy-format.md, "Action features (version 5)").
    """
    if play not in (None, "greedy", "sample"):
        raise ValueError(f"play {play!r}: want 'greedy', 'sample' or None")
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation!r}: want one of {ACTIVATIONS}")
    if not isinstance(env_id, str) or not env_id:
        raise ValueError("env_id: want a non-empty string")
    scale = _numpy(obs_scale)
    shape = [int(d) for d in (scale.shape if obs_shape is None else obs_shape)]
    if not shape or any(d < 1 for d in shape):
        raise ValueError(f"obs_shape {shape}: want positive dimensions")
    scale = scale.astype(np.float32).reshape(-1)
    if scale.size != int(np.prod(shape)):
        raise ValueError(f"obs_scale has {scale.size} elements, obs_shape {shape} {int(np.prod(shape))}")
    _check_finite("obs_scale", scale)
    arrays: dict[str, NDArray[Any]] = {"obs_scale": scale}
    width = scale.size
    if board is None and conv:
        raise ValueError("conv layers need a board")
    if board is not None:
        board = _check_board(board, scale.size)
        channels = board["planes"]
        for i, c in enumerate(conv or []):
            w, b = (c.weight, c.bias) if hasattr(c, "weight") else c
            w, b = _numpy(w).astype(np.float32), _numpy(b).astype(np.float32)
            if hasattr(c, "padding_mode") and (c.padding_mode != "circular" or tuple(c.stride) != (1, 1)
                                               or tuple(c.padding) != ((w.shape[2] - 1) // 2,) * 2
                                               or tuple(c.dilation) != (1, 1) or c.groups != 1):
                raise ValueError(f"conv{i}: want stride 1, circular padding (k-1)/2, no dilation or groups")
            if w.ndim != 4 or w.shape[1] != channels or w.shape[2] != w.shape[3] or w.shape[2] % 2 == 0:
                raise ValueError(f"conv{i}.weight: shape {w.shape}, want (out, {channels}, k, k), k odd")
            if b.shape != (w.shape[0],):
                raise ValueError(f"conv{i}.bias: shape {b.shape}, want ({w.shape[0]},)")
            _check_finite(f"conv{i}.weight", w)
            _check_finite(f"conv{i}.bias", b)
            arrays[f"conv{i}.weight"] = np.ascontiguousarray(w)
            arrays[f"conv{i}.bias"] = np.ascontiguousarray(b)
            channels = w.shape[0]
        cells = board["height"] * board["width"]
        width = channels * cells + scale.size - board["planes"] * cells
    code_list = [_check_code(c, scale.size) for c in (codes or [])]
    width += sum(c["size"] * c["classes"] for c in code_list)
    pairs = _layers(layers, activation)
    if not pairs:
        raise ValueError("no layers")
    trunk, width = _put_dense(arrays, "layer", pairs, width)
    version = 1 if board is None else 2
    value_outputs = 0
    if value is not None:
        if len(pairs) < 2:
            raise ValueError("value: a value head reads the policy's last hidden layer, but the policy has one layer")
        vpairs = _layers(value, activation)
        if not vpairs:
            raise ValueError("value: no layers")
        _, vin = _put_dense(arrays, "value", vpairs, trunk)
        version, value_outputs = 3, vin
    if code_list:
        version = 4
    feature_names: list[str] = []
    if action_features is not None:
        names, fw = action_features
        feature_names = [str(n) for n in names]
        fw = _numpy(fw).astype(np.float32).reshape(-1)
        if not feature_names or "" in feature_names or fw.shape != (len(feature_names),):
            raise ValueError(f"action_features: {len(feature_names)} names {feature_names} and weights of "
                             f"shape {fw.shape}: want one weight per non-empty name")
        _check_finite("action_features.weight", fw)
        arrays["action_features.weight"] = np.ascontiguousarray(fw)
        version = 5
    meta: dict[str, Any] = {"format": FORMAT, "version": version, "env_id": env_id, "obs_shape": shape,
            "num_actions": width, "activation": activation}
    if board is not None:
        meta["board"] = board
    if value_outputs:
        meta["value_outputs"] = value_outputs
    if code_list:
        meta["codes"] = code_list
    if feature_names:
        meta["action_features"] = feature_names
    if play is not None:
        meta["play"] = play
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    write_npz(path, arrays)
    return meta


def _check_board(board: Mapping[str, Any], obs_size: int) -> dict[str, int]:
    """The board dict, checked against an observation of obs_size elements."""
    if not isinstance(board, Mapping) or set(board) != set(BOARD_KEYS):
        raise ValueError(f"board {board!r}: want exactly the keys {BOARD_KEYS}")
    b = {k: int(board[k]) for k in BOARD_KEYS}
    if b["offset"] < 0 or min(b["planes"], b["height"], b["width"]) < 1 or \
            b["offset"] + b["planes"] * b["height"] * b["width"] > obs_size:
        raise ValueError(f"board {b}: the planes do not fit an observation of {obs_size} elements")
    if not -1 <= b["center_plane"] < b["planes"]:
        raise ValueError(f"board {b}: center_plane must be -1 or a plane")
    return b


def _check_code(code: Mapping[str, Any], obs_size: int) -> dict[str, int]:
    """A code dict, checked against an observation of obs_size elements."""
    if not isinstance(code, Mapping) or set(code) != set(CODE_KEYS):
        raise ValueError(f"code {code!r}: want exactly the keys {CODE_KEYS}")
    c = {k: int(code[k]) for k in CODE_KEYS}
    if c["offset"] < 0 or c["size"] < 1 or not 2 <= c["classes"] <= 256:
        raise ValueError(f"code {c}: want offset >= 0, size >= 1, classes 2 to 256")
    if c["offset"] + c["size"] > obs_size:
        raise ValueError(f"code {c}: bytes past the observation's {obs_size}")
    return c


def code_features(codes: Iterable[Mapping[str, int]], obs: NDArray[Any]) -> NDArray[Any]:
    """The one-hot inputs of codes (format version 4) for uint8
    observations obs (B, obs_size): float64 (B, sum of size x classes), code
    by code, byte by byte, input v of a byte 1 when the byte is v (all 0 for
    a byte of classes or more)."""
    parts: list[NDArray[Any]] = []
    for c in codes:
        b = np.asarray(obs)[:, c["offset"]:c["offset"] + c["size"]].astype(np.int64)
        parts.append((b[:, :, None] == np.arange(c["classes"])[None, None, :]).reshape(len(b), -1))
    out: NDArray[Any] = np.concatenate(parts, axis=1).astype(np.float64) if parts else np.zeros((len(obs), 0))
    return out


def write_npz(path: str | os.PathLike[str], arrays: Mapping[str, NDArray[Any]], compress: bool = False) -> None:
    """Writes arrays to path as an .npz (what np.savez / np.savez_compressed
    write, at exactly path), reproducibly: fixed zip timestamps and order."""
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, a in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(a), allow_pickle=False)  # type: ignore[no-untyped-call]
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            info.external_attr = 0o644 << 16
            z.writestr(info, buf.getvalue())


def load_policy(source: str | os.PathLike[str] | Mapping[str, Any]) -> dict[str, Any]:
    """Reads and checks a weights file (a path, or a mapping of its arrays
    such as np.load's NpzFile). Returns {"obs_scale": float64 (obs_size,),
    "layers": [(weight, bias), ...] float64, "activation": str, "meta":
    dict or None, "board", "conv", "value": the value head's (weight, bias)
    pairs, [] without one, "codes": meta's codes, [] without}. A file without "meta" is read as tanh, for any
    env; value* arrays are read from format-version-3 files only."""
    if isinstance(source, (str, os.PathLike)):
        with np.load(source, allow_pickle=False) as z:
            return load_policy({k: z[k] for k in z.files})
    arrays = {k: _numpy(v) for k, v in source.items()}
    meta = None
    if "meta" in arrays:
        meta = json.loads(arrays["meta"].astype(np.uint8).tobytes().decode("utf-8"))
        if meta.get("format") != FORMAT or not 1 <= int(meta.get("version", 0)) <= FORMAT_VERSION:
            raise ValueError(f"meta: not a {FORMAT} version {FORMAT_VERSION} file: {meta}")
        if meta.get("activation") not in ACTIVATIONS:
            raise ValueError(f"meta: activation {meta.get('activation')!r}: want one of {ACTIVATIONS}")
        if "board" in meta and int(meta["version"]) < 2:
            raise ValueError("meta: a board needs format version 2")
        if meta.get("play", "sample") not in ("greedy", "sample"):
            raise ValueError(f"meta: play {meta['play']!r}: want 'greedy' or 'sample'")
        if "value_outputs" in meta and int(meta["version"]) < 3:
            raise ValueError("meta: value_outputs needs format version 3")
        if meta.get("codes") and int(meta["version"]) < 4:
            raise ValueError("meta: codes need format version 4")
        if meta.get("action_features") and int(meta["version"]) < 5:
            raise ValueError("meta: action_features need format version 5")
    for k in ["obs_scale", "layer0.weight"]:
        if k not in arrays:
            raise ValueError(f"{k}: missing")
    n = 0
    while f"layer{n}.weight" in arrays:
        n += 1
    for k in arrays:
        m = _LAYER_KEY.match(k)
        if m and int(m.group(1)) >= n:
            raise ValueError(f"layer{n}.weight: missing (the file has {k})")
    for k in ["obs_scale"] + [f"layer{i}.{p}" for i in range(n) for p in ("weight", "bias")]:
        if k not in arrays:
            raise ValueError(f"{k}: missing")
        if arrays[k].dtype != np.float32:
            raise ValueError(f"{k}: dtype {arrays[k].dtype}, want float32")
        _check_finite(k, arrays[k])
    scale = arrays["obs_scale"].astype(np.float64)
    if scale.ndim != 1:
        raise ValueError(f"obs_scale: shape {scale.shape}, want (obs_size,)")
    layers, width, convs, board = [], scale.size, [], None
    nconv = 0
    while f"conv{nconv}.weight" in arrays:
        nconv += 1
    for k in arrays:
        m = _CONV_KEY.match(k)
        if m and int(m.group(1)) >= nconv:
            raise ValueError(f"conv{nconv}.weight: missing (the file has {k})")
    if meta is not None and "board" in meta:
        board = _check_board(meta["board"], scale.size)
        channels = board["planes"]
        for i in range(nconv):
            for p in ("weight", "bias"):
                k = f"conv{i}.{p}"
                if k not in arrays:
                    raise ValueError(f"{k}: missing")
                if arrays[k].dtype != np.float32:
                    raise ValueError(f"{k}: dtype {arrays[k].dtype}, want float32")
                _check_finite(k, arrays[k])
            w, b = arrays[f"conv{i}.weight"].astype(np.float64), arrays[f"conv{i}.bias"].astype(np.float64)
            if w.ndim != 4 or w.shape[1] != channels or w.shape[2] != w.shape[3] or w.shape[2] % 2 == 0 \
                    or b.shape != (w.shape[0],):
                raise ValueError(f"conv{i}: weight {w.shape}, bias {b.shape}, want (out, {channels}, k, k), k odd")
            convs.append((w, b))
            channels = w.shape[0]
        cells = board["height"] * board["width"]
        width = channels * cells + scale.size - board["planes"] * cells
    elif nconv:
        raise ValueError("conv0.weight: conv layers need meta.board")
    codes = [_check_code(c, scale.size) for c in (meta or {}).get("codes") or []]
    width += sum(c["size"] * c["classes"] for c in codes)
    for i in range(n):
        w, b = arrays[f"layer{i}.weight"].astype(np.float64), arrays[f"layer{i}.bias"].astype(np.float64)
        if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
            raise ValueError(f"layer{i}: weight {w.shape}, bias {b.shape}, want (out, {width}) and (out,)")
        layers.append((w, b))
        width = w.shape[0]
    if meta is not None and (int(np.prod(meta["obs_shape"])) != scale.size or meta["num_actions"] != width):
        raise ValueError(f"meta: obs_shape {meta['obs_shape']} and num_actions {meta['num_actions']} "
                         f"do not match the layers ({scale.size} -> {width})")
    value = []
    if meta is not None and int(meta["version"]) >= 3:
        nv = 0
        while f"value{nv}.weight" in arrays:
            nv += 1
        for k in arrays:
            m = _VALUE_KEY.match(k)
            if m and int(m.group(1)) >= nv:
                raise ValueError(f"value{nv}.weight: missing (the file has {k})")
        if nv and n < 2:
            raise ValueError("value0.weight: a value head reads the policy's last hidden layer, but the policy has one layer")
        vin = layers[-1][0].shape[1] if layers else 0
        for i in range(nv):
            for p in ("weight", "bias"):
                k = f"value{i}.{p}"
                if k not in arrays:
                    raise ValueError(f"{k}: missing")
                if arrays[k].dtype != np.float32:
                    raise ValueError(f"{k}: dtype {arrays[k].dtype}, want float32")
                _check_finite(k, arrays[k])
            w, b = arrays[f"value{i}.weight"].astype(np.float64), arrays[f"value{i}.bias"].astype(np.float64)
            if w.ndim != 2 or w.shape[1] != vin or b.shape != (w.shape[0],):
                raise ValueError(f"value{i}: weight {w.shape}, bias {b.shape}, want (out, {vin}) and (out,)")
            value.append((w, b))
            vin = w.shape[0]
        if meta.get("value_outputs") and (not value or meta["value_outputs"] != vin):
            raise ValueError(f"meta: value_outputs {meta['value_outputs']} does not match the value head")
    feature_names = [str(f) for f in (meta or {}).get("action_features") or []]
    feature_w = None
    if feature_names:
        k = "action_features.weight"
        if k not in arrays:
            raise ValueError(f"{k}: missing")
        if arrays[k].dtype != np.float32 or arrays[k].shape != (len(feature_names),):
            raise ValueError(f"{k}: {arrays[k].dtype} {arrays[k].shape}, want float32 ({len(feature_names)},)")
        _check_finite(k, arrays[k])
        feature_w = arrays[k].astype(np.float64)
    elif "action_features.weight" in arrays:
        raise ValueError("action_features.weight: present, but meta names no action_features (format version 5)")
    return {"obs_scale": scale, "layers": layers, "activation": meta["activation"] if meta else "tanh",
            "meta": meta, "board": board, "conv": convs, "value": value, "codes": codes,
            "action_features": feature_names, "action_features_weight": feature_w}


def feature_columns(have: Sequence[str], want: Sequence[str], reader: str, holder: str) -> list[int]:
    """The column of each action feature name in want among the names
    have (in have's order): a weights file reads a game's features by name,
    so a feature the game added after the file was written is left out.
    ValueError, "<reader> reads the action features [...], which <holder>
    lacks", for names of want missing from have."""
    names = [str(n) for n in have]
    if missing := [str(n) for n in want if str(n) not in names]:
        raise ValueError(f"{reader} reads the action features {missing}, which {holder} lacks (it holds {names})")
    return [names.index(str(n)) for n in want]


def policy_probs(source: str | os.PathLike[str] | Mapping[str, Any], obs: Any, mask: Any,
                 afeat: Any = None, afeat_names: Sequence[str] | None = None) -> NDArray[Any]:
    """The action probabilities of a weights file's policy, in float64: the
    reference of the Go agent's Probs. source: a path, a mapping of the
    file's arrays, or load_policy's result. obs: uint8 observations, one
    (obs_shape) or a batch (B, *obs_shape); mask: the legal-action masks,
    (num_actions,) or (B, num_actions). Illegal actions get probability 0;
    a row without a legal action is all 0. afeat: the game's action
    features of each observation, uint8 (num_actions, F) or (B,
    num_actions, F) (tools/dagger -features writes them), required by a
    format-version-5 file (ValueError without), ignored otherwise.
    afeat_names: the names of afeat's F columns (an env's
    ``action_feature_names``, a label file's ``afeat_names``): the file's
    features are then taken from them by name, so a feature the game added
    after the file was written is skipped (ValueError for a name missing);
    without it afeat's columns must be the file's, in its order."""
    p = source if isinstance(source, Mapping) and "layers" in source else load_policy(source)
    scale = p["obs_scale"]
    obs, mask = np.asarray(obs), np.asarray(mask)
    single = mask.ndim == 1
    x = obs.reshape(1 if single else len(mask), -1).astype(np.float64)
    legal = mask.reshape(len(x), -1) != 0
    if x.shape[1] != scale.size:
        raise ValueError(f"observations of {x.shape[1]} elements, the policy reads {scale.size}")
    h = _forward(p, x)[0]
    if legal.shape != h.shape:
        raise ValueError(f"masks of shape {legal.shape}, want {h.shape}")
    fw = p.get("action_features_weight")
    if fw is not None:
        if afeat is None:
            raise ValueError(f"the weights file reads the action features {p['action_features']}: give afeat")
        f = np.asarray(afeat).reshape(len(x), h.shape[1], -1)
        if afeat_names is not None:
            if len(afeat_names) != f.shape[2]:
                raise ValueError(f"afeat of {f.shape[2]} features, but {len(afeat_names)} names {list(afeat_names)}")
            f = f[:, :, feature_columns(afeat_names, p["action_features"], "the weights file", "afeat")]
        if f.shape[2] != fw.size:
            raise ValueError(f"afeat of {f.shape[2]} features, the file reads {fw.size}")
        h = h + f.astype(np.float64) @ fw
    logits = np.where(legal, h, -np.inf)
    top = logits.max(axis=1, keepdims=True)
    e = np.where(legal, np.exp(logits - np.where(np.isfinite(top), top, 0.0)), 0.0)
    total = e.sum(axis=1, keepdims=True)
    probs = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return probs[0] if single else probs


def _board_features(p: Mapping[str, Any], x: NDArray[Any], h: NDArray[Any]) -> NDArray[Any]:
    """Layer 0's input of a board policy: the centred board planes of the
    scaled observations h (x: the raw ones) through the conv layers,
    flattened, then h's other elements."""
    bd, act = p["board"], p["activation"]
    off, planes, rows, cols, cp = (bd[k] for k in BOARD_KEYS)
    cells = rows * cols
    board = h[:, off:off + planes * cells].reshape(-1, planes, cells)
    if cp >= 0:
        plane = x[:, off + cp * cells:off + (cp + 1) * cells] != 0
        sq = np.where(plane.any(1), plane.argmax(1), 0)
        r = (np.arange(rows)[None, :, None] + (sq // cols)[:, None, None]) % rows
        c = (np.arange(cols)[None, None, :] + (sq % cols)[:, None, None]) % cols
        idx = (r * cols + c).reshape(-1, 1, cells)
        board = np.take_along_axis(board, np.broadcast_to(idx, board.shape), axis=2)
    y = board.reshape(-1, planes, rows, cols)
    for w, b in p["conv"]:
        k = w.shape[2] // 2
        padded = np.pad(y, ((0, 0), (0, 0), (k, k), (k, k)), mode="wrap")
        win = np.lib.stride_tricks.sliding_window_view(  # type: ignore[call-overload]
            padded, (w.shape[2], w.shape[3]), axis=(2, 3))
        y = np.einsum("bchwij,ocij->bohw", win, w) + b[None, :, None, None]
        y = np.tanh(y) if act == "tanh" else np.maximum(y, 0.0)
    rest = np.concatenate([h[:, :off], h[:, off + planes * cells:]], axis=1)
    return np.concatenate([y.reshape(len(h), -1), rest], axis=1)


def _forward(p: Mapping[str, Any], x: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """The logits of the float64 observations x (B, obs_size), and the
    trunk: the last policy layer's input (after the activation)."""
    scale = p["obs_scale"]
    if x.shape[1] != scale.size:
        raise ValueError(f"observations of {x.shape[1]} elements, the policy reads {scale.size}")
    h = x * scale
    if p.get("board") is not None:
        h = _board_features(p, x, h)
    if p.get("codes"):
        h = np.concatenate([h, code_features(p["codes"], x)], axis=1)
    trunk = h
    for i, (w, b) in enumerate(p["layers"]):
        if i > 0:
            h = np.tanh(h) if p["activation"] == "tanh" else np.maximum(h, 0.0)
        trunk = h
        h = h @ w.T + b
    return h, trunk


def policy_value(source: str | os.PathLike[str] | Mapping[str, Any], obs: Any) -> NDArray[Any]:
    """The value head's outputs of a format-version-3 weights file, in
    float64: the reference of the Go agent's Evaluate. source: as for
    policy_probs; obs: uint8 observations, one (obs_shape) or a batch (B,
    *obs_shape). Returns (M,) or (B, M): output k is the expected return of
    the player k seats after the observer. A file without a value head is a
    ValueError."""
    p = source if isinstance(source, Mapping) and "layers" in source else load_policy(source)
    if not p.get("value"):
        raise ValueError("the weights file has no value head (format version 3)")
    obs = np.asarray(obs)
    single = obs.ndim == len((p["meta"] or {}).get("obs_shape", [0]))
    x = obs.reshape(1 if single else len(obs), -1).astype(np.float64)
    h = _forward(p, x)[1]
    for i, (w, b) in enumerate(p["value"]):
        if i > 0:
            h = np.tanh(h) if p["activation"] == "tanh" else np.maximum(h, 0.0)
        h = h @ w.T + b
    return h[0] if single else h
