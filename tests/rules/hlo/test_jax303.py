"""JAX303 slow-compile: tests beyond the rule's VALID/INVALID examples (which
tests/test_compile_rules.py runs), on real compiled output."""
from __future__ import annotations

import pytest

pytest.importorskip("jax")

from compile_helpers import compile_source  # noqa: E402
from jaxlint.rules.hlo.jax303_slow_compile import SlowCompile  # noqa: E402


def test_slow_compile_lists_trace_tier_contributors(tmp_path):
    facts, _ = compile_source(SlowCompile.VALID[0].code, tmp_path,
                              trace_facts={"equations": 4100, "loops": [{"line": 7, "iterations": 500}],
                                           "constants": [{"shape": [1024, 1024], "dtype": "float32",
                                                          "bytes": 4 << 20}]})
    (f,) = SlowCompile({"max-seconds": 0}).findings(facts)
    assert "unrolled loop at line 7 (500 iterations)" in f.message
    assert "4100 jaxpr equations" in f.message and "4.0 MiB" in f.message
    assert f.related[0][0].line == 7
