"""What every compile-tier rule shares: findings over :class:`CompileFacts`, reported
through the worker's per-function analysis object."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Iterable

from jaxlint.rule import CompileRule, same_path

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileFacts, Finding
    from jaxlint.compile.hlo import Instruction
    from jaxlint.diagnostic import Diagnostic
    from jaxlint.dynamic.analysis import FunctionAnalysis


class HloRule(CompileRule):
    """A compile-tier rule: ``findings(facts)`` is a pure function of what was compiled.

    A compile-tier finding is the measured form of what some trace rules predict (a
    callback, a constant XLA will fold): it lists those codes in ``supersedes``, and
    the worker drops a trace finding it confirms (``same_problem``: by default the same
    line) and links it as a related location, so one problem gives one message.
    """

    def findings(self, facts: CompileFacts) -> Iterable[Finding]:
        raise NotImplementedError

    @classmethod
    def same_problem(cls, mine: Diagnostic, other: Diagnostic) -> bool:
        """The same line only: a compile finding's related lines are neighbouring
        kernels (producer, consumer), other problems than the one it measures."""
        return other.start.line == mine.start.line and same_path(other.path, mine.path)

    def check(self, fa: FunctionAnalysis) -> None:
        facts = fa.compile_facts
        if facts is None:
            return
        from jaxlint.compile.facts import to_diagnostic

        t0 = time.perf_counter()
        about = fa.measured_in()
        for f in self.findings(facts):
            fa.diagnostics.append(to_diagnostic(self, f, facts, about))
        report = fa.compile_report
        if report is not None and "tier_seconds" in report:
            report["tier_seconds"] = round(report["tier_seconds"] + time.perf_counter() - t0, 4)


def kernel_key(inst: Instruction) -> str:
    """A stable name for an HLO instruction across recompiles (op name, not the .N suffix)."""
    return inst.metadata.get("op_name") or inst.opcode
