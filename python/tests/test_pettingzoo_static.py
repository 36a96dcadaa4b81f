"""The per-game PettingZoo modules import in a fresh process (the package's
import finder builds them from the server's ids: no file per game), and an
env creator pickled by reference unpickles there (what Ray's workers do)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

import galaxygym


@pytest.mark.parametrize("env_id", sorted(s["id"] for s in galaxygym.list_envs()))
def test_import_in_fresh_process(env_id, tmp_path):
    name = env_id.replace("-", "_")
    # In a fresh process the import statement alone finds the module (in this
    # one an earlier galaxygym.pettingzoo.module() call may have built it already).
    check = (f"import galaxygym.pettingzoo.{name} as m; "
             f"assert m.ENV_ID == {env_id!r} and m.env.__module__ == m.__name__, m")
    subprocess.run([sys.executable, "-c", check], check=True, capture_output=True)
    mod = __import__(f"galaxygym.pettingzoo.{name}", fromlist=["env"])
    assert mod.ENV_ID == env_id
    blob = tmp_path / "creator.pkl"
    blob.write_bytes(pickle.dumps(mod.env))
    code = ("import pickle, sys; f = pickle.loads(open(sys.argv[1], 'rb').read()); e = f(); "
            "e.reset(seed=0); print(f.__module__, len(e.agents)); e.close()")
    out = subprocess.run([sys.executable, "-c", code, str(blob)], check=True, capture_output=True, text=True).stdout
    assert out.split()[0] == f"galaxygym.pettingzoo.{name}" and int(out.split()[1]) >= 1
