"""How often code runs (``jaxlint/static/runs.py``): code made once per object or per key,
and blocks where jax runs Python eagerly; and what the model's traced set makes of them."""
from __future__ import annotations

import ast
import textwrap

import pytest

from helpers import lint_source
from jaxlint.diagnostic import Confidence
from jaxlint.static.runs import eager_block, made_once
from jaxlint.static.semantic import ModuleModel


def model_of(src: str) -> ModuleModel:
    return ModuleModel(ast.parse(textwrap.dedent(src)), "m")


def _marked(model: ModuleModel) -> dict[str, bool]:
    """``made_once`` of every call of ``work()``, by the name of its enclosing function."""
    out = {}
    for call in model.nodes(ast.Call):
        if isinstance(call.func, ast.Name) and call.func.id == "work":
            fn = model.function_of(call)
            out[fn.name] = made_once(model, call, fn)
    return out


def test_made_once_forms():
    model = model_of("""
        import functools

        _MEMO = {}

        class C:
            @functools.cached_property
            def prop(self):
                return work()

            def attr_memo(self):
                if self._v is None:
                    self._v = work()
                return self._v

            def hasattr_memo(self):
                if not hasattr(self, "_w"):
                    setattr(self, "_w", work())
                return self._w

            def getattr_memo(self):
                if getattr(self, "_g", None) is None:
                    self._g = work()
                return self._g

            def every_call(self):
                return work()

        @functools.lru_cache(maxsize=8)
        def lru(n):
            return work()

        @functools.cache
        def cached(n):
            return work()

        def dict_memo(k):
            if k not in _MEMO:
                _MEMO[k] = work()
            return _MEMO[k]

        def early_return(k):
            if k in _MEMO:
                return _MEMO[k]
            value = work()
            _MEMO[k] = value
            return value

        def local_default(x, fn=None):
            if fn is None:  # filled on every call: not a memo
                fn = work()
            return fn

        def local_dict(keys):
            seen = {}
            for k in keys:
                if k not in seen:  # a new dict per call
                    seen[k] = work()
            return seen

        def guard_elsewhere(self):
            if self._a is None:  # the block stores something else
                self._b = work()
    """)
    assert _marked(model) == {
        "prop": True, "attr_memo": True, "hasattr_memo": True, "getattr_memo": True, "every_call": False,
        "lru": True, "cached": True, "dict_memo": True, "early_return": True,
        "local_default": False, "local_dict": False, "guard_elsewhere": False,
    }


@pytest.mark.parametrize("ctx_expr,expected", [
    ("jax.disable_jit()", "jax.disable_jit"),
    ("jax.ensure_compile_time_eval()", "jax.ensure_compile_time_eval"),
    ("open('f')", None),
])
def test_eager_block(ctx_expr, expected):
    model = model_of(f"""
        import jax

        def run(x):
            with {ctx_expr}:
                y = work(x)
            return work(y)
    """)
    calls = sorted((c for c in model.nodes(ast.Call) if isinstance(c.func, ast.Name) and c.func.id == "work"),
                   key=lambda c: c.lineno)
    assert [eager_block(model, c) for c in calls] == [expected, None]


def test_disable_jit_keeps_lax_bodies_and_jit_calls_eager():
    """Under ``jax.disable_jit()`` a scan body and ``jax.jit(f)(x)`` run as Python: not
    traced; the same calls outside the block trace their functions; vmap traces either way."""
    model = model_of("""
        import jax

        def body(c, x):
            return c + x, c

        def body2(c, x):
            return c + x, c

        def f(x):
            return x

        def g(x):
            return x

        def h(x):
            return x

        def run(xs):
            with jax.disable_jit():
                jax.lax.scan(body, 0.0, xs)
                jax.jit(f)(xs)
                jax.vmap(h)(xs)
            jax.lax.scan(body2, 0.0, xs)
            return jax.jit(g)(xs)
    """)
    traced = {fn.name for fn in model.traced_functions()}
    assert {"body2", "g", "h"} <= traced
    assert not {"body", "f"} & traced


