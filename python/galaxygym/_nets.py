"""The policy networks of :mod:`galaxygym.train` (:class:`MLPPolicy`,
:class:`ConvPolicy`), defined at module level in a module of their own
because they need torch (the ``train`` extra): ``galaxygym.train`` imports
this module on first use, so that importing ``galaxygym.train`` needs no
torch."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from numpy.typing import NDArray

from .train import board_of, layers_of, make_policy

__all__ = ["MLPPolicy", "ConvPolicy", "load_torch_policy"]


class _Codes(nn.Module):
    """The one-hot inputs of an observation's codes (weights format version
    4, docs/policy-format.md): uint8 obs (B, obs_size) -> float32 (B, sum of
    size x classes), code by code, byte by byte; a byte of classes or more
    gives all zeros."""

    def __init__(self, codes: Sequence[Mapping[str, int]] | None):
        super().__init__()
        self.codes = [{k: int(c[k]) for k in ("offset", "size", "classes")} for c in codes or []]
        self.width = sum(c["size"] * c["classes"] for c in self.codes)

    def forward(self, obs: torch.Tensor) -> Any:
        parts = []
        for c in self.codes:
            b = obs[:, c["offset"]:c["offset"] + c["size"]].long().clamp(max=c["classes"])
            parts.append(F.one_hot(b, c["classes"] + 1)[:, :, :c["classes"]].flatten(1).float())
        return torch.cat(parts, 1)


class _ActionFeatures(nn.Module):
    """The linear term over the game's action features (weights format
    version 5): uint8 afeat (B, num_actions, F) -> float32 (B, num_actions),
    afeat @ weight; weight (F,) starts at zero, so a network given features
    begins as it was without them."""

    def __init__(self, names: Sequence[str]):
        super().__init__()
        self.names = [str(n) for n in names]
        self.weight = nn.Parameter(torch.zeros(len(self.names)))

    def forward(self, afeat: torch.Tensor) -> Any:
        return afeat.float() @ self.weight


def _with_features(net: Any, logits: torch.Tensor, afeat: torch.Tensor | None) -> Any:
    """logits plus net's action-feature term; a network that reads action
    features refuses to run without them."""
    if not net.action_features:
        return logits
    if afeat is None:
        raise ValueError(f"this network reads the action features {net.action_features}: give afeat")
    return logits + net.afeat(afeat)


class MLPPolicy(nn.Module):
    """obs (uint8, B x obs_size) -> logits: obs * obs_scale (then the
    codes' one-hot inputs, when codes are given: see
    :func:`galaxygym.train.codes_of`), Linear layers with ReLU (or tanh)
    between them; with action_features (the game's feature names), plus
    afeat @ weight (forward's afeat: uint8 (B, num_actions, F))."""

    def __init__(self, obs_scale: NDArray[Any], num_actions: int, hidden: Sequence[int] = (256, 256),
                 activation: str = "relu", codes: Sequence[Mapping[str, int]] | None = None,
                 action_features: Sequence[str] | None = None):
        super().__init__()
        self.action_features = [str(n) for n in action_features or []]
        if self.action_features:  # no parameter otherwise: state_dicts stay as they were
            self.afeat = _ActionFeatures(self.action_features)
        self.activation = activation
        self.register_buffer("obs_scale", torch.as_tensor(np.asarray(obs_scale, np.float32).reshape(-1)))
        self.onehot = _Codes(codes)
        self.codes = self.onehot.codes
        act = nn.ReLU if activation == "relu" else nn.Tanh
        sizes = [self.obs_scale.numel() + self.onehot.width, *hidden, num_actions]
        mods: list[nn.Module] = []
        for i in range(len(sizes) - 1):
            if i:
                mods.append(act())
            mods.append(nn.Linear(sizes[i], sizes[i + 1]))
        self.pi = nn.Sequential(*mods)

    def features(self, obs: torch.Tensor) -> Any:
        """Layer 0's input: obs * obs_scale, then the codes' one-hot inputs."""
        x = obs.float() * self.obs_scale
        return torch.cat([x, self.onehot(obs)], 1) if self.codes else x

    def forward(self, obs: torch.Tensor, afeat: torch.Tensor | None = None) -> Any:
        return _with_features(self, self.pi(self.features(obs)), afeat)


class ConvPolicy(nn.Module):
    """obs (uint8, B x obs_size) -> logits. x = obs * obs_scale; the
    board (planes x height x width from byte offset) is translated so
    that the first set square of center_plane (if any; -1: never) lies at
    (0, 0), then goes through Conv2d layers (odd kernel, circular padding
    (k-1)/2, stride 1) with the activation after each; their output,
    flattened (C, H, W) row-major, joined with x's other elements (the
    scalar features, in order), feeds Linear layers with the activation
    between them; the codes' one-hot inputs, when codes are given, follow the
    scalar features. With action_features (the game's feature names), the
    logits gain afeat @ weight (forward's afeat: uint8 (B, num_actions, F))."""

    def __init__(self, obs_scale: NDArray[Any], num_actions: int, board: dict[str, int] | None = None,
                 channels: Sequence[int] = (32, 32), kernel: int = 3, hidden: Sequence[int] = (256,),
                 activation: str = "relu", codes: Sequence[Mapping[str, int]] | None = None,
                 action_features: Sequence[str] | None = None):
        super().__init__()
        self.action_features = [str(n) for n in action_features or []]
        if self.action_features:  # no parameter otherwise: state_dicts stay as they were
            self.afeat = _ActionFeatures(self.action_features)
        self.onehot = _Codes(codes)
        self.codes = self.onehot.codes
        board = dict(board_of("galaxy-express-v1") if board is None else board)
        self.board = board
        self.activation = activation
        self.register_buffer("obs_scale", torch.as_tensor(np.asarray(obs_scale, np.float32).reshape(-1)))
        off, p, h, w = board["offset"], board["planes"], board["height"], board["width"]
        n = self.obs_scale.numel()
        self.register_buffer("scalar_idx", torch.as_tensor(
            [i for i in range(n) if not off <= i < off + p * h * w], dtype=torch.long))
        act = nn.ReLU if activation == "relu" else nn.Tanh
        convs: list[nn.Module] = []
        c_in = p
        for c in channels:
            convs += [nn.Conv2d(c_in, c, kernel, padding=(kernel - 1) // 2, padding_mode="circular"), act()]
            c_in = c
        self.conv = nn.Sequential(*convs)
        sizes = [c_in * h * w + len(self.scalar_idx) + self.onehot.width, *hidden, num_actions]
        mods: list[nn.Module] = []
        for i in range(len(sizes) - 1):
            if i:
                mods.append(act())
            mods.append(nn.Linear(sizes[i], sizes[i + 1]))
        self.pi = nn.Sequential(*mods)
        rows = torch.arange(h).view(h, 1)
        cols = torch.arange(w).view(1, w)
        self.register_buffer("_rows", rows)
        self.register_buffer("_cols", cols)

    def planes(self, obs: torch.Tensor, x: torch.Tensor) -> Any:
        """The board planes of scaled observations x, (B, P, H, W),
        centred on the first nonzero byte of obs's center plane."""
        b = self.board
        off, p, h, w = b["offset"], b["planes"], b["height"], b["width"]
        board = x[:, off:off + p * h * w].reshape(-1, p, h * w)
        cp = b.get("center_plane", -1)
        if cp is not None and cp >= 0:
            plane = obs[:, off + cp * h * w:off + (cp + 1) * h * w]
            sq: Any = torch.where((plane != 0).any(1), (plane != 0).float().argmax(1), torch.zeros_like(plane[:, 0], dtype=torch.long))
            sr, sc = (sq // w).view(-1, 1, 1), (sq % w).view(-1, 1, 1)
            idx = ((self._rows + sr) % h) * w + (self._cols + sc) % w  # (B, H, W)
            board = board.gather(2, idx.view(-1, 1, h * w).expand(-1, p, -1))
        return board.reshape(-1, p, h, w)

    def features(self, obs: torch.Tensor) -> Any:
        """Layer 0's input: the convolutions' output, the scalar features,
        then the codes' one-hot inputs."""
        x = obs.float() * self.obs_scale
        y = self.conv(self.planes(obs, x)).flatten(1)
        parts = [y, x[:, self.scalar_idx]] + ([self.onehot(obs)] if self.codes else [])
        return torch.cat(parts, 1)

    def forward(self, obs: torch.Tensor, afeat: torch.Tensor | None = None) -> Any:
        return _with_features(self, self.pi(self.features(obs)), afeat)


def load_torch_policy(path: str | os.PathLike[str]) -> Any:
    """Rebuilds the torch network of a weights file (docs/policy-format.md):
    a :class:`galaxygym.train.ConvPolicy` for a format-version-2 file with a
    board (its conv layers, kernel and board from the file; no conv layer
    when the file has none), else a :class:`galaxygym.train.MLPPolicy`, with
    the file's activation, obs_scale, codes (version 4), action features (version 5) and
    float32 weights. Its forward pass (uint8 obs (B, obs_size) -> float32 logits (B,
    num_actions); a version-5 file's network also takes afeat), masked and
    softmaxed, gives :func:`galaxygym.policy_probs`'s probabilities (to
    float32 rounding). The network is in eval mode."""
    from .policy import load_policy

    p = load_policy(path)
    layers = p["layers"]
    hidden = tuple(int(w.shape[0]) for w, _ in layers[:-1])
    num_actions = int(layers[-1][0].shape[0])
    scale = p["obs_scale"].astype(np.float32)
    if p["board"] is not None:
        convs = p["conv"]
        kernel = int(convs[0][0].shape[2]) if convs else 3
        if any(int(w.shape[2]) != kernel for w, _ in convs):
            raise ValueError("conv layers of different kernel sizes: ConvPolicy has one kernel size")
        net = make_policy("conv", scale, num_actions, board=dict(p["board"]),
                          channels=tuple(int(w.shape[0]) for w, _ in convs), kernel=kernel, hidden=hidden,
                          activation=p["activation"], codes=p["codes"], action_features=p["action_features"])
        for m, (w, b) in zip(layers_of(net, "Conv2d", "conv"), convs):
            m.weight.data.copy_(torch.from_numpy(w.astype(np.float32)))
            m.bias.data.copy_(torch.from_numpy(b.astype(np.float32)))
    else:
        net = make_policy("mlp", scale, num_actions, hidden=hidden, activation=p["activation"], codes=p["codes"],
                          action_features=p["action_features"])
    for m, (w, b) in zip(layers_of(net), layers):
        m.weight.data.copy_(torch.from_numpy(w.astype(np.float32)))
        m.bias.data.copy_(torch.from_numpy(b.astype(np.float32)))
    if p["action_features_weight"] is not None:
        net.afeat.weight.data.copy_(torch.from_numpy(p["action_features_weight"].astype(np.float32)))
    net.eval()
    return net
