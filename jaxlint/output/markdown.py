"""``markdown``: the findings and the summary tables (the cost budgets) as Markdown, for
a pull-request comment (``check --output-format markdown``, ``--budget-report FILE``)."""
from __future__ import annotations

from jaxlint.output.context import OutputContext, register
from jaxlint.output.concise import location
from jaxlint.output.tables import cell, markdown_table
from jaxlint.findings.result import RunResult


@register("markdown")
def markdown(result: RunResult, ctx: OutputContext) -> str:
    n = len(result.diagnostics)
    out = ["## jaxlint", ""]
    if n:
        out += [f"{n} finding{'s' if n != 1 else ''}.", "", "| where | code | message |", "|---|---|---|"]
        for d in result.diagnostics:
            where = f"{d.path}{location('', d.cell, d.start.line, d.start.column)}"
            out.append(f"| `{cell(where)}` | {d.code} | {cell(d.message)} |")
    else:
        out.append("All checks passed!")
    for t in result.tables:
        out += [""] + markdown_table(t)
    if result.notes and not ctx.quiet:
        out += [""] + [f"* {cell(n)}" for n in result.notes if n.strip()]
    return "\n".join(out) + "\n"
