"""Text edits behind the server's code actions, on jaxlint positions (1-based lines,
code-point columns); the server converts to LSP positions at the edge.

The noqa and fix logic itself is the CLI's (``jaxlint.findings.noqa``, ``jaxlint.fix.apply``), so
the editor's "suppress" and "fix all" do exactly what ``--add-noqa`` and ``--fix`` do.
"""
from __future__ import annotations

import bisect
from typing import Callable

from jaxlint.diagnostic import Diagnostic, Edit, Position
from jaxlint.fix.apply import fix_until_stable
from jaxlint.findings.noqa import add_codes_edit, lines_without_room, parse_suppressions
from jaxlint.textutil import common_affixes, line_starts, split_lines


def noqa_edit(text: str, line: int, code: str) -> Edit | None:
    """The edit that makes ``line`` suppress ``code``: merged into the line's
    ``# noqa: X`` (the parser reads only one comment), or a new comment at its end.
    None when the line already suppresses ``code`` or cannot end in a comment
    (inside a multi-line string, after a backslash)."""
    return NoqaEdits(text).edit(line, code)


class NoqaEdits:
    """:func:`noqa_edit` for many findings of one text: the text is split and tokenized
    once, so each edit costs its line, not the file."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self._read = False
        self._no_room: set[int] | None = None
        self._comments: dict = {}

    def edit(self, line: int, code: str) -> Edit | None:
        if not self._read:
            self._no_room = lines_without_room(self.text)
            self._comments = parse_suppressions(self.text).lines
            self._read = True
        if not 1 <= line <= len(self.lines) or self._no_room is None or line in self._no_room:
            return None
        return add_codes_edit(line, self.lines[line - 1], self._comments.get(line), [code])


def fix_all(text: str, findings: list[Diagnostic], lint: Callable[[str], list[Diagnostic]], unsafe: bool,
            path: str = "") -> str:
    """The text after every applicable fix, pass after pass, as ``jaxlint check --fix``."""
    return fix_until_stable(text, findings, lint, unsafe=unsafe, path=path).text


def smallest_replacement(old: str, new: str) -> tuple[Position, Position, str]:
    """One edit, in whole lines, that turns ``old`` into ``new``: editors keep the
    cursor and folds outside the changed lines, unlike a whole-document replacement."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    p, s = common_affixes(a, b)
    start = sum(len(x) for x in a[:p])
    end = len(old) - sum(len(x) for x in a[len(a) - s:])
    content = "".join(b[p:len(b) - s])
    starts = line_starts(old)
    return _position_at(starts, start), _position_at(starts, end), content


def _position_at(starts: list[int], offset: int) -> Position:
    line = bisect.bisect_right(starts, offset)
    return Position(line, offset - starts[line - 1] + 1)
