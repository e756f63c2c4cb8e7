"""Cost budgets: the committed ``jaxlint-budgets.json`` and the gate that holds each
compiled function to it (``check --dynamic --compile``, ``jaxlint budget update``).

Never imports jax and compiles nothing: the figures are the ones the compile tier
already measured for the run (``report["budget"]`` of each function, see
:mod:`jaxlint.compile.figures`), from a program ``jaxlint record --compile`` observed
first and from the workers for the rest, cached or not, exactly as ``check`` reports them.

The file: ``{"format": 2, "functions": {"pkg.mod:qualname": entry}}`` with an entry
``{"signature", "figures", "compile_seconds", "environment", "largest", "loops"}``. A
budget belongs to the function: its key is the function's module and qualified name,
plus a short tag (the argument leaves that tell them apart: ``pkg.mod:step (x[32,784])``)
only where one run measures the function with several signatures (train and eval batch
sizes, bucketed lengths); the full signature is inside the entry, one leaf a line. A
function measured with other shapes than its budget's is compared with it (the table
and the finding show the shape change); see :func:`pair` and docs/budgets.md. Never a
line; written with sorted keys and no timestamps, so an update that measures the same
figures changes no byte and a change is a reviewable diff. Format 1 files (keyed by
signature) are read and rewritten as format 2 by the next update.

What a figure going up means is the budget rule's (``Rule.role == BUDGET``, a
``BudgetRule``): the engine finds it by role, asks it to assess each function's figures
and calls its ``check`` with a :class:`BudgetContext`, which it reports through (at the
function's jit line); the summary table goes to ``RunResult.tables`` for every format.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from jaxlint.compile.hlo import SourceLocation
from jaxlint.config import ConfigError
from jaxlint.config.errors import named as key_text, shown
from jaxlint.diagnostic import Diagnostic, Position, Related, Severity
from jaxlint.findings.result import Table

FORMAT = 2
#: budgets files this jaxlint reads (1: keyed by function and signature)
READS = (1, 2)
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
    #: its key in the budgets file (the gate sets it: the function, tagged where it has several signatures)
    name: str = ""

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
    #: how the arguments' shapes changed since the budget ("512 -> 1024 in w1, b1"; "": the same)
    shapes: str = ""
    #: what changed under the function's `jaxlint record` observation ("": it is current): the
    #: figures rest on a recording of other code (record again)
    outdated: str = ""

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
    """The budgets file at ``path`` (empty when there is none), read as every untrusted
    input is (:mod:`jaxlint.files.untrusted`: no FIFO, no endless file, no deep nesting)
    and checked entry by entry (:func:`_damage`): a figure that is not a finite number
    >= 0, or a value of the wrong type, is a ``ConfigError`` naming the file and the key."""
    from jaxlint.files import untrusted

    try:
        data = untrusted.read_json(path, "the cost budgets")
    except FileNotFoundError:
        if os.path.lexists(path):
            raise ConfigError(f"{path}: cannot read the cost budgets: a symlink to a missing file "
                              f"({os.readlink(path)}): restore it, or remove the link") from None
        return {"format": FORMAT, "functions": {}}
    fns = data.get("functions") if isinstance(data, dict) else None
    if isinstance(data, dict) and data.get("format") not in READS:
        raise ConfigError(f"{path}: budgets format {shown(data.get('format'))}, this jaxlint reads "
                          f"{' and '.join(map(str, READS))}: re-make it with `jaxlint budget update`")
    if not isinstance(fns, dict):
        raise ConfigError(f"{path}: not a jaxlint budgets file (a `functions` table of functions to entries); "
                          "make it with `jaxlint budget update`")
    v1 = data.get("format") == 1
    for key, value in fns.items():
        where = f"functions.{_quoted(key)}"
        if v1 and not isinstance(value, dict):
            why = f"`{where}` must be a table of signatures to entries, got {shown(value)}"
        else:
            why = next(filter(None, (_damage(f"{where}.{_quoted(sig)}", e, v1) for sig, e in value.items())), "") \
                if v1 else _damage(where, value, v1)
        if why:
            raise ConfigError(f"{path}: {why}; fix it or re-make it with `jaxlint budget update`")
    return upgrade(data)


#: the largest figure a budget holds (a program's flops are far below it; a 400-digit
#: number is a damaged file, and would overflow the comparison)
MAX_FIGURE = 1e30


def _quoted(key: Any) -> str:
    return f'"{key_text(key)}"' if isinstance(key, str) else shown(key)


def _number(where: str, v: Any, what: str) -> str:
    """"" when ``v`` is a figure a budget may hold, else what is wrong with it."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"`{where}` must be {what}, got {shown(v)}"
    if isinstance(v, float) and not math.isfinite(v):
        return f"`{where}` must be a finite number, got {shown(v)}"
    if v < 0:
        return f"`{where}` must be 0 or more, got {shown(v)}"
    if v > MAX_FIGURE:
        return f"`{where}` is too large ({len(str(int(v)))} digits; at most {MAX_FIGURE:g})"
    return ""


