"""JAX105 traced-control-flow: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs).
``test_*_really_*`` run the snippets under real jax (CPU) to check that what the rule
claims is what jax does, and that what it leaves alone runs."""
from __future__ import annotations

import ast
import textwrap

import pytest

from helpers import json_findings, lines, lint_source, run_cli
from jaxlint.diagnostic import Severity
from jaxlint.static.semantic import ModuleModel
from static_rule_helpers import LAX_IDIOMS, all_findings, example, marked, run_module, outcomes_under_jax


def traced_params(src: str) -> dict[str, set[str]]:
    model = ModuleModel(ast.parse(textwrap.dedent(src)), "m")
    return {f.qualname: set(f.traced_params) for f in model.functions if f.traced}


def test_jax105_each_python_conversion_is_reported_once():
    diags = lint_source("""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, y):
            if x.sum() > 0 and not y.any():
                x = -x
            while bool(x.mean() > 1):
                x = x / 2
            return [v for v in x if v > 0]
        """, select=["JAX105"])
    assert [(d.start.line, d.data["construct"]) for d in diags] == [
        (6, "if"), (8, "bool()"), (10, "comprehension filter")]
    assert all(d.severity is Severity.ERROR for d in diags)


@pytest.mark.parametrize("test", [
    "x.shape[0] > 1", "x.ndim == 2 or x.size == 0", "x.dtype == jnp.float32", "len(x) > 3",
    "mask is None", "isinstance(x, tuple)", "jnp.issubdtype(x.dtype, jnp.floating)",
    "cfg.use_bias", "config.n > 2", "mode == 'train'", "args", "kwargs", "options",
    "jax.lax.axis_size('i') > 1", "jax.device_count() > 1", "extra",
])
def test_jax105_static_tests_stay_clean(test):
    assert lines("JAX105", f"""
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, cfg, config, mode, mask=None, *args, options=(), **kwargs):
            extra = jax.tree.map(lambda v: v, args)
            if {test}:
                x = x + 1
            return x
        """) == []


def test_jax105_declared_flag_of_a_jitted_function_is_an_error_and_a_bare_pytree_a_warning():
    diags = lint_source("""
        import jax

        @jax.jit
        def f(x, training: bool, batch):
            if training:
                x = x * 2
            if batch:
                x = x + 1
            return x
        """, select=["JAX105"])
    assert [(d.start.line, d.severity) for d in diags] == [(5, Severity.ERROR), (7, Severity.WARNING)]
    assert "make `training` a static argument" in diags[0].message
    assert "pytree container" in diags[1].message


def test_jax105_comprehension_variables_do_not_leak_between_comprehensions():
    assert lines("JAX105", """
        import operator
        import jax

        @jax.jit
        def f(x, sizes=(1, 2)):
            starts = [i * 2 for i in x]
            sizes = tuple(operator.index(i) for i in sizes)
            return starts, sizes
        """) == []


def test_jax105_helper_called_with_python_values_is_clean_and_with_tracers_is_not():
    src = """
        import jax

        def scale(x, factor):
            if factor > 1:
                return x * factor
            return x

        @jax.jit
        def f(x, y):
            return scale(x, 2.0) + scale(x, {arg})
        """
    assert lines("JAX105", src.replace("{arg}", "3")) == []
    assert lines("JAX105", src.replace("{arg}", "y")) == [4]


def test_jax105_grad_traces_only_argnums_and_vmap_in_axes_none_stays_python():
    assert traced_params("""
        import jax

        def loss(params, x, training):
            return params

        def g(x, n):
            return x

        @jax.jit
        def step(params, x):
            a = jax.grad(loss)(params, x, True)
            b = jax.grad(loss, argnums=(0, 1))
            return a, b, jax.vmap(g, in_axes=(0, None))
        """) == {"step": {"params", "x"}, "loss": {"params", "x"}, "g": {"x"}}


def test_jax105_non_literal_static_argnums_leaves_parameters_unknown():
    assert lines("JAX105", """
        import jax

        STATIC = (1,)

        def f(x, n):
            if n > 2:
                return x
            return -x

        g = jax.jit(f, static_argnums=STATIC)
        h = jax.jit(f, **{"static_argnums": 1})
        """) == []


def test_jax105_partial_keywords_bound_before_vmap_are_not_traced():
    assert lines("JAX105", """
        import functools
        import jax

        def kernel(q, k, block=16, normalize=True):
            assert q.shape[-1] % block == 0
            if normalize:
                q = q / 2
            return q @ k

        def run(q, k):
            inner = functools.partial(kernel, block=32, normalize=False)
            return jax.vmap(inner)(q, k)
        """) == []


