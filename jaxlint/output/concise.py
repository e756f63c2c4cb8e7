"""``concise``: one line per finding (``path:line:col: CODE message``), then the summary."""
from __future__ import annotations

from jaxlint.diagnostic import Diagnostic
from jaxlint.output.context import OutputContext, register
from jaxlint.findings.result import RunResult

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
RED = "\x1b[31m"
CYAN = "\x1b[36m"
BLUE = "\x1b[34m"


def paint(on: bool, code: str, s: str) -> str:
    return f"{code}{s}{RESET}" if on else s


def starred(d: Diagnostic, unsafe_fixes: bool) -> bool:
    """Whether ``--fix`` (with the given ``--unsafe-fixes``) would fix ``d``: ruff's ``[*]``."""
    return d.fix is not None and (unsafe_fixes or d.fix.applicability.value == "safe")


def location(path: str, cell: int | None, line: int, column: int) -> str:
    """``path:line:col``, or in a notebook ``path:cell N:line:col`` (ruff's form)."""
    return f"{path}:cell {cell}:{line}:{column}" if cell is not None else f"{path}:{line}:{column}"


def head(d: Diagnostic, ctx: OutputContext) -> str:
    where = location("", d.cell, d.start.line, d.start.column)
    loc = f"{paint(ctx.color, BOLD, d.path)}{where}:"
    code = paint(ctx.color, RED + BOLD, d.code)
    fixable = " [*]" if starred(d, ctx.unsafe_fixes) else ""
    return f"{loc} {code}{fixable} {d.message}"


def summary(result: RunResult, ctx: OutputContext) -> list[str]:
    n = len(result.diagnostics)
    lines = []
    if n:
        fixable = sum(1 for d in result.diagnostics if d.fix is not None)
        lines.append(f"Found {n} finding{'s' if n != 1 else ''}.")
        if fixable:
            safe = sum(1 for d in result.diagnostics if starred(d, False))
            if ctx.unsafe_fixes:
                lines.append(f"[*] {fixable} fixable with `jaxlint check --fix --unsafe-fixes`.")
            else:
                if safe:
                    lines.append(f"[*] {safe} fixable with `jaxlint check --fix`.")
                if fixable - safe:
                    lines.append(f"{fixable - safe} more fixable with `--fix --unsafe-fixes`.")
    elif not result.errors:  # a run that failed passed nothing
        lines.append("All checks passed!")
    lines.extend(result.notes)
    if result.tables:
        from jaxlint.output.tables import text_table

        for t in result.tables:
            lines.extend(text_table(t))
    return lines


@register("concise")
def concise(result: RunResult, ctx: OutputContext) -> str:
    out = [head(d, ctx) for d in result.diagnostics]
    if not ctx.quiet:
        out.extend(summary(result, ctx))
    return "".join(line + "\n" for line in out)
