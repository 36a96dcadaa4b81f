"""Gymnasium registration of every galaxygym environment.

``import galaxygym`` registers each environment id of the server under the
``galaxygym`` namespace, its name in CamelCase: ``galaxy-express-v1`` is
``"galaxygym/GalaxyExpress-v1"``, ``pilots-of-gallaxia-v1``
``"galaxygym/PilotsOfGallaxia-v1"``. ``gymnasium.make`` then builds a
:class:`galaxygym.GalaxyGymEnv` and ``gymnasium.make_vec`` a
:class:`galaxygym.GalaxyGymVectorEnv` (one connection). Gymnasium 1.x no
longer loads plugins at its own import, so import galaxygym first, or name
the module in the id: ``gymnasium.make("galaxygym:galaxygym/GalaxyExpress-v1")``.

The ids come from the server binary, so a new game needs no Python edit:
the table ``_envs.json`` that the wheel build writes from the binary it
packs (``galaxygym envs --json``), else the binary itself (a checkout:
``$GALAXYGYM_BIN`` or ``bin/galaxygym``, about 10 ms), else the ids this
release knew (:data:`KNOWN_IDS`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import gymnasium

from . import _server

__all__ = ["KNOWN_IDS", "NAMESPACE", "gym_id", "env_ids", "register_envs"]

#: The namespace of galaxygym's Gymnasium ids.
NAMESPACE = "galaxygym"

#: The ids registered when neither a table nor a binary is at hand.
KNOWN_IDS = ("galaxy-express-v1", "galaxy-fighters-v1", "galaxy-fighters-v2")

_TABLE = Path(__file__).resolve().parent / "_envs.json"


def gym_id(env_id: str) -> str:
    """The Gymnasium id of a galaxygym id: ``"galaxy-express-v1"`` ->
    ``"galaxygym/GalaxyExpress-v1"``."""
    name, sep, version = env_id.rpartition("-v")
    if not sep or not version.isdigit():
        raise ValueError(f"environment id {env_id!r} has no -v<N> version suffix")
    return f"{NAMESPACE}/{''.join(w.capitalize() for w in name.split('-'))}-v{version}"


def _specs_from_binary() -> list[dict[str, Any]] | None:
    try:
        binary = _server.binary_path()
        out = subprocess.run([binary, "envs", "--json"], capture_output=True, timeout=30, check=True).stdout
        specs = json.loads(out)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return specs if isinstance(specs, list) else None


def env_ids() -> list[str]:
    """The galaxygym environment ids to register (see the module doc)."""
    specs: list[dict[str, Any]] | None = None
    if _TABLE.is_file():
        try:
            specs = json.loads(_TABLE.read_text())
        except ValueError:
            specs = None
    if specs is None:
        specs = _specs_from_binary()
    if not specs:
        return list(KNOWN_IDS)
    return [str(s["id"]) for s in specs]


def register_envs() -> list[str]:
    """Registers every environment id with Gymnasium (again is a no-op);
    returns the Gymnasium ids."""
    ids = []
    for env_id in env_ids():
        gid = gym_id(env_id)
        ids.append(gid)
        if gid in gymnasium.registry:
            continue
        gymnasium.register(
            id=gid,
            entry_point="galaxygym.env:GalaxyGymEnv",
            vector_entry_point="galaxygym.vector:GalaxyGymVectorEnv",
            kwargs={"env_id": env_id},
        )
    return ids
