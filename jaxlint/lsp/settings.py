"""Settings for open documents: the nearest config file, reloaded when it changes.

Reuses :class:`jaxlint.files.discovery.SettingsResolver` (the CLI's nearest-config-wins
lookup) and throws it away whenever a config file that could apply has changed: on
``workspace/didChangeWatchedFiles`` and, for clients that do not watch files, when
the modification stamp of a config file above a document differs from the last look.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from jaxlint.config import CONFIG_FILES, ConfigError, Settings, load_settings, shown, table_of
from jaxlint.files.discovery import SettingsResolver

#: initializationOptions key -> override key understood by ``jaxlint.config.apply_overrides``
_LIST_OPTIONS = {"select": "select", "extendSelect": "extend_select", "ignore": "ignore"}


@dataclass(frozen=True)
class ConfigProblem:
    """A config file jaxlint cannot use, and where in it."""

    path: Path | None
    line: int  # 1-based; 1 when unknown
    message: str


def overrides_from(options: Mapping[str, Any]) -> dict:
    """Settings overrides from the client's initialization options (camelCase keys)."""
    out: dict = {}
    for key, target in _LIST_OPTIONS.items():
        value = options.get(key)
        if value is None:
            continue
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"initializationOptions: `{key}` must be a list of rule selectors, got {shown(value)}")
        out[target] = list(value)
    return out


class DocumentSettings:
    """Which :class:`Settings` apply to a document, with change detection."""

    def __init__(self, overrides: Mapping[str, Any], explicit: Path | None = None, isolated: bool = False) -> None:
        self.overrides = dict(overrides)
        self.explicit = explicit
        self.isolated = isolated
        #: bumped on every reload: part of the key of cached results
        self.generation = 0
        self._resolver = SettingsResolver(explicit, isolated, self.overrides)
        self._stamps: dict[Path, tuple] = {}
        self._chains: dict[Path, tuple[Path, ...]] = {}
        self._fallback: Settings | None = None

    def reload(self) -> None:
        self.generation += 1
        self._resolver = SettingsResolver(self.explicit, self.isolated, self.overrides)
        self._stamps.clear()
        self._chains.clear()

    def for_path(self, path: Path) -> tuple[Settings, ConfigProblem | None]:
        """Settings for a file at ``path``; on a config error, the defaults and the problem.

        The defaults (with the client's overrides) keep the editor useful while the user
        is in the middle of editing ``pyproject.toml``."""
        d = path.parent
        stamp = self._stamp(d)
        if d in self._stamps and self._stamps[d] != stamp:
            self.reload()
        try:
            settings = self._resolver.for_dir(d)
        except ConfigError as e:
            self._stamps[d] = stamp
            return self._defaults(), problem_of(e, d)
        if d not in self._chains:
            self._chains[d] = _extend_chain(settings.config_file)
            stamp = self._stamp(d)
        self._stamps[d] = stamp
        return settings, None

    def _defaults(self) -> Settings:
        if self._fallback is None:
            try:
                self._fallback = load_settings(None, self.overrides)
            except ConfigError:
                self._fallback = load_settings(None, None)
        return self._fallback

    def _stamp(self, d: Path) -> tuple:
        """Modification stamps of every file that can decide ``d``'s settings."""
        if self.isolated:
            return ()
        cands: list[Path] = list(self._chains.get(d, ()))
        if self.explicit is not None:
            cands.append(self.explicit)
        else:
            a = d.absolute()
            for parent in (a, *a.parents):
                cands.extend(parent / name for name in CONFIG_FILES)
        out = []
        for p in cands:
            try:
                st = p.stat()
            except OSError:
                continue
            out.append((str(p), st.st_mtime_ns, st.st_size))
        return tuple(out)


def _extend_chain(config: Path | None) -> tuple[Path, ...]:
    """The files a config file inherits from through ``extend`` (stamped like it)."""
    chain: list[Path] = []
    cur = config
    while cur is not None and len(chain) < 32:
        try:
            table = table_of(cur) or {}
        except ConfigError:
            break
        ext = table.get("extend")
        if not isinstance(ext, str):
            break
        cur = (cur.parent / Path(ext).expanduser()).resolve()
        if cur in chain:
            break
        chain.append(cur)
    return tuple(chain)


_PATH_PREFIX = re.compile(r"^(?P<path>.+?\.toml): ")
_TOML_LINE = re.compile(r"at line (?P<line>\d+)")
_KEY = re.compile(r"`(?P<key>[^`]+)`")


def problem_of(error: ConfigError, directory: Path) -> ConfigProblem:
    """Locate a config error: the file named at the start of its message, and the line
    TOML reported or on which the offending key is written."""
    message = str(error)
    m = _PATH_PREFIX.match(message)
    path = Path(m.group("path")) if m else None
    if path is None or not path.is_file():
        path = _nearest_config(directory)
    line = 1
    t = _TOML_LINE.search(message)
    if t:
        line = int(t.group("line"))
    elif path is not None:
        line = _line_of_key(path, message) or 1
    return ConfigProblem(path, line, message)


def _nearest_config(d: Path) -> Path | None:
    d = d.absolute()
    for parent in (d, *d.parents):
        for name in CONFIG_FILES:
            if (parent / name).is_file():
                return parent / name
    return None


def _line_of_key(path: Path, message: str) -> int | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for m in _KEY.finditer(message):
        key = m.group("key").split(".")[-1]
        pat = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=|^\s*\[.*\b{re.escape(key)}\b.*\]\s*$")
        for i, line in enumerate(text.splitlines(), 1):
            if pat.search(line):
                return i
    return None