def _damage(where: str, entry: Any, v1: bool) -> str:
    """What is wrong with one entry of the budgets file ("" when nothing is)."""
    if not isinstance(entry, dict):
        return f"`{where}` must be an entry (a table with `figures`), got {shown(entry)}"
    figures = entry.get("figures")
    if not isinstance(figures, dict):
        return f"`{where}.figures` must be a table of figures, got {shown(figures)}"
    for metric, v in figures.items():
        why = _number(f"{where}.figures.{_quoted(metric)}", v, "a number")
        if why:
            return why
    if entry.get("compile_seconds") is not None:
        why = _number(f"{where}.compile_seconds", entry["compile_seconds"], "a number of seconds")
        if why:
            return why
    sig = entry.get("signature", [])
    if not v1 and not isinstance(sig, str) and not (isinstance(sig, list) and all(isinstance(x, str) for x in sig)):
        return f"`{where}.signature` must be a list of strings (one argument leaf each), got {shown(sig)}"
    for k, t, what in (("environment", dict, "a table"), ("largest", list, "a list"), ("loops", list, "a list")):
        if k in entry and not isinstance(entry[k], t):
            return f"`{where}.{k}` must be {what}, got {shown(entry[k])}"
    if not all(isinstance(i, str) for i in entry.get("largest") or ()):
        return f"`{where}.largest` must be a list of strings"
    for i, lp in enumerate(entry.get("loops") or ()):
        trips = lp.get("trip_count") if isinstance(lp, dict) else None
        if not isinstance(lp, dict) or (trips is not None and (type(trips) is not int or _number("", trips, ""))):
            return f"`{where}.loops[{i}]` must be a table with an `op` and a whole `trip_count` >= 0, got {shown(lp)}"
    return ""


def upgrade(data: dict) -> dict:
    """A format 1 file (``{function: {signature: entry}}``) as format 2: each entry under
    its function's key (tagged where the function had several), its signature inside."""
    if data.get("format") != 1:
        return data
    fns: dict = {}
    for fn, entries in (data.get("functions") or {}).items():
        tag = tags(list(entries))
        for sig, e in entries.items():
            fns[keyed(fn, tag[sig])] = {**e, "signature": leaves(sig)}
    return {"format": FORMAT, "functions": fns}


def budgets_path(run: Any) -> Path:
    """``--budgets FILE``, else ``[tool.jaxlint.dynamic] budgets`` at the project root (for a
    target, its own file beside it: :meth:`DynamicSettings.budgets_file`)."""
    from jaxlint.dynamic import project

    if run.options.budgets:
        return Path(run.options.budgets).absolute()
    task = run.dynamic_tasks()[0]
    s = task.settings
    root = project.project_root(task.path, s.root if s.config_file else None)
    return root / s.dynamic.budgets_file()


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
        # one argument leaf a line, so that a shape change is a one-line diff
        "signature": leaves(str(b.get("signature", "()"))),
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


# ---------------------------------------------------------------------------- signatures
_LEAF = re.compile(r"^(?P<path>.*): (?P<dtype>[\w]+)\[(?P<dims>[\d,]*)\]$")
_TAG_LIMIT = 48


def leaves(signature: str) -> list[str]:
    """A signature's parts (``x: f32[8,128]``, ``n=4``), split at its top-level commas."""
    out, depth, cur, quote = [], 0, "", ""
    for ch in signature:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out if out != ["()"] else []


