"""The dynamic phase, parent side: plan, cache, run workers, merge findings.

Never imports jax (the workers do). For each checked file it rebuilds the static
jit map, picks the inputs of every entry point (:mod:`jaxlint.dynamic.inputs`),
looks the file up in the result cache, sends the misses to the worker pool, and turns
what comes back into diagnostics at the user's lines, with suppressions applied.
"""
from __future__ import annotations

import ast
import base64
import functools
import importlib.util
import json
import math
import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from jaxlint import __version__
from jaxlint.files.cache import Cache, check_diagnostic, key_of, stamp_of
from jaxlint.config import ConfigError, DynamicSettings, Settings
from jaxlint.diagnostic import Diagnostic, Phase, Position
from jaxlint.dynamic import inputs as inp
from jaxlint.dynamic import project, signatures
from jaxlint.dynamic.project import relative_finding, relative_path
from jaxlint.dynamic import observed as observations
from jaxlint.dynamic.pool import FileJob, Pool, WorkerStartError, host_devices
from jaxlint.dynamic.codedigest import Reader
from jaxlint.dynamic.scripts import import_work
from jaxlint.findings.supersede import HOME
from jaxlint.process.cpus import usable_cpus
from jaxlint.config.inputspec import SpecError, spec_from_parts
from jaxlint.static.jitmap import EntryPoint

_ENV_KEYS = ("XLA_FLAGS", "JAX_ENABLE_X64", "JAX_USE_SIMPLIFIED_JAXPR_CONSTANTS", "JAX_DEFAULT_DTYPE_BITS",
             "JAX_NUMPY_DTYPE_PROMOTION")


@dataclass
class FunctionOutcome:
    path: str  # display path of the checked file
    qualname: str
    line: int
    status: str  # analysed | skipped | failed
    reason: str | None = None
    source: str | None = None  # where the inputs came from
    seconds: float = 0.0
    #: what later levels measured (compile tier: equations, compile seconds, flops, memory)
    report: dict | None = None
    #: the module that defines it (``module:qualname`` is its identity, as in the signatures)
    module: str = ""


@dataclass
class FilePlan:
    task: Any  # FileTask
    text: str
    root: Path
    module: str
    sys_path: list[str]
    plans: list[inp.Plan]
    key: str = ""
    #: observations of functions of this file that the jit map does not list (closures,
    #: `jax.jit(f)(x)`, functions made by factories), still current
    observed_extra: list[dict] = field(default_factory=list)
    #: observations of this file made before its code (or a file they point into) changed
    stale: list[dict] = field(default_factory=list)
    #: current findings of the program-level rules at lines of this file (the program's
    #: compiles outside its jitted functions, :mod:`jaxlint.dynamic.eager`)
    eager: list[dict] = field(default_factory=list)
    #: how `jaxlint record` ran this file as a script ({"argv", "cwd", "env"}), if it did
    program: dict | None = None
    #: (line, what) of the top-level code that does work when the file is imported, when
    #: that keeps the workers from importing it (:mod:`jaxlint.dynamic.scripts`)
    script: tuple[int, str] | None = None


