"""JAX107 tracer-leak: tests beyond the rule's VALID/INVALID examples (which
tests/test_rule_examples.py runs).
``test_*_really_*`` run the snippets under real jax (CPU) to check that what the rule
claims is what jax does, and that what it leaves alone runs."""
from __future__ import annotations

import functools

import pytest

from helpers import lines, lint_source
from jaxlint.diagnostic import Severity
from static_rule_helpers import example, run_module


def test_jax107_helper_called_in_the_same_trace_may_write_to_its_callers_list():
    assert lines("JAX107", """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(xs):
            outs = []
            def emit(v):
                outs.append(v * 2)
            for i in range(3):
                emit(xs[i])
            return jnp.stack(outs)
        """) == []


def test_jax107_vmap_body_appending_to_the_enclosing_list_leaks():
    assert lines("JAX107", """
        import jax

        @jax.jit
        def f(xs):
            seen = []
            def g(x):
                seen.append(x)
                return x * 2
            ys = jax.vmap(g)(xs)
            return ys, seen[0]
        """) == [7]


def test_jax107_methods_named_like_container_mutators_are_not_containers():
    assert lines("JAX107", """
        import jax
        import optax

        def fit(params, grads):
            opt = optax.sgd(0.1)
            state = opt.init(params)
            metrics = MetricsWriter()

            @jax.jit
            def step(params, state, grads):
                updates, state = opt.update(grads, state, params)
                metrics.add(updates)
                return optax.apply_updates(params, updates), state
            return step(params, state, grads)
        """) == []


def test_jax107_module_state_attribute_and_global_dict_are_leaks():
    diags = lint_source("""
        import types
        import jax

        STATE = types.SimpleNamespace(last=None)
        HISTORY = {}

        @jax.jit
        def f(x):
            global HISTORY
            STATE.last = x
            HISTORY["x"] = x
            return x
        """, select=["JAX107"])
    assert [d.start.line for d in diags] == [10, 11]
    assert "module state" in diags[0].message and "a global" in diags[1].message


def test_jax107_self_container_is_a_leak_but_constructors_and_flax_modules_are_not():
    diags = lint_source("""
        from functools import partial
        import jax
        import flax.linen as nn

        class Tracker:
            def __init__(self):
                self.history = []

            @partial(jax.jit, static_argnums=0)
            def step(self, x):
                self.history.append(x)
                return x

        class Block(nn.Module):
            @nn.compact
            def __call__(self, x):
                self.last = x
                return x

        @jax.jit
        def build(x):
            return Tracker().step(x)
        """, select=["JAX107"])
    assert [d.start.line for d in diags] == [11]


def test_jax107_value_from_an_opaque_call_is_a_warning():
    (d,) = lint_source("""
        import jax

        CACHE = []

        @jax.jit
        def f(x):
            CACHE.append(model(x))
            return x
        """, select=["JAX107"])
    assert d.severity is Severity.WARNING
    assert d.confidence.value == "likely"


# ------------------------------------------------------------------ real jax: the claims hold
jax = pytest.importorskip("jax")


def test_jax107_really_leaks_a_tracer():
    from jaxlint.rules.static.jax107_tracer_leak import TracerLeak

    src = example(TracerLeak, 0, "(step(jax.numpy.ones(3)), losses[0] + 1)")
    assert lines("JAX107", src) == [8]
    with pytest.raises(jax.errors.UnexpectedTracerError):
        run_module(src)["result"]()


def test_jax107_callback_holding_a_traced_value_really_gets_the_tracer():
    """A host callback's function that binds (``partial``) or closes over a traced value runs
    after the trace with the tracer, not its value: the host function sees a tracer,
    ``jax.check_tracer_leaks`` reports the leak, and using it there (``loss * 2`` in the lambda,
    ``np.add`` of the bound operand) fails at run time; passed as operands (the valid fixture), values
    arrive as arrays. Fixtures ``invalid_callback_holds_tracer`` / ``valid_callback_holds_tracer``."""
    import jax.numpy as jnp
    from rule_fixtures import load_module

    seen: list[str] = []

    def record(step, loss):
        seen.append(type(step).__name__)

    good = load_module("JAX107", "valid_callback_holds_tracer")
    good.log = record  # the host function the callbacks call, by its module name
    good.step(jnp.ones(3), 2)
    jax.effects_barrier()
    assert len(seen) == 5 and not any(t.endswith("Tracer") for t in seen), seen

    bad = load_module("JAX107", "invalid_callback_holds_tracer")
    bad.log = record
    with pytest.raises(Exception, match="Leaked trace"):
        with jax.check_tracer_leaks():
            bad.step(jnp.ones(3), 2)
    with pytest.raises(Exception, match="UnexpectedTracerError|TracerArrayConversionError"):
        bad.step(jnp.ones(3), 2)
        jax.effects_barrier()

    seen.clear()  # the bound value alone, printed: the host gets the tracer
    jax.jit(lambda x, i: jax.debug.callback(functools.partial(record, i), x))(jnp.ones(3), 2)
    jax.effects_barrier()
    assert seen == ["DynamicJaxprTracer"], seen
