"""What a run produced: the findings every sink reads, with the run's notes and errors."""
from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Diagnostic
from jaxlint.records import dataclass

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
    #: files not checked because they use syntax of a newer Python than the one jaxlint
    #: runs on (PEP 695 under 3.11): not findings, a line of the summary (:func:`newer_syntax_note`)
    not_checked: list[Diagnostic] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors)

    def unparsed(self) -> set[str]:
        """Files the static phase could not parse (their findings say nothing of the rest)."""
        from jaxlint.findings.engine import ParseError

        return {d.path for d in self.diagnostics if d.code == ParseError.code} | {d.path for d in self.not_checked}

    def set_aside_newer_syntax(self) -> None:
        """Move the files that parse only under a newer Python out of the findings, into
        :attr:`not_checked` and a line of the summary: the file is not wrong, and the run
        does not fail for it."""
        newer = [d for d in self.diagnostics if d.data.get(NEEDS_PYTHON)]
        if not newer:
            return
        self.diagnostics = [d for d in self.diagnostics if not d.data.get(NEEDS_PYTHON)]
        self.not_checked.extend(newer)
        self.notes.append(newer_syntax_note(self.not_checked))


#: the data key of a parse finding whose file uses syntax of a newer Python (its version)
NEEDS_PYTHON = "needs-python"


def newer_syntax_note(not_checked: list[Diagnostic]) -> str:
    """One line naming the files not checked for syntax of a newer Python, and the remedy."""
    import sys

    n = len(not_checked)
    need = max((d.data[NEEDS_PYTHON] for d in not_checked), key=lambda v: tuple(int(x) for x in v.split(".")))
    files = ", ".join(f"{d.path}:{d.start.line}" for d in sorted(not_checked, key=lambda d: d.path))
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return (f"{n} file{'s' if n != 1 else ''} not checked: syntax of a newer Python than {here}, which runs "
            f"jaxlint: {files}; run jaxlint on Python {need} or newer to check {'them' if n != 1 else 'it'}.")