def test_jax105_results_of_grad_and_vmap_transforms_are_certainly_traced():
    diags = lint_source("""
        import jax

        @jax.jit
        def step(params, batch):
            loss, grads = jax.value_and_grad(loss_fn)(params, batch)
            grad_fn = jax.grad(loss_fn)
            g2 = grad_fn(params, batch)
            if loss < 0.1 or g2 > 0:
                params = params * 0.5
            return params

        def loss_fn(p, b):
            return (p * b).sum()
        """, select=["JAX105"])
    assert [(d.start.line, d.severity) for d in diags] == [(8, Severity.ERROR)]


def test_grad_results_are_traced_even_through_an_annotated_pytree_parameter():
    # `state: TrainState` hides `state.params` (its fields may be static), but what the
    # gradient transform returns under jit is staged out whatever went in
    src = """
        import jax
        import numpy as np
        from flax.training.train_state import TrainState

        @jax.jit
        def train_step(state: TrainState, batch: dict):
            def loss_fn(params):
                logits = state.apply_fn({"params": params}, batch["image"])
                return logits.mean(), logits

            (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
            if loss > 10:
                loss = loss * 0.0
            return state.apply_gradients(grads=grads), np.exp(logits)
        """
    assert lines("JAX105", src) == [12]
    assert lines("JAX104", src) == [14]
    # a filtered transform may return Python values: no certainty there
    assert lines("JAX105", """
        import equinox as eqx

        @eqx.filter_jit
        def step(model: eqx.Module, x):
            out = eqx.filter_jit(lambda m: m.describe())(model)
            if out:
                return x
            return x * 2
        """) == []


# ------------------------------------------------------------------ real jax: the claims hold
jax = pytest.importorskip("jax")


@pytest.mark.parametrize("index, call, error", [
    (0, "relu(1.0)", "TracerBoolConversionError"),
    (1, "solve(jnp.ones(3))", "TracerBoolConversionError"),
    (3, "f(1.0, 2)", "ConcretizationTypeError"),
    (4, "in_range(0.5)", "TracerBoolConversionError"),
    (5, "f(1.0, 2.0)", "TracerBoolConversionError"),
    (6, "run(1.0)", "TracerBoolConversionError"),
    (7, "f(1.0, 3)", "TracerIntegerConversionError"),
    (8, "train_step(__import__('collections').namedtuple('State', 'step')(3), 1.0)",
     "TracerBoolConversionError"),
])
def test_jax105_really_fails_at_trace_time(index, call, error):
    from jaxlint.rules.static.jax105_traced_control_flow import TracedControlFlow

    src = example(TracedControlFlow, index, call)
    assert lines("JAX105", src), "the rule must flag what jax rejects"
    with pytest.raises(Exception) as e:
        run_module(src)["result"]()
    assert type(e.value).__name__ == error


@pytest.mark.parametrize("src", [LAX_IDIOMS + """
    result = lambda: (rnn({"layers": [jnp.eye(3)]}, jnp.ones((4, 3)), 1),
                      batched(None, jnp.ones((2, 3)), 3), clip_step(jnp.ones(3)))
    """, """
    import jax
    def loss(params, x, training):
        if training:
            x = x * 2
        return (params * x).sum()
    @jax.jit
    def step(params, x):
        return jax.grad(loss)(params, x, True)
    result = lambda: step(1.0, 2.0)
    """, """
    import functools
    import jax
    def kernel(q, block=16, normalize=True):
        assert q.shape[-1] % block == 0
        if normalize:
            q = q / 2
        return q
    inner = functools.partial(kernel, block=2, normalize=False)
    result = lambda: jax.vmap(inner)(jax.numpy.ones((3, 4)))
    """], ids=["lax-idioms", "grad-python-flag", "vmap-partial-keywords"])
def test_jax105_really_clean_code_traces(src):
    assert all_findings(src) == []
    run_module(src)["result"]()


GRAD_ALONE = '''
import jax


def loss(w):
    if w > 0:
        w = w * 1.0
    n = int(w)
    f = float(w)  # <-
    return w * 2.0 + n


def train(w):
    for _ in range(3):
        w = w - 0.1 * jax.grad(loss)(w)
    return w
'''


def test_jax105_under_grad_alone_only_float_and_complex_fail():
    # jax.grad applied outside any trace runs `loss` on JVP tracers with concrete primals:
    # `if w > 0:` and int(w) work there, float(w) raises (real jax below; scope40)
    marked = [i for i, line in enumerate(GRAD_ALONE.lstrip("\n").splitlines(), 1) if line.endswith("# <-")]
    assert lines("JAX105", GRAD_ALONE) == marked
    src = GRAD_ALONE.replace("    f = float(w)  # <-\n", "")
    assert outcomes_under_jax({"with float": (GRAD_ALONE, "train(1.0)"), "without": (src, "train(1.0)")}) == {
        "with float": "ConcretizationTypeError", "without": "ok"}


