"""Cost budgets: the committed ``jaxlint-budgets.json`` and the gate that holds each
compiled function to it (``check --dynamic --compile``, ``jaxlint budget update``).

Never imports jax and compiles nothing: the figures are the ones the compile tier
already measured for the run (``report["budget"]`` of each function, see
:mod:`jaxlint.compile.figures`), from a program ``jaxlint record --compile`` observed
first and from the workers for the rest, cached or not, exactly as ``check`` reports them.

The file: ``{"format": 1, "functions": {"pkg.mod:qualname": {"<argument signature>":
entry}}}`` with an entry ``{"figures", "compile_seconds", "environment", "largest",
"loops"}``; keys are the function's module and qualified name and the argument
signature, never a line; written with sorted keys and no timestamps, so an update
that measures the same figures changes no byte and a change is a reviewable diff.

What a figure going up means is the budget rule's (``Rule.role == BUDGET``, a
``BudgetRule``): the engine finds it by role, asks it to assess each function's figures
and calls its ``check`` with a :class:`BudgetContext`, which it reports through (at the
function's jit line); the summary table goes to ``RunResult.tables`` for every format.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from jaxlint.compile.hlo import SourceLocation
from jaxlint.config import ConfigError
from jaxlint.diagnostic import Diagnostic, Position, Related, Severity
from jaxlint.findings.result import Table

FORMAT = 1
TITLE = "Cost budgets"
COLUMNS = ("function", "metric", "budget", "now", "change", "status")
#: environment keys shown when budgets are out of date, in this order
_ENV_SHOWN = ("jax", "jaxlib", "backend", "target", "device_kind", "devices", "xla_flags", "x64")


@dataclass
class Measured:
    """One compiled function of this run and what the compile tier measured."""

    key: str  # module:qualname
    qualname: str
    path: str  # display path of its file
    line: int  # its jit line
    budget: dict  # report["budget"]
    versions: dict

    @property
    def signature(self) -> str:
        return str(self.budget.get("signature", "()"))


@dataclass
class BudgetContext:
    """What the budget rule sees of one measured function held against its committed
    budget, and how it reports: its ``check(ctx)`` reads :attr:`budget`, :attr:`now` and
    :attr:`assessed` and calls :meth:`report`, as a rule of every tier does. The gate
    builds one per function and signature (:func:`gate`)."""

    #: the function this run measured: its key, qualified name, signature and jit line
    function: Measured
    #: its entry in the budgets file (None: no budget for this signature)
    budget: Mapping[str, Any] | None
    #: the rule's ``assess`` of each figure against :attr:`budget` (empty without one)
    assessed: Sequence[Any]
    #: the rule reporting (its code, name and phase go into each finding)
    rule: Any
    #: where the findings go (the gate hands the run's list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def now(self) -> Mapping[str, Any]:
        """What the compile tier measured this run (``report["budget"]``)."""
        return self.function.budget

    def related(self, where: SourceLocation, message: str) -> Related | None:
        """A related location of a finding (a loop, a grown buffer), or None when
        ``where`` is no file here (figures measured where the source was elsewhere)."""
        from jaxlint.files.discovery import display_path

        if not where.file or not where.line or not Path(where.file).is_file():
            return None
        pos = Position(int(where.line), 1)
        return Related(display_path(Path(where.file).absolute()), pos, pos, message)

    def report(self, where: SourceLocation | None, message: str, *, severity: Severity | None = None,
               data: Mapping[str, Any] | None = None, related: Iterable[Related] = (), key: str = "",
               measured: str = "") -> None:
        """Report a finding at ``where`` (the function's jit line when None). ``key``:
        what tells this finding from the rule's others in the function, line-independent
        (e.g. the signature), for the baseline; ``measured`` as a compile finding's."""
        from jaxlint.files.discovery import display_path
        from jaxlint.findings.measured import MeasuredIn, measured_diagnostic

        m = self.function
        path, start = (m.path, Position(m.line, 1)) if where is None else \
            (display_path(Path(where.file).absolute()), Position(where.line, where.column or 1))
        self.diagnostics.append(measured_diagnostic(
            self.rule, MeasuredIn(m.qualname, dict(m.versions)), message=message, path=path, start=start,
            end=start, key=key, severity=severity, related=tuple(dict.fromkeys(related)), data=data,
            measured=measured))


def dumps(data: Any) -> str:
    """Stable JSON: sorted keys, two-space indent, a final newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def load(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"format": FORMAT, "functions": {}}
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the cost budgets: {e}") from None
    fns = data.get("functions") if isinstance(data, dict) else None
    if not isinstance(fns, dict) or not all(isinstance(v, dict) and all(isinstance(e, dict) for e in v.values())
                                            for v in fns.values()):
        raise ConfigError(f"{path}: not a jaxlint budgets file (a `functions` table of signatures to entries); "
                          "make it with `jaxlint budget update`")
    if data.get("format") != FORMAT:
        raise ConfigError(f"{path}: budgets format {data.get('format')!r}, this jaxlint reads {FORMAT}: "
                          "re-make it with `jaxlint budget update`")
    return data


def budgets_path(run: Any) -> Path:
    """``--budgets FILE``, else ``[tool.jaxlint.dynamic] budgets`` at the project root."""
    from jaxlint.dynamic import project

    if run.options.budgets:
        return Path(run.options.budgets).absolute()
    task = run.dynamic_tasks()[0]
    s = task.settings
    root = project.project_root(task.path, s.root if s.config_file else None)
    return root / s.dynamic.budgets


def unmeasured(report) -> list[tuple[str, str]]:
    """(function, why) for compiled functions without budget figures: observed by a
    `jaxlint record --compile` older than budgets, or whose figures failed."""
    out = []
    for f in report.functions:
        rep = f.report or {}
        if f.status == "analysed" and "compile_seconds" in rep and not isinstance(rep.get("budget"), dict):
            why = (f"no figures: {rep['budget_error']}" if rep.get("budget_error") else
                   "no figures (recorded before cost budgets): run `jaxlint record --compile` again")
            out.append((f"{f.module}:{f.qualname}" if f.module else f.qualname, why))
    return out


def measured(report) -> list[Measured]:
    """Functions of a dynamic report the compile tier measured, in report order."""
    out, seen = [], set()
    for f in report.functions:
        b = (f.report or {}).get("budget")
        if f.status != "analysed" or not isinstance(b, dict) or not f.module:
            continue
        m = Measured(f"{f.module}:{f.qualname}", f.qualname, f.path, f.line, b, dict(report.versions or {}))
        if (m.key, m.signature) not in seen:
            seen.add((m.key, m.signature))
            out.append(m)
    return out


def entry_of(b: dict) -> dict:
    """What the budgets file keeps of a measurement: no line, no path, no time of day."""
    return {
        "figures": dict(b.get("figures") or {}),
        "compile_seconds": b.get("compile_seconds"),
        "environment": dict(b.get("environment") or {}),
        # one line each in the file, so that the diff of an update is one line per change
        "largest": [f"{i.get('kind')} {i.get('shape')} = {i.get('amount')} ({i.get('op')})" for i in b.get("largest") or ()],
        "loops": [{k: lp.get(k) for k in ("op", "trip_count")} for lp in b.get("loops") or ()],
    }


def environment_text(env: dict) -> str:
    return ", ".join(f"{k} {env[k]!r}" if k in ("xla_flags",) else f"{k} {env[k]}"
                     for k in _ENV_SHOWN if k in env and env[k] not in ("", None))


def env_difference(old: dict, new: dict) -> str:
    keys = [k for k in dict.fromkeys([*_ENV_SHOWN, *old, *new]) if old.get(k) != new.get(k)]
    return "; ".join(f"{k} {old.get(k, '-')!s} -> {new.get(k, '-')!s}" for k in keys)


# ---------------------------------------------------------------------------- update
def update(data: dict, now: list[Measured], rule) -> tuple[dict, list[str]]:
    """The budgets with ``now``'s entries (others kept: a run over some files updates
    those); the lines that say what changed. An entry whose exact figures and
    environment are unchanged and whose compile time is within its ceiling is kept byte
    for byte, so updating twice changes nothing."""
    fns = {k: dict(v) for k, v in (data.get("functions") or {}).items()}
    changes = []
    for m in now:
        new = entry_of(m.budget)
        old = fns.get(m.key, {}).get(m.signature)
        name = f"{m.key} ({m.signature})"
        if old is None:
            changes.append(f"added {name}")
        elif _keeps(old, new, rule):
            continue
        else:
            if old.get("environment") != new["environment"]:
                why = f"re-measured: {env_difference(old.get('environment') or {}, new['environment'])}"
            else:
                moved = [a for a in rule.assess(m.key, old, new) if a.status in ("over", "lower", "within", "new")]
                why = ", ".join(f"{a.metric} {_amount(a.metric, a.budget)} -> {_amount(a.metric, a.now)}"
                                for a in moved) or "the largest buffers and ops changed"
            changes.append(f"updated {name}: {why}")
        fns.setdefault(m.key, {})[m.signature] = new
    return {"format": FORMAT, "functions": fns}, changes


def _keeps(old: dict, new: dict, rule) -> bool:
    if old.get("environment") != new["environment"] or old.get("figures") != new["figures"]:
        return False
    if old.get("loops") != new["loops"] or old.get("largest") != new["largest"]:
        return False
    a = [x for x in rule.assess("", old, new) if x.metric == "compile_seconds"]
    return not a or a[0].status == "same"


# ---------------------------------------------------------------------------- the gate
def gate(data: dict, now: list[Measured], rule, command: str) -> tuple[list[tuple[str, ...]], list[Diagnostic], int]:
    """(table rows, the rule's findings, how many out of date): each measured function
    held against its entry; ``command`` re-measures out-of-date budgets."""
    from jaxlint.textutil import figure as amount, signed_percent as signed

    rows: list[tuple[str, ...]] = []
    findings: list[Diagnostic] = []
    stale = 0
    fns = data.get("functions") or {}
    for m in now:
        shown = m.key if len(_signatures(now, m.key)) == 1 else f"{m.key} ({m.signature})"
        entry = fns.get(m.key, {}).get(m.signature)
        if entry is None:
            rows.append((shown, "-", "-", "-", "-", "no budget"))
            rule.check(BudgetContext(m, None, [], rule, findings))
            continue
        env_now = m.budget.get("environment") or {}
        if entry.get("environment") != env_now:
            stale += 1
            rows.append((shown, "-", "-", "-", "-", f"out of date ({env_difference(entry.get('environment') or {}, env_now)}): "
                                                   f"re-measure with `{command}`"))
            continue
        assessed = rule.assess(m.key, entry, m.budget)
        moved = [a for a in assessed if a.status != "same"]
        for a in moved:
            status = {"over": "FAIL", "lower": "budget can be lowered", "within": "within tolerance",
                      "new": "new figure"}[a.status]
            rows.append((shown, a.metric, amount(a.metric, a.budget), amount(a.metric, a.now),
                         "-" if a.status == "new" else signed(a.change), status))
        if not moved:
            rows.append((shown, "all", "-", "-", "0 %", "ok"))
        rule.check(BudgetContext(m, entry, assessed, rule, findings))
    return rows, findings, stale


def _signatures(now: list[Measured], key: str) -> set[str]:
    return {m.signature for m in now if m.key == key}


def _amount(metric: str, value) -> str:
    from jaxlint.textutil import figure

    return figure(metric, value)


def stage(run: Any) -> int | None:
    """The pipeline's budget stage: after the dynamic phase, before supersede (its
    findings get noqa comments, per-file-ignores and baselines like any other)."""
    o = run.options
    report = run.dynamic
    if report is None or "compile" not in run.levels:
        if o.update_budgets:
            raise ConfigError("--update-budgets needs the compile tier: add --dynamic --compile "
                              "(or run `jaxlint budget update`)")
        return None
    from jaxlint.registry import active_rules
    from jaxlint.rule import BUDGET

    settings = run.dynamic_tasks()[0].settings
    rule = next((r for r in active_rules(settings, tuple(run.levels)) if r.role == BUDGET), None)
    path = budgets_path(run)
    if rule is None:
        if o.update_budgets:  # deselected: judge nothing, still keep the figures
            from jaxlint.registry import rule_for_role

            rule = rule_for_role(BUDGET)()
        else:
            return None
    now = measured(report)
    if o.update_budgets:
        if report.errors:  # a run that failed updates nothing
            print("jaxlint: budgets: not updated: the dynamic phase failed", file=sys.stderr)
            return None
        data, changes = update(load(path), now, rule)
        text = dumps(data)
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if text != old:
            from jaxlint.files.cache import atomic_write

            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text.encode("utf-8"))
        from jaxlint.files.discovery import display_path

        shown = display_path(path)
        for line in changes:
            print(f"jaxlint: budgets: {line}", file=sys.stderr)
        print(f"jaxlint: budgets: {len(now)} function{'s' if len(now) != 1 else ''} measured, {len(changes)} "
              f"change{'s' if len(changes) != 1 else ''} written to {shown}" if text != old else
              f"jaxlint: budgets: {len(now)} function{'s' if len(now) != 1 else ''} measured, {shown} unchanged",
              file=sys.stderr)
        return None
    if not path.is_file() and not rule.opts["require-budgets"] and not o.budget_report:
        return None  # no budgets in this project: nothing to gate
    data = load(path)
    command = "jaxlint budget update" + (f" --budgets {o.budgets}" if o.budgets else "")
    rows, findings, stale = gate(data, now, rule, command)
    rows += [(name, "-", "-", "-", "-", why) for name, why in unmeasured(report)]
    report.diagnostics.extend(findings)
    notes = []
    if stale:
        notes.append(f"{stale} budget{'s' if stale != 1 else ''} measured in another environment: not compared "
                     f"(re-measure with `{command}`)")
    notes.append(f"budgets: {path.name if path.is_file() else f'{path.name} (none yet)'}")
    run.result.tables.append(Table(TITLE, COLUMNS, rows, notes))
    return None

