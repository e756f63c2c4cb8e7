"""Facts of the project a file belongs to, beyond the file itself.

A rule sees one module; some choices are the project's: a library that turns on
``jax_enable_x64`` when its package is imported, sets ``JAX_ENABLE_X64`` in its test
configuration, or warns its users when x64 is off has made float64 its policy, and a
64-bit dtype in any of its modules is that policy, not a slip.

The facts are read cheaply, never by importing anything: the configuration files at the
project root (``pyproject.toml``, ``setup.cfg``, ``tox.ini``, ``pytest.ini``, ``.env``)
and, from the file's folder up to the root, each package's ``__init__.py``,
``conftest.py`` and configuration module (``config.py``, ``_config.py``,
``settings.py``). Each folder is read once per process.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from jaxlint.records import dataclass
from jaxlint.textutil import LazyPattern

#: Files at the project root that may set ``JAX_ENABLE_X64`` for the project's runs.
ROOT_CONFIGS = ("pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", ".env")
#: Modules of a package folder where a project sets process-wide options.
PACKAGE_FILES = ("__init__.py", "conftest.py", "config.py", "_config.py", "settings.py")
#: Bytes read of one file at most (a configuration is small; a huge file is not one).
_MAX_BYTES = 1 << 20

#: ``jax.config.update("jax_enable_x64", True)``, ``config.update('jax_enable_x64', 1)``
_ENABLE_CALL = LazyPattern(rb"""^[ \t]*[\w.]*update\(\s*["']jax_enable_x64["']\s*,\s*(?:True|1|["'](?:1|true|True)["'])""",
                          re.M)
#: ``os.environ["JAX_ENABLE_X64"] = "1"``, ``setdefault("JAX_ENABLE_X64", "True")``,
#: ``JAX_ENABLE_X64=1`` / ``JAX_ENABLE_X64 = "true"`` in an env list or file
_ENABLE_ENV = LazyPattern(rb"""JAX_ENABLE_X64["']?\s*(?:\]\s*=|=|:|,)\s*["']?(?:1|true|True|TRUE)\b""")
#: a test of the x64 flag: ``if not jax.config.jax_enable_x64:``, ``if not config.x64_enabled``
_X64_TEST = LazyPattern(rb"^[ \t]*(?:if|elif)\b[^\n]*(?:jax_enable_x64|x64_enabled)", re.M)
_WARNS = LazyPattern(rb"\b(?:warn|warning)\s*\(")


@dataclass(frozen=True)
class ProjectFacts:
    """What the project as a whole has chosen. ``x64``: where it makes float64 its policy
    (``path:line: what``), or None."""

    x64: str | None = None

    def digest(self) -> str:
        """Part of a cache key: a file's findings change when the project's facts do."""
        import hashlib  # here: a check with no cache does not load it

        return hashlib.sha256(repr(self).encode()).hexdigest()[:12] if self.x64 else ""


NO_FACTS = ProjectFacts()


def x64_policy(data: bytes) -> tuple[int, str] | None:
    """(line, what) where ``data`` (a module or a configuration file) turns 64-bit mode on,
    or warns when it is off; None if it does neither."""
    if b"x64" not in data and b"X64" not in data:
        return None
    if b"\r" in data:  # any line ending: `\r\n` and a lone `\r` end a line too
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    for pattern, what in ((_ENABLE_CALL, "turns jax_enable_x64 on"), (_ENABLE_ENV, "sets JAX_ENABLE_X64")):
        m = pattern().search(data)
        if m is not None:
            return data.count(b"\n", 0, m.start()) + 1, what
    for m in _X64_TEST().finditer(data):
        block = data[m.end():].split(b"\n", 5)[:5]
        if any(_WARNS().search(line) for line in block):
            return data.count(b"\n", 0, m.start()) + 1, "warns when jax_enable_x64 is off"
    return None


def project_facts(path: Path, root: Path, real: Path | None = None) -> ProjectFacts:
    """The facts of the project rooted at ``root`` that ``path`` (a file in it) sees
    (``real``: ``path`` resolved, if known)."""
    try:
        folder, top = (real if real is not None else path.resolve()).parent, root.resolve()
    except OSError:
        return NO_FACTS
    if folder != top and top not in folder.parents:
        return NO_FACTS  # a file outside its project: only its own folder
    return _facts(folder, top)


@functools.lru_cache(maxsize=512)
def _facts(folder: Path, top: Path) -> ProjectFacts:
    names = PACKAGE_FILES + (ROOT_CONFIGS if folder == top else ())
    for name in names:
        found = _read_policy(folder / name)
        if found is not None:
            line, what = found
            return ProjectFacts(x64=f"{_shown(folder / name, top)}:{line} {what}")
    if folder == top or folder.parent == folder:
        return NO_FACTS
    return _facts(folder.parent, top)


def _read_policy(path: Path) -> tuple[int, str] | None:
    try:
        if not path.is_file():  # a regular file only: never block on a FIFO
            return None
        with open(path, "rb") as f:
            data = f.read(_MAX_BYTES)
    except OSError:
        return None
    return x64_policy(data)


def _shown(path: Path, top: Path) -> str:
    try:
        return path.relative_to(top).as_posix()
    except ValueError:
        return path.as_posix()


#: a value of ``JAX_ENABLE_X64`` that turns 64-bit mode on (jax reads the flag so)
_ENV_ON = ("1", "true", "yes", "on", "t", "y")


def program_x64(path: str | Path, root: Path | None, env: dict | None = None,
                main: str | Path | None = None) -> str | None:
    """Where a program made float64 its policy, as a sentence part (``prog.py:7 turns
    jax_enable_x64 on``), or None: its own code turns ``jax_enable_x64`` on (the module at
    ``path``, the program's main script ``main``, or a package or configuration file of
    the project rooted at ``root``), or it runs with ``JAX_ENABLE_X64`` set on in ``env``.
    Asked by the dynamic phase only when x64 is on and jaxlint's own setting did not
    turn it on."""
    top = root.resolve() if root is not None else None
    for file in (path, main):
        if not file:
            continue
        found = _read_policy(Path(file))
        if found is not None:
            shown = _shown(Path(file).resolve(), top) if top is not None else Path(file).name
            return f"{shown}:{found[0]} {found[1]}"
    if top is not None:
        facts = project_facts(Path(path), top)
        if facts.x64:
            return facts.x64
    value = str((env or {}).get("JAX_ENABLE_X64") or "").strip().lower()
    if value in _ENV_ON:
        return f"the program runs with JAX_ENABLE_X64={value}"
    return None
