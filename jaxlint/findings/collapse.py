"""One finding per pattern per function.

A static rule that finds one pattern in eight places of a function (a static field
annotated as an array in eight jitted methods' class, a key reused in eight draws) says
one thing eight times: the author fixes it once, or suppresses it once. ``collapse``
keeps the first place, in report order, as the finding and names the others as its
related locations ("same pattern"), with their count in ``data["places"]``.

Two static findings are one pattern when they share the file, the rule, the enclosing
function (the part of their ``signature`` before the first colon, ``<module>`` outside
any) and the message once the names and numbers it quotes are taken out (`` `key` ``,
``line 30``). The engine knows no rule by name: the key is the finding's own data.

It runs after the suppressions and the baseline (a ``# noqa`` on one place suppresses
that place; a baseline records and matches every place, so a new place is new) and
after ``--fix``/``--add-noqa`` (which act on every place): it only shapes the report.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Iterable, Mapping

from jaxlint.diagnostic import Diagnostic, Phase, Related
from jaxlint.textutil import LazyPattern

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.rule import Rule

#: a quoted name or expression, and a number: what differs between places of one pattern
_QUOTED = LazyPattern(r"`[^`]*`")
_NUMBER = LazyPattern(r"\d+(\.\d+)?")
#: the message of a related location that is another place of the pattern
SAME_PATTERN = "same pattern"


def pattern_of(path: str, code: str, signature: str, message: str) -> tuple[str, str, str, str]:
    """The key the places of one pattern share: file, rule, enclosing function, message
    less what it quotes and counts (also for a report's JSON findings)."""
    return path, code, signature.split(":", 1)[0], _NUMBER().sub("N", _QUOTED().sub("`…`", message))


def pattern_key(d: Diagnostic) -> tuple[str, str, str, str] | None:
    """``pattern_of`` a finding, or None for one that is never collapsed (not a static
    finding, or one without a signature)."""
    if d.phase is not Phase.STATIC or not d.signature:
        return None
    return pattern_of(d.path, d.code, d.signature, d.message)


def collapse(findings: Iterable[Diagnostic], rules: Mapping[str, type[Rule]]) -> list[Diagnostic]:
    """``findings`` with the places of one pattern in one function made one finding: the
    first (in report order) with the others as related locations; in report order.
    ``rules``: the rule of each code (a rule with ``one_per_function`` cleared is left
    as it is)."""
    ordered = sorted(findings, key=lambda d: d.sort_key)
    groups: dict[tuple[str, str, str, str], list[Diagnostic]] = {}
    out: list[Diagnostic | tuple[str, str, str, str]] = []
    for d in ordered:
        rule = rules.get(d.code)
        key = pattern_key(d) if rule is None or rule.one_per_function else None
        if key is None:
            out.append(d)
        elif key in groups:
            groups[key].append(d)
        else:
            groups[key] = [d]
            out.append(key)
    return [item if isinstance(item, Diagnostic) else _one(groups[item]) for item in out]


def _one(places: list[Diagnostic]) -> Diagnostic:
    first = places[0]
    if len(places) == 1:
        return first
    others = tuple(Related(d.path, d.start, d.end, SAME_PATTERN, d.cell) for d in places[1:])
    n = len(places)
    scope = "module" if first.signature.startswith("<module>:") else "function"
    return replace(first, message=f"{first.message} (and {n - 1} more place{'s' if n > 2 else ''} in this {scope})",
                   related=first.related + others, data={**first.data, "places": n})
