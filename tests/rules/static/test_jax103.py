"""JAX103 jit-per-call: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs).
``test_*_really_*`` run the snippets under real jax (CPU) to check that what the rule
claims is what jax does, and that what it leaves alone runs."""
from __future__ import annotations

import ast
import textwrap

import pytest

from helpers import fixed, lines, lint_source, messages
from static_rule_helpers import run_module


def test_jax103_immediate_jit_in_a_while_loop_and_comprehension_is_flagged():
    assert lines("JAX103", """
        import jax

        def f(x):
            return x + 1

        def run(x):
            while x.sum() < 10:
                x = jax.jit(f)(x)
            return [jax.jit(lambda v: v * 2)(v) for v in x]
        """) == [8, 9]


def test_jax103_jit_of_a_loop_variable_function_is_a_different_function_each_time():
    assert lines("JAX103", """
        import jax

        def bench(fns, x):
            for fn in fns:
                jax.jit(fn)(x)
            return {name: jax.jit(fn) for name, fn in zip("ab", fns)}
        """) == []


def test_jax103_wrapper_that_escapes_the_loop_is_a_table_not_a_rebuild():
    assert lines("JAX103", """
        import jax

        def build(cfgs):
            steps = []
            for cfg in cfgs:
                step = jax.jit(lambda x: x * 2)
                steps.append(step)
            return steps
        """) == []


def test_jax103_bound_method_and_nested_def_are_new_objects_each_call():
    msgs = messages("JAX103", """
        import jax

        class Model:
            def forward(self, x):
                return x * 2

            def predict(self, x):
                return jax.jit(self.forward)(x)

        def outer(x):
            def inner(v):
                return v + 1
            return jax.jit(inner)(x)
        """)
    assert len(msgs) == 2
    assert all("traced and compiled again" in m for m in msgs)
    assert "bound method `self.forward`" in msgs[0] and "nested def `inner`" in msgs[1]


def test_jax103_unknown_target_is_flagged_only_where_it_runs_repeatedly_with_a_hedged_message():
    src = """
        import jax

        def predict(model, x):
            return jax.jit(model.apply)(x)
        """
    assert messages("JAX103", src) == []
    (msg,) = messages("JAX103", src + """
        def serve(model, xs):
            while True:
                predict(model, xs)
        """)
    assert "if it is a new function object each time" in msg


def test_jax103_jit_of_any_other_expression_in_a_loop_is_a_maybe_not_a_crash():
    # `jax.jit(fns[0])`: neither a name, a lambda, a call nor an attribute (the rule used
    # to fail on it with an internal error)
    [message] = messages("JAX103", """
        import jax

        fns = [lambda x: x]

        def run(xs):
            out = []
            for x in xs:
                out.append(jax.jit(fns[0])(x))
            return out
        """)
    assert "a new jit wrapper of an expression on every iteration: if it is a new function object" in message


def test_jax103_nested_jit_created_once_and_called_in_a_loop_is_fine():
    assert lines("JAX103", """
        import jax

        def train(params, batches):
            @jax.jit
            def step(p, b):
                return p - 0.1 * b
            for b in batches:
                params = step(params, b)
            return params

        def main(params, batches):
            for _ in range(3):
                train(params, batches)
        """) == []


def test_jax103_jit_of_a_lambda_made_by_a_function_body_is_flagged_without_a_caller_in_a_loop():
    # every call of `evaluate` makes a new lambda and compiles it again (issue 19's fresh
    # corpus: jax-cosmo's romb); once per call to be reused in a loop stays clean
    src = """
        import jax

        def evaluate(params, x):
            fwd = jax.jit(lambda p, v: p * v)
            return fwd(params, x)
        """
    assert lines("JAX103", src) == [4]
    assert lines("JAX103", src + """
        def main(params, data):
            return [evaluate(params, x) for x in data]
        """) == [4]
    assert lines("JAX103", """
        import jax

        def evaluate(params, xs):
            fwd = jax.jit(lambda p, v: p * v)
            return [fwd(params, x) for x in xs]

        def setup(params, x):
            fwd = jax.jit(lambda p, v: p * v)
            return fwd(params, x)
        """) == []


def test_jax103_repeated_calls_propagate_through_callers():
    assert lines("JAX103", """
        import jax

        def apply(p, x):
            f = jax.jit(lambda a, b: a * b)
            return f(p, x)

        def epoch(p, data):
            return apply(p, data)

        def train(p, data):
            for _ in range(10):
                epoch(p, data)
        """) == [4]


def test_jax103_test_code_is_skipped_unless_asked():
    src = """
        import jax

        def f(x):
            return x

        class ModelTest:
            def test_jit(self):
                for i in range(3):
                    self.check(jax.jit(f)(i) + 1)
        """
    assert lines("JAX103", src) == []
    assert lines("JAX103", src, **{"check-tests": True}) == [9]
    assert lint_source("import jax\ndef f(x):\n    for i in x:\n        jax.jit(f)(i)\n", select=["JAX103"],
                       path="pkg/model_test.py") == []


def test_jax103_pmap_and_filter_jit_are_jit_wrappers_too():
    assert lines("JAX103", """
        import equinox as eqx
        import jax

        def f(x):
            return x

        def run(xs):
            for x in xs:
                jax.pmap(f)(x)
                eqx.filter_jit(f)(x)
        """) == [9, 10]


