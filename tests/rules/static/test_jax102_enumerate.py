"""JAX102 python-loop-in-jit: a loop over ``enumerate(x)`` runs as many times as one over
``x`` (tests beyond the rule's VALID/INVALID examples)."""
from __future__ import annotations

from helpers import lines


def test_jax102_enumerate_of_a_range_is_sized_like_the_range():
    assert lines("JAX102", """
        from functools import partial
        import jax
        import jax.numpy as jnp

        @partial(jax.jit, static_argnums=(0,))
        def weights(L):
            w = jnp.zeros(2 * L - 1)
            for i, p in enumerate(range(-(L - 1), L)):
                w = w.at[i].set(p * 2.0)
            return w

        @jax.jit
        def big(x):
            for i, p in enumerate(range(5000), start=1):
                x = x + p * i
            return x

        @jax.jit
        def small(x):
            for i, p in enumerate(range(3)):
                x = x + p * i
            return x
        """) == [8, 14]


def test_jax102_enumerate_of_a_short_tuple_is_quiet():
    assert lines("JAX102", """
        import jax

        @jax.jit
        def f(x):
            for i, s in enumerate((1.0, 2.0)):
                x = x * s + i
            return x
        """) == []
