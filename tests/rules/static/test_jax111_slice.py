"""JAX111 data-dependent-shape: a slice bound computed from a traced value (tests beyond
the rule's VALID/INVALID examples), checked under real jax."""
from __future__ import annotations

import textwrap

import pytest

from helpers import lines

_SRC = """
import jax
import jax.numpy as jnp

def compute(n, P, rhs):
    nvar = P.shape[1]
    return rhs[0:n * nvar]

compute_jit = jax.jit(compute)

@jax.jit
def fine(x):
    n = x.shape[0] // 2
    return x[1:n], x[:, 0:2]

def main():
    return compute_jit(2, jnp.ones((5, 3)), jnp.ones(8))
"""


def test_jax111_a_traced_slice_bound_is_flagged_and_a_static_one_is_not():
    assert lines("JAX111", _SRC) == [6]


def test_jax111_a_traced_slice_bound_really_fails_and_a_static_one_runs():
    import jax.numpy as jnp

    ns: dict = {}
    exec(compile(textwrap.dedent(_SRC), "m.py", "exec"), ns)
    with pytest.raises(IndexError):
        ns["main"]()
    a, b = ns["fine"](jnp.ones((6, 4)))
    assert a.shape == (2, 4) and b.shape == (6, 2)
