"""``jaxlint check``: the linter."""
from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

from jaxlint.config import ConfigError, find_config_file


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _per_file_ignore(value: str) -> tuple[str, list[str]]:
    glob, sep, codes = value.rpartition(":")
    if not sep or not glob or not _csv(codes):
        raise argparse.ArgumentTypeError(f"expected GLOB:CODES (e.g. 'tests/*:JAX101'), got {value!r}")
    return glob, _csv(codes)


def _jobs(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = -1
    if not 0 <= n <= 4096:
        raise argparse.ArgumentTypeError(f"expected a number of processes from 0 (all cores) to 4096, got {value!r}")
    return n


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("check", help="check files (the default workflow)")
    p.add_argument("paths", nargs="*", help="files or directories (default: the project root, else .); '-' reads stdin")
    out = p.add_argument_group("output")
    out.add_argument("--output-format", default=os.environ.get("JAXLINT_OUTPUT_FORMAT", "concise"),
                     help="concise, full, json, json-lines, sarif, github, junit, gitlab")
    out.add_argument("-o", "--output-file", help="write the report to this file")
    out.add_argument("--statistics", action="store_true", help="count findings per rule")
    out.add_argument("--show-files", action="store_true", help="list the files that would be checked, and exit")
    out.add_argument("--show-settings", action="store_true", help="print the resolved settings, and exit")
    out.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    out.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    sel = p.add_argument_group("rule selection")
    sel.add_argument("--select", type=_csv, help="comma-separated codes, prefixes, names or ALL")
    sel.add_argument("--extend-select", type=_csv, default=[])
    sel.add_argument("--ignore", type=_csv, default=[])
    sel.add_argument("--per-file-ignores", type=_per_file_ignore, action="append", default=[],
                     metavar="GLOB:CODES", help="ignore codes in matching files, e.g. 'tests/*:JAX101,JAX106' "
                     "(repeatable; added to the config's per-file-ignores)")
    sel.add_argument("--ignore-noqa", action="store_true",
                     help="ignore any `# noqa` comments (per-file-ignores still apply)")
    cfg = p.add_argument_group("configuration")
    cfg.add_argument("--config", help="use this config file for every checked file")
    cfg.add_argument("--isolated", action="store_true", help="ignore all config files")
    cfg.add_argument("--force-exclude", action="store_true", help="apply excludes to explicitly passed files")
    cfg.add_argument("--stdin-filename", help="the path of the file read from stdin")
    run = p.add_argument_group("run")
    run.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings (2 still means failure)")
    run.add_argument("--jobs", "-j", type=_jobs, default=0, help="processes for the static phase (0: all cores)")
    run.add_argument("--no-cache", action="store_true")
    run.add_argument("--cache-dir")
    for hook in _EXTENSIONS:
        hook.add_arguments(p)
    return p


class _Extension:
    """Later capabilities plug into ``check`` through these hooks (``EXTENSION`` of
    ``dynamic_ext``, ``compile_ext``, ``fixing`` and ``gate``)."""

    def add_arguments(self, p: argparse.ArgumentParser) -> None: ...
    def overrides(self, args, o: dict) -> None: ...
    def after_static(self, args, tasks, result, outcomes) -> int | None: ...


_EXTENSIONS: list[_Extension] = []


def _load_extensions() -> None:
    import importlib

    # order matters: dynamic findings join before fixes, baseline and gating see them
    for name in ("dynamic_ext", "compile_ext", "fixing", "gate"):
        _EXTENSIONS.append(importlib.import_module(f"jaxlint.commands.{name}").EXTENSION)


_load_extensions()


def cache_dir(flag: str | None, settings=None) -> Path:
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


def run(args) -> int:
    from jaxlint.discovery import SettingsResolver, discover, display_path, FileTask
    from jaxlint.output import OutputContext, load_formats
    from jaxlint.static.runner import run_static

    formats = load_formats()
    if args.output_format not in formats:
        raise ConfigError(
            f"--output-format: unknown format `{args.output_format}`; choose from {', '.join(sorted(formats))}"
        )
    overrides: dict = {
        "select": args.select,
        "extend_select": args.extend_select,
        "ignore": args.ignore,
        "per_file_ignores": {glob: tuple(codes) for glob, codes in args.per_file_ignores},
        "force_exclude": args.force_exclude,
        "ignore_noqa": args.ignore_noqa,
    }
    for ext in _EXTENSIONS:
        ext.overrides(args, overrides)
    explicit = Path(args.config) if args.config else None
    if explicit is not None and not explicit.is_file():
        raise ConfigError(f"--config: no such file: {args.config}")
    resolver = SettingsResolver(explicit, args.isolated, overrides)

    stdin_text = None
    stdin_data: bytes | None = None
    # extensions see stdin's bytes here (fixing writes the fixed source to stdout; it
    # then sets ``args.stdout_taken`` and the report goes to stderr, as in ruff)
    args.stdin_bytes = None
    args.stdout_taken = False
    paths = list(args.paths)
    if paths == ["-"]:
        raw = args.stdin_bytes = sys.stdin.buffer.read()
        from jaxlint.static.checker import SourceError, decode_source

        try:
            stdin_text = decode_source(raw)
        except SourceError:
            stdin_data = raw  # checked as bytes: reported as a parse-error at the bad byte
        name = args.stdin_filename or "-"
        p = Path(name)
        settings = resolver.for_dir(p.parent if name != "-" else Path.cwd())
        from jaxlint.discovery import is_excluded

        if args.force_exclude and name != "-" and is_excluded(p, settings):
            # pre-commit and editors pass excluded files through stdin too: no findings;
            # an editor fixing on save replaces its buffer with stdout, so give the code back
            if getattr(args, "fix", False) and not getattr(args, "diff", False):
                sys.stdout.buffer.write(raw)
                sys.stdout.flush()
            return 0
        tasks = [FileTask(p.absolute(), display_path(p.absolute()) if name != "-" else "-", settings)]
    else:
        if not paths:
            # the project of the config found from here; with --config (or --isolated) the
            # current directory, as ruff does: the file says how to lint, not where
            cfg = None if (explicit or args.isolated) else find_config_file(Path.cwd())
            paths = [str(cfg.parent) if cfg else "."]
            if cfg is not None and cfg.parent == Path.cwd().resolve():
                paths = ["."]
        warnings: list[str] = []
        tasks = discover(paths, resolver, force_exclude=args.force_exclude, warnings=warnings)
        if not tasks:
            # as ruff does: an empty run that says "All checks passed!" hides a wrong path or exclude
            where = "the given paths" if args.paths else (paths[0] if paths != ["."] else "the current directory")
            warnings.append(f"no Python files found under {where} (excluded, or not matched by `include`: "
                            ".py, .pyi, .ipynb)")
        for w in warnings:
            print(f"jaxlint: warning: {w}", file=sys.stderr)
    tasks = _select_tasks(args, tasks)

    if args.show_files:
        for t in sorted(tasks, key=lambda t: t.display):
            print(t.display)
        return 0
    if args.show_settings:
        return _show_settings(tasks, resolver)

    settings_root = tasks[0].settings.root if tasks else None
    cache_root = None if args.no_cache else cache_dir(args.cache_dir, tasks[0].settings if tasks else None)
    result, outcomes = run_static(tasks, cache_root, jobs=args.jobs, stdin_text=stdin_text, stdin_data=stdin_data)

    for ext in _EXTENSIONS:
        rc = ext.after_static(args, tasks, result, outcomes)
        if rc is not None:
            return rc

    if result.notebooks:  # the report names cells: findings move from module lines into them
        from jaxlint.notebook import present

        result.diagnostics = present(result.diagnostics, result.notebooks)
    report_stream = sys.stderr if args.stdout_taken else sys.stdout
    color = args.color == "always" or (args.color == "auto" and report_stream.isatty() and not args.output_file
                                        and "NO_COLOR" not in os.environ)
    sources: dict[str, str] = {}
    if args.output_format == "full":
        for t in tasks:
            if t.display in result.notebooks:
                sources.update(_cell_sources(t, stdin_text))
            elif stdin_text is not None:
                sources[t.display] = stdin_text
            elif any(d.path == t.display for d in result.diagnostics):
                try:
                    sources[t.display] = t.path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    pass
    unsafe = bool(getattr(args, "unsafe_fixes", False))
    ctx = OutputContext(color=color, sources=sources, root=settings_root,
                        show_fixes=getattr(args, "show_fixes", False), quiet=args.quiet, unsafe_fixes=unsafe)
    text = formats[args.output_format](result, ctx)
    if args.statistics:
        text = _statistics(result, unsafe) if args.output_format in ("concise", "full") else text
    _emit(text, args.output_file, report_stream)
    for err in result.errors:
        print(f"jaxlint: error: {err}", file=sys.stderr)
    if result.errors:
        return 2
    if result.diagnostics and not args.exit_zero:
        return 1
    return 0


def _cell_sources(task, stdin_text: str | None) -> dict[str, str]:
    """A notebook's cells' code for the ``full`` format, keyed ``path:cell N``."""
    from jaxlint.notebook import NotebookError, load

    try:
        data = stdin_text.encode("utf-8") if stdin_text is not None else task.path.read_bytes()
        nb = load(data)
    except (OSError, NotebookError):
        return {}
    return {f"{task.display}:cell {c.number}": c.source for c in nb.cells}


def _select_tasks(args, tasks):
    shard = getattr(args, "shard", None)
    if not shard:
        return tasks
    from jaxlint.sharding import select_shard

    return select_shard(tasks, shard)


def _emit(text: str, output_file: str | None, stream=None) -> None:
    if output_file:
        p = Path(output_file)
        if p.parent and not p.parent.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    else:
        stream = stream or sys.stdout
        stream.write(text)
        stream.flush()


def _statistics(result, unsafe: bool = False) -> str:
    from jaxlint.output.concise import starred

    counts = Counter((d.code, d.name) for d in result.diagnostics)
    fixable = Counter(d.code for d in result.diagnostics if starred(d, unsafe))
    lines = []
    for (code, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        star = "[*]" if fixable.get(code) else "   "
        lines.append(f"{n:>5}\t{code}\t{star} {name}")
    if not lines:
        lines.append("All checks passed!")
    return "\n".join(lines) + "\n"


def _show_settings(tasks, resolver) -> int:
    import json
    from dataclasses import asdict

    from jaxlint.registry import active_rules

    seen = set()
    for t in tasks or [None]:
        s = t.settings if t else resolver.for_dir(Path.cwd())
        if id(s) in seen:
            continue
        seen.add(id(s))
        d = asdict(s)
        d["root"] = str(s.root)
        d["config_file"] = str(s.config_file) if s.config_file else None
        d["active_rules"] = [r.code for r in active_rules(s)]
        print(json.dumps(d, indent=2, default=str))
    return 0
