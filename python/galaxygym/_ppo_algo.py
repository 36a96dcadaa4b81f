"""The PPO maths of :mod:`galaxygym.ppo`: the critic (:func:`make_critic`),
a rollout's buffers (:class:`Rollout`), collecting one (:func:`collect`),
GAE (:func:`gae`) and the epochs of one update (:func:`update`). torch is
imported on first use."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .train import layers_of

if TYPE_CHECKING:
    from .ppo import PPOConfig

__all__ = ["Rollout", "make_critic", "collect", "gae", "update"]


def _torch() -> Any:
    import torch
    return torch


def make_critic(actor: Any, from_actor: bool) -> Any:
    """A value network of the actor's kind (same board handling, conv layers
    and hidden widths) with one output: uint8 obs (B, obs_size) -> float32
    (B, 1), the value of the acting player in scaled reward units. from_actor:
    start from a copy of the actor's weights (the last layer replaced by a
    zero-initialised one-output layer), else a fresh initialisation from
    torch's global generator."""
    torch = _torch()
    if from_actor:
        critic = copy.deepcopy(actor)
    else:
        critic = copy.deepcopy(actor)
        for m in critic.modules():
            if hasattr(m, "reset_parameters") and m is not critic:
                m.reset_parameters()
    if getattr(critic, "action_features", None):  # a value reads the observation only
        critic.action_features = []
        del critic.afeat
    last = layers_of(critic)[-1]
    head = torch.nn.Linear(last.in_features, 1)
    torch.nn.init.zeros_(head.weight)
    torch.nn.init.zeros_(head.bias)
    critic.pi[len(critic.pi) - 1] = head
    critic.train()
    return critic


@dataclass
class Rollout:
    """One rollout's buffers, (T, N, ...) torch tensors; afeat, uint8 (T, N,
    num_actions, F), only for an actor that reads the game's action
    features (None otherwise)."""

    obs: Any
    mask: Any
    act: Any
    logp: Any
    val: Any
    rew: Any
    done: Any
    afeat: Any = None

    @classmethod
    def zeros(cls, t_len: int, n: int, obs_dim: int, num_actions: int, features: int = 0) -> "Rollout":
        torch = _torch()
        return cls(torch.zeros((t_len, n, obs_dim), dtype=torch.uint8),
                   torch.zeros((t_len, n, num_actions), dtype=torch.bool), torch.zeros((t_len, n), dtype=torch.long),
                   torch.zeros((t_len, n)), torch.zeros((t_len, n)), torch.zeros((t_len, n)), torch.zeros((t_len, n)),
                   torch.zeros((t_len, n, num_actions, features), dtype=torch.uint8) if features else None)


def _masked(logits: Any, mask: Any) -> Any:
    torch = _torch()
    return torch.where(mask, logits, torch.full_like(logits, -1e9))


def collect(actor: Any, critic: Any, envs: Any, buf: Rollout, obs: NDArray[Any], mask: NDArray[Any],
            cfg: PPOConfig, gen: Any, ep_return: NDArray[Any], finished: list[float],
            afeat: NDArray[Any] | None = None) -> tuple[Any, Any, Any, Any]:
    """Fills buf with one rollout from (obs, mask, afeat: the action
    features, for an actor that reads them); returns the next obs, mask,
    the critic's value of the next obs and the next afeat. Ended episodes'
    unscaled returns are appended to finished."""
    torch = _torch()
    with torch.no_grad():
        for t in range(buf.obs.shape[0]):
            o, m = torch.from_numpy(obs), torch.from_numpy(mask)
            f = None if afeat is None else torch.from_numpy(afeat)
            logits = _masked(actor(o) if f is None else actor(o, f), m)
            action = torch.multinomial(torch.softmax(logits, -1), 1, generator=gen).squeeze(-1)
            buf.obs[t], buf.mask[t], buf.act[t] = o, m, action
            if f is not None:
                buf.afeat[t] = f
            buf.logp[t] = torch.log_softmax(logits, -1).gather(1, action.view(-1, 1)).squeeze(-1)
            buf.val[t] = critic(o).squeeze(-1)
            obs, reward, done, mask, afeat = envs.step(action.numpy())
            ep_return += reward
            if done.any():
                finished.extend(ep_return[done].tolist())
                ep_return[done] = 0
            buf.rew[t] = torch.from_numpy(reward * cfg.reward_scale).float()
            buf.done[t] = torch.from_numpy(done.astype(np.float32))
        next_value = critic(torch.from_numpy(obs)).squeeze(-1)
    return obs, mask, next_value, afeat