@dataclass
class DynamicReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    functions: list[FunctionOutcome] = field(default_factory=list)
    files_failed: list[tuple[str, str]] = field(default_factory=list)
    cached_files: int = 0
    analysed_files: int = 0
    versions: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    rule_errors: list[str] = field(default_factory=list)
    seen: set = field(default_factory=set)
    #: functions whose findings come from `jaxlint record` (observed in the program)
    observed: list[dict] = field(default_factory=list)
    #: observations made before the code changed
    stale: list[dict] = field(default_factory=list)
    levels: list[str] = field(default_factory=lambda: ["trace"])
    #: (display path, seconds, was a recorded script) of imports slower than `slow-import`
    slow_imports: list[tuple[str, float, bool]] = field(default_factory=list)
    #: (display path, line, what) of the files not imported because they do work at import
    scripts: list[tuple[str, int, str]] = field(default_factory=list)
    #: the phase could not run at all (jax missing, no worker starts, no backend to compile for)
    unavailable: bool = False
    #: what the compile tier built programs for, where a target is set ("target v5e:1x1 (TPU
    #: v5 lite, deviceless)"); None: the backend's own devices
    target: str | None = None

    def in_cells(self, notebooks) -> None:
        """Functions of notebooks in the summary at their cell (``path:cell N``, line in
        it); the findings themselves move into cells with the static ones, in the report."""
        from dataclasses import replace

        def where(path: str, line: int) -> tuple[str, int]:
            hit = notebooks[path].locate(line) if path in notebooks else None
            return (f"{path}:cell {hit[0]}", hit[1]) if hit else (path, line)

        self.functions[:] = [replace(f, path=where(f.path, f.line)[0], line=where(f.path, f.line)[1])
                             for f in self.functions]
        for group in (self.observed, self.stale):  # their files are relative to the project root
            for i, e in enumerate(group):
                file = str(e.get("file") or "")
                shown = next((n for n in notebooks if file and (n == file or n.endswith("/" + file))), None)
                if shown is not None and isinstance(e.get("line"), int):
                    path, line = where(shown, e["line"])
                    group[i] = dict(e, file=path, line=line)

    def notes(self, show_skipped: bool, levels: list[str]) -> list[str]:
        by = {s: [f for f in self.functions if f.status == s] for s in ("analysed", "skipped", "failed")}
        v = self.versions
        where = (f"jax {v.get('jax', '?')}, {self.target or v.get('backend', '?')}" if v
                 else "cached" if self.cached_files else "nothing traced")
        lines = [
            f"Dynamic phase ({'+'.join(levels)}; {where}): {len(by['analysed'])} function"
            f"{'s' if len(by['analysed']) != 1 else ''} analysed, {len(by['skipped'])} skipped, "
            f"{len(by['failed']) + len(self.files_failed)} failed"
            + (f"; {self.cached_files} file{'s' if self.cached_files != 1 else ''} from cache" if self.cached_files else "")
            + f" ({self.seconds:.1f} s)."
        ]
        if by["skipped"]:
            if show_skipped:
                for f in sorted(by["skipped"], key=lambda f: (f.path, f.line)):
                    lines.append(f"  skipped {f.path}:{f.line} {f.qualname}: {f.reason}")
            else:
                lines.append("  (run with --show-skipped to see what was skipped and why)")
        if self.observed:
            cov = observations.coverage_lines({str(i): e for i, e in enumerate(self.observed)}, levels)
            lines.append(f"  observed by `jaxlint record` in the running program: {cov[0]}")
            if show_skipped:
                lines.extend("  " + c.strip() for c in cov[1:])
        only = [f for f in by["analysed"] if f.reason in (observations.REDEFINED, observations.LIBRARY_JIT)]
        if only:  # nothing but the recording can analyse them again: said, as a worker's skip would be
            lines.append(f"  {len(only)} function{'s' if len(only) != 1 else ''} analysed in the recording only "
                         f"(not reachable by import: a library's function the program jits, or an earlier "
                         f"definition of a name defined again); record again after editing them")
            if show_skipped:
                lines.extend(f"    {f.path}:{f.line} {f.qualname}: {f.reason}"
                             for f in sorted(only, key=lambda f: (f.path, f.line)))
        again = [f for f in by["skipped"] if (f.reason or "").startswith(observations.OUT_OF_DATE)]
        if again:
            lines.append(f"  {len(again)} recorded function{'s' if len(again) != 1 else ''} "
                         f"{observations.OUT_OF_DATE} (tracing outside the recorded program failed: "
                         f"{', '.join(sorted({f.qualname for f in again})[:5])}); `--show-skipped` says why")
        if self.stale:
            n = sum(len(e.get("diagnostics") or []) for e in self.stale)
            lines.append(f"  {len(self.stale)} observed function{'s' if len(self.stale) != 1 else ''} "
                         f"({n} finding{'s' if n != 1 else ''}) out of date since `jaxlint record`; run it again:")
            for e in sorted(self.stale, key=lambda e: (str(e.get("file")), str(e.get("qualname")))):
                what = e.get("changed") or []
                why = (f"changed: {', '.join(what[:4])}" + (f" and {len(what) - 4} more" if len(what) > 4 else "")
                       if what else "the rules' settings changed")
                lines.append(f"    {e.get('file')}:{e.get('line')} {e.get('qualname')} ({why})")
        for path, line, what in self.scripts:
            lines.append(f"  not imported: {path} runs at import (line {line} {what}): "
                         f"{record_instead(path, levels)}; "
                         "or set `import-scripts = true` in [tool.jaxlint.dynamic]")
        for path, seconds, script in self.slow_imports:
            lines.append(f"  note: importing {path} took {seconds:.1f} s: its top-level code runs when the dynamic "
                         "phase imports it; keep work under `if __name__ == \"__main__\":`"
                         + (", or re-run `jaxlint record`: observed functions need no import" if script else
                            ", or record the program (`jaxlint record -- python ...`): observed functions need no "
                            "import"))
        for error in self.rule_errors:
            lines.append(f"  warning: {error}")
        return lines


# ---------------------------------------------------------------------------- planning
def _dedupe(entries: Iterable[EntryPoint]) -> list[EntryPoint]:
    rank = {"decorator": 0, "partial-decorator": 0, "call": 1, "immediate": 2}
    best: dict[str, EntryPoint] = {}
    for e in entries:
        cur = best.get(e.qualname)
        if cur is None or rank.get(e.form, 3) < rank.get(cur.form, 3) or (
                # defined again further down: after import the name holds the last definition
                rank.get(e.form, 3) == rank.get(cur.form, 3) and e.def_line > cur.def_line):
            best[e.qualname] = e
    return sorted(best.values(), key=lambda e: (e.line, e.qualname))


