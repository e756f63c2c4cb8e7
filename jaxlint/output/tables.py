"""The run's summary tables (:class:`jaxlint.findings.result.Table`) as aligned text and as
Markdown; no format knows what a table is about."""
from __future__ import annotations

from jaxlint.findings.result import Table


def text_table(t: Table) -> list[str]:
    rows = [tuple(t.columns)] + [tuple(r) for r in t.rows]
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(t.columns))]

    def line(r) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()

    out = [f"{t.title}:", "  " + line(rows[0]), "  " + "  ".join("-" * w for w in widths)]
    out += ["  " + line(r) for r in rows[1:]]
    out += [f"  {n}" for n in t.notes]
    return out


def cell(text: str) -> str:
    """Markdown table cell: pipes escaped, lines joined."""
    return " ".join(str(text).replace("|", "\\|").split())


def markdown_table(t: Table, level: int = 3) -> list[str]:
    out = [f"{'#' * level} {t.title}", "", "| " + " | ".join(cell(c) for c in t.columns) + " |",
           "|" + "---|" * len(t.columns)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in t.rows]
    if t.notes:
        out += [""] + [cell(n) for n in t.notes]
    return out
