"""Small text helpers shared by the engine and the rules (no heavy imports).

Lines are counted as ``ast``, the tokenizer and LSP count them: ``\\r\\n``, ``\\r`` and
``\\n`` end a line, and nothing else does (``str.splitlines`` also splits on form
feeds and Unicode separators, which would shift every later line number).
"""
from __future__ import annotations

import ast
import bisect
import re
import warnings
from typing import AnyStr, Generic, Sequence

LINE_BREAK = re.compile(r"\r\n|\r|\n")


class LazyPattern(Generic[AnyStr]):
    """A regular expression compiled where it is first used, not at import: call it for
    the compiled pattern (``_NOQA().search(text)``). ``re`` compiles in Python, and a
    pattern a module needs only for some files (with ``# noqa`` comments, a syntax error,
    another module of the tree) cost every one-file check its compiling: the module-level
    patterns of a static check took about 8 % of its instructions (docs/performance.md)."""

    __slots__ = ("pattern", "flags", "compiled")
    pattern: AnyStr
    flags: int
    #: the compiled pattern once it has been asked for (None until then)
    compiled: re.Pattern[AnyStr] | None

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self.compiled = None

    def __call__(self) -> re.Pattern[AnyStr]:
        compiled = self.compiled
        if compiled is None:
            compiled = self.compiled = re.compile(self.pattern, self.flags)
        return compiled


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without terminators (a trailing newline gives a last empty line)."""
    return LINE_BREAK.split(text)


def line_starts(text: str) -> list[int]:
    """Code-point offset at which each line of ``text`` starts."""
    return [0] + [m.end() for m in LINE_BREAK.finditer(text)]


def match_lines(text: str, pattern: re.Pattern[str]) -> set[int]:
    """The 1-based lines on which ``pattern``'s matches in ``text`` start. The matches come
    in order, so each line is the last one's plus the ``\\n`` in between (counted in C),
    without a list of every line's start; a text with ``\\r`` in it takes ``line_starts``."""
    if "\r" in text:
        starts = line_starts(text)
        return {bisect.bisect_right(starts, m.start()) for m in pattern.finditer(text)}
    lines: set[int] = set()
    line, at, count = 1, 0, text.count
    for m in pattern.finditer(text):
        start = m.start()
        line += count("\n", at, start)
        at = start
        lines.add(line)
    return lines


def common_affixes(a: Sequence, b: Sequence) -> tuple[int, int]:
    """How many leading, then (of the rest) trailing items ``a`` and ``b`` share."""
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    return p, s


def human_bytes(n: float | None) -> str:
    """A byte count as messages print it: ``512 B``, ``4.0 MiB``, ``1.5 GiB``."""
    if n is None:
        return "unknown size"
    if abs(n) < 1024:
        return f"{n:.0f} B"
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024
        if abs(n) < 1024:
            return f"{n:.1f} {unit}"
    return f"{n / 1024:.1f} TiB"


def unified_diff(display: str, before: str, after: str) -> str:
    """``before`` -> ``after`` as a unified diff of ``a/display`` and ``b/display``."""
    import difflib  # here, as below: a check that edits nothing does not load it

    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{display}", tofile=f"b/{display}")
    out = []
    for line in lines:
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def figure(metric: str, value: float | None) -> str:
    """A measured figure as a reader wants it: ``*bytes*`` in KiB/MiB, seconds, counts
    with k/M/G/T."""
    if value is None:
        return "-"
    if metric.endswith("seconds"):
        return f"{value:.2f} s"
    if "bytes" in metric:
        return human_bytes(int(value))
    for scale, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= scale:
            return f"{value / scale:.2f}{suffix}"
    return f"{value:g}"


def signed_percent(change: float | None) -> str:
    """``+12.5 %``; ``new`` when there is nothing to compare with."""
    return "new" if change is None else f"{change:+.1f} %"