def plan_file(task, settings: Settings, recorded: dict[str, dict],
              signatures_file: Path | None = None, observed: dict[str, dict] | None = None,
              digests: Any = None, levels: tuple[str, ...] = ("trace",), eager: dict | None = None) -> FilePlan | None:
    """The plans of one file's jit entry points; ``signatures_file`` is where
    ``recorded`` was read from (its saved arguments live beside it); ``observed``
    what `jaxlint record` observed in the project (:mod:`jaxlint.dynamic.observed`).

    An observation that is current replaces the worker's trace of that function when it
    covers the requested ``levels``; one made without the compile tier is used only for
    functions the worker cannot reach (with a note), the others are traced and compiled
    by the worker as before. ``eager``: the recording's part of the program's compiles
    outside its jitted functions, whose current findings in this file go with it."""
    from jaxlint.files.notebook import NotebookError, is_notebook, read_module_text
    from jaxlint.static.semantic import ModuleModel
    from jaxlint.static.checker import SourceError, decode_source

    notebook = is_notebook(task.path)
    try:  # a notebook: its code cells as one module, as the static phase reads them
        text = read_module_text(task.path) if notebook else decode_source(task.path.read_bytes())
    except (OSError, SourceError, NotebookError):
        return None
    root = project.project_root(task.path, settings.root if settings.config_file else None)
    modname, base = project.module_name(task.path, root)
    sys_path = [str(p) for p in dict.fromkeys([base, *project.import_roots(root)])]
    mine = {k: v for k, v in recorded.items() if k.split(":", 1)[0] == modname}
    rel = relative_path(str(task.path), root)
    seen = {k: v for k, v in (observed or {}).items() if v.get("file") == rel}
    eager_found, eager_stale = _eager_of(eager, rel, root, settings, digests)
    if "jax" not in text and not mine and not seen and not eager_found and not eager_stale:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    model = ModuleModel(tree, modname)
    entries = _dedupe(model.entries)
    if not entries and not mine and not seen and not eager_found and not eager_stale:
        return None
    lines = text.splitlines()
    found = inp.directives(lines)
    nodes = {getattr(f.node, "lineno", -1): f for f in model.functions}
    stmts = {n.lineno: n for n in ast.walk(tree) if isinstance(n, ast.stmt)}
    call_names = {e.bound_name or e.name for e in entries if e.form in ("decorator", "partial-decorator", "call")}
    examples = inp.example_calls(model, tree, {n for n in call_names if n})
    plans: list[inp.Plan] = []
    for e in entries:
        plans.append(_plan_entry(e, model, nodes, stmts, lines, found, examples, settings.dynamic, modname, mine,
                                 signatures_file))
        if notebook:  # nothing imports a notebook: only what a recording of it observed
            plans[-1].skip, plans[-1].spec = (f"a notebook cannot be imported; run it under `jaxlint record -- "
                                              f"jupyter execute {task.path.name}`"), None
    rules_now: dict[tuple, list] = {}

    def same_rules(obs: dict) -> bool:
        """Whether the rules selected now ran, with the same options, in the observation."""
        from jaxlint.registry import active_rules

        lv = tuple(obs.get("levels") or ("trace",))
        if lv not in rules_now:
            rules_now[lv] = [r for r in active_rules(settings, lv) if r.role is None]
        return observations.made_by(obs, rules_now[lv])

    from jaxlint.targets import TargetError

    try:
        target = settings.dynamic.resolved_target()
    except TargetError:
        target = None  # the pool says why it cannot compile
    current: dict[str, dict] = {}
    stale: list[dict] = []
    stale_keys: set[str] = set()
    shown = functools.partial(_shown, task=task, root=root)  # out-of-date places, named as findings are
    for k, v in seen.items():
        other = observations.other_versions(v, installed())  # what another jax compiled is not this one's
        now = observations.current(v, root, digests) if same_rules(v) and not other else None
        if now is not None:
            current[k] = now
        else:  # named in the summary, with what changed under it
            stale.append(dict(v, key=k, file=shown(str(v["file"])) if isinstance(v.get("file"), str) else v.get("file"),
                              changed=[other] if other else observations.changed_code(v, root, digests, shown)))
            stale_keys.add(k)
    shown_eager = [dict(e, file=shown(rel), qualname=f"{e.get('qualname')} (its compiles outside the jitted functions)",
                        changed=observations.changed_code(e, root, digests, shown)) for e in eager_stale]
    fp = FilePlan(task, text, root, modname, sys_path, plans, stale=stale + shown_eager, eager=eager_found)
    by_key = {f"{modname}:{p.entry.qualname}": p for p in plans}
    from jaxlint.registry import all_rules

    failed = {r.code for r in all_rules() if r.means_trace_failed}
    for key, obs in seen.items():
        if key in by_key and obs.get("status") == "analysed" and obs.get("traced") and not any(
                d.get("code") in failed for d in obs.get("diagnostics") or []):
            by_key[key].observed_clean = True
    #: observations that do not cover every level asked for, kept for a worker that cannot run
    uncovered: dict[int, dict] = {}
    for key, obs in current.items():
        plan = by_key.get(key)
        if plan is None:
            plan = next((p for p in plans if p.entry.def_line == obs.get("line") and p.observed is None), None)
        covers = set(levels) <= set(obs.get("levels") or ()) and _same_target(obs, target, levels)
        if plan is not None:
            if not covers:
                uncovered[id(plan)] = obs
            if covers or plan.skip is not None or plan.spec is None:
                plan.observed, plan.skip = obs, None
            elif obs.get("signatures"):  # the worker traces it: with what jax really compiled
                plan.signatures = [_abs_call(r, root) for r in obs["signatures"]]
                plan.reused = dict(obs.get("reused") or plan.reused)
        else:
            why = observations.unreachable(key)  # an earlier definition of a name defined again, a library's
            if why is not None:
                obs = dict(obs, reason=why)
            fp.observed_extra.append(obs)
    if observed:
        for p in plans:
            if p.observed is None and p.skip is not None:
                why = ("its observation by `jaxlint record` is out of date (the code or the rules' settings changed)"
                       if f"{modname}:{p.entry.qualname}" in stale_keys else "not called while `jaxlint record` ran")
                p.skip = f"{why}, and {p.skip}"
    if not settings.dynamic.import_scripts and not notebook:
        fp.script = import_work(tree)
        if fp.script is not None:
            for p in plans:
                if p.observed is None and id(p) in uncovered:
                    # no worker imports a script: what the recording observed stands (its trace
                    # findings), and the levels it did not reach say how to record them
                    p.observed, p.skip, p.signatures = uncovered[id(p)], None, []
                elif p.observed is None:
                    p.skip = f"runs at import: {record_instead(task.display, levels)}"
    return fp


def _eager_of(part: dict | None, rel: str, root: Path, settings: Settings,
              digests: Any) -> tuple[list[dict], list[dict]]:
    """(the current findings of the program-level rules at lines of ``rel``, the sites
    there that are out of date); nothing when no program-level rule is selected."""
    if not part:
        return [], []
    from jaxlint.dynamic import eager
    from jaxlint.registry import active_rules

    rules = [r for r in active_rules(settings, ("trace",)) if getattr(r, "program_level", False)]
    if not rules:
        return [], []
    return eager.current_findings(part, rel, root, rules, digests)


