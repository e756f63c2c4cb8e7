"""``check`` options that change files or gate on a baseline.

* ``--fix`` / ``--unsafe-fixes`` / ``--diff`` / ``--show-fixes``: apply the rules'
  fixes (:mod:`jaxlint.fix.apply`), or print them as a diff and write nothing. On stdin
  (``-``), ``--fix`` writes the fixed code to stdout (the report goes to stderr) and
  no file.
* ``--add-noqa``: suppress every current finding with a ``# noqa: CODE`` on its line.
* ``--write-baseline`` / ``--baseline`` / ``--prune-baseline``: record today's
  findings, fail only on new ones, drop entries no longer found (:mod:`jaxlint.baseline`).

Runs after the dynamic phase has joined its findings and before the report is
written; a file is written only when one of the writing options asks for it.
"""
from __future__ import annotations

import argparse
import functools
import sys
from collections import Counter
from pathlib import Path

from jaxlint.config import ConfigError


def _warn(msg: str) -> None:
    print(f"jaxlint: warning: {msg}", file=sys.stderr)


class _Fixing:
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        g = p.add_argument_group("fixes")
        g.add_argument("--fix", action="store_true", help="apply safe fixes, then report what remains")
        g.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix or --diff, apply unsafe fixes too (they may change behaviour)")
        g.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff and write nothing (exit 1 if there are any)")
        g.add_argument("--show-fixes", action="store_true", help="list the fixes applied, per file and rule")
        g.add_argument("--add-noqa", action="store_true",
                       help="add `# noqa: CODE` for every current finding to its line, and exit")
        b = p.add_argument_group("baseline")
        b.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE, and exit 0")
        b.add_argument("--baseline", metavar="FILE", help="report (and fail on) only findings not recorded in FILE")
        b.add_argument("--prune-baseline", action="store_true",
                       help="with --baseline, rewrite FILE without the entries no longer found")

    def overrides(self, args, o: dict) -> None:
        # --fix and --diff on stdin print the fixed code or the diff; --add-noqa has no
        # such output (ruff refuses it too)
        if args.add_noqa and list(args.paths) == ["-"]:
            raise ConfigError("--add-noqa cannot be used when reading from stdin")
        if args.add_noqa and (args.fix or args.diff):
            raise ConfigError("--add-noqa cannot be combined with --fix or --diff")
        if args.prune_baseline and not args.baseline:
            raise ConfigError("--prune-baseline needs --baseline FILE")
        if args.baseline and args.write_baseline:
            raise ConfigError("--baseline and --write-baseline cannot be combined")

    def after_static(self, args, tasks, result, outcomes) -> int | None:
        if args.add_noqa:
            return _add_noqa(tasks, result)
        if args.fix or args.diff:
            rc = _fix(args, tasks, result)
            if rc is not None:
                return rc
        if args.write_baseline:
            return _write_baseline(Path(args.write_baseline), result)
        if args.baseline:
            _apply_baseline(args, tasks, result)
        return None


