"""The wire format of docs/protocol.md (version 3), apart from any
connection: the constants, the seed rule (:func:`episode_seed`), a batch's
reply layout (:class:`Layout`), the decoded reply (:class:`Reply`), and
:class:`Codec`, which encodes a made batch's step requests and decodes its
step and reset replies into numpy views of the received frame; JSON
control messages are encoded by :func:`encode_json` and decoded by
:func:`decode_json`. The connection that carries them is
galaxygym._transport; galaxygym._client's Session joins the two."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .errors import ProtocolError

__all__ = ["PROTOCOL_VERSION", "DEFAULT_URL", "OUTCOMES", "HEADER_SIZE", "STEP_HEADER_SIZE", "REQUEST_ID_SIZE",
           "KIND_STEP", "KIND_STEP_REPLY", "KIND_RESET_REPLY", "episode_seed", "Layout", "Reply", "Codec",
           "encode_json", "decode_json"]

#: The protocol version this client speaks (3: request ids).
PROTOCOL_VERSION = 3

#: Where ``galaxygym serve`` listens by default.
DEFAULT_URL = "ws://127.0.0.1:8765"

#: Outcome names by outcome code (u8), as every spec's ``outcome_names``
#: lists them: 0 ongoing, 1 win, 2 loss, 3 draw, 4 truncated; any other code
#: reads "other". Infos carry the codes (numbers, so that vector infos stay
#: numeric); ``OUTCOMES[code]`` names them.
OUTCOMES = np.array(["ongoing", "win", "loss", "draw", "truncated"] + ["other"] * 251, dtype=object)

HEADER_SIZE = 24
STEP_HEADER_SIZE = 8
#: Bytes of the request id trailer of step requests and binary replies.
REQUEST_ID_SIZE = 4
KIND_STEP = 1
KIND_STEP_REPLY = 2
KIND_RESET_REPLY = 3
_MAGIC = b"GG"


_M64 = (1 << 64) - 1


def episode_seed(base: int, k: int) -> int:
    """The seed of episode k of an environment whose seed chain starts at
    base (docs/protocol.md, "Seeds"): base itself for k = 0, else SplitMix64
    of base + k * 0x9E3779B97F4A7C15 (mod 2**64). Autoresets and resets with
    a null seed move an environment to its next episode."""
    if k == 0:
        return base
    z = (base + k * 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


@dataclass(frozen=True)
class Layout:
    """Byte offsets of a reply's arrays (docs/protocol.md, "Step reply")."""

    n: int
    obs_size: int
    num_actions: int
    num_players: int
    num_action_features: int = 0  # F: make's action_features (0: not asked for)

    @property
    def rewards(self) -> int:
        return HEADER_SIZE

    @property
    def current_player(self) -> int:
        return self.rewards + 4 * self.n * self.num_players

    @property
    def score(self) -> int:
        return self.current_player + 4 * self.n

    @property
    def steps(self) -> int:
        return self.score + 4 * self.n

    @property
    def scores(self) -> int:
        return self.steps + 4 * self.n

    @property
    def ranks(self) -> int:
        return self.scores + 4 * self.n * self.num_players

    @property
    def terminated(self) -> int:
        return self.ranks + 4 * self.n * self.num_players

    @property
    def truncated(self) -> int:
        return self.terminated + self.n

    @property
    def outcome(self) -> int:
        return self.truncated + self.n

    @property
    def outcomes(self) -> int:
        return self.outcome + self.n

    @property
    def obs(self) -> int:
        return self.outcomes + self.n * self.num_players

    @property
    def mask(self) -> int:
        return self.obs + self.n * self.obs_size

    @property
    def action_features(self) -> int:
        """Offset of the uint8 (N, A, F) action features (F > 0 only)."""
        return self.mask + self.n * self.num_actions

    @property
    def final_index(self) -> int:
        return (self.action_features + self.n * self.num_actions * self.num_action_features + 3) & ~3

    def size(self, k: int = 0) -> int:
        """Size in bytes of a reply with k final entries."""
        return self.final_index + k * (13 + 9 * self.num_players + self.obs_size)