def record_instead(display: str, levels: Sequence[str] = ()) -> str:
    """What to do about a script the dynamic phase does not import (``levels``: the run's;
    with the compile tier, the record command that compiles)."""
    return f"record it instead (`{record_command(display, levels)}`)"


def record_command(display: str, levels: Sequence[str] = ()) -> str:
    return f"jaxlint record{' --compile' if 'compile' in levels else ''} -- python {display}"


def _plan_entry(e: EntryPoint, model, nodes, stmts, lines, found, examples, dyn: DynamicSettings,
                modname: str, recorded: dict[str, dict], signatures_file: Path | None = None) -> inp.Plan:
    plan = inp.Plan(e)
    rec = recorded.get(f"{modname}:{e.qualname}")
    if rec is not None:
        plan.signatures = rec.get("signatures", [])
        plan.reused = dict(rec.get("reused") or {})
    fn = nodes.get(e.def_line)
    if e.is_method:
        spec, _ = _recorded_spec(rec, signatures_file) if rec is not None else (None, "")
        if spec is not None and spec.get("pickle_data"):  # the recorded call saved `self`
            plan.spec = spec
            return plan
        plan.skip = ("a jitted method needs an instance to trace: record a call with `jaxlint record` "
                     "(it saves `self`), or jit a module-level function that takes the state as arguments")
        return plan
    if "<locals>" in e.qualname or (e.qualname.startswith("<lambda>") and not e.bound_name):
        plan.skip = ("defined inside a function or unnamed, so it is not reachable after import: "
                     "`jaxlint record -- python PROGRAM` analyses it where the program calls it")
        return plan
    if rec is not None:
        spec, why = _recorded_spec(rec, signatures_file)
        if spec is not None:
            plan.spec = spec
            return plan
        plan.skip = f"recorded, but {why}"
        if len(plan.signatures) > 1:
            plan.skip = None  # the recompilation rule still reads the records
        return plan
    # 2. a directive above the def (or decorators) or above the `f = jax.jit(g)` line
    try:
        for node in (fn.node if fn is not None else None, stmts.get(e.line)):
            if node is None:
                continue
            d = inp.directive_for(lines, found, node)
            if d is not None:
                line, body = d
                args, kwargs, static, skip = inp.parse_directive(body)
                if skip:
                    plan.skip = f"skipped by the directive at line {line}"
                    return plan
                plan.spec = spec_from_parts(args, kwargs, static, "directive", f"line {line}")
                return plan
        for key in (f"{modname}:{e.qualname}", f"{modname}:{e.bound_name}"):
            cfg = dyn.functions.get(key)
            if cfg is not None:
                bad = set(cfg) - {"args", "kwargs", "static"}
                if bad:
                    raise SpecError(f"[tool.jaxlint.dynamic.functions.\"{key}\"]: unknown key(s) {sorted(bad)}")
                plan.spec = spec_from_parts(cfg.get("args"), cfg.get("kwargs"), cfg.get("static"), "config", key)
                return plan
    except SpecError as err:
        plan.skip = f"bad input spec: {err}"
        return plan
    if fn is None or isinstance(fn.node, ast.Lambda) and not e.bound_name:
        plan.skip = "the traced function was not found"
        return plan
    params = [p for p in fn.params if p.index is not None][e.partial_bound:]
    if fn.class_name and params and params[0].name in ("self", "cls"):
        params = params[1:]
    # 3. jaxtyping annotations on every traced parameter
    jt_spec = _jaxtyping_spec(model, e, fn, params)
    if isinstance(jt_spec, dict):
        plan.spec = jt_spec
        return plan
    jt_reason = jt_spec
    # 4. a same-file call with literal constructors
    ex = examples.get(e.bound_name or e.name)
    if ex is not None:
        line, args, kwargs = ex
        plan.spec = {"args": args, "kwargs": kwargs, "source": "example-call", "where": f"line {line}"}
        return plan
    # no parameters at all: nothing to invent
    if not fn.params:
        plan.spec = {"args": [], "kwargs": {}, "source": "no-arguments", "where": "-"}
        return plan
    plan.skip = jt_reason or ("no inputs: add `# jaxlint: args=(f32[8,128], ...)` above it, an entry in "
                              "[tool.jaxlint.dynamic.functions], or record signatures with `jaxlint record`")
    return plan


def _abs_call(rec: dict, root: Path) -> dict:
    for key in ("first_call", "again_at"):
        call = rec.get(key)
        if isinstance(call, dict) and not os.path.isabs(call.get("file", "")):
            rec = dict(rec, **{key: dict(call, file=str(root / call["file"]))})
    return rec


def _recorded_spec(rec: dict, signatures_file: Path | None) -> tuple[dict | None, str]:
    """The spec of the most called signature that can be rebuilt, else why none can.
    Saved arguments travel to the worker inside the spec (base64), so the cache key
    covers their content."""
    why = "no signature"
    for i, sig in enumerate(rec.get("signatures", [])):
        reason = signatures.rebuildable(sig)
        spec = {"args": sig.get("args", []), "kwargs": sig.get("kwargs", {}), "source": "recorded",
                "where": f"{sig.get('calls', 0)} call{'s' if sig.get('calls', 0) != 1 else ''}"}
        if rec.get("pmap"):
            spec["pmap"] = rec["pmap"]
        if sig.get("mesh"):  # the mesh the program called it under
            spec["mesh"] = sig["mesh"]
        if reason is None and sig.get("pickle"):
            try:
                if signatures_file is None:
                    raise ValueError("its saved arguments cannot be found")
                data = signatures.read_pickle(signatures_file, sig["pickle"])
            except ValueError as err:
                reason = str(err)
            else:
                spec["pickle_data"] = base64.b64encode(data).decode("ascii")
        if reason is None:
            return spec, ""
        if i == 0:
            why = reason
    return None, why


