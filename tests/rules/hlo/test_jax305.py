"""JAX305 folded-constant: tests beyond the rule's VALID/INVALID examples (which
tests/test_compile_rules.py runs), on real compiled output."""
from __future__ import annotations

import pytest

pytest.importorskip("jax")

from compile_helpers import compile_source  # noqa: E402
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
    assert len(list(FoldedConstant().findings(facts))) == 1
    facts.trace = {"constants": [{"shape": [1024, 512], "dtype": "float32", "bytes": 2 << 20}]}
    assert list(FoldedConstant().findings(facts)) == []