def test_findings_carry_the_models_confidence():
    """JAX103/JAX114/JAX102 findings say how sure the model is: a new function object
    re-wrapped in a loop is certain, a re-wrap per call of a function likely; a key reused
    by two jax.random draws is certain, through a helper believed to draw likely; a loop
    over a trailing axis only possible (left out of the default selection)."""
    src = """
        import jax
        import jax.numpy as jnp

        def draw(key, n):
            return jax.random.normal(key, (n,))

        def train(x, batches, key):
            for b in batches:
                x = jax.jit(lambda v: v + b)(x)
            a = jax.random.normal(key, (3,))
            c = jax.random.uniform(key, (3,))
            d = draw(key, 3)
            return x, a, c, d

        def predict(params, x):
            return jax.jit(lambda p, v: p @ v)(params, x)

        @jax.jit
        def components(field):
            out = field
            for c in range(field.shape[-1]):
                out = out.at[..., c].add(field[..., c])
            return out
    """
    found = {(d.code, d.start.line): d.confidence
             for d in lint_source(src, select=["JAX102", "JAX103", "JAX114"], confidence="possible")}
    assert found[("JAX103", 9)] is Confidence.CERTAIN
    assert found[("JAX103", 16)] is Confidence.LIKELY
    assert found[("JAX114", 11)] is Confidence.CERTAIN
    assert found[("JAX114", 12)] is Confidence.LIKELY
    assert found[("JAX102", 21)] is Confidence.POSSIBLE
    default = {(d.code, d.start.line) for d in lint_source(src, select=["JAX102", "JAX103", "JAX114"])}
    assert ("JAX102", 21) not in default and ("JAX103", 9) in default


def test_only_one_arm_of_a_conditional_expression_runs():
    from jaxlint.static.taint import CERTAIN, POSSIBLE, Taint

    model = model_of("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, scale=None):
            one = scale if scale is not None else 2.0
            both = x if scale is None else x * 2
            host = x if isinstance(x, float) else x.sum()
            array = x.sum() if isinstance(x, jax.Array) else 0.0
            return one, both, host, array
    """)
    fn = next(f for f in model.functions if f.name == "f")
    taint = Taint(model, fn)
    assert {n: taint.names.get(n) for n in ("one", "both", "host", "array")} == {
        "one": POSSIBLE, "both": CERTAIN, "host": CERTAIN, "array": CERTAIN}


def test_static_rules_ask_the_value_model():
    """Whether a value is traced is the value model's answer (``taint.Taint``, with its
    certainty), not ``ModuleModel.is_traced_expr``'s yes/no: no rule calls the latter."""
    from pathlib import Path

    rules = Path(__file__).resolve().parent.parent / "rules" / "static"
    callers = sorted(p.name for p in rules.glob("jax*.py") if "is_traced_expr(" in p.read_text())
    assert callers == []


def test_made_once_in_a_lambda_whose_body_is_an_expression():
    """A lambda's body is one expression, not a list of statements: ``made_once`` of a
    call in it answers instead of failing (JAX103 failed on three files of the opened
    corpora, a jit made in a lambda, and reported nothing in them)."""
    model = model_of("""
        import jax

        def f(y):
            return y + 1

        apply = lambda x: jax.jit(f)(x)
    """)
    call = next(c for c in model.nodes(ast.Call) if isinstance(c.func, ast.Attribute) and c.func.attr == "jit")
    assert made_once(model, call, model.function_of(call)) is False
    assert lint_source("""
        import jax

        def f(y):
            return y + 1

        apply = lambda x: jax.jit(f)(x)
    """, select=["JAX103"]) == []  # the rule ran (the helper fails on a rule's error); the jit of a
    # module-level function is cached by jax, not made again per call
