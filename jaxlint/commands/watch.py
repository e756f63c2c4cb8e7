"""``jaxlint check --watch``: check, then check again whenever a file changes, until Ctrl-C.

What is watched is what the check would read: the files it finds under the paths and
the config files that may apply to them. Their modification times and sizes are polled
every :data:`POLL_SECONDS` (no file-event dependency). Finding the files again costs
more than a look (config files are read, excludes matched), so it is done when a folder
they are in changes (a file added, removed or renamed there) and every
:data:`FIND_SECONDS` otherwise (a file in a folder that held none). Each round is a
whole ``jaxlint check`` with the cache on, so the files that did not change cost a
cache read; on a terminal the screen is cleared first, as ruff does. A broken config
file is reported and the watch goes on. Ctrl-C (SIGINT) ends the watch with exit
status 0.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from jaxlint.config import CONFIG_FILES, ConfigError

if TYPE_CHECKING:
    from jaxlint.pipeline import CheckOptions

#: seconds between two looks at the files
POLL_SECONDS = 0.5
#: seconds after which the files are found again even though no folder changed
FIND_SECONDS = 30.0
_CLEAR = "\x1b[2J\x1b[3J\x1b[H"

#: options that end a run before the findings, or write what a watch would rewrite
_REFUSED = {
    "add_noqa": "--add-noqa", "write_baseline": "--write-baseline", "show_files": "--show-files",
    "show_settings": "--show-settings", "update_budgets": "--update-budgets", "diff": "--diff",
}


def watch(options: "CheckOptions", poll: float = POLL_SECONDS) -> int:
    """Run ``check`` with ``options`` now and after every change; 0 when stopped by Ctrl-C."""
    from jaxlint.pipeline import check

    _refuse(options)
    once = replace(options, watch=False)
    files = _Files(options)
    changed: list[str] = []
    try:
        while True:
            # looked at before the round, so an edit made during it starts another; with
            # --fix, after it, so that the round's own fixes do not
            state = None if options.fix else files.look()
            if sys.stdout.isatty():
                sys.stdout.write(_CLEAR)
            if changed:
                _say(f"changed: {', '.join(changed[:5])}{' …' if len(changed) > 5 else ''}; checking again")
            try:
                check(once)
            except ConfigError as e:  # an edit in progress: say it, keep watching
                print(f"jaxlint: error: {e}", file=sys.stderr)
            sys.stdout.flush()
            if state is None:
                state = files.look()
            _say("watching for file changes (Ctrl-C to stop)")
            while True:
                time.sleep(poll)
                now = files.look()
                if now != state:
                    changed = sorted(os.path.relpath(k) if k else "the paths"
                                     for k in now.keys() | state.keys() if now.get(k) != state.get(k))
                    break
    except KeyboardInterrupt:
        _say("stopped")
        return 0


def _refuse(options: "CheckOptions") -> None:
    if options.reads_stdin:
        raise ConfigError("--watch cannot be used when reading from stdin")
    for name, flag in _REFUSED.items():
        if getattr(options, name):
            raise ConfigError(f"--watch cannot be combined with {flag}")


def _say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class _Files:
    """The files a check with ``options`` would read, and a cheap look at them."""

    def __init__(self, options: "CheckOptions") -> None:
        self.options = options
        self.files: set[Path] = set()
        self.folders: dict[str, tuple] = {}
        self.error: str | None = None
        self.found_at = float("-inf")

    def look(self) -> dict[str, tuple]:
        """Path -> (mtime, size) of every file; a failure to find them maps "" to its
        error, so that fixing it counts as a change."""
        if time.monotonic() - self.found_at >= FIND_SECONDS or _stats(self.folders) != self.folders:
            self._find()
        return {"": (self.error,)} if self.error is not None else _stats(dict.fromkeys(map(str, self.files)))

    def _find(self) -> None:
        from jaxlint.files.discovery import SettingsResolver, discover
        from jaxlint.pipeline import check_paths

        o = self.options
        self.found_at = time.monotonic()
        explicit = Path(o.config) if o.config else None
        try:
            resolver = SettingsResolver(explicit, o.isolated, o.overrides())
            paths = check_paths(o)
            tasks = discover(paths, resolver, force_exclude=o.force_exclude, warnings=[])
        except (ConfigError, OSError) as e:
            self.error, self.files, self.folders = str(e), set(), {}
            return
        self.error = None
        roots = [Path(p).absolute() for p in paths if Path(p).is_dir()]
        dirs: set[Path] = set()  # every folder a config file may apply from: up to /
        for t in tasks:
            for d in (t.path.parent, *t.path.parent.parents):
                if d in dirs:
                    break
                dirs.add(d)
        self.files = {t.path for t in tasks}
        if explicit is not None:
            self.files.add(explicit.absolute())
        elif not o.isolated:
            self.files.update(d / name for d in dirs for name in CONFIG_FILES)
        # the folders whose change means "find again": those under the paths given (not
        # /tmp or $HOME above them, which other programs change all the time)
        folders = [d for d in dirs | set(roots) if any(d == r or d.is_relative_to(r) for r in roots)]
        self.folders = _stats(dict.fromkeys(map(str, folders)))


def _stats(paths: Iterable[str]) -> dict[str, tuple]:
    """Path -> (mtime, size) of those of ``paths`` that exist."""
    out: dict[str, tuple] = {}
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue  # an absent config file; a vanished source file drops out of the set
        out[p] = (st.st_mtime_ns, st.st_size)
    return out
