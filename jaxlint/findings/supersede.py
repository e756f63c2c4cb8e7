"""One problem, one finding: a measured finding replaces the guess of a lower tier that it
confirms (a rule lists the codes it replaces in ``Rule.supersedes``; ``Rule.same_problem``
decides whether two findings are one problem). The static guess and the trace
measurement are merged in the parent (:func:`jaxlint.findings.suppress.merge_tiers`), the trace
prediction and the compile measurement in the worker (:func:`replace_earlier`); both keep the replaced
finding's identity (its signature), so a baseline entry or a SARIF fingerprint made at
either tier matches the other.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Sequence

from jaxlint.diagnostic import Diagnostic, Related
from jaxlint.rule import Rule


def superseded(lower: Sequence[Diagnostic], higher: Sequence[Diagnostic],
               rule_of: Callable[[str], type[Rule] | None]) -> tuple[list[Diagnostic], dict[int, list[Diagnostic]]]:
    """Drop each finding of ``lower`` that a finding of ``higher`` supersedes (its rule
    lists the code in ``supersedes`` and ``same_problem`` holds). Returns the kept
    ``lower`` findings and, per index in ``higher``, the ones it replaced (the first
    superseding finding claims one)."""
    by_code: dict[str, list[int]] = {}
    for i, d in enumerate(lower):
        by_code.setdefault(d.code, []).append(i)
    dropped: set[int] = set()
    replaced: dict[int, list[Diagnostic]] = {}
    for j, mine in enumerate(higher):
        rule = rule_of(mine.code)
        if rule is None:
            continue
        candidates = sorted(i for c in rule.supersedes for i in by_code.get(c, ()))
        gone = [i for i in candidates if i not in dropped and rule.same_problem(mine, lower[i])]
        if gone:
            dropped.update(gone)
            replaced[j] = [lower[i] for i in gone]
    return [d for i, d in enumerate(lower) if i not in dropped], replaced


#: where the dynamic phase measured: display path -> (first line, last line, the codes of
#: the rules that ran there) of each function it analysed
Measured = Mapping[str, Sequence[tuple[int, int, frozenset[str]]]]


def refuted(static: Sequence[Diagnostic], measured_in: Measured,
            rule_of: Callable[[str], type[Rule] | None]) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(the static findings kept, those the measurement refutes): a static guess inside a
    function the dynamic phase analysed with a rule that supersedes its code and looks
    at everything it is about (:attr:`Rule.measures_all`), and that this rule did not
    confirm (a confirmed one was replaced first), is refuted: measured, not there."""
    kept: list[Diagnostic] = []
    gone: list[Diagnostic] = []
    for d in static:
        hit = False
        for start, end, codes in measured_in.get(d.path, ()):
            if start <= d.start.line <= end and any(
                    (r := rule_of(c)) is not None and r.measures_all and d.code in r.supersedes for c in codes):
                hit = True
                break
        (gone if hit else kept).append(d)
    return kept, gone


#: the data key of a measured finding that names the file of the jitted function it was
#: measured in (set by the dynamic phase; the baseline keys measured findings by it)
HOME = "defined_in"


def replace_earlier(earlier: list[Diagnostic], new: list[Diagnostic],
                    rule_of: Callable[[str], type[Rule] | None]) -> list[Diagnostic]:
    """``earlier + new`` with the earlier findings a new one supersedes dropped (a compile
    finding replaces the trace prediction it confirms); one found elsewhere than the new
    finding's line stays visible as a related location of it. ``rule_of(code)``: the rule
    of a new finding (the worker knows the rules it runs)."""
    if not any(getattr(rule_of(d.code), "supersedes", ()) for d in new):
        return earlier + new
    new = list(new)
    kept, replaced = superseded(earlier, new, rule_of)
    for j, gone in replaced.items():
        links = tuple(Related(d.path, d.start, d.start, f"{d.code}: {d.message}")
                      for d in gone if d.start.line != new[j].start.line)
        first = next((d.signature for d in gone if d.signature), new[j].signature)
        new[j] = dataclasses.replace(new[j], related=new[j].related + links, signature=first)
    return kept + new


def absorbed(earlier: list[Diagnostic], new: list[Diagnostic], rule: type[Rule]) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(earlier, new) with each new finding that names a cause an earlier finding already
    reports at the cause's line (:meth:`Rule.defers_to`) folded into that finding as a
    related location: one cause, one finding, at the line the user changes. The related
    message leaves out the figures measured in this run (a recording commits it)."""
    kept: list[Diagnostic] = []
    earlier = list(earlier)
    for d in new:
        i = next((i for i, e in enumerate(earlier) if rule.defers_to(d, e)), None)
        if i is None:
            kept.append(d)
            continue
        note = (d.data or {}).get("measured")
        message = d.message[:-len(f" ({note})")] if isinstance(note, str) and note and \
            d.message.endswith(f" ({note})") else d.message
        e = earlier[i]
        earlier[i] = dataclasses.replace(e, related=e.related + (Related(d.path, d.start, d.end,
                                                                         f"{d.code}: {message}"),))
    return earlier, kept


def refuted_predictions(found: list[Diagnostic], rule: type[Rule], measured: object) -> list[Diagnostic]:
    """``found`` without the lower-tier predictions (codes in ``rule.supersedes``) that
    ``rule``'s measurement shows are not there (:meth:`Rule.refutes`)."""
    if not rule.supersedes:
        return found
    return [d for d in found if d.code not in rule.supersedes or not rule.refutes(d, measured)]
