"""The environments of a :mod:`galaxygym.ppo` run: a one-player game's
vector environment (:class:`SingleEnvs`), or, for self-play, the opponent
pool (:class:`OpponentPool`) and the sessions that seat it around the
learner (:class:`SelfPlayEnvs`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ._client import episode_seed
from .policy import feature_columns
from .train import export

if TYPE_CHECKING:
    from .ppo import PPOConfig

__all__ = ["OpponentPool", "SelfPlayEnvs", "SingleEnvs"]


class OpponentPool:
    """The opponents of a self-play run: built-in agents and the learner's
    past snapshots, exported as Go weights files into ``folder`` (which the
    run's private server serves with ``--weights``).

    Sampling: each opponent seat of a lineup independently draws, with
    probability ``snapshot_prob``, a snapshot uniformly from the pool (the
    latest ``size`` snapshots, the initial actor first), else an agent
    uniformly from ``builtin``."""

    def __init__(self, folder: Path, env_id: str, builtin: Sequence[str], snapshot_prob: float, size: int,
                 rng: np.random.Generator):
        self.folder, self.env_id = folder, env_id
        self.builtin, self.snapshot_prob, self.size, self.rng = list(builtin), snapshot_prob, size, rng
        self.snapshots: list[str] = []
        self._count = 0

    def add(self, actor: Any) -> str:
        """Exports actor as the newest snapshot; returns its agent spec."""
        name = f"snapshot-{self._count:05d}.npz"
        self._count += 1
        export(actor, self.folder / name, self.env_id)
        self.snapshots.append(name)
        if len(self.snapshots) > self.size:
            (self.folder / self.snapshots.pop(0)).unlink(missing_ok=True)
        return name

    def lineup(self, seats: int) -> list[str]:
        """Agent specs for `seats` opponent seats."""
        out = []
        for _ in range(seats):
            if self.snapshots and (not self.builtin or self.rng.random() < self.snapshot_prob):
                out.append("policy@weights=" + self.snapshots[int(self.rng.integers(len(self.snapshots)))])
            else:
                out.append(self.builtin[int(self.rng.integers(len(self.builtin)))])
        return out


def _columns(venv: Any, names: Sequence[str]) -> list[int] | None:
    """The columns of the actor's action features (names) among the ones
    venv's replies carry (its action_feature_names): an actor reads the
    game's features by name, so a feature the game added since its file
    was written is left out. None without names; ValueError for a name the
    game does not declare."""
    if not names:
        return None
    return feature_columns(venv.action_feature_names, names, "the actor", venv.env_id)


def _features(infos: dict[str, Any], cols: list[int] | None) -> NDArray[Any] | None:
    """The actor's action features (the columns cols) of a vector env's
    infos: uint8 (N, A, len(cols)); None when not asked."""
    f = infos.get("action_features")
    if f is None or cols is None:
        return None
    f = np.asarray(f)
    return f if cols == list(range(f.shape[-1])) else f[..., cols]


def _cat(parts: list[NDArray[Any] | None]) -> NDArray[Any] | None:
    return None if parts[0] is None else np.concatenate(parts)  # type: ignore[arg-type]


class SelfPlayEnvs:
    """``groups`` make_vec sessions of one private server (serving the
    pool's folder) that together hold num_envs environments, each with one
    learner seat rotated per episode and a lineup of opponents from the
    pool; stepped one after the other and concatenated. features: the
    names of the action features the actor reads (empty: none), selected
    from the ones the replies carry.

    remake returns (obs, masks, afeat) and step (obs, learner rewards,
    dones, masks, afeat); afeat is None without features."""

    def __init__(self, cfg: PPOConfig, pool: OpponentPool, players: int, features: Sequence[str] = ()):
        from ._server import LocalServer

        self.cfg, self.pool, self.players, self.features = cfg, pool, players, list(features)
        self.cols: list[list[int] | None] = []
        self.server = LocalServer(args=["--weights", str(pool.folder)])
        n, g = cfg.num_envs, max(1, min(cfg.opponent_groups, cfg.num_envs))
        self.sizes = [n // g + (1 if k < n % g else 0) for k in range(g)]
        self.venvs: list[Any] = []
        self.episode = 0

    def remake(self) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any] | None]:
        """New lineups for every group; returns the first obs, masks and
        action features."""
        from .vector import GalaxyGymVectorEnv

        self.close_sessions()
        self.cols = []
        obs, masks, feats = [], [], []
        for k, size in enumerate(self.sizes):
            v = GalaxyGymVectorEnv(self.cfg.env_id, size, url=self.server.url, autoreset_mode="same_step",
                                   opponents=self.pool.lineup(self.players - 1), learner_seats=[0],
                                   seat_rule="rotate", action_features=bool(self.features), **self.cfg.params)
            self.venvs.append(v)
            self.cols.append(_columns(v, self.features))
            o, info = v.reset(seed=[episode_seed(self.cfg.seed, self.episode + i) for i in range(size)])
            self.episode += size
            obs.append(o)
            masks.append(info["action_mask"].astype(bool))
            feats.append(_features(info, self.cols[k]))
        return np.concatenate(obs), np.concatenate(masks), _cat(feats)

    def step(self, actions: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any],
                                                   NDArray[Any] | None]:
        """Steps every group: obs, learner rewards, dones, masks, action
        features."""
        obs, rew, done, masks, feats = [], [], [], [], []
        lo = 0
        for v, size, cols in zip(self.venvs, self.sizes, self.cols):
            o, r, te, tr, info = v.step(actions[lo:lo + size])
            lo += size
            obs.append(o)
            rew.append(r)
            done.append(te | tr)
            masks.append(info["action_mask"].astype(bool))
            feats.append(_features(info, cols))
        return np.concatenate(obs), np.concatenate(rew), np.concatenate(done), np.concatenate(masks), _cat(feats)

    def close_sessions(self) -> None:
        for v in self.venvs:
            v.close()
        self.venvs = []

    def close(self) -> None:
        self.close_sessions()
        self.server.stop()


class SingleEnvs:
    """make_vec's same_step batch of a one-player game, as SelfPlayEnvs."""

    def __init__(self, cfg: PPOConfig, features: Sequence[str] = ()):
        from . import make_vec

        self.cfg = cfg
        self.venv: Any = make_vec(cfg.env_id, cfg.num_envs, url=cfg.url, autoreset_mode="same_step",
                                  action_features=bool(features), **cfg.params)
        self.num_players = self.venv.num_players
        try:
            self.cols = _columns(self.venv, features)
        except ValueError:
            self.venv.close()
            raise

    def remake(self) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any] | None]:
        obs, infos = self.venv.reset(seed=self.cfg.seed)
        return obs, infos["action_mask"].astype(bool), _features(infos, self.cols)

    def step(self, actions: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any],
                                                   NDArray[Any] | None]:
        obs, reward, term, trunc, infos = self.venv.step(actions)
        return obs, reward, term | trunc, infos["action_mask"].astype(bool), _features(infos, self.cols)

    def close(self) -> None:
        self.venv.close()