def _jaxtyping_spec(model, e: EntryPoint, fn, params) -> dict | str | None:
    args: list[dict] = []
    any_jt = False
    for p in params:
        node, why = inp.jaxtyping_node(model, p.annotation)
        if why:
            return why
        if node is not None:
            any_jt = True
            args.append(node)
            continue
        if p.name in e.static_params or p.default is not None:
            if p.default is None:
                return f"static argument `{p.name}` needs a value: give it in a directive's static={{...}}"
            break  # the rest take their defaults
        return None if not any_jt else f"parameter `{p.name}` has no jaxtyping annotation"
    if not any_jt:
        return None
    return {"args": args, "kwargs": {}, "source": "jaxtyping", "where": f"line {fn.node.lineno}"}


def recorded_device_count(programs: list[dict], recorded: dict[str, dict] | None = None) -> int:
    """The devices the recorded programs ran on: a program's own device count (its mesh
    needs as many), else its forced host devices, or the largest mesh a recorded call ran
    under (``recorded``: the signatures); 0 when none is known."""
    meshes = [s.get("mesh") for e in (recorded or {}).values() for s in e.get("signatures") or ()]
    return max([int((p.get("devices") or {}).get("count") or 0) for p in programs]
               + [host_devices((p.get("env") or {}).get("XLA_FLAGS")) for p in programs]
               + [math.prod(m["sizes"]) for m in meshes if isinstance(m, dict) and isinstance(m.get("sizes"), list)
                  and all(type(n) is int and n > 0 for n in m["sizes"])] + [0])


# ---------------------------------------------------------------------------- cache keys
def _versions_key() -> str:
    """jax and jaxlib versions for the cache key, without importing jax (:func:`installed`)."""
    return ",".join(f"{dist}={version}" for dist, version in installed().items())


def installed() -> dict[str, str]:
    """The jax and jaxlib versions the workers import, without importing jax: their
    ``version.py`` files are read as text (``importlib.metadata`` costs ~0.1 s here)."""
    out = {}
    for dist in ("jax", "jaxlib"):
        version = "missing"
        try:
            spec = importlib.util.find_spec(dist)
            if spec is not None and spec.origin:
                text = Path(spec.origin).with_name("version.py").read_text(encoding="utf-8")
                m = re.search(r"^_version(?:: str)?\s*=\s*[\"']([^\"']+)", text, re.M)
                version = m.group(1) if m else f"mtime={Path(spec.origin).stat().st_mtime}"
        except (ImportError, OSError, ValueError):
            pass
        out[dist] = version
    return out


def file_key(fp: FilePlan, settings: Settings, rules: list[dict], levels: list[str], versions: str) -> str:
    deps = project.imported_project_files(fp.task.path, fp.root, fp.module)
    dyn = settings.dynamic
    cfg = {
        "backend": dyn.backend, "x64": dyn.x64, "dims": dict(dyn.dimension_defaults),
        "dim": dyn.default_dimension, "ft": dyn.function_timeout, "fit": dyn.file_timeout,
        "mem": dyn.memory_limit_mb, "ct": dyn.compile_timeout, "levels": levels, "rules": rules,
        "devices": dyn.devices, "target": _target_key(dyn),
        "env": {k: os.environ.get(k) for k in _ENV_KEYS}, "program": fp.program,
    }
    jobs = [p.to_job() | {"skip": p.skip} for p in fp.plans]
    return key_of(__version__, "dynamic", fp.module, str(fp.task.path.resolve().relative_to(fp.root)
                                                         if fp.root in fp.task.path.resolve().parents else fp.task.path),
                  fp.text, project.content_hash(deps), json.dumps(jobs, sort_keys=True, default=str),
                  json.dumps(cfg, sort_keys=True, default=str), versions)