class Reply:
    """A decoded step or reset reply: numpy views of the frame (writable; a
    later reply never overwrites them).

    Attributes (N environments, P players, A actions, K final entries):
        kind: 2 for a step reply, 3 for a reset reply.
        rewards: float32 (N, P), every player's reward for the step.
        current_player: int32 (N,), the player to act, -1 once terminal.
        score: float32 (N,), the game's score of the current episode.
        steps: int32 (N,), steps taken in the current episode.
        terminated, truncated: bool (N,).
        outcome: uint8 (N,) outcome codes (see OUTCOMES).
        scores: float32 (N, P), every player's score once the episode is
            over (0 while it runs); ranks: int32 (N, P), every player's rank
            (1 = best, ties share; 0 while it runs); outcomes: uint8 (N, P),
            every player's outcome code (win, loss or draw; 0 while it runs).
        obs: uint8 (N, *obs_shape), the observation of the player to act
            (of the last player to act once the episode is over).
        mask: uint8 (N, A) legal-action masks (all zero once terminal).
        action_features: uint8 (N, A, F), the game's features of each
            action for the observation beside them (all zero once terminal),
            when make asked for them (``action_features=True``); else None.
        final_index: int32 (K,), envs whose episode ended in this step
            (same_step mode only); final_score, final_steps, final_outcome
            (K,), final_scores, final_ranks, final_outcomes (K, P) and
            final_obs (K, *obs_shape) describe those episodes' ends.
    """

    __slots__ = ("kind", "rewards", "current_player", "score", "steps", "scores", "ranks", "terminated",
                 "truncated", "outcome", "outcomes", "obs", "mask", "action_features", "final_index", "final_score", "final_steps",
                 "final_scores", "final_ranks", "final_outcome", "final_outcomes", "final_obs")

    kind: int
    rewards: NDArray[np.float32]
    current_player: NDArray[np.int32]
    score: NDArray[np.float32]
    steps: NDArray[np.int32]
    scores: NDArray[np.float32]
    ranks: NDArray[np.int32]
    terminated: NDArray[np.bool_]
    truncated: NDArray[np.bool_]
    outcome: NDArray[np.uint8]
    outcomes: NDArray[np.uint8]
    obs: NDArray[np.uint8]
    mask: NDArray[np.uint8]
    action_features: NDArray[np.uint8] | None
    final_index: NDArray[np.int32]
    final_score: NDArray[np.float32]
    final_steps: NDArray[np.int32]
    final_scores: NDArray[np.float32]
    final_ranks: NDArray[np.int32]
    final_outcome: NDArray[np.uint8]
    final_outcomes: NDArray[np.uint8]
    final_obs: NDArray[np.uint8]


def encode_json(msg: dict[str, Any]) -> str:
    """A control message as the compact JSON text the server reads."""
    return json.dumps(msg, separators=(",", ":"))


def decode_json(data: bytes | bytearray) -> dict[str, Any]:
    """A text frame's JSON object; ProtocolError when it is not JSON or not
    an object."""
    try:
        msg = json.loads(data)
    except ValueError:
        raise ProtocolError(f"server sent a text frame that is not JSON: {data[:80]!r}") from None
    if not isinstance(msg, dict):
        raise ProtocolError(f"server sent a JSON {type(msg).__name__}, want an object")
    return msg


