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
        write_text(stream or sys.stdout, text)


def write_text(stream: TextIO, text: str) -> None:
    """``text`` to ``stream`` whatever the locale: UTF-8, as ``-o FILE`` has it, to a pipe
    or file (a SARIF or JSON report must be UTF-8, and a character the locale's encoding
    lacks, such as the rule docs' "·" in ASCII, made the run fail with an internal error);
    on a terminal, its own encoding with what it lacks escaped (``\\xb7``)."""
    import codecs

    encoding = getattr(stream, "encoding", None) or "utf-8"
    buffer = getattr(stream, "buffer", None)
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        utf8 = False
    if utf8 or buffer is None:
        stream.write(text)
    elif stream.isatty():
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
    else:
        stream.flush()
        buffer.write(text.encode("utf-8", "backslashreplace"))
    stream.flush()