# ---------------------------------------------------------------------------- running
def run_dynamic(tasks, settings_of, rules_of, levels: list[str], cache_root: Path | None,
                signatures_path: str | None, worker_command: Sequence[str],
                workers: int | None = None, recorded_only: bool = False) -> DynamicReport:
    """Run the dynamic phase over ``tasks``. ``rules_of(settings)`` gives the selected
    trace/compile rule instances; ``settings_of(task)`` the task's settings;
    ``worker_command`` starts a worker that can run ``levels``; ``recorded_only``: only
    what `jaxlint record` observed, no worker (nothing imported)."""
    t_start = time.perf_counter()
    report = DynamicReport(levels=list(levels))
    if importlib.util.find_spec("jax") is None:  # a static-only install: nothing to start
        from jaxlint.install import missing_extra

        report.errors.append(missing_extra("dynamic", "`check --dynamic`"))
        report.unavailable = True
        return report
    cache = Cache(cache_root)
    recorded_by_root: dict[Path, dict] = {}
    sig_file_by_root: dict[Path, Path] = {}
    observed_by_root: dict[Path, dict] = {}
    eager_by_root: dict[Path, dict] = {}
    programs_by_root: dict[Path, dict] = {}
    recorded_devices: dict[Path, int] = {}
    digests = Reader()  # the code observations rest on, each file read once
    plans: list[FilePlan] = []
    versions = _versions_key()
    for task in tasks:
        s = settings_of(task)
        root = project.project_root(task.path, s.root if s.config_file else None)
        if root not in recorded_by_root:
            sig_path = Path(signatures_path) if signatures_path else root / s.dynamic.signatures
            if not sig_path.is_absolute() and signatures_path:
                sig_path = Path.cwd() / sig_path
            recorded_by_root[root] = signatures.load(sig_path)
            sig_file_by_root[root] = sig_path
            obs_file = observations.load(observations.path_for(sig_path))
            observed_by_root[root] = obs_file["functions"]
            eager_by_root[root] = obs_file["eager"]
            programs_by_root[root] = {p.get("main"): p for p in obs_file["programs"] if p.get("main")}
            if s.dynamic.backend == "cpu" and not s.dynamic.devices:
                recorded_devices[root] = recorded_device_count(obs_file["programs"], recorded_by_root[root])
        if recorded_devices.get(root, 0) > 1:  # the recorded program's mesh needs its devices
            s = replace(s, dynamic=replace(s.dynamic, devices=recorded_devices[root]))
            task = replace(task, settings=s) if getattr(task, "settings", None) is not None else task
        fp = plan_file(task, s, recorded_by_root[root], sig_file_by_root[root], observed_by_root[root], digests,
                       tuple(levels), eager_by_root[root])
        if fp is not None and fp.script is not None and any(p.observed is None for p in fp.plans):
            report.scripts.append((task.display, *fp.script))
        if fp is not None and (fp.plans or fp.observed_extra or fp.stale or fp.eager):
            # a script the recording ran: import it with the argv, cwd and environment it had
            fp.program = programs_by_root[root].get(fp.module)
            plans.append(fp)
    jobs: list[FileJob] = []
    cached: dict[int, dict] = {}
    if "compile" in levels and plans:
        report.target = _target_label(plans[0].task.settings.dynamic)
    for i, fp in enumerate(plans):
        s = fp.task.settings
        active = rules_of(s)
        rules = [{"code": r.code, "options": dict(r.opts)} for r in active]
        fp.key = file_key(fp, s, rules, levels, versions + stamp_of(active))
        hit = cache.get("dynamic", fp.key, functools.partial(_usable_entry, fp)) if cache.enabled else None
        if hit is not None:
            cached[i] = hit
            continue
        runnable = [p.to_job() for p in fp.plans if p.skip is None and p.observed is None]
        if recorded_only:
            for p in fp.plans:
                if p.skip is None and p.observed is None:
                    p.skip = "not observed by `jaxlint record` (--recorded-only traces nothing else)"
            runnable = []
        if not runnable:
            cached[i] = {"functions": {}, "failed": None}
            continue
        req = {"path": str(fp.task.path.resolve()), "root": str(fp.root), "module": fp.module,
               "sys_path": fp.sys_path, "x64": s.dynamic.x64, "levels": levels, "rules": rules,
               "dimensions": {"defaults": dict(s.dynamic.dimension_defaults), "default": s.dynamic.default_dimension},
               "functions": runnable, "program": fp.program}
        jobs.append(FileJob(i, req, [str(fp.root)]))
    results: dict[int, dict] = {}
    # nearest config wins here too: a pool per set of worker settings (backend, x64,
    # timeouts, memory cap), so each file runs under its own config's, as its cache key says
    groups: dict[tuple, list[FileJob]] = {}
    for job in jobs:
        groups.setdefault(_pool_key(plans[job.id].task.settings.dynamic), []).append(job)
    for group in groups.values():
        dyn = plans[group[0].id].task.settings.dynamic
        n = workers or dyn.workers or min(usable_cpus(), len(group))
        pool = None
        try:
            pool = Pool(dyn, n, worker_command)
            raw = pool.run(group)
        except WorkerStartError as e:
            report.errors.append(f"dynamic phase: {e}")
            report.unavailable = True
            report.seconds = time.perf_counter() - t_start
            return report
        finally:
            if pool is not None:
                pool.close()
        report.versions = report.versions or pool.versions
        for jid, r in raw.items():
            fp = plans[jid]
            functions, failed = _from_worker(r.functions, r.failed, fp.root)
            value: dict[str, Any] = {"functions": functions, "failed": failed,
                                     "versions": pool.versions, "import_seconds": r.import_seconds}
            slow = fp.task.settings.dynamic.slow_import
            if r.import_seconds is not None and r.import_seconds > slow:
                report.slow_imports.append((fp.task.display, r.import_seconds, fp.program is not None))
            results[jid] = value
            if cache.enabled:
                cache.put("dynamic", fp.key, value)
    report.analysed_files = len(jobs)
    report.cached_files = sum(1 for i in cached if any(p.skip is None and p.observed is None for p in plans[i].plans))
    for i, fp in enumerate(plans):
        value = results.get(i) or cached.get(i) or {"functions": {}, "failed": None}
        if not report.versions and value.get("versions"):
            report.versions = value["versions"]
        _assemble(fp, value, report)
    report.seconds = time.perf_counter() - t_start
    return report


def _usable_entry(fp: FilePlan, value: dict) -> dict:
    """A cached result that assembles into well-formed findings; raises otherwise (a miss)."""
    functions, failed = value["functions"], value["failed"]
    if not (isinstance(functions, dict) and isinstance(value.get("versions", {}), dict)
            and (failed is None or isinstance(failed, dict))):
        raise ValueError("not a dynamic cache entry")
    if failed is None and any(p.skip is None and p.observed is None and p.entry.qualname not in functions
                              for p in fp.plans):
        raise ValueError("a dynamic cache entry without every analysed function")
    for ev in functions.values():  # a compile report made before cost budgets: measure it again
        rep = ev.get("report") if isinstance(ev, dict) else None
        if isinstance(rep, dict) and "compile_seconds" in rep and "budget" not in rep and "budget_error" not in rep:
            raise ValueError("a dynamic cache entry without budget figures")
    scratch = DynamicReport()
    _assemble(fp, value, scratch)
    for d in scratch.diagnostics:
        check_diagnostic(d)
    return value


