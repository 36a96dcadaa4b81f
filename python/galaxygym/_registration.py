"""Gymnasium registration of every galaxygym environment.

``import galaxygym`` registers each environment id of the server under the
``galaxygym`` namespace, its name in CamelCase: ``galaxy-express-v1`` is
``"galaxygym/GalaxyExpress-v1"``, ``pilots-of-gallaxia-v1``
``"galaxygym/PilotsOfGallaxia-v1"``. ``gymnasium.make`` then builds a
:class:`galaxygym.GalaxyGymEnv` and ``gymnasium.make_vec`` a
:class:`galaxygym.GalaxyGymVectorEnv` (one connection). Gymnasium 1.x no
longer loads plugins at its own import, so import galaxygym first, or name
the module in the id: ``gymnasium.make("galaxygym:galaxygym/GalaxyExpress-v1")``.

The ids and their specs come from the server, so a new game needs no
Python edit: the table ``_envs.json`` that the wheel build writes from the
binary it packs (``galaxygym envs --json``), else the binary itself (a
checkout: ``$GALAXYGYM_BIN`` or ``bin/galaxygym``, about 10 ms), else the
server at ``$GALAXYGYM_URL``; with none of them nothing is registered
(``register_envs(url)`` registers a server's ids later). No id is written
in Python.

:func:`describe` turns a spec into the text that ``help()`` shows for the
PettingZoo modules (``galaxygym.pettingzoo``): the game's summary, its
parameters with ranges and defaults, the observation and, when the server
describes it, the observation's layout.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import gymnasium

from . import _server

__all__ = ["NAMESPACE", "gym_id", "env_ids", "specs", "spec_of", "describe", "register_envs"]

#: The namespace of galaxygym's Gymnasium ids.
NAMESPACE = "galaxygym"

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


def _specs_from_url(url: str) -> list[dict[str, Any]] | None:
    from ._client import Session  # the websocket client, imported only when needed
    from .errors import GalaxyGymError
    try:
        with Session(url, timeout=5.0) as s:
            return s.list_envs()
    except (GalaxyGymError, OSError):
        return None


_cache: list[dict[str, Any]] | None = None


def specs() -> list[dict[str, Any]]:
    """The server's specs of every environment (``galaxygym envs --json``),
    from the first source that answers (see the module doc); [] when none
    does. Read once per process."""
    global _cache
    if _cache is not None:
        return _cache
    found: list[dict[str, Any]] | None = None
    if _TABLE.is_file():
        try:
            found = json.loads(_TABLE.read_text())
        except ValueError:
            found = None
    if not found:
        found = _specs_from_binary()
    if not found and os.environ.get("GALAXYGYM_URL"):
        found = _specs_from_url(os.environ["GALAXYGYM_URL"])
    _cache = [s for s in found or [] if isinstance(s, dict) and "id" in s]
    return _cache


def spec_of(env_id: str) -> dict[str, Any] | None:
    """The spec of env_id from :func:`specs`, or None."""
    return next((s for s in specs() if s["id"] == env_id), None)


def env_ids() -> list[str]:
    """The galaxygym environment ids to register (see the module doc)."""
    return [str(s["id"]) for s in specs()]


def _param_line(p: dict[str, Any]) -> str:
    kind = p.get("kind", "")
    if p.get("choices"):
        what = "one of " + ", ".join(repr(c) for c in p["choices"])
    elif kind in ("int", "float"):
        lo, hi = p.get("min", 0), p.get("max")  # the server omits a zero minimum
        what = f"{kind} in [{lo}, {hi}]" if hi is not None else f"{kind} >= {lo}"
    else:
        what = kind
    return f"    {p['name']}={p.get('default')!r}: {what}. {p.get('doc', '')}".rstrip()


def _layout_lines(layout: Any) -> list[str]:
    """The observation layout as the server describes it: a mapping (or a
    list of entries with a ``name``) of name -> offset, shape, meaning."""
    items = layout.items() if isinstance(layout, dict) else [(e.get("name", "?"), e) for e in layout or []]
    out = []
    for name, f in items:
        if isinstance(f, dict):
            shape = "x".join(str(d) for d in f.get("shape", [])) or "1"
            meaning = f.get("meaning") or f.get("doc") or ""
            out.append(f"    {name}: offset {f.get('offset')}, shape {shape}. {meaning}".rstrip())
        else:
            out.append(f"    {name}: {f}")
    return out


def describe(spec: dict[str, Any]) -> str:
    """The text of a spec that help() shows: name and id, the server's
    summary, players, parameters (default, range or choices, meaning),
    observation (shape, dtype, layout when the spec has
    ``observation_layout``), actions and rewards."""
    lines = [f"{spec.get('name', spec['id'])} ({spec['id']}).", ""]
    if spec.get("description"):
        lines += [str(spec["description"]), ""]
    lo, hi = spec.get("min_players"), spec.get("max_players")
    if lo is not None and hi is not None:
        players = str(lo) if lo == hi else f"{lo}-{hi}, default {spec.get('num_players')}"
        lines += [f"Players: {players}.", ""]
    params = spec.get("params") or []
    if params:
        lines.append("Parameters (keyword arguments; name=default: range. meaning):")
        lines += [_param_line(p) for p in params]
        lines.append("")
    shape = "x".join(str(d) for d in spec.get("obs_shape", []))
    lines.append(f"Observation: {spec.get('obs_dtype', 'uint8')} array of shape ({shape}), seen by the player to act.")
    layout = spec.get("observation_layout")
    if layout:
        lines.append("Observation layout (name: offset, shape. meaning):")
        lines += _layout_lines(layout)
    if spec.get("action_names") is not None:
        lines.append(f"Actions: Discrete({len(spec['action_names'])}), with a legal-action mask.")
    if spec.get("reward_range") is not None:
        lines.append(f"Step rewards in {spec['reward_range']}, returns in {spec.get('return_range')}.")
    return "\n".join(lines).rstrip() + "\n"


def register_envs(url: str | None = None) -> list[str]:
    """Registers every environment id with Gymnasium (again is a no-op);
    returns the Gymnasium ids. With url, the ids of the server there (its
    ``list_envs``), else those of :func:`env_ids`."""
    ids = []
    if url is not None:
        from ._client import Session
        with Session(url) as s:
            listed = [str(spec["id"]) for spec in s.list_envs()]
    else:
        listed = env_ids()
    for env_id in listed:
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
