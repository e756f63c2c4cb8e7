"""``github``: GitHub Actions workflow commands (``::warning file=...::message``),
one annotation per finding, with paths relative to the repository root."""
from __future__ import annotations

from collections import Counter

from jaxlint.diagnostic import Severity
from jaxlint.output.context import OutputContext, register
from jaxlint.output.shared import InFile, cell_note, related_lines, report_paths
from jaxlint.findings.result import RunResult

#: GitHub renders at most this many annotations of each level per step
GITHUB_ANNOTATIONS_PER_LEVEL = 10


GITHUB_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def github_data(s: str) -> str:
    """Escape the message part of a workflow command."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(s: str) -> str:
    """Escape a ``key=value`` property of a workflow command."""
    return github_data(s).replace(":", "%3A").replace(",", "%2C")


@register("github")
def github(result: RunResult, ctx: OutputContext) -> str:
    out = []
    paths = report_paths(result.diagnostics, ctx)
    in_file = InFile(ctx.cwd)
    for d, path in zip(result.diagnostics, paths):
        start, end = in_file.span(d.path, d.cell, d.start, d.end)
        title = f"jaxlint {d.code} ({d.name})" + (f" at {cell_note(d)}" if d.cell is not None else "")
        props = ",".join([
            f"file={github_property(path)}",
            f"line={start.line}",
            f"col={start.column}",
            f"endLine={end.line}",
            f"endColumn={end.column}",
            f"title={github_property(title)}",
        ])
        message = "\n".join([f"{d.code} {d.message}", *related_lines(d)])
        out.append(f"::{GITHUB_LEVELS[d.severity]} {props}::{github_data(message)}\n")
    levels = Counter(GITHUB_LEVELS[d.severity] for d in result.diagnostics)
    if any(n > GITHUB_ANNOTATIONS_PER_LEVEL for n in levels.values()):
        # plain text (not a workflow command) so it is always visible in the log
        counts = ", ".join(f"{n} {level}" for level, n in sorted(levels.items()))
        out.append(
            f"jaxlint: {len(result.diagnostics)} findings in total ({counts}); GitHub shows only "
            f"{GITHUB_ANNOTATIONS_PER_LEVEL} annotations of each level per step. "
            "Upload `--output-format sarif` to code scanning, or run with `--output-format concise`, "
            "to see all of them.\n"
        )
    return "".join(out)
