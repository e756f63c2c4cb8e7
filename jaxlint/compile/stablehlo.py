"""Source locations of StableHLO text printed with debug info (pure Python).

Every operation ends with ``loc(#locN)`` or an inline ``loc(...)``; the aliases are
defined at the top or bottom of the module as ``#locN = loc(...)``. A location is a
file position (``"f.py":12:4`` or ``"f.py":12:4 to :9``), a name wrapping another
(``"jit(f)/mul"(#loc3)``), a call site (``callsite(#callee at #caller)``), a fusion
(``fused[#a, #b]``) or ``unknown``. Resolving gives the stack, innermost first.
"""
from __future__ import annotations

import re

from jaxlint.compile.hlo import SourceLocation

_ALIAS = re.compile(r"^(#loc\d*)\s*=\s*loc\((.*)\)\s*$")
_TRAILING = re.compile(r"\bloc\((#loc\d*|[^()]*(?:\([^()]*\))?[^()]*)\)\s*$")
_FILE = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+):(\d+)')


class Locations:
    def __init__(self, text: str) -> None:
        self.aliases: dict[str, str] = {}
        for line in text.splitlines():
            m = _ALIAS.match(line.strip())
            if m:
                self.aliases[m.group(1)] = m.group(2)
        self._cache: dict[str, tuple[SourceLocation, ...]] = {}

    def resolve(self, expr: str, depth: int = 0) -> tuple[SourceLocation, ...]:
        expr = expr.strip()
        if depth > 64 or not expr or expr == "unknown":
            return ()
        if expr.startswith("#loc"):
            if expr not in self._cache:
                self._cache[expr] = ()  # cycles resolve to nothing
                self._cache[expr] = self.resolve(self.aliases.get(expr, ""), depth + 1)
            return self._cache[expr]
        m = _FILE.match(expr)
        if m:
            return (SourceLocation(m.group(1), int(m.group(2)), "", int(m.group(3)) + 1),)
        if expr.startswith("callsite(") and expr.endswith(")"):
            inner = expr[len("callsite("):-1]
            callee, _, caller = inner.partition(" at ")
            return self.resolve(callee, depth + 1) + self.resolve(caller, depth + 1)
        if expr.startswith("fused"):
            for part in re.findall(r"#loc\d*|\"[^\"]*\":\d+:\d+", expr):
                got = self.resolve(part, depth + 1)
                if got:
                    return got
            return ()
        m = re.match(r'^"(?:[^"\\]|\\.)*"\((.*)\)$', expr)  # a name wrapping a location
        if m:
            return self.resolve(m.group(1), depth + 1)
        return ()

    def of_line(self, line: str) -> tuple[SourceLocation, ...]:
        """The stack of the operation printed on ``line`` (empty for other lines)."""
        if line.lstrip().startswith("#loc"):
            return ()
        m = _TRAILING.search(line)
        return self.resolve(m.group(1)) if m else ()


def strip_locations(line: str) -> str:
    """The operation without its trailing ``loc(...)`` (the annotation replaces it)."""
    m = _TRAILING.search(line)
    return line[:m.start()].rstrip() if m else line
