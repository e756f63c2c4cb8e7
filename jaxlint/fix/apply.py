"""Applying fixes: the edits rules attach to their findings, and the fixes their
libcst codemods make (:mod:`jaxlint.fix.codemod`, imported only when one is computed).

For text edits, one pass takes the fixes that apply (safe ones, and unsafe ones when asked), sorted
by position, and keeps each whose edits overlap no edit already kept; the others
wait for the next pass. Passes repeat, each on a fresh check of the new text, until
nothing more applies or :data:`MAX_ITERATIONS` is reached (ruff's approach: a fix
skipped for overlapping another is usually still wanted once the other has landed).

Nothing here writes a file that does not parse: a pass whose result fails
``ast.parse`` is redone fix by fix, dropping each fix that breaks the syntax.
Writes are atomic (temp file + ``os.replace``), keep the file's permissions,
encoding, byte-order mark and line endings, and go through symlinks to their target.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Collection, Iterable, Sequence

from jaxlint.files.cache import replace_file
from jaxlint.diagnostic import Applicability, Diagnostic, Edit, Fix, Position
from jaxlint.textutil import LINE_BREAK, line_starts, parses, split_lines, unified_diff
from jaxlint.textutil import line_map as lines_moved  # the one remapping; line_map here wraps it

#: passes over one file before giving up (a fix that keeps re-creating work)
MAX_ITERATIONS = 10


def applies(d: Diagnostic, unsafe: bool) -> bool:
    return d.fix is not None and (unsafe or d.fix.applicability is Applicability.SAFE)


class _Offsets:
    """1-based (line, character column) -> offset into the text, with ast's notion
    of lines (``\\n``, ``\\r\\n`` and ``\\r`` end a line)."""

    def __init__(self, text: str) -> None:
        self.size = len(text)
        self.starts = line_starts(text)

    def __call__(self, p: Position) -> int:
        if p.line < 1:
            return 0
        if p.line > len(self.starts):
            return self.size
        start = self.starts[p.line - 1]
        limit = self.starts[p.line] if p.line < len(self.starts) else self.size
        return min(start + max(p.column, 1) - 1, limit)


def _newline_of(text: str) -> str:
    m = LINE_BREAK.search(text)
    return m.group() if m else "\n"


def _spans(text: str, fix_edits: Sequence[Edit], offsets: _Offsets) -> list[tuple[int, int, str]] | None:
    """A fix's edits as sorted (start, end, content) offsets; None if they overlap each other."""
    nl = _newline_of(text)
    spans = []
    for e in fix_edits:
        a, b = offsets(e.start), offsets(e.end)
        if b < a:
            return None
        content = e.content if nl == "\n" else LINE_BREAK.sub(nl, e.content)
        spans.append((a, b, content))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (a1, b1, _), (a2, b2, _) in zip(spans, spans[1:]):
        if _overlap(a1, b1, a2, b2):
            return None
    return spans


def _overlap(a1: int, b1: int, a2: int, b2: int) -> bool:
    # two insertions at one point overlap too: their order would be a guess
    return (a1 < b2 and a2 < b1) or (a1 == a2 and (a1 == b1 or a2 == b2))


def _splice(text: str, spans: Iterable[tuple[int, int, str]]) -> str:
    out = []
    pos = 0
    for a, b, content in sorted(spans, key=lambda s: (s[0], s[1])):
        out.append(text[pos:a])
        out.append(content)
        pos = b
    out.append(text[pos:])
    return "".join(out)


@dataclass
class PassResult:
    text: str
    applied: list[Diagnostic] = field(default_factory=list)
    #: fixes dropped because the file would no longer parse
    rejected: list[Diagnostic] = field(default_factory=list)


