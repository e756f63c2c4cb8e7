"""JAX104 numpy-on-tracer: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs).
``test_*_really_*`` run the snippets under real jax (CPU) to check that what the rule
claims is what jax does, and that what it leaves alone runs."""
from __future__ import annotations

import textwrap

import pytest

from helpers import fixed, lines, lint_source
from static_rule_helpers import outcomes_under_jax, run_module


def test_jax104_isinstance_narrowing_keeps_the_traced_branches():
    assert lines("JAX104", """
        import jax
        import numpy as np

        @jax.jit
        def f(x, y):
            if isinstance(x, jax.Array):
                a = np.exp(x)
            else:
                a = np.exp(x)
            if isinstance(y, (int, np.ndarray)) and y.ndim:
                b = np.exp(y)
            else:
                b = np.exp(y)
            if not isinstance(x, np.ndarray):
                return np.log(x)
            return a + b
        """) == [7, 13, 15]


def test_jax104_numpy_on_shapes_static_args_and_constants_is_clean():
    assert lines("JAX104", """
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        @functools.partial(jax.jit, static_argnames="dims")
        def f(x, dims):
            size = np.prod(x.shape[1:])
            table = np.asarray(dims)
            eps = np.finfo(np.float32).eps
            ndim = np.ndim(x)
            return x.reshape(-1, size) * np.sqrt(size) + table.sum() + eps + ndim
        """) == []


def test_jax104_list_of_tracers_and_dtype_constructor_are_flagged():
    assert lines("JAX104", """
        import jax
        import numpy as np

        @jax.jit
        def f(x, y):
            pair = np.array([x, y])
            return np.float32(x) + pair
        """) == [6, 7]


def test_jax104_fix_imports_jax_numpy_when_missing_and_np_random_has_none():
    src = """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            return np.exp(x) + np.random.rand()
        """
    diags = lint_source(src, select=["JAX104"])
    assert [d.fix is not None for d in diags] == [True, False]
    assert fixed("JAX104", src) == textwrap.dedent("""\
        import jax
        import numpy as np
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            return jnp.exp(x) + np.random.rand()
        """)


def test_jax104_fix_uses_the_modules_own_jax_numpy_alias():
    assert fixed("JAX104", """
        import jax
        import numpy as np
        from jax import numpy as xp

        @jax.jit
        def f(x):
            return np.linalg.norm(x) + np.fft.rfft(x).real.sum()
        """) == textwrap.dedent("""\
        import jax
        from jax import numpy as xp

        @jax.jit
        def f(x):
            return xp.linalg.norm(x) + xp.fft.rfft(x).real.sum()
        """)