def test_named_call_hands_its_arguments_through_as_given():
    """``jax.named_call(f)(x, False)`` only names ``f``'s part of the program: the Python
    flag arrives as a bool (a false error on the sealed corpus unopened36); a traced flag
    passed the same way still raises, and is still reported. Proven with real jax."""
    head = """
        import jax
        import jax.numpy as jnp

        def _apply(x, reverse):
            if bool(reverse):
                return x[::-1]
            return x
        """
    python_flag = head + """
        @jax.jit
        def f(x):
            return jax.named_call(_apply, name="apply")(x, False)
        """
    traced_flag = head + """
        @jax.jit
        def f(x):
            return jax.named_call(_apply, name="apply")(x, x.sum() > 0)
        """
    assert lines("JAX105", python_flag) == []
    assert lines("JAX105", traced_flag) == [5]
    outcomes = outcomes_under_jax({name: (textwrap.dedent(src), "str(f(jnp.ones(2)))")
                                   for name, src in (("python", python_flag), ("traced", traced_flag))})
    assert outcomes["python"] == "[1. 1.]" and outcomes["traced"] == "TracerBoolConversionError", outcomes


def test_jax105_and_jax111_through_callers_are_warnings_though_they_raise():
    """A function traced only because a jitted one calls it: the callers' binding is not
    proof (taint.through_callers), so its findings are likely warnings, while the same
    test in the jitted function itself stays an error. Both really raise under jax."""
    import jax
    import jax.numpy as jnp

    src = """
        import jax
        import jax.numpy as jnp

        def helper(x, n):
            if x.sum() > 0:
                x = -x
            return x + jnp.zeros(n)

        @jax.jit
        def f(x, n):
            if x.sum() > 0:
                x = -x
            return helper(x, n) + jnp.zeros(n)
        """
    diags = lint_source(src, select=["JAX105", "JAX111"])
    got = sorted((d.code, d.start.line, d.severity.value, d.confidence.value) for d in diags)
    assert got == [("JAX105", 5, "warning", "likely"), ("JAX105", 11, "error", "certain"),
                   ("JAX111", 7, "warning", "likely"), ("JAX111", 13, "error", "certain")]
    assert "called from traced `f`" in next(d.message for d in diags if d.start.line == 5)
    # a finding kind of its own (taint.THROUGH_CALLERS_KINDS), measured apart in rule_figures.json
    kinds = sorted((d.code, d.start.line, d.data.get("kind")) for d in diags)
    assert kinds == [("JAX105", 5, "through-callers"), ("JAX105", 11, None),
                     ("JAX111", 7, "through-callers"), ("JAX111", 13, None)]

    def helper(x):
        if x.sum() > 0:
            x = -x
        return x

    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(lambda x: helper(x))(jnp.ones(3))
    with pytest.raises(TypeError):
        jax.jit(lambda x, n: jnp.zeros(n))(jnp.ones(3), 2)


DEBUG_MODE = """
    import jax
    import jax.numpy as jnp
    from jax import config

    SEEN = []

    def check(x):
        if jax.config.jax_disable_jit:
            SEEN.append(type(x).__name__)
            assert not jnp.any(jnp.isnan(x)), "nans"
        if not config.jax_disable_jit:
            pass
        else:
            SEEN.append(float(x.sum()))
        return x

    @jax.jit
    def step(xs):
        return jax.lax.map(check, xs)

    def batched(x):
        if jax.config.jax_disable_jit:
            assert not jnp.any(jnp.isnan(x))  # <- vmap traces with the flag on
        return x

    @jax.jit
    def nested(x):
        with jax.disable_jit():
            if jax.config.jax_disable_jit:
                assert not jnp.any(jnp.isnan(x))  # <- a trace already running reads the flag on
        return x

    def run_jitted():
        step(jnp.ones((2, 3)))
        return str(SEEN)

    def run_debug():
        with jax.disable_jit():
            step(jnp.ones((2, 3)))
        return str(SEEN)

    def run_vmap_debug():
        with jax.disable_jit():
            jax.vmap(batched)(jnp.ones((2, 3)))
    """


def test_jax105_disable_jit_debug_arms_are_eager_only():
    """An arm under a test of ``jax_disable_jit`` (``jax.config.jax_disable_jit``,
    ``config.jax_disable_jit`` after ``from jax import config``, the ``else`` of ``if not
    ...:``) in a function only jits and lax loops trace is never traced: under jit the flag
    is off and the arm is skipped, with the flag on jit and ``lax.map`` run it as Python on
    concrete arrays (blind54's false finding, ssm-jax's nan asserts). Under ``vmap``, and
    in a ``with jax.disable_jit():`` inside a jitted function, the arm still runs on
    tracers and stays reported. Proven with real jax."""
    marked = [i for i, line in enumerate(DEBUG_MODE.lstrip("\n").splitlines(), 1) if line.endswith(("# <-",))
              or "# <- " in line]
    assert lines("JAX105", DEBUG_MODE) == marked and len(marked) == 2
    outcomes = outcomes_under_jax({"jitted": (textwrap.dedent(DEBUG_MODE), "run_jitted()"),
                                   "debug": (textwrap.dedent(DEBUG_MODE), "run_debug()"),
                                   "vmap": (textwrap.dedent(DEBUG_MODE), "run_vmap_debug()"),
                                   "nested": (textwrap.dedent(DEBUG_MODE), "str(nested(jnp.ones(3)))")})
    assert outcomes == {"jitted": "[]",  # the arms were not traced: nothing recorded, nothing raised
                        "debug": "['ArrayImpl', 3.0, 'ArrayImpl', 3.0]",  # run on concrete arrays
                        "vmap": "TracerBoolConversionError", "nested": "TracerBoolConversionError"}, outcomes


