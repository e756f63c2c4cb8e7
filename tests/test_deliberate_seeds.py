"""Issue 37: a fixed seed in a function the program calls once (a model's init) is the
documented pattern, not key reuse: JAX211 drops it when the recording saw one call, and
still reports a step the program calls many times. A fixed-seed draw that only makes an
initial value the step then discards (numpyro's `param(name, init_value=...)` inside
`SVI.update`) is dead code in the step: quiet too. Real `jaxlint record` and `check`, with
the recording's observations (as written) and with the worker tracing again after an edit."""
from __future__ import annotations


import pytest

from helpers import run_cli

pytest.importorskip("jax")
pytest.importorskip("flax")

PROGRAM = '''
import jax
import jax.numpy as jnp
from flax import nnx


class Model(nnx.Module):
    def __init__(self, rngs):
        self.dense = nnx.Linear(4, 4, rngs=rngs)


@nnx.jit
def create_model():
    return Model(nnx.Rngs(0))  # the documented reproducible init


@jax.jit
def init(x):
    key = jax.random.key(0)
    return x + jax.random.normal(key, x.shape)


@jax.jit
def noisy_step(x):
    key = jax.random.PRNGKey(0)  # the same noise on every step
    return x + jax.random.normal(key, x.shape)


def param(store, name, init_value):
    return store.get(name, init_value)  # as numpyro's `param`: the initial value only when there is none


@jax.jit
def update(store, g):
    w = param(store, "w", init_value=jax.random.normal(jax.random.PRNGKey(1), (4,)))  # discarded
    return {"w": w - 0.1 * g}


if __name__ == "__main__":
    model = create_model()
    x = init(jnp.zeros(4))
    store = {"w": jnp.ones(4)}
    for _ in range(3):
        x = noisy_step(x)
        store = update(store, x)
    print(float(x.sum()))
'''


def _jax211(root, observed: bool) -> list[int]:
    import re

    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "concise", "prog.py", cwd=root, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    # from the recording's observations, or (the code changed) traced again by workers
    assert ("4 observed functions (1 finding) out of date" not in proc.stdout) is observed, proc.stdout
    return sorted(int(m.group(1)) for m in re.finditer(r"^prog\.py:(\d+):\d+: JAX211", proc.stdout, re.M))


def test_a_fixed_seed_in_a_function_called_once_is_quiet_and_in_a_step_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX211"]\n')
    (tmp_path / "prog.py").write_text(PROGRAM.lstrip())
    rec = run_cli("record", "--", "python", "prog.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-2000:]
    step = PROGRAM.lstrip().splitlines().index("    key = jax.random.PRNGKey(0)  # the same noise on every step") + 1
    assert _jax211(tmp_path, observed=True) == [step]
    edited = (PROGRAM.lstrip().replace("return x + jax.random.normal(", "return x + 1.0 * jax.random.normal(")
              .replace("return Model(nnx.Rngs(0))", "return Model(rngs=nnx.Rngs(0))")
              .replace("w - 0.1 * g", "w - 0.2 * g"))
    (tmp_path / "prog.py").write_text(edited)  # every function changed, on the same lines
    assert _jax211(tmp_path, observed=False) == [step]
