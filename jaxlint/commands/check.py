"""``jaxlint check``: the linter's command line. What a check does, stage by stage, is
:mod:`jaxlint.pipeline`."""
from __future__ import annotations

import argparse


def add_parser(sub) -> argparse.ArgumentParser:
    """The parser, built from :class:`jaxlint.pipeline.CheckOptions`, where each option is
    declared once with its flag."""
    from dataclasses import MISSING, fields

    from jaxlint.pipeline import GROUPS, OTHER_LINTERS_FLAGS, CheckOptions

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
    for flag, instead in OTHER_LINTERS_FLAGS.items():  # what a ruff user types: one line saying what to use
        p.add_argument(flag, nargs=0, action=_OtherLinters, help=argparse.SUPPRESS, instead=instead)
    return p


class _OtherLinters(argparse.Action):
    """A flag of ruff's or flake8's that jaxlint has no equal for: exit 2 with what to use."""

    def __init__(self, *args, instead: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.instead = instead

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        parser.error(f"{option_string} is ruff's; jaxlint has no such flag: {self.instead}")


def load(args) -> None:
    """What a check imports, whatever its files: the static phase (its runner, the model)
    and the static rules its command line selects (a configuration that selects others
    has them loaded when the check reads it). ``jaxlint.cli`` calls this in its own
    process before it lets the cyclic collector back on and freezes what is loaded."""
    import jaxlint.static.runner  # noqa: F401
    from jaxlint.registry import select_rules

    select_rules(getattr(args, "select", None), getattr(args, "extend_select", ()), getattr(args, "ignore", ()),
                 ("static",), preview=bool(getattr(args, "preview", False)))


def run(args) -> int:
    from jaxlint.pipeline import CheckOptions, check

    options = CheckOptions.from_args(args)
    if options.watch:
        from jaxlint.commands.watch import watch

        return watch(options)
    return check(options)
