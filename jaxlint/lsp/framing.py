"""The language server's input: LSP base-protocol frames, read so that a client's bad
framing costs one message, never the connection.

pygls reads ``Content-Length: N`` and then N bytes and trusts both: a length too short
or too long leaves it reading bodies as headers (or headers as bodies) for the rest of
the session, a zero, negative or missing length makes it skip every later message, and
a length of 10**12 ends in ``MemoryError``. :class:`FramedInput` stands between stdin
and pygls and hands it only well-formed frames:

* headers are ``Name: value`` lines ended by ``\\r\\n`` (a bare ``\\n`` is accepted too);
  ``Content-Length`` must be a positive decimal count of at most :data:`MAX_MESSAGE_BYTES`;
* a message with a bad or missing length, garbage between messages, and a body whose
  declared length runs into the next message's header (a length too long, or a huge one
  with no body sent) are dropped with a logged error, and reading resumes at the next
  ``Content-Length`` header; a body cut short (a length too short) reaches pygls as what
  it is, JSON that does not parse, which pygls logs and drops;
* nothing larger than :data:`MAX_MESSAGE_BYTES` is ever held in memory.
"""
from __future__ import annotations

import logging
import os
import re
from collections import deque
from typing import BinaryIO

logger = logging.getLogger("jaxlint.lsp")

#: the largest message kept (a didOpen of a 20k-line file is about 1 MB)
MAX_MESSAGE_BYTES = 64 << 20
#: longest header line; anything longer is not a header
_MAX_HEADER_LINE = 4096
_HEADER = re.compile(rb"^([A-Za-z][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*?)[ \t]*\r?\n$")
_LENGTH = re.compile(rb"(?i)content-length[ \t]*:")
_HEADER_LINE = re.compile(rb"(?i)content-length[ \t]*:[^\r\n]{0,64}\r?\n")
_CHUNK = 1 << 16


class FramedInput:
    """A reader with the ``readline()``/``read(n)`` pygls uses, over a raw byte stream."""

    def __init__(self, raw: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._raw = raw
        self._limit = limit
        self._buf = bytearray()
        self._eof = False
        self._out: deque[bytes] = deque()

    # -- what pygls calls -------------------------------------------------------------
    def readline(self) -> bytes:
        if not self._out:
            try:
                body = self._next_message()
            except Exception:  # a bug here must not end the session: drop what is buffered
                logger.exception("dropped unreadable input")
                self._buf.clear()
                body = self._next_message()
            if body is None:
                return b""
            self._out.extend((b"Content-Length: %d\r\n" % len(body), b"\r\n", body))
        return self._out.popleft()

    def read(self, n: int = -1) -> bytes:
        return self._out.popleft() if self._out else b""

    # -- reading ----------------------------------------------------------------------
    def _fill(self) -> bool:
        if self._eof:
            return False
        read1 = getattr(self._raw, "read1", None)
        try:
            chunk = read1(_CHUNK) if read1 is not None else os.read(self._raw.fileno(), _CHUNK)
        except (OSError, ValueError):
            chunk = b""
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _line(self) -> bytes | None:
        """The next line with its ending; None at the end of input; b"" for a line too
        long to be a header (left in the buffer for :meth:`_resync`)."""
        start = 0
        while True:
            i = self._buf.find(b"\n", start)
            if 0 <= i < _MAX_HEADER_LINE:
                line = bytes(self._buf[:i + 1])
                del self._buf[:i + 1]
                return line
            if i >= 0 or len(self._buf) >= _MAX_HEADER_LINE:
                return b""
            start = len(self._buf)
            if not self._fill():
                return None

    def _next_message(self) -> bytes | None:
        """The body of the next well-formed message; None at the end of input."""
        while True:
            length = self._headers()
            if length is None:
                return None
            if length < 0:  # a framing error, logged: skip to the next header
                if not self._resync():
                    return None
                continue
            body = self._body(length)
            if body is not None:
                return body
            if self._eof:
                return None

    def _headers(self) -> int | None:
        """The Content-Length of the next header block; -1 after a logged framing error
        (the bytes in question are consumed, so that :meth:`_resync` moves on)."""
        length: int | None = None
        seen = False
        while True:
            line = self._line()
            if line is None:
                if seen:
                    logger.error("dropped a message: the input ended inside its headers")
                return None
            if line == b"":
                logger.error("dropped a message: a header line longer than %d bytes", _MAX_HEADER_LINE)
                del self._buf[:1]
                return -1
            if line in (b"\r\n", b"\n"):
                if not seen:
                    continue  # blank lines between messages are harmless
                if length is None:
                    logger.error("dropped a message: no Content-Length header")
                    return -1
                return length
            later = _LENGTH.search(line, 1)
            m = _HEADER.match(line) if later is None else None
            if m is None:
                logger.error("dropped %s: not a header: %r", "a message" if seen else "bytes between messages",
                             line[:60])
                if later is not None:  # the rest of a bad message, then a real header: resume there
                    self._buf[:0] = line[later.start():]
                return -1
            seen = True
            if m.group(1).lower() != b"content-length":
                continue  # Content-Type and the like
            value = m.group(2)
            if not value.isdigit():
                logger.error("dropped a message: Content-Length %r is not a byte count", value[:40])
                return -1
            n = int(value)
            if n == 0:
                logger.error("dropped a message: Content-Length 0 (an empty message)")
                return -1
            if n > self._limit:
                logger.error("dropped a message: Content-Length %d is over the limit of %d bytes", n, self._limit)
                return -1
            length = n

    def _body(self, n: int) -> bytes | None:
        """``n`` bytes; None (logged) when the next message's header turns up first: the
        declared length was longer than what was sent (or a body was never sent)."""
        scanned = 0
        while True:
            end = min(len(self._buf), n)
            # a raw line break never occurs inside a JSON string (it is escaped there), so a
            # header line within the body is the next message, not this one's text
            m = _HEADER_LINE.search(bytes(self._buf[max(0, scanned - 100):]))
            at = m.start() + max(0, scanned - 100) if m is not None else n
            if at < n:
                logger.error("dropped a message: its Content-Length %d runs into the next message", n)
                del self._buf[:at]
                return None
            scanned = end
            if len(self._buf) >= n:
                break
            if not self._fill():
                logger.error("dropped a message: the input ended %d bytes into a %d-byte body", len(self._buf), n)
                self._buf.clear()
                return None
        body = bytes(self._buf[:n])
        del self._buf[:n]
        return body

    def _resync(self) -> bool:
        """Drop bytes up to the next ``Content-Length`` header; False at the end of input."""
        while True:
            m = _LENGTH.search(self._buf)
            if m is not None:
                del self._buf[:m.start()]
                return True
            del self._buf[:max(0, len(self._buf) - 32)]  # keep what may be the start of a header
            if not self._fill():
                return False
