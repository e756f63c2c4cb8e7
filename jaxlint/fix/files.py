"""Fixes and ``# noqa`` comments written into the checked files (``check --fix``,
``--diff``, ``--add-noqa``): each file read once, fixed until stable, verified, and
written atomically only when something changed (a notebook: only its changed cells).
"""
from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from jaxlint.findings.result import RunResult

Warn = Callable[[str], None]


@dataclass
class FixedFiles:
    """What ``fix_files`` did: the findings left, the fixes made per file, the diffs
    (``--diff``) and, on stdin, the code to print."""

    remaining: list = field(default_factory=list)
    applied: dict[str, Counter] = field(default_factory=dict)
    diffs: list[str] = field(default_factory=list)
    stdin_out: bytes | None = None

    @property
    def count(self) -> int:
        return sum(sum(c.values()) for c in self.applied.values())


def fix_files(tasks: Sequence, result: RunResult, *, unsafe: bool, diff: bool, stdin: bytes | None,
              warn: Warn) -> FixedFiles:
    """Apply the fixes of ``result``'s findings (unsafe ones when ``unsafe``) to their
    files, or only compute the diffs (``diff``); ``stdin``: the bytes of the one file
    read from stdin, whose fixed code is returned instead of written. Write failures go
    to ``result.errors``; a notebook's cells are updated in ``result.notebooks``."""
    from jaxlint.files.cache import replace_file
    from jaxlint.diagnostic import Phase
    from jaxlint.fix.apply import applies, fix_until_stable, line_map, moved, read_target, without_declined
    from jaxlint.files.notebook import NotebookError
    from jaxlint.findings.engine import ParseError
    from jaxlint.static.checker import SourceError
    from jaxlint.static.runner import lint_task_text

    parse_codes = {ParseError.code}
    out = FixedFiles(stdin_out=stdin)  # what --fix prints for stdin: the input until a fix lands
    by_path: dict[str, list] = {}
    for d in result.diagnostics:
        by_path.setdefault(d.path, []).append(d)
    task_of = {t.display: t for t in tasks}
    for display, diags in by_path.items():
        task = task_of.get(display)
        if task is None or not any(applies(d, unsafe) for d in diags):
            out.remaining.extend(diags)
            continue
        try:
            src = read_target(task.path, stdin)
        except (OSError, SourceError, NotebookError) as e:
            warn(f"{display}: cannot fix: {e}")
            out.remaining.extend(diags)
            continue
        done = fix_until_stable(src.text, diags, functools.partial(lint_task_text, task), unsafe, path=display)
        for d in done.rejected:
            warn(f"{where(display, d.start.line, result)}:{d.start.column}: {d.code} fix skipped: "
                 "the file would not parse")
        for d, why in done.declined:
            warn(f"{where(display, d.start.line, result)}:{d.start.column}: {d.code} fix not made: {why}")
        if not done.converged:
            warn(f"{display}: fixes did not settle; some fixable findings remain")
        if done.capped:
            warn(f"{display}: stopped after {done.capped} fixes, the most one run makes in a file; run the "
                 "same command again to fix the rest")
        if done.text == src.text:  # nothing applied, or fixes that undid each other
            out.remaining.extend(without_declined(diags, done.declined))
            continue
        try:
            # a notebook's fixed code goes back into the cells it changed
            data = src.encode(done.text)
        except ValueError as e:  # UnicodeEncodeError included
            if isinstance(e, UnicodeEncodeError):
                result.errors.append(f"{display}: cannot encode the fixed code: {e}")
            else:
                warn(f"{display}: fixes not made: {e}")
            out.remaining.extend(diags)
            continue
        if diff:
            out.diffs.append(src.diff(display, done.text))
        elif stdin is not None:
            out.stdin_out = data
        else:
            try:
                replace_file(task.path, data)
            except OSError as e:
                result.errors.append(f"{display}: cannot write the fixed file: {e}")
                out.remaining.extend(diags)
                continue
        if display in result.notebooks:  # the report places the findings left in the new cells
            result.notebooks[display] = src.cells_after(done.text)
        out.applied[display] = Counter((d.code, d.name) for d in done.applied)
        # the re-check is static only: trace and compile findings follow their lines,
        # and again replace the static findings they supersede, as the dynamic phase did
        fixed = {id(d) for d in done.applied}
        lines = line_map(src.text, done.text)
        dynamic = [moved(d, lines) for d in diags if d.phase is not Phase.STATIC and id(d) not in fixed]
        static = done.remaining
        if dynamic:
            from jaxlint.findings.suppress import drop_superseded

            static, _ = drop_superseded(static, dynamic)
        # a notebook's cell that does not parse is blanked in what the re-check reads
        unparsed = [moved(d, lines) for d in diags if d.code in parse_codes]
        out.remaining.extend(static + dynamic + unparsed)
    return out


