"""JAX301 unfused-op: tests beyond the rule's VALID/INVALID examples (which
tests/test_compile_rules.py runs), on real compiled output."""
from __future__ import annotations

import pytest

pytest.importorskip("jax")

from compile_helpers import CALLBACK_SPLIT, compile_source, reported  # noqa: E402
from jaxlint.compile.facts import CompileFacts  # noqa: E402
from jaxlint.rules.hlo.jax301_unfused_op import UnfusedOp  # noqa: E402


def test_unfused_op_names_producer_and_consumer_lines_and_bytes(tmp_path):
    facts, _ = compile_source(CALLBACK_SPLIT, tmp_path)
    (f,) = reported(UnfusedOp(), facts)
    assert f.data["producer_lines"] == [8] and f.data["consumer_lines"] == [10]
    assert f.data["bytes"] == 2 * 512 * 1024 * 4
    assert "4.0 MiB" in f.message
    assert {r.start.line for r in f.related} == {8, 10}


#: the shape XLA:GPU leaves when it does not merge a one-op fusion into its producer
#: (written by hand: CPU CI cannot compile for a GPU)
TWO_KERNELS_HLO = """\
HloModule jit_f, entry_computation_layout={(f32[1024,1024]{1,0})->f32[1024,1024]{1,0}}

%fused_computation (param_0: f32[1024,1024]) -> f32[1024,1024] {
  %param_0 = f32[1024,1024]{1,0} parameter(0)
  %exponential.0 = f32[1024,1024]{1,0} exponential(f32[1024,1024]{1,0} %param_0), metadata={op_name="jit(f)/exp" source_file="/p/m.py" source_line=7}
  ROOT %multiply.0 = f32[1024,1024]{1,0} multiply(f32[1024,1024]{1,0} %exponential.0, f32[1024,1024]{1,0} %exponential.0), metadata={op_name="jit(f)/mul" source_file="/p/m.py" source_line=7}
}

%fused_computation.1 (param_0.1: f32[1024,1024]) -> f32[1024,1024] {
  %param_0.1 = f32[1024,1024]{1,0} parameter(0)
  ROOT %log.0 = f32[1024,1024]{1,0} log(f32[1024,1024]{1,0} %param_0.1), metadata={op_name="jit(f)/log" source_file="/p/m.py" source_line=8}
}

ENTRY %main.1 (Arg_0.1: f32[1024,1024]) -> f32[1024,1024] {
  %Arg_0.1 = f32[1024,1024]{1,0} parameter(0), metadata={op_name="x"}
  %exp_mul_fusion = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %Arg_0.1), kind=kLoop, calls=%fused_computation, metadata={op_name="jit(f)/mul" source_file="/p/m.py" source_line=7}
  ROOT %log_fusion = f32[1024,1024]{1,0} fusion(f32[1024,1024]{1,0} %exp_mul_fusion), kind=kLoop, calls=%fused_computation.1, metadata={op_name="jit(f)/log" source_file="/p/m.py" source_line=8}
}
"""


@pytest.mark.parametrize("platform,found", [("cpu", 0), ("cuda", 1), ("tpu", 1)])
def test_single_op_fusion_after_its_producer_fusion_is_reported_only_for_accelerators(platform, found):
    facts = CompileFacts(function="f", file="/p/m.py", line=5, hlo_text=TWO_KERNELS_HLO, platform=platform)
    findings = reported(UnfusedOp({"min-bytes": 0}), facts)
    assert len(findings) == found
    if found:
        assert findings[0].message.startswith("single-op fusion (log) from line 8 runs as its own kernel "
                                              "after the fusion from line 7; 4.0 MiB")
