"""The static model reads values before annotations and defaults (issue 36, the twenty-first
recall round's model gaps and the last blind corpora's annotation classes), each a general
capability with VALID and INVALID fixtures, run here with real jax:

* a parameter with a Python default of a jitted method is traced when a call through an
  instance passes it (``gp.posterior(x, p, True)``): only jit's static arguments are static
  (``jitmap.EntryFinder._method_calls``);
* a key handed to a function received as a parameter draws when every call of the factory
  hands it a function that draws (``Scopes.passed_function`` in ``keys.KeyCallees``);
* a ``for`` target bound by ``zip`` is as traced as its own iterable, and an unannotated
  parameter every call hands an instance of a registered pytree class has that class's
  leaves (``taint.Taint``, ``flow.Flow``);
* an annotation is what the author says, not a value: a parameter annotated ``jax.Array``
  that a call of the module hands a NumPy array is no jax array, and one nothing but its
  annotation makes a jax array gives a likely warning (``arrays.annotated_only``);
* a module that uses a library whose code jax traces is read, even if it never writes
  "jax" (``checker.may_fire``).
"""
from __future__ import annotations

import numpy as np
import pytest

from helpers import lint_source
from jaxlint.diagnostic import Confidence, Severity
from rule_fixtures import FIXTURES, load_module


def _found(code: str, name: str):
    return [(d.start.line, d.severity, d.confidence) for d in lint_source(_code(code, name), select=[code])]


def _code(code: str, name: str) -> str:
    """The fixture's code as the rule reads it (header lines and markers off)."""
    lines = (FIXTURES / code / f"{name}.py").read_text().splitlines()
    body = [line.split("  # expect:")[0] for line in lines if not line.startswith("#: ")]
    return "\n".join(body) + "\n"


def test_a_defaulted_parameter_of_a_jitted_method_is_traced_when_a_call_passes_it_really():
    pytest.importorskip("jax")
    import jax

    # a bare unannotated name may be a container pytree (its truth static): likely, as any such
    assert [(s, c) for _, s, c in _found("JAX105", "invalid_jitted_method_default_passed")] == [
        (Severity.WARNING, Confidence.LIKELY)]
    assert _found("JAX105", "valid_jitted_method_default_kept") == []
    with pytest.raises(jax.errors.TracerBoolConversionError):
        load_module("JAX105", "invalid_jitted_method_default_passed").main()
    assert load_module("JAX105", "valid_jitted_method_default_kept").main().shape == (3,)


def test_a_key_handed_to_a_step_received_as_a_parameter_draws_the_same_numbers_really():
    pytest.importorskip("jax")
    assert len(_found("JAX114", "invalid_key_to_passed_step")) == 1
    assert _found("JAX114", "valid_key_to_passed_step_that_threads") == []
    _, outs = load_module("JAX114", "invalid_key_to_passed_step").main()
    o = np.asarray(outs)
    # the same noise at every step: each output less 0.9 of the one before is the first
    assert np.allclose(o[1:] - 0.9 * o[:-1], o[0], atol=1e-5) and np.abs(o[0]).sum() > 0
    _, calm = load_module("JAX114", "valid_key_to_passed_step_that_threads").main()
    assert not np.asarray(calm).any()


def test_a_pytree_leaf_read_through_zip_in_a_helper_of_a_jitted_caller_really_raises():
    pytest.importorskip("jax")
    import jax

    assert [(s, c) for _, s, c in _found("JAX105", "invalid_zip_leaf_through_caller")] == [
        (Severity.WARNING, Confidence.LIKELY)]  # traced through its caller: at most likely
    with pytest.raises(jax.errors.TracerBoolConversionError):
        load_module("JAX105", "invalid_zip_leaf_through_caller").main()


def test_what_the_callers_pass_wins_over_an_array_annotation_really():
    pytest.importorskip("jax")
    assert _found("JAX110", "valid_annotated_array_given_numpy") == []
    assert [(s, c) for _, s, c in _found("JAX110", "invalid_annotated_array_alone")] == [
        (Severity.WARNING, Confidence.LIKELY)]
    grads = load_module("JAX110", "valid_annotated_array_given_numpy").gradient(lambda p: np.sin(p).sum(), [0.0, 1.0])
    assert np.allclose(grads, np.cos([0.0, 1.0]), atol=1e-5)  # NumPy's in-place writes, as meant


