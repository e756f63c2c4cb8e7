"""JAX112 float64: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs)."""
from __future__ import annotations

from helpers import lines


def test_jax112_dtype_strings_and_complex128_in_traced_code():
    assert lines("JAX112", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            a = x.astype("f8")
            b = jnp.asarray(x, dtype=jnp.complex128)
            c = jnp.ones(3, "float32")
            return a, b, c
        """) == [6]  # one finding per function, at its first 64-bit dtype


def test_jax112_float64_outside_traced_code_is_quiet():
    assert lines("JAX112", """
        import jax
        import jax.numpy as jnp

        def host(x):
            return jnp.asarray(x, dtype=jnp.float64)

        @jax.jit
        def f(x):
            return x
        """) == []


def test_jax112_enable_x64_through_setdefault_is_reported_once_and_hides_dtype_findings():
    src = """
        import os
        os.environ.setdefault("JAX_ENABLE_X64", "true")
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            return x.astype(jnp.float64)
        """
    # float64 is the module's policy: quiet by default, the setting alone on request
    assert lines("JAX112", src) == []
    assert lines("JAX112", src, **{"report-x64-projects": True}) == [2]
