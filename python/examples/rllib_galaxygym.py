"""Training galaxygym environments with RLlib (Ray 2.x, the new API stack).

PPO with RLlib's own action-masking RLModule
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``), on

- Galaxy Express (one player), the Gymnasium environment ``galaxygym.make``
  makes, and
- a multiplayer game (``express-v2``, ``pilots-of-gallaxia-v2``, ...)
  through RLlib's PettingZoo wrapper (``ray.rllib.env.wrappers.
  pettingzoo_env.PettingZooEnv``) around ``galaxygym.aec_env``: one policy
  shared by every seat (self-play), each seat's reward arriving at its next
  turn.

Every EnvRunner is its own process (a Ray actor) and builds its own
environments there; with no URL each process starts its own private
``galaxygym`` server (the Python client's default), so EnvRunners share
nothing. Pass ``--url ws://host:8765/`` (or set ``GALAXYGYM_URL``) to use a
``galaxygym serve`` per node instead (deploy/k8s/serve.yaml).

Runs in a venv with Ray and torch (``make venv-ray``, docs/scaling.md)::

    python python/examples/rllib_galaxygym.py --env galaxy-express-v1 --iterations 20
    python python/examples/rllib_galaxygym.py --env express-v2 --players 2 --env-runners 2
    python python/examples/rllib_galaxygym.py --env galaxy-express-v1 --bench 1,2,4

Every ``--eval-every`` iterations (and after the last) the learner's
policy is exported for the Go ``policy`` agent (``galaxygym.export_policy``:
the module's actor encoder and policy head, tanh between them, the
observation's scaling) and played natively, greedy, by ``galaxygym eval``
against ``--eval-opponent`` (the heuristic) in every other seat, seats
rotated: the summary gives the learner seat's mean return and win rate
(``eval_return``, ``eval_win_rate``), not RLlib's ``episode_return_mean``,
which on a multiplayer game adds every seat's return. The last export stays
at ``--export`` (default ``rllib-ENV.npz``), playable by ``galaxygym eval
--seats policy@weights=rllib-ENV.npz,heuristic`` or ``galaxygym serve
--weights DIR``.

``--bench`` measures the env steps per second the EnvRunners collect
(sampling only, no training), for each number of EnvRunners listed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

import galaxygym

# The observation and action-mask keys RLlib's ActionMaskingTorchRLModule reads.
OBS_KEY = "observations"
MASK_KEY = "action_mask"


def _scaled_box(box: gym.spaces.Box) -> tuple[gym.spaces.Box, np.ndarray]:
    """A float32 Box in [0, 1] of the same shape and the divisor that maps
    the uint8 observation into it (galaxygym observations are small counts
    and flags, a few up to 255)."""
    scale = np.maximum(np.asarray(box.high, dtype=np.float32), 1.0)
    return gym.spaces.Box(0.0, 1.0, shape=box.shape, dtype=np.float32), scale


class MaskedObservation(gym.Wrapper):
    """A one-player galaxygym environment with the observation RLlib's
    action-masking RLModule expects: ``{"observations": float32 in [0, 1]
    (obs_shape), "action_mask": float32 (A,), 1 = legal}`` (the mask comes
    from ``info["action_mask"]``; it is all 0 once the episode is over)."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        box, self._scale = _scaled_box(env.observation_space)
        n = int(env.action_space.n)
        self.observation_space = gym.spaces.Dict({
            OBS_KEY: box, MASK_KEY: gym.spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32)})

    def _wrap(self, obs: np.ndarray, info: dict[str, Any]) -> dict[str, np.ndarray]:
        return {OBS_KEY: obs.astype(np.float32) / self._scale,
                MASK_KEY: np.asarray(info["action_mask"], dtype=np.float32)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._wrap(obs, info), info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        return self._wrap(obs, info), float(reward), terminated, truncated, info


def _masked_aec(aec: Any) -> Any:
    """galaxygym's AEC environment with each agent's observation renamed and
    cast for the action-masking RLModule (see MaskedObservation)."""
    from pettingzoo.utils.wrappers import BaseWrapper

    class MaskedAEC(BaseWrapper):  # type: ignore[misc]
        """``observe(agent)`` as ``{"observations", "action_mask"}`` in float32."""

        def __init__(self, env: Any):
            super().__init__(env)
            inner = env.observation_space(env.possible_agents[0])
            box, self._scale = _scaled_box(inner["observation"])
            n = int(env.action_space(env.possible_agents[0]).n)
            self._space = gym.spaces.Dict({
                OBS_KEY: box, MASK_KEY: gym.spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32)})

        def observation_space(self, agent: str) -> gym.Space:
            return self._space

        def observe(self, agent: str) -> dict[str, np.ndarray]:
            o = self.env.observe(agent)
            return {OBS_KEY: o["observation"].astype(np.float32) / self._scale,
                    MASK_KEY: o["action_mask"].astype(np.float32)}

    return MaskedAEC(aec)


