"""What every compile-tier rule shares: findings over :class:`CompileFacts`, reported
through the worker's per-function analysis object."""
from __future__ import annotations

import time
from typing import Any, Iterable

from jaxlint.compile_facts import CompileFacts, Finding
from jaxlint.hlo import Instruction
from jaxlint.rule import CompileRule


class HloRule(CompileRule):
    """A compile-tier rule: ``findings(facts)`` is a pure function of what was compiled.

    A compile-tier finding is the measured form of what some trace rules predict (a
    callback, a constant XLA will fold): ``absorbs`` names those codes, and a trace
    finding that the compile finding confirms is dropped and linked as a related
    location, so one problem gives one message.
    """

    absorbs: tuple[str, ...] = ()

    def findings(self, facts: CompileFacts) -> Iterable[Finding]:
        raise NotImplementedError

    def confirms(self, trace_diag: Any, finding: Finding) -> bool:
        """Whether ``finding`` is the compiled form of the trace finding (same line)."""
        return finding.where is not None and trace_diag.start.line == finding.where.line and \
            _same_path(trace_diag.path, finding.where.file)

    def check(self, fa: Any) -> None:
        facts = fa.extra.get("compile_facts") if hasattr(fa, "extra") else None
        if facts is None:
            return
        from jaxlint.dynamic.analysis import Site

        t0 = time.perf_counter()
        for f in self.findings(facts):
            site = None
            if f.where is not None:
                site = Site(f.where.file, f.where.line, f.where.column or 1)
            related = [Site(r.file, r.line, r.column or 1).related(msg) for r, msg in f.related]
            for d in [d for d in fa.diagnostics if d.code in self.absorbs and self.confirms(d, f)]:
                fa.diagnostics.remove(d)
                if not (f.where and d.start.line == f.where.line):
                    related.append(Site(d.path, d.start.line, d.start.column).related(f"{d.code}: {d.message}"))
            fa.report(site, f.message, severity=f.severity, data=dict(f.data), related=related)
        report = fa.extra.get("report")
        if report is not None and "tier_seconds" in report:
            report["tier_seconds"] = round(report["tier_seconds"] + time.perf_counter() - t0, 4)


def _same_path(a: str, b: str) -> bool:
    import os

    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


def kernel_key(inst: Instruction) -> str:
    """A stable name for an HLO instruction across recompiles (op name, not the .N suffix)."""
    return inst.metadata.get("op_name") or inst.opcode
