"""Content-addressed result cache: ``.jaxlint_cache/<version>/<kind>/<hash>.json``.

Writes are atomic (temp file + ``os.replace``), so concurrent runs (pre-commit runs
hooks in parallel, CI shards share a directory) never see a torn entry.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from jaxlint import __version__

def _new_file_mode() -> int:
    """What ``open()`` would give a new file under the process umask. ``mkstemp`` makes
    0600 files, which a cache shared between CI runners or users could not read."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


#: read once, at import: changing the umask is process-wide, so never from a thread
NEW_FILE_MODE = _new_file_mode()

TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by jaxlint.\n"


class Cache:
    def __init__(self, root: Path | None) -> None:
        self.root = root
        self._ready = False

    @property
    def enabled(self) -> bool:
        return self.root is not None

    def _prepare(self) -> None:
        if self._ready or self.root is None:
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tag = self.root / "CACHEDIR.TAG"
            if not tag.exists():
                atomic_write(tag, TAG.encode())
            gi = self.root / ".gitignore"
            if not gi.exists():
                atomic_write(gi, b"# Automatically created by jaxlint.\n*\n")
        except OSError as e:
            _warn_once(self.root, e)
            self.root = None
        self._ready = True

    def usable(self) -> bool:
        """Whether the cache folder can be made (warns once when it cannot)."""
        self._prepare()
        return self.root is not None

    def _path(self, kind: str, key: str) -> Path:
        assert self.root is not None
        return self.root / __version__ / kind / key[:2] / f"{key}.json"

    def get(self, kind: str, key: str) -> Any | None:
        if self.root is None:
            return None
        try:
            with open(self._path(kind, key), "rb") as f:
                return json.loads(f.read())
        except (OSError, ValueError):
            return None

    def put(self, kind: str, key: str, value: Any) -> None:
        self._prepare()
        if self.root is None:
            return
        p = self._path(kind, key)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(p, json.dumps(value, separators=(",", ":")).encode())
        except OSError as e:
            _warn_once(self.root, e)
            self.root = None  # one failure is enough: run on without the cache


_WARNED: set[str] = set()


def _warn_once(root: Path, e: OSError) -> None:
    """Tell the user once per process (as ruff does) that results are not being cached."""
    if str(root) in _WARNED:
        return
    _WARNED.add(str(root))
    print(f"jaxlint: warning: cannot write the cache at {root}: {e.strerror or e}; "
          "continuing without it (see --cache-dir, --no-cache)", file=sys.stderr)


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to a temp file beside ``path`` (with permission bits ``mode``, by
    default those of a new file under the umask) and move it into place, so readers see
    the old or the new file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, NEW_FILE_MODE if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def key_of(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else p.encode())
        h.update(b"\0")
    return h.hexdigest()
