"""JAX113 and ``nnx.jit``'s donation (blind51's false class): nnx.jit writes a donated
graph object's new state back into it when the call returns, so reading or passing it again
is fine, while the same read after ``jax.jit`` donated the array is the error JAX113 names.
Both halves run under real jax/flax and through the real CLI."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

nnx = pytest.importorskip("flax.nnx")

NNX_STEP = textwrap.dedent("""
    import jax.numpy as jnp
    import optax
    from flax import nnx

    @nnx.jit(donate_argnames=("optimizer",))
    def step(optimizer, x):
        grads = nnx.grad(lambda m: (m(x) ** 2).mean())(optimizer.model)
        optimizer.update(grads)

    def train(optimizer, x):
        for _ in range(3):
            step(optimizer, x)
        return optimizer.step.value

    if __name__ == "__main__":
        opt = nnx.ModelAndOptimizer(nnx.Linear(2, 2, rngs=nnx.Rngs(0)), optax.sgd(0.1))
        print(int(train(opt, jnp.ones((3, 2)))))
""")

JAX_STEP = textwrap.dedent("""
    import functools
    import jax
    import jax.numpy as jnp

    @functools.partial(jax.jit, donate_argnums=0)
    def step(state, x):
        return state + x

    def train(state, x):
        new = step(state, x)
        return new + state.sum()

    if __name__ == "__main__":
        train(jnp.ones(4), jnp.ones(4))
""")


def _jax113(tmp_path, text):
    (tmp_path / "prog.py").write_text(text)
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, "-m", "jaxlint", "check", "--isolated", "--no-cache", "--select", "JAX113",
                    "--output-format", "json", "-o", str(out), "--exit-zero", "prog.py"], cwd=tmp_path, check=True)
    return [(f["code"], f["location"]["row"]) for f in json.loads(out.read_text())]


def test_a_donated_nnx_object_is_written_back_and_not_reported(tmp_path):
    assert _jax113(tmp_path, NNX_STEP) == []
    run = subprocess.run([sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "3", run.stderr  # three donated steps, state read


def test_a_donated_array_read_after_jax_jit_is_reported(tmp_path):
    assert _jax113(tmp_path, JAX_STEP) == [("JAX113", 12)]
    run = subprocess.run([sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "deleted" in run.stderr, run.stderr
