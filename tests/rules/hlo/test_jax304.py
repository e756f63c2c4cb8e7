"""JAX304 memory-budget: tests beyond the rule's VALID/INVALID examples (which
tests/test_compile_rules.py runs), on real compiled output: the peak budget, which jax
reports from 0.10 on, and the data the finding carries."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("jax")

from compile_helpers import compile_source, reported  # noqa: E402
from jaxlint.rules.hlo.jax304_memory_budget import MemoryBudget  # noqa: E402
from jaxlint.textutil import human_bytes  # noqa: E402

#: the rule's own example: a 512 x 512 x 64 difference tensor (64 MiB) sorted in full
PAIRWISE = MemoryBudget.INVALID[1].code


def test_the_peak_budget_applies_where_jax_reports_a_peak_and_is_silent_where_it_does_not(tmp_path):
    facts, _ = compile_source(PAIRWISE, tmp_path)
    peak = facts.memory.get("peak_memory_in_bytes")
    only_peak = MemoryBudget({"max-temp-bytes": 1 << 40, "max-temp-ratio": 0, "max-peak-bytes": 1 << 10})
    found = reported(only_peak, facts)
    if peak is None:  # jax before 0.10: memory_analysis() has no peak
        assert found == []
        return
    (f,) = found
    assert f"needs a peak of {human_bytes(peak)} (budget 1.0 KiB)" in f.message, f.message
    assert "temporary" not in f.message.split(";")[0]
    assert f.data["peak_bytes"] == peak and f.data["temp_bytes"] == facts.memory["temp_size_in_bytes"]


def test_the_finding_carries_the_measured_bytes_and_points_at_the_intermediates(tmp_path):
    facts, _ = compile_source(PAIRWISE, tmp_path)
    (f,) = reported(MemoryBudget({"max-temp-bytes": 4 << 20}), facts)
    temp = facts.memory["temp_size_in_bytes"]
    assert temp >= 512 * 512 * 64 * 4  # the difference tensor itself is a temporary
    assert f.data["temp_bytes"] == temp
    assert f.data["io_bytes"] == facts.memory["argument_size_in_bytes"] + facts.memory["output_size_in_bytes"]
    assert f.message.startswith(f"`pairwise` needs {human_bytes(temp)} of temporary buffers (budget 4.0 MiB)")
    # at the line that computes the largest intermediate (the difference tensor); the
    # function's definition is related (no other line makes one of the largest)
    assert f.start.line == 7
    assert [(r.start.line, r.message) for r in f.related] == [(6, "`pairwise` is defined here")]
    # below every budget: quiet
    assert reported(MemoryBudget({"max-temp-bytes": temp, "max-temp-ratio": 0}), facts) == []


def test_kernels_of_one_shape_at_one_line_are_named_once(tmp_path):
    # on jax 0.10.2 the example's two 64 MiB kernels (one shape, one line) had been listed
    # twice: "64.0 MiB f32[512,512,64] at line 7; 64.0 MiB f32[512,512,64] at line 7"
    facts, _ = compile_source(PAIRWISE, tmp_path)
    (f,) = reported(MemoryBudget({"max-temp-bytes": 4 << 20}), facts)
    entries = f.message.split("largest intermediates: ", 1)[1].split("; ")
    named = [re.sub(r"^\d+ x ", "", e) for e in entries]
    assert len(named) == len(set(named)), f.message
    assert len({(r.path, r.start.line) for r in f.related}) == len(f.related)