def test_jax104_no_fix_when_the_alias_is_shadowed_where_the_call_is():
    diags = lint_source("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def f(x, jnp):
            return np.exp(x)
        """, select=["JAX104"])
    assert len(diags) == 1 and diags[0].fix is None


def test_jax104_numpy_inside_a_pure_callback_host_function_is_clean():
    assert lines("JAX104", """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            def host(v):
                return np.linalg.eigvals(np.asarray(v)).real
            return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape[:1], x.dtype), x)
        """) == []


# ------------------------------------------------------------------ real jax: the claims hold
jax = pytest.importorskip("jax")


def test_jax104_really_cannot_convert_a_tracer():
    src = """
        import jax
        import numpy as np

        @jax.jit
        def f(x):
            return np.asarray(x) * 2

        result = lambda: f(jax.numpy.ones(2))
        """
    assert lines("JAX104", src) == [6]
    with pytest.raises(jax.errors.TracerArrayConversionError):
        run_module(src)["result"]()


def test_the_jnp_keyword_table_is_what_the_installed_jax_takes():
    """rules/static/_numpy_params.py (data, so the static phase never imports jax) says it
    was generated from jax 0.10.2's signatures: each ``jnp.f``'s keyword-capable
    parameters ("**" when it takes any keyword), and the ones it takes only as None,
    whose default is None. Compared with the installed jax when it is that version."""
    import inspect
    import operator
    import re

    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from jaxlint.rules.static import _numpy_params
    from jaxlint.rules.static._numpy_api import JNP_SAME_NAME

    table, none_only = _numpy_params.JNP_KEYWORDS, _numpy_params.JNP_NONE_ONLY
    assert set(table) <= JNP_SAME_NAME
    version = re.search(r"Generated from jax (\S+) ", _numpy_params.__doc__).group(1)
    if jax.__version__ != version:
        pytest.skip(f"the table is of jax {version}; jax {jax.__version__} is installed")

    def keywords(name: str) -> str:
        params = inspect.signature(operator.attrgetter(name)(jnp)).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return "**"
        return " ".join(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))

    assert {n: keywords(n) for n in table} == table
    for name, params in none_only.items():
        sig = inspect.signature(operator.attrgetter(name)(jnp)).parameters
        for p in params.split():
            assert p in table[name].split() and sig[p].default is None, (name, p)


# ``math`` and ``scipy`` on a tracer (scope50): flagged programs raise under real jax,
# their quiet twins (static shapes, constants, math.prod) run.
_HOST_LIBRARY_FLAGGED = {
    "math_sqrt_jit": ("""
        import math
        import jax

        @jax.jit
        def f(x):
            return math.sqrt(x)
        """, "f(2.0)"),
    "math_alias_grad": ("""
        from math import log as ln
        import jax

        def loss(w):
            return ln(w) * 2.0

        g = jax.grad(loss)
        """, "g(2.0)"),
    "math_floor_scan": ("""
        import math
        import jax
        import jax.numpy as jnp

        def body(c, x):
            return c + math.floor(x), None

        def run(xs):
            return jax.lax.scan(body, 0.0, xs)
        """, "run(jnp.ones(3))"),
    "math_factorial_vmap": ("""
        import math
        import jax
        import jax.numpy as jnp

        def f(n):
            return math.factorial(n)

        batched = jax.vmap(f)
        """, "batched(jnp.arange(3))"),
    "scipy_special_jit": ("""
        import jax
        import scipy.special

        @jax.jit
        def f(x):
            return scipy.special.expit(x)
        """, "f(jax.numpy.ones(3))"),
    "scipy_from_import_grad": ("""
        import jax
        import jax.numpy as jnp
        from scipy.special import gammaln

        def loss(a):
            return jnp.sum(gammaln(a))

        g = jax.grad(loss)
        """, "g(jnp.ones(3))"),
}
_HOST_LIBRARY_QUIET = {
    "math_on_shapes": ("""
        import math
        import jax
        import jax.numpy as jnp
        import scipy.special

        @jax.jit
        def f(x):
            scale = math.sqrt(x.shape[-1]) * math.log(2.0)
            n = math.ceil(x.shape[0] / 2)
            c = scipy.special.comb(x.shape[0], 2)
            return x[:n] / scale * c * math.prod(x.shape)
        """, "f(jnp.ones(4))"),
    "math_prod_of_tracers": ("""
        import math
        import jax

        @jax.jit
        def f(x, y):
            return math.prod([x, y])
        """, "f(2.0, 3.0)"),
    "math_outside_traced_code": ("""
        import math
        import jax.numpy as jnp

        def f(x):
            return math.sqrt(float(jnp.sum(x)))
        """, "f(jnp.ones(4))"),
}


@pytest.mark.parametrize("name", sorted(_HOST_LIBRARY_FLAGGED))
def test_jax104_math_and_scipy_on_a_tracer_are_flagged(name):
    src, _ = _HOST_LIBRARY_FLAGGED[name]
    diags = lint_source(src, select=["JAX104"])
    assert len(diags) == 1, [d.message for d in diags]
    assert "ConcretizationTypeError" in diags[0].message or "TracerArrayConversionError" in diags[0].message


@pytest.mark.parametrize("name", sorted(_HOST_LIBRARY_QUIET))
def test_jax104_math_and_scipy_on_static_values_are_clean(name):
    assert lines("JAX104", _HOST_LIBRARY_QUIET[name][0]) == []


def test_jax104_math_and_scipy_claims_hold_under_real_jax():
    cases = {n: (textwrap.dedent(s), c) for n, (s, c) in {**_HOST_LIBRARY_FLAGGED, **_HOST_LIBRARY_QUIET}.items()}
    got = outcomes_under_jax(cases)
    raised = {n for n, o in got.items() if o != "ok"}
    assert raised == set(_HOST_LIBRARY_FLAGGED), got
    assert {got[n] for n in _HOST_LIBRARY_FLAGGED} <= {"ConcretizationTypeError", "TracerArrayConversionError",
                                                       "TracerIntegerConversionError"}, got


# A row of a NumPy array (a loop or comprehension variable over one) indexed by a traced
# value (scope50): flagged programs raise under real jax, the quiet twin runs.
_ROWS_FLAGGED = {
    "comprehension_over_np_indices_in_a_helper": ("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        def batch_index(batch_shape, index):
            return [g[index] for g in np.indices(batch_shape)]

        @jax.jit
        def select(logits):
            mask = jnp.arange(logits.shape[0]) > 0
            return batch_index(logits.shape[:-1], mask)
        """, 6, "select(jnp.ones((3, 2)))"),
    "for_over_a_host_table": ("""
        import jax
        import numpy as np

        TABLE = np.arange(12.0).reshape(3, 4)

        @jax.jit
        def pick(i):
            out = 0.0
            for row in np.asarray(TABLE):
                out = out + row[i]
            return out
        """, 10, "pick(1)"),
}
_ROWS_QUIET = {
    "rows_indexed_statically": ("""
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def f(x):
            return x + sum(g[0] for g in np.indices((2, 3)))
        """, "f(jnp.ones(3))"),
}


