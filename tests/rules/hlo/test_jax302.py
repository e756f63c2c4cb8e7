"""JAX302 donation: tests beyond the rule's VALID/INVALID examples (which
tests/test_compile_rules.py runs), on real compiled output."""
from __future__ import annotations

import pytest

pytest.importorskip("jax")

from compile_helpers import compile_source, reported  # noqa: E402
from jaxlint.rules.hlo.jax302_donation import Donation  # noqa: E402


def test_donation_is_quiet_for_a_gradient_of_the_same_shape_as_params(tmp_path):
    src = next(v.code for v in Donation.VALID if "def grads" in v.code)
    facts, _ = compile_source(src, tmp_path)
    assert [a.top for a in facts.args] == ["params", "params", "x"]
    assert reported(Donation(), facts) == []


def test_donation_facts_map_pruned_and_donated_arguments(tmp_path):
    src = """
    import functools
    import jax

    # jaxlint: args=({"w": f32[8,4], "b": f32[8,4]}, f32[8,4], f32[8,4])
    @functools.partial(jax.jit, donate_argnums=(0, 2))
    def update(state, batch, unused):
        return {k: v - 0.1 * batch for k, v in state.items()}, batch.sum()
    """
    facts, _ = compile_source(src, tmp_path)
    by_path = {a.path: a for a in facts.args}
    assert by_path["unused"].parameter is None and by_path["unused"].donated
    assert by_path["state['w']"].donated and by_path["state['w']"].parameter is not None
    assert {o.path for o in facts.outputs} == {"[0]['b']", "[0]['w']", "[1]"}
    assert reported(Donation({"min-bytes": 0}), facts) == []