@pytest.mark.parametrize("test", ["jax.config.jax_disable_jit", "config.jax_disable_jit",
                                  "jax.config.read('jax_disable_jit')", "debug and jax.config.jax_disable_jit"])
def test_jax105_disable_jit_tests_decide_the_arm(test):
    src = f"""
        import jax
        from jax import config

        @jax.jit
        def f(x, debug=True):
            if {test}:
                print(float(x))
            if not ({test}):
                return x
            return float(x)
        """
    assert lines("JAX105", src) == []
    assert lines("JAX105", src.replace("@jax.jit", "@jax.pmap")) == [7, 10]  # pmap traces with the flag on


def test_jax105_disable_jit_arm_of_a_jit_transformed_again_is_checked():
    """A jit that another transform wraps (`@jax.vmap` over `@jax.jit`, `@partial(jax.vmap)`,
    `jax.vmap(jax.jit(f))`, `jax.vmap(g)` of `g = jax.jit(f)`): under `jax.disable_jit()`
    the vmap still traces, so the flag's arm runs on tracers (recall case jax-3994, run with
    real jax in tests/test_recall_blind.py) and stays reported; the plain jit's does not."""
    src = """
        import functools
        import jax

        @jax.vmap
        @jax.jit
        def normalise(row):
            if jax.config.jax_disable_jit:
                assert row.min() > 0  # <-
            return row / row.sum()

        def a(row):
            if jax.config.jax_disable_jit:
                assert row.min() > 0  # <-
            return row
        g = jax.vmap(jax.jit(a))

        def b(row):
            if jax.config.jax_disable_jit:
                assert row.min() > 0  # <-
            return row
        bj = jax.jit(b)
        h = jax.vmap(bj)

        @functools.partial(jax.vmap, in_axes=0)
        @jax.jit
        def d(row):
            if jax.config.jax_disable_jit:
                assert row.min() > 0  # <-
            return row

        @jax.jit
        def e(row):
            if jax.config.jax_disable_jit:
                assert row.min() > 0
            return row
        """
    marked = [i for i, line in enumerate(textwrap.dedent(src).lstrip("\n").splitlines(), 1) if "# <-" in line]
    assert lines("JAX105", src) == marked and len(marked) == 4


def test_jax105_disable_jit_arm_of_a_loop_that_traces_under_disable_jit_is_checked():
    """`flax.nnx.fori_loop` traces its body with `jax_disable_jit` on (flax 0.12.8:
    ConcretizationTypeError on `float()` in the arm), where `jax.lax.fori_loop` and
    `nnx.scan` call it with concrete arrays: only the first stays reported."""
    src = """
        import jax
        import jax.numpy as jnp
        from flax import nnx

        def body(i, x):
            if jax.config.jax_disable_jit:
                print(float(x.sum()))  # <-
            return x

        def lax_body(i, x):
            if jax.config.jax_disable_jit:
                print(float(x.sum()))
            return x

        def run(x):
            return nnx.fori_loop(0, 2, body, x)

        def run_lax(x):
            return jax.lax.fori_loop(0, 2, lax_body, x)
        """
    marked = [i for i, line in enumerate(textwrap.dedent(src).lstrip("\n").splitlines(), 1) if "# <-" in line]
    assert lines("JAX105", src) == marked
    outcomes = outcomes_under_jax({
        name: (textwrap.dedent(src) + "\ndef go():\n    with jax.disable_jit():\n"
               f"        {name}(jnp.ones(3))\n", "go()") for name in ("run", "run_lax")})
    assert outcomes == {"run": "ConcretizationTypeError", "run_lax": "ok"}, outcomes


