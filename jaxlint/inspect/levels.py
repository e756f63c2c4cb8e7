"""The analysis levels past the trace, and the rules, handed to whoever runs an analysis.

:mod:`jaxlint.dynamic` runs the analysers it is given and imports no level itself
(tests/test_architecture.py): ``compile`` is the compile tier's
(:func:`jaxlint.compile.analyser.compile_function`), ``ir`` keeps each stage's text for
``jaxlint inspect`` (:func:`jaxlint.inspect.programs.keep_ir`). This module hands them to
the ``check --dynamic`` worker (whose process runs this module) and to the observer of
``jaxlint record`` (its start-up shim passes :func:`analysers` to the recorder).

The rules reach the registry the same way (:func:`hand_rules`, which the CLI, the worker
and the shim call): the engine imports no rule (tests/test_architecture.py).

Importing it costs nothing: the levels (and jax) are imported when first asked for, the
rules when a rule is first needed.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import Analysers
    from jaxlint.registry import RulePack


def builtin_rules() -> RulePack:
    """jaxlint's rules (``jaxlint.rules``, imported when the registry first needs one)."""
    from jaxlint import rules

    return rules.PACK


def hand_rules() -> None:
    """Hand the registry jaxlint's rules: what each process of jaxlint does first."""
    from jaxlint import registry

    registry.provide(builtin_rules)


def analysers() -> Analysers:
    """Level -> its analysers (imports the compile tier, and so jax)."""
    from jaxlint.compile.analyser import compile_function
    from jaxlint.inspect.programs import keep_ir

    return {"compile": (compile_function,), "ir": (keep_ir,)}


def main() -> int:
    """A ``check --dynamic`` worker that can run every level."""
    from jaxlint.dynamic.worker import main as worker_main

    hand_rules()
    return worker_main(analysers)


if __name__ == "__main__":
    sys.exit(main())
