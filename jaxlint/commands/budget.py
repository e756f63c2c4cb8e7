"""``jaxlint budget update``: measure every jitted function as ``check --dynamic --compile``
does (recorded programs first, workers for the rest) and write the figures into the
committed budgets file (:mod:`jaxlint.compile.budgets`). Checking against the budgets is part
of ``jaxlint check --dynamic --compile``."""
from __future__ import annotations

import os


def add_parser(sub):
    from jaxlint.pipeline import add_check_flag, add_config_flag

    p = sub.add_parser("budget", help="cost budgets of compiled functions (docs/budgets.md)")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    up = acts.add_parser("update", help="measure and write jaxlint-budgets.json (prints what changed)")
    up.add_argument("paths", nargs="*", help="files or directories (default: the project root, else .)")
    up.add_argument("--budgets", metavar="FILE", help="the budgets file (default: [tool.jaxlint.dynamic] budgets)")
    add_config_flag(up)
    add_check_flag(up, "target")
    up.add_argument("--signatures", metavar="FILE", help="recorded signatures (default: .jaxlint/signatures.json)")
    up.add_argument("--no-cache", action="store_true")
    up.add_argument("--cache-dir")
    return p


def run(args) -> int:
    from jaxlint.pipeline import CheckOptions, check, split_config

    # the same run as `check --dynamic --compile`, its report thrown away: the budget
    # stage prints what it wrote; 2 when the run failed, else 0 (findings are check's)
    config, inline = split_config(args.config)
    options = CheckOptions(paths=tuple(args.paths), output_file=os.devnull, quiet=True, exit_zero=True,
                           config=config, config_overrides=inline, no_cache=args.no_cache, cache_dir=args.cache_dir,
                           dynamic=True, compile=True, signatures=args.signatures, budgets=args.budgets,
                           update_budgets=True, target=args.target)
    return check(options)
