"""Human formats: ``concise`` (one line per finding) and ``full`` (source + caret + hint)."""
from __future__ import annotations

from jaxlint.diagnostic import Diagnostic
from jaxlint.output import OutputContext, register
from jaxlint.runner import RunResult
from jaxlint.textutil import split_lines

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_RED = "\x1b[31m"
_CYAN = "\x1b[36m"
_YELLOW = "\x1b[33m"
_BLUE = "\x1b[34m"


def _c(on: bool, code: str, s: str) -> str:
    return f"{code}{s}{_RESET}" if on else s


def starred(d: Diagnostic, unsafe_fixes: bool) -> bool:
    """Whether ``--fix`` (with the given ``--unsafe-fixes``) would fix ``d``: ruff's ``[*]``."""
    return d.fix is not None and (unsafe_fixes or d.fix.applicability.value == "safe")


def location(path: str, cell: int | None, line: int, column: int) -> str:
    """``path:line:col``, or in a notebook ``path:cell N:line:col`` (ruff's form)."""
    return f"{path}:cell {cell}:{line}:{column}" if cell is not None else f"{path}:{line}:{column}"


def _head(d: Diagnostic, ctx: OutputContext) -> str:
    where = location("", d.cell, d.start.line, d.start.column)
    loc = f"{_c(ctx.color, _BOLD, d.path)}{where}:"
    code = _c(ctx.color, _RED + _BOLD, d.code)
    fixable = " [*]" if starred(d, ctx.unsafe_fixes) else ""
    return f"{loc} {code}{fixable} {d.message}"


def _summary(result: RunResult, ctx: OutputContext) -> list[str]:
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
    else:
        lines.append("All checks passed!")
    lines.extend(result.notes)
    return lines


@register("concise")
def concise(result: RunResult, ctx: OutputContext) -> str:
    out = [_head(d, ctx) for d in result.diagnostics]
    if not ctx.quiet:
        out.extend(_summary(result, ctx))
    return "".join(line + "\n" for line in out)


@register("full")
def full(result: RunResult, ctx: OutputContext) -> str:
    from jaxlint.registry import rules_by_code

    rules = rules_by_code()
    out: list[str] = []
    split: dict[str, list[str]] = {}  # once per file, not per finding
    for d in result.diagnostics:
        out.append(_head(d, ctx))
        src = ctx.sources.get(d.path if d.cell is None else f"{d.path}:cell {d.cell}")
        if src is not None:
            lines = split.get(d.path)
            if lines is None:
                lines = split[d.path] = split_lines(src)
            if 1 <= d.start.line <= len(lines):
                text = lines[d.start.line - 1]
                gutter = f"{d.start.line:>4} | "
                out.append(_c(ctx.color, _BLUE, "     |"))
                out.append(_c(ctx.color, _BLUE, gutter) + text)
                width = (d.end.column - d.start.column) if d.end.line == d.start.line else len(text) - d.start.column + 1
                caret = " " * (d.start.column - 1) + "^" * max(1, width)
                out.append(_c(ctx.color, _BLUE, "     | ") + _c(ctx.color, _RED, caret))
        for r in d.related:
            out.append(f"     = related: {location(r.path, r.cell, r.start.line, r.start.column)}: {r.message}")
        rule = rules.get(d.code)
        if rule is not None and rule.fix_hint:
            out.append(_c(ctx.color, _CYAN, f"     = help: {rule.fix_hint}"))
        if d.fix is not None:
            out.append(_c(ctx.color, _CYAN, f"     = fix ({d.fix.applicability.value}): {d.fix.message}"))
        if d.data:
            figures = ", ".join(f"{k}={v}" for k, v in sorted(d.data.items()) if not isinstance(v, (dict, list)))
            if figures:
                out.append(f"     = data: {figures}")
        out.append("")
    if not ctx.quiet:
        out.extend(_summary(result, ctx))
    return "".join(line + "\n" for line in out)
