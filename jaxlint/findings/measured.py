"""Measured findings (trace and compile tiers) as the one :class:`~jaxlint.diagnostic.Diagnostic`.

Every measured finding becomes a diagnostic here, wherever it is made: a trace rule's
``ctx.report(...)`` (on a ``FunctionAnalysis``) and a compile rule's (on a
``CompileContext``) in a dynamic-phase worker, in a program
that ``jaxlint record`` observes, and in ``jaxlint inspect``. So its data (the function, the
versions, where the trace inputs came from), its ``# noqa`` line and its line-independent
signature are the same everywhere, and a baseline or a SARIF fingerprint made from one run
matches the next (``check``, the language server and the baseline read these diagnostics).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from jaxlint.diagnostic import Diagnostic, Phase, Position, Related, Severity
from jaxlint.rule import finding_severity


@dataclass(frozen=True)
class MeasuredIn:
    """The function a measured finding was made in, and how it was measured."""

    function: str  # qualified name
    #: jax, jaxlib and backend of the process that measured
    versions: Mapping[str, str] = field(default_factory=dict)
    #: where the trace inputs came from (``directive``, ``recorded``, ``observed`` ...)
    inputs: str | None = None
    #: whether the trace used symbolic or concrete shapes, when that was decided
    shapes: str | None = None
    #: ``@LINE`` of an earlier definition of a name the module defines again (a notebook's
    #: cell per optimizer): part of the findings' signature, so that each definition has
    #: its own baseline entries; empty for the last definition (the plain name, as before)
    redefined_at: str = ""


def measured_diagnostic(rule: Any, about: MeasuredIn, *, message: str, path: str, start: Position,
                        end: Position, key: str, severity: Severity | None = None,
                        related: Iterable[Related] = (), data: Mapping[str, Any] | None = None,
                        measured: str = "") -> Diagnostic:
    """A finding of ``rule`` (a trace or compile rule) as a diagnostic. ``key`` tells it from
    the rule's other findings in the function, free of line numbers and measured figures.
    ``measured``: figures this run measured (times), shown after the message in
    parentheses; kept apart (``data["measured"]``) so that a recording can commit the
    message without them (:func:`without_measured`)."""
    payload = {"function": about.function, **dict(data or {}), **dict(about.versions)}
    if measured:
        payload[MEASURED] = measured
        message = f"{message} ({measured})"
    if about.inputs is not None:
        payload.setdefault("inputs", about.inputs)
    if about.shapes is not None:
        payload.setdefault("shapes", about.shapes)
    phase = rule.phase if isinstance(rule.phase, Phase) else Phase.TRACE
    # the signature never holds the message: its measured figures (bytes, seconds, counts)
    # differ between runs and versions. Compile findings are keyed by the rule's code,
    # trace findings by its name (baselines written by earlier versions hold both forms)
    tag = rule.code if phase is Phase.COMPILE else rule.name
    return Diagnostic(
        code=rule.code,
        name=rule.name,
        message=message,
        path=path,
        start=start,
        end=end,
        severity=finding_severity(rule, severity),
        phase=phase,
        related=tuple(related),
        data=payload,
        signature=f"{about.function}{about.redefined_at}:{tag}:{key}",
        noqa_line=start.line,
    )


#: the key of a diagnostic's ``data`` that holds the figures measured in this run (see
#: :func:`measured_diagnostic`)
MEASURED = "measured"


def without_measured(diag: dict) -> tuple[dict, str]:
    """A serialised diagnostic without the figures this run measured, and those figures:
    what a committed recording holds does not change from run to run."""
    data = diag.get("data")
    if not isinstance(data, dict):
        return diag, ""
    note = data.get(MEASURED)
    if not isinstance(note, str) or not note:
        return diag, ""
    message = diag.get("message")
    tail = f" ({note})"
    out = dict(diag, data={k: v for k, v in data.items() if k != MEASURED})
    if isinstance(message, str) and message.endswith(tail):
        out["message"] = message[:-len(tail)]
    return out, note


def with_measured(diag: dict, note: str) -> dict:
    """:func:`without_measured` undone: the figures shown again after the message."""
    if not note or not isinstance(diag.get("message"), str):
        return diag
    data = diag.get("data")
    return dict(diag, message=f"{diag['message']} ({note})",
                data={**(data if isinstance(data, dict) else {}), MEASURED: note})
