"""``jaxlint check``: the compile tier's part of the summary, and ``--report FILE``.

Runs after the dynamic phase (``dynamic_ext`` leaves its report on ``args``): lists
functions the compile tier did not compile and why, says when the configured backend
was absent, and writes the run's HTML page (one row per function, sortable).
"""
from __future__ import annotations

import argparse
import json
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
        measured = [f for f in rep.functions if f.report]
        skipped = [f for f in measured if f.report.get("compile_skipped")]
        for f in skipped:
            result.notes.append(f"  {f.path}:{f.line} {f.qualname}: {f.report['compile_skipped']}")
        absent = sorted({(f.report.get("requested_backend"), f.report["platform"]) for f in measured
                         if f.report.get("platform")
                         and not _same_backend(f.report.get("requested_backend"), f.report["platform"])})
        for want, got in absent:
            result.notes.append(f"  configured backend `{want}` is not present: compiled for {got}; "
                                f"findings that only hold on {want} were not reported")
        if getattr(args, "report", None):
            rows = [{"path": f.path, "qualname": f.qualname, "line": f.line, "status": f.status,
                     "reason": f.reason, "seconds": round(f.seconds, 4), "report": f.report} for f in rep.functions]
            # a file that could not be imported is a failure of its own, as the summary counts it
            lines = {d.path: d.start.line for d in rep.diagnostics if (d.data or {}).get("function") is None
                     and d.phase.value == "trace"}
            rows += [{"path": path, "qualname": "(module)", "line": lines.get(path, 1), "status": "failed",
                      "reason": reason, "seconds": 0.0, "report": None} for path, reason in rep.files_failed]
            dynamic = [d for d in result.diagnostics if d.phase.value in ("trace", "compile")]
            out = Path(args.report)
            out.parent.mkdir(parents=True, exist_ok=True)
            if out.suffix == ".json":  # for CI and benchmarks
                data = {"functions": rows, "versions": rep.versions, "diagnostics": [d.to_dict() for d in dynamic]}
                out.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
            else:
                from jaxlint.html_report import render_run

                out.write_text(render_run(rows, dynamic), encoding="utf-8")
        return None


def _same_backend(requested: str | None, platform: str) -> bool:
    if not requested:
        return True
    aliases = {"gpu": ("cuda", "rocm", "gpu"), "cuda": ("cuda", "gpu"), "rocm": ("rocm", "gpu")}
    return platform in aliases.get(requested, (requested,))


EXTENSION = CompileExtension()