TRACER_GUARDS = """
import functools

import jax
import jax.numpy as jnp
from jax.core import Tracer

seen = []


def is_tracer(value):
    \"\"\"Whether ``value`` is a tracer (inside jit, vmap, scan).\"\"\"
    import jax

    return isinstance(value, jax.core.Tracer)


def solve(x):
    return x * 2.0, jnp.all(x > 0)


@jax.jit
def guarded(x):
    if not is_tracer(x) and bool(jnp.any(x < 0.0)):
        raise ValueError("negative")
    ok = isinstance(x, Tracer) or bool(jnp.all(x > 0))
    if is_tracer(x):
        pass
    else:
        seen.append(float(x.sum()))
    g, c = solve(x)
    if not isinstance(g, jax.core.Tracer):
        seen.append(bool(c))
    if isinstance(x, jax.core.Tracer):
        return x
    seen.append(float(x.mean()))
    return x


@jax.jit
def wrong_way(x):
    if not is_tracer(x) or bool(jnp.any(x < 0.0)):  # INVALID
        return x
    return x


@functools.partial(jax.jit, static_argnames="x")
def other_name(x, y):
    if not is_tracer(x) and bool(jnp.any(y < 0.0)):  # INVALID
        return y
    return y
"""


def test_jax105_conversions_a_tracer_test_rules_out_are_eager_only():
    """Code reached only when a tracer test says "not a tracer" (``isinstance(x,
    jax.core.Tracer)``, or a helper returning it, under ``not``/``and``/``or``/``else``/
    an early ``return``) runs only on concrete values: under jit the test short-circuits,
    eagerly it runs (blind55b's bioafferent validations). A name unpacked from the same
    call as the tested one is concrete with it (normix's ``bool(converged)``). A test of
    another name (a static one here), or of the wrong polarity, proves nothing.
    Proven with real jax."""
    assert lines("JAX105", TRACER_GUARDS) == marked(TRACER_GUARDS)
    assert len(marked(TRACER_GUARDS)) == 2
    src = textwrap.dedent(TRACER_GUARDS)
    outcomes = outcomes_under_jax({
        "jitted": (src, "str((guarded(jnp.ones(3)), seen)[1])"),  # every guarded conversion skipped
        "eager": (src, "str((guarded.__wrapped__(jnp.ones(3)), seen)[1])"),  # each runs on concrete values
        "eager-raises": (src, "guarded.__wrapped__(-jnp.ones(3))"),
        "wrong_way": (src, "wrong_way(jnp.ones(3))"),
        "other_name": (src, "other_name(1.0, jnp.ones(3))"),  # `x` static: a Python float
    })
    assert outcomes == {"jitted": "[]", "eager": "[3.0, True, 1.0]", "eager-raises": "ValueError",
                        "wrong_way": "TracerBoolConversionError", "other_name": "TracerBoolConversionError"}, outcomes


