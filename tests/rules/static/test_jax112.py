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


# dtype objects made from a 64-bit name (scope50); the Python `float` / `int` / `complex`
# types stay clean: they ask for JAX's default type, not for 64 bits. Checked under real
# jax (x64 off): the flagged ones warn "Explicitly requested dtype float64" and give
# float32, the quiet ones give float32/int32 without a warning.
_DTYPE_OBJECTS = """
    import jax
    import jax.numpy as jnp
    import numpy as np

    @jax.jit
    def a(x):
        return x + jnp.zeros(3, dtype=np.dtype("float64"))

    @jax.jit
    def b(x):
        return x.astype(jnp.dtype(jnp.float64))

    @jax.jit
    def c(x):
        return x + jnp.zeros(3, dtype=float) + jnp.arange(3, dtype=int) + x.astype(complex).real
    """


def test_jax112_dtype_objects_of_64_bit_names_are_flagged_python_types_are_not():
    assert lines("JAX112", _DTYPE_OBJECTS) == [7, 11]


def test_jax112_dtype_object_and_python_type_claims_hold_under_real_jax():
    import textwrap

    from static_rule_helpers import outcomes_under_jax

    helper = textwrap.dedent(_DTYPE_OBJECTS) + textwrap.dedent("""
        import warnings

        def outcome(f):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                out = f(jnp.ones(3))
            asked = any("Explicitly requested dtype" in str(m.message) for m in w)
            return f"{out.dtype}:{'warns' if asked else 'quiet'}"
        """)
    got = outcomes_under_jax({n: (helper, f"outcome({n})") for n in ("a", "b", "c")})
    assert got == {"a": "float32:warns", "b": "float32:warns", "c": "float32:quiet"}, got
