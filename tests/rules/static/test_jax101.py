"""JAX101 captured-array: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs). Each flagged program also runs under real jax: the
array it names is a constant of the traced program (``make_jaxpr(...).consts``), at
least ``max-bytes`` large; the quiet twins capture nothing that large."""
from __future__ import annotations

import textwrap

import pytest

from helpers import lines
from static_rule_helpers import outcomes_under_jax

#: name -> (program, expression giving the traced program's largest constant in bytes)
_FLAGGED = {
    "class_attribute_through_the_class": ("""
        import jax
        import numpy as np

        class Tables:
            GRID = np.ones((512, 512))

        @jax.jit
        def f(x):
            return x @ Tables.GRID
        """, "Tables.GRID", "f", "jnp.ones((4, 512))"),
    "class_attribute_through_static_self": ("""
        import functools
        import jax
        import numpy as np

        class Projector:
            BASIS = np.random.randn(1024, 256)

            @functools.partial(jax.jit, static_argnums=0)
            def project(self, x):
                return x @ self.BASIS

            def __hash__(self):
                return 0

            def __eq__(self, other):
                return isinstance(other, Projector)
        """, "self.BASIS", "Projector().project", "jnp.ones((2, 1024))"),
    "device_put_module_array": ("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        pulse = jax.device_put(np.random.rand(1 << 18))

        def spectrum():
            return jnp.fft.fft(pulse)

        spectrum_gpu = jax.jit(spectrum)
        """, "pulse", "spectrum", ""),
}
_QUIET = {
    "class_attribute_small": ("""
        import jax
        import numpy as np

        class Tables:
            GRID = np.ones((4, 4))

        @jax.jit
        def f(x):
            return x @ Tables.GRID
        """, "f", "jnp.ones((4, 4))"),
    "class_attribute_rebound_by_a_method": ("""
        import jax
        import numpy as np

        class Tables:
            GRID = np.ones((512, 512))

            def shrink(self):
                self.GRID = np.ones((2, 512))

        def f(x):
            return x + 1

        g = jax.jit(f)
        """, "g", "jnp.ones(3)"),
    "class_attribute_shape_only": ("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        class Tables:
            GRID = np.ones((512, 512))

        @jax.jit
        def f(x):
            return jnp.zeros(Tables.GRID.shape[0]) + x
        """, "f", "1.0"),
}


_WALK = """
import jax
import jax.numpy as jnp


def _const_bytes(closed):
    # the constants of a traced program and of the programs nested in it (a jit inside)
    out = [getattr(c, "nbytes", 0) for c in closed.consts]
    for eqn in closed.jaxpr.eqns:
        out += [getattr(v.val, "nbytes", 0) for v in eqn.invars if hasattr(v, "val")]
        for p in eqn.params.values():
            if hasattr(p, "consts") and hasattr(p, "jaxpr"):
                out += _const_bytes(p)
    return out
"""


def _largest_const(src: str, fn: str, arg: str) -> tuple[str, str]:
    call = f"str(max(_const_bytes(jax.make_jaxpr({fn})({arg})) + [0]))"
    return (_WALK + textwrap.dedent(src), call)


@pytest.mark.parametrize("name", sorted(_FLAGGED))
def test_jax101_flags_the_array_where_it_is_read(name):
    src, shown, _, _ = _FLAGGED[name]
    from helpers import lint_source
    diags = lint_source(src, select=["JAX101"])
    assert len(diags) == 1, [d.message for d in diags]
    assert f"`{shown}`" in diags[0].message


@pytest.mark.parametrize("name", sorted(_QUIET))
def test_jax101_leaves_small_rebound_or_shape_only_reads_alone(name):
    assert lines("JAX101", _QUIET[name][0]) == []


def test_jax101_claims_hold_under_real_jax():
    cases = {n: _largest_const(s, f, a) for n, (s, _, f, a) in _FLAGGED.items()}
    cases.update({n: _largest_const(s, f, a) for n, (s, f, a) in _QUIET.items()})
    got = outcomes_under_jax(cases)
    for name in _FLAGGED:
        assert got[name].isdigit() and int(got[name]) >= 1 << 20, (name, got[name])
    for name in _QUIET:
        assert got[name].isdigit() and int(got[name]) < 1 << 20, (name, got[name])
