"""Which files to check, and with which settings (nearest config file wins)."""
from __future__ import annotations

import errno
import os
import stat
from dataclasses import field
from pathlib import Path
from typing import Iterable, Iterator

from jaxlint.config import ConfigError, Settings, find_config_file, load_settings, path_matches
from jaxlint.records import dataclass

PY_SUFFIXES = (".py", ".pyi")


class _Included:
    """Whether a file found while walking a folder is checked (``include`` +
    ``extend-include``): ``*.ext`` patterns are a suffix test, the rest globs."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        def simple(p: str) -> bool:
            return p.startswith("*.") and not any(c in p[1:] for c in "*?[/")

        self.suffixes = tuple(p[1:] for p in patterns if simple(p))
        self.globs = tuple(p for p in patterns if not simple(p))

    def __call__(self, name: str, path: Path, settings: Settings) -> bool:
        if name.endswith(self.suffixes):
            return True
        if not self.globs:
            return False
        absolute = resolved(path)
        try:
            rel = absolute.relative_to(settings.root.resolve()).as_posix()
        except ValueError:
            rel = path.as_posix()
        return any(path_matches(rel, g, absolute.as_posix(), entry_only="/" not in g.rstrip("/"))
                   for g in self.globs)


_INCLUDED: dict[tuple[str, ...], _Included] = {}


def included(settings: Settings) -> _Included:
    patterns = tuple(settings.include) + tuple(settings.extend_include)
    hit = _INCLUDED.get(patterns)
    if hit is None:
        hit = _INCLUDED[patterns] = _Included(patterns)
    return hit


@dataclass(frozen=True)
class FileTask:
    path: Path  # absolute
    display: str  # relative to cwd where possible, posix
    settings: Settings
    #: ``path`` with every link resolved, where discovery resolved it (to drop a file
    #: found twice): the runner's project facts and tree link reuse it; None: not known
    real: Path | None = field(default=None, compare=False)


class SettingsResolver:
    """Nearest-config-wins lookup, cached per directory."""

    def __init__(self, explicit: Path | None, isolated: bool, overrides: dict) -> None:
        self.explicit = explicit
        self.isolated = isolated
        self.overrides = overrides
        self._by_dir: dict[Path, Settings] = {}
        self._by_file: dict[Path | None, Settings] = {}
        self.default = self._load(explicit) if (explicit or isolated) else None

    def _load(self, cfg: Path | None) -> Settings:
        if cfg not in self._by_file:
            self._by_file[cfg] = load_settings(None if self.isolated else cfg, self.overrides)
        return self._by_file[cfg]

    def for_dir(self, d: Path) -> Settings:
        if self.default is not None:
            return self.default
        d = d.resolve()
        s = self._by_dir.get(d)
        if s is None:
            s = self._load(find_config_file(d))
            self._by_dir[d] = s
        return s


def display_path(p: Path, cwd: Path | None = None) -> str:
    cwd = cwd or Path.cwd()
    try:
        return p.relative_to(cwd).as_posix()
    except ValueError:
        try:
            return Path(os.path.relpath(p, cwd)).as_posix() if not str(os.path.relpath(p, cwd)).startswith("../../..") else p.as_posix()
        except ValueError:  # different drives
            return p.as_posix()


def resolved(p: Path) -> Path:
    """``p.resolve()``, or ``p.absolute()`` where it cannot be resolved: a symlink loop
    raises RuntimeError before Python 3.13 and OSError after. Such a file is still
    listed, so that reading it reports the problem instead of crashing discovery."""
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p.absolute()


def read_source(path: Path) -> bytes:
    """A checked file's bytes. Opened non-blocking and checked to be a regular file, so
    that a FIFO or a device named ``*.py`` raises OSError instead of hanging the run."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        with open(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def is_excluded(path: Path, settings: Settings, entry_only: bool = False, real: Path | None = None) -> bool:
    """Whether ``settings`` exclude ``path`` (``real``: ``resolved(path)``, if known)."""
    absolute = real if real is not None else resolved(path)
    try:
        rel = absolute.relative_to(settings.root.resolve()).as_posix()
    except ValueError:
        rel = path.as_posix()
    for pat in tuple(settings.exclude) + tuple(settings.extend_exclude):
        if path_matches(rel, pat, absolute.as_posix(), entry_only):
            return True
    return False


