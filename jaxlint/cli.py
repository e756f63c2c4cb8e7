"""The ``jaxlint`` command line. Each subcommand lives in ``jaxlint/commands/``."""
from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Sequence

from jaxlint import __version__

#: subcommand name -> module in jaxlint.commands exposing ``add_parser`` and ``run``
COMMANDS = {
    "check": "check",
    "rule": "rule",
    "clean": "clean",
    "record": "record",
    "inspect": "inspect",
    "server": "server",
    "merge": "merge",
    "budget": "budget",
}
#: subcommand name -> the line ``jaxlint --help`` shows for it: a command line that names
#: no subcommand (``--version``, ``--help``, none) builds the top level from this alone,
#: importing no command's module (tests/test_cli.py checks it against each ``add_parser``)
SUMMARIES = {
    "check": "check files (the default workflow)",
    "rule": "show a rule's documentation, or list all rules",
    "clean": "remove jaxlint's cache directory",
    "record": "run a command with jit instrumented and record the signatures it was called with",
    "inspect": "show the jaxpr, StableHLO and optimized HLO of one function, annotated with source lines and costs",
    "server": "run the language server (LSP over stdio) for editors",
    "merge": "combine the JSON or SARIF reports of sharded runs into one",
    "budget": "cost budgets of compiled functions (docs/budgets.md)",
}

EXIT_ERROR = 2  # usage, config or internal failure (0: no findings, 1: findings)
VERBOSE_HELP = "on an internal error, print the full traceback"
#: the width of the formatters made while the parser is built (see ``_Parser``)
_BUILD_WIDTH = 80


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line on stderr (exit 2), as a config error
    is, instead of the whole usage block; ``--help`` still shows the usage."""

    def error(self, message: str):  # type: ignore[override]
        message = " ".join(message.split())
        self.exit(EXIT_ERROR, f"jaxlint: error: {message} (see `{self.prog} --help`)\n")

    # ``add_argument`` (to check a metavar against ``nargs``) and ``add_subparsers`` (to
    # name the sub-commands' ``prog``) each make a help formatter, which asks the terminal
    # its width: ``shutil``, which loads ``bz2`` and ``lzma``, for text no one reads. While
    # the parser is built they get one of a fixed width (what they compute does not depend
    # on it: a metavar's arity, the short ``jaxlint`` prefix); help, usage and errors still
    # get the terminal's.
    _building = False

    def _get_formatter(self):  # type: ignore[no-untyped-def]
        if self._building:
            return self.formatter_class(prog=self.prog, width=_BUILD_WIDTH)
        return super()._get_formatter()

    def add_argument(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self._building = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._building = False

    def add_subparsers(self, **kwargs):  # type: ignore[no-untyped-def]
        self._building = True
        try:
            return super().add_subparsers(**kwargs)
        finally:
            self._building = False


def build_parser(only: str | None = None, summary: bool = False) -> argparse.ArgumentParser:
    """The command line; ``only``: just that subcommand's parser (each one imports its
    module, and an editor waits for ``jaxlint server`` to start); ``summary``: the top
    level alone, each subcommand by its name and line (:data:`SUMMARIES`), for a command
    line that names none (``--version`` and ``--help`` built every subcommand's parser:
    257 M instructions against 138 M, a one-file check 290 M; docs/performance.md, speed59)."""
    parser = _Parser(
        prog="jaxlint",
        description="A compiler-aware linter for JAX.",
    )
    parser.add_argument("--version", action="version", version=f"jaxlint {__version__}")
    parser.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    if summary:
        sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Unbuilt)
        for name in COMMANDS:
            sub.add_parser(name, help=SUMMARIES[name]).name = name
        return parser
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is None or name == only:
            _add_command(sub, name)
    return parser


def _add_command(sub, name: str) -> argparse.ArgumentParser:  # type: ignore[no-untyped-def]
    """The parser of subcommand ``name``, added to ``sub`` (imports its module)."""
    mod = importlib.import_module(f"jaxlint.commands.{COMMANDS[name]}")
    p = mod.add_parser(sub)
    # after the subcommand too; absent there, the top level's value stands
    p.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help=VERBOSE_HELP)
    p.set_defaults(_run=mod.run, _load=getattr(mod, "load", None))
    return p


class _Unbuilt:
    """A subcommand's parser in the top level built for a command line that names none:
    argparse lists it by its name and line. Should argparse parse with it all the same
    (a command found past an option :func:`_command_named` does not know), it is built
    then, as :func:`build_parser` builds it."""

    name = ""

    def __init__(self, **kwargs: object) -> None:
        pass

    def parse_known_args(self, args, namespace=None):  # type: ignore[no-untyped-def]
        top = _Parser(prog="jaxlint")
        return _add_command(top.add_subparsers(dest="command", metavar="COMMAND"), self.name).parse_known_args(
            args, namespace)


def main(argv: Sequence[str] | None = None) -> int:
    # The process's own command (argv from its command line): what loads before the
    # command runs (modules, classes, tables) lives until the process ends, so the cyclic
    # collector is held off while it loads and then told to leave it alone (gc.freeze), in
    # the passes while the command runs and in the last one at exit: 8 % of the
    # instructions of a one-file check (docs/performance.md, perf36). A caller's process
    # (argv given: tests, tools) keeps its collector as it was.
    own_process = argv is None and gc.isenabled()
    if own_process:
        gc.disable()
    try:
        return _main(argv, own_process)
    except KeyboardInterrupt:  # Ctrl-C while the command line is read and its modules load
        return 130
    finally:
        if own_process:
            gc.enable()


#: the top level's options (none takes a value), as argparse also takes them: abbreviated
_TOP_OPTIONS = ("--help", "--version", "--verbose")


def _command_named(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word past the top level's options, if it is
    one (anything else is argparse's to read, with every subcommand listed)."""
    for word in argv:
        if word == "-h" or (len(word) > 2 and any(o.startswith(word) for o in _TOP_OPTIONS)):
            continue
        return word if word in COMMANDS else None
    return None


def _main(argv: Sequence[str] | None, own_process: bool = False) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    named = _command_named(argv)
    parser = build_parser(named) if named is not None else build_parser(summary=True)
    args = parser.parse_args(argv)  # --version and --help exit here
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    from jaxlint.config import ConfigError
    from jaxlint.inspect.levels import hand_rules
    from jaxlint.process.procs import exit_on_signals

    hand_rules()  # the registry's rules: the engine imports none
    try:
        if own_process:
            # what the command will import (its ``load``), loaded while the collector is
            # still off, to be frozen with the rest: loaded later, while the command runs,
            # it set off collections as it loaded and was traversed again by the last ones
            # at exit (4 % of a one-file check's instructions, docs/performance.md, speed58)
            if args._load is not None:
                args._load(args)
            gc.freeze()
            gc.enable()
        with exit_on_signals():  # SIGTERM, SIGHUP: the cleanup of worker processes still runs
            return args._run(args)
    except ConfigError as e:
        print(f"jaxlint: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as e:  # a bug in jaxlint: one line (exit 2, not 1, which means findings)
        if getattr(args, "verbose", False):
            import traceback

            traceback.print_exc()
        what = " ".join(str(e).split())[:300]
        print(f"jaxlint: internal error: {type(e).__name__}{': ' + what if what else ''}"
              + ("" if getattr(args, "verbose", False) else " (run again with --verbose for the traceback)"),
              file=sys.stderr)
        return EXIT_ERROR
