"""What every compile-tier rule shares: findings over :class:`CompileFacts`, reported
through the worker's per-function analysis object."""
from __future__ import annotations

from typing import Any, Iterable

from jaxlint.compile_facts import CompileFacts, Finding
from jaxlint.hlo import Instruction
from jaxlint.rule import CompileRule


class HloRule(CompileRule):
    """A compile-tier rule: ``findings(facts)`` is a pure function of what was compiled."""

    def findings(self, facts: CompileFacts) -> Iterable[Finding]:
        raise NotImplementedError

    def check(self, fa: Any) -> None:
        facts = fa.extra.get("compile_facts") if hasattr(fa, "extra") else None
        if facts is None:
            return
        from jaxlint.dynamic.analysis import Site

        for f in self.findings(facts):
            site = None
            if f.where is not None:
                site = Site(f.where.file, f.where.line, f.where.column or 1)
            related = [Site(r.file, r.line, r.column or 1).related(msg) for r, msg in f.related]
            fa.report(site, f.message, severity=f.severity, data=dict(f.data), related=related)


def kernel_key(inst: Instruction) -> str:
    """A stable name for an HLO instruction across recompiles (op name, not the .N suffix)."""
    return inst.metadata.get("op_name") or inst.opcode