def parses(text: str) -> bool:
    """Whether ``text`` is Python that ``ast`` parses (its warnings, such as invalid
    escapes, are not our business)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def line_map(before: Sequence[str], after: Sequence[str], *, changed_too: bool = False) -> dict[int, int]:
    """Where each 1-based line of ``before`` is in ``after`` once text was edited: the
    lines whose text survived (a line added above moves them down); with
    ``changed_too``, also a changed line (to its replacement) and a deleted one (to the
    line that follows it). The one line remapping of findings after edits (``--fix``,
    the editor's unsaved changes)."""
    table: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in line_opcodes(before, after):
        for k in range(i1, i2):
            if tag == "equal":
                table[k + 1] = j1 + (k - i1) + 1
            elif changed_too:
                table[k + 1] = min(j1 + (k - i1), max(j1, j2 - 1)) + 1
    return table


#: line diffs up to this many (lines before x lines after) go to difflib whole, as they
#: always did; above it, difflib's longest-match search is quadratic in the lines that
#: repeat (blank lines, `@jax.jit`), so the lines unique on both sides anchor the diff first
_DIFF_WHOLE = 1 << 12


def line_opcodes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """``difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()`` for lists of
    lines, in time near linear in their length: a small pair goes to difflib as it is; a
    large one is matched on its common prefix and suffix and on the lines that occur
    once in each (in order: the longest increasing run of them), and the gaps between
    those anchors are diffed the same way. A large gap with no such line is replaced
    whole rather than searched."""
    import difflib

    if len(a) * len(b) <= _DIFF_WHOLE:
        return list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes())
    blocks: list[tuple[int, int, int]] = []
    todo = [(0, len(a), 0, len(b))]
    while todo:
        alo, ahi, blo, bhi = todo.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            blocks.append((alo, blo, 1))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            blocks.append((ahi, bhi, 1))
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= _DIFF_WHOLE:
            sm = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            blocks.extend((alo + i, blo + j, n) for i, j, n in sm.get_matching_blocks() if n)
            continue
        pi, pj = alo, blo
        for i, j in _anchors(a, b, alo, ahi, blo, bhi):
            todo.append((pi, i, pj, j))
            blocks.append((i, j, 1))
            pi, pj = i + 1, j + 1
        if (pi, pj) != (alo, blo):
            todo.append((pi, ahi, pj, bhi))
    ops: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for bi, bj, n in _merged(sorted(blocks)) + [(len(a), len(b), 0)]:
        tag = "replace" if i < bi and j < bj else "delete" if i < bi else "insert" if j < bj else ""
        if tag:
            ops.append((tag, i, bi, j, bj))
        if n:
            ops.append(("equal", bi, bi + n, bj, bj + n))
        i, j = bi + n, bj + n
    return ops


def _anchors(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """(i, j) of the lines that occur once in ``a[alo:ahi]`` and once in ``b[blo:bhi]``,
    the longest run of them in the same order on both sides."""
    import bisect

    seen_a: dict[str, int] = {}
    for i in range(alo, ahi):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(blo, bhi):
        seen_b[b[j]] = -1 if b[j] in seen_b else j
    pairs = [(i, seen_b[line]) for line, i in seen_a.items() if i >= 0 and seen_b.get(line, -1) >= 0]
    pairs.sort()
    # the longest increasing run of j (patience sorting): tails[k] ends a run of k + 1
    tails: list[int] = []
    tail_at: list[int] = []
    before: list[int] = []
    for n, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        before.append(tail_at[k - 1] if k else -1)
        if k == len(tails):
            tails.append(j)
            tail_at.append(n)
        else:
            tails[k], tail_at[k] = j, n
    out = []
    n = tail_at[-1] if tail_at else -1
    while n >= 0:
        out.append(pairs[n])
        n = before[n]
    return out[::-1]


def _merged(blocks: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    for i, j, n in blocks:
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + n)
        else:
            out.append((i, j, n))
    return out
