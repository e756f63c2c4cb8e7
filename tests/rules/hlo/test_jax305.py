"""JAX305 folded-constant: tests beyond the rule's VALID/INVALID examples (which
tests/test_compile_rules.py runs), on real compiled output."""
from __future__ import annotations

import pytest

pytest.importorskip("jax")

from compile_helpers import compile_source, reported  # noqa: E402
from jaxlint.rules.hlo.jax305_folded_constant import FoldedConstant  # noqa: E402


def test_folded_constant_defers_to_the_trace_tier_for_captured_arrays(tmp_path):
    src = """
    import jax
    import numpy as np

    W = np.ones((1024, 512), np.float32) * np.arange(512, dtype=np.float32)

    # jaxlint: args=(f32[8,1024],)
    @jax.jit
    def f(x):
        return x @ W
    """
    facts, _ = compile_source(src, tmp_path)
    assert len(reported(FoldedConstant(), facts)) == 1
    facts.trace = {"constants": [{"shape": [1024, 512], "dtype": "float32", "bytes": 2 << 20}]}
    assert reported(FoldedConstant(), facts) == []


def test_a_folded_constant_is_reported_at_the_operation_that_builds_it(tmp_path):
    # `jnp.zeros(...).at[0, 0].set(1.0)` folds to one constant that keeps the scatter's
    # line; its use and the function's definition are related
    facts, _ = compile_source(FoldedConstant.INVALID[0].code, tmp_path)
    (f,) = reported(FoldedConstant(), facts)
    assert f.start.line == 7
    assert [(r.start.line, r.message) for r in f.related] == [(8, "used here"), (6, "`f` is defined here")]
