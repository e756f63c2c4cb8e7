"""Configuration: ``[tool.jaxlint]`` in pyproject.toml, ``jaxlint.toml``, ``.jaxlint.toml``.

The nearest config file to a checked file wins (ruff's rule); ``extend`` inherits
from another file. Every key is validated: an unknown key, a bad value or an unknown
rule selector raises :class:`ConfigError`, which the CLI turns into exit status 2
with a message naming the key and the file.
"""
from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import field, replace
from pathlib import Path
from typing import Any, Mapping

from jaxlint.config.errors import ConfigError, named, shown
from jaxlint.config.keys import (
    DYNAMIC, EXTEND, FUNCTION_KEYS, MAX_DIMENSION, ON, REPLACE, SEVERITIES, TOP_LEVEL, in_range,
)
from jaxlint.records import dataclass


CONFIG_FILES = (".jaxlint.toml", "jaxlint.toml", "pyproject.toml")
#: ruff's default excludes (Jupyter's `.ipynb_checkpoints` autosaves, editor and tool folders
#: among them), with jaxlint's cache and bytecode folders
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
    ".mypy_cache", ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache",
    ".svn", ".tox", ".venv", ".vscode", "__pypackages__", "_build", "buck-out", "build",
    "dist", "node_modules", "site-packages", "venv", ".jaxlint_cache", "__pycache__",
)

#: files checked when walking a folder (ruff's default, minus pyproject.toml)
DEFAULT_INCLUDE = ("*.py", "*.pyi", "*.ipynb")


@dataclass(frozen=True)
class DynamicSettings:
    """``[tool.jaxlint.dynamic]``: the trace and compile tiers."""

    enabled: bool = False
    compile: bool = False
    backend: str = "cpu"
    #: seconds allowed to trace (or compile) one function
    function_timeout: float = 60.0
    #: seconds allowed for one file: import plus every function in it
    file_timeout: float = 300.0
    #: memory cap for a worker process, MiB (resident memory on every backend, address
    #: space on CPU); 0 disables it
    memory_limit_mb: int = 8192
    #: worker processes; 0 = one per core
    workers: int = 0
    signatures: str = ".jaxlint/signatures.json"
    x64: bool | None = None  # None: use the project's own setting
    #: concrete sizes for symbolic jaxtyping dimensions ("b" = 8 ...)
    dimension_defaults: Mapping[str, int] = field(default_factory=dict)
    default_dimension: int = 8
    #: explicit input specs: {"pkg.mod:fn": {"args": "(f32[8,128], i32[8])", "static": {...}}}
    functions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: seconds allowed to compile one function in the compile tier
    compile_timeout: float = 120.0
    #: an import of a checked module that takes longer than this many seconds gets a note
    #: (its top-level code runs in the worker: a training script, say)
    slow_import: float = 10.0
    #: the committed cost budgets (``jaxlint budget update``), relative to the project root
    budgets: str = "jaxlint-budgets.json"
    #: devices a worker has on the CPU backend (forced host devices, so that meshes and
    #: shardings of several devices compile); 0: as many as a recording ran with, else 1
    devices: int = 0
    #: import modules that do work at import (a training script) to trace their functions
    import_scripts: bool = False
    #: the target to compile for: a ``[tool.jaxlint.targets.NAME]`` or a TPU topology
    #: (``"v5e:1x1"``); None: the ``backend``'s own devices (``--target`` sets it)
    target: str | None = None
    #: ``target`` resolved (:mod:`jaxlint.targets`); set by :func:`load_settings`
    target_spec: Any = None

    def budgets_file(self) -> str:
        """The budgets file, relative to the project root: ``budgets``, or for a target
        its own file beside it (``jaxlint-budgets.v5e-8.json``; the target's ``budgets``
        key names another), so that each target's figures are held to its own."""
        spec = self.target_spec
        if spec is None:
            return self.budgets
        if spec.budgets:
            return spec.budgets
        stem, dot, suffix = self.budgets.rpartition(".")
        safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in spec.name)
        return f"{stem}.{safe}.{suffix}" if dot and "/" not in suffix else f"{self.budgets}.{safe}"

    def resolved_target(self):
        """The :class:`jaxlint.targets.Target` the workers compile for: the configured
        one; for ``backend = "tpu"`` without one, the slice this machine has (found
        without opening it); else None (the backend's own devices). Raises
        :class:`jaxlint.targets.TargetError` for a TPU backend with no TPU here."""
        if self.target_spec is not None:
            return self.target_spec
        if self.backend != "tpu":
            return None
        from jaxlint.targets import TargetError, local_tpu

        found = local_tpu()
        if found is None:
            raise TargetError("`backend = \"tpu\"`: this machine has no TPU. To check the program for a TPU "
                              "from here, name its slice: `--target v5e:1x1` or `target = \"v5e:1x1\"` in "
                              "[tool.jaxlint.dynamic] (compiled deviceless: needs `pip install \"jaxlint[tpu]\"`)")
        return found


