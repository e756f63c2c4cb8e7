"""JAX104 numpy-on-tracer: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs).
``test_*_really_*`` run the snippets under real jax (CPU) to check that what the rule
claims is what jax does, and that what it leaves alone runs."""
from __future__ import annotations

import textwrap

import pytest

from helpers import fixed, lines, lint_source
from static_rule_helpers import run_module


def test_jax104_isinstance_narrowing_keeps_the_traced_branches():
    assert lines("JAX104", """
        import jax
        import numpy as np

        @jax.jit
        def f(x, y):
            if isinstance(x, jax.Array):
                a = np.sum(x)
            else:
                a = np.sum(x)
            if isinstance(y, (int, np.ndarray)) and y.ndim:
                b = np.sum(y)
            else:
                b = np.sum(y)
            if not isinstance(x, np.ndarray):
                return np.mean(x)
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
            return np.sum(x) + np.random.rand()
        """
    diags = lint_source(src, select=["JAX104"])
    assert [d.fix is not None for d in diags] == [True, False]
    assert fixed("JAX104", src) == textwrap.dedent("""\
        import jax
        import numpy as np
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            return jnp.sum(x) + np.random.rand()
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
            return np.sum(x)
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
