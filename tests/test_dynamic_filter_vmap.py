"""The tenth judgement's false JAX205 (diffrax `sde_example.py`): an `eqx.filter_jit` over
`jax.vmap` traces the vmapped function, so jaxlint's own trace must keep the vmap. Real
`jaxlint record`, then `jaxlint check --dynamic`."""
from __future__ import annotations

import importlib.util

import pytest

from helpers import json_findings, run_cli

pytestmark = pytest.mark.skipif(importlib.util.find_spec("equinox") is None, reason="needs equinox")

PROGRAM = '''
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp


@eqx.filter_jit
@partial(jax.vmap, in_axes=(0, None))
def batch_solve(key, scale):
    a, b = jax.random.split(key)  # one key here: the vmap maps the batch of keys
    return jax.random.normal(a, (3,)) * scale + jax.random.normal(b, (3,))


if __name__ == "__main__":
    keys = jax.random.split(jax.random.key(0), 5)
    for _ in range(2):
        batch_solve(keys, 2.0)
'''


def test_a_filter_jit_over_vmap_is_traced_with_its_vmap(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "run.py").write_text(PROGRAM.lstrip("\n"))
    rec = run_cli("record", "--", "python", "run.py", cwd=tmp_path, timeout=600)
    assert rec.returncode == 0, rec.stderr[-3000:]
    check = run_cli("check", "--dynamic", "--no-cache", "--show-skipped", "--output-format", "json", "run.py",
                    cwd=tmp_path, timeout=600)
    found = json_findings(check)
    # without the vmap, `jax.random.split` is given the (5,)-key batch and the trace fails
    assert not [d for d in found if d["code"] == "JAX205"], check.stdout[-3000:]
    assert "split accepts a single key" not in check.stdout + check.stderr