def _parts(signature: str | list) -> dict[str, str]:
    """{leaf path or static name: its dtype and shape or value}."""
    out = {}
    for part in (leaves(signature) if isinstance(signature, str) else signature):
        m = _LEAF.match(part)
        if m:
            out[m["path"]] = f"{m['dtype']}[{m['dims']}]"
        else:
            name, _, value = part.partition("=")
            out[f"{name}="] = value
    return out


def joined(signature: str | list) -> str:
    """An entry's signature (a list of parts) as the compile tier writes it (one string)."""
    return signature if isinstance(signature, str) else ", ".join(map(str, signature)) or "()"


def _shown(name: str, value: str, with_dtype: bool) -> str:
    if name.endswith("="):
        return f"{name}{value}"
    return f"{name}{value if with_dtype else value[value.index('['):]}"


def _few(items: list[str], n: int = 2) -> str:
    return ", ".join(items[:n]) + (f" +{len(items) - n} more" if len(items) > n else "")


def tags(signatures: list[str]) -> dict[str, str]:
    """The short tag that tells each of one function's signatures from the others: the
    leaves (and static values) that differ among them; "" for a function with one."""
    if len(signatures) <= 1:
        return {s: "" for s in signatures}
    parsed = {s: _parts(s) for s in signatures}
    names = list(dict.fromkeys(n for p in parsed.values() for n in p))
    differing = [n for n in names if len({p.get(n) for p in parsed.values()}) > 1]
    dtypes = any(len({p.get(n, "")[:p.get(n, "").find("[")] for p in parsed.values()}) > 1 for n in differing)
    out = {}
    for s, p in parsed.items():
        items = [_shown(n, p[n], dtypes) if n in p else f"no {n}" for n in differing]
        text = ", ".join(items)
        out[s] = text if len(text) <= _TAG_LIMIT else _few(items)
    if len(set(out.values())) < len(out):  # shortened alike: the signature's hash tells them apart
        out = {s: f"{t} #{hashlib.sha1(s.encode()).hexdigest()[:6]}" for s, t in out.items()}
    return out


def keyed(function: str, tag: str) -> str:
    return f"{function} ({tag})" if tag else function


def function_of(key: str) -> str:
    """The function (``module:qualname``) of a budget key (a qualified name has no " (")."""
    return key.split(" (", 1)[0]


def shape_change(old: str | list, new: str | list) -> str:
    """How a function's arguments changed, in short: the dimensions that changed and in
    which leaves (``512 -> 1024 in params.w1, params.b1 +4 more``); "" when the same."""
    po, pn = _parts(old), _parts(new)
    if po == pn:
        return ""
    subs: dict[str, None] = {}
    where, other = [], []
    for n in dict.fromkeys([*po, *pn]):
        a, b = po.get(n), pn.get(n)
        if a == b:
            continue
        ma, mb = _LEAF.match(f"x: {a}") if a else None, _LEAF.match(f"x: {b}") if b else None
        if ma and mb and ma["dtype"] == mb["dtype"] and ma["dims"].count(",") == mb["dims"].count(","):
            for x, y in zip(ma["dims"].split(","), mb["dims"].split(",")):
                if x != y:
                    subs[f"{x} -> {y}"] = None
            where.append(n)
        elif a is None:
            other.append(f"new {_shown(n, b or '', True)}")
        elif b is None:
            other.append(f"no {n}")
        else:
            other.append(f"{n} {a} -> {b}" if n.endswith("=") else f"{n} {a} -> {b}")
    text = f"{', '.join(subs)} in {_few(where)}" if where else ""
    return "; ".join(t for t in (text, _few(other, 3)) if t)


def pair(now: list[Measured], entries: Mapping[str, Mapping[str, Any]]) -> tuple[list[tuple[Measured, str | None]],
                                                                                list[str]]:
    """Which budget entry each of one function's measured signatures is held to, and the
    entries left over. The rule (docs/budgets.md): the entry of the same signature; else
    the entry of the same key (the same tag: a train step's batch leaf, whatever the
    model's width); else, among the entries left, the one of the same argument structure
    with the fewest leaves changed (a function with one signature is compared with its
    one budget whatever its shapes). A signature matched by none has no budget; an entry
    matched by none is stale."""
    left = dict(entries)
    out: list[tuple[Measured, str | None]] = []
    todo = []
    by_sig = {joined(e.get("signature", "")): k for k, e in entries.items()}
    for m in now:
        k = by_sig.get(m.signature)
        if k in left:
            out.append((m, k))
            del left[k]
        else:
            todo.append(m)
    rest = []
    for m in todo:
        if m.name in left:
            out.append((m, m.name))
            del left[m.name]
        else:
            rest.append(m)
    for m in rest:
        mine = _parts(m.signature)
        cands = [(sum(mine[n] != p[n] for n in p), k) for k, p in
                 ((k, _parts(e.get("signature", ""))) for k, e in sorted(left.items())) if p.keys() == mine.keys()]
        if cands:
            k = min(cands)[1]
            out.append((m, k))
            del left[k]
        else:
            out.append((m, None))
    order = {id(m): i for i, m in enumerate(now)}
    return sorted(out, key=lambda x: order[id(x[0])]), sorted(left)