def _target_label(dyn: DynamicSettings) -> str | None:
    from jaxlint.targets import TargetError

    try:
        target = dyn.resolved_target()
    except TargetError:
        return None
    if target is None:
        return None
    return f"target {target.label()}" + (", compiled deviceless" if target.deviceless else "")


def _same_target(obs: dict, target, levels: tuple[str, ...]) -> bool:
    """Whether an observation's compile is one for ``target``: a recording made on another
    backend (a laptop's CPU, checked for a TPU slice) covers the trace only, and the worker
    compiles the function again for the target from the recorded signatures."""
    if target is None or "compile" not in levels:
        return obs.get("target") is None  # compiled for a target: not the backend's program
    if obs.get("target") is not None:  # `record --target`
        return obs["target"] == json.loads(target.to_json())
    if str((obs.get("versions") or {}).get("backend") or "cpu") != target.backend:
        return False
    # recorded on a TPU host: its chips must be the target's (a v5e chip is not a v5e-8)
    env = ((obs.get("report") or {}).get("budget") or {}).get("environment") or {}
    top = target.parsed()
    if top is None or not env:
        return True
    return env.get("device_kind") == top.chip.device_kind and env.get("devices") == top.chips


def _pool_key(dyn: DynamicSettings) -> tuple:
    """What a worker pool applies to every file it runs (see ``pool.worker_env`` and
    ``Pool``): files that differ here need pools of their own."""
    return (dyn.backend, dyn.x64, dyn.memory_limit_mb, dyn.function_timeout, dyn.file_timeout,
            dyn.compile_timeout, dyn.workers, dyn.devices, _target_key(dyn))


def _target_key(dyn: DynamicSettings) -> str | None:
    """The target the workers compile for, as the caches and pools key on it (None: the
    backend's own devices; a TPU backend's local slice is named by what was found)."""
    from jaxlint.targets import TargetError

    try:
        target = dyn.resolved_target()
    except TargetError:
        return "unavailable"
    return target.to_json() if target is not None else None


def _from_worker(functions: dict[str, dict], failed: dict | None,
                 root: Path) -> tuple[dict[str, dict], dict | None]:
    """A worker's answer for one file as the cache keeps it: each function's findings
    and place, and the file's failure, with root-relative paths (``relative_finding``,
    the one conversion at the boundary), the worker's event fields dropped."""
    out = {}
    for q, ev in functions.items():
        ev = dict(ev)
        ev.pop("event", None)
        ev.pop("id", None)
        ev["diagnostics"] = [relative_finding(d, root) for d in ev.get("diagnostics", [])]
        if ev.get("path"):
            ev["path"] = relative_path(ev["path"], root)
        out[q] = ev
    if failed and failed.get("path"):
        failed = dict(failed, path=relative_path(failed["path"], root))
    return out, failed


def _display(rel: str, fp: FilePlan) -> str:
    return _shown(rel, fp.task, fp.root)


def _shown(rel: str, task: Any, root: Path) -> str:
    """A root-relative (or absolute) path the worker or a recording gave, as shown: the
    one place the dynamic phase's paths (as the cache and recordings keep them) become
    display paths. Spelled through the root the way the checked file was named, so that
    a tree reached through a symlinked folder shows every finding under that folder, as
    its static findings are."""
    from jaxlint.files.discovery import display_path

    p = Path(rel)
    if p.is_absolute():
        return display_path(p)
    return display_path(_spelled_root(task, root) / p)


def _spelled_root(task: Any, root: Path) -> Path:
    """The project root as the checked file's path names it (``root`` is resolved)."""
    from jaxlint.files.discovery import resolved

    try:
        inner = resolved(task.path).relative_to(root).parts
    except ValueError:
        return root
    given = task.path.parts
    if inner and given[-len(inner):] == inner and len(given) > len(inner):
        return Path(*given[:-len(inner)])
    return root


def _is_file(rel: str, root: Path) -> bool:
    return (Path(rel) if Path(rel).is_absolute() else root / rel).is_file()


def _place(rel: str | None, line: int | None, fp: FilePlan, fallback: int) -> tuple[str, int]:
    """A reported place that is a real file: a path the worker gave that is not one
    (``<frozen importlib._bootstrap>``, ``<string>``) becomes the checked file."""
    if rel and _is_file(rel, fp.root):
        return _display(rel, fp), int(line or 1)
    return fp.task.display, int(line or fallback) if not rel else fallback


def _assemble(fp: FilePlan, value: dict, report: DynamicReport) -> None:
    display = fp.task.display
    _add_findings(fp, fp.eager, report, 1)  # the program's compiles outside its jitted functions
    failed = value.get("failed")
    if failed and any(p.observed_clean for p in fp.plans):
        # a module the recorded program ran that does not import outside it (devices, a
        # mesh, a global its main sets): the recording is what is out of date
        why = f"{observations.OUT_OF_DATE}: importing it outside the recorded program failed ({failed['reason']})"
        for p in fp.plans:
            report.functions.append(FunctionOutcome(display, p.entry.qualname, p.entry.line, "skipped",
                                                    why if p.skip is None else p.skip))
        report.stale.extend(fp.stale)
        return
    if failed:
        path, line = _place(failed.get("path"), failed.get("line"), fp, 1)
        report.diagnostics.append(failure_diagnostic(path, line, f"could not analyze {display}: {failed['reason']}",
                                                     fp.module, None))
        report.files_failed.append((display, failed["reason"]))
        for p in fp.plans:
            if p.skip is not None:
                report.functions.append(FunctionOutcome(display, p.entry.qualname, p.entry.line, "skipped", p.skip))
        return
    functions = value.get("functions", {})
    for obs in fp.observed_extra:
        _assemble_observed(fp, obs, report, obs.get("line") or 1)
    report.stale.extend(fp.stale)
    for p in fp.plans:
        e = p.entry
        if p.observed is not None:
            _assemble_observed(fp, p.observed, report, e.line)
            continue
        if p.skip is not None:
            report.functions.append(FunctionOutcome(display, e.qualname, e.line, "skipped", p.skip))
            continue
        ev = functions.get(e.qualname)
        if ev is None:
            continue
        status = ev.get("status", "failed")
        src = (p.spec or {}).get("source")
        report.functions.append(FunctionOutcome(display, e.qualname, e.line, status, ev.get("reason"), src,
                                                sum((ev.get("timings") or {}).values()), ev.get("report"),
                                                fp.module))
        _add_findings(fp, ev.get("diagnostics", []), report, e.def_line)
        report.rule_errors.extend(ev.get("rule_errors", []))
        if status == "failed":
            path, line = _place(ev.get("path"), ev.get("line"), fp, e.def_line)
            report.diagnostics.append(failure_diagnostic(
                path, line, f"could not analyze `{e.qualname}`: {ev.get('reason')}", fp.module, e.qualname))


