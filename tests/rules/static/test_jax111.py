"""JAX111 data-dependent-shape: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

from helpers import lines


def test_jax111_size_none_is_still_data_dependent_and_three_argument_where_is_fine():
    assert lines("JAX111", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            a = jnp.nonzero(x, size=None)
            b = jnp.where(x > 0, x, 0.0)
            c = jnp.where(x > 0, size=3)
            return a, b, c
        """) == [6]


def test_jax111_mask_from_a_static_shape_or_a_string_compare_is_quiet():
    assert lines("JAX111", """
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames="mode")
        def f(x, mode):
            m = x.ndim > 1
            return x[m], x[mode == "a"]
        """) == []


def test_jax111_unique_of_a_constant_jnp_array_is_still_traced_under_jit():
    # jnp.arange(4) is staged out under jit, so jnp.unique of it cannot be traced either
    assert lines("JAX111", """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def f(x):
            return x + jnp.unique(jnp.arange(4)).sum() + np.unique(np.arange(4)).sum()
        """) == [7]


def test_jax111_boolean_mask_in_a_vmapped_function():
    assert lines("JAX111", """
        import jax

        def per_row(row):
            return row[row != 0].sum()

        batched = jax.vmap(per_row)
        """) == [4]
