"""Content-addressed result cache: ``.jaxlint_cache/<version>/<kind>/<hash>.json``.

Writes are atomic (temp file + ``os.replace``), so concurrent runs (pre-commit runs
hooks in parallel, CI shards share a directory) never see a torn entry.

Reads trust nothing: an entry that is not a regular file (a FIFO would block, a
symlink to ``/dev/zero`` would never end), is larger than :data:`MAX_ENTRY_BYTES`, is
not JSON, or does not have the shape its reader expects is a miss, and the next
``put`` replaces it. A damaged cache costs a recomputation, never an error or a hang.

``hashlib``, ``json``, ``shutil`` and ``tempfile`` are imported where they are used: a
check with ``--no-cache`` (one file from pre-commit or an editor) loads none of them.
"""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

from jaxlint import __version__
from jaxlint.diagnostic import Diagnostic, Position

T = TypeVar("T")

#: an entry larger than this is damage, not a result (a 20k-line file's findings are ~5 MB)
MAX_ENTRY_BYTES = 64 << 20


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

    def get(self, kind: str, key: str, parse: Callable[[Any], T] | None = None) -> T | Any | None:
        """The entry ``kind/key`` (through ``parse``, which raises on a wrong shape), or
        None: absent, unreadable, not a regular file of sane size, not JSON, refused."""
        if self.root is None:
            return None
        data = read_regular(self._path(kind, key), MAX_ENTRY_BYTES)
        if data is None:
            return None
        import json

        try:
            value = json.loads(data)
            return parse(value) if parse is not None else value
        except Exception:  # any damage to an entry is a miss
            return None

    def put(self, kind: str, key: str, value: Any) -> None:
        self._prepare()
        if self.root is None:
            return
        import json

        p = self._path(kind, key)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            data = json.dumps(value, separators=(",", ":")).encode()
            try:
                atomic_write(p, data)
            except IsADirectoryError:  # a folder where an entry belongs: damage, replace it
                import shutil

                shutil.rmtree(p)
                atomic_write(p, data)
        except OSError as e:
            _warn_once(self.root, e)
            self.root = None  # one failure is enough: run on without the cache


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (not followed through a symlink) of
    at most ``limit`` bytes; None otherwise. Never blocks on a FIFO or a device."""
    from jaxlint.files import untrusted
    from jaxlint.config.errors import ConfigError

    try:
        return untrusted.read_bytes(path, "a cache entry", limit, follow=False)
    except (OSError, ConfigError):
        return None


def diagnostics_of(items: Iterable[Any]) -> list[Diagnostic]:
    """Diagnostics rebuilt from cached dicts, every field of the type it must have;
    ``ValueError`` for anything else (so that the entry is a miss)."""
    out = []
    for item in items:
        d = Diagnostic.from_dict(item)
        check_diagnostic(d)
        out.append(d)
    return out


def check_diagnostic(d: Diagnostic) -> None:
    """``ValueError`` unless ``d`` has the types a fresh one has (cached copies may not)."""
    def pos(*ps: Position) -> bool:
        return all(type(p.line) is int and type(p.column) is int and p.line >= 1 and p.column >= 1 for p in ps)

    def strs(*xs: Any) -> bool:
        return all(type(x) is str for x in xs)

    ok = (strs(d.code, d.name, d.message, d.path, d.signature) and pos(d.start, d.end)
          and isinstance(d.data, dict) and (d.noqa_line is None or type(d.noqa_line) is int)
          and all(strs(r.path, r.message) and pos(r.start, r.end) for r in d.related)
          and (d.fix is None or strs(d.fix.message) and all(strs(e.content) and pos(e.start, e.end)
                                                             for e in d.fix.edits)))
    if not ok:
        raise ValueError("a cached diagnostic of the wrong shape")


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
    import tempfile

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


def replace_file(path: Path, data: bytes) -> None:
    """Replace a file atomically, keeping its permissions; through a symlink, the
    file it points to is replaced, not the link."""
    target = Path(os.path.realpath(path))
    try:
        mode: int | None = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    atomic_write(target, data, mode)


@functools.lru_cache(maxsize=None)
def code_stamp(*packages: str) -> str:
    """The code that makes a cached result, beyond its version: the size and modification
    time of every module in the folders that hold the loaded modules of the named packages
    (jaxlint's, and those of the rules that ran), so that a module imported later from the
    same folder counts too. A checkout that moved on, an editable install (whose rules live
    outside jaxlint's folder) or a reinstall of the same version changes it, so a result
    made by other code is a miss."""
    names = {"jaxlint", *packages}
    folders = set()
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) if name.partition(".")[0] in names else None
        if path:
            folders.add(os.path.dirname(path))
    h = []
    for folder in sorted(folders):
        try:
            entries = [e for e in os.scandir(folder) if e.name.endswith(".py")]
        except OSError:
            continue
        for e in sorted(entries, key=lambda e: e.name):
            try:
                st = e.stat()
            except OSError:  # gone or a broken link: as if absent
                continue
            h.append(f"{folder}/{e.name}:{st.st_size}:{st.st_mtime_ns}")
    return key_of(*h)[:16]


def stamp_of(rules: Iterable[object]) -> str:
    """:func:`code_stamp` of jaxlint and the packages these rules (objects or classes) come from."""
    return code_stamp(*sorted({(r if isinstance(r, type) else type(r)).__module__.split(".")[0] for r in rules}))


def key_of(*parts: str | bytes) -> str:
    import hashlib

    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else p.encode("utf-8", "surrogateescape"))  # a path need not be UTF-8
        h.update(b"\0")
    return h.hexdigest()