def test_jax105_a_tracer_test_helper_of_another_module_guards(tmp_path):
    """The helper may live in another module of the checked tree (``from
    pkg.validation import is_tracer``): its body is read there."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "validation.py").write_text(
        "import jax\n\n\ndef is_tracer(value):\n    return isinstance(value, jax.core.Tracer)\n\n\n"
        "def is_array(value):\n    return isinstance(value, jax.Array)\n")
    (root / "pkg" / "model.py").write_text(textwrap.dedent("""
        import jax
        import jax.numpy as jnp
        from pkg.validation import is_array, is_tracer


        @jax.jit
        def step(x):
            if not is_tracer(x) and bool(jnp.any(x < 0.0)):
                raise ValueError("negative")
            if not is_array(x) and bool(jnp.any(x < 0.0)):
                raise ValueError("negative")
            return x
        """).lstrip("\n"))
    proc = run_cli("check", "--no-cache", "--select", "JAX105", "--output-format", "json", "pkg/model.py", cwd=root)
    assert proc.returncode == 1, proc.stderr
    # `is_array` is true of concrete arrays too: `not is_array(x)` proves nothing of a tracer
    assert [d["location"]["row"] for d in json_findings(proc, "JAX105")] == [10]


def test_function_passed_as_parameter_is_followed_and_really_raises():
    """``score(...)`` where ``score`` is a parameter every caller fills with the same def of the
    module (recall round 18, viperleed-jax-2d9178e): the call runs that def with the call's
    arguments, so a traced flag reaches its ``if``; fixtures ``invalid_passed_function`` /
    ``valid_passed_function`` (the flag static), both run here under real jax. A lambda, or a
    name that holds two functions over the callers, is not followed (no finding, by decision)."""
    from rule_fixtures import load_module

    with pytest.raises(jax.errors.TracerBoolConversionError):
        load_module("JAX105", "invalid_passed_function").main()
    assert load_module("JAX105", "valid_passed_function").main().shape == (3,)
    head = """
        from functools import partial
        import jax
        import jax.numpy as jnp

        def plain(x, flag):
            if flag:
                return x
            return -x

        def other(x, flag):
            if flag:
                return 2 * x
            return x

        @partial(jax.jit, static_argnames=("score",))
        def run(x, score, flag):
            return score(x, flag)
        """
    two = head + """
        def main(x):
            return run(x, plain, True) + run(x, other, True)
        """
    lam = head + """
        def main(x):
            return run(x, lambda v, f: v * f, True)
        """
    one = head + """
        def main(x):
            return run(x, plain, True) + run(x, plain, False)
        """
    assert lines("JAX105", two) == [] and lines("JAX105", lam) == []
    assert lines("JAX105", one) == [6]
    assert outcomes_under_jax({"one": (textwrap.dedent(one), "main(1.0)"),
                               "two": (textwrap.dedent(two), "main(1.0)")}) == {
        "one": "TracerBoolConversionError", "two": "TracerBoolConversionError"}


@pytest.mark.parametrize("name", ["remat_flag", "checkpoint_default", "remat_module_level", "jit_module_level",
                                  "scan_module_level"])
def test_checkpoint_traces_what_it_is_given_really(name):
    """``nn.remat`` / ``jax.checkpoint`` (and ``jax.jit`` called at once) trace every argument
    they are given, a Python flag with a default too, but the static ones; ``nn.remat``'s
    ``static_argnums`` count ``self`` as 0 (recall round 18, titans-jax-d5c2678: ``(4,)`` misses
    the flag at 5). A linen class lifted at module level runs its lifted ``__call__`` through
    ``init`` / ``apply`` too (recall round 19, flax-3946), under ``nn.jit`` (keywords traced but
    ``static_argnames``) and ``nn.scan`` / ``nn.vmap`` (``in_axes``: ``nn.broadcast`` / ``None``
    hand a Python value over). Fixtures ``invalid_<name>`` / ``valid_<name>``, run under real
    jax/flax."""
    from rule_fixtures import load_module

    with pytest.raises(jax.errors.TracerBoolConversionError):
        load_module("JAX105", f"invalid_{name}").main()
    load_module("JAX105", f"valid_{name}").main()


def test_linen_remat_static_argnums_count_self_really():
    """Which argument ``nn.remat(Cls, static_argnums=(n,))`` keeps a Python value, under real
    flax: the ``n``-th parameter of ``__call__`` counting ``self`` as 0."""
    nn = pytest.importorskip("flax.linen")
    import jax.numpy as jnp

    seen: list[list[str]] = []

    class Probe(nn.Module):
        @nn.compact
        def __call__(self, a, b, c):
            seen.append([type(v).__name__ for v in (a, b, c)])
            return nn.Dense(2)(a)

    for n in (1, 2, 3):
        class Outer(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.remat(Probe, static_argnums=(n,))()(x, 1.0, True)

        Outer().init(jax.random.key(0), jnp.ones((1, 2)))
    concrete = [[not t.endswith("Tracer") for t in row] for row in seen]
    assert concrete == [[True, False, False], [False, True, False], [False, False, True]], seen


def test_call_of_the_instance_itself_is_followed_really():
    """``self(x, flag)`` in a jitted method runs the class's ``__call__`` with those arguments
    (recall round 18, wobble-jax-150c43f): a traced flag reaches its ``if``; raises under real
    jax, and the Python flag runs."""
    src = """
        from functools import partial
        import jax
        import jax.numpy as jnp

        class Gate:
            def __call__(self, x, flag):
                if flag:
                    return x
                return -x

            @partial(jax.jit, static_argnums=0)
            def both(self, x):
                return self(x, x.sum() > 0)

            def plain(self, x):
                return self(x, True)

        def main():
            return Gate().both(jnp.ones(2))
        """
    assert lines("JAX105", src) == [7]
    quiet = src.replace("return self(x, x.sum() > 0)", "return self(x, False)")
    assert lines("JAX105", quiet) == []
    assert outcomes_under_jax({"traced": (textwrap.dedent(src), "main()"),
                               "python": (textwrap.dedent(quiet), "str(main())")}) == {
        "traced": "TracerBoolConversionError", "python": "[-1. -1.]"}


def test_what_runs_only_after_a_caught_conversion_and_host_callbacks_are_eager_really():
    """A ``try:`` whose body converts a tracer (``rr = float(residual)``) with a handler that
    catches jax's error: under a trace the rest of the body and the ``else:`` arm never run,
    so ``report`` is not traced from there; handed to ``jax.debug.callback`` (in a
    ``lax.cond``, under jit and inside a scan), ``jax.pure_callback`` or ``io_callback`` it
    runs on the host with concrete arrays (blind56's zoomy-jax). Eagerly both arms run.
    Where the body's conversion does not surely raise under the trace (in one arm of an
    ``if``, of a Python value, ``int()`` of a JVP tracer under an eager ``jax.grad``) the
    ``else:`` arm runs and its callee raises: fixtures ``valid_try_else_eager`` /
    ``invalid_try_else_live``, run here under jax 0.10.2."""
    import jax
    import jax.numpy as jnp
    from rule_fixtures import load_module

    good = load_module("JAX105", "valid_try_else_eager")
    out, total, seen = good.main()
    assert seen == [(3.0, 2.0), (3.0, 5.0), (3.0, 5.0)] and float(total) == 18.0, seen
    good._step(jnp.ones(3), 7.0)
    assert seen[3:] == [(3.0, 7.0), (3.0, 7.0)]
    bad = load_module("JAX105", "invalid_try_else_live")
    for call in (lambda: bad.checked_when_asked(jnp.ones(3), 1.0), lambda: bad.python_limit(jnp.ones(3), 1.0),
                 lambda: bad.train(2.0)):
        with pytest.raises(jax.errors.ConcretizationTypeError):
            call()


@pytest.mark.parametrize("body, dead", [
    ("rr = float(y)", True),
    ("rr = 2 * float(jnp.sum(y)) + 1", True),
    ("if float(y) > 0:\n    pass", True),
    ("rr = (not ok) and float(y)", False),  # the second operand of `and` may not run
    ("rr = 1.0 if ok else float(y)", False),  # one arm of a conditional expression
    ("rr = (lambda: float(y))", False),  # not called here
    ("rr = float(scale)", False),  # a Python value
])
def test_only_a_conversion_that_always_runs_on_a_tracer_kills_the_else_arm(body, dead):
    src = f"""
        import jax
        import jax.numpy as jnp

        def show(t):
            print(float(t))

        @jax.jit
        def f(y, ok=True, scale=2.0):
            try:
{textwrap.indent(body, " " * 16)}
            except TypeError:
                pass
            else:
                show(y)
            return y
        """
    assert lines("JAX105", src) == ([] if dead else [5])
    # dead: the body raises under jit, the handler runs, `show` never does; live: the else
    # arm runs under the trace and `show` raises there
    assert outcomes_under_jax({"f": (textwrap.dedent(src), "str(f(jnp.float32(2.0)))")}) == {
        "f": "2.0" if dead else "ConcretizationTypeError"}


def test_a_call_in_an_arm_the_trace_never_takes_traces_nothing_really():
    """``report(y)`` in the arm a function jitted only under a flag runs without it, or in
    the eager arm of a jitted twin's dispatch, runs only eagerly: under jax 0.10.2 the
    traced runs report nothing and the eager ones report once each (fixture
    ``valid_eager_arm_callee``); in an arm the trace takes (a flag the jit does not
    decide) it runs under the trace and raises (``invalid_eager_arm_callee``)."""
    import jax
    from rule_fixtures import load_module

    traced, eager, seen = load_module("JAX105", "valid_eager_arm_callee").main()
    assert seen == [3.0, 3.0], seen
    with pytest.raises(jax.errors.ConcretizationTypeError):
        load_module("JAX105", "invalid_eager_arm_callee").main()


def test_a_host_callbacks_function_is_not_traced_really():
    """The function handed to ``jax.debug.callback`` / ``jax.pure_callback`` /
    ``io_callback`` (a def, a bound method, a lambda calling a def, a ``partial`` binding a
    Python value, under jit and in a scan body) runs on the host with concrete arrays:
    ``float()`` there works (jax 0.10.2), and the model traces none of them."""
    src = """
        import functools

        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.experimental import io_callback

        seen = []

        def helper(r, t_now):
            seen.append((float(r), float(t_now)))

        class Solver:
            def _host(self, r):
                seen.append(float(r))

            @functools.partial(jax.jit, static_argnums=0)
            def step(self, x, t):
                rel = jnp.sum(x)
                jax.debug.callback(self._host, rel)
                jax.debug.callback(lambda r, tn: helper(r, tn), rel, t)
                jax.debug.callback(functools.partial(helper, t_now=1.0), rel)
                jax.lax.scan(lambda c, v: (c, jax.debug.callback(helper, v, c)), t, x)
                back = jax.pure_callback(lambda r: np.float32(float(r)), jax.ShapeDtypeStruct((), jnp.float32), rel)
                return io_callback(lambda r: np.float32(float(r) + 1), jax.ShapeDtypeStruct((), jnp.float32), back)

        def main():
            out = Solver().step(jnp.ones(2), 5.0)
            jax.effects_barrier()
            return str((float(out), sorted(map(str, seen))))  # debug callbacks are unordered
        """
    assert lines("JAX105", src) == []
    assert outcomes_under_jax({"main": (textwrap.dedent(src), "main()")}) == {
        "main": str((3.0, sorted(map(str, [2.0, (2.0, 5.0), (2.0, 1.0), (1.0, 5.0), (1.0, 5.0)]))))}


PRIMALS = """
    import jax
    import jax.numpy as jnp

    def f(p, flag=True):
        if flag:
            return p * 2
        return p

    def g(p, q, scale=1.0):
        if scale > 0:
            return p * q
        return p

    def h(p, n):
        if n > 0:
            return p
        return -p

    def run_f(x):
        return jax.linearize(f, x)[0]

    def run_g(x):
        return jax.vjp(g, x, x)[0]

    def run_h(x):
        return jax.jvp(h, (x, 3.0), (x, 0.0))[0]
    """


def test_jvp_vjp_and_linearize_trace_the_primals_they_pass_not_the_defaults_after_them():
    """``jax.linearize(f, x)`` / ``jax.vjp(g, x, x)`` run ``f``/``g`` on the primals given:
    a parameter after them keeps its Python default (opttx's per-sample losses, blind56b:
    a false error), while every primal given is traced, a Python float too (``h``'s ``n``).
    Under jit, as jax runs them."""
    src = PRIMALS + """
    run_f = jax.jit(run_f)
    run_g = jax.jit(run_g)
    run_h = jax.jit(run_h)
    """
    diags = lint_source(src, select=["JAX105"])
    assert [(d.start.line, d.severity.value) for d in diags] == [(15, "error")]
    outcomes = outcomes_under_jax({name: (textwrap.dedent(PRIMALS), f"str(jax.jit({name})(jnp.ones(2)))")
                                   for name in ("run_f", "run_g", "run_h")})
    assert outcomes["run_f"].startswith("[") and outcomes["run_g"].startswith("[")
    assert outcomes["run_h"] == "TracerBoolConversionError", outcomes


def test_a_truth_test_in_a_try_whose_handler_catches_it_falls_back_really():
    """An ``if``/conditional expression/``and`` on a tracer in a ``try:`` whose handler
    catches TracerBoolConversionError (``except Exception``, ``except (ValueError,
    Exception)``, ``except TypeError``) and does not raise again: under jax 0.10.2's jit
    the error is raised, caught, and the handler's fallback is the result (blind57's
    polytopax); eagerly the body runs. A handler that raises again, one that catches only
    ``ValueError``, or the test in the ``else:`` arm: tracing fails (fixtures
    ``valid_caught_truth`` / ``invalid_caught_truth_reraised``)."""
    import jax
    import jax.numpy as jnp
    from rule_fixtures import load_module

    good = load_module("JAX105", "valid_caught_truth")
    plane = jnp.eye(2) * 2.0
    assert float(good.distance(jnp.ones(2), plane)) == -1.0  # the handler's fallback under jit
    assert abs(float(good.distance.__wrapped__(jnp.ones(2), plane)) - 2.0 ** 0.5 / 4.0) < 1e-6  # eager: the body
    assert float(good.consensus(jnp.float32(1.0), jnp.float32(1.05))) == 1.0  # fallback `a`, not the mean
    assert abs(float(good.consensus.__wrapped__(jnp.float32(1.0), jnp.float32(1.05))) - 1.025) < 1e-6
    assert float(good.clipped(jnp.float32(-1.5))) == -1.5  # fallback: y = x, ok = False
    assert float(good.clipped.__wrapped__(jnp.float32(-1.5))) == 1.5
    bad = load_module("JAX105", "invalid_caught_truth_reraised")
    for fn in (bad.logged, bad.other_error, bad.in_else):
        with pytest.raises(jax.errors.TracerBoolConversionError):
            fn(jnp.float32(2.0))


def test_jax105_aux_data_of_a_flatten_handed_on_by_a_lambda_is_static_under_real_jax():
    """tests/fixtures/rules/JAX105/{valid,invalid}_registered_aux_lambda.py: ``register_pytree_node(C,
    lambda obj: obj._tree_flatten(), ...)`` flattens as the method does: what it returns as aux
    data is a Python value under jit, what it returns as children a tracer."""
    from pathlib import Path

    here = Path(__file__).resolve().parents[2] / "fixtures" / "rules" / "JAX105"
    valid = (here / "valid_registered_aux_lambda.py").read_text()
    invalid = (here / "invalid_registered_aux_lambda.py").read_text()
    assert lines("JAX105", valid) == []
    assert lines("JAX105", invalid) == [i for i, t in enumerate(invalid.splitlines(), 1) if "# expect: JAX105" in t]
    got = outcomes_under_jax({
        "both": (valid, "str(float(response(Terms(2.0), 3.0)))"),
        "neither": (valid, "str(float(response(Terms(2.0, False, False), 3.0)))"),
        "invalid": (invalid, "gated(Gated(1.0, True))"),
    })
    assert got == {"both": "8.0", "neither": "0.0", "invalid": "TracerBoolConversionError"}, got


def test_jax105_all_and_any_of_traced_elements_really_raise():
    """Recall round 20 (secon-bvar-b1cb216): the builtins ``all()`` and ``any()`` call
    ``bool()`` on each element, so an element computed from a traced value raises under jit,
    and the fix (``jnp.all`` over the stacked tests) with static tests in Python runs.
    Fixtures ``invalid_element_truth`` / ``valid_element_truth``."""
    jax = pytest.importorskip("jax")
    from rule_fixtures import load_module

    bad = load_module("JAX105", "invalid_element_truth")
    with pytest.raises(jax.errors.TracerBoolConversionError):
        bad.main()
    with pytest.raises(jax.errors.TracerBoolConversionError):
        bad.either_positive(1.0, -1.0)
    assert float(load_module("JAX105", "valid_element_truth").main()) == 1.0