class Codec:
    """The binary messages of one made batch (the ``made`` reply's spec).

    Attributes:
        spec: the environment's spec (dict); num_envs: N; obs_shape: the
            shape of one observation; layout: the replies' :class:`Layout`;
            action_feature_names: the names of the F action features the
            replies carry (empty unless make asked for action_features).
        step_header: the bytes a step request starts with (magic, version,
            kind, N); the request is step_header, N int32 actions (little
            endian), then the request id (u32).

    Raises ProtocolError when the server's layout differs from the one this
    client computes."""

    def __init__(self, made: dict[str, Any]):
        spec = made["spec"]
        self.spec = spec
        self.num_envs = int(made["num_envs"])
        self.obs_shape = tuple(int(d) for d in spec["obs_shape"])
        self.action_feature_names = [str(x) for x in made.get("action_feature_names") or []]
        lay = Layout(self.num_envs, int(np.prod(self.obs_shape)), len(spec["action_names"]),
                     int(spec["num_players"]), len(self.action_feature_names))
        got = made.get("layout", {})
        if (got.get("obs") != lay.obs or got.get("final_index") != lay.final_index
                or got.get("scores") != lay.scores or got.get("outcomes") != lay.outcomes
                or got.get("num_action_features", 0) != lay.num_action_features):
            raise ProtocolError(f"server layout {got} differs from this client's {lay}")
        self.layout = lay
        self._offsets = (lay.rewards, lay.current_player, lay.score, lay.steps, lay.terminated,
                         lay.truncated, lay.outcome, lay.obs, lay.mask, lay.final_index)
        p = lay.num_players
        self._obs_batch_shape = (lay.n,) + self.obs_shape
        self._no_finals = (np.zeros(0, np.int32), np.zeros(0, np.float32), np.zeros(0, np.int32),
                           np.zeros(0, np.uint8), np.zeros((0,) + self.obs_shape, np.uint8),
                           np.zeros((0, p), np.float32), np.zeros((0, p), np.int32), np.zeros((0, p), np.uint8))
        for arr in self._no_finals:
            arr.flags.writeable = False
        self.step_header = (_MAGIC + bytes([PROTOCOL_VERSION]) + b"%c" % KIND_STEP
                            + lay.n.to_bytes(4, "little"))
        self._reply_hdr = b"".join(x.to_bytes(4, "little") for x in
                                   (lay.n, lay.obs_size, lay.num_actions, lay.num_players))

    def reply_prefix(self, kind: int) -> bytes:
        """The first 24 bytes of a reply of kind with K = 0."""
        return _MAGIC + bytes([PROTOCOL_VERSION, kind]) + self._reply_hdr + bytes(4)

    def step_actions(self, actions: NDArray[Any]) -> bytes:
        """The N actions (any integer array of N elements) as a step
        request's little-endian int32 body; ValueError for another count or
        an action outside int32, TypeError for a non-integer dtype."""
        n = self.layout.n
        a = np.asarray(actions)
        if a.shape != (n,):
            if a.size == n:
                a = a.reshape(n)
            else:
                raise ValueError(f"want {n} actions, got shape {a.shape}")
        if a.dtype != np.int32:
            if a.dtype.kind not in "iub":
                raise TypeError(f"actions must be integers, got dtype {a.dtype}")
            if a.size and (a.min() < -(1 << 31) or a.max() >= 1 << 31):
                raise ValueError("action out of the int32 range")
            a = a.astype("<i4")
        return a.tobytes()

    def decode(self, data: bytes | bytearray, kind: int) -> Reply:
        """Decodes a step or reset reply frame into numpy views."""
        lay = self.layout
        assert lay is not None
        if (len(data) < HEADER_SIZE or data[:2] != _MAGIC or data[2] != PROTOCOL_VERSION
                or data[3] != kind or data[4:20] != self._reply_hdr):
            raise ProtocolError(f"unexpected reply header {bytes(data[:HEADER_SIZE]).hex(' ')}")
        k = int.from_bytes(data[20:24], "little")
        if len(data) != lay.size(k):
            raise ProtocolError(f"reply of {len(data)} bytes, want {lay.size(k)}")
        n, p, a, o = lay.n, lay.num_players, lay.num_actions, lay.obs_size
        o_rew, o_cp, o_score, o_steps, o_term, o_trunc, o_out, o_obs, o_mask, fi = self._offsets
        fb = np.frombuffer
        r = Reply()
        r.kind = kind
        r.rewards = fb(data, "<f4", n * p, o_rew).reshape(n, p)
        r.current_player = fb(data, "<i4", n, o_cp)
        r.score = fb(data, "<f4", n, o_score)
        r.steps = fb(data, "<i4", n, o_steps)
        r.scores = fb(data, "<f4", n * p, o_steps + 4 * n).reshape(n, p)
        r.ranks = fb(data, "<i4", n * p, o_steps + 4 * n + 4 * n * p).reshape(n, p)
        flags = fb(data, np.uint8, 3 * n + n * p, o_term)
        r.terminated = flags[:n].view(np.bool_)
        r.truncated = flags[n:2 * n].view(np.bool_)
        r.outcome = flags[2 * n:3 * n]
        r.outcomes = flags[3 * n:].reshape(n, p)
        r.obs = fb(data, np.uint8, n * o, o_obs).reshape(self._obs_batch_shape)
        r.mask = fb(data, np.uint8, n * a, o_mask).reshape(n, a)
        f = lay.num_action_features
        r.action_features = fb(data, np.uint8, n * a * f, lay.action_features).reshape(n, a, f) if f else None
        if k == 0:
            (r.final_index, r.final_score, r.final_steps, r.final_outcome, r.final_obs,
             r.final_scores, r.final_ranks, r.final_outcomes) = self._no_finals
        else:
            r.final_index = fb(data, "<i4", k, fi)
            r.final_score = fb(data, "<f4", k, fi + 4 * k)
            r.final_steps = fb(data, "<i4", k, fi + 8 * k)
            r.final_scores = fb(data, "<f4", k * p, fi + 12 * k).reshape(k, p)
            r.final_ranks = fb(data, "<i4", k * p, fi + 12 * k + 4 * k * p).reshape(k, p)
            r.final_outcome = fb(data, np.uint8, k, fi + 12 * k + 8 * k * p)
            r.final_outcomes = fb(data, np.uint8, k * p, fi + 13 * k + 8 * k * p).reshape(k, p)
            r.final_obs = fb(data, np.uint8, k * o, fi + 13 * k + 9 * k * p).reshape((k,) + self.obs_shape)
        return r
