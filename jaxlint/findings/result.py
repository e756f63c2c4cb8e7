"""What a run produced: the findings every sink reads, with the run's notes and errors."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Diagnostic

if TYPE_CHECKING:
    from jaxlint.files.notebook import CellMap
    from jaxlint.rule import Rule


@dataclass
class Table:
    """A table for the run's summary (e.g. the cost budgets): every format that shows a
    summary renders it (text in the terminal, Markdown for a pull-request comment)."""

    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]
    #: lines under the table
    notes: list[str] = field(default_factory=list)


@dataclass
class RunResult:
    """One run's findings, in report order, and what the summary says about it."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rules: dict[str, type["Rule"]] = field(default_factory=dict)
    #: extra lines for the summary (e.g. dynamic phase: analysed / skipped)
    notes: list[str] = field(default_factory=list)
    #: static findings a measured finding replaced, beyond the one whose signature it
    #: carries: not reported, but still there for the baseline
    superseded: list[Diagnostic] = field(default_factory=list)
    #: the cells of each checked notebook, by display path (see ``FileOutcome.cells``)
    notebooks: dict[str, "CellMap"] = field(default_factory=dict)
    #: tables for the summary, after the notes
    tables: list[Table] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors)

    def unparsed(self) -> set[str]:
        """Files the static phase could not parse (their findings say nothing of the rest)."""
        from jaxlint.registry import rule_for_role
        from jaxlint.rule import PARSE_ERROR

        code = rule_for_role(PARSE_ERROR).code
        return {d.path for d in self.diagnostics if d.code == code}
