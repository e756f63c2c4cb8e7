"""The ``eager`` part of ``observed.json``: the program's compiles outside its own jitted
functions, per line of the project (:mod:`jaxlint.dynamic.record_compiles` counts them in
the program), and the findings of the program-level rules on them.

``jaxlint record`` merges the processes' counts (:func:`merge_parts`) and keeps each line
where one function was compiled more than once (:func:`entries`): the line, its scope,
the compiled functions with their counts, the first call that led there, the code it
rests on (the digests of the scopes of the line and of that call, as a function's entry
keeps them), the jaxlint version and the options of the program-level rules, and their
findings. The seconds are the run's: they go to ``timings.json`` as a function's do. The
part is versioned (``{"format": 1, "sites": {...}}``); an ``observed.json`` without it
(older) reads as no site, and readers before it ignore it.

``check --dynamic`` reports a site's findings while its code is unchanged (moved with
lines added above) and the same options were used (:func:`current_findings`).

The rules that read it are trace rules marked ``program_level`` (the engine never runs
them on a function): ``check(ctx)`` on a :class:`SiteContext` per site. Never imports jax.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable

from jaxlint.diagnostic import Position, Related
from jaxlint.dynamic.observed import eager_sites as sites_of


def merge_parts(parts: Iterable[dict]) -> list[dict]:
    """The sites of every process of a run, their counts and seconds added up: the lines
    that compiled (``sites``) and the lines of eager operations between a recorded jitted
    function's calls (``dispatch``'s ``sites``), one site per line."""
    merged: dict[tuple, dict] = {}

    def site_of(site: Any) -> dict | None:
        if not isinstance(site, dict) or not isinstance(site.get("file"), str) or not isinstance(site.get("line"), int):
            return None
        key = (site["file"], site["line"], str(site.get("scope") or "?"))
        cur = merged.setdefault(key, {"file": key[0], "line": key[1], "scope": key[2], "caller": None,
                                      "functions": {}})
        cur["caller"] = cur["caller"] or site.get("caller")
        return cur

    for part in parts:
        for site in part.get("sites") or []:
            cur = site_of(site)
            if cur is None:
                continue
            for name, c in (site.get("functions") or {}).items():
                if not isinstance(c, dict):
                    continue
                have = cur["functions"].setdefault(str(name), {"compiles": 0, "seconds": 0.0, "calls": 0})
                have["compiles"] += int(c.get("compiles") or 0)
                have["calls"] += int(c.get("calls") or c.get("compiles") or 0)
                have["seconds"] = round(have["seconds"] + float(c.get("seconds") or 0.0), 4)
        for site in (part.get("dispatch") or {}).get("sites") or []:
            cur = site_of(site)
            if cur is None:
                continue
            if cur.get("op_seconds") is None and isinstance(site.get("op_seconds"), (int, float)):
                cur["op_seconds"] = float(site["op_seconds"])
            for name, c in (site.get("dispatch") or {}).items():
                if isinstance(c, dict):
                    have = cur.setdefault("dispatch", {}).setdefault(str(name), {"intervals": 0, "ops": 0})
                    have["intervals"] += int(c.get("intervals") or 0)
                    have["ops"] += int(c.get("ops") or 0)
            for where, ops in (site.get("inner") or {}).items():  # the lines under a call of the loop's
                if isinstance(ops, int):
                    inner = cur.setdefault("inner", {})
                    inner[str(where)] = inner.get(str(where), 0) + ops
            if isinstance(site.get("callee"), str):
                cur.setdefault("callee", site["callee"])
    return list(merged.values())


def merge_steps(parts: Iterable[dict]) -> dict:
    """The recorded jitted functions between whose calls eager operations ran, of every
    process of a run (``{"steps": {key: {"calls", "period"}}, "op_seconds"}``): a function
    two processes called takes the figures of the one that called it more."""
    steps: dict[str, dict] = {}
    op_seconds = None
    for part in parts:
        dispatch = part.get("dispatch") if isinstance(part, dict) else None
        if not isinstance(dispatch, dict):
            continue
        if op_seconds is None and isinstance(dispatch.get("op_seconds"), (int, float)):
            op_seconds = float(dispatch["op_seconds"])
        for key, st in (dispatch.get("steps") or {}).items():
            if isinstance(st, dict) and isinstance(st.get("calls"), int) and st["calls"] > steps.get(key, {}).get("calls", 0):
                steps[str(key)] = {"calls": st["calls"], "period": st.get("period")}
    return {"steps": steps, "op_seconds": op_seconds}


def program_rules_for(folder: Path) -> list[Any]:
    """The program-level rules with the options the nearest config of ``folder`` gives them
    (selected or not: the recording serves any later selection)."""
    from jaxlint.files.discovery import SettingsResolver
    from jaxlint.registry import every_rule

    settings = SettingsResolver(None, False, {}).for_dir(folder)
    return [r for r in every_rule(settings, ("trace",)) if getattr(r, "program_level", False)]


def rule_options(rules: Iterable[Any]) -> dict[str, str]:
    """Each program-level rule with a digest of its options."""
    return {r.code: hashlib.sha256(repr(sorted(r.opts.items())).encode()).hexdigest()[:12] for r in rules
            if getattr(r, "program_level", False)}


def entries(sites: list[dict], root: Path, program: str | None, steps: dict | None = None) -> dict[str, dict]:
    """The part's entries of a run's ``sites`` (each line where a function compiled more
    than once, and each line of eager operations between a step's calls that a rule
    reports), with the program-level rules' findings; keyed ``file:line:scope``.
    ``steps``: :func:`merge_steps` of the run."""
    from jaxlint import __version__
    from jaxlint.dynamic.codedigest import Reader

    reader = Reader()
    rules_by_folder: dict[Path, list] = {}
    out: dict[str, dict] = {}
    for site in sites:
        fns = site["functions"]
        again = any(c["compiles"] > 1 for c in fns.values())
        if not again and not site.get("dispatch"):
            continue  # one compile per function: an eager operation's first use, nothing repeated
        path = root / site["file"]
        folder = path.parent
        if folder not in rules_by_folder:
            rules_by_folder[folder] = program_rules_for(folder)
        rules = rules_by_folder[folder]
        lines: dict[str, set[int]] = {site["file"]: {site["line"]}}
        caller = _split(site.get("caller"))
        if caller is not None:
            lines.setdefault(caller[0], set()).add(caller[1])
        code = {f: reader.scopes(root / f, ls) for f, ls in lines.items()}
        entry: dict[str, Any] = {
            "file": site["file"], "line": site["line"], "qualname": site["scope"], "caller": site.get("caller"),
            "functions": {n: c["compiles"] for n, c in sorted(fns.items())},
            "calls": {n: c["calls"] for n, c in sorted(fns.items()) if c["calls"] != c["compiles"]},
            "seconds": round(sum(c["seconds"] for c in fns.values()), 4),
            "code": {f: sc for f, sc in code.items() if sc}, "jaxlint": __version__,
            "rule_options": rule_options(rules), "program": program, "diagnostics": [],
        }
        if site.get("dispatch"):
            entry["dispatch"] = {k: dict(v) for k, v in sorted(site["dispatch"].items())}
        ctx = SiteContext(site, _column(path, site["line"]),
                          caller and (caller[0], caller[1], _column(root / caller[0], caller[1])),
                          {"steps": (steps or {}).get("steps") or {}, "op_seconds": (steps or {}).get("op_seconds"),
                           "sites": sites}, root)
        for rule in rules:
            ctx.rule = rule
            try:
                rule.check(ctx)
            except Exception as e:  # a rule bug loses its own findings only
                entry.setdefault("rule_errors", []).append(f"rule {rule.code} failed on {site['file']}:"
                                                           f"{site['line']}: {type(e).__name__}: {e}")
        entry["diagnostics"] = [d.to_dict() for d in ctx.diagnostics]
        if not again and not entry["diagnostics"] and not entry.get("rule_errors"):
            continue  # eager operations no rule reports: nothing to keep
        out[f"{site['file']}:{site['line']}:{site['scope']}"] = entry
    return out


def _split(where: Any) -> tuple[str, int] | None:
    if not isinstance(where, str) or ":" not in where:
        return None
    f, _, n = where.rpartition(":")
    return (f, int(n)) if n.isdigit() else None


def _column(path: Path, line: int) -> int:
    """The column of the line's first character (its statement's start, as a finding's);
    1 in a notebook (its lines are its code cells', not the file's)."""
    if path.suffix == ".ipynb":
        return 1
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()[line - 1]
    except (OSError, IndexError):
        return 1
    return len(text) - len(text.lstrip()) + 1


class SiteContext:
    """What a program-level rule sees of one line: ``site`` (``file``, ``line``, ``scope``,
    ``caller``, ``functions``: name -> ``{"compiles", "seconds", "calls"}``, ``calls`` the
    number of calls of the line that compiled it; where the line issued eager operations
    between the calls of a recorded jitted function, ``dispatch``: its key ->
    ``{"intervals"`` (between how many pairs of its calls the line ran), ``"ops"}`` and
    ``op_seconds``, the time one of its operations took; where the line is the loop's call
    of a function whose lines issued them, ``inner``: ``"file:line"`` -> their operations,
    and ``callee``, the function's name), the run's ``program``
    (``steps``: key -> ``{"calls", "period"}``, the mean seconds from one call to the
    next; ``op_seconds``: the run's time per operation; ``sites``: every line), its
    ``opts``, and :meth:`report`."""

    def __init__(self, site: dict, column: int, caller: tuple[str, int, int] | None,
                 program: dict | None = None, root: Path | None = None) -> None:
        self.site = site
        self._root = root
        self.program = program or {"steps": {}, "op_seconds": None, "sites": [site]}
        self.rule: Any = None
        self.diagnostics: list = []
        self._column = column
        self._caller = caller

    @property
    def opts(self) -> dict:
        return self.rule.opts

    def report(self, message: str, *, key: str, measured: str = "", data: dict | None = None,
               caller_note: str | None = None, also: Iterable[tuple[str, int, str]] = ()) -> None:
        """A finding at the site's line; ``caller_note``: the related location of the
        call that led there, with that text; ``also``: other lines (file, line, note), as
        related locations."""
        from jaxlint.findings.measured import MeasuredIn, measured_diagnostic

        site = self.site
        start = Position(site["line"], self._column)
        related = []
        for file, line, note in also:
            at = Position(line, _column(self._root / file, line) if self._root is not None else 1)
            related.append(Related(file, at, at, note))
        if caller_note and self._caller is not None:
            at = Position(self._caller[1], self._caller[2])
            related.append(Related(self._caller[0], at, at, caller_note))
        self.diagnostics.append(measured_diagnostic(
            self.rule, MeasuredIn(function=site["scope"]), message=message, path=site["file"], start=start,
            end=start, key=key, related=related, data=data, measured=measured))


def current_findings(part: Any, rel: str, root: Path, rules_now: list[Any], reader: Any) -> tuple[list[dict], list[dict]]:
    """(the findings of the part's entries in the file ``rel`` that are current, the
    entries that are out of date): current when the code they rest on is unchanged (their
    findings moved with their scopes) and the program-level rules selected now ran with
    the same options."""
    from jaxlint.dynamic import observed as observations

    found: list[dict] = []
    stale: list[dict] = []
    now = rule_options(rules_now)
    for key, e in sites_of(part).items():
        if e.get("file") != rel:
            continue
        options = e.get("rule_options")
        ran = options if isinstance(options, dict) else {}
        fresh = observations.current(e, root, reader) if all(ran.get(c) == d for c, d in now.items()) else None
        if fresh is None:
            stale.append(dict(e, key=key))
        else:
            found += [d for d in fresh.get("diagnostics") or [] if isinstance(d, dict)]
    return found, stale
