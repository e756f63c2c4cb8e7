"""Every jaxlint rule, in one explicit registry. One file per rule:

* ``rules/static/``  JAX1xx: source patterns (Python's ast; never imports jax)
* ``rules/jaxpr/``   JAX2xx: the traced program (trace tier)
* ``rules/hlo/``     JAX3xx: the optimized HLO (compile tier)

Importing this module imports no rule: a static check (pre-commit, an editor) loads the
static rules it selects, and never the trace and compile rules. What selecting a static
rule reads (its code, name, groups, role) is ``STATIC_INDEX``, written from the classes
by ``python -m jaxlint.docgen`` (tests/test_docs_in_sync.py fails while it is stale); the
trace and compile tiers' codes are listed in ``LAZY_CODES`` (kept in sync with the
classes by tests/test_registry.py). ``STATIC_RULES`` and ``RULES``, the static tier's
classes and the whole list, are built on first use, which imports them. ``PACK`` is what
the entry points hand the registry (``jaxlint.registry.provide``): the engine imports no
rule.
"""
from __future__ import annotations

import os

from jaxlint.registry import RuleEntry, RulePack


def _static_rules() -> list:
    """The static tier's classes, in the registry's order (imports every static rule)."""
    from jaxlint.findings.engine import ParseError
    from jaxlint.rules.static.jax101_captured_array import CapturedArray
    from jaxlint.rules.static.jax102_python_loop_in_jit import PythonLoopInJit
    from jaxlint.rules.static.jax103_jit_per_call import JitPerCall
    from jaxlint.rules.static.jax104_numpy_on_tracer import NumpyOnTracer
    from jaxlint.rules.static.jax105_traced_control_flow import TracedControlFlow
    from jaxlint.rules.static.jax106_side_effect_in_jit import SideEffectInJit
    from jaxlint.rules.static.jax107_tracer_leak import TracerLeak
    from jaxlint.rules.static.jax108_static_arg_hazard import StaticArgHazard
    from jaxlint.rules.static.jax109_host_callback import HostCallback
    from jaxlint.rules.static.jax110_discarded_update import DiscardedUpdate
    from jaxlint.rules.static.jax111_data_dependent_shape import DataDependentShape
    from jaxlint.rules.static.jax112_float64 import Float64
    from jaxlint.rules.static.jax113_donation_misuse import DonationMisuse
    from jaxlint.rules.static.jax114_prng_key_reuse import PrngKeyReuse
    from jaxlint.rules.static.jax115_timing_without_sync import TimingWithoutSync
    from jaxlint.rules.static.jax116_one_value_randint import OneValueRandint
    from jaxlint.rules.static.jax117_jacobian_then_contract import JacobianThenContract
    from jaxlint.rules.static.jax190_unused_noqa import UnusedNoqa

    return [
        ParseError,
        CapturedArray,
        PythonLoopInJit,
        JitPerCall,
        NumpyOnTracer,
        TracedControlFlow,
        SideEffectInJit,
        TracerLeak,
        StaticArgHazard,
        HostCallback,
        DiscardedUpdate,
        DataDependentShape,
        Float64,
        DonationMisuse,
        PrngKeyReuse,
        TimingWithoutSync,
        OneValueRandint,
        JacobianThenContract,
        UnusedNoqa,
    ]


# static-index-start: written by `python -m jaxlint.docgen` from _static_rules(), do not edit
STATIC_INDEX = (
    RuleEntry("JAX100", "parse-error", "correctness", (), "parse-error",
              "jaxlint.findings.engine", "ParseError"),
    RuleEntry("JAX101", "captured-array", "perf", (), None,
              "jaxlint.rules.static.jax101_captured_array", "CapturedArray"),
    RuleEntry("JAX102", "python-loop-in-jit", "pedantic", ("perf",), None,
              "jaxlint.rules.static.jax102_python_loop_in_jit", "PythonLoopInJit"),
    RuleEntry("JAX103", "jit-per-call", "pedantic", (), None,
              "jaxlint.rules.static.jax103_jit_per_call", "JitPerCall"),
    RuleEntry("JAX104", "numpy-on-tracer", "nursery", (), None,
              "jaxlint.rules.static.jax104_numpy_on_tracer", "NumpyOnTracer"),
    RuleEntry("JAX105", "traced-control-flow", "correctness", ("correctness",), None,
              "jaxlint.rules.static.jax105_traced_control_flow", "TracedControlFlow"),
    RuleEntry("JAX106", "side-effect-in-jit", "nursery", ("nursery",), None,
              "jaxlint.rules.static.jax106_side_effect_in_jit", "SideEffectInJit"),
    RuleEntry("JAX107", "tracer-leak", "nursery", (), None,
              "jaxlint.rules.static.jax107_tracer_leak", "TracerLeak"),
    RuleEntry("JAX108", "static-arg-hazard", "pedantic", (), None,
              "jaxlint.rules.static.jax108_static_arg_hazard", "StaticArgHazard"),
    RuleEntry("JAX109", "host-callback", "pedantic", (), None,
              "jaxlint.rules.static.jax109_host_callback", "HostCallback"),
    RuleEntry("JAX110", "discarded-update", "correctness", (), None,
              "jaxlint.rules.static.jax110_discarded_update", "DiscardedUpdate"),
    RuleEntry("JAX111", "data-dependent-shape", "correctness", ("correctness",), None,
              "jaxlint.rules.static.jax111_data_dependent_shape", "DataDependentShape"),
    RuleEntry("JAX112", "float64", "pedantic", (), None,
              "jaxlint.rules.static.jax112_float64", "Float64"),
    RuleEntry("JAX113", "donation-misuse", "nursery", (), None,
              "jaxlint.rules.static.jax113_donation_misuse", "DonationMisuse"),
    RuleEntry("JAX114", "prng-key-reuse", "pedantic", ("suspicious", "pedantic", "nursery"), None,
              "jaxlint.rules.static.jax114_prng_key_reuse", "PrngKeyReuse"),
    RuleEntry("JAX115", "timing-without-sync", "pedantic", (), None,
              "jaxlint.rules.static.jax115_timing_without_sync", "TimingWithoutSync"),
    RuleEntry("JAX116", "one-value-randint", "nursery", (), None,
              "jaxlint.rules.static.jax116_one_value_randint", "OneValueRandint"),
    RuleEntry("JAX117", "jacobian-then-contract", "nursery", (), None,
              "jaxlint.rules.static.jax117_jacobian_then_contract", "JacobianThenContract"),
    RuleEntry("JAX190", "unused-noqa", "pedantic", (), None,
              "jaxlint.rules.static.jax190_unused_noqa", "UnusedNoqa"),
)
# static-index-end

