"""What every output format stands on: the context it writes in, and the table of
formats that registering fills (:mod:`jaxlint.output` loads a format's module when
that format is asked for)."""
from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Callable

from jaxlint.findings.result import RunResult
from jaxlint.records import dataclass


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
