"""JAX109 host-callback: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

from helpers import lines, lint_source
from jaxlint.diagnostic import Severity


def test_jax109_severity_is_higher_in_loop_bodies_than_in_plain_traced_code():
    diags = lint_source("""
        import jax
        from jax.debug import print as dprint

        def cond_fun(c):
            jax.debug.callback(print, c)
            return c < 10

        def body_fun(c):
            return c + 1

        @jax.jit
        def f(x):
            dprint("start {}", x)
            return jax.lax.while_loop(cond_fun, body_fun, x)
        """, select=["JAX109"])
    assert [(d.start.line, d.severity) for d in diags] == [(5, Severity.WARNING), (13, Severity.INFO)]
    assert "lax.while_loop" in diags[0].message and "`jax.debug.print` in `f`" in diags[1].message


def test_jax109_flax_nnx_scan_bodies_count_as_loops():
    diags = lint_source("""
        import jax
        from flax import nnx

        def body(carry, x):
            jax.debug.print("{}", x)
            return carry, x

        def run(xs):
            return nnx.scan(body)(0, xs)
        """, select=["JAX109"])
    assert [(d.start.line, d.severity) for d in diags] == [(5, Severity.WARNING)]


def test_jax109_callback_reached_through_a_helper_called_from_jit():
    assert lines("JAX109", """
        import jax

        def log(v):
            jax.debug.print("v={}", v)

        @jax.jit
        def f(x):
            log(x)
            return x
        """) == [4]


def test_jax109_callback_under_a_traced_condition_is_still_reported():
    # a Python `if` on a tracer is not an opt-in flag (JAX105 reports the `if` itself)
    assert lines("JAX109", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            if jnp.any(x < 0):
                jax.debug.print("negative {}", x)
            return x
        """) == [7]


def test_jax109_a_branch_also_called_directly_is_reported():
    assert lines("JAX109", """
        import jax

        def warn(x):
            jax.debug.print("bad {}", x)
            return x

        @jax.jit
        def f(x):
            x = jax.lax.cond(x.sum() < 0, warn, lambda v: v, x)
            return warn(x)
        """) == [4]


def test_jax109_jitted_function_defined_only_when_a_flag_is_set_is_deliberate():
    assert lines("JAX109", """
        import jax

        def build(profile):
            if profile is not None:
                @jax.jit
                def kernel(x):
                    jax.debug.callback(profile.dump, x)
                    return x
                return kernel

            @jax.jit
            def plain(x):
                jax.debug.callback(print, x)
                return x
            return plain
        """) == [13]
