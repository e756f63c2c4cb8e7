"""The one reader for every data file jaxlint reads and did not just write itself: the
recordings in ``.jaxlint/`` (observations, signatures, IR), a ``--baseline`` file,
``merge`` inputs and the config. Any of them may be damaged, hostile or not a file at
all (a FIFO, a symlink to ``/dev/zero``), so each is read as untrusted:

* regular files only, opened without blocking (a FIFO is refused, never waited on);
* at most :data:`MAX_BYTES` bytes (a file that grows while read is refused too);
* strict UTF-8, then JSON nested at most :data:`MAX_DEPTH` deep (a 200,000-deep
  ``[[[[...`` is refused before anything recurses over it);
* the reader's schema is the caller's: :func:`location` checks a location a report will
  print (a positive row and column, a path inside the project).

Every refusal is a :class:`~jaxlint.config.ConfigError` of one line naming the file
(exit status 2).
"""
from __future__ import annotations

import json
import os
import re
import stat
import zlib
from pathlib import Path, PurePosixPath
from typing import Any

from jaxlint.config.errors import ConfigError

#: the largest data file read (a recording of a large project is a few MiB)
MAX_BYTES = 256 << 20
#: the largest config file read
MAX_CONFIG_BYTES = 16 << 20
#: the deepest JSON nesting accepted (pytrees of signatures are a few levels deep)
MAX_DEPTH = 200


def read_bytes(path: Path, what: str, limit: int = MAX_BYTES, follow: bool = True) -> bytes:
    """The bytes of ``path``, a regular file (a symlink to one is followed, unless not
    ``follow``) of at most ``limit`` bytes. ``FileNotFoundError`` when it does not
    exist; ``ConfigError`` for anything else that is wrong with it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise ConfigError(f"{path}: cannot read {what}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"{path}: cannot read {what}: not a regular file")
        if st.st_size > limit:
            raise ConfigError(f"{path}: cannot read {what}: {st.st_size} bytes, over the limit of {limit}")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise ConfigError(f"{path}: cannot read {what}: over the limit of {limit} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read {what}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def decode(path: Path, data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ConfigError(f"{path}: cannot read {what}: not UTF-8 (byte 0x{data[e.start]:02x} at line {line})") \
            from None


def parse_json(path: Path, text: str, what: str) -> Any:
    """``text`` as JSON, refused when nested deeper than :data:`MAX_DEPTH`."""
    if _too_deep(text):
        raise ConfigError(f"{path}: cannot read {what}: nested more than {MAX_DEPTH} deep")
    try:
        return json.loads(text)
    except ValueError as e:
        raise ConfigError(f"{path}: cannot read {what}: not JSON ({' '.join(str(e).split())})") from None
    except RecursionError:  # pragma: no cover - _too_deep refuses it first
        raise ConfigError(f"{path}: cannot read {what}: nested too deeply") from None


def read_json(path: Path, what: str, limit: int = MAX_BYTES) -> Any:
    """The JSON value in ``path`` (see the module's rules); ``FileNotFoundError`` when
    there is no file."""
    return parse_json(path, decode(path, read_bytes(path, what, limit), what), what)


def gunzip_json(path: Path, blob: bytes, what: str, limit: int = MAX_BYTES) -> Any:
    """The JSON value in ``blob``, gzip data read from ``path``, its decompressed size
    capped at ``limit`` too."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        data = d.decompress(blob, limit + 1)
    except zlib.error as e:
        raise ConfigError(f"{path}: cannot read {what}: not gzip ({e})") from None
    if len(data) > limit or d.unconsumed_tail:
        raise ConfigError(f"{path}: cannot read {what}: over the limit of {limit} bytes decompressed")
    return parse_json(path, decode(path, data, what), what)


def same_format(path: Path, data: Any, reads: int, what: str, remedy: str) -> None:
    """Refuse ``data`` (a JSON object read from ``path``) written in another format than
    ``reads`` (a file without ``format`` is of the first one): read as this format, its
    entries would mean something else."""
    fmt = data.get("format", 1) if isinstance(data, dict) else reads
    if fmt != reads:
        from jaxlint.config.errors import shown

        raise ConfigError(f"{path}: {what} in format {shown(fmt)}, and this jaxlint reads format {reads} "
                          f"(another jaxlint wrote it): {remedy}")


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _too_deep(text: str) -> bool:
    """Whether JSON ``text`` opens more than :data:`MAX_DEPTH` brackets at once (strings
    skipped); linear, without recursion, and only texts with that many brackets at all
    are scanned."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif c in "]}":
            depth -= 1
    return False


def location(where: str, filename: Any, row: Any, column: Any) -> str:
    """"" if a recorded location can be printed as it is: a path relative to the project,
    inside it, and a row and column that are positive ints; else what is wrong."""
    if type(row) is not int or type(column) is not int:
        return f"{where}: the row and column must be whole numbers"
    if row < 1 or column < 1:
        return f"{where}: the row and column must be 1 or more"
    if not isinstance(filename, str) or not filename:
        return f"{where}: the file name must be a string"
    p = PurePosixPath(filename.replace("\\", "/"))
    if p.is_absolute() or ".." in p.parts or (len(filename) > 1 and filename[1] == ":"):
        return f"{where}: the file {filename[:80]!r} is outside the project"
    return ""
