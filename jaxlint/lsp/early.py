"""Answer ``initialize`` before the language server's heavy imports.

An editor waits for the ``initialize`` answer before it sends anything else, and
importing pygls and ``lsprotocol.types`` takes most of the server's start-up (0.2 s on
an idle machine, seconds on a loaded one: docs/editors.md). The answer depends only on
the features the server registers and on the position encoding the client offers, so
it is written here, from the raw message, with nothing but ``json``; then the server is
imported and handed the same ``initialize`` again (its own answer to it is not sent:
``JaxlintProtocol`` drops it, and logs a warning if it differs from this one, which
``tests/test_lsp_startup.py`` checks never happens).
"""
from __future__ import annotations

import json
from typing import Any, BinaryIO, Protocol

from jaxlint import __version__

#: what the server registers (see ``JaxlintServer._register``), as pygls advertises it
CAPABILITIES: dict[str, Any] = {
    "textDocumentSync": {"openClose": True, "change": 2, "save": {"includeText": False}},
    "codeActionProvider": {"codeActionKinds": ["quickfix", "source.fixAll", "source.fixAll.jaxlint"],
                           "resolveProvider": False},
    "executeCommandProvider": {"commands": []},
    "diagnosticProvider": {"interFileDependencies": False, "workspaceDiagnostics": False, "identifier": "jaxlint"},
    "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}, "fileOperations": {}},
}
#: notebook documents (``JaxlintServer``'s ``notebook_document_sync``): pygls advertises it
#: only to a client that can sync notebooks
NOTEBOOK_SYNC: dict[str, Any] = {
    "notebookSelector": [{"notebook": "jupyter-notebook", "cells": [{"language": "python"}]}], "save": True}
ENCODINGS = ("utf-8", "utf-16", "utf-32")


def position_encoding(params: dict) -> str:
    """The client's first offered encoding the server supports, else UTF-16 (LSP's
    default, and pygls' choice)."""
    general = (params.get("capabilities") or {}).get("general") or {}
    for enc in general.get("positionEncodings") or ():
        if enc in ENCODINGS:
            return enc
    return "utf-16"


def initialize_result(params: dict) -> dict:
    caps = {"positionEncoding": position_encoding(params), **CAPABILITIES}
    if (params.get("capabilities") or {}).get("notebookDocument") is not None:
        caps["notebookDocumentSync"] = NOTEBOOK_SYNC
    return {"capabilities": caps, "serverInfo": {"name": "jaxlint", "version": __version__}}


class Reader(Protocol):
    """What reading LSP messages needs of a byte stream: a raw stdin, or the framing reader
    over it (``jaxlint.lsp.framing.FramedInput``)."""

    def readline(self) -> bytes: ...

    def read(self, n: int = -1) -> bytes: ...


def read_message(stream: Reader) -> bytes:
    """One LSP message, headers included, exactly as it came (b"" at end of input)."""
    raw = b""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return raw
        raw += line
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return raw
    return raw + (stream.read(length) if length else b"")


class Replay:
    """``stream`` with ``prefix`` read again first: what pygls' reader needs
    (``readline`` and ``read``)."""

    def __init__(self, prefix: bytes, stream: Reader) -> None:
        self.prefix = prefix
        self.stream = stream

    def readline(self) -> bytes:
        if self.prefix:
            line, nl, rest = self.prefix.partition(b"\n")
            self.prefix = rest
            return line + nl if nl else line + self.stream.readline()
        return self.stream.readline()

    def read(self, n: int = -1) -> bytes:
        if self.prefix:
            if n < 0:
                out, self.prefix = self.prefix, b""
                return out + self.stream.read()
            out, self.prefix = self.prefix[:n], self.prefix[n:]
            return out + (self.stream.read(n - len(out)) if len(out) < n else b"")
        return self.stream.read(n)


def answer_initialize(stdin: Reader, stdout: BinaryIO) -> tuple[Replay, Any, dict | None]:
    """Read the first message; if it is ``initialize``, answer it now. Returns the input
    to give the server (the message replayed first), the id answered (None if none) and
    the answer sent."""
    raw = read_message(stdin)
    body = raw.split(b"\r\n\r\n", 1)[-1] if b"\r\n\r\n" in raw else b""
    try:
        msg = json.loads(body) if body else None
    except ValueError:
        msg = None
    if not (isinstance(msg, dict) and msg.get("method") == "initialize" and "id" in msg
            and isinstance(msg.get("params"), dict) and isinstance(msg["params"].get("capabilities"), dict)):
        return Replay(raw, stdin), None, None
    result = initialize_result(msg["params"])
    out = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}, separators=(",", ":")).encode("utf-8")
    stdout.write(b"Content-Length: %d\r\n\r\n" % len(out) + out)
    stdout.flush()
    return Replay(raw, stdin), msg["id"], result
