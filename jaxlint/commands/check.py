"""``jaxlint check``: the linter's command line. What a check does, stage by stage, is
:mod:`jaxlint.pipeline`."""
from __future__ import annotations

import argparse


def add_parser(sub) -> argparse.ArgumentParser:
    """The parser, built from :class:`jaxlint.pipeline.CheckOptions`, where each option is
    declared once with its flag."""
    from dataclasses import MISSING, fields

    from jaxlint.pipeline import GROUPS, CheckOptions

    p = sub.add_parser("check", help="check files (the default workflow)")
    groups = {key: p.add_argument_group(title) for key, title in GROUPS.items()}
    for f in fields(CheckOptions):
        for flag in f.metadata.get("cli", ()):
            kwargs = dict(flag.kwargs)
            default = kwargs.pop("default", f.default if f.default_factory is MISSING else f.default_factory)
            if callable(default):
                default = default()
            if default is not MISSING and default != ():
                kwargs["default"] = default
            where = p if flag.group is None else groups[flag.group]
            if flag.flags[0].startswith("-"):
                kwargs["dest"] = f.name
            where.add_argument(*flag.flags, **kwargs)
    return p


def run(args) -> int:
    from jaxlint.pipeline import CheckOptions, check

    options = CheckOptions.from_args(args)
    if options.watch:
        from jaxlint.commands.watch import watch

        return watch(options)
    return check(options)