def fix_listing(applied: dict[str, Counter], verb: str) -> str:
    """``Fixed 3 findings:`` and, per file, how many of each rule (``--show-fixes``)."""
    n = sum(sum(c.values()) for c in applied.values())
    out = [f"{verb} {n} finding{'s' if n != 1 else ''}:"]
    for display in sorted(applied):
        out.append(f"- {display}:")
        for (code, name), k in sorted(applied[display].items()):
            out.append(f"    {k} × {code} ({name})")
    return "\n".join(out) + "\n"


def where(display: str, line: int, result: RunResult) -> str:
    """``path:line``, in a notebook ``path:cell N:line``."""
    cells = result.notebooks.get(display)
    hit = cells.locate(line) if cells is not None else None
    return f"{display}:cell {hit[0]}:{hit[1]}" if hit else f"{display}:{line}"


def add_noqa_files(tasks: Sequence, result: RunResult, warn: Warn) -> int:
    """Write ``# noqa: CODE`` on the line of every finding of ``result`` (merged into an
    existing noqa comment); returns how many were added. Write failures go to
    ``result.errors``."""
    from jaxlint.files.cache import replace_file
    from jaxlint.fix.apply import add_noqa_text, read_target
    from jaxlint.files.notebook import NotebookError
    from jaxlint.registry import rules_by_code
    from jaxlint.rule import PARSE_ERROR, about_noqa_comments
    from jaxlint.static.checker import SourceError

    by_code = rules_by_code()
    wanted: dict[str, dict[int, set[str]]] = {}
    # a notebook with a cell that does not parse still takes noqa comments in the others
    broken = {p for p in result.unparsed() if p not in result.notebooks}
    for d in result.diagnostics:
        rule = by_code.get(d.code)
        # findings about noqa comments are answered by editing the comment; a notebook cell
        # that does not parse takes none
        if d.path in broken or about_noqa_comments(rule) or (rule is not None and rule.role == PARSE_ERROR):
            continue
        line = d.noqa_line if d.noqa_line is not None else d.start.line
        wanted.setdefault(d.path, {}).setdefault(line, set()).add(d.code)
    for path in sorted(broken):
        warn(f"{path}: not changed: the file does not parse")
    task_of = {t.display: t for t in tasks}
    added = 0
    for display, lines in sorted(wanted.items()):
        task = task_of.get(display)
        if task is None:
            continue
        try:
            src = read_target(task.path)
        except (OSError, SourceError, NotebookError) as e:
            warn(f"{display}: not changed: {e}")
            continue
        out = add_noqa_text(src.text, lines)
        for line in out.skipped:
            warn(f"{where(display, line, result)}: no `# noqa` added: the line ends inside a string or a "
                 "line continuation")
        if out.added:
            try:
                replace_file(task.path, src.encode(out.text))
            except (OSError, UnicodeEncodeError) as e:
                result.errors.append(f"{display}: cannot write: {e}")
                continue
            except ValueError as e:  # a notebook's cells cannot take the edit
                warn(f"{display}: not changed: {e}")
                continue
            added += len(out.added)
    return added
