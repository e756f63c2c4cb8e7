"""What the report formats share: paths relative to the repository root (code scanning,
the Actions UI and merge-request widgets find files from it), positions of notebook
findings in the ``.ipynb`` file, line-independent fingerprints, and the rules a report
describes.

A finding in a Jupyter notebook (``Diagnostic.cell`` set) is placed in SARIF, GitHub
and GitLab reports at the line and column of the ``.ipynb`` file itself, where its
cell's source line is written in the JSON (:meth:`jaxlint.files.notebook.Notebook.file_position`):
code scanning and annotations show and link lines of the file as stored, so that is the
only place they can point at. The cell and the line in the cell go with it (SARIF
properties, the annotation's title, the GitLab description).
"""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from pathlib import Path
from typing import Sequence

from jaxlint.diagnostic import Diagnostic, Position
from jaxlint.output.context import OutputContext
from jaxlint.output.concise import location
from jaxlint.findings.result import RunResult
from jaxlint.rule import Rule


def repo_root(ctx: OutputContext) -> Path:
    """The root that report paths are relative to: the git work tree containing the
    project root when there is one (code scanning resolves paths from it), else the
    project root, else the working directory."""
    base = Path(os.path.normpath((ctx.root or ctx.cwd).absolute()))
    for d in (base, *base.parents):
        if (d / ".git").exists():
            return d
    return base


def relative_path(path: str, root: Path, cwd: Path) -> str | None:
    """``path`` (a display path, relative to ``cwd``) as a posix path relative to
    ``root``; None when the file lies outside it."""
    p = Path(path)
    absolute = Path(os.path.normpath(p if p.is_absolute() else cwd / p))
    for a, r in ((absolute, root), (absolute.resolve(), root.resolve())):
        try:
            return a.relative_to(r).as_posix()
        except ValueError:
            continue
    return None


def fingerprints(diagnostics: Sequence[Diagnostic], paths: Sequence[str]) -> list[str]:
    """One fingerprint per finding, independent of line numbers.

    The recipe is rule code + repository path + the finding's signature (enclosing
    function and normalized source of the flagged expression) + the occurrence number
    among findings that share those three, so two identical findings in one function
    still get distinct fingerprints and moving code up or down changes none of them.
    """
    seen: Counter = Counter()
    out = []
    for d, path in zip(diagnostics, paths):
        basis = d.signature or f"{d.name}:{d.message}"
        key = (d.code, path, basis)
        nth = seen[key]
        seen[key] += 1
        out.append(hashlib.sha256("\0".join((d.code, path, basis, str(nth))).encode("utf-8", "surrogateescape")).hexdigest()[:32])
    return out


def report_paths(diagnostics: Sequence[Diagnostic], ctx: OutputContext) -> list[str]:
    root = repo_root(ctx)
    return [relative_path(d.path, root, ctx.cwd) or d.path for d in diagnostics]


class InFile:
    """Positions of notebook findings in the ``.ipynb`` file (each notebook read once)."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._notebooks: dict[str, object] = {}

    def _notebook(self, path: str):
        if path not in self._notebooks:
            from jaxlint.files.notebook import NotebookError, load

            p = Path(path)
            try:
                self._notebooks[path] = load((p if p.is_absolute() else self.cwd / p).read_bytes())
            except (OSError, NotebookError):
                self._notebooks[path] = None
        return self._notebooks[path]

    def span(self, path: str, cell: int | None, start: Position, end: Position) -> tuple[Position, Position]:
        """(start, end) in the file; a finding outside notebooks as it is. A notebook that
        can no longer be read (or has lost the cell) gives its first line."""
        if cell is None:
            return start, end
        nb = self._notebook(path)
        a = nb.file_position(cell, start.line, start.column) if nb is not None else None  # type: ignore[attr-defined]
        b = nb.file_position(cell, end.line, end.column) if nb is not None else None  # type: ignore[attr-defined]
        if a is None:
            return Position(1, 1), Position(1, 1)
        return Position(*a), Position(*b) if b is not None and b >= a else Position(*a)


def cell_note(d: Diagnostic) -> str:
    return f"cell {d.cell}, line {d.start.line}, column {d.start.column}" if d.cell is not None else ""


def rules_for(result: RunResult) -> dict[str, type[Rule] | None]:
    """The active rules plus any rule that produced a finding, by code."""
    from jaxlint.registry import rules_by_code

    known = rules_by_code()
    rules: dict[str, type[Rule] | None] = dict(result.rules)
    for d in result.diagnostics:
        if d.code not in rules:
            rules[d.code] = known.get(d.code)
    return dict(sorted(rules.items()))


def related_lines(d: Diagnostic) -> list[str]:
    return [f"{location(r.path, r.cell, r.start.line, r.start.column)}: {r.message}" for r in d.related]
