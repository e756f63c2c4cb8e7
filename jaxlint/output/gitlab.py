"""``gitlab``: a GitLab Code Quality report (a JSON array of issues with fingerprints)."""
from __future__ import annotations

import json

from jaxlint.diagnostic import Severity
from jaxlint.output.context import OutputContext, register
from jaxlint.output.shared import InFile, cell_note, fingerprints, report_paths
from jaxlint.findings.result import RunResult


GITLAB_SEVERITIES = {Severity.INFO: "info", Severity.WARNING: "major", Severity.ERROR: "critical"}


@register("gitlab")
def gitlab(result: RunResult, ctx: OutputContext) -> str:
    from jaxlint.registry import rules_by_code

    known = rules_by_code()
    paths = report_paths(result.diagnostics, ctx)
    in_file = InFile(ctx.cwd)
    issues = []
    for d, path, fp in zip(result.diagnostics, paths, fingerprints(result.diagnostics, paths)):
        start, end = in_file.span(d.path, d.cell, d.start, d.end)
        where = f" ({cell_note(d)})" if d.cell is not None else ""
        issue: dict = {
            "type": "issue",
            "description": f"{d.code} {d.message}{where}",
            "check_name": d.code,
            "fingerprint": fp,
            "severity": GITLAB_SEVERITIES[d.severity],
            "location": {"path": path, "lines": {"begin": start.line, "end": end.line}},
        }
        rule = known.get(d.code)
        if rule is not None and rule.fix_hint:
            issue["content"] = {"body": f"{rule.fix_hint} ({rule.url()})"}
        issues.append(issue)
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
