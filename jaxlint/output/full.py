"""``full``: each finding with its source line, a caret under it, related places, the
rule's fix hint, its fix and its measured figures; then the summary."""
from __future__ import annotations

from jaxlint.output.context import OutputContext, register
from jaxlint.output.concise import BLUE, CYAN, RED, head, location, paint, summary
from jaxlint.findings.result import RunResult
from jaxlint.textutil import split_lines


@register("full")
def full(result: RunResult, ctx: OutputContext) -> str:
    from jaxlint.registry import rules_by_code

    rules = rules_by_code()
    out: list[str] = []
    split: dict[str, list[str]] = {}  # once per file (per cell), not per finding
    for d in result.diagnostics:
        out.append(head(d, ctx))
        key = d.path if d.cell is None else f"{d.path}:cell {d.cell}"  # a notebook's lines are its cell's
        src = ctx.sources.get(key)
        if src is not None:
            lines = split.get(key)
            if lines is None:
                lines = split[key] = split_lines(src)
            if 1 <= d.start.line <= len(lines):
                text = lines[d.start.line - 1]
                gutter = f"{d.start.line:>4} | "
                out.append(paint(ctx.color, BLUE, "     |"))
                out.append(paint(ctx.color, BLUE, gutter) + text)
                width = (d.end.column - d.start.column) if d.end.line == d.start.line else len(text) - d.start.column + 1
                caret = " " * (d.start.column - 1) + "^" * max(1, width)
                out.append(paint(ctx.color, BLUE, "     | ") + paint(ctx.color, RED, caret))
        for r in d.related:
            out.append(f"     = related: {location(r.path, r.cell, r.start.line, r.start.column)}: {r.message}")
        rule = rules.get(d.code)
        if rule is not None and rule.fix_hint:
            out.append(paint(ctx.color, CYAN, f"     = help: {rule.fix_hint}"))
        if d.fix is not None:
            out.append(paint(ctx.color, CYAN, f"     = fix ({d.fix.applicability.value}): {d.fix.message}"))
        if d.data:
            figures = ", ".join(f"{k}={v}" for k, v in sorted(d.data.items()) if not isinstance(v, (dict, list)))
            if figures:
                out.append(f"     = data: {figures}")
        out.append("")
    if not ctx.quiet:
        out.extend(summary(result, ctx))
    return "".join(line + "\n" for line in out)
