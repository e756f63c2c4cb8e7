"""``jaxlint check``: the compile tier's part of the summary, and ``--report FILE``.

Runs after the dynamic phase (``dynamic_ext`` leaves its report on ``args``): lists
functions the compile tier did not compile and why, says when the configured backend
was absent, and writes the run's HTML page (one row per function, sortable).
"""
from __future__ import annotations

import argparse
from pathlib import Path


class CompileExtension:
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--report", metavar="FILE", help="with --dynamic: write an HTML page of the run (one row per "
                                                        "function: equations, constants, compile time, flops, "
                                                        "temp memory, findings); FILE.json writes the rows as JSON")

    def overrides(self, args, o: dict) -> None:
        return None

    def after_static(self, args, tasks, result, outcomes) -> int | None:
        rep = getattr(args, "_dynamic_report", None)
        if rep is None:
            if getattr(args, "report", None):
                result.notes.append("--report: nothing to report without the dynamic phase (add --dynamic)")
            return None
        from jaxlint.compile.summary import summary_notes

        result.notes.extend(summary_notes(rep))
        if getattr(args, "report", None):
            from jaxlint.report.run import write_run_report

            write_run_report(Path(args.report), rep,
                             [d for d in result.diagnostics if d.phase.value in ("trace", "compile")])
        return None


EXTENSION = CompileExtension()