def named(now: list[Measured]) -> list[Measured]:
    """``now`` with each measurement's key in the budgets file set (:func:`tags`)."""
    sigs: dict[str, list[str]] = {}
    for m in now:
        sigs.setdefault(m.key, []).append(m.signature)
    tagged = {k: tags(v) for k, v in sigs.items()}
    for m in now:
        m.name = keyed(m.key, tagged[m.key][m.signature])
    return now


def _by_function(fns: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for k, e in fns.items():
        out.setdefault(function_of(k), {})[k] = e
    return out


@dataclass
class Coverage:
    """What this run could have measured, to tell a gone function's budget from one
    outside the run: the modules it checked, and why each function it did not measure
    was not (``module:qualname`` -> reason)."""

    modules: set[str] = field(default_factory=set)
    unmeasured: dict[str, str] = field(default_factory=dict)
    #: functions whose `jaxlint record` observation is out of date -> what changed under it
    outdated: dict[str, list[str]] = field(default_factory=dict)
    #: where each function of the run is: key -> (display path, jit line, qualname)
    where: dict[str, tuple[str, int, str]] = field(default_factory=dict)

    def out_of_date(self, function: str) -> str:
        """"" when current; else what changed under its recording, in short."""
        if function not in self.outdated:
            return ""
        what = self.outdated[function]
        return (", ".join(what[:3]) + (f" and {len(what) - 3} more" if len(what) > 3 else "")) or \
            "the rules' settings changed"

    def why_stale(self, function: str) -> str | None:
        """Why a budgeted function has no measurement this run; None: outside the run."""
        if function in self.outdated:
            return "its recording is out of date"
        if function in self.unmeasured:
            return f"not measured ({self.unmeasured[function]})"
        if function.split(":", 1)[0] in self.modules:
            return "the function is gone or no longer jitted"
        return None


# ---------------------------------------------------------------------------- update
def update(data: dict, now: list[Measured], rule, coverage: Coverage | None = None) -> tuple[dict, list[str]]:
    """The budgets with ``now``'s entries (others kept: a run over some files updates
    those; a function of a checked module that is gone is removed); the lines that say
    what changed. An entry whose signature, exact figures and environment are unchanged
    and whose compile time is within its ceiling is kept byte for byte, so updating
    twice changes nothing."""
    fns = dict(data.get("functions") or {})
    grouped = _by_function(fns)
    changes = []
    now = named(now)
    mine: dict[str, list[Measured]] = {}
    for m in now:
        mine.setdefault(m.key, []).append(m)
    for fn, ms in mine.items():
        olds = grouped.get(fn, {})
        pairs, left = pair(ms, olds)
        for gone in olds:
            del fns[gone]
        for m, held in pairs:
            new = entry_of(m.budget)
            old = olds.get(held) if held is not None else None
            if old is None:
                changes.append(f"added {m.name}")
            elif _keeps(old, new, rule):
                fns[m.name] = old
                if held != m.name:
                    changes.append(f"renamed {held} -> {m.name} (its signatures: {len(ms)})")
                continue
            else:
                changes.append(f"updated {m.name}: {_what_changed(m, old, new, rule)}")
            fns[m.name] = new
        for k in left:
            changes.append(f"removed {k}: no longer called with ({_few(leaves(joined(olds[k].get('signature', ''))), 3)})")
    for fn, olds in grouped.items():
        why = coverage.why_stale(fn) if coverage is not None and fn not in mine else None
        if why == "the function is gone or no longer jitted":
            for k in olds:
                del fns[k]
                changes.append(f"removed {k}: {why}")
    return {"format": FORMAT, "functions": fns}, changes


def write_update(path: Path, now: list[Measured], rule, coverage: Coverage | None = None) -> tuple[list[str], bool]:
    """Update the budgets file at ``path`` with ``now`` (:func:`update`): (what changed,
    whether the file was written). Holds the lock ``jaxlint record`` takes on its folder
    from the read to the write, so that runs at once (a CI matrix sharing the file) each
    add their entries and none is lost; a symlinked file stays a link (the file it names
    is replaced). A write that fails (a full disk) leaves the old file as it was and is a
    ``ConfigError`` saying so."""
    from jaxlint.dynamic.observed import locked
    from jaxlint.files.cache import replace_file

    target = Path(os.path.realpath(path))
    with locked(target):
        data, changes = update(load(path), now, rule, coverage)
        text = dumps(data)
        try:
            old: str | None = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            old = None
        if text == old:
            return changes, False
        try:
            replace_file(path, text.encode("utf-8"))
        except OSError as e:
            raise ConfigError(f"{path}: cannot write the cost budgets: {e.strerror or e}; the file is unchanged "
                              f"({len(changes)} change{'s' if len(changes) != 1 else ''} not written): free space "
                              "and run `jaxlint budget update` again") from None
    return changes, True


def _what_changed(m: Measured, old: dict, new: dict, rule) -> str:
    parts = []
    shapes = shape_change(old.get("signature", ""), new["signature"])
    if shapes:
        parts.append(f"shapes {shapes}")
    if old.get("environment") != new["environment"]:
        parts.append(f"re-measured: {env_difference(old.get('environment') or {}, new['environment'])}")
    else:
        moved = [a for a in rule.assess(m.key, old, new) if a.status in ("over", "lower", "within", "new")]
        parts += [f"{a.metric} {_amount(a.metric, a.budget)} -> {_amount(a.metric, a.now)}" for a in moved]
    return ", ".join(parts) or "the largest buffers and ops changed"


def _keeps(old: dict, new: dict, rule) -> bool:
    if old.get("environment") != new["environment"] or old.get("figures") != new["figures"]:
        return False
    if old.get("loops") != new["loops"] or old.get("largest") != new["largest"]:
        return False
    if old.get("signature") != new["signature"]:
        return False
    a = [x for x in rule.assess("", old, new) if x.metric == "compile_seconds"]
    return not a or a[0].status == "same"


# ---------------------------------------------------------------------------- the gate
def gate(data: dict, now: list[Measured], rule, command: str,
         coverage: Coverage | None = None) -> tuple[list[tuple[str, ...]], list[Diagnostic], int]:
    """(table rows, the rule's findings, how many out of date): each measured function
    held against its entry (:func:`pair`), stale entries listed; ``command`` re-measures
    out-of-date budgets."""
    from jaxlint.textutil import figure as amount, signed_percent as signed

    rows: list[tuple[str, ...]] = []
    findings: list[Diagnostic] = []
    stale = 0
    grouped = _by_function(data.get("functions") or {})
    now = named(now)
    pairs: dict[int, str | None] = {}
    left: list[str] = []
    for fn in dict.fromkeys(m.key for m in now):
        matched, rest = pair([m for m in now if m.key == fn], grouped.get(fn, {}))
        pairs.update({id(m): k for m, k in matched})
        left += rest
    for m in now:
        shown = m.name
        k = pairs[id(m)]
        entry = grouped.get(m.key, {}).get(k) if k is not None else None
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
        shapes = shape_change(entry.get("signature", ""), m.signature)
        shown = k or m.name  # the row names the budget it is held to
        outdated = coverage.out_of_date(m.key) if coverage is not None else ""
        if outdated:
            rows.append((shown, "-", "-", "-", "-", f"out of date: record again (changed since `jaxlint record`: "
                                                   f"{outdated})"))
        if shapes:
            rows.append((shown, "shapes", "-", "-", shapes, "compared with the budget"))
        assessed = rule.assess(m.key, entry, m.budget)
        moved = [a for a in assessed if a.status != "same"]
        for a in moved:
            status = {"over": "FAIL", "lower": "budget can be lowered", "within": "within tolerance",
                      "new": "new figure"}[a.status]
            rows.append((shown, a.metric, amount(a.metric, a.budget), amount(a.metric, a.now),
                         "-" if a.status == "new" else signed(a.change), status))
        if not moved:
            rows.append((shown, "all", "-", "-", "0 %", "ok"))
        rule.check(BudgetContext(m, entry, assessed, rule, findings, shapes=shapes, outdated=outdated))
    measured_fns = {m.key for m in now}
    for k in left:
        sig = _few(leaves(joined(grouped[function_of(k)][k].get("signature", ""))), 3)
        rows.append((k, "-", "-", "-", "-", f"stale: no longer called with ({sig}); `{command}` removes it"))
    cov = coverage or Coverage()  # without one (figures alone), no entry is known stale
    for fn, olds in grouped.items():
        why = cov.why_stale(fn) if fn not in measured_fns else None
        if why is None:
            continue
        removed = f"; `{command}` removes it" if why.startswith("the function") else ""
        outdated = cov.out_of_date(fn)
        for k in sorted(olds):
            if outdated and fn in cov.where:  # not measured because its recording is of other code
                rows.append((k, "-", "-", "-", "-", f"out of date: record again (changed since `jaxlint record`: "
                                                    f"{outdated})"))
                path, line, qualname = cov.where[fn]
                m = Measured(fn, qualname, path, line, {"signature": joined(olds[k].get("signature", ""))},
                             dict(now[0].versions) if now else {}, k)
                rule.check(BudgetContext(m, olds[k], [], rule, findings, outdated=outdated))
            else:
                rows.append((k, "-", "-", "-", "-", f"stale: {why}{removed}"))
    return rows, findings, stale


def _amount(metric: str, value) -> str:
    from jaxlint.textutil import figure

    return figure(metric, value)


def _coverage(run: Any, report) -> Coverage:
    """The modules this run checked and its functions it did not measure (with why)."""
    from jaxlint.dynamic import project

    cov = Coverage()
    for t in run.dynamic_tasks():
        s = t.settings
        root = project.project_root(t.path, s.root if s.config_file else None)
        cov.modules.add(project.module_name(Path(t.path), root)[0])
    done = {m.key for m in measured(report)}
    for f in report.functions:
        if f.module:
            cov.modules.add(f.module)
            key = f"{f.module}:{f.qualname}"
            cov.where.setdefault(key, (f.path, f.line, f.qualname))
            if key not in done:
                cov.unmeasured.setdefault(key, f.reason or f.status)
    for e in report.stale:
        if e.get("key"):
            key = str(e["key"])
            cov.outdated[key] = [str(c) for c in e.get("changed") or ()]
            cov.where.setdefault(key, (str(e.get("file") or ""), int(e.get("line") or 1), str(e.get("qualname") or key)))
    return cov


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
    coverage = _coverage(run, report)
    if o.update_budgets:
        if report.errors:  # a run that failed updates nothing
            print("jaxlint: budgets: not updated: the dynamic phase failed", file=sys.stderr)
            return None
        changes, written = write_update(path, now, rule, coverage)
        from jaxlint.files.discovery import display_path

        where = display_path(path)
        for line in changes:
            print(f"jaxlint: budgets: {line}", file=sys.stderr)
        print(f"jaxlint: budgets: {len(now)} function{'s' if len(now) != 1 else ''} measured, {len(changes)} "
              f"change{'s' if len(changes) != 1 else ''} written to {where}" if written else
              f"jaxlint: budgets: {len(now)} function{'s' if len(now) != 1 else ''} measured, {where} unchanged",
              file=sys.stderr)
        return None
    if not os.path.lexists(path) and not rule.opts["require-budgets"] and not o.budget_report:
        return None  # no budgets in this project: nothing to gate
    data = load(path)
    command = "jaxlint budget update" + (f" --budgets {o.budgets}" if o.budgets else "")
    rows, findings, stale = gate(data, now, rule, command, coverage)
    rows += [(name, "-", "-", "-", "-", why) for name, why in unmeasured(report)]
    report.diagnostics.extend(findings)
    notes = []
    if stale:
        notes.append(f"{stale} budget{'s' if stale != 1 else ''} measured in another environment: not compared "
                     f"(re-measure with `{command}`)")
    notes.append(f"budgets: {path.name if path.is_file() else f'{path.name} (none yet)'}")
    run.result.tables.append(Table(TITLE, COLUMNS, rows, notes))
    return None

