"""The page of a ``check --dynamic`` run (``--report FILE``): one row per function with
its equations, constants, compile time, flops, temporary memory and findings;
``FILE.json`` writes the rows as JSON instead of HTML."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from jaxlint.diagnostic import Diagnostic


def write_run_report(out: Path, report, dynamic: Sequence[Diagnostic]) -> None:
    """The run's page: every function of ``report`` with what it measured, and the
    dynamic findings the run reports (``dynamic``)."""
    rows = [{"path": f.path, "qualname": f.qualname, "line": f.line, "status": f.status,
             "reason": f.reason, "seconds": round(f.seconds, 4), "report": f.report} for f in report.functions]
    # a file that could not be imported is a failure of its own, as the summary counts it
    lines = {d.path: d.start.line for d in report.diagnostics if (d.data or {}).get("function") is None
             and d.phase.value == "trace"}
    rows += [{"path": path, "qualname": "(module)", "line": lines.get(path, 1), "status": "failed",
              "reason": reason, "seconds": 0.0, "report": None} for path, reason in report.files_failed]
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".json":  # for CI and benchmarks
        data = {"functions": rows, "versions": report.versions, "diagnostics": [d.to_dict() for d in dynamic]}
        out.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    else:
        from jaxlint.inspect.html import render_run

        out.write_text(render_run(rows, list(dynamic)), encoding="utf-8")
