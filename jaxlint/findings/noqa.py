"""``# noqa`` comments: the ruff/flake8 grammar, read with the tokenizer.

* ``# noqa`` suppresses every finding on its line.
* ``# noqa: JAX101, JAX203`` (commas or spaces) suppresses those codes; codes of
  other tools are kept so that unused-noqa can ignore them. ``# noqa: prng-key-reuse``
  names rules by name, as ``select`` does (all of them jaxlint's, or it is no directive).
* ``# jaxlint: noqa`` / ``# jaxlint: noqa: JAX101`` anywhere in a file applies to
  the whole file; so do ``# ruff: noqa`` (with codes too) and ``# flake8: noqa``, as
  ruff honours them (ruff ignores ``# flake8: noqa: CODES``, and so does jaxlint).
"""
from __future__ import annotations

import functools
import io
import re
import tokenize
from dataclasses import field
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from jaxlint.diagnostic import Diagnostic, Edit, Fix, Phase, Position
from jaxlint.records import dataclass
from jaxlint.textutil import LazyPattern, split_lines

if TYPE_CHECKING:
    from jaxlint.rule import StaticRule

#: a code ends where the word does: `JAX1l4` is no code (not `JAX1` followed by text)
_C = r"[A-Z]+[0-9]+(?![A-Za-z0-9_])"
#: compiled when a file has a ``noqa`` comment (the three took 3 % of a one-file check)
_NOQA = LazyPattern(rf"#\s*noqa(?P<colon>:[\s]?(?P<codes>{_C}(?:[,\s]+{_C})*)?)?", re.IGNORECASE)
#: file level, as ruff reads it: its own ``# ruff: noqa``, flake8's ``# flake8: noqa`` and ours
_FILE_NOQA = LazyPattern(rf"#\s*(?P<tool>jaxlint|ruff|flake8)\s*:\s*noqa(?P<colon>:\s*(?P<codes>{_C}(?:[,\s]+{_C})*)?)?",
                         re.IGNORECASE)
_CODE = LazyPattern(_C, re.IGNORECASE)


@dataclass(frozen=True)
class NoqaComment:
    line: int
    column: int  # 1-based column of the '#'
    end_column: int  # 1-based column just past the noqa directive
    codes: tuple[str, ...] | None  # None: blanket noqa
    text: str  # the whole comment
    comment_column: int = 0  # 1-based column of the comment's '#'
    codes_column: int = 0  # 1-based column where the code list starts (0: blanket)


@dataclass
class Suppressions:
    lines: dict[int, NoqaComment] = field(default_factory=dict)
    file_all: bool = False
    file_codes: set[str] = field(default_factory=set)
    file_comments: list[NoqaComment] = field(default_factory=list)

    def suppresses(self, code: str, line: int) -> NoqaComment | None:
        """The noqa comment that hides ``code`` at ``line``: a file-level one first (the
        first in the file that names ``code`` or names none), else the line's."""
        if self.file_all or code in self.file_codes:
            return next(c for c in self.file_comments if c.codes is None or code in c.codes)
        c = self.lines.get(line)
        if c is not None and (c.codes is None or code in c.codes):
            return c
        return None

    def names_codes_at(self, line: int) -> bool:
        """Whether a noqa comment that applies at ``line`` names codes (one that names
        none hides everything already)."""
        c = self.lines.get(line)
        return bool(self.file_codes) or (c is not None and bool(c.codes))

    def names_other_codes_at(self, line: int, known: frozenset[str]) -> bool:
        """Whether a noqa comment that applies at ``line`` names a code not in ``known``."""
        c = self.lines.get(line)
        return bool(self.file_codes - known) or (c is not None and bool(set(c.codes or ()) - known))


