"""``# noqa`` comments: the ruff/flake8 grammar, read with the tokenizer.

* ``# noqa`` suppresses every finding on its line.
* ``# noqa: JAX101, JAX203`` (commas or spaces) suppresses those codes; codes of
  other tools are kept so that unused-noqa can ignore them.
* ``# jaxlint: noqa`` / ``# jaxlint: noqa: JAX101`` anywhere in a file applies to
  the whole file.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"#\s*jaxlint\s*:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Z]+[0-9]+")


@dataclass(frozen=True)
class NoqaComment:
    line: int
    column: int  # 1-based column of the '#'
    end_column: int  # 1-based column just past the noqa directive
    codes: tuple[str, ...] | None  # None: blanket noqa
    text: str  # the whole comment


@dataclass
class Suppressions:
    lines: dict[int, NoqaComment] = field(default_factory=dict)
    file_all: bool = False
    file_codes: set[str] = field(default_factory=set)
    file_comments: list[NoqaComment] = field(default_factory=list)

    def suppresses(self, code: str, line: int) -> NoqaComment | None | bool:
        """The noqa comment (or True for a file-level one) that hides ``code`` at ``line``."""
        if self.file_all or code in self.file_codes:
            return True
        c = self.lines.get(line)
        if c is not None and (c.codes is None or code in c.codes):
            return c
        return None


def _comments(source: str) -> list[tuple[int, int, str]]:
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.start[1], tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # fall back to a line scan; good enough for broken files
        for i, line in enumerate(source.splitlines(), 1):
            j = line.find("#")
            if j >= 0:
                out.append((i, j, line[j:]))
    return out


def parse_suppressions(source: str) -> Suppressions:
    sup = Suppressions()
    lowered = source.lower()
    if "noqa" not in lowered:
        return sup
    for line, col, text in _comments(source):
        if "noqa" not in text.lower():
            continue
        fm = _FILE_NOQA.search(text)
        if fm:
            codes = tuple(_CODE.findall(fm.group("codes") or "")) or None
            sup.file_comments.append(NoqaComment(line, col + 1, col + 1 + fm.end(), codes, text))
            if codes is None:
                sup.file_all = True
            else:
                sup.file_codes.update(codes)
            continue
        m = _NOQA.search(text)
        if m:
            codes = tuple(c.upper() for c in _CODE.findall(m.group("codes") or "")) or None
            sup.lines[line] = NoqaComment(line, col + 1 + m.start(), col + 1 + m.end(), codes, text)
    return sup
