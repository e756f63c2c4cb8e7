"""What every compile-tier rule shares: a check over :class:`CompileFacts`, reporting
through a :class:`CompileContext` that this base builds from the worker's per-function
analysis object."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from jaxlint.rule import CompileRule, same_path

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext
    from jaxlint.compile.hlo import Instruction
    from jaxlint.diagnostic import Diagnostic
    from jaxlint.dynamic.analysis import FunctionAnalysis


class HloRule(CompileRule):
    """A compile-tier rule: ``check(ctx)`` reads ``ctx.facts``, what was compiled, and
    nothing else, and reports with ``ctx.report(...)``.

    A compile-tier finding is the measured form of what some trace rules predict (a
    callback, a constant XLA will fold): it lists those codes in ``supersedes``, and
    the worker drops a trace finding it confirms (``same_problem``: by default the same
    line) and links it as a related location, so one problem gives one message.
    """

    def check(self, ctx: CompileContext) -> None:
        raise NotImplementedError

    @classmethod
    def same_problem(cls, mine: Diagnostic, other: Diagnostic) -> bool:
        """The same line only: a compile finding's related lines are neighbouring
        kernels (producer, consumer), other problems than the one it measures."""
        return other.start.line == mine.start.line and same_path(other.path, mine.path)

    def check_function(self, fa: FunctionAnalysis) -> None:
        facts = fa.compile_facts
        if facts is None:
            return
        from jaxlint.compile.facts import CompileContext

        t0 = time.perf_counter()
        self.check(CompileContext(facts, self, fa.measured_in(), fa.diagnostics))
        report = fa.compile_report
        if report is not None and "tier_seconds" in report:
            report["tier_seconds"] = round(report["tier_seconds"] + time.perf_counter() - t0, 4)


def kernel_key(inst: Instruction) -> str:
    """A stable name for an HLO instruction across recompiles (op name, not the .N suffix)."""
    return inst.metadata.get("op_name") or inst.opcode
