"""Measured findings over static ones, then suppressions: the parent's side of "one
problem, one finding" (:func:`merge_tiers`) and per-file-ignores and ``# noqa`` comments
(:func:`apply_suppressions`).

Above the registry and the config (it asks which rule made a finding, which rules a
selector names and which patterns match a file); :mod:`jaxlint.findings.supersede` and
:mod:`jaxlint.findings.noqa`, which a rule or the worker may use, stand below them.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable, Iterable, Sequence

from jaxlint.config import Settings, path_matches
from jaxlint.diagnostic import Diagnostic
from jaxlint.files.discovery import resolved
from jaxlint.findings.noqa import Suppressions, parse_suppressions
from jaxlint.registry import ignored_by, rules_by_code, static_names, twins
from jaxlint.findings.supersede import HOME, Measured, refuted, superseded


def per_file_ignored(display: str, settings: Settings, path: Path | None = None) -> tuple[str, ...]:
    """The codes the settings' per-file-ignores turn off for this file."""
    if not settings.per_file_ignores:
        return ()
    rel = display
    absolute = None
    if path is not None:
        absolute = resolved(path).as_posix()
        try:
            rel = resolved(path).relative_to(settings.root.resolve()).as_posix()
        except ValueError:
            pass
    out: list[str] = []
    for pattern, codes in settings.per_file_ignores.items():
        if path_matches(rel, pattern, absolute) or path_matches(display, pattern):
            out.extend(codes)
    return tuple(out)


def apply_suppressions(
    diags: Iterable[Diagnostic], text: str | None, ignored: Sequence[str], sup: Suppressions | None = None
) -> tuple[list[Diagnostic], int, Suppressions | None, dict[int, set[str]]]:
    """Drop findings hidden by per-file-ignores or noqa; return kept, count, the parsed
    noqa comments and, per line, the codes its noqa comment suppressed."""
    by_code = rules_by_code()
    if sup is None and text is not None:
        sup = parse_suppressions(text)
    kept: list[Diagnostic] = []
    used: dict[int, set[str]] = {}
    dropped = 0
    for d in diags:
        rule = by_code.get(d.code)
        if ignored and rule is not None and ignored_by(ignored, rule, d.signature, d.data.get("kind")):
            dropped += 1
            continue
        if sup is not None:
            line = d.noqa_line if d.noqa_line is not None else d.start.line
            # `# noqa: JAX101` also hides the JAX201 that measured the same problem, and back
            # (the other tiers' rules are loaded only where a noqa names another code)
            hit, code = sup.suppresses(d.code, line), d.code
            if hit is None and rule is not None and sup.names_codes_at(line) and (
                    rule.phase.value != "static" or sup.names_other_codes_at(line, static_names())):
                hit, code = next(((h, t.code) for t in twins(rule) if (h := sup.suppresses(t.code, line))),
                                 (None, d.code))
            if hit:
                used.setdefault(hit.line, set()).add(code)
                dropped += 1
                continue
        kept.append(d)
    return kept, dropped, sup, used


def merge_tiers(static: list[Diagnostic], dynamic: list[Diagnostic]
                ) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
    """(the static findings no dynamic finding supersedes; the dynamic findings, each
    carrying the signature of the first static finding it replaced; the static findings
    replaced beyond that first one, which the baseline still counts)."""
    kept, replaced = superseded(static, dynamic, rules_by_code().get)
    merged = list(dynamic)
    extra: list[Diagnostic] = []
    for j, gone in replaced.items():
        first = next((d for d in gone if d.signature), None)
        if first is not None:  # the static finding's identity: its signature, at its path
            data = {k: v for k, v in merged[j].data.items() if k != HOME}
            merged[j] = dataclasses.replace(merged[j], signature=first.signature, data=data)
        extra.extend(d for d in gone if d is not first)
    return kept, merged, extra


def drop_superseded(static: list[Diagnostic], dynamic: list[Diagnostic]) -> tuple[list[Diagnostic], int]:
    """The static findings no dynamic finding supersedes (by default: none of a listed
    code at the dynamic finding's line or one of its related lines), and how many were
    dropped."""
    kept, _, _ = merge_tiers(static, dynamic)
    return kept, len(static) - len(kept)


def measured_kept(measured: Sequence[Diagnostic], settings: Settings, display: str, path: Path | None,
                  text: str | None) -> list[Diagnostic]:
    """The measured findings of one file that its per-file-ignores and the noqa comments
    of ``text`` (none with ``ignore-noqa``) leave."""
    sup = Suppressions() if settings.ignore_noqa else None
    kept, *_ = apply_suppressions(measured, text, per_file_ignored(display, settings, path), sup)
    return kept


def merge_and_suppress(static: list[Diagnostic], measured: list[Diagnostic],
                       file_of: Callable[[str], tuple[Settings, str | None, Path | None]],
                       measured_in: Measured | None = None
                       ) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
    """Measured findings over static ones, then the measured ones suppressed, file by
    file: what ``check`` and the editor show. A static finding is superseded by every
    measured one, suppressed or not (a noqa on the measured finding also acknowledges
    the guess it replaces). ``file_of(display)``: the file's settings, its text (for
    noqa comments) and its path. Returns (the static findings kept, the measured
    findings kept, the static findings replaced beyond the first: :func:`merge_tiers`).
    ``measured_in``: where the dynamic phase measured; a static guess there that no
    measurement confirmed is refuted and dropped (:func:`jaxlint.findings.supersede.refuted`)."""
    kept_static, merged, replaced = merge_tiers(static, measured)
    if measured_in:
        kept_static, _ = refuted(kept_static, measured_in, rules_by_code().get)
    by_file: dict[str, list[Diagnostic]] = {}
    for d in merged:
        by_file.setdefault(d.path, []).append(d)
    kept: list[Diagnostic] = []
    for display, diags in by_file.items():
        settings, text, path = file_of(display)
        kept.extend(measured_kept(diags, settings, display, path, text))
    return kept_static, kept, replaced