#: tier -> the codes of its rules, known without importing them
LAZY_CODES = {
    "trace": ("JAX200", "JAX201", "JAX202", "JAX203", "JAX204", "JAX205", "JAX206", "JAX207",
              "JAX208", "JAX209", "JAX210", "JAX211", "JAX212", "JAX213"),
    "compile": ("JAX301", "JAX302", "JAX303", "JAX304", "JAX305", "JAX306", "JAX310", "JAX311",
                "JAX312", "JAX313", "JAX314", "JAX315", "JAX316", "JAX317"),
}


def __getattr__(name: str) -> list:
    if name == "STATIC_RULES":
        globals()["STATIC_RULES"] = static = _static_rules()
        return static
    if name != "RULES":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from jaxlint.findings.engine import AnalysisFailed
    from jaxlint.rules.jaxpr.jax201_large_constant import LargeConstant
    from jaxlint.rules.jaxpr.jax202_unrolled_loop import UnrolledLoop
    from jaxlint.rules.jaxpr.jax203_host_callback_traced import HostCallbackTraced
    from jaxlint.rules.jaxpr.jax204_float64_op import Float64Op
    from jaxlint.rules.jaxpr.jax205_trace_error import TraceError
    from jaxlint.rules.jaxpr.jax206_large_program import LargeProgram
    from jaxlint.rules.jaxpr.jax207_large_intermediate import LargeIntermediate
    from jaxlint.rules.jaxpr.jax208_recompilation import Recompilation
    from jaxlint.rules.jaxpr.jax209_constant_fold import ConstantFold
    from jaxlint.rules.jaxpr.jax210_donated_buffer_reused import DonatedBufferReused
    from jaxlint.rules.jaxpr.jax211_constant_random_key import ConstantRandomKey
    from jaxlint.rules.jaxpr.jax212_eager_recompilation import EagerRecompilation
    from jaxlint.rules.jaxpr.jax213_eager_dispatch import EagerDispatch
    from jaxlint.rules.hlo.jax301_unfused_op import UnfusedOp
    from jaxlint.rules.hlo.jax302_donation import Donation
    from jaxlint.rules.hlo.jax303_slow_compile import SlowCompile
    from jaxlint.rules.hlo.jax304_memory_budget import MemoryBudget
    from jaxlint.rules.hlo.jax305_folded_constant import FoldedConstant
    from jaxlint.rules.hlo.jax306_cost_budget import CostBudget
    from jaxlint.rules.hlo.jax310_replicated_argument import ReplicatedArgument
    from jaxlint.rules.hlo.jax311_collective_in_step import CollectiveInStep
    from jaxlint.rules.hlo.jax312_output_reshard import OutputReshard
    from jaxlint.rules.hlo.jax313_callback_in_partitioned import CallbackInPartitioned
    from jaxlint.rules.hlo.jax314_involuntary_remat import InvoluntaryRemat
    from jaxlint.rules.hlo.jax315_hbm_fit import HbmFit
    from jaxlint.rules.hlo.jax316_tile_padding import TilePadding
    from jaxlint.rules.hlo.jax317_tpu_matmul_precision import TpuMatmulPrecision

    rules = _static_tier() + [
        AnalysisFailed,
        LargeConstant,
        UnrolledLoop,
        HostCallbackTraced,
        Float64Op,
        TraceError,
        LargeProgram,
        LargeIntermediate,
        Recompilation,
        ConstantFold,
        DonatedBufferReused,
        ConstantRandomKey,
        EagerRecompilation,
        EagerDispatch,
        UnfusedOp,
        Donation,
        SlowCompile,
        MemoryBudget,
        FoldedConstant,
        CostBudget,
        ReplicatedArgument,
        CollectiveInStep,
        OutputReshard,
        CallbackInPartitioned,
        InvoluntaryRemat,
        HbmFit,
        TilePadding,
        TpuMatmulPrecision,
    ]
    globals()["RULES"] = rules  # built once: later reads (and changes) see this list
    return rules


def _every_rule() -> list:
    return __getattr__("RULES") if "RULES" not in globals() else globals()["RULES"]


def _static_tier() -> list:
    return __getattr__("STATIC_RULES") if "STATIC_RULES" not in globals() else globals()["STATIC_RULES"]


PACK = RulePack(STATIC_INDEX, _static_tier, LAZY_CODES, _every_rule, os.path.dirname(os.path.abspath(__file__)))
