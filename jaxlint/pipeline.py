"""``jaxlint check`` as one pipeline over a typed run context.

    discover -> static -> dynamic -> supersede -> suppress -> summarise -> fix -> baseline -> emit

Each stage reads and extends a :class:`CheckRun` (the options, the files, the findings so
far) and returns ``None`` to go on or an exit status to end the run there (``--show-files``,
``--add-noqa``, ``--diff``, ``--write-baseline``). The dynamic stage runs the trace tier and,
asked, the compile tier in worker processes; the measured findings then replace the static
guesses they confirm (supersede, before suppressions: a noqa on the measured finding also
acknowledges the guess) and get their own noqa comments and per-file-ignores (the static
phase applied its own, per file and cached). Fixes, baselines and the report see every tier.

Stages import what they use when they run: a static check of one file loads no more than it needs.
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from jaxlint.config import ConfigError, find_config_file
from jaxlint.findings.result import RunResult
from jaxlint.records import dataclass

if TYPE_CHECKING:
    from jaxlint.config import Settings
    from jaxlint.files.discovery import FileTask, SettingsResolver
    from jaxlint.dynamic.driver import DynamicReport
    from jaxlint.rule import Rule


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _per_file_ignore(value: str) -> tuple[str, list[str]]:
    import argparse

    glob, sep, codes = value.rpartition(":")
    if not sep or not glob or not _csv(codes):
        raise argparse.ArgumentTypeError(f"expected GLOB:CODES (e.g. 'tests/*:JAX101'), got {value!r}")
    return glob, _csv(codes)


def _jobs(value: str) -> int:
    import argparse

    try:
        n = int(value)
    except ValueError:
        n = -1
    if not 0 <= n <= 4096:
        raise argparse.ArgumentTypeError(f"expected a number of processes from 0 (all cores) to 4096, got {value!r}")
    return n


def _shard(value: str) -> tuple[int, int]:
    import argparse

    from jaxlint.sharding import parse_shard

    try:
        return parse_shard(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _output_format() -> str:
    return os.environ.get("JAXLINT_OUTPUT_FORMAT", "concise")


@dataclass(frozen=True)
class Flag:
    """One command-line form of a :class:`CheckOptions` field: its flags (or positional
    name), the ``--help`` group it is listed in (None: the command's own options), and the
    rest of what ``argparse``'s ``add_argument`` takes. The field's default is the flag's,
    unless ``kwargs`` names one (a callable is called when the parser is built)."""

    flags: tuple[str, ...]
    group: str | None
    kwargs: dict


def _opt(value: Any, *flags: str, group: str | None, also: tuple[Flag, ...] = (), **kwargs: Any) -> Any:
    """A field of :class:`CheckOptions` whose default is ``value``, and its flag: the one
    place an option is declared (``jaxlint.commands.check`` builds the parser from these)."""
    meta = {"cli": (Flag(flags, group, kwargs), *also)}
    if isinstance(value, list):
        return field(default_factory=lambda: list(value), metadata=meta)
    return field(default=value, metadata=meta)


#: the ``--help`` groups, in the order they are listed
GROUPS = {
    "output": "output",
    "selection": "rule selection",
    "configuration": "configuration",
    "run": "run",
    "dynamic": "dynamic phase (imports your code in worker processes)",
    "budgets": "cost budgets (with --dynamic --compile; docs/budgets.md)",
    "fixes": "fixes",
    "baseline": "baseline",
    "ci": "CI",
}


#: ruff's output formats that jaxlint does not write, and what to use instead
OTHER_LINTERS_FORMATS = {
    "grouped": "use `full` (each finding with its source line) or `concise`",
    "pylint": "use `concise`: `path:line:col: CODE message`, which pylint-style parsers read",
    "azure": "use `sarif` (Azure DevOps publishes SARIF) or `junit` (its test results)",
    "rdjson": "use `sarif`: reviewdog reads it with `-f=sarif`",
}

#: ruff's and flake8's flags of `check` that jaxlint has no equal for: what to use instead
OTHER_LINTERS_FLAGS = {
    "--count": "jaxlint's summary line counts the findings (`Found 3 findings.`); --statistics counts them per rule",
    "--fix-only": "use --fix --exit-zero (-q to hide what remains)",
    "--exit-non-zero-on-fix": "--fix exits 1 while findings remain; in CI, --diff exits 1 when there are fixes",
    "--show-source": "use --output-format full (each finding with its source line)",
}


@dataclass(frozen=True)
class CheckOptions:
    """Every option of ``jaxlint check``, each declared once with its flag (see
    ``jaxlint check --help``, which lists them in this order)."""

    paths: tuple[str, ...] = _opt(
        (), "paths", group=None, nargs="*",
        help="files or directories (default: the project root, else .); '-' reads stdin")
    # output
    output_format: str = _opt(
        "concise", "--output-format", group="output", default=_output_format,
        help="concise, full, json, json-lines, sarif, github, junit, gitlab, markdown")
    output_file: str | None = _opt(None, "-o", "--output-file", group="output", help="write the report to this file")
    statistics: bool = _opt(False, "--statistics", group="output", action="store_true", help="count findings per rule")
    every_place: bool = _opt(False, "--every-place", group="output", action="store_true",
                             help="report each place of a static pattern as its own finding (default: one finding "
                                  "per pattern per function, the other places as its related locations)")
    show_files: bool = _opt(False, "--show-files", group="output", action="store_true",
                            help="list the files that would be checked, and exit")
    show_settings: bool = _opt(False, "--show-settings", group="output", action="store_true",
                               help="print the resolved settings, and exit")
    color: str = _opt("auto", "--color", group="output", choices=("auto", "always", "never"))
    quiet: bool = _opt(False, "-q", "--quiet", group="output", action="store_true",
                       help="print findings only, no summary")
    # rule selection
    select: list[str] | None = _opt(None, "--select", group="selection", type=_csv,
                                    help="comma-separated codes, prefixes, names or ALL")
    extend_select: list[str] = _opt([], "--extend-select", group="selection", type=_csv)
    ignore: list[str] = _opt([], "--ignore", group="selection", type=_csv,
                             also=(Flag(("--extend-ignore",), "selection", {
                                 "type": _csv, "action": "extend", "metavar": "CODES",
                                 "help": "more codes to ignore, after --ignore (ruff's and flake8's flag)"}),))
    per_file_ignores: list[tuple[str, list[str]]] = _opt(
        [], "--per-file-ignores", group="selection", type=_per_file_ignore, action="append", metavar="GLOB:CODES",
        help="ignore codes in matching files, e.g. 'tests/*:JAX101,JAX106' (repeatable; added to the config's "
             "per-file-ignores)")
    preview: bool = _opt(False, "--preview", group="selection", action="store_true",
                         help="also run the nursery group's rules and report findings the static model rates "
                              "only possible (same as preview = true in the config)")
    ignore_noqa: bool = _opt(False, "--ignore-noqa", group="selection", action="store_true",
                             help="ignore any `# noqa` comments (per-file-ignores still apply)")
    # configuration
    #: the config file (``--config FILE``); ``--config 'key = value'`` go to config_overrides
    config: str | None = _opt(
        None, "--config", group="configuration", action="append", default=list, metavar="FILE | 'KEY = VALUE'",
        help="use this config file for every checked file; or override one setting, in TOML "
             "(`--config 'fail-on = \"error\"'`, `--config 'dynamic.backend = \"gpu\"'`; repeatable)")
    #: ``--config 'key = value'`` overrides, in order (from ``--config``: no flag of its own)
    config_overrides: list[str] = field(default_factory=list)
    exclude: list[str] | None = _opt(None, "--exclude", group="configuration", type=_csv, metavar="PATTERNS",
                                     help="comma-separated file patterns to exclude (replaces the config's `exclude`)")
    extend_exclude: list[str] = _opt([], "--extend-exclude", group="configuration", type=_csv, metavar="PATTERNS",
                                     help="comma-separated file patterns to exclude, besides the config's")
    isolated: bool = _opt(False, "--isolated", group="configuration", action="store_true",
                          help="ignore all config files")
    force_exclude: bool = _opt(False, "--force-exclude", group="configuration", action="store_true",
                               help="apply excludes to explicitly passed files")
    stdin_filename: str | None = _opt(None, "--stdin-filename", group="configuration",
                                      help="the path of the file read from stdin")
    # run
    exit_zero: bool = _opt(False, "--exit-zero", group="run", action="store_true",
                           help="exit 0 even with findings (2 still means failure)")
    fail_on: str | None = _opt(None, "--fail-on", group="run", choices=("info", "warning", "error"),
                               help="the lowest severity that fails the run (default: warning; info findings are "
                                    "shown and do not fail)")
    jobs: int = _opt(0, "--jobs", "-j", group="run", type=_jobs, help="processes for the static phase (0: all cores)")
    #: check again whenever a file changes (jaxlint.commands.watch)
    watch: bool = _opt(False, "--watch", group="run", action="store_true",
                       help="check again whenever a checked file or config file changes, until Ctrl-C (exit 0)")
    no_cache: bool = _opt(False, "-n", "--no-cache", group="run", action="store_true",
                          help="read and write no result cache")
    cache_dir: str | None = _opt(None, "--cache-dir", group="run")
    # the dynamic phase and the compile tier (None: as the config says)
    dynamic: bool | None = _opt(
        None, "--dynamic", group="dynamic", action="store_true",
        help="trace jitted functions and run the jaxpr rules (JAX2xx)",
        also=(Flag(("--no-dynamic",), "dynamic", {"action": "store_false", "help": "static phase only, even if the "
                                                   "config enables the dynamic phase"}),))
    signatures: str | None = _opt(None, "--signatures", group="dynamic", metavar="FILE",
                                  help="recorded signatures (default: .jaxlint/signatures.json at the project root)")
    recorded_only: bool = _opt(False, "--recorded-only", group="dynamic", action="store_true",
                               help="with --dynamic: report what `jaxlint record` observed and import nothing (no "
                                    "worker traces a function the recording did not; what the editor shows when "
                                    "its dynamic phase is off)")
    show_skipped: bool = _opt(False, "--show-skipped", group="dynamic", action="store_true",
                              help="list every function the dynamic phase skipped, with the reason")
    compile: bool | None = _opt(None, "--compile", group="dynamic", action="store_true",
                                help="also compile traced functions and run the HLO rules (JAX3xx); implies --dynamic")
    target: str | None = _opt(None, "--target", group="dynamic", metavar="NAME",
                              help="compile for this target: a name from [tool.jaxlint.targets] or a TPU topology "
                                   "such as v5e:1x1 or v5e:2x4 (compiled deviceless, on any machine; implies "
                                   "--compile)")
    report: str | None = _opt(None, "--report", group=None, metavar="FILE",
                              help="with --dynamic: write an HTML page of the run (one row per function: equations, "
                                   "constants, compile time, flops, temp memory, findings); FILE.json writes the "
                                   "rows as JSON")
    # cost budgets (jaxlint.compile.budgets)
    budgets: str | None = _opt(None, "--budgets", group="budgets", metavar="FILE",
                               help="the committed cost budgets (default: [tool.jaxlint.dynamic] budgets, "
                                    "jaxlint-budgets.json at the project root)")
    update_budgets: bool = _opt(False, "--update-budgets", group="budgets", action="store_true",
                                help="write this run's compile figures into the budgets file (implies --dynamic "
                                     "--compile)")
    budget_report: str | None = _opt(None, "--budget-report", group="budgets", metavar="FILE",
                                     help="write the budget table (and the over-budget findings) as Markdown to FILE, "
                                          "for a pull-request comment")
    # fixes
    fix: bool = _opt(False, "--fix", group="fixes", action="store_true",
                     help="apply safe fixes, then report what remains",
                     also=(Flag(("--no-fix",), "fixes", {"action": "store_false",
                                                         "help": "apply no fixes (undoes an earlier --fix)"}),))
    unsafe_fixes: bool = _opt(False, "--unsafe-fixes", group="fixes", action="store_true",
                              help="with --fix or --diff, apply unsafe fixes too (they may change behaviour)")
    diff: bool = _opt(False, "--diff", group="fixes", action="store_true",
                      help="print the fixes as a unified diff and write nothing (exit 1 if there are any)")
    show_fixes: bool = _opt(False, "--show-fixes", group="fixes", action="store_true",
                            help="list the fixes applied, per file and rule")
    fixable: list[str] | None = _opt(None, "--fixable", group="fixes", type=_csv, metavar="CODES",
                                     help="only these codes' fixes are applied")
    unfixable: list[str] | None = _opt(None, "--unfixable", group="fixes", type=_csv, metavar="CODES",
                                       help="these codes' fixes are never applied")
    add_noqa: bool = _opt(False, "--add-noqa", group="fixes", action="store_true",
                          help="add `# noqa: CODE` for every current finding to its line, and exit")
    # baseline
    write_baseline: str | None = _opt(None, "--write-baseline", group="baseline", metavar="FILE",
                                      help="record the current findings in FILE, and exit 0")
    baseline: str | None = _opt(None, "--baseline", group="baseline", metavar="FILE",
                                help="report (and fail on) only findings not recorded in FILE")
    prune_baseline: bool = _opt(False, "--prune-baseline", group="baseline", action="store_true",
                                help="with --baseline, rewrite FILE without the entries no longer found")
    # CI
    shard: tuple[int, int] | None = _opt(None, "--shard", group="ci", type=_shard, metavar="K/N",
                                         help="check only shard K of N (1-based), a partition by a hash of each "
                                              "file's path; combine the shards' reports with `jaxlint merge`")

    @classmethod
    def from_args(cls, args: Any) -> "CheckOptions":
        """The options of a parsed command line (``jaxlint.commands.check``)."""
        values = {f.name: getattr(args, f.name) for f in fields(cls) if f.name != "config_overrides"}
        values["paths"] = tuple(values["paths"])
        values["config"], values["config_overrides"] = split_config(values.pop("config"))
        return cls(**values)

    @property
    def reads_stdin(self) -> bool:
        return list(self.paths) == ["-"]

    def validate(self, formats: dict) -> None:
        """Combinations that cannot work: a clear error before anything runs."""
        if self.output_format not in formats:
            instead = OTHER_LINTERS_FORMATS.get(self.output_format)
            raise ConfigError(
                f"--output-format: unknown format `{self.output_format}`"
                + (f" (ruff's); {instead}" if instead else "") + f"; choose from {', '.join(sorted(formats))}"
            )
        # --fix and --diff on stdin print the fixed code or the diff; --add-noqa has no
        # such output (ruff refuses it too)
        if self.add_noqa and self.reads_stdin:
            raise ConfigError("--add-noqa cannot be used when reading from stdin")
        if self.add_noqa and (self.fix or self.diff):
            raise ConfigError("--add-noqa cannot be combined with --fix or --diff")
        if self.prune_baseline and not self.baseline:
            raise ConfigError("--prune-baseline needs --baseline FILE")
        if self.baseline and self.write_baseline:
            raise ConfigError("--baseline and --write-baseline cannot be combined")
        if self.shard and self.reads_stdin:
            raise ConfigError("--shard cannot be used when reading from stdin")

    def overrides(self) -> dict:
        """What the command line changes in every file's settings."""
        o: dict = {
            "select": self.select,
            "extend_select": self.extend_select,
            "ignore": self.ignore,
            "per_file_ignores": {glob: tuple(codes) for glob, codes in self.per_file_ignores},
            "force_exclude": self.force_exclude,
            "ignore_noqa": self.ignore_noqa,
            "confidence": "possible" if self.preview else None,
            "preview": self.preview,
            "exclude": self.exclude,
            "extend_exclude": self.extend_exclude,
            "fail_on": self.fail_on,
            "fixable": self.fixable,
            "unfixable": self.unfixable,
            "inline": list(self.config_overrides),
        }
        dyn: dict = {}
        if self.dynamic is not None:
            dyn["enabled"] = self.dynamic
        if self.target is not None:
            dyn["target"] = self.target
        if self.compile or self.update_budgets or self.target is not None:
            # --compile (and a target, which only the compile tier can use) implies --dynamic, unless
            # --no-dynamic says otherwise
            dyn["compile"] = True
            if self.dynamic is not False:
                dyn["enabled"] = True
        if dyn:
            o["dynamic"] = dyn
        return o


def add_config_flag(parser: Any) -> None:
    """``--config FILE | 'KEY = VALUE'`` on another command's parser, exactly as ``check``
    declares it (every command that reads the settings takes the same forms)."""
    add_check_flag(parser, "config")


def add_check_flag(parser: Any, name: str, dest: str | None = None) -> None:
    """``check``'s flag for the option ``name`` on another command's parser, declared as
    ``check`` declares it (``--target`` on ``budget update`` and ``inspect``)."""
    flag = CheckOptions.__dataclass_fields__[name].metadata["cli"][0]
    kwargs = dict(flag.kwargs)
    if callable(kwargs.get("default")):
        kwargs["default"] = kwargs["default"]()
    parser.add_argument(*flag.flags, dest=dest or name, **kwargs)


def split_config(given: Any) -> tuple[str | None, list[str]]:
    """``--config``'s values as (the config file or None, the inline overrides in order)."""
    from jaxlint.config import is_inline

    given = [given] if isinstance(given, str) else list(given or [])
    files = [c for c in given if not is_inline(c)]
    if len(files) > 1:
        raise ConfigError(f"--config: one config file at most, got {', '.join(files)}")
    return (files[0] if files else None), [c for c in given if is_inline(c)]


def config_resolver(given: Any) -> "SettingsResolver":
    """The settings ``--config``'s values give (a config file for every file, inline
    overrides on top), for a command other than ``check``."""
    from jaxlint.files.discovery import SettingsResolver

    file, inline = split_config(given)
    if file is not None and not Path(file).is_file():
        raise ConfigError(f"--config: no such file: {file}")
    return SettingsResolver(Path(file) if file else None, False, {"inline": inline})


@dataclass
class CheckRun:
    """What one ``check`` knows as it goes through the stages."""

    options: CheckOptions
    formats: dict = field(default_factory=dict)
    resolver: "SettingsResolver | None" = None
    tasks: list["FileTask"] = field(default_factory=list)
    #: stdin (``-``): its bytes; its text, or the bytes when they do not decode (checked
    #: as bytes: reported as a parse-error at the bad byte)
    stdin: bytes | None = None
    stdin_text: str | None = None
    stdin_data: bytes | None = None
    cache_root: Path | None = None
    result: RunResult = field(default_factory=RunResult)
    #: the dynamic phase's report; None when it did not run
    dynamic: "DynamicReport | None" = None
    levels: list[str] = field(default_factory=list)
    #: the dynamic findings selected for the run, after supersede (then after suppress)
    measured: list = field(default_factory=list)
    #: ``--fix`` on stdin printed the fixed code: the report goes to stderr, as in ruff
    stdout_taken: bool = False
    _by_display: dict | None = field(default=None, repr=False)
    _first_dynamic: Any = field(default=None, repr=False)
    #: (id(settings), phases) -> (the settings, their active rules): computed once a run
    _active: dict = field(default_factory=dict, repr=False)

    def task_of(self, display: str) -> "FileTask | None":
        if self._by_display is None:  # the files are known once discover ran
            self._by_display = {t.display: t for t in self.tasks}
        return self._by_display.get(display)

    def dynamic_tasks(self) -> list["FileTask"]:
        """The files whose settings enable the dynamic phase."""
        return [t for t in self.tasks if t.settings.dynamic.enabled]

    def active(self, settings: Settings, phases: Sequence[str]) -> list[Rule]:
        """The rules selected for a file with these settings in ``phases``, made with their
        options: computed once a run, and asked by every stage after the check (the
        dynamic phase's rules, the measured findings kept, where they were measured, the
        rules of the report, the baseline's judged functions)."""
        key = (id(settings), tuple(phases))
        found = self._active.get(key)
        if found is None:
            from jaxlint.registry import active_rules

            found = self._active[key] = (settings, active_rules(settings, tuple(phases)))  # holds the id's object
        return found[1]

    def active_codes(self, settings: Settings, phases: Sequence[str], measured: bool = False) -> frozenset[str]:
        """The codes of :meth:`active`; ``measured``: only the rules that measure (the
        findings of engine roles, such as analysis-failed, are made by the engine)."""
        return frozenset(r.code for r in self.active(settings, phases) if not measured or r.role is None)

    def settings_of(self, display: str):
        """A checked file's settings; for a file the dynamic phase reached through another
        (a helper module), the first dynamic file's."""
        task = self.task_of(display)
        if task is not None:
            return task.settings
        if self._first_dynamic is None:
            self._first_dynamic = self.dynamic_tasks()[0]
        return self._first_dynamic.settings


def warn(message: str) -> None:
    print(f"jaxlint: warning: {message}", file=sys.stderr)


def errors_status(result: RunResult) -> int:
    """Print the run's errors; 2 when there are any."""
    for err in result.errors:
        print(f"jaxlint: error: {err}", file=sys.stderr)
    return 2 if result.errors else 0


# --------------------------------------------------------------------------- stages
def discover(run: CheckRun) -> int | None:
    """The files to check with their settings (nearest config wins); stdin's text."""
    from jaxlint.files.discovery import FileTask, SettingsResolver, discover as find_files, display_path, is_excluded
    from jaxlint.output import FORMAT_MODULES, load_formats

    o = run.options
    run.formats = load_formats(o.output_format, *(("markdown",) if o.budget_report else ()))
    o.validate(FORMAT_MODULES)
    explicit = Path(o.config) if o.config else None
    if explicit is not None and not explicit.is_file():
        raise ConfigError(f"--config: no such file: {o.config}")
    run.resolver = resolver = SettingsResolver(explicit, o.isolated, o.overrides())
    paths = list(o.paths)
    if o.reads_stdin:
        from jaxlint.static.checker import SourceError, decode_source

        raw = run.stdin = sys.stdin.buffer.read()
        try:
            run.stdin_text = decode_source(raw)
        except SourceError:
            run.stdin_data = raw
        name = o.stdin_filename or "-"
        p = Path(name)
        settings = resolver.for_dir(p.parent if name != "-" else Path.cwd())
        if o.force_exclude and name != "-" and is_excluded(p, settings):
            # pre-commit and editors pass excluded files through stdin too: no findings;
            # an editor fixing on save replaces its buffer with stdout, so give the code back
            if o.fix and not o.diff:
                sys.stdout.buffer.write(raw)
                sys.stdout.flush()
            return 0
        run.tasks = [FileTask(p.absolute(), display_path(p.absolute()) if name != "-" else "-", settings)]
    else:
        paths = check_paths(o)
        warnings: list[str] = []
        run.tasks = find_files(paths, resolver, force_exclude=o.force_exclude, warnings=warnings)
        if not run.tasks:
            # as ruff does: an empty run that says "All checks passed!" hides a wrong path or exclude
            where = "the given paths" if o.paths else (paths[0] if paths != ["."] else "the current directory")
            warnings.append(f"no Python files found under {where} (excluded, or not matched by `include`: "
                            ".py, .pyi, .ipynb)")
        for w in warnings:
            warn(w)
    if o.shard:
        from jaxlint.sharding import select_shard

        run.tasks = select_shard(run.tasks, o.shard)
    if o.show_files:
        for t in sorted(run.tasks, key=lambda t: t.display):
            print(t.display)
        return 0
    if o.show_settings:
        return _show_settings(run)
    return None


def check_paths(o: CheckOptions) -> list[str]:
    """The paths a check looks under: those given, else the project of the config found
    from here; with --config (or --isolated) the current directory, as ruff does: the
    file says how to lint, not where."""
    if o.paths:
        return list(o.paths)
    cfg = None if (o.config or o.isolated) else find_config_file(Path.cwd())
    if cfg is None or cfg.parent == Path.cwd().resolve():
        return ["."]
    return [str(cfg.parent)]


def static(run: CheckRun) -> int | None:
    """The static phase: every file from the cache or checked, its suppressions applied."""
    from jaxlint.config import cache_dir
    from jaxlint.static.runner import run_static

    o = run.options
    run.cache_root = None if o.no_cache else cache_dir(o.cache_dir, run.tasks[0].settings if run.tasks else None)
    run.result, _ = run_static(run.tasks, run.cache_root, jobs=o.jobs, stdin_text=run.stdin_text,
                               stdin_data=run.stdin_data)
    run.result.set_aside_newer_syntax()
    return None


def dynamic(run: CheckRun) -> int | None:
    """The trace tier and, asked, the compile tier, over the files whose settings enable
    the dynamic phase: user code imported in worker processes, results cached by content."""
    todo = run.dynamic_tasks()
    if not todo:
        return None
    if any(t.display == "-" for t in todo) or run.options.reads_stdin:
        run.result.notes.append("Dynamic phase skipped: code read from stdin cannot be imported.")
        return None
    from jaxlint.config import cache_dir
    from jaxlint.dynamic.driver import check_signatures_option, run_dynamic
    from jaxlint.process.launch import module_command
    from jaxlint.inspect import levels as levels_module

    o = run.options
    check_signatures_option(o.signatures)
    run.levels = levels = ["trace"] + (["compile"] if any(t.settings.dynamic.compile for t in todo) else [])

    def rules_of(settings):
        # role rules' findings are made by the engine, not by a check in the worker
        return [r for r in run.active(settings, levels) if r.role is None]

    cache_root = None if o.no_cache else cache_dir(o.cache_dir, todo[0].settings)
    if cache_root is not None and "compile" in levels:  # jax's persistent cache, in the workers
        from jaxlint.compile.tier import compile_cache_dir

        os.environ["JAXLINT_XLA_CACHE"] = str(compile_cache_dir(cache_root))
    run.dynamic = report = run_dynamic(todo, lambda t: t.settings, rules_of, levels, cache_root, o.signatures,
                                       module_command(levels_module.__name__), recorded_only=o.recorded_only)
    if report.unavailable:  # what is missing, once; no report of a check that did not run
        run.result.errors.extend(report.errors)
        return errors_status(run.result)
    if run.result.notebooks:
        report.in_cells(run.result.notebooks)
    run.result.errors.extend(report.errors)
    return None


def budgets(run: CheckRun) -> int | None:
    """Each compiled function held against its committed cost budget (``--update-budgets``:
    the budgets rewritten from this run's figures); :mod:`jaxlint.compile.budgets`."""
    if run.dynamic is None and not run.options.update_budgets:
        return None  # nothing was compiled (a static check does not import the budgets)
    from jaxlint.compile.budgets import stage

    return stage(run)


def select_measured(run: CheckRun) -> int | None:
    """The measured findings of the rules selected for their file (it only filters: the
    merge with the static findings is :func:`merge_measured`'s)."""
    if run.dynamic is None:
        return None
    run.measured = [d for d in run.dynamic.diagnostics if d.code in run.active_codes(run.settings_of(d.path), run.levels)]
    return None


def merge_measured(run: CheckRun) -> int | None:
    """The measured findings merged with the static ones: one problem, one finding, then
    suppressions (:func:`jaxlint.findings.suppress.merge_and_suppress`, as the editor
    does): a measured finding replaces the static guesses it confirms and
    carries the first one's identity (baseline, fingerprints); the measured findings'
    own noqa comments (unless ``--ignore-noqa``) and per-file-ignores apply, file by
    file; then every finding in report order."""
    if run.dynamic is None:
        return None
    from jaxlint.files.notebook import NotebookError, is_notebook, read_module_text
    from jaxlint.findings.suppress import merge_and_suppress

    def file_of(path: str) -> tuple[Settings, str | None, Path]:
        task = run.task_of(path)
        settings = run.settings_of(path)
        where = task.path if task else Path(path)
        text = None
        if not settings.ignore_noqa:
            try:  # a notebook's findings are on the lines of its module, with its noqa comments
                text = read_module_text(where) if is_notebook(where) else \
                    where.read_text(encoding="utf-8", errors="replace")
            except (OSError, NotebookError):
                pass
        return settings, text, where

    run.result.diagnostics, run.measured, replaced = merge_and_suppress(run.result.diagnostics, run.measured, file_of,
                                                                        measured_in(run))
    # the baseline counts these as still there (jaxlint.findings.baseline.compare)
    run.result.superseded.extend(replaced)
    result = run.result
    result.diagnostics = sorted(result.diagnostics + run.measured, key=lambda d: d.sort_key)
    for t in run.dynamic_tasks():
        for r in run.active(t.settings, run.levels):
            result.rules[r.code] = type(r)
    return None


def measured_in(run: CheckRun) -> dict[str, list[tuple[int, int, frozenset[str]]]]:
    """Where the dynamic phase measured: per file, the lines of each function it analysed
    and the rules that ran there (:func:`jaxlint.findings.supersede.refuted`)."""
    from jaxlint.dynamic.codedigest import FileScopes

    out: dict[str, list[tuple[int, int, frozenset[str]]]] = {}
    scopes: dict[str, FileScopes | None] = {}
    report = run.dynamic
    if report is None or report.errors:
        return out
    for f in report.functions:
        if f.status != "analysed" or f.path.endswith(".ipynb") or ":cell" in f.path:
            continue
        if f.path not in scopes:
            task = run.task_of(f.path)
            try:
                scopes[f.path] = FileScopes((task.path if task else Path(f.path)).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                scopes[f.path] = None
        fs = scopes[f.path]
        scope = fs.by_name.get(f.qualname.replace(".<locals>", "")) if fs is not None else None
        if scope is None:
            continue
        codes = run.active_codes(run.settings_of(f.path), run.levels)
        out.setdefault(f.path, []).append((scope.line, scope.end, codes))
    return out


def summarise(run: CheckRun) -> int | None:
    """The dynamic phase's and the compile tier's lines in the summary, and the run's page
    (``--report FILE``)."""
    o, report = run.options, run.dynamic
    if report is None:
        if o.report:
            run.result.notes.append("--report: nothing to report without the dynamic phase (add --dynamic)")
        return None
    from jaxlint.compile.summary import summary_notes

    if not report.errors:
        run.result.notes.extend(report.notes(o.show_skipped, run.levels))
    run.result.notes.extend(summary_notes(report))
    if o.report:
        from jaxlint.inspect.run import write_run_report

        write_run_report(Path(o.report), report,
                         [d for d in run.result.diagnostics if d.phase.value in ("trace", "compile")])
    return None


def fix(run: CheckRun) -> int | None:
    """``--add-noqa``, ``--fix`` and ``--diff``: files written only when asked."""
    o, result = run.options, run.result
    result.diagnostics = [_fixable(run, d) for d in result.diagnostics]
    if o.add_noqa:
        from jaxlint.fix.files import add_noqa_files

        added = add_noqa_files(run.tasks, result, warn)
        print(f"Added {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
        return errors_status(result)
    if not (o.fix or o.diff):
        return None
    from jaxlint.fix.files import fix_files, fix_listing

    done = fix_files(run.tasks, result, unsafe=o.unsafe_fixes, diff=o.diff, stdin=run.stdin, warn=warn)
    n = done.count
    if o.diff:
        sys.stdout.write("".join(done.diffs))
        sys.stdout.flush()
        print(f"Would fix {n} finding{'s' if n != 1 else ''}.", file=sys.stderr)
        if o.show_fixes:
            sys.stderr.write(fix_listing(done.applied, "Would fix"))
        return 2 if result.errors else (1 if done.diffs else 0)
    if run.stdin is not None:
        sys.stdout.buffer.write(done.stdin_out or b"")
        sys.stdout.flush()
        run.stdout_taken = True
    result.diagnostics = sorted(done.remaining, key=lambda d: d.sort_key)
    if n:
        lines = fix_listing(done.applied, "Fixed") if o.show_fixes else (
            f"Fixed {n} finding{'s' if n != 1 else ''}.\n")
        if o.output_format in ("concise", "full"):
            result.notes.extend(lines.rstrip("\n").split("\n"))
        else:
            sys.stderr.write(lines)
    return None


def baseline(run: CheckRun) -> int | None:
    """``--write-baseline`` records the findings (and exits); ``--baseline`` keeps only
    the new ones, and reports (or, with ``--prune-baseline``, drops) stale entries."""
    o, result = run.options, run.result
    if o.write_baseline:
        from jaxlint.findings.baseline import Baseline

        path = Path(o.write_baseline)
        # a measured finding that replaced several static ones stands for all of them
        b = Baseline.from_findings(result.diagnostics + result.superseded, path.resolve().parent, Path.cwd())
        try:
            b.write(path)
        except OSError as e:
            raise ConfigError(f"--write-baseline: cannot write {path}: {e.strerror or e}") from None
        n = len(result.diagnostics)
        print(f"jaxlint: wrote {n} finding{'s' if n != 1 else ''} ({len(b.counts)} entries) to {path}",
              file=sys.stderr)
        return errors_status(result)
    if not o.baseline:
        return None
    from jaxlint.findings.baseline import Baseline, compare, key_path
    from jaxlint.registry import selected_groups

    path = Path(o.baseline)
    known = Baseline.load(path)
    base_dir, cwd = path.resolve().parent, Path.cwd()
    broken = result.unparsed()
    # static rules judge the files checked; trace and compile rules the functions analysed
    static_codes: dict[int, dict[str, frozenset[str]]] = {}
    judged: dict[str, dict[str, frozenset[str]]] = {}
    for t in run.tasks:
        if t.display in broken:
            continue
        s = t.settings
        if id(s) not in static_codes:
            static_codes[id(s)] = selected_groups(s.select, s.extend_select, s.ignore, ("static",), s.preview)
        judged[key_path(t.display, base_dir, cwd)] = static_codes[id(s)]
    cmp = compare(known, result.diagnostics, base_dir, cwd, judged, result.superseded,
                  _measured_judged(run, base_dir, cwd))
    result.diagnostics = cmp.new
    if cmp.matched:
        result.notes.append(f"{cmp.matched} baselined finding{'s' if cmp.matched != 1 else ''} not shown ({path}).")
    n_stale = sum(cmp.stale.values())
    if n_stale and o.prune_baseline:
        known.without(cmp.stale).write(path)
        print(f"jaxlint: baseline: pruned {n_stale} finding{'s' if n_stale != 1 else ''} no longer found "
              f"from {path}", file=sys.stderr)
    elif n_stale:
        print(f"jaxlint: baseline: {n_stale} finding{'s' if n_stale != 1 else ''} in {path} no longer found "
              f"(stale); drop them with --prune-baseline", file=sys.stderr)
    return None


def collapse(run: CheckRun) -> int | None:
    """One finding per pattern per function (:mod:`jaxlint.findings.collapse`): after the
    suppressions, the fixes and the baseline, which see every place."""
    if run.options.every_place:
        return None
    from jaxlint.findings.collapse import collapse as one_per_pattern

    run.result.diagnostics = one_per_pattern(run.result.diagnostics, run.result.rules)
    return None


def _measured_judged(run: CheckRun, base_dir: Path, cwd: Path) -> dict[str, dict[str, frozenset[str]]]:
    """Baseline path -> function -> the trace and compile codes that ran on it to the end
    in this run (a function the dynamic phase skipped, or did not compile, judges nothing)."""
    from jaxlint.findings.baseline import key_path

    report = run.dynamic
    if report is None:
        return {}
    out: dict[str, dict[str, frozenset[str]]] = {}
    broken = run.result.unparsed()
    for f in report.functions:
        task = run.task_of(f.path)
        if f.status != "analysed" or task is None or f.path in broken:
            continue
        compiled = "compile" in run.levels and not (f.report or {}).get("compile_skipped")
        phases = ("trace", "compile") if compiled else ("trace",)
        codes = run.active_codes(task.settings, phases, measured=True)
        out.setdefault(key_path(f.path, base_dir, cwd), {})[f.qualname] = codes
    return out


def emit(run: CheckRun) -> int:
    """The report in the chosen format (stdout, stderr after ``--fix`` on stdin, or
    ``-o FILE``); the exit status: 2 on errors, 1 on findings (unless ``--exit-zero``)."""
    from jaxlint.findings.result import newer_syntax_note
    from jaxlint.output import OutputContext, write_report

    o, result = run.options, run.result
    if o.shard:
        k, n = o.shard
        result.notes.append(f"Shard {k}/{n}: {len(run.tasks)} file{'s' if len(run.tasks) != 1 else ''} checked.")
    if result.notebooks:  # the report names cells: findings move from module lines into them
        from jaxlint.files.notebook import present

        result.diagnostics = present(result.diagnostics, result.notebooks)
    stream = sys.stderr if run.stdout_taken else sys.stdout
    color = o.color == "always" or (o.color == "auto" and stream.isatty() and not o.output_file
                                     and "NO_COLOR" not in os.environ)
    sources: dict[str, str] = {}
    if o.output_format == "full":
        for t in run.tasks:
            if t.display in result.notebooks:
                sources.update(_cell_sources(t, run.stdin_text))
            elif run.stdin_text is not None:
                sources[t.display] = run.stdin_text
            elif any(d.path == t.display for d in result.diagnostics):
                try:
                    sources[t.display] = t.path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    pass
    ctx = OutputContext(color=color, sources=sources, root=run.tasks[0].settings.root if run.tasks else None,
                        show_fixes=o.show_fixes, quiet=o.quiet, unsafe_fixes=o.unsafe_fixes)
    shown_only = len(result.diagnostics) - len(failing(run))
    if shown_only:
        level = _settings_for(run, result.diagnostics[0].path).fail_on if run.tasks else "warning"
        result.notes.insert(0, f"{shown_only} of them below `fail-on = \"{level}\"`: shown, not failing the run.")
    text = run.formats[o.output_format](result, ctx)
    if result.not_checked and o.output_format not in ("concise", "full", "markdown", "sarif"):
        # a format with no summary (an array of findings): the line goes to stderr
        print(f"jaxlint: {newer_syntax_note(result.not_checked)}", file=sys.stderr)
    if o.statistics and o.output_format in ("concise", "full"):
        text = _statistics(result, o.unsafe_fixes)
    write_report(text, o.output_file, stream)
    if o.budget_report:  # the budget table for a pull-request comment, whatever the format
        write_report(run.formats["markdown"](result, ctx), o.budget_report)
    if errors_status(result):
        return 2
    if failing(run) and not o.exit_zero:
        return 1
    return 0


_RANK = {"info": 0, "warning": 1, "error": 2}


def _settings_for(run: CheckRun, path: str):
    task = run.task_of(path)
    if task is None and run.tasks:
        task = run.tasks[0]
    return task.settings if task is not None else None


def failing(run: CheckRun) -> list:
    """The findings that fail the run: those at or above its file's ``fail-on``
    severity (default warning: an informational finding is shown and does not fail)."""
    out = []
    for d in run.result.diagnostics:
        s = _settings_for(run, d.path)
        if _RANK[d.severity.value] >= _RANK[s.fail_on if s is not None else "warning"]:
            out.append(d)
    return out


def _fixable(run: CheckRun, d):
    """The finding without its fix when its file's ``fixable``/``unfixable`` settings
    leave its code out (ruff's: the more specific selector wins, a tie goes to unfixable)."""
    if d.fix is None:
        return d
    from dataclasses import replace

    from jaxlint.registry import rule_by_selector, specificity

    s = _settings_for(run, d.path)
    rule = rule_by_selector(d.code)
    if s is None or rule is None:
        return d
    yes, no = specificity(s.fixable, rule), specificity(s.unfixable, rule)
    return d if yes and yes > no else replace(d, fix=None)


STAGES: tuple[Callable[[CheckRun], int | None], ...] = (
    discover, static, dynamic, budgets, select_measured, merge_measured, summarise, fix, baseline, collapse, emit,
)


def check(options: CheckOptions) -> int:
    """Run ``jaxlint check``: the stages in order until one ends the run; its exit status."""
    run = CheckRun(options)
    for stage in STAGES:
        status = stage(run)
        if status is not None:
            return status
    raise AssertionError("the emit stage always ends the run")


# --------------------------------------------------------------------------- helpers
def _cell_sources(task, stdin_text: str | None) -> dict[str, str]:
    """A notebook's cells' code for the ``full`` format, keyed ``path:cell N``."""
    from jaxlint.files.notebook import NotebookError, load

    try:
        data = stdin_text.encode("utf-8") if stdin_text is not None else task.path.read_bytes()
        nb = load(data)
    except (OSError, NotebookError):
        return {}
    return {f"{task.display}:cell {c.number}": c.source for c in nb.cells}


def _statistics(result: RunResult, unsafe: bool = False) -> str:
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


def _show_settings(run: CheckRun) -> int:
    import json
    from dataclasses import asdict

    from jaxlint.registry import active_rules
    from jaxlint.rule import GROUPS

    seen = set()
    resolver = run.resolver
    assert resolver is not None  # made by the discover stage, before this one
    tasks: list[FileTask | None] = list(run.tasks) or [None]
    for t in tasks:
        s = t.settings if t else resolver.for_dir(Path.cwd())
        if id(s) in seen:
            continue
        seen.add(id(s))
        d = asdict(s)
        d["root"] = str(s.root)
        d["config_file"] = str(s.config_file) if s.config_file else None
        d["active_rules"] = [r.code for r in active_rules(s)]
        # the lint group of each active rule, and the groups themselves (docs/precision.md)
        d["active_groups"] = {g: [r.code for r in active_rules(s)
                                  if g in (r.selected_groups or r.finding_groups())] for g in GROUPS}
        d["groups"] = {g.name: {"on_by_default": g.on, "severity": g.severity.value, "about": g.doc}
                       for g in GROUPS.values()}
        print(json.dumps(d, indent=2, default=str))
    return 0
