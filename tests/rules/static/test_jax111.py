"""JAX111 data-dependent-shape: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

import pytest

from helpers import lines
from static_rule_helpers import outcomes_under_jax


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


# ---------------------------------------------------------------- size positions (scope40)
# Each case: a program, and the call that runs it. The rule flags the lines marked
# `# <-` and nothing else; real jax raises on every flagged program and runs every
# quiet one (test_jax111_real_jax_agrees_with_the_size_cases).
_HEAD = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom functools import partial\n"
SIZE_FLAGGED = {
    "arange stop from a traced argument": ("""
        @jax.jit
        def f(x, n):
            return jnp.arange(0, n) + x  # <-
        """, "f(1.0, 4)"),
    "arange step": ("""
        @jax.jit
        def f(x, step):
            return jnp.arange(0, 10, step) * x  # <-
        """, "f(1.0, 2)"),
    "arange from an element of a traced array": ("""
        @jax.jit
        def f(bounds):
            lo = bounds[0]
            return jnp.arange(lo, lo + 3)  # <-
        """, "f(jnp.array([1, 5]))"),
    "linspace num from a jnp result": ("""
        @jax.jit
        def f(x):
            k = jnp.maximum(x.shape[0], 2)
            return jnp.linspace(0.0, 1.0, k + 1)  # <-
        """, "f(jnp.ones(3))"),
    "reshape method": ("""
        @jax.jit
        def f(x, rows):
            return x.reshape(rows, -1)  # <-
        """, "f(jnp.ones(6), 2)"),
    "reshape function, shape keyword": ("""
        @jax.jit
        def f(x, rows):
            return jnp.reshape(x, shape=(rows, -1))  # <-
        """, "f(jnp.ones(6), 2)"),
    "broadcast_to": ("""
        @jax.jit
        def f(x, reps):
            return jnp.broadcast_to(x, (reps, x.shape[0]))  # <-
        """, "f(jnp.ones(3), 2)"),
    "repeat without total_repeat_length": ("""
        @jax.jit
        def f(x, n):
            a = jnp.repeat(x, n)  # <-
            return a, x.repeat(n)  # <-
        """, "f(jnp.ones(3), 2)"),
    "random shape keyword and choice": ("""
        @jax.jit
        def f(key, n):
            a = jax.random.normal(key, shape=(n,))  # <-
            b = jax.random.choice(key, 5, (n,))  # <-
            return a, b
        """, "f(jax.random.key(0), 3)"),
    "dynamic_slice sizes": ("""
        @jax.jit
        def f(x, start, width):
            return lax.dynamic_slice(x, (start,), (width,))  # <-
        """, "f(jnp.ones(8), 1, 3)"),
    "split sections and eye": ("""
        @jax.jit
        def f(x, parts):
            halves = jnp.split(x, parts)  # <-
            return halves, jnp.eye(parts)  # <-
        """, "f(jnp.ones(6), 2)"),
    "a leaf field of an annotated NamedTuple argument": ("""
        from typing import NamedTuple

        class Cfg(NamedTuple):
            steps: int
            scale: float

        @jax.jit
        def f(x, cfg: Cfg):
            return jnp.zeros(cfg.steps) + x * cfg.scale  # <-
        """, "f(1.0, Cfg(3, 2.0))"),
    "a scan carry": ("""
        def body(count, x):
            return count, jnp.zeros(count) + x  # <-

        def run(xs):
            return lax.scan(body, 3, xs)
        """, "run(jnp.ones(2))"),
    "a fori_loop index": ("""
        def body(i, acc):
            return acc + jnp.arange(i).sum()  # <-

        def run():
            return lax.fori_loop(0, 3, body, 0)
        """, "run()"),
    "a helper given a traced argument": ("""
        def padding(n):
            return jnp.zeros((n, 2))  # <-

        @jax.jit
        def f(x, n):
            return padding(n) + x
        """, "f(1.0, 2)"),
    "a closure over a jitted function's argument": ("""
        @jax.jit
        def f(xs, n):
            def g(row):
                return jnp.zeros(n) + row  # <-
            return jax.vmap(g)(xs)
        """, "f(jnp.ones((2, 3)), 3)"),
    "a local from arithmetic on a traced element": ("""
        @jax.jit
        def f(sizes):
            m = sizes[0] * 2
            return jnp.ones((m, 3))  # <-
        """, "f(jnp.array([2]))"),
    "abs of a traced argument": ("""
        @jax.jit
        def f(x, n):
            width = abs(n)
            return jnp.zeros((width,)) + x  # <-
        """, "f(1.0, -2)"),
    "an element of a comprehension over a traced argument": ("""
        @jax.jit
        def f(x, n):
            sizes = [n * k for k in (1, 2)]
            return jnp.arange(sizes[1]) * x  # <-
        """, "f(1.0, 2)"),
    "a helper's result and a field of an object made from a traced argument": ("""
        class Crate:
            def __init__(self, width):
                self.width = width
                self.k = 3

        def double(a):
            return a * 2

        @jax.jit
        def f(x, n):
            b = Crate(n)
            z = jnp.zeros((b.width,))  # <-
            return z, jnp.arange(double(n)) * x  # <-
        """, "f(1.0, 2)"),
    "a method of a pytree argument computing from a leaf": ("""
        from typing import NamedTuple

        class Spec(NamedTuple):
            rows: jax.Array

            def doubled(self):
                return self.rows * 2

        @jax.jit
        def f(x, spec: Spec):
            return jnp.zeros((spec.doubled(),)) + x  # <-
        """, "f(1.0, Spec(jnp.array(2)))"),
    "a traced axis keyword": ("""
        @jax.jit
        def f(x, axis):
            return jnp.sum(x, axis=axis)  # <-
        """, "f(jnp.ones((2, 3)), 1)"),
    "a traced axis of a method and of moveaxis": ("""
        @jax.jit
        def f(x, k):
            m = x.mean(k)  # <-
            return m, jnp.moveaxis(x, k, 0)  # <-
        """, "f(jnp.ones((2, 3)), 1)"),
    "an entry of a dict built in traced code": ("""
        @jax.jit
        def f(x, n):
            sizes = {"rows": n, "cols": 3}
            return jnp.zeros((sizes["rows"], sizes["cols"])) + x  # <-
        """, "f(1.0, 2)"),
    "an eqx.filter_jit parameter annotated as an array": ("""
        import equinox as eqx

        @eqx.filter_jit
        def f(x, n: jax.Array):
            return jnp.arange(n) * x  # <-
        """, "f(1.0, jnp.array(3))"),
    # recall round 20 (secon-bvar-8b27e20): the branches of a cond, even one called eagerly,
    # receive traced operands, also through one tuple parameter they unpack
    "an element unpacked from a cond operand tuple": ("""
        def f(valid, cov, n):
            def from_ops(ops):
                c, k = ops
                return c + jnp.zeros((k, k)).sum()  # <-
            def fallback(ops):
                c, (_, k) = ops
                return c + jnp.eye(k).sum()  # <-
            return lax.cond(valid, from_ops, fallback, (cov, (0, n)))
        """, "f(jnp.array(True), 1.0, 2)"),
    "an element unpacked from a switch operand and a fori_loop carry": ("""
        def f(i, n):
            def a(ops):
                m, x = ops
                return x + jnp.arange(m).sum()  # <-
            def body(j, carry):
                m, x = carry
                return m, x + jnp.ones(m).sum()  # <-
            return lax.switch(i, [a, a], (n, 1.0)), lax.fori_loop(0, 2, body, (n, 1.0))
        """, "f(0, 2)"),
}
SIZE_QUIET = {
    "names unpacked from a shape or a closure's static tuple": ("""
        def f(valid, x):
            hw = x.shape
            def branch(ops):
                y, z = ops
                r, c = y.shape
                h, w = hw
                return y.sum() + z + jnp.zeros((r, c)).sum() + jnp.ones((h, w)).sum()
            return lax.cond(valid, branch, branch, (x, 1.0))
        """, "f(jnp.array(True), jnp.ones((2, 3)))"),
    "static argument, shapes, len": ("""
        @partial(jax.jit, static_argnames="n")
        def f(x, n, xs):
            k = x.shape[0] * 2
            return jnp.arange(n), jnp.zeros((k, len(xs))), x.reshape(n, -1), jnp.repeat(x, n)
        """, "f(jnp.ones(4), 2, [1, 2])"),
    "repeat with total_repeat_length": ("""
        @jax.jit
        def f(x, n):
            return jnp.repeat(x, n, total_repeat_length=6)
        """, "f(jnp.ones(3), jnp.array([1, 2, 3]))"),
    "linspace with traced ends and a static num": ("""
        @jax.jit
        def f(lo, hi):
            return jnp.linspace(lo, hi, 5), jnp.arange(3) * hi
        """, "f(0.0, 1.0)"),
    "psum of one over a named axis": ("""
        def g(x):
            n = lax.psum(1, "b")
            return jnp.zeros(n) + x

        def run(xs):
            return jax.vmap(g, axis_name="b")(xs)
        """, "run(jnp.ones(2))"),
    "an unmapped vmap argument": ("""
        def g(x, n):
            return jnp.zeros(n) + x

        def run(xs):
            return jax.vmap(g, in_axes=(0, None))(xs, 3)
        """, "run(jnp.ones(2))"),
    "an argument grad passes through": ("""
        def loss(w, n):
            return (w * jnp.ones(n)).sum()

        def run(w):
            return jax.grad(loss)(w, 3)
        """, "run(1.0)"),
    "a static field of a flax struct": ("""
        from flax import struct

        @struct.dataclass
        class Cfg:
            steps: int = struct.field(pytree_node=False)
            scale: float = 1.0

        @jax.jit
        def f(x, cfg):
            return jnp.zeros(cfg.steps) + x * cfg.scale
        """, "f(1.0, Cfg(3, 2.0))"),
    "a static entry of a dict built in traced code, an eqx.filter_jit int": ("""
        import equinox as eqx

        @eqx.filter_jit
        def f(x, n: int):
            sizes = {"rows": x, "cols": 3}
            return jnp.zeros((sizes["cols"], n)) + sizes["rows"]
        """, "f(1.0, 2)"),
    "a helper's static result and a constant field of an object made in traced code": ("""
        class Crate:
            def __init__(self, width):
                self.width = width
                self.k = 3

        def size_of(a):
            return a.size * 2

        @jax.jit
        def f(x):
            b = Crate(x)
            return jnp.zeros((b.k,)) + b.width.sum(), jnp.arange(size_of(x))
        """, "f(jnp.ones(2))"),
    "static axes and a traced roll shift": ("""
        @partial(jax.jit, static_argnames="axis")
        def f(x, axis, shift):
            return jnp.sum(x, axis=axis), jnp.roll(x, shift, 0), x.mean(x.ndim - 1), jnp.take(x, shift, 0)
        """, "f(jnp.ones((2, 3)), 1, 1)"),
    "builtins and comprehensions of static values": ("""
        @jax.jit
        def f(x):
            sizes = [x.shape[0] * k for k in (1, 2)]
            return jnp.zeros((max(abs(x.ndim), 1),)), jnp.arange(sizes[1]) * x.sum()
        """, "f(jnp.ones(3))"),
    "a compile-time-eval block and one static arm": ("""
        @jax.jit
        def f(x, n):
            with jax.ensure_compile_time_eval():
                k = jnp.array(3)
            m = 4 if x.ndim else n
            return jnp.zeros(k) + x, jnp.ones(m if False else 2)
        """, "f(1.0, 2)"),
}


def _marked(src: str) -> list[int]:
    import textwrap
    text = _HEAD + textwrap.dedent(src).lstrip("\n")
    return [i for i, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith("# <-")]


@pytest.mark.parametrize("name", sorted(SIZE_FLAGGED))
def test_jax111_flags_a_traced_value_in_every_size_position(name):
    src, _ = SIZE_FLAGGED[name]
    import textwrap
    assert lines("JAX111", _HEAD + textwrap.dedent(src).lstrip("\n")) == _marked(src)


@pytest.mark.parametrize("name", sorted(SIZE_QUIET))
def test_jax111_quiet_on_static_sizes(name):
    src, _ = SIZE_QUIET[name]
    import textwrap
    assert lines("JAX111", _HEAD + textwrap.dedent(src).lstrip("\n")) == []


def test_jax111_real_jax_agrees_with_the_size_cases():
    import textwrap
    cases = {name: (_HEAD + textwrap.dedent(src).lstrip("\n"), call)
             for name, (src, call) in {**SIZE_FLAGGED, **SIZE_QUIET}.items()}
    got = outcomes_under_jax(cases)
    assert {n: got[n] for n in SIZE_QUIET} == {n: "ok" for n in SIZE_QUIET}
    failing = {"ConcretizationTypeError", "TypeError", "TracerIntegerConversionError", "ValueError",
               "NonConcreteBooleanIndexError"}
    assert {n: got[n] for n in SIZE_FLAGGED if got[n] not in failing} == {}


def test_jax111_checkpointed_method_of_a_passed_instance_really_traces_the_shape():
    """``jax.checkpoint(component.sample)(key, (n,))`` with ``component`` a parameter (recall
    round 19, gwkokab-2c1f32a): the model follows the parameter to the class every call passes
    an instance of (here to a callable instance only ever called) or the module class it is
    annotated with; under real jax the checkpoint traces the shape tuple and the draw raises
    for both, and ``static_argnums=(1,)`` (counted after ``self``) runs. Fixtures
    ``invalid_passed_instance_method`` / ``valid_passed_instance_method``."""
    jax = pytest.importorskip("jax")
    from rule_fixtures import load_module

    bad = load_module("JAX111", "invalid_passed_instance_method")
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        bad.Mean(jax.random.key(0), 100)(bad.Powerlaw(-2.3))
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        bad.mean_of(bad.Uniform(), jax.random.key(1), 100)
    assert load_module("JAX111", "valid_passed_instance_method").main().shape == ()


def test_jax111_names_unpacked_from_cond_operands_really_are_traced():
    """Recall round 20 (secon-bvar-8b27e20, 25ac8b9): ``lax.cond`` called eagerly still traces
    both branches, and the names a branch unpacks from its one tuple parameter are tracers,
    Python ints included: the shape raises, so does the slice bound, and a fori_loop carry
    unpacked the same way; the sizes from a closure and from a shape run. Fixtures
    ``invalid_unpacked_operands`` / ``valid_unpacked_operands``."""
    jax = pytest.importorskip("jax")
    from rule_fixtures import load_module

    bad = load_module("JAX111", "invalid_unpacked_operands")
    gammas = [jax.numpy.eye(2)] * 2
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        bad.initial_covariance(gammas, jax.numpy.array(True), 2, 2)
    with pytest.raises(IndexError, match="Slice entries must be static integers"):
        bad.placed(jax.numpy.array(True), jax.numpy.zeros(5), 1, 2)
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        bad.total_of(2, 1.0)
    assert load_module("JAX111", "valid_unpacked_operands").main().shape == (5, 5)