def test_jax104_rows_of_a_numpy_array_indexed_by_a_tracer_are_flagged():
    for name, (src, line, _) in _ROWS_FLAGGED.items():
        assert lines("JAX104", src) == [line], name
    for name, (src, _) in _ROWS_QUIET.items():
        assert lines("JAX104", src) == [], name


def test_jax104_rows_of_a_numpy_array_claims_hold_under_real_jax():
    cases = {n: (textwrap.dedent(s), c) for n, (s, _, c) in _ROWS_FLAGGED.items()}
    cases.update({n: (textwrap.dedent(s), c) for n, (s, c) in _ROWS_QUIET.items()})
    got = outcomes_under_jax(cases)
    assert {n for n, o in got.items() if o != "ok"} == set(_ROWS_FLAGGED), got


def test_jax104_numpy_functions_that_call_the_tracers_own_method_are_a_preview_hint():
    """``np.sum(x)`` on a tracer calls ``x.sum()`` (numpy hands a non-ndarray to its own
    method): it traces, so it is not reported by default; under ``--preview`` it is a
    possible finding that says why it works. ``np.exp(x)`` converts the tracer and
    raises, and ``np.repeat(host, n)`` with a traced ``n`` runs numpy's own method on
    it: both stay findings. Proven with real jax."""
    src = """
        import jax
        import jax.numpy as jnp
        import numpy as np

        HOST = np.arange(3)

        @jax.jit
        def dispatched(x):
            return np.sum(x, axis=0) + np.mean(x) + np.max(x)

        @jax.jit
        def converted(x):
            return np.exp(x)

        @jax.jit
        def host_method(n):
            return np.repeat(HOST, n)
        """
    assert lines("JAX104", src) == [13, 17]
    possible = [d for d in lint_source(src, select=["JAX104"], confidence="possible") if d.start.line == 9]
    assert len(possible) == 3 and all(d.confidence.value == "possible" for d in possible)
    assert "its own `.sum` method" in possible[0].message
    outcomes = outcomes_under_jax({
        name: (textwrap.dedent(src), f"str({name}(jnp.ones((2, 3))).shape)" if name != "host_method" else f"{name}(2)")
        for name in ("dispatched", "converted", "host_method")})
    assert outcomes["dispatched"] == "(3,)"
    assert outcomes["converted"] != "ok" and outcomes["host_method"] != "ok", outcomes