# --------------------------------------------------------------------------- fixes
def _fix(args, tasks, result) -> int | None:
    from jaxlint.diagnostic import Phase
    from jaxlint.cache import replace_file
    from jaxlint.fix.apply import applies, fix_until_stable, line_map, moved, read_target, without_declined
    from jaxlint.notebook import NotebookError
    from jaxlint.static.runner import lint_task_text
    from jaxlint.static.checker import SourceError

    from jaxlint.registry import rule_for_role
    from jaxlint.rule import PARSE_ERROR

    parse_codes = {rule_for_role(PARSE_ERROR).code}
    unsafe = args.unsafe_fixes
    stdin = getattr(args, "stdin_bytes", None)
    stdin_out = stdin  # what --fix prints for stdin: the input until a fix lands
    by_path: dict[str, list] = {}
    for d in result.diagnostics:
        by_path.setdefault(d.path, []).append(d)
    task_of = {t.display: t for t in tasks}
    remaining = []
    applied: dict[str, Counter] = {}
    diffs: list[str] = []
    for display, diags in by_path.items():
        task = task_of.get(display)
        if task is None or not any(applies(d, unsafe) for d in diags):
            remaining.extend(diags)
            continue
        try:
            src = read_target(task.path, stdin)
        except (OSError, SourceError, NotebookError) as e:
            _warn(f"{display}: cannot fix: {e}")
            remaining.extend(diags)
            continue
        out = fix_until_stable(src.text, diags, functools.partial(lint_task_text, task), unsafe, path=display)
        for d in out.rejected:
            _warn(f"{_where(display, d.start.line, result)}:{d.start.column}: {d.code} fix skipped: "
                  "the file would not parse")
        for d, why in out.declined:
            _warn(f"{_where(display, d.start.line, result)}:{d.start.column}: {d.code} fix not made: {why}")
        if not out.converged:
            _warn(f"{display}: fixes did not settle; some fixable findings remain")
        if out.text == src.text:  # nothing applied, or fixes that undid each other
            remaining.extend(without_declined(diags, out.declined))
            continue
        try:
            # a notebook's fixed code goes back into the cells it changed
            data = src.encode(out.text)
        except ValueError as e:  # UnicodeEncodeError included
            if isinstance(e, UnicodeEncodeError):
                result.errors.append(f"{display}: cannot encode the fixed code: {e}")
            else:
                _warn(f"{display}: fixes not made: {e}")
            remaining.extend(diags)
            continue
        if args.diff:
            diffs.append(src.diff(display, out.text))
        elif stdin is not None:
            stdin_out = data
        else:
            try:
                replace_file(task.path, data)
            except OSError as e:
                result.errors.append(f"{display}: cannot write the fixed file: {e}")
                remaining.extend(diags)
                continue
        if display in result.notebooks:  # the report places the findings left in the new cells
            result.notebooks[display] = src.cells_after(out.text)
        applied[display] = Counter((d.code, d.name) for d in out.applied)
        # the re-check is static only: trace and compile findings follow their lines,
        # and again replace the static findings they supersede, as the dynamic phase did
        done = {id(d) for d in out.applied}
        where = line_map(src.text, out.text)
        dynamic = [moved(d, where) for d in diags if d.phase is not Phase.STATIC and id(d) not in done]
        static = out.remaining
        if dynamic:
            from jaxlint.supersede import drop_superseded

            static, _ = drop_superseded(static, dynamic)
        # a notebook's cell that does not parse is blanked in what the re-check reads
        unparsed = [moved(d, where) for d in diags if d.code in parse_codes]
        remaining.extend(static + dynamic + unparsed)
    n_applied = sum(sum(c.values()) for c in applied.values())
    if args.diff:
        sys.stdout.write("".join(diffs))
        sys.stdout.flush()
        verb = "Would fix"
        print(f"{verb} {n_applied} finding{'s' if n_applied != 1 else ''}.", file=sys.stderr)
        if args.show_fixes:
            sys.stderr.write(_fix_listing(applied, verb))
        return 2 if result.errors else (1 if diffs else 0)
    if stdin is not None:
        sys.stdout.buffer.write(stdin_out)
        sys.stdout.flush()
        args.stdout_taken = True
    result.diagnostics = sorted(remaining, key=lambda d: d.sort_key)
    if n_applied:
        lines = _fix_listing(applied, "Fixed") if args.show_fixes else (
            f"Fixed {n_applied} finding{'s' if n_applied != 1 else ''}.\n")
        if args.output_format in ("concise", "full"):
            result.notes.extend(lines.rstrip("\n").split("\n"))
        else:
            sys.stderr.write(lines)
    return None


def _fix_listing(applied: dict[str, Counter], verb: str) -> str:
    n = sum(sum(c.values()) for c in applied.values())
    out = [f"{verb} {n} finding{'s' if n != 1 else ''}:"]
    for display in sorted(applied):
        out.append(f"- {display}:")
        for (code, name), k in sorted(applied[display].items()):
            out.append(f"    {k} × {code} ({name})")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------ add-noqa
def _where(display: str, line: int, result) -> str:
    """``path:line``, in a notebook ``path:cell N:line``."""
    cells = result.notebooks.get(display)
    hit = cells.locate(line) if cells is not None else None
    return f"{display}:cell {hit[0]}:{hit[1]}" if hit else f"{display}:{line}"


def _unparsed_paths(result) -> set[str]:
    """Files the static phase could not parse (their findings say nothing of the rest)."""
    from jaxlint.registry import rule_for_role
    from jaxlint.rule import PARSE_ERROR

    code = rule_for_role(PARSE_ERROR).code
    return {d.path for d in result.diagnostics if d.code == code}


