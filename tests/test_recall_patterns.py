"""Patterns found missing on public JAX bug reports (benchmarks/recall_reports.md), each
written as a minimal program in our own words. Each test runs the program with real jax
(on CPU, in this process: the static phase never imports it, the test does) to prove
that the finding's claim holds, then checks that the static phase reports it, and that
the nearby correct program is left alone."""
from __future__ import annotations

import textwrap

import pytest

from helpers import lines


def _run(src: str) -> dict:
    scope: dict = {}
    exec(compile(textwrap.dedent(src), "<recall>", "exec"), scope)  # noqa: S102 - our own test program
    return scope


SHAPE_FROM_ARG = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def padded(values, width):
        return jnp.zeros((width, values.shape[-1]))

    @jax.jit
    def labels(ids, n_classes):
        return jax.nn.one_hot(ids, n_classes)

    @jax.jit
    def keys(key, n):
        return jax.random.split(key, n)
    """


def test_jax111_a_jit_argument_used_as_a_shape_fails_to_trace():
    jax = pytest.importorskip("jax")
    scope = _run(SHAPE_FROM_ARG)
    jnp = jax.numpy
    calls = [lambda: scope["padded"](jnp.ones((2, 3)), 4),
             lambda: scope["labels"](jnp.arange(3), 5),
             lambda: scope["keys"](jax.random.key(0), 3)]
    for call in calls:
        with pytest.raises((jax.errors.ConcretizationTypeError, TypeError)):
            call()
    assert lines("JAX111", SHAPE_FROM_ARG) == [6, 10, 14]


STATIC_SHAPE = """
    from functools import partial
    import jax
    import jax.numpy as jnp

    @partial(jax.jit, static_argnames="width")
    def padded(values, width):
        return jnp.zeros((width, values.shape[-1]))

    def rows(key, count):
        return jax.random.normal(key, (count, 2))

    batched = jax.vmap(rows, in_axes=(0, None))
    """


def test_jax111_a_static_argument_or_a_vmap_none_axis_is_a_python_value():
    jax = pytest.importorskip("jax")
    scope = _run(STATIC_SHAPE)
    assert scope["padded"](jax.numpy.ones((2, 3)), width=4).shape == (4, 3)
    keys = jax.random.split(jax.random.key(0), 2)
    assert scope["batched"](keys, 3).shape == (2, 3, 2)
    assert lines("JAX111", STATIC_SHAPE) == []


UNHASHABLE_STATIC = """
    from functools import partial
    import jax
    import jax.numpy as jnp

    @partial(jax.jit, static_argnums=0)
    def span(n):
        return n

    @partial(jax.jit, static_argnames="seed")
    def noise(x, seed):
        return x

    total = jnp.add(4, 1)
    base = jax.random.key(1)
    """


def test_jax108_jax_numpy_results_and_keys_are_unhashable_static_arguments():
    jax = pytest.importorskip("jax")
    scope = _run(UNHASHABLE_STATIC)
    with pytest.raises((ValueError, TypeError)):
        scope["span"](scope["total"])
    with pytest.raises((ValueError, TypeError)):
        scope["noise"](1.0, seed=scope["base"])
    src = UNHASHABLE_STATIC + """
    a = span(total)
    b = noise(1.0, seed=base)
    """
    assert lines("JAX108", src) == [16, 17]
    assert lines("JAX108", UNHASHABLE_STATIC + """
    c = span(int(total))
    """) == []


def test_jax102_a_static_loop_bound_unrolls_once_per_iteration():
    jax = pytest.importorskip("jax")
    src = """
        from functools import partial
        import jax

        @partial(jax.jit, static_argnames="steps")
        def relax(x, steps):
            for _ in range(steps):
                x = x * 0.5 + 1.0
            return x
        """
    scope = _run(src)
    # every iteration is a fresh copy of the body in the traced program
    jaxpr = jax.make_jaxpr(scope["relax"].__wrapped__, static_argnums=1)(1.0, 7)
    assert sum(1 for e in jaxpr.eqns if e.primitive.name == "mul") == 7
    assert lines("JAX102", src) == [6]


def test_jax101_an_array_rebound_by_its_own_conversion_keeps_its_size():
    src = """
        import jax
        import jax.numpy as jnp
        import numpy as np

        TABLE = np.ones((1024, 512), dtype=np.float32)
        TABLE = jnp.asarray(TABLE)

        @jax.jit
        def pick(i):
            return TABLE[i]
        """
    assert lines("JAX101", src) == [10]
    # rebound to something else: its size is not known, so nothing is said
    assert lines("JAX101", src.replace("jnp.asarray(TABLE)", "TABLE[:1]")) == []
