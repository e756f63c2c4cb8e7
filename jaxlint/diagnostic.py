"""The one diagnostic type every rule emits and every sink reads.

All types here are frozen dataclasses of plain data so that they can be cached,
sent between processes and serialized without knowing which rule made them.
"""
from __future__ import annotations

import enum
from dataclasses import field, replace
from typing import Any, Callable, Mapping

from jaxlint.records import dataclass


class Severity(str, enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def sarif_level(self) -> str:
        return {"info": "note", "warning": "warning", "error": "error"}[self.value]


class Confidence(str, enum.Enum):
    """How sure the static model is that a finding holds (pylint's message confidence;
    CodeQL selects its query suites by precision the same way). The default selection
    reports ``CERTAIN`` and ``LIKELY``; ``POSSIBLE`` needs ``--preview`` or
    ``confidence = "possible"``, and shows as a hint in the editor. A finding is an
    error only when it is certain. Measured findings (trace, compile) are certain."""

    POSSIBLE = "possible"
    LIKELY = "likely"
    CERTAIN = "certain"

    @property
    def rank(self) -> int:
        return _CONFIDENCE_RANK[self.value]

    def at_least(self, floor: "Confidence | str") -> bool:
        return self.rank >= _CONFIDENCE_RANK[Confidence(floor).value]


_CONFIDENCE_RANK = {"possible": 0, "likely": 1, "certain": 2}


class Phase(str, enum.Enum):
    STATIC = "static"
    TRACE = "trace"
    COMPILE = "compile"


class Applicability(str, enum.Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Position:
    """1-based line, 1-based column counted in Unicode code points."""

    line: int
    column: int

    def to_dict(self) -> dict:
        """The JSON form every finding, related place and edit uses: ``{"row", "column"}``."""
        return {"row": self.line, "column": self.column}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Position":
        return cls(d["row"], d["column"])


@dataclass(frozen=True)
class Edit:
    """Replace the text between ``start`` (inclusive) and ``end`` (exclusive)."""

    start: Position
    end: Position
    content: str
    #: in a notebook's report: the cell (1-based) the positions are in (see ``Diagnostic.cell``)
    cell: int | None = None

    def to_dict(self) -> dict:
        out: dict[str, Any] = {
            "content": self.content,
            "location": self.start.to_dict(),
            "end_location": self.end.to_dict(),
        }
        if self.cell is not None:
            out["cell"] = self.cell
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Edit":
        return cls(
            Position.from_dict(d["location"]),
            Position.from_dict(d["end_location"]),
            d["content"],
            d.get("cell"),
        )


@dataclass(frozen=True)
class Fix:
    """A finding's fix: text ``edits`` made when the finding is (JAX190's comment edits),
    or a ``plan`` that the rule's libcst codemod turns into edits when the fix is
    computed (``jaxlint.fix.codemod``), so that a plain check never imports libcst."""

    message: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.UNSAFE
    #: what the rule's ``codemod`` needs (JSON data; nodes as their spans), or None
    plan: Mapping[str, Any] | None = None

    def to_dict(self) -> dict:
        out: dict[str, Any] = {
            "message": self.message,
            "applicability": self.applicability.value,
            "edits": [e.to_dict() for e in self.edits],
        }
        if self.plan is not None:
            out["plan"] = dict(self.plan)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Fix":
        return cls(
            d["message"],
            tuple(Edit.from_dict(e) for e in d["edits"]),
            Applicability(d["applicability"]),
            d.get("plan"),
        )


@dataclass(frozen=True)
class Related:
    """A second location that explains a finding (e.g. where a captured array is defined)."""

    path: str
    start: Position
    end: Position
    message: str
    #: in a notebook's report: the cell (1-based) the positions are in (see ``Diagnostic.cell``)
    cell: int | None = None

    def to_dict(self) -> dict:
        out: dict[str, Any] = {
            "filename": self.path,
            "message": self.message,
            "location": self.start.to_dict(),
            "end_location": self.end.to_dict(),
        }
        if self.cell is not None:
            out["cell"] = self.cell
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Related":
        return cls(
            d["filename"],
            Position.from_dict(d["location"]),
            Position.from_dict(d["end_location"]),
            d["message"],
            d.get("cell"),
        )


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    message: str
    path: str
    start: Position
    end: Position
    severity: Severity = Severity.WARNING
    phase: Phase = Phase.STATIC
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)
    #: A line-independent signature (enclosing function + normalized source of the
    #: flagged expression) used by the baseline and SARIF fingerprints.
    signature: str = ""
    #: The line a ``# noqa`` must be on to suppress this finding.
    noqa_line: int | None = None
    #: Set in the report of a Jupyter notebook: the cell (1-based, among all cells) that
    #: ``start``, ``end`` and ``noqa_line`` are lines of. While a run checks a notebook
    #: its findings stay on the lines of its virtual module (``jaxlint.files.notebook``), with
    #: no cell; the report moves them into cells last.
    cell: int | None = None
    #: how sure the finding is (see ``Confidence``); a finding that is not certain is
    #: never an error (``__post_init__`` lowers it to a warning)
    confidence: Confidence = Confidence.CERTAIN

    def __post_init__(self) -> None:
        if self.confidence is not Confidence.CERTAIN and self.severity is Severity.ERROR:
            object.__setattr__(self, "severity", Severity.WARNING)

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.start.line, self.start.column, self.code, self.message)

    def shown_at(self, show: Callable[[str], str]) -> "Diagnostic":
        """The same finding with its path and its related locations' paths as ``show``
        gives them (an absolute path as the report shows it)."""
        return replace(self, path=show(self.path),
                       related=tuple(replace(r, path=show(r.path)) for r in self.related))

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "filename": self.path,
            "location": self.start.to_dict(),
            "end_location": self.end.to_dict(),
            "severity": self.severity.value,
            "phase": self.phase.value,
            "fix": self.fix.to_dict() if self.fix else None,
            "noqa_row": self.noqa_line if self.noqa_line is not None else self.start.line,
            "related": [r.to_dict() for r in self.related],
            "data": dict(self.data),
            "signature": self.signature,
            "cell": self.cell,
            "confidence": self.confidence.value,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Diagnostic":
        return cls(
            code=d["code"],
            name=d["name"],
            message=d["message"],
            path=d["filename"],
            start=Position.from_dict(d["location"]),
            end=Position.from_dict(d["end_location"]),
            severity=Severity(d["severity"]),
            phase=Phase(d["phase"]),
            fix=Fix.from_dict(d["fix"]) if d.get("fix") else None,
            related=tuple(Related.from_dict(r) for r in d.get("related", ())),
            data=d.get("data", {}),
            signature=d.get("signature", ""),
            noqa_line=d.get("noqa_row"),
            cell=d.get("cell"),
            confidence=Confidence(d.get("confidence", "certain")),
        )