def apply_once(text: str, diagnostics: Iterable[Diagnostic], unsafe: bool = False) -> PassResult:
    """One pass: apply the non-overlapping fixes of ``diagnostics`` to ``text``."""
    offsets = _Offsets(text)
    chosen: list[tuple[Diagnostic, list[tuple[int, int, str]]]] = []
    taken: list[tuple[int, int]] = []
    candidates = [d for d in diagnostics if applies(d, unsafe)]
    candidates.sort(key=lambda d: (min(e.start for e in d.fix.edits) if d.fix.edits else d.start,  # type: ignore[union-attr]
                                   d.code))
    for d in candidates:
        spans = _spans(text, d.fix.edits, offsets)  # type: ignore[union-attr]
        if not spans or any(_overlap(a, b, x, y) for a, b, _ in spans for x, y in taken):
            continue
        chosen.append((d, spans))
        taken.extend((a, b) for a, b, _ in spans)
    if not chosen:
        return PassResult(text)
    new = _splice(text, (s for _, spans in chosen for s in spans))
    if new == text:
        return PassResult(text)
    if parses(new) or not parses(text):
        return PassResult(new, [d for d, _ in chosen])
    # some fix breaks the syntax: keep the fixes one at a time while the text parses
    kept: list[tuple[Diagnostic, list[tuple[int, int, str]]]] = []
    rejected = []
    for item in chosen:
        trial = _splice(text, (s for _, spans in kept + [item] for s in spans))
        if parses(trial):
            kept.append(item)
        else:
            rejected.append(item[0])
    new = _splice(text, (s for _, spans in kept for s in spans))
    return PassResult(new, [d for d, _ in kept], rejected)


@dataclass
class FixOutcome:
    text: str
    applied: list[Diagnostic]
    #: the findings of the last check (positions in ``text``)
    remaining: list[Diagnostic]
    rejected: list[Diagnostic]
    converged: bool = True
    #: planned fixes that were not made, with why (their finding remains)
    declined: list[tuple[Diagnostic, str]] = field(default_factory=list)
    #: the codemod fixes made when the run stopped at the most it makes in a file (0: it did not)
    capped: int = 0


#: codemod fixes made in one file before giving up (each removes a finding and adds none)
MAX_CODEMODS = 10_000


def fix_until_stable(text: str, diagnostics: Sequence[Diagnostic], lint: Callable[[str], list[Diagnostic]],
                     unsafe: bool = False, max_iterations: int = MAX_ITERATIONS, path: str = "",
                     codes: Collection[str] | None = None, max_codemods: int = MAX_CODEMODS) -> FixOutcome:
    """Apply fixes pass after pass. ``diagnostics`` are the findings on ``text``;
    ``lint(text)`` checks a new text (the same rules and suppressions); ``codes``
    limits the fixes to those rules.

    Text-edit fixes go in passes (:func:`apply_once`); planned fixes are made one at a
    time by their rule's libcst codemod (:mod:`jaxlint.fix.codemod`, imported only then),
    each verified against a re-check, in the order of the findings. The cyclic collector
    waits until the file is done, as while the static phase models a file: its full
    passes over the growing libcst trees made a fix cost more the more fixes a file had
    (``benchmarks/bench_fixes.py --scaling``)."""
    from jaxlint.static.checker import collection_paused

    with collection_paused():
        return _fix_until_stable(text, diagnostics, lint, unsafe, max_iterations, path, codes, max_codemods)