def gae(buf: Rollout, next_value: Any, gamma: float, lam: float) -> tuple[Any, Any]:
    """Advantages and returns (T, N) by GAE(gamma, lam); an ended episode
    bootstraps nothing."""
    torch = _torch()
    t_len, n = buf.rew.shape
    adv = torch.zeros((t_len, n))
    last = torch.zeros(n)
    for t in reversed(range(t_len)):
        nv = next_value if t == t_len - 1 else buf.val[t + 1]
        nonterminal = 1.0 - buf.done[t]
        delta = buf.rew[t] + gamma * nv * nonterminal - buf.val[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + buf.val


def update(actor: Any, critic: Any, opt_pi: Any, opt_v: Any, buf: Rollout, adv: Any, ret: Any, cfg: PPOConfig,
           gen: Any, stats: dict[str, list[float]], warm: bool, device: Any = None) -> None:
    """The epochs of one PPO update over the rollout (the critic only while
    warm); appends each minibatch's losses to stats. device: where actor
    and critic are (default the CPU); each minibatch is copied there."""
    torch = _torch()
    dev = device or torch.device("cpu")
    size_all = buf.act.numel()
    b_obs, b_mask = buf.obs.reshape(size_all, -1), buf.mask.reshape(size_all, -1)
    b_act, b_logp, b_adv, b_ret = buf.act.reshape(-1), buf.logp.reshape(-1), adv.reshape(-1), ret.reshape(-1)
    b_feat = None if buf.afeat is None else buf.afeat.reshape(size_all, *buf.afeat.shape[2:])
    size = size_all // cfg.minibatches
    epochs_run = 0
    for _ in range(cfg.epochs):
        perm = torch.randperm(size_all, generator=gen)
        epochs_run += 1
        for k in range(cfg.minibatches):
            idx = perm[k * size:(k + 1) * size]
            o, ret_k = b_obs[idx].to(dev), b_ret[idx].to(dev)
            v_loss = 0.5 * (critic(o).squeeze(-1) - ret_k).pow(2).mean()
            opt_v.zero_grad()
            (cfg.vf_coef * v_loss).backward()
            torch.nn.utils.clip_grad_norm_(critic.parameters(), cfg.max_grad_norm)
            opt_v.step()
            stats.setdefault("value_loss", []).append(float(v_loss))
            if warm:
                continue
            m = b_mask[idx].to(dev)
            logits = actor(o) if b_feat is None else actor(o, b_feat[idx].to(dev))
            logp_all = torch.log_softmax(_masked(logits, m), -1)
            log_ratio = logp_all.gather(1, b_act[idx].to(dev).view(-1, 1)).squeeze(-1) - b_logp[idx].to(dev)
            ratio = log_ratio.exp()
            a = b_adv[idx].to(dev)
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
            p = logp_all.exp()
            entropy = -(p * torch.where(m, logp_all, torch.zeros_like(p))).sum(-1).mean()
            opt_pi.zero_grad()
            (pg_loss - cfg.ent_coef * entropy).backward()
            torch.nn.utils.clip_grad_norm_(actor.parameters(), cfg.max_grad_norm)
            opt_pi.step()
            with torch.no_grad():
                kl = float(((ratio - 1) - log_ratio).mean())
                stats.setdefault("policy_loss", []).append(float(pg_loss))
                stats.setdefault("entropy", []).append(float(entropy))
                stats.setdefault("approx_kl", []).append(kl)
                stats.setdefault("clip_frac", []).append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
            if cfg.target_kl is not None and kl > cfg.target_kl:
                stats.setdefault("epochs_run", []).append(float(epochs_run))
                return
    stats.setdefault("epochs_run", []).append(float(epochs_run))