def _assemble_observed(fp: FilePlan, obs: dict, report: "DynamicReport", line: int) -> None:
    """A function `jaxlint record` observed: its findings as they were made in the program."""
    display = fp.task.display
    status = obs.get("status") or "called"
    reason: str | None
    if status == "inlined":
        status, reason = "analysed", "called only inside other jitted functions (analysed as part of them)"
    elif obs.get("traced"):
        status, reason = "analysed", obs.get("reason") if obs.get("reason") in (
            observations.REDEFINED, observations.LIBRARY_JIT) else None
    else:
        status = "failed" if status == "failed" else "skipped"
        reason = f"observed by `jaxlint record`, but {obs.get('reason') or 'never traced'}"
    rep = obs.get("report")
    diagnostics = obs.get("diagnostics") or []
    if "compile" in report.levels and "compile" not in (obs.get("levels") or ()) and status == "analysed":
        how = "the file runs at import" if fp.script is not None else "the function is not reachable after import"
        rep = dict(rep or {}, compile_skipped=f"not compiled: `jaxlint record` ran without --compile, and {how}: "
                                              f"record with `{record_command(display, report.levels)}`")
    elif "compile" in report.levels and status == "analysed" and not _same_target(obs, _target_of(fp), ("compile",)):
        # compiled for the backend the program ran on, not for the target: its figures and
        # compile findings would be another chip's
        from jaxlint.registry import rules_by_code
        from jaxlint.rule import Phase

        by_code = rules_by_code()
        diagnostics = [d for d in diagnostics if getattr(by_code.get(d.get("code")), "phase", None) != Phase.COMPILE]
        recorded_for = (obs.get("target") or {}).get("name") or (obs.get("versions") or {}).get("backend") or "cpu"
        target = _target_of(fp)
        how = f"jaxlint record --target {target.name}" if target is not None else "jaxlint record --compile"
        rep = {k: v for k, v in (rep or {}).items() if k in ("equations", "constant_bytes")}
        rep["compile_skipped"] = (f"not compiled for the target: `jaxlint record` compiled it for {recorded_for}, and "
                                  f"the function is not reachable after import: `{how} -- python {display}` compiles "
                                  "it in the program")
    report.functions.append(FunctionOutcome(display, obs.get("qualname", "?"), line, status, reason,
                                            "observed", float(obs.get("seconds") or 0), rep, fp.module))
    report.observed.append(obs)
    if not report.versions and isinstance(obs.get("versions"), dict):
        report.versions = dict(obs["versions"])
    _add_findings(fp, diagnostics, report, line)


def _target_of(fp: FilePlan):
    from jaxlint.targets import TargetError

    try:
        return fp.task.settings.dynamic.resolved_target()
    except TargetError:
        return None


def _add_findings(fp: FilePlan, diagnostics: list[dict], report: "DynamicReport", def_line: int) -> None:
    """Findings with root-relative paths, as shown paths. A helper's line reached from
    several traced functions (or from the recording and a worker) is one finding: the
    first one's (its figures differ under grad or vmap, the problem does not). Never a
    place that is not a file of the project: such a finding is put at the function's
    ``def_line`` in the checked file, and such a related place is dropped."""
    for d in diagnostics:
        d = dict(d)
        if _is_file(d["filename"], fp.root):
            d["filename"] = _display(d["filename"], fp)
        else:
            d.update(filename=fp.task.display, location={"row": def_line, "column": 1},
                     end_location={"row": def_line, "column": 1}, noqa_row=def_line)
        d["related"] = [dict(r, filename=_display(r["filename"], fp)) for r in d.get("related", [])
                        if _is_file(r["filename"], fp.root)]
        # the file of the jitted function: one identity for the finding wherever it is
        # reported (its definition, or the call site a recording saw), for the baseline
        d["data"] = {**(d.get("data") or {}), HOME: fp.task.display}
        key = (d["code"], d["filename"], d["location"]["row"], d["location"]["column"])
        if key not in report.seen:
            report.seen.add(key)
            report.diagnostics.append(Diagnostic.from_dict(d))


def failure_diagnostic(path: str, line: int, message: str, module: str, qualname: str | None) -> Diagnostic:
    from jaxlint.findings.engine import AnalysisFailed as rule

    pos = Position(int(line), 1)
    return Diagnostic(code=rule.code, name=rule.name, message=message, path=path, start=pos, end=pos,
                      severity=rule.severity, phase=Phase.TRACE,
                      data={"module": module, "function": qualname},
                      signature=f"{qualname or '<module>'}:{rule.name}", noqa_line=int(line))


def check_signatures_option(path: str | None) -> None:
    if path is not None and not Path(path).is_file():
        raise ConfigError(f"--signatures: no such file: {path}")
