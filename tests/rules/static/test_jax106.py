"""JAX106 side-effect-in-jit: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs).
``test_*_really_*`` run the snippets under real jax (CPU) to check that what the rule
claims is what jax does, and that what it leaves alone runs."""
from __future__ import annotations

import contextlib
import io

import pytest

from helpers import lines
from static_rule_helpers import run_module


def test_jax106_static_prints_are_left_alone_unless_asked():
    src = """
        import jax

        @jax.jit
        def f(x):
            print("compiling f for", x.shape)
            print("x is", x)
            return x
        """
    assert lines("JAX106", src) == [6]
    assert lines("JAX106", src, **{"report-static-print": True}) == [5, 6]


def test_jax106_a_print_of_locals_built_from_shapes_is_static_and_one_of_unknown_values_is_not():
    # seen in jax-md (a warning about the folded grid's static sizes) and jaxmarl (a
    # debug print of an updated map): only the second may print a tracer
    assert lines("JAX106", """
        import jax

        def fold(data, factors=(2, 2)):
            sizes = []
            for i in range(data.ndim):
                sizes += [factors[i], data.shape[i] // factors[i]]
            if min(sizes) < 4:
                print(f"folded grid may be too small: {sizes}, shape {data.shape}")
            return data

        def flip(walls, i):
            new_walls = walls.at[i].set(1 - walls[i])
            print("new walls", new_walls)
            return new_walls

        @jax.jit
        def step(data, walls):
            return fold(data), flip(walls, 0)
        """) == [13]


def test_jax106_side_effects_outside_traced_code_are_clean():
    assert lines("JAX106", """
        import logging
        import random
        import time
        import jax

        log = logging.getLogger(__name__)

        @jax.jit
        def step(x):
            jax.debug.print("x={x}", x=x)
            jax.debug.callback(lambda v: log.info("value %s", v), x)
            return x * 2

        def train(x):
            t0 = time.perf_counter()
            for _ in range(random.randint(1, 3)):
                x = step(x)
            log.info("took %.3f", time.perf_counter() - t0)
            print("done", x)
            return x
        """) == []


def test_jax106_clocks_datetime_and_stdlib_random_in_a_scan_body_are_flagged():
    assert lines("JAX106", """
        import datetime
        import random
        import time
        import jax

        def body(c, x):
            stamp = datetime.datetime.now()
            time.sleep(0.1)
            return c + x * random.gauss(0, 1), stamp

        def run(xs):
            return jax.lax.scan(body, 0.0, xs)
        """) == [7, 8, 9]


def test_jax106_absl_logging_and_warnings_of_traced_values_are_flagged():
    assert lines("JAX106", """
        import warnings
        import jax
        from absl import logging

        @jax.jit
        def f(x):
            logging.info("x=%s", x)
            warnings.warn(f"bad value {x}")
            logging.info("compiling f")
            return x
        """) == [7, 8]


# ------------------------------------------------------------------ real jax: the claims hold
jax = pytest.importorskip("jax")


def test_jax106_really_prints_once_per_compilation_and_shows_a_tracer():
    src = """
        import jax

        @jax.jit
        def f(x):
            print("x is", x)
            return x * 2

        def result():
            for i in range(3):
                f(jax.numpy.float32(i))
        """
    assert lines("JAX106", src) == [5]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run_module(src)["result"]()
    # the tracer's repr differs by version: JitTracer(...) / Traced<float32[]>with<...> (0.6)
    assert out.getvalue().count("x is") == 1 and ("Tracer(" in out.getvalue() or "Traced<" in out.getvalue())


def test_jax106_print_of_values_the_model_knows_static_is_quiet():
    # a field a pytree declares static, a helper whose every return is static, a
    # comprehension and a conditional of shapes: Python values at trace time (scope40)
    assert lines("JAX106", """
        import dataclasses
        import jax
        import jax.numpy as jnp

        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Params:
            a: jax.Array
            n: int = dataclasses.field(default=3, metadata=dict(static=True))

        def size_of(v):
            return v.size * 2

        @jax.tree_util.register_pytree_node_class
        class Tree:
            def __init__(self, a, n):
                self.a, self.n = a, n

            def tree_flatten(self):
                return (self.a,), self.n

            @classmethod
            def tree_unflatten(cls, n, leaves):
                return cls(leaves[0], n)

            def count(self):
                return self.n + 1

        @jax.jit
        def f(p: Params, x, t: Tree):
            sizes = [x.shape[0] * k for k in (1, 2)]
            m = x.size if x.ndim else 1
            print("n", p.n, size_of(x), sizes, m, x.ndim > 1, t.count())
            return x
        """) == []


def test_jax106_print_of_a_leaf_field_or_a_traced_helper_result_is_still_reported():
    assert lines("JAX106", """
        import dataclasses
        import jax
        import jax.numpy as jnp

        @jax.tree_util.register_dataclass
        @dataclasses.dataclass
        class Params:
            a: jax.Array
            n: int = dataclasses.field(default=3, metadata=dict(static=True))

        def double(v):
            return jnp.sum(v) * 2

        @jax.jit
        def f(p: Params, x):
            print("a", p.a)
            print("d", double(x))
            print("c", [x * k for k in (1, 2)])
            return x
        """) == [16, 17, 18]


def test_jax106_under_grad_alone_only_a_print_of_a_traced_value_is_reported():
    # jax.grad applied outside any trace runs `loss` on every call (nothing compiles):
    # the clock and the static print are fine, print(w) prints a JVP tracer (scope40)
    src = """
        import time
        import jax

        def loss(w):
            print("w", w)
            print("start")
            t = time.time()
            return w * 2.0

        def train(w):
            return w - 0.1 * jax.grad(loss)(w)
        """
    assert lines("JAX106", src) == [5]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run_module(src)["train"](1.0)
    assert "Tracer" in out.getvalue()