def test_jax103_fix_reuses_an_existing_module_level_wrapper():
    assert fixed("JAX103", """
        import jax

        def f(x):
            return x * 2

        f_fast = jax.jit(f)

        def run(xs):
            return [jax.jit(f)(x) for x in xs]
        """) == textwrap.dedent("""\
        import jax

        def f(x):
            return x * 2

        f_fast = jax.jit(f)

        def run(xs):
            return [f_fast(x) for x in xs]
        """)


@pytest.mark.parametrize("src", [
    # a static_argnums that is not a literal may depend on the call
    """
    import jax

    def f(x, n):
        return x * n

    def run(xs, spec):
        return [jax.jit(f, static_argnums=spec)(x, 2) for x in xs]
    """,
    # a lambda has no name to hoist
    """
    import jax

    def run(xs):
        return [jax.jit(lambda v: v + 1)(x) for x in xs]
    """,
    # the function is redefined in the loop: each iteration jits a new one
    """
    import jax

    def run(xs):
        for x in xs:
            def f(v):
                return v + x
            print(jax.jit(f)(x))
    """,
], ids=["non-literal-static-argnums", "lambda", "redefined-in-the-loop"])
def test_jax103_no_fix_where_hoisting_is_not_well_defined(src):
    diags = lint_source(src, select=["JAX103"])
    assert all(d.fix is None for d in diags)


@pytest.mark.parametrize("src, expected", [
    # f is a nested def: the wrapper is made in the function, before the loop
    ("""
    import jax

    def run(xs):
        def f(x):
            return x
        return [jax.jit(f)(x) for x in xs]
    """, """
    import jax

    def run(xs):
        def f(x):
            return x
        f_jit = jax.jit(f)
        return [f_jit(x) for x in xs]
    """),
    # jax is imported inside the function: so is the wrapper made
    ("""
    def f(x):
        return x

    def run(xs):
        import jax
        return [jax.jit(f)(x) for x in xs]
    """, """
    def f(x):
        return x

    def run(xs):
        import jax
        f_jit = jax.jit(f)
        return [f_jit(x) for x in xs]
    """),
], ids=["nested-def", "local-import"])
def test_jax103_fix_makes_a_local_wrapper_before_the_outermost_loop(src, expected):
    assert fixed("JAX103", src) == textwrap.dedent(expected).lstrip("\n")


def test_jax103_fix_name_avoids_every_name_in_the_module():
    out = fixed("JAX103", """
        import jax

        def g(x):
            return x

        def run(x, g_jit):
            for _ in range(3):
                x = jax.jit(g)(x)
            return x
        """)
    assert "g_jit_2 = jax.jit(g)" in out and "x = g_jit_2(x)" in out
    ast.parse(out)


# ------------------------------------------------------------------ real jax: the claims hold
jax = pytest.importorskip("jax")


def test_jax103_really_retraces_a_lambda_but_not_a_module_function():
    src = """
        import jax

        TRACES = []

        def f(x):
            TRACES.append(1)
            return x + 1

        def with_lambda(x):
            for _ in range(3):
                x = jax.jit(lambda v: f(v))(x)
            return x

        def with_function(x):
            for _ in range(3):
                x = jax.jit(f)(x)
            return x
        """
    diags = lint_source(src, select=["JAX103"])
    assert [(d.start.line, d.data["recompiles"]) for d in diags] == [(11, True), (16, False)]
    ns = run_module(src)
    ns["with_lambda"](jax.numpy.ones(2))
    assert len(ns["TRACES"]) == 3
    ns["TRACES"].clear()
    ns["with_function"](jax.numpy.ones(2))
    assert len(ns["TRACES"]) == 1


def test_jax103_files_that_jit_only_through_equinox_or_flax_are_checked(tmp_path):
    """A file that never names `jax` (it jits with `eqx.filter_jit` / `nnx.jit` only)
    is still parsed: the engine's text prefilter knows equinox and flax (scope50)."""
    from helpers import run_cli
    (tmp_path / "eqx_only.py").write_text(textwrap.dedent("""\
        import equinox as eqx

        def f(m, x):
            return m(x)

        def run(model, xs):
            for x in xs:
                y = eqx.filter_jit(lambda m: m(x))(model)
            return y
        """))
    (tmp_path / "nnx_only.py").write_text(textwrap.dedent("""\
        from flax import nnx

        def run(model, xs):
            for x in xs:
                y = nnx.jit(lambda m, x: m(x))(model, x)
            return y
        """))
    proc = run_cli("check", "--isolated", "--no-cache", "--select", "JAX103", "--output-format", "json", ".",
                   cwd=tmp_path)
    import json
    found = sorted((d["filename"].rsplit("/", 1)[-1], d["location"]["row"]) for d in json.loads(proc.stdout))
    assert found == [("eqx_only.py", 8), ("nnx_only.py", 5)], proc.stdout + proc.stderr


def test_jit_made_in_one_arm_of_a_conditional_expression_really_retraces():
    """``step = jit(core) if compile else core`` in a method called per step (recall round 18,
    casoptax-c8df6b3): each call makes a new nested def and jit traces it again, three traces
    for three calls under real jax (fixture ``invalid_conditional_arm``); the wrapper made
    once in set-up traces once (``valid_conditional_arm``)."""
    pytest.importorskip("jax")
    from rule_fixtures import load_module

    assert load_module("JAX103", "invalid_conditional_arm").main() == 3
    assert load_module("JAX103", "valid_conditional_arm").main() == 1