#: the keys of ``[tool.jaxlint.dynamic]``: their value types (jaxlint.config.keys declares them)
_DYNAMIC_TYPES: dict[str, Any] = {k.name: k.type for k in DYNAMIC.values()}
#: integer keys of ``[tool.jaxlint.dynamic]``: (lowest, highest, what the ends mean)
DYNAMIC_RANGES: dict[str, tuple[int, int, str]] = {k.name: k.range for k in DYNAMIC.values() if k.range}


@dataclass(frozen=True)
class Settings:
    """Resolved settings for the files under one config file."""

    root: Path = Path(".")
    config_file: Path | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    #: file patterns checked when walking folders (files named on the command line always are)
    include: tuple[str, ...] = DEFAULT_INCLUDE
    extend_include: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    rule_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    dynamic: DynamicSettings = field(default_factory=DynamicSettings)
    #: ``[tool.jaxlint.targets.NAME]``: named targets (:class:`jaxlint.targets.Target`)
    targets: Mapping[str, Any] = field(default_factory=dict)
    cache_dir: str | None = None
    force_exclude: bool = False
    respect_gitignore: bool = True
    #: ``--ignore-noqa``: report what ``# noqa`` comments hide (per-file-ignores still apply)
    ignore_noqa: bool = False
    #: the least confidence a static finding needs to be reported: "likely" (the default
    #: selection), "certain", or "possible" (``--preview``)
    confidence: str = "likely"
    #: ``--preview`` (``preview = true``): the nursery group joins the default selection,
    #: and possible findings are reported (``confidence = "possible"``)
    preview: bool = False
    #: the lowest severity that fails the run (exit 1); findings below it are shown only
    fail_on: str = "warning"
    #: selectors of the codes whose fixes ``--fix`` applies, and of those it never applies
    fixable: tuple[str, ...] = ("ALL",)
    unfixable: tuple[str, ...] = ()

    def fingerprint(self) -> str:
        """A hash of everything that changes what a rule reports."""
        import hashlib
        import json

        blob = json.dumps(
            {
                "select": self.select,
                "extend_select": self.extend_select,
                "ignore": self.ignore,
                "rule_options": self.rule_options,
                "per_file_ignores": self.per_file_ignores,
                "ignore_noqa": self.ignore_noqa,
                "confidence": self.confidence,
                "preview": self.preview,
            },
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _str_list(key: str, v: Any, src: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError(f"{src}: `{key}` must be a list of strings, got {shown(v)}")
    return tuple(v)


def _severity(key: str, v: Any, src: str) -> str:
    if v not in SEVERITIES:
        raise ConfigError(f"{src}: `{key}` must be one of {', '.join(repr(x) for x in SEVERITIES)}, got {shown(v)}")
    return v


#: the keys of ``[tool.jaxlint]`` (jaxlint.config.keys declares them)
TOP_LEVEL_KEYS = TOP_LEVEL


def _tomllib():
    """The TOML reader, imported when a TOML text is read: a check with no configuration
    file does not load it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib


def read_toml(path: Path) -> dict:
    from jaxlint.files import untrusted

    try:
        data = untrusted.read_bytes(path, "config", untrusted.MAX_CONFIG_BYTES)
    except FileNotFoundError:
        raise ConfigError(f"{path}: cannot read config: no such file") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ConfigError(f"{path}: not valid UTF-8 (TOML files are UTF-8): byte 0x{data[e.start]:02x} "
                          f"at line {line}") from None
    tomllib = _tomllib()
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {' '.join(str(e).split())}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: values nested too deeply") from None


def table_of(path: Path) -> dict | None:
    """The jaxlint table of a config file, or None if it has none (pyproject)."""
    data = read_toml(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("jaxlint") if isinstance(tool, dict) else None
        if table is not None and not isinstance(table, dict):
            raise ConfigError(f"{path}: `[tool] jaxlint` must be a table ([tool.jaxlint]), got {shown(table)}")
        return table
    return data


def find_config_file(start: Path) -> Path | None:
    """The nearest config file at or above ``start`` (a directory) that configures jaxlint."""
    d = start.resolve()
    for cand in (d, *d.parents):
        for name in CONFIG_FILES:
            p = cand / name
            if p.is_file():
                if name == "pyproject.toml":
                    try:
                        if table_of(p) is None:
                            continue
                    except ConfigError:
                        raise
                return p
    return None


def cache_dir(flag: str | None, settings: Settings | None = None) -> Path:
    """Where results are cached: ``--cache-dir``, else ``JAXLINT_CACHE_DIR``, else the
    config's ``cache-dir`` (relative to the config file's folder), else ``.jaxlint_cache``
    at the project root (the config file's folder; without ``settings``, the one found
    from the working directory)."""
    if flag:
        return Path(flag)
    env = os.environ.get("JAXLINT_CACHE_DIR")
    if env:
        return Path(env)
    if settings is not None:
        if settings.cache_dir:
            return settings.root / Path(settings.cache_dir).expanduser()
        return settings.root / ".jaxlint_cache"
    cfg = find_config_file(Path.cwd())
    return (cfg.parent if cfg else Path.cwd()) / ".jaxlint_cache"


def load_settings(path: Path | None, overrides: Mapping[str, Any] | None = None, _seen: tuple = ()) -> Settings:
    """Load and validate the settings of one config file (or defaults for None)."""
    if path is None:
        base = Settings(root=Path.cwd())
        return _with_target(apply_overrides(base, overrides or {}), "command line")
    path = path.resolve()
    if path in _seen:
        raise ConfigError(f"{path}: `extend` forms a cycle")
    table = table_of(path)
    if table is None:
        table = {}
    src = str(path)
    base = Settings(root=path.parent, config_file=path)
    if "extend" in table:
        ext = table["extend"]
        if not isinstance(ext, str):
            raise ConfigError(f"{src}: `extend` must be a path string, got {shown(ext)}")
        try:
            parent_path = (path.parent / os.path.expanduser(ext)).resolve()
            found = parent_path.is_file()
        except (OSError, ValueError):
            found = False
        if not found:
            raise ConfigError(f"{src}: `extend` points to a missing file: {named(ext)}")
        parent = load_settings(parent_path, None, _seen + (path,))
        base = replace(_anchored(parent), root=path.parent, config_file=path)
    settings = _apply_table(base, table, src)
    return _with_target(apply_overrides(settings, overrides or {}), src)


def _targets(value: Any, src: str, base: Mapping[str, Any]) -> dict:
    from jaxlint.targets import TargetError, target_from_table

    if not isinstance(value, dict):
        raise ConfigError(f"{src}: `targets` must be a table of named targets, such as "
                          f"[tool.jaxlint.targets.v5e-8] topology = \"v5e:2x4\"")
    out = dict(base)
    for name, table in value.items():
        try:
            out[name] = target_from_table(name, table)
        except TargetError as e:
            raise ConfigError(f"{src}: {e}") from None
    return out


def _with_target(s: Settings, src: str) -> Settings:
    """``dynamic.target`` resolved: a named target of ``[tool.jaxlint.targets]`` or a TPU
    topology by itself; ConfigError naming both forms otherwise."""
    name = s.dynamic.target
    if name is None:
        return s if s.dynamic.target_spec is None else replace(s, dynamic=replace(s.dynamic, target_spec=None))
    from jaxlint.targets import TargetError, implicit

    spec = s.targets.get(name)
    if spec is None:
        try:
            spec = implicit(name)
        except TargetError as e:
            known = ", ".join(sorted(s.targets)) or "none defined"
            raise ConfigError(f"{src}: target `{named(name)}` is neither a [tool.jaxlint.targets] name "
                              f"(known: {known}) nor a TPU topology: {e}") from None
    return replace(s, dynamic=replace(s.dynamic, target_spec=spec))


def _apply_table(base: Settings, table: Mapping[str, Any], src: str) -> Settings:
    from jaxlint.registry import validate_selectors

    changes: dict[str, Any] = {}
    extend_ignore: tuple[str, ...] = ()
    for key, value in table.items():
        if key not in TOP_LEVEL_KEYS:
            hint = _suggest(key, TOP_LEVEL_KEYS)
            raise ConfigError(f"{src}: unknown key `{named(key)}` in [tool.jaxlint]{hint}")
        spec = TOP_LEVEL_KEYS[key]
        fname = spec.field
        if key == "extend":
            continue
        if key == "extend-ignore":  # added to `ignore`, whichever of the two the file writes first
            try:
                extend_ignore = spec.check(value)
            except ValueError as e:
                raise ConfigError(f"{src}: {e}") from None
            validate_selectors(extend_ignore, f"{src}: `extend-ignore`")
            continue
        if spec.type is not dict:
            try:
                changes[fname] = spec.check(value)
            except ValueError as e:
                raise ConfigError(f"{src}: {e}") from None
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{src}: `per-file-ignores` must be a table of glob = [codes], got {shown(value)}")
            pfi = dict(base.per_file_ignores)
            for glob, codes in value.items():
                pfi[glob] = _str_list(f"per-file-ignores.{named(glob)}", codes, src)
                validate_selectors(pfi[glob], f"{src}: `per-file-ignores.{named(glob)}`")
            changes[fname] = pfi
        elif key == "rules":
            changes[fname] = _rule_options(value, src, base.rule_options)
        elif key == "dynamic":
            changes[fname] = _dynamic(value, src, base.dynamic)
        elif key == "targets":
            changes[fname] = _targets(value, src, base.targets)
    for spec in TOP_LEVEL_KEYS.values():
        if spec.selectors and spec.field in changes and spec.name != "extend-ignore":
            validate_selectors(changes[spec.field], f"{src}: `{spec.name}`")
    if extend_ignore:
        changes["ignore"] = tuple(changes.get("ignore", ())) + extend_ignore
    if changes.get("preview"):  # preview shows the possible findings too
        changes.setdefault("confidence", "possible")
    return replace(base, **_layered(base, changes))


def _layered(base: Settings, changes: dict[str, Any]) -> dict[str, Any]:
    """ruff's layering of an extending file over the one it extends: its `select`
    starts over (inherited select, extend-select and ignore are dropped); without one,
    its extend-select and ignore add to the inherited ones, and an inherited ignore it
    extend-selects by the same selector is lifted. `extend-exclude` adds up too."""
    out = dict(changes)
    if "select" in out:
        out.setdefault("extend_select", ())
        out.setdefault("ignore", ())
    else:
        added = tuple(out.get("extend_select", ()))
        out["extend_select"] = tuple(base.extend_select) + added
        out["ignore"] = tuple(i for i in base.ignore if i not in added) + tuple(out.get("ignore", ()))
    for key in ("extend_exclude", "extend_include"):
        if key in out:
            out[key] = tuple(getattr(base, key)) + tuple(out[key])
    return out


def _anchored(s: Settings) -> Settings:
    """Settings inherited through `extend`, with path patterns that name folders
    (contain a `/`) made absolute: they mean paths below the file that wrote them."""
    import glob

    root = glob.escape(s.root.resolve().as_posix()).rstrip("/")

    def anchor(pattern: str) -> str:
        if "/" not in pattern.rstrip("/") or _is_absolute(pattern):
            return pattern
        return f"{root}/{pattern[2:] if pattern.startswith('./') else pattern}"

    return replace(
        s,
        exclude=tuple(anchor(x) for x in s.exclude),
        extend_exclude=tuple(anchor(x) for x in s.extend_exclude),
        include=tuple(anchor(x) for x in s.include),
        extend_include=tuple(anchor(x) for x in s.extend_include),
        per_file_ignores={anchor(k): v for k, v in s.per_file_ignores.items()},
        # relative to the file that set it, like ruff's cache-dir
        cache_dir=str(s.root / os.path.expanduser(s.cache_dir)) if s.cache_dir else None,
    )


def _is_absolute(pattern: str) -> bool:
    return pattern.startswith("/") or os.path.isabs(pattern)


def _rule_options(value: Any, src: str, base: Mapping[str, Mapping[str, Any]]) -> dict:
    from jaxlint.registry import rule_by_selector

    if not isinstance(value, dict):
        raise ConfigError(f"{src}: `rules` must be a table of rule tables, got {shown(value)}")
    out = {k: dict(v) for k, v in base.items()}
    for sel, opts in value.items():
        rule = rule_by_selector(sel)
        if rule is None:
            raise ConfigError(f"{src}: unknown rule `{named(sel)}` in [tool.jaxlint.rules]")
        if not isinstance(opts, dict):
            raise ConfigError(f"{src}: [tool.jaxlint.rules.{named(sel)}] must be a table, got {shown(opts)}")
        merged = out.setdefault(rule.code, {})
        for k, v in opts.items():
            if k == "severity":  # every rule's: what its findings are reported as
                merged[k] = _severity(f"rules.{named(sel)}.severity", v, src)
                continue
            if k not in rule.options:
                known = ", ".join(rule.options) or "none"
                raise ConfigError(
                    f"{src}: unknown option `{k}` for rule {rule.code} ({rule.name}); known options: {known}"
                )
            try:
                merged[k] = rule.options[k].validate(k, v)
            except ValueError as e:
                raise ConfigError(f"{src}: [tool.jaxlint.rules.{sel}] {e}") from None
    return out


def _dynamic(value: Any, src: str, base: DynamicSettings) -> DynamicSettings:
    if not isinstance(value, dict):
        raise ConfigError(f"{src}: `dynamic` must be a table, got {shown(value)}")
    changes = {}
    for k, v in value.items():
        if k not in _DYNAMIC_TYPES:
            raise ConfigError(f"{src}: unknown key `{named(k)}` in [tool.jaxlint.dynamic]{_suggest(k, _DYNAMIC_TYPES)}")
        try:
            changes[k.replace("-", "_")] = check_dynamic_value(k, v)
        except ValueError as e:
            raise ConfigError(f"{src}: [tool.jaxlint.dynamic] {e}") from None
    out = replace(base, **changes)
    # (one device, or as recorded: a worker runs within 1.5 GiB, as the test suite's does)
    if {"devices", "memory_limit_mb"} & set(changes) and out.memory_limit_mb and out.devices > 1 and \
            devices_memory_mb(out.devices) > out.memory_limit_mb:
        raise ConfigError(f"{src}: [tool.jaxlint.dynamic] `devices = {out.devices}` needs about "
                          f"{devices_memory_mb(out.devices)} MiB per worker, over `memory-limit-mb = "
                          f"{out.memory_limit_mb}`: use fewer devices, or raise `memory-limit-mb` (0 disables the cap)")
    return out


def devices_memory_mb(devices: int) -> int:
    """The address space a worker with ``devices`` forced host devices needs, about
    (jax on CPU: 2.5 GiB, then 10 MiB a device; 8 GiB held 582 devices and 4 GiB 165)."""
    return 2560 + 10 * devices


def check_dynamic_value(key: str, v: Any) -> Any:
    """The value of ``[tool.jaxlint.dynamic]`` key ``key``, checked for type, range and
    finiteness (a NaN timeout would never expire); ValueError naming the key otherwise."""
    DYNAMIC[key].check(v)
    if key == "dimension-defaults":
        for name, size in v.items():
            if isinstance(size, bool) or not isinstance(size, int):
                raise ValueError(f"`dimension-defaults.{named(name)}` must be an integer size, got {shown(size)}")
            in_range(f"dimension-defaults.{named(name)}", size, 1, MAX_DIMENSION)
    elif key == "functions":
        for fkey, entry in v.items():
            _check_function_entry(fkey, entry)
    return v


def _check_function_entry(key: str, entry: Any) -> None:
    """A ``functions`` entry: ``"pkg.mod:qualname" = {args = "(f32[8],)", kwargs = "...",
    static = {...}}``, its specs parsed now so that a typo is an error, not a skip."""
    where = f"`functions.\"{named(key)}\"`"
    module, sep, qualname = key.partition(":")
    if not sep or not module.strip() or not qualname.strip():
        raise ValueError(f"{where}: the key must be \"module:function\" (e.g. \"pkg.model:apply\")")
    if not isinstance(entry, dict):
        raise ValueError(f"{where} must be a table such as {{args = \"(f32[8,128],)\"}}, got {shown(entry)}")
    for k, item in entry.items():
        if k not in FUNCTION_KEYS:
            raise ValueError(f"{where}: unknown key `{named(k)}` (known: {', '.join(FUNCTION_KEYS)})"
                             f"{_suggest(k, dict.fromkeys(FUNCTION_KEYS))}")
        want = dict if k == "static" else str
        if not isinstance(item, want):
            what = "a table of values" if want is dict else "a spec string such as \"(f32[8,128], i32[8])\""
            raise ValueError(f"{where}: `{k}` must be {what}, got {shown(item)}")
    from jaxlint.config.inputspec import SpecError, spec_from_parts

    try:
        spec_from_parts(entry.get("args"), entry.get("kwargs"), entry.get("static"), "config", key)
    except SpecError as e:
        raise ValueError(f"{where}: {' '.join(str(e).split())}") from None
    except RecursionError:
        raise ValueError(f"{where}: spec nested too deeply") from None


def _suggest(key: str, known: Mapping[str, Any]) -> str:
    import difflib

    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean `{close[0]}`?)" if close else ""


def apply_overrides(s: Settings, o: Mapping[str, Any]) -> Settings:
    """Apply command-line overrides (already validated by the CLI)."""
    from jaxlint.registry import validate_selectors

    changes: dict[str, Any] = {}
    for spec in TOP_LEVEL_KEYS.values():
        value = o.get(spec.field)
        if spec.override is None or value is None or (spec.override != REPLACE and not value):
            continue
        if spec.choices:
            try:
                value = spec.check(value)
            except ValueError as e:
                raise ConfigError(f"command line: {spec.cli[0]}: {e}") from None
        if spec.selectors:
            validate_selectors(value, spec.cli[0])
        elif spec.name == "per-file-ignores":
            for glob, codes in value.items():
                validate_selectors(codes, f"--per-file-ignores {glob}")
        if spec.override == REPLACE:
            changes[spec.field] = tuple(value) if isinstance(value, (list, tuple)) else value
        elif spec.override == EXTEND:
            changes[spec.field] = tuple(changes.get(spec.field, getattr(s, spec.field))) + tuple(value)
        elif spec.override == ON:
            changes[spec.field] = True
        elif spec.field == "dynamic":  # MERGE: its keys' fields
            changes[spec.field] = replace(s.dynamic, **value)
        else:  # MERGE
            changes[spec.field] = {**getattr(s, spec.field), **value}
        if spec.name == "select":  # the command line is the last layer: its --select starts over (ruff)
            changes["extend_select"] = changes["ignore"] = ()  # (the keys after it in the table add theirs)
    if o.get("ignore_noqa"):  # the command line's only (ruff's --ignore-noqa has no key)
        changes["ignore_noqa"] = True
    s = replace(s, **changes) if changes else s
    for text in o.get("inline") or ():  # `--config 'key = value'`: the last layer
        s = _apply_table(s, inline_table(text), f"--config {text!r}")
    return s


def inline_table(text: str) -> dict:
    """A ``--config 'key = value'`` override as a table of ``[tool.jaxlint]``
    (``'dynamic.backend = "gpu"'`` sets a key of a sub-table)."""
    tomllib = _tomllib()
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"--config {text!r}: neither a file nor a TOML `key = value` override "
                          f"({' '.join(str(e).split())})") from None
    if not table:
        raise ConfigError(f"--config {text!r}: neither a file nor a TOML `key = value` override")
    if "extend" in table:
        raise ConfigError(f"--config {text!r}: `extend` cannot be given on the command line")
    return table


def is_inline(value: str) -> bool:
    """Whether a ``--config`` value is a ``key = value`` override rather than a file."""
    return "=" in value and not Path(value).is_file()


def path_matches(rel_posix: str, pattern: str, absolute: str | None = None, entry_only: bool = False) -> bool:
    """ruff-like matching: a pattern matches the path, any parent, or the basename.
    An absolute pattern (see ``_anchored``) is matched against ``absolute``, the
    file's absolute posix path. ``entry_only``: only the path and its basename, for an
    entry met while walking a folder (its parents below the walked folder were matched
    when walked; the folders above an explicitly given path are not matched, as in ruff)."""
    if _is_absolute(pattern):
        if absolute is None:
            return False
        rel_posix = absolute
    pattern = pattern.rstrip("/")
    if fnmatch.fnmatchcase(rel_posix, pattern):
        return True
    parts = rel_posix.split("/")
    if "/" not in pattern:
        return any(fnmatch.fnmatchcase(p, pattern) for p in (parts[-1:] if entry_only else parts))
    if entry_only:
        return False
    for i in range(1, len(parts)):
        if fnmatch.fnmatchcase("/".join(parts[:i]), pattern):
            return True
    return False
