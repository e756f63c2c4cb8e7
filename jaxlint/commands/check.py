"""``jaxlint check``: the linter's command line. What a check does, stage by stage, is
:mod:`jaxlint.pipeline`."""
from __future__ import annotations

import argparse
import os


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
                     help="concise, full, json, json-lines, sarif, github, junit, gitlab, markdown")
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
    sel.add_argument("--preview", action="store_true",
                     help="also report findings the static model rates only possible (same as "
                          "confidence = \"possible\" in the config)")
    sel.add_argument("--ignore-noqa", action="store_true",
                     help="ignore any `# noqa` comments (per-file-ignores still apply)")
    cfg = p.add_argument_group("configuration")
    cfg.add_argument("--config", action="append", default=[], metavar="FILE | 'KEY = VALUE'",
                     help="use this config file for every checked file; or override one setting, in TOML "
                          "(`--config 'fail-on = \"error\"'`, `--config 'dynamic.backend = \"gpu\"'`; repeatable)")
    cfg.add_argument("--exclude", type=_csv, metavar="PATTERNS",
                     help="comma-separated file patterns to exclude (replaces the config's `exclude`)")
    cfg.add_argument("--extend-exclude", type=_csv, default=[], metavar="PATTERNS",
                     help="comma-separated file patterns to exclude, besides the config's")
    cfg.add_argument("--isolated", action="store_true", help="ignore all config files")
    cfg.add_argument("--force-exclude", action="store_true", help="apply excludes to explicitly passed files")
    cfg.add_argument("--stdin-filename", help="the path of the file read from stdin")
    run = p.add_argument_group("run")
    run.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings (2 still means failure)")
    run.add_argument("--fail-on", choices=("info", "warning", "error"),
                     help="the lowest severity that fails the run (default: warning; info findings are shown "
                          "and do not fail)")
    run.add_argument("--jobs", "-j", type=_jobs, default=0, help="processes for the static phase (0: all cores)")
    run.add_argument("--watch", action="store_true",
                     help="check again whenever a checked file or config file changes, until Ctrl-C (exit 0)")
    run.add_argument("--no-cache", action="store_true")
    run.add_argument("--cache-dir")
    dyn = p.add_argument_group("dynamic phase (imports your code in worker processes)")
    dyn.add_argument("--dynamic", dest="dynamic", action="store_true", default=None,
                     help="trace jitted functions and run the jaxpr rules (JAX2xx)")
    dyn.add_argument("--no-dynamic", dest="dynamic", action="store_false",
                     help="static phase only, even if the config enables the dynamic phase")
    dyn.add_argument("--signatures", metavar="FILE",
                     help="recorded signatures (default: .jaxlint/signatures.json at the project root)")
    dyn.add_argument("--show-skipped", action="store_true",
                     help="list every function the dynamic phase skipped, with the reason")
    dyn.add_argument("--compile", dest="compile", action="store_true", default=None,
                     help="also compile traced functions and run the HLO rules (JAX3xx); implies --dynamic")
    p.add_argument("--report", metavar="FILE", help="with --dynamic: write an HTML page of the run (one row per "
                                                    "function: equations, constants, compile time, flops, "
                                                    "temp memory, findings); FILE.json writes the rows as JSON")
    bud = p.add_argument_group("cost budgets (with --dynamic --compile; docs/budgets.md)")
    bud.add_argument("--budgets", metavar="FILE",
                     help="the committed cost budgets (default: [tool.jaxlint.dynamic] budgets, "
                          "jaxlint-budgets.json at the project root)")
    bud.add_argument("--update-budgets", action="store_true",
                     help="write this run's compile figures into the budgets file (implies --dynamic --compile)")
    bud.add_argument("--budget-report", metavar="FILE",
                     help="write the budget table (and the over-budget findings) as Markdown to FILE, "
                          "for a pull-request comment")
    fixes = p.add_argument_group("fixes")
    fixes.add_argument("--fix", action="store_true", help="apply safe fixes, then report what remains")
    fixes.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix or --diff, apply unsafe fixes too (they may change behaviour)")
    fixes.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff and write nothing (exit 1 if there are any)")
    fixes.add_argument("--show-fixes", action="store_true", help="list the fixes applied, per file and rule")
    fixes.add_argument("--fixable", type=_csv, metavar="CODES", help="only these codes' fixes are applied")
    fixes.add_argument("--unfixable", type=_csv, metavar="CODES", help="these codes' fixes are never applied")
    fixes.add_argument("--add-noqa", action="store_true",
                       help="add `# noqa: CODE` for every current finding to its line, and exit")
    base = p.add_argument_group("baseline")
    base.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE, and exit 0")
    base.add_argument("--baseline", metavar="FILE", help="report (and fail on) only findings not recorded in FILE")
    base.add_argument("--prune-baseline", action="store_true",
                      help="with --baseline, rewrite FILE without the entries no longer found")
    ci = p.add_argument_group("CI")
    ci.add_argument("--shard", type=_shard_arg, metavar="K/N",
                    help="check only shard K of N (1-based), a partition by a hash of each file's path; "
                         "combine the shards' reports with `jaxlint merge`")
    return p


def _shard_arg(value: str) -> tuple[int, int]:
    from jaxlint.sharding import parse_shard

    try:
        return parse_shard(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def run(args) -> int:
    from jaxlint.pipeline import CheckOptions, check

    options = CheckOptions.from_args(args)
    if options.watch:
        from jaxlint.commands.watch import watch

        return watch(options)
    return check(options)