def comments(source: str) -> list[tuple[int, int, str]]:
    """Every comment of ``source``: (line, 0-based column, text), lines numbered as ``ast``
    numbers them (``\n``, ``\r\n`` and a lone ``\r`` end a line). The one reader of
    comments: ``# noqa`` here, a rule's reading of what a comment says (``key_purpose``)."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source, newline="").readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.start[1], tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # fall back to a line scan; good enough for broken files
        out = []
        for i, line in enumerate(split_lines(source), 1):
            j = line.find("#")
            if j >= 0:
                out.append((i, j, line[j:]))
    return out


def parse_suppressions(source: str) -> Suppressions:
    sup = Suppressions()
    lowered = source.lower()
    if "noqa" not in lowered:
        return sup
    noqa_re, file_noqa_re, code_re = _NOQA(), _FILE_NOQA(), _CODE()
    for line, col, text in comments(source):
        if "noqa" not in text.lower():
            continue
        fm = file_noqa_re.search(text)
        if fm and fm.group("colon") and (not fm.group("codes") or re.match(r"\s*,", text[fm.end():])):
            continue  # `# jaxlint: noqa: <not a code>`: no directive (ruff warns and ignores it)
        if fm and fm.group("codes") and fm.group("tool").lower() == "flake8":
            continue  # flake8's file-level noqa takes no codes: ruff warns and ignores it, as here
        if fm:
            codes = tuple(c.upper() for c in code_re.findall(fm.group("codes") or "")) or None
            codes_col = col + 1 + fm.start("codes") if codes else 0
            sup.file_comments.append(NoqaComment(line, col + 1 + fm.start(), col + 1 + fm.end(), codes, text,
                                                 col + 1, codes_col))
            if codes is None:
                sup.file_all = True
            else:
                sup.file_codes.update(codes)
            continue
        m = noqa_re.search(text)
        if m and m.group("colon") and not m.group("codes"):
            named = _by_names(text, m.end("colon"))  # `# noqa: prng-key-reuse`: rule names, as `select` takes
            if named is not None:
                codes, start = named
                sup.lines[line] = NoqaComment(line, col + 1 + m.start(), col + 1 + len(text.rstrip()), codes, text,
                                              col + 1, col + 1 + start)
            continue
        if m and m.group("colon") and (not m.group("codes") or re.match(r"\s*,", text[m.end():])):
            continue  # `# noqa: JAX1l4`: no code list, so no directive; left as it is written
        if m:
            codes = tuple(c.upper() for c in code_re.findall(m.group("codes") or "")) or None
            codes_col = col + 1 + m.start("codes") if codes else 0
            sup.lines[line] = NoqaComment(line, col + 1 + m.start(), col + 1 + m.end(), codes, text, col + 1, codes_col)
    return sup


#: the code of the jaxlint rule of a name, or None: set by :mod:`jaxlint.registry`, which
#: knows the rules (this module is below it, and imports no rule)
RULE_NAMED: Callable[[str], str | None] | None = None
_NAMES = LazyPattern(r"\s*([a-z][a-z0-9]*(?:-[a-z0-9]+)+(?:[,\s]+[a-z][a-z0-9]*(?:-[a-z0-9]+)+)*)\s*$")


def _by_names(text: str, at: int) -> tuple[tuple[str, ...], int] | None:
    """The codes of the jaxlint rules a ``# noqa:`` names by name (kebab-case, as the
    config's ``select`` takes them) from ``at`` to the comment's end, and where the list
    starts; None unless every name is a jaxlint rule's (another tool's words)."""
    m = _NAMES().match(text, at)
    if m is None or RULE_NAMED is None:
        return None
    codes = [RULE_NAMED(n) for n in re.split(r"[,\s]+", m.group(1))]
    if not all(codes):
        return None
    return tuple(c for c in codes if c), m.start(1)


# ---------------------------------------------------------------- rewriting comments
def set_codes_edit(c: NoqaComment, codes: Sequence[str], line_text: str) -> Edit:
    """The edit that makes noqa comment ``c`` list exactly ``codes``, keeping the rest of
    the comment (other tools' codes, trailing text) as it is. No codes removes the
    directive, and with it the whitespace before it, or the whole line when the
    comment stood alone on it."""
    ln = c.line
    if codes:
        assert c.codes_column, "a blanket noqa has no code list to rewrite"
        return Edit(Position(ln, c.codes_column), Position(ln, c.end_column), ", ".join(codes))
    start, end = c.column - 1, c.end_column - 1  # 0-based, the directive
    before, rest = line_text[:start], line_text[end:]
    if rest.strip() and start == c.comment_column - 1:
        # `# noqa: JAX101 -- why`: keep the explanation as a plain comment
        skip = len(rest) - len(rest.lstrip())
        return Edit(Position(ln, start + 1), Position(ln, end + skip + 1), "# ")
    if not before.strip():
        return Edit(Position(ln, 1), Position(ln + 1, 1), "")
    cut = len(before.rstrip())
    stop = len(line_text) if not rest.strip() else end
    return Edit(Position(ln, cut + 1), Position(ln, stop + 1), "")


def add_codes_edit(line: int, line_text: str, c: NoqaComment | None, codes: Iterable[str]) -> Edit | None:
    """The edit that makes ``line`` suppress ``codes`` too: merged into its noqa comment
    (no duplicates), or a new ``# noqa: …`` at the end of the line. None when the
    line's comment already suppresses them all."""
    if c is not None and c.codes is None:
        return None
    have = list(c.codes) if c is not None and c.codes else []
    new = [x for x in sorted(set(codes)) if x not in have]
    if not new:
        return None
    if c is not None:
        return set_codes_edit(c, have + new, line_text)
    content_end = len(line_text.rstrip()) + 1
    return Edit(Position(line, content_end), Position(line, len(line_text) + 1), "  # noqa: " + ", ".join(new))


# ------------------------------------------------------------ what the comments did
@dataclass(frozen=True)
class NoqaUsage:
    """What the noqa comments of one checked file did: the context of a rule that reviews
    suppressions (``StaticRule.check_suppressions(ctx)``) after every other rule ran,
    which it reports through (:meth:`report`)."""

    path: str
    source: str
    suppressions: Suppressions
    #: line -> the codes its noqa comment (line or file-level) suppressed in this run
    used: Mapping[int, frozenset[str]]
    #: codes of the rules that checked this file to completion
    ran: frozenset[str]
    #: every code jaxlint knows (all tiers)
    known: frozenset[str]
    #: the rule reporting (the engine hands each rule a context of its own)
    rule: type[StaticRule] | None = None
    #: its findings
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @functools.cached_property
    def _lines(self) -> list[str]:
        return split_lines(self.source)

    def line_text(self, line: int) -> str:
        return self._lines[line - 1] if 1 <= line <= len(self._lines) else ""

    def report(self, where: NoqaComment, message: str, *, fix: Fix | None = None, key: str = "") -> None:
        """Report a finding on the noqa comment ``where``. ``key``: what tells it from the
        rule's other findings in the file, line-independent, for the baseline."""
        rule = self.rule
        assert rule is not None
        start, end = Position(where.line, where.column), Position(where.line, where.end_column)
        self.diagnostics.append(Diagnostic(rule.code, rule.name, message, self.path, start, end, rule.severity,
                                           Phase.STATIC, fix, (), {}, key, where.line))


def lines_without_room(source: str) -> set[int] | None:
    """Lines that cannot take a trailing comment: they end inside a string (or any
    token that spans lines) or in a backslash continuation. None if the source does
    not tokenize."""
    bad: set[int] = set()
    with_comment: set[int] = set()
    skip = (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source, newline="").readline):
            if tok.type == tokenize.COMMENT:
                with_comment.add(tok.start[0])
            elif tok.type not in skip and tok.end[0] > tok.start[0]:
                bad.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        return None
    for i, line in enumerate(re.split(r"\r\n|\r|\n", source), 1):
        if line.rstrip().endswith("\\") and i not in with_comment:
            bad.add(i)
    return bad
