"""The contents of the static per-environment modules: each file of this
package named after an id (express_v2.py) fills itself with what
galaxygym.pettingzoo.module builds for that id."""

from __future__ import annotations

import sys

__all__ = ["fill"]


def fill(name: str, env_id: str) -> None:
    """Copies module(env_id)'s attributes into the module being imported as
    name, which then stays the one in sys.modules (the functions' __module__
    names it, so pickle finds them by reference)."""
    from . import module

    me = sys.modules[name]
    del sys.modules[name]  # module() builds a fresh one instead of returning this half-made module
    try:
        built = module(env_id)
    finally:
        sys.modules[name] = me
    for k, v in vars(built).items():
        if k in ("__name__", "__loader__", "__spec__", "__package__", "__file__", "__path__", "__builtins__"):
            continue
        setattr(me, k, v)
    for f in ("raw_env", "env", "parallel_env"):
        getattr(me, f).__module__ = name
