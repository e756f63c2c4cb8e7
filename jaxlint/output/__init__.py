"""Output formats. Each sink reads only :class:`~jaxlint.diagnostic.Diagnostic` and
the run summary; none knows any rule by name.

A format is a function ``(result: RunResult, ctx: OutputContext) -> str`` registered
in :data:`FORMATS`.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

from jaxlint.result import RunResult


@dataclass
class OutputContext:
    cwd: Path = field(default_factory=Path.cwd)
    color: bool = False
    show_fixes: bool = False
    #: findings only: no summary lines (``check --quiet``)
    quiet: bool = False
    #: ``--unsafe-fixes``: unsafe fixes count as available (``[*]``), as in ruff
    unsafe_fixes: bool = False
    #: source text by display path, for formats that show the source line
    sources: dict[str, str] = field(default_factory=dict)
    #: repository root (for SARIF URIs), when known
    root: Path | None = None


Formatter = Callable[[RunResult, OutputContext], str]
FORMATS: dict[str, Formatter] = {}


def register(name: str) -> Callable[[Formatter], Formatter]:
    def deco(fn: Formatter) -> Formatter:
        FORMATS[name] = fn
        return fn

    return deco


#: format name -> the module that registers it (tests/test_output_formats.py keeps this
#: in sync), so that a run imports only the formats it writes
FORMAT_MODULES = {
    "concise": "concise", "full": "full", "github": "github", "gitlab": "gitlab", "json": "json_format",
    "json-lines": "json_lines", "junit": "junit", "markdown": "markdown", "sarif": "sarif",
}


def load_formats(*names: str) -> dict[str, Formatter]:
    """The registered formats: those of ``names`` (unknown names are skipped), or all."""
    import importlib

    # importing the modules registers them (a broken one must fail loudly, not vanish)
    for name in names or tuple(FORMAT_MODULES):
        if name in FORMAT_MODULES:
            importlib.import_module(f"jaxlint.output.{FORMAT_MODULES[name]}")
    return FORMATS


def write_report(text: str, output_file: str | None, stream: TextIO | None = None) -> None:
    """The report to ``output_file`` (its folder made), else to ``stream`` (stdout)."""
    if output_file:
        p = Path(output_file)
        if p.parent and not p.parent.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    else:
        stream = stream or sys.stdout
        stream.write(text)
        stream.flush()