def _add_noqa(tasks, result) -> int:
    from jaxlint.cache import replace_file
    from jaxlint.fix.apply import add_noqa_text, read_target
    from jaxlint.notebook import NotebookError
    from jaxlint.registry import rules_by_code
    from jaxlint.rule import PARSE_ERROR, about_noqa_comments
    from jaxlint.static.checker import SourceError

    by_code = rules_by_code()
    wanted: dict[str, dict[int, set[str]]] = {}
    # a notebook with a cell that does not parse still takes noqa comments in the others
    broken = {p for p in _unparsed_paths(result) if p not in result.notebooks}
    for d in result.diagnostics:
        rule = by_code.get(d.code)
        # findings about noqa comments are answered by editing the comment; a notebook cell
        # that does not parse takes none
        if d.path in broken or about_noqa_comments(rule) or (rule is not None and rule.role == PARSE_ERROR):
            continue
        line = d.noqa_line if d.noqa_line is not None else d.start.line
        wanted.setdefault(d.path, {}).setdefault(line, set()).add(d.code)
    for path in sorted(broken):
        _warn(f"{path}: not changed: the file does not parse")
    task_of = {t.display: t for t in tasks}
    added = 0
    for display, lines in sorted(wanted.items()):
        task = task_of.get(display)
        if task is None:
            continue
        try:
            src = read_target(task.path)
        except (OSError, SourceError, NotebookError) as e:
            _warn(f"{display}: not changed: {e}")
            continue
        out = add_noqa_text(src.text, lines)
        for line in out.skipped:
            _warn(f"{_where(display, line, result)}: no `# noqa` added: the line ends inside a string or a "
                  "line continuation")
        if out.added:
            try:
                replace_file(task.path, src.encode(out.text))
            except (OSError, UnicodeEncodeError) as e:
                result.errors.append(f"{display}: cannot write: {e}")
                continue
            except ValueError as e:  # a notebook's cells cannot take the edit
                _warn(f"{display}: not changed: {e}")
                continue
            added += len(out.added)
    print(f"Added {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
    for err in result.errors:
        print(f"jaxlint: error: {err}", file=sys.stderr)
    return 2 if result.errors else 0


# ------------------------------------------------------------------------ baseline
def _write_baseline(path: Path, result) -> int:
    from jaxlint.baseline import Baseline

    # a measured finding that replaced several static ones stands for all of them
    b = Baseline.from_findings(result.diagnostics + result.superseded, path.resolve().parent, Path.cwd())
    try:
        b.write(path)
    except OSError as e:
        raise ConfigError(f"--write-baseline: cannot write {path}: {e.strerror or e}") from None
    n = len(result.diagnostics)
    print(f"jaxlint: wrote {n} finding{'s' if n != 1 else ''} ({len(b.counts)} entries) to {path}", file=sys.stderr)
    for err in result.errors:
        print(f"jaxlint: error: {err}", file=sys.stderr)
    return 2 if result.errors else 0


def _apply_baseline(args, tasks, result) -> None:
    from jaxlint.baseline import Baseline, compare, key_path
    from jaxlint.registry import select_rules

    path = Path(args.baseline)
    baseline = Baseline.load(path)
    base_dir, cwd = path.resolve().parent, Path.cwd()
    broken = _unparsed_paths(result)
    # staleness is judged only for static rules: the dynamic phase may skip a function
    static_codes: dict[int, frozenset[str]] = {}
    judged: dict[str, frozenset[str]] = {}
    for t in tasks:
        if t.display in broken:
            continue
        s = t.settings
        if id(s) not in static_codes:
            static_codes[id(s)] = frozenset(r.code for r in select_rules(s.select, s.extend_select, s.ignore,
                                                                          ("static",)))
        judged[key_path(t.display, base_dir, cwd)] = static_codes[id(s)]
    cmp = compare(baseline, result.diagnostics, base_dir, cwd, judged, result.superseded)
    result.diagnostics = cmp.new
    if cmp.matched:
        result.notes.append(f"{cmp.matched} baselined finding{'s' if cmp.matched != 1 else ''} not shown ({path}).")
    n_stale = sum(cmp.stale.values())
    if n_stale and args.prune_baseline:
        baseline.without(cmp.stale).write(path)
        print(f"jaxlint: baseline: pruned {n_stale} finding{'s' if n_stale != 1 else ''} no longer found "
              f"from {path}", file=sys.stderr)
    elif n_stale:
        print(f"jaxlint: baseline: {n_stale} finding{'s' if n_stale != 1 else ''} in {path} no longer found "
              f"(stale); drop them with --prune-baseline", file=sys.stderr)


EXTENSION = _Fixing()
