"""Output formats. Each sink reads only :class:`~jaxlint.diagnostic.Diagnostic` and
the run summary; none knows any rule by name.

A format is a function ``(result: RunResult, ctx: OutputContext) -> str`` registered
in :data:`FORMATS`.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from jaxlint.output.context import FORMATS, Formatter, OutputContext, register  # noqa: F401 (the formats' API)

#: format name -> the module that registers it (tests/test_formats.py keeps this and
#: :func:`_import_format` in sync), so that a run imports only the formats it writes
FORMAT_MODULES = {
    "concise": "concise", "full": "full", "github": "github", "gitlab": "gitlab", "json": "json_format",
    "json-lines": "json_lines", "junit": "junit", "markdown": "markdown", "sarif": "sarif",
}


def load_formats(*names: str) -> dict[str, Formatter]:
    """The registered formats: those of ``names`` (unknown names are skipped), or all."""
    # importing the modules registers them (a broken one must fail loudly, not vanish)
    for name in names or tuple(FORMAT_MODULES):
        _import_format(name)
    return FORMATS


def _import_format(name: str) -> None:
    """Import the module of format ``name``: each import written out (no module name in a
    string; tests/test_architecture.py), and only when that format is asked for."""
    if name == "concise":
        from jaxlint.output import concise  # noqa: F401
    elif name == "full":
        from jaxlint.output import full  # noqa: F401
    elif name == "github":
        from jaxlint.output import github  # noqa: F401
    elif name == "gitlab":
        from jaxlint.output import gitlab  # noqa: F401
    elif name == "json":
        from jaxlint.output import json_format  # noqa: F401
    elif name == "json-lines":
        from jaxlint.output import json_lines  # noqa: F401
    elif name == "junit":
        from jaxlint.output import junit  # noqa: F401
    elif name == "markdown":
        from jaxlint.output import markdown  # noqa: F401
    elif name == "sarif":
        from jaxlint.output import sarif  # noqa: F401


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
