"""Trials of `jaxlint record` on real programs: jitted bound methods.

Game libraries (and environments, simulators, buffers) jit the methods of one base
class on many instances: `init = jax.jit(env.init)` for each environment of a test
suite, `jax.jit(small.step)` and `jax.jit(big.step)`. Each instance is baked into its
own jitted function, so jax compiles one program per instance. The recorder took them
for one function: the second instance's calls were never analysed (a constant it
captures went unreported), and JAX208 said the "same signature" was compiled again
because each call made a new jitted function. Real `record`, real jax."""
from __future__ import annotations

import json

from helpers import marked, run_cli


GAMES = '''
import jax
import jax.numpy as jnp
import numpy as np


class Game:
    """Every game's init and step are the base class's methods; the rules differ."""

    def __init__(self, size):
        self.size = size
        self.table = jnp.asarray(np.linspace(0.0, 1.0, size * size, dtype=np.float32).reshape(size, size))

    def init(self, key):
        return jax.random.uniform(key, (4,)) * 0.0

    def step(self, state, action):
        return state + self.table[action % self.size, :4].sum()  # JAX201


small, big = Game(8), Game(1024)
small_init, big_init = jax.jit(small.init), jax.jit(big.init)
small_step, big_step = jax.jit(small.step), jax.jit(big.step)


def rejit(key):
    for _ in range(3):
        jax.jit(small.init)(key)


def main():
    key = jax.random.PRNGKey(0)
    for i in range(5):
        for init, step in ((small_init, small_step), (big_init, big_step)):
            s = init(key)
            s = step(s, jnp.int32(i))
    rejit(key)
    print("done", float(s.sum()))


if __name__ == "__main__":
    main()
'''


def test_each_instance_s_jitted_method_is_its_own_function(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "games.py").write_text(GAMES)
    rec = run_cli("record", "--compile", "--", "python", "games.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    assert "done" in rec.stdout
    check = run_cli("check", "--dynamic", "--compile", "--no-cache", "--output-format", "json", cwd=tmp_path,
                    timeout=600)
    found = {(d["filename"], d["location"]["row"], d["code"]) for d in json.loads(check.stdout or "[]")
             if d["code"][:4] in ("JAX2", "JAX3")}
    # the big game's table is found although the small game's step, the same method
    # with the same signature, ran first; the jits made once per game are no
    # recompilation
    assert found == marked(tmp_path, r"JAX[23]\d\d"), check.stdout[-3000:]
    # the constant is named as the method reads it, and where the instance set it is related
    [captured] = [d for d in json.loads(check.stdout) if d["code"] == "JAX201"]
    assert "captured array `self.table`" in captured["message"], captured["message"]
    assert [(r["location"]["row"], r["message"]) for r in captured["related"]][:1] == [
        (12, "`self.table` is assigned here")], captured["related"]
    observed = json.loads((tmp_path / ".jaxlint" / "observed.json").read_text())["functions"]
    step = observed["games:Game.step"]
    # both instances' steps were traced and compiled for the program's own calls
    assert sorted(s["bound"]["instance"] for s in step["signatures"]) == [1, 2]
    assert all(s["compiles"] == 1 and s["calls"] == 5 for s in step["signatures"])
    # a bound method jitted again in a loop is the same instance's function: jax finds
    # the equal bound method in its cache and compiles nothing new
    init = {s["bound"]["instance"]: (s["calls"], s["compiles"]) for s in observed["games:Game.init"]["signatures"]}
    assert init == {1: (8, 1), 2: (5, 1)}
