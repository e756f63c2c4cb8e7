"""jaxlint positions (1-based lines, 1-based code-point columns) <-> LSP positions.

LSP counts lines from 0 and characters in the *negotiated* encoding's code units:
UTF-16 unless client and server agreed on UTF-8 or UTF-32. A character outside the
Basic Multilingual Plane (most emoji) is one code point but two UTF-16 units and four
UTF-8 bytes, so a column after it differs between the three. Everything here is pure
Python so that it can be tested without a client.
"""
from __future__ import annotations

from jaxlint.diagnostic import Position

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def _unit_width(ch: str, encoding: str) -> int:
    cp = ord(ch)
    if encoding == UTF8:
        return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
    if encoding == UTF16:
        return 2 if cp > 0xFFFF else 1
    return 1


def to_units(line: str, column: int, encoding: str = UTF16) -> int:
    """1-based code-point ``column`` on ``line`` -> 0-based offset in ``encoding`` units."""
    idx = min(max(column - 1, 0), len(line))
    if encoding == UTF32 or line.isascii():
        return idx
    return sum(_unit_width(ch, encoding) for ch in line[:idx])


def from_units(line: str, character: int, encoding: str = UTF16) -> int:
    """0-based offset in ``encoding`` units on ``line`` -> 1-based code-point column.

    An offset that falls inside a character (half a surrogate pair) rounds up to the
    next character, so a range never cuts one in two."""
    if encoding == UTF32 or line.isascii():
        return min(max(character, 0), len(line)) + 1
    units = 0
    for i, ch in enumerate(line):
        if units >= character:
            return i + 1
        units += _unit_width(ch, encoding)
    return len(line) + 1


def to_lsp(lines: list[str], pos: Position, encoding: str = UTF16) -> tuple[int, int]:
    """A jaxlint position -> (line, character) for LSP, clamped to the document."""
    if not lines:
        return 0, 0
    line = pos.line - 1
    if line < 0:
        return 0, 0
    if line >= len(lines):
        last = len(lines) - 1
        return last, to_units(lines[last], len(lines[last]) + 1, encoding)
    return line, to_units(lines[line], pos.column, encoding)
