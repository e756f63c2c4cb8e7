"""JAX211 constant-random-key: tests beyond the rule's VALID/INVALID examples (which
tests/test_dynamic_rule_examples.py runs; a recorded program's key is in
tests/test_dynamic_causes.py): keys followed through loops, branches and several draws,
in one real `check --dynamic` run."""
from __future__ import annotations

from helpers import json_findings, run_cli

KEYS = '''
import jax
import jax.numpy as jnp


@jax.jit  # jaxlint: args=(f32[8],)
def two_draws(x):
    key = jax.random.PRNGKey(7)  # JAX211
    a = jax.random.normal(key, x.shape)
    b = jax.random.uniform(jax.random.split(key)[0], x.shape)
    return x + a + b


@jax.jit  # jaxlint: args=(f32[8],)
def per_iteration(x):
    def body(i, acc):
        return acc + jax.random.normal(jax.random.fold_in(jax.random.PRNGKey(1), i), acc.shape)  # JAX211
    return jax.lax.fori_loop(0, 4, body, x)


@jax.jit  # jaxlint: args=(f32[8], u32[2], i32[])
def from_arguments(x, key, flag):
    def noisy(k):
        return x + jax.random.normal(k, x.shape)
    k = jax.lax.cond(flag > 0, lambda: key, lambda: jax.random.fold_in(key, 1))
    return noisy(k)


@jax.jit  # jaxlint: args=(f32[8], u32[2])
def carried(x, key):
    def body(k, row):
        k, sub = jax.random.split(k)
        return k, row + jax.random.normal(sub, row.shape)
    return jax.lax.scan(body, key, x[None])[1]
'''


def test_keys_followed_through_loops_branches_and_several_draws(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nselect = ["JAX211"]\n')
    (tmp_path / "keys.py").write_text(KEYS.lstrip("\n"))
    proc = run_cli("check", "--dynamic", "--no-cache", "--output-format", "json", "keys.py", cwd=tmp_path, timeout=300)
    found = json_findings(proc, "JAX211")
    marked = [i for i, line in enumerate(KEYS.lstrip("\n").splitlines(), 1) if line.endswith("# JAX211")]
    assert sorted(d["location"]["row"] for d in found) == marked, proc.stderr
    two = next(d for d in found if d["location"]["row"] == marked[0])
    assert two["data"]["draws"] == 2 and two["data"]["seed"] == 7
    assert [r["location"]["row"] for r in two["related"]] == two["data"]["draw_lines"] == [marked[0] + 1, marked[0] + 2]