def _fix_until_stable(text: str, diagnostics: Sequence[Diagnostic], lint: Callable[[str], list[Diagnostic]],
                      unsafe: bool, max_iterations: int, path: str, codes: Collection[str] | None,
                      max_codemods: int) -> FixOutcome:
    applied: list[Diagnostic] = []
    rejected: list[Diagnostic] = []
    declined: dict[tuple[str, str, str], tuple[Diagnostic, str]] = {}
    seen = {text}
    current = list(diagnostics)
    checked: list[Diagnostic] | None = None  # lint(text), once a codemod needs it

    def wanted(d: Diagnostic) -> bool:
        return applies(d, unsafe) and (codes is None or d.code in codes)

    passes = codemods = capped = 0
    converged = True
    while True:
        step = apply_once(text, [d for d in current if wanted(d) and d.fix.edits], unsafe)  # type: ignore[union-attr]
        rejected.extend(step.rejected)
        if step.applied:
            applied.extend(step.applied)
            text = step.text
            current = checked = lint(text)
            passes += 1
            if text in seen or passes >= max_iterations:  # fixes that undo each other, or never end
                converged = not any(wanted(d) for d in current)
                break
            seen.add(text)
            continue
        planned = [d for d in current if wanted(d) and d.fix.plan is not None and not d.fix.edits  # type: ignore[union-attr]
                   and _key(d) not in declined]
        if not planned or codemods >= max_codemods:
            capped = codemods if planned else 0
            break
        from jaxlint.fix.codemod import CannotFix, Parsed, compute, compute_batch

        if checked is None:
            checked = lint(text)
        try:
            parsed = Parsed(text)
        except CannotFix as e:
            declined.update((_key(d), (d, str(e))) for d in planned)
            break
        ordered = sorted(planned, key=lambda d: (d.start, d.code))[:max_codemods - codemods]
        if len(ordered) > 1:  # all in one libcst pass, verified once; fix by fix only if that fails
            batch = compute_batch(text, ordered, lint, checked, path, parsed)
            if batch.outcome.ok:
                applied.extend(batch.made)
                text, current = batch.outcome.text, batch.outcome.findings  # type: ignore[assignment]
                checked = current
                codemods += len(batch.made)
                declined.clear()  # the text changed: what failed before may work now, but not these
                declined.update((_key(d), (d, why)) for d, why in batch.declined)
                continue
            declined.update((_key(d), (d, why)) for d, why in batch.declined)
            ordered = [d for d in ordered if _key(d) not in declined]
        made = None
        for d in ordered:
            out = compute(text, d, lint, checked, path, parsed)
            if out.ok:
                made = (d, out)
                break
            declined[_key(d)] = (d, out.reason)
        if made is None:
            break
        d, out = made
        applied.append(d)
        text, current = out.text, out.findings  # type: ignore[assignment]
        checked = current
        codemods += 1
        declined.clear()  # the text changed: what failed may work now
    current = without_declined(current, declined.values())
    left = {(d.code, d.signature) for d in current}
    return FixOutcome(text, applied, current, rejected, converged,
                      [v for v in declined.values() if (v[0].code, v[0].signature) in left], capped)


def _key(d: Diagnostic) -> tuple[str, str, str]:
    return (d.code, d.signature, d.message)


def without_declined(diags: Iterable[Diagnostic], declined: Iterable[tuple[Diagnostic, str]]) -> list[Diagnostic]:
    """``diags`` with the fixes that could not be made taken off: not offered (``[*]``) any more."""
    keys = {_key(d) for d, _ in declined}
    return [replace(d, fix=None) if d.fix is not None and _key(d) in keys else d for d in diags]


def computed_fix(text: str, d: Diagnostic, lint: Callable[[str], list[Diagnostic]],
                 path: str = "") -> tuple[Fix | None, str]:
    """``d``'s fix with its edits on ``text`` (an editor's quick fix): a text-edit fix as
    it is; a planned one made by its codemod and verified, or None and why not."""
    if d.fix is None:
        return None, "no fix"
    if d.fix.plan is None or d.fix.edits:
        return d.fix, ""
    from jaxlint.fix.codemod import as_fix, compute

    out = compute(text, d, lint, path=path)
    return (as_fix(d, out), "") if out.ok else (None, out.reason)


# ------------------------------------------------------------------------- files
@dataclass(frozen=True)
class SourceFile:
    """A file's text plus what it takes to write it back byte-faithfully."""

    path: Path
    text: str
    encoding: str
    bom: bool

    def encode(self, text: str) -> bytes:
        return encode_source(self, text)

    def diff(self, display: str, text: str) -> str:
        return unified_diff(display, self.text, text)