FLAGS = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def shifted(x, flag):
        if flag:  # INVALID: every call passes a flag, which jit traces
            return x + 1
        return x

    @jax.jit
    def chosen(x, opts):
        if opts:  # a dict display at every call: its truth is its structure
            return x
        return -x

    def run_flag():
        return shifted(jnp.ones(2), True)

    def run_opts():
        return chosen(jnp.ones(2), {"a": 1})
"""


def _checked_and_run(src: str, code: str, expected: list) -> dict:
    """``src``'s ``code`` findings, held to ``expected`` (line, severity); then its namespace, run."""
    import textwrap

    assert [(d.start.line, d.severity) for d in lint_source(src, select=[code])] == expected
    namespace: dict = {}
    exec(textwrap.dedent(src), namespace)
    return namespace


def test_the_calls_tell_whether_a_bare_parameter_tested_for_truth_is_a_tracer_really():
    pytest.importorskip("jax")
    import jax

    namespace = _checked_and_run(FLAGS, "JAX105", [(6, Severity.ERROR)])
    with pytest.raises(jax.errors.TracerBoolConversionError):
        namespace["run_flag"]()
    assert namespace["run_opts"]().tolist() == [1.0, 1.0]


GIVEN_JAX = """
    import jax
    import jax.numpy as jnp

    def bump(point: jax.Array, i: int):
        point[i] += 1.0  # INVALID
        return point

    def run():
        return bump(jnp.zeros(3), 0)
"""


def test_an_annotated_parameter_the_callers_hand_a_jax_array_is_an_error_really():
    pytest.importorskip("jax")
    namespace = _checked_and_run(GIVEN_JAX, "JAX110", [(5, Severity.ERROR)])
    with pytest.raises(TypeError):
        namespace["run"]()


HAIKU_ONLY = """
    import haiku as hk


    def forward(x, rng, is_training):
        h = hk.Linear(16)(x)
        if is_training:
            h = hk.dropout(rng, 0.5, h)
        return hk.dropout(rng, 0.5, hk.Linear(16)(h))  # INVALID: the same mask's key again


    model = hk.transform(forward)
"""


def test_a_module_of_a_traced_library_that_never_writes_jax_is_read():
    """haiku is not installed here: what ``hk.dropout`` draws is ``apis.KEYED_DRAWS``'s
    claim, proven in test_jax114; this is the prefilter's part. The same module with
    ``import jax`` gives the same finding."""
    import textwrap

    from jaxlint.static.checker import may_fire

    class Rule:
        markers = ("jax",)

    assert [d.start.line for d in lint_source(HAIKU_ONLY, select=["JAX114"])] == [8]
    with_jax = "import jax\n" + textwrap.dedent(HAIKU_ONLY).lstrip("\n")
    assert [d.start.line - 1 for d in lint_source(with_jax, select=["JAX114"])] == [8]
    assert may_fire("import flax.linen as nn\n", [Rule()]) and may_fire("import haiku as hk\n", [Rule()])
    assert not may_fire("import numpy as np\n", [Rule()])
    assert may_fire("import numpy as np\n", [])  # no rule names a marker: every file is read


def test_a_python_default_wins_over_an_array_annotation_until_a_call_passes_the_parameter_really():
    pytest.importorskip("jax")
    import jax

    assert _found("JAX105", "valid_annotated_array_constant_default") == []
    src = _code("JAX105", "valid_annotated_array_constant_default")
    given = src.replace("step(jnp.ones(2)), step(jnp.ones(2))", "step(jnp.ones(2), 0.2)")
    namespace = _checked_and_run(given, "JAX105", [(7, Severity.ERROR)])
    with pytest.raises(jax.errors.TracerBoolConversionError):
        namespace["run"]()
    kept: dict = {}
    exec(src, kept)
    assert [round(float(a[0]), 6) for a in kept["run"]()] == [0.1, 0.1]  # the float default, as written