def _git_ignored(paths: list[Path], cwd: Path) -> set[Path]:
    """Files git ignores (when inside a git work tree); empty set otherwise."""
    if not paths:
        return set()
    import subprocess  # here: discovery that asks git nothing does not load it

    try:
        proc = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            input=b"\0".join(os.fsencode(p) for p in paths),  # a name need not be UTF-8
            capture_output=True,
            cwd=cwd,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return set()
    if proc.returncode not in (0, 1):
        return set()
    return {Path(os.fsdecode(x)) for x in proc.stdout.split(b"\0") if x}


def discover(
    paths: Iterable[str],
    resolver: SettingsResolver,
    force_exclude: bool = False,
    warnings: list[str] | None = None,
) -> list[FileTask]:
    """Expand paths to the files to check: below a folder, those ``include`` names
    (``*.py``, ``*.pyi`` and notebooks by default); a file named explicitly, whatever
    its name. Explicit files and folders are checked even when excluded unless
    ``force_exclude`` (pre-commit passes files one by one); excludes apply to what is
    found below an explicit folder, as in ruff."""
    warnings = warnings if warnings is not None else []
    cwd = Path.cwd()
    seen: set[Path] = set()
    tasks: list[FileTask] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists() and not p.is_symlink():
            raise ConfigError(f"{raw}: no such file or directory")
        if not p.is_dir():  # a file, or a FIFO or broken link that reading will report
            settings = resolver.for_dir(p.parent if str(p.parent) else Path("."))
            if (force_exclude or settings.force_exclude) and is_excluded(p, settings):
                continue
            rp = resolved(p)
            if rp not in seen:
                seen.add(rp)
                tasks.append(FileTask(p.absolute(), display_path(p.absolute(), cwd), settings, rp))
            continue
        outer = resolver.for_dir(p.parent if str(p.parent) else Path("."))
        if (force_exclude or outer.force_exclude) and is_excluded(p, outer):
            continue
        tasks.extend(_walk(p, resolver, seen, cwd, warnings))
    return tasks


def _walk(root: Path, resolver: SettingsResolver, seen: set[Path], cwd: Path, warnings: list[str]) -> Iterator[FileTask]:
    visited_dirs: set[tuple[int, int]] = set()
    found: list[FileTask] = []
    real_root = resolved(root)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True, onerror=lambda e: warnings.append(
            f"{display_path(Path(e.filename), cwd)}: cannot read directory: {e.strerror}")):
        d = Path(dirpath)
        try:
            st = d.stat()
        except OSError:
            dirnames[:] = []
            continue
        key = (st.st_dev, st.st_ino)
        if key in visited_dirs:  # reached twice through links from outside the tree
            dirnames[:] = []
            continue
        visited_dirs.add(key)
        settings = resolver.for_dir(d)
        real_d = resolved(d)
        keep = []
        for name in sorted(dirnames):
            sub = d / name
            if is_excluded(sub, settings, entry_only=True):
                continue
            if sub.is_symlink() and not _follow_dir_link(sub, real_d, real_root, cwd, warnings):
                continue
            keep.append(name)
        dirnames[:] = keep
        wanted = included(settings)
        for name in sorted(filenames):
            f = d / name
            if not wanted(name, f, settings):
                continue
            rp = resolved(f)
            if is_excluded(f, settings, entry_only=True, real=rp):
                continue
            if rp in seen:
                continue
            seen.add(rp)
            found.append(FileTask(f.absolute(), display_path(f.absolute(), cwd), settings, rp))
    if found and any(t.settings.respect_gitignore for t in found):
        ignored = _git_ignored([t.path for t in found], cwd)
        if ignored:
            found = [t for t in found if t.path not in ignored]
    yield from found


def _follow_dir_link(link: Path, real_parent: Path, real_root: Path, cwd: Path, warnings: list[str]) -> bool:
    """Whether to walk into a directory symlink. A link to one of its own ancestors is a
    loop (warned about); a link to a folder inside the tree being walked is not followed,
    so that folder is checked once, under its real name (``data/shakespeare ->
    shakespeare_char``); a link out of the tree is followed."""
    target = resolved(link)
    if target == real_parent or target in real_parent.parents:
        warnings.append(f"{display_path(link, cwd)}: directory symlink loop skipped")
        return False
    return not (target == real_root or real_root in target.parents)
