"""What the language server keeps per open document (``Doc``) and the work of one
request on a thread of its own (``Job``), which the server's parts share; the source
name and the fix-all kind its findings and actions carry; the settings a document is
checked with (``with_hints``) and its text as JSON can carry it (``encodable``)."""
from __future__ import annotations

import asyncio
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from lsprotocol import types as T

from jaxlint.config import Settings
from jaxlint.diagnostic import Diagnostic

SOURCE = "jaxlint"
FIX_ALL_KIND = "source.fixAll.jaxlint"


@dataclass
class Doc:
    """What the server knows about one open document."""

    uri: str
    #: key of the text and settings the results below were computed for
    key: tuple = ()
    version: int | None = None
    text: str = ""
    findings: list[Diagnostic] = field(default_factory=list)
    items: list[T.Diagnostic] = field(default_factory=list)
    #: findings of the last completed dynamic run, and the code of the saved text they
    #: were measured on (each line without its comment)
    dynamic: list[Diagnostic] = field(default_factory=list)
    dynamic_code: list[str] = field(default_factory=list)
    dynamic_generation: int = 0
    #: planned fixes made for code actions on this text, by finding index (libcst runs once)
    made: dict[int, Any] = field(default_factory=dict)
    debounce: asyncio.Task | None = None
    dynamic_task: asyncio.Task | None = None
    #: a notebook cell: the notebook's URI (``text`` and ``findings`` are then its module's)
    notebook: str | None = None
    #: the other modules of the project the static findings read (saved files, absolute
    #: paths): saving one of them re-checks this document
    reads: frozenset[str] = frozenset()
    #: how many times one of ``reads`` was saved (part of the results' key)
    reads_saved: int = 0

    @property
    def result_id(self) -> str:
        return ":".join(str(k) for k in self.key)


class Cancelled(Exception):
    """A job's request was cancelled: its thread stops at the next check."""


class Job:
    """The work of one request, on a thread of its own. The thread touches no server
    state: ``lint`` was resolved on the loop, what it would log is kept in ``notes``
    (logged on the loop afterwards), and it stops at its next ``lint`` once cancelled."""

    def __init__(self, lint: Callable[[str], list[Diagnostic]], notes: list[str]) -> None:
        self._lint = lint
        self.notes = notes
        self.cancelled = threading.Event()

    def lint(self, text: str) -> list[Diagnostic]:
        if self.cancelled.is_set():
            raise Cancelled()
        return self._lint(text)


def with_hints(settings: Settings) -> Settings:
    """The editor shows the findings the model rates only possible too, as hints
    (``_to_lsp``), unless the config asks for certain findings only."""
    if settings.confidence == "certain":
        return settings
    from dataclasses import replace

    return replace(settings, confidence="possible")


def encodable(text: str) -> str:
    """``text`` with lone surrogates (legal as JSON escapes, ``"\\ud800"``, but not in
    UTF-8) as U+FFFD: one UTF-16 unit and one code point each, so positions stay put."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


_SURROGATE = re.compile("[\ud800-\udfff]")