def read_target(path: Path, data: bytes | None = None):
    """What ``--fix`` and ``--add-noqa`` edit: a Python file (:class:`SourceFile`), or a
    notebook's virtual module (:class:`jaxlint.files.notebook.NotebookFile`, raising its
    ``NotebookError``). Both have ``text``, ``encode(text)`` and ``diff(display, text)``;
    ``encode`` of a notebook raises ValueError when the edit cannot go back into cells."""
    raw = path.read_bytes() if data is None else data
    from jaxlint.files.notebook import NotebookFile, is_notebook

    if is_notebook(path):
        return NotebookFile.read(path, raw)
    return source_from_bytes(path, raw)


def source_from_bytes(path: Path, data: bytes) -> SourceFile:
    """``data`` (a file's bytes, or stdin's) decoded as the static phase decodes it."""
    from jaxlint.static.checker import decode_source

    text = decode_source(data)  # first: a bad coding cookie is a SourceError, not a SyntaxError
    from jaxlint.static.checker import source_encoding

    encoding = source_encoding(data)
    bom = data.startswith(b"\xef\xbb\xbf")
    return SourceFile(path, text, "utf-8" if encoding == "utf-8-sig" else encoding, bom)


def encode_source(src: SourceFile, text: str) -> bytes:
    """``text`` as bytes in ``src``'s encoding, with its byte-order mark."""
    data = text.encode(src.encoding)
    return b"\xef\xbb\xbf" + data if src.bom else data


def write_source(src: SourceFile, text: str) -> None:
    """Atomically replace the file's content with ``text`` in its own encoding."""
    replace_file(src.path, encode_source(src, text))


def line_map(before: str, after: str) -> Callable[[int], int]:
    """Where each 1-based line of ``before`` is in ``after``: for findings that cannot
    be re-checked after a fix (the dynamic phase's). A changed line maps to its
    replacement, a deleted one to the line that follows it."""
    table = lines_moved(split_lines(before), split_lines(after), changed_too=True)
    return lambda line: table.get(line, line)


def moved(d: Diagnostic, where: Callable[[int], int]) -> Diagnostic:
    """``d`` with its lines moved by ``where`` (columns kept)."""
    return replace(d, start=Position(where(d.start.line), d.start.column),
                   end=Position(where(d.end.line), d.end.column),
                   noqa_line=where(d.noqa_line) if d.noqa_line is not None else None)


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply independent edits (positions in ``text``); ValueError if two overlap."""
    spans = _spans(text, edits, _Offsets(text))
    if spans is None:
        raise ValueError("overlapping edits")
    return _splice(text, spans)


@dataclass
class NoqaResult:
    text: str
    #: lines that got a new or extended noqa comment
    added: list[int]
    #: lines that could not take one (inside a string, after a backslash)
    skipped: list[int]


def add_noqa_text(text: str, wanted: dict[int, set[str]]) -> NoqaResult:
    """Make each line in ``wanted`` suppress its codes, merging into the line's noqa
    comment. The result parses whenever ``text`` did, and suppresses every code it
    was asked to (or the line is reported in ``skipped``)."""
    from jaxlint.findings.noqa import add_codes_edit, lines_without_room, parse_suppressions

    no_room = lines_without_room(text)
    if no_room is None:
        return NoqaResult(text, [], sorted(wanted))
    sup = parse_suppressions(text)
    lines = split_lines(text)
    edits: list[Edit] = []
    added, skipped = [], []
    for line, codes in sorted(wanted.items()):
        if line in no_room or not 1 <= line <= len(lines):
            skipped.append(line)
            continue
        edit = add_codes_edit(line, lines[line - 1], sup.lines.get(line), codes)
        if edit is not None:
            edits.append(edit)
            added.append(line)
    if not edits:
        return NoqaResult(text, [], skipped)
    new = apply_edits(text, edits)
    check = parse_suppressions(new)
    ok = (parses(new) or not parses(text)) and all(
        check.suppresses(code, line) for line in added for code in wanted[line])
    if not ok:  # never leave a file worse than it was
        return NoqaResult(text, [], sorted(wanted))
    return NoqaResult(new, added, skipped)