def env_creator(config: dict[str, Any]) -> Any:
    """Builds one environment inside an EnvRunner process (RLlib calls it
    with the ``env_config`` dict: ``env`` the galaxygym id, ``url`` or None
    for the process's private server, ``params`` the game's parameters,
    ``multi_agent`` whether it has more than one player).
    One-player games give a Gymnasium env, the others RLlib's PettingZooEnv
    (a MultiAgentEnv)."""
    env_id = config["env"]
    url = config.get("url")
    params = dict(config.get("params") or {})
    if not config.get("multi_agent"):
        return MaskedObservation(galaxygym.make(env_id, url=url, **params))
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    return PettingZooEnv(_masked_aec(galaxygym.aec_env(env_id, url=url, **params)))


def is_multi_agent(env_id: str, params: dict[str, Any] | None = None, url: str | None = None) -> bool:
    """Whether the game has more than one player (with these parameters)."""
    return game_info(env_id, params, url)[0] > 1


def build_config(env_id: str, *, params: dict[str, Any] | None = None, url: str | None = None,
                 env_runners: int = 1, envs_per_runner: int = 1, rollout_len: int = 64,
                 train_batch: int = 512, minibatch: int = 128, epochs: int = 2,
                 hidden: tuple[int, ...] = (128, 128), seed: int | None = 0) -> Any:
    """A PPOConfig (new API stack) for a galaxygym game.

    ``env_runners`` remote EnvRunners (0: sample in the driver), each with
    ``envs_per_runner`` environments; ``train_batch`` env steps per
    iteration in minibatches of ``minibatch``; the action-masking RLModule
    with an MLP of ``hidden`` units. Multiplayer games train one module,
    ``"shared"``, for every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env("galaxygym-rllib", env_creator)
    model = DefaultModelConfig(fcnet_hiddens=list(hidden), fcnet_activation="tanh",
                               head_fcnet_hiddens=[], vf_share_layers=False)
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)
    multi = is_multi_agent(env_id, params, url)
    env_config = {"env": env_id, "url": url, "params": dict(params or {}), "multi_agent": multi}
    cfg = (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .framework("torch")
        # RLlib's environment check steps with unmasked random actions, which
        # end a galaxygym game as illegal (with a warning); galaxygym's own
        # tests check the environments' API.
        .environment("galaxygym-rllib", env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner,
                     rollout_fragment_length=rollout_len, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=train_batch, minibatch_size=minibatch,
                  num_epochs=epochs, lr=3e-4, entropy_coeff=0.01)
        .debugging(seed=seed)
    )
    if multi:
        cfg = cfg.multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        cfg = cfg.rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
    else:
        cfg = cfg.rl_module(rl_module_spec=module)
    return cfg


def _metric(result: dict[str, Any], *keys: str) -> Any:
    cur: Any = result
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return cur


def policy_layers(weights: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy's linear layers, as (weight (out, in), bias (out,)) numpy
    pairs in order, from an action-masking RLModule's state dict (the
    numpy dict ``algo.learner_group.get_weights()[module_id]`` gives): the
    actor encoder's layers (``encoder.actor_encoder.*``; ``encoder.encoder.*``
    when the value function shares them), then the policy head's
    (``pi.*``). The critic's layers and the value head are left out.
    ValueError when there is no policy head."""
    def pairs(prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
        out = []
        for key, w in weights.items():
            if key.startswith(prefix) and key.endswith(".weight") and np.ndim(w) == 2:
                out.append((np.asarray(w), np.asarray(weights[key[:-len("weight")] + "bias"])))
        return out

    body = pairs("encoder.actor_encoder.") or pairs("encoder.encoder.")
    head = pairs("pi.")
    if not head:
        raise ValueError(f"no policy head (pi.*) among the module's weights {sorted(weights)[:8]}...")
    return body + head


def export(weights: dict[str, Any], path: str, env_id: str, obs_high: np.ndarray) -> dict[str, Any]:
    """Writes the module's policy (weights: its state dict, see
    :func:`policy_layers`) as a Go ``policy`` weights file at path:
    obs_scale 1 / max(obs_high, 1) (the observation scaling of
    :class:`MaskedObservation`), tanh between the layers (the example's
    ``fcnet_activation``), played greedily. Returns its metadata."""
    high = np.asarray(obs_high, dtype=np.float32)
    scale = (1.0 / np.maximum(high, 1.0)).astype(np.float32)
    return galaxygym.export_policy(path, policy_layers(weights), scale, env_id, activation="tanh",
                                   obs_shape=high.shape, play="greedy")


def evaluate(path: str, env_id: str, params: dict[str, Any] | None = None, episodes: int = 100,
             opponent: str = "heuristic", seed: int = 1) -> dict[str, Any]:
    """Plays the weights file at path natively (``galaxygym eval``, greedy)
    on seeded deals: alone on a one-player game, else against opponent in
    every other seat with the seats rotated (every deal played from every
    seat). Returns the learner seat's eval_return (its mean return: its own
    rewards summed, not every seat's), eval_score (its mean score),
    eval_win_rate with its 95 % interval (eval_win_ci95: [low, high]) and
    eval_episodes (the games it played)."""
    from galaxygym._server import binary_path

    players = int(game_info(env_id, params)[0])
    seats = ",".join([f"policy@weights={path}@greedy=true"] + [opponent] * (players - 1))
    cmd = [binary_path(), "eval", "--env", env_id, "--seats", seats, "--episodes",
           str(max(1, episodes // players)), "--seed", str(seed), "--format", "json"]
    if players > 1:
        cmd.append("--rotate")
    for k, v in (params or {}).items():
        cmd += ["--env-param", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    me = res["agents"][0]
    return {"eval_return": float(me["mean_return"]), "eval_score": float(me["mean_score"]),
            "eval_win_rate": float(me["win_rate"]),
            "eval_win_ci95": [float(me["win_ci95_low"]), float(me["win_ci95_high"])],
            "eval_episodes": int(me["games"])}


def game_info(env_id: str, params: dict[str, Any] | None = None, url: str | None = None) -> tuple[int, np.ndarray]:
    """(players, the observation's upper bounds) of the game with these
    parameters."""
    env = galaxygym.make(env_id, url=url, **dict(params or {}))
    try:
        return int(env.num_players), np.asarray(env.observation_space.high)
    finally:
        env.close()


def train(cfg: Any, iterations: int, *, eval_every: int = 5, eval_episodes: int = 100,
          eval_opponent: str = "heuristic", export_path: str | None = None) -> list[dict[str, Any]]:
    """Builds the algorithm and trains ``iterations`` iterations; returns
    one summary per iteration (env steps sampled, episodes, RLlib's mean
    return: every seat's added on a multiplayer game). Every ``eval_every``
    iterations and after the last (0: never) the learner's policy is
    exported to export_path (default rllib-ENV.npz) and evaluated
    (:func:`evaluate`, ``eval_episodes`` games against ``eval_opponent``):
    the summary then has eval_return, eval_win_rate and eval_episodes."""
    env_cfg = cfg.env_config
    env_id, params = env_cfg["env"], dict(env_cfg.get("params") or {})
    module_id = "shared" if env_cfg.get("multi_agent") else "default_policy"
    path = os.path.abspath(export_path or f"rllib-{env_id}.npz")
    high = game_info(env_id, params, env_cfg.get("url"))[1]
    algo = cfg.build_algo()
    out = []
    try:
        for i in range(iterations):
            r = algo.train()
            row = {
                "iteration": i + 1,
                "env_steps": _metric(r, "env_runners", "num_env_steps_sampled_lifetime"),
                "episodes": _metric(r, "env_runners", "num_episodes_lifetime"),
                "episode_return_mean": _metric(r, "env_runners", "episode_return_mean"),
                "episode_len_mean": _metric(r, "env_runners", "episode_len_mean"),
            }
            if eval_every > 0 and ((i + 1) % eval_every == 0 or i + 1 == iterations):
                export(algo.learner_group.get_weights()[module_id], path, env_id, high)
                row.update(evaluate(path, env_id, params, eval_episodes, eval_opponent))
                row["exported"] = path
            out.append(row)
            print(json.dumps(out[-1]), flush=True)
    finally:
        algo.stop()
    return out


def _runner_cpu_seconds() -> float:
    """CPU seconds used so far by this process (an EnvRunner) and by its
    private galaxygym server, if it started one (Linux: /proc)."""
    total = time.process_time()
    server = galaxygym._server._server
    if server is not None:
        try:
            with open(f"/proc/{server.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def bench(cfg: Any, seconds: float) -> dict[str, float]:
    """Env steps per second collected by the EnvRunners (sampling only:
    ``sample()`` on every remote EnvRunner in parallel, the policy's
    forward pass included, no learning), over about ``seconds`` after one
    warm-up round; and the env steps per CPU-second the EnvRunner processes
    and their galaxygym servers used (on a machine shared with other work,
    the figure that does not depend on the others' load)."""
    algo = cfg.build_algo()
    try:
        group = algo.env_runner_group

        def cpu() -> float:
            if group.num_remote_env_runners() == 0:
                return _runner_cpu_seconds()
            return sum(group.foreach_env_runner(lambda r: _runner_cpu_seconds(), local_env_runner=False))

        def one_round() -> int:
            if group.num_remote_env_runners() == 0:
                eps = group.local_env_runner.sample()
            else:
                eps = [e for lst in group.foreach_env_runner(lambda r: r.sample(), local_env_runner=False)
                       for e in lst]
            return sum(len(e) for e in eps)

        one_round()  # warm-up: servers started, first episodes reset
        steps, c0, t0 = 0, cpu(), time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            steps += one_round()
        dt = time.perf_counter() - t0
        used = cpu() - c0
        return {"env_steps": float(steps), "seconds": dt, "env_steps_per_s": steps / dt,
                "runner_cpu_seconds": used, "env_steps_per_cpu_s": steps / used if used > 0 else float("nan")}
    finally:
        algo.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="galaxy-express-v1", help="galaxygym environment id")
    p.add_argument("--players", type=int, default=None, help="players (multiplayer games)")
    p.add_argument("--url", default=os.environ.get("GALAXYGYM_URL"),
                   help="a galaxygym serve URL (default: a private server per EnvRunner process)")
    p.add_argument("--env-runners", type=int, default=1)
    p.add_argument("--envs-per-runner", type=int, default=1)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--train-batch", type=int, default=512)
    p.add_argument("--minibatch", type=int, default=128)
    p.add_argument("--rollout", type=int, default=64, help="rollout fragment length")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-every", type=int, default=5,
                   help="iterations between evaluations of the learner (and after the last); 0: none")
    p.add_argument("--eval-episodes", type=int, default=100, help="games per evaluation")
    p.add_argument("--eval-opponent", default="heuristic", help="the agent in every other seat at evaluation")
    p.add_argument("--export", default=None, help="the exported policy (default: rllib-ENV.npz)")
    p.add_argument("--bench", default=None, help="comma-separated EnvRunner counts: measure steps/s, no training")
    p.add_argument("--bench-seconds", type=float, default=20.0)
    a = p.parse_args(argv)

    import ray

    params = {"players": a.players} if a.players else {}
    ray.init(num_cpus=max(2, (max(int(x) for x in a.bench.split(",")) if a.bench else a.env_runners) + 1),
             include_dashboard=False, log_to_driver=True)
    try:
        if a.bench:
            for n in (int(x) for x in a.bench.split(",")):
                # RLlib checks that one training batch is whole rollouts.
                batch = max(1, n) * a.envs_per_runner * a.rollout
                cfg = build_config(a.env, params=params, url=a.url, env_runners=n,
                                   envs_per_runner=a.envs_per_runner, rollout_len=a.rollout,
                                   train_batch=batch, minibatch=min(batch, a.minibatch), seed=a.seed)
                r = bench(cfg, a.bench_seconds)
                print(json.dumps({"env": a.env, "env_runners": n, "envs_per_runner": a.envs_per_runner,
                                  "rollout": a.rollout, **r}), flush=True)
            return 0
        cfg = build_config(a.env, params=params, url=a.url, env_runners=a.env_runners,
                           envs_per_runner=a.envs_per_runner, rollout_len=a.rollout,
                           train_batch=a.train_batch, minibatch=a.minibatch, seed=a.seed)
        train(cfg, a.iterations, eval_every=a.eval_every, eval_episodes=a.eval_episodes,
              eval_opponent=a.eval_opponent, export_path=a.export)
        return 0
    finally:
        ray.shutdown()


if __name__ == "__main__":
    sys.exit(main())
