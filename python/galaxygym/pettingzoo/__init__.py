"""PettingZoo-style modules, one per environment id, made on demand:
``galaxy-fighters-v1`` is ``galaxygym.pettingzoo.galaxy_fighters_v1``.

>>> from galaxygym.pettingzoo import galaxy_fighters_v1      # doctest: +SKIP
>>> env = galaxy_fighters_v1.env(players=4)                  # doctest: +SKIP

Each module has, as PettingZoo's own game modules do:

- ``env(**kwargs)``: the AEC environment (:class:`galaxygym.GalaxyGymAECEnv`)
  in PettingZoo's ``OrderEnforcingWrapper`` (``raw_env`` without it);
- ``parallel_env(**kwargs)``: the Parallel API through PettingZoo's
  ``turn_based_aec_to_parallel`` (every galaxygym game is turn-based: each
  parallel step carries the one acting agent's move; the others' actions
  are ignored);
- ``ENV_ID`` and ``metadata``.

kwargs are :func:`galaxygym.aec_env`'s: the environment parameters
(``players=4``, ``mission="ace"``), ``render_mode``, ``url``, ``flat``,
``illegal_action``. The modules come from the environment ids of the
server binary (galaxygym._registration.env_ids), so a new game needs no
Python edit; ``module(env_id)`` builds one for any id a server offers.
``import galaxygym.pettingzoo.express_v2`` works in a fresh process too
(Ray's workers unpickling an env creator): importing this package installs
an import finder that builds the module of any id the server lists.
``help()`` on a module or its functions shows the game's summary, its
parameters with their ranges and defaults (also in the functions'
signatures) and the observation, from the server's spec.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import inspect
import sys
import types
from typing import Any, Sequence

__all__ = ["module", "module_name"]


def module_name(env_id: str) -> str:
    """The module name of an environment id: dashes become underscores."""
    return env_id.replace("-", "_")


def module(env_id: str) -> types.ModuleType:
    """The PettingZoo-style module of env_id (built once, then cached in
    sys.modules as galaxygym.pettingzoo.<name>)."""
    full = f"{__name__}.{module_name(env_id)}"
    if full in sys.modules:
        return sys.modules[full]
    from .._registration import describe, spec_of
    spec = spec_of(env_id)
    about = describe(spec) if spec is not None else f"The galaxygym environment {env_id} (its spec: galaxygym.list_envs()).\n"
    mod = types.ModuleType(full, f"PettingZoo-style module of the galaxygym environment {env_id}.\n\n{about}")

    def raw_env(**kwargs: Any) -> Any:
        from ..aec import GalaxyGymAECEnv
        return GalaxyGymAECEnv(env_id, **kwargs)

    def env(**kwargs: Any) -> Any:
        from pettingzoo.utils.wrappers import OrderEnforcingWrapper
        return OrderEnforcingWrapper(raw_env(**kwargs))

    def parallel_env(**kwargs: Any) -> Any:
        from pettingzoo.utils.conversions import turn_based_aec_to_parallel
        return turn_based_aec_to_parallel(raw_env(**kwargs))

    for f in (raw_env, env, parallel_env):
        f.__module__ = full
        f.__qualname__ = f.__name__
    common = ("\nOther keywords: url (a running galaxygym serve; default the private local server), "
              "render_mode ('ansi', 'rgb_array' or 'human'), flat (Box observations, masks in infos), "
              "illegal_action ('terminate' or 'raise').\n\n")
    raw_env.__doc__ = (f"The {env_id} AEC environment, unwrapped (galaxygym.aec_env({env_id!r}, **kwargs)).\n"
                       + common + about)
    env.__doc__ = f"The {env_id} AEC environment in PettingZoo's OrderEnforcingWrapper.\n" + common + about
    parallel_env.__doc__ = (f"The {env_id} environment with the Parallel API (turn_based_aec_to_parallel).\n"
                            + common + about)
    sig = _signature(spec)
    for f in (raw_env, env, parallel_env):
        f.__signature__ = sig  # type: ignore[attr-defined]
    mod.raw_env, mod.env, mod.parallel_env = raw_env, env, parallel_env  # type: ignore[attr-defined]
    mod.ENV_ID = env_id  # type: ignore[attr-defined]
    mod.metadata = {"name": env_id, "is_parallelizable": True}  # type: ignore[attr-defined]
    mod.__all__ = ["env", "raw_env", "parallel_env", "ENV_ID", "metadata"]  # type: ignore[attr-defined]
    sys.modules[full] = mod
    return mod


def _signature(spec: dict[str, Any] | None) -> inspect.Signature:
    """Keyword-only parameters: the game's, with their defaults, then the
    client's; **kwargs stays for parameters a newer server adds."""
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter(p["name"], kw, default=p.get("default"))
              for p in (spec or {}).get("params") or [] if str(p.get("name", "")).isidentifier()]
    params += [inspect.Parameter("url", kw, default=None), inspect.Parameter("render_mode", kw, default=None),
               inspect.Parameter("flat", kw, default=False),
               inspect.Parameter("illegal_action", kw, default="terminate"),
               inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)]
    return inspect.Signature(params)


def _names() -> dict[str, str]:
    from .._registration import env_ids
    return {module_name(i): i for i in env_ids()}


def __getattr__(name: str) -> types.ModuleType:
    ids = _names()
    if name not in ids:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} (environments: {sorted(ids)})")
    return module(ids[name])


def __dir__() -> list[str]:
    return sorted([*globals(), *_names()])


class _Loader(importlib.abc.Loader):
    """Loads galaxygym.pettingzoo.<name> by building module(env_id)."""

    def __init__(self, env_id: str) -> None:
        self.env_id = env_id

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return module(self.env_id)

    def exec_module(self, mod: types.ModuleType) -> None:
        pass


class _Finder(importlib.abc.MetaPathFinder):
    """Finds galaxygym.pettingzoo.<name> for every environment id the
    server lists, so that the import statement (and pickle, by reference)
    works in any process: no file per game."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        prefix = __name__ + "."
        if not fullname.startswith(prefix) or "." in fullname[len(prefix):]:
            return None
        tail = fullname[len(prefix):]
        if tail.startswith("_"):
            return None
        env_id = _names().get(tail)
        if env_id is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(env_id))


if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.append(_Finder())
