"""``jaxlint inspect path/to/file.py::function``: the intermediate program made readable.

Shows what tracing captured (jaxpr), what jax handed to XLA (StableHLO) and what XLA
made of it (optimized HLO), each line annotated with the user's source line, plus a
per-line summary, the constants, cost and memory figures and the compile-tier
findings. The user's code runs only in a worker subprocess (``jaxlint.inspect.worker``);
this process never imports jax. A function that `jaxlint record --keep-ir` observed
(``main.<locals>.update``, a factory's closure) is shown from the programs the
recording kept, while its code is unchanged: nothing is imported or run.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from jaxlint.config import ConfigError
from jaxlint.process.launch import module_command

STAGE_CHOICES = ("jaxpr", "stablehlo", "hlo", "all")


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("inspect", help="show the jaxpr, StableHLO and optimized HLO of one function, "
                                       "annotated with source lines and costs")
    p.add_argument("target", help="path/to/file.py::function")
    p.add_argument("--stage", choices=STAGE_CHOICES, default="all", help="which program to print (default: all)")
    p.add_argument("--format", choices=("text", "html"), default="text")
    p.add_argument("-o", "--output-file", help="write the report here (required for --format html)")
    p.add_argument("--args", dest="spec_args", metavar="SPEC",
                   help="inputs, as in a directive: '(f32[8,128], i32[8])' (default: the function's directive, "
                        "config entry, recorded signature or example call)")
    p.add_argument("--static", metavar="JSON", help='static argument values, e.g. \'{"n": 4}\'')
    p.add_argument("--backend", help="cpu, gpu or tpu (default: the configured backend)")
    p.add_argument("--timeout", type=_seconds, default=None, help="seconds for the worker (default: compile-timeout)")
    p.add_argument("--no-cache", action="store_true", help="do not use jax's persistent compilation cache")
    p.add_argument("--cache-dir")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    from jaxlint.pipeline import add_check_flag, add_config_flag

    add_config_flag(p)
    add_check_flag(p, "target", dest="compile_target")  # `target` is the function to inspect
    return p


def _seconds(value: str) -> float:
    import math

    try:
        t = float(value)
    except ValueError:
        t = math.nan
    if not math.isfinite(t) or t <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {value!r}")
    return t


def parse_target(target: str) -> tuple[Path, str]:
    path, sep, fn = target.partition("::")
    if not sep or not fn:
        raise ConfigError(f"inspect: target must be path/to/file.py::function, got `{target}`")
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"inspect: no such file: {path}")
    return p, fn


def resolve_inputs(path: Path, function: str, settings, args) -> tuple[dict, str, int, str, list[str], dict | None]:
    """(spec, where the inputs come from, def line, module name, sys.path entries, the
    jit map's entry when the function is one: its transform, statics, method-ness)."""
    from jaxlint.files.discovery import FileTask, display_path
    from jaxlint.dynamic import project, signatures
    from jaxlint.dynamic.driver import plan_file
    from jaxlint.config.inputspec import SpecError, spec_from_parts

    root = project.project_root(path, settings.root if settings.config_file else None)
    modname, base = project.module_name(path, root)
    sys_path = [str(p) for p in dict.fromkeys([base, *project.import_roots(root)])]
    task = FileTask(path.resolve(), display_path(path.resolve()), settings)
    sig_file = root / settings.dynamic.signatures
    # the file's place matters: a recorded model's saved arguments live beside it
    fp = plan_file(task, settings, signatures.load(sig_file), sig_file)
    plan = None
    if fp is not None:
        plan = next((pl for pl in fp.plans if function in (pl.entry.qualname, pl.entry.bound_name, pl.entry.name)),
                    None)
    line = _def_line(path, function) or (plan.entry.def_line if plan else 1)
    if args.spec_args or args.static:
        try:
            static = json.loads(args.static) if args.static else None
        except json.JSONDecodeError as e:
            raise ConfigError(f"--static: not JSON: {e}") from None
        try:
            spec = spec_from_parts(args.spec_args, None, static, "command line", "--args")
        except SpecError as e:
            raise ConfigError(f"--args: {e}") from None
        return spec, "--args", line, modname, sys_path, plan.entry.to_dict() if plan else None
    if plan is None:
        directive = _directive_spec(path, function)
        if directive is not None:
            return directive, f"directive ({directive['where']})", line, modname, sys_path, None
        raise ConfigError(f"inspect: `{function}` is not a jitted function of {path} and has no "
                          f"`# jaxlint: args=...` directive; pass --args '(f32[8,128], ...)'")
    if plan.spec is None:
        if "<locals>" in plan.entry.qualname or (fp is not None and fp.script is not None):
            # --args cannot help: the function is reached only by running the program
            why = ("it is defined inside a function, so it is not reachable after import"
                   if "<locals>" in plan.entry.qualname else f"{task.display} runs at import")
            raise ConfigError(f"inspect: `{function}`: {why}; record the program with its programs kept, then "
                              f"inspect it again: `jaxlint record --keep-ir -- python {task.display}`")
        raise ConfigError(f"inspect: no inputs for `{function}`: {plan.skip}; pass --args '(f32[8,128], ...)'")
    return (plan.spec, f"{plan.spec.get('source')} ({plan.spec.get('where')})", line, modname, sys_path,
            plan.entry.to_dict())


def _def_line(path: Path, function: str) -> int | None:
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    node: ast.AST | None = tree
    for part in function.split("."):
        node = next((n for n in getattr(node, "body", []) if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
    return getattr(node, "lineno", None)


def _directive_spec(path: Path, function: str) -> dict | None:
    import ast

    from jaxlint.dynamic import inputs as inp
    from jaxlint.config.inputspec import spec_from_parts

    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = inp.directives(lines)
    for n in ast.walk(ast.parse(text)):
        if isinstance(n, ast.FunctionDef) and n.name == function.split(".")[-1]:
            d = inp.directive_for(lines, found, n)
            if d is not None:
                args, kwargs, static, _ = inp.parse_directive(d[1])
                return spec_from_parts(args, kwargs, static, "directive", f"line {d[0]}")
    return None


def run_worker(req: dict, dynamic, timeout: float) -> dict:
    """Run :mod:`jaxlint.inspect.worker` with the environment of a ``check --dynamic``
    worker for the ``dynamic`` settings (backend, x64, memory cap)."""
    from jaxlint.process import procs
    from jaxlint.dynamic.pool import worker_env
    from jaxlint.inspect import worker as inspect_worker

    tag = procs.new_tag()  # the worker runs user code: its own session, and nothing left behind
    proc = subprocess.Popen(module_command(inspect_worker.__name__), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=procs.tagged(worker_env(dynamic), tag), start_new_session=True)
    try:
        out, err = proc.communicate(json.dumps(req), timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {timeout:g} s"}
    finally:
        procs.stop(proc, tag)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
    try:
        return json.loads(out)
    except json.JSONDecodeError:
        if re.search(r"ModuleNotFoundError: No module named '(jax|jaxlib)'", err):
            from jaxlint.install import missing_extra

            return {"ok": False, "error": missing_extra("dynamic", "`jaxlint inspect`")}
        tail = "\n".join(err.strip().splitlines()[-5:])
        why = f"the worker exited with status {proc.returncode}" + (f":\n{tail}" if tail else "")
        return {"ok": False, "error": why}


def compile_rules(settings):
    from jaxlint.registry import select_rules

    classes = select_rules(settings.select, settings.extend_select, settings.ignore, ("compile",),
                           settings.preview)
    # a role rule's findings are the engine's to make (the cost budget's, by `check`), as in the pipeline
    return [cls(settings.rule_options.get(cls.code, {})) for cls in classes if cls.role is None]


def run(args) -> int:
    from jaxlint.config import cache_dir
    from jaxlint.compile.tier import compile_cache_dir
    from jaxlint.pipeline import config_resolver

    if args.format == "html" and not args.output_file:
        raise ConfigError("inspect: --format html needs -o FILE")
    path, function = parse_target(args.target)
    config = list(args.config or [])
    if args.compile_target is not None:  # the last layer, as check's --target
        config.append(f"dynamic.target = {json.dumps(args.compile_target)}")
    settings = config_resolver(config).for_dir(path.resolve().parent)
    # a program the recording kept is the recorded backend's: with a target, compile again
    seen = None if (args.spec_args or args.static or args.compile_target) else observed_program(path, function,
                                                                                                   settings)
    if seen is not None and seen[0] is not None:
        return _show(args, settings, path, seen[2], seen[0], seen[1])
    try:
        spec, inputs, line, modname, sys_path, entry = resolve_inputs(path, function, settings, args)
    except ConfigError as e:
        if seen is not None:  # observed, but its programs were not kept
            raise ConfigError(f"{e}; `jaxlint record` observed `{seen[2]}` but did not keep its programs: run "
                              f"`jaxlint record --keep-ir -- <your command>`") from None
        raise
    import importlib.util

    if importlib.util.find_spec("jax") is None:  # a static-only install
        from jaxlint.install import missing_extra

        raise ConfigError(f"inspect: {missing_extra('dynamic', '`jaxlint inspect`')}")
    backend = args.backend or settings.dynamic.backend
    xla_cache = None
    if not args.no_cache:
        root = cache_dir(args.cache_dir, settings)
        xla_cache = str(compile_cache_dir(root))
    req = {"path": str(path.resolve()), "module": modname, "function": function, "spec": spec, "entry": entry,
           "sys_path": sys_path, "backend": backend, "xla_cache": xla_cache, "line": line,
           "dimensions": {"defaults": dict(settings.dynamic.dimension_defaults),
                          "default": settings.dynamic.default_dimension}}
    timeout = args.timeout or settings.dynamic.function_timeout + settings.dynamic.compile_timeout
    from jaxlint.dynamic.pool import WorkerStartError

    dynamic = dataclasses.replace(settings.dynamic, backend=backend)
    if backend == "cpu" and not dynamic.devices:  # as `check` does: the recorded program's mesh needs its devices
        dynamic = dataclasses.replace(dynamic, devices=recorded_devices(path, settings))
    try:
        answer = run_worker(req, dynamic, timeout)
    except WorkerStartError as e:  # a target this machine cannot compile for
        raise ConfigError(f"inspect: {e}") from None
    return _show(args, settings, path, function, answer, inputs)


def recorded_devices(path: Path, settings) -> int:
    """The devices the project's recorded programs ran on (0: none recorded), as ``check
    --dynamic`` gives its workers."""
    from jaxlint.dynamic import project
    from jaxlint.dynamic import observed as observations
    from jaxlint.dynamic.driver import recorded_device_count

    root = project.project_root(path, settings.root if settings.config_file else None)
    return recorded_device_count(observations.load(observations.path_for(root / settings.dynamic.signatures))
                                 ["programs"])


def observed_program(path: Path, function: str, settings) -> tuple[dict | None, str, str] | None:
    """(the programs `jaxlint record --keep-ir` kept for ``function`` of ``path`` or None
    when none were kept, where its inputs came from, its qualified name), when the
    recording observed it and the code is unchanged since; else None. ``function`` is
    the qualified name (``main.<locals>.update``) or, when unambiguous, its last part."""
    from jaxlint.dynamic import project
    from jaxlint.dynamic import observed as observations

    root = project.project_root(path, settings.root if settings.config_file else None)
    obs_path = observations.path_for(root / settings.dynamic.signatures)
    try:
        functions = observations.load(obs_path)["functions"]
    except ConfigError:
        return None
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    mine = [e for e in functions.values() if e.get("file") == rel and observations.is_current(e, root)]
    hits = [e for e in mine if e.get("qualname") == function] or \
           [e for e in mine if str(e.get("qualname", "")).rsplit(".", 1)[-1] == function]
    if len(hits) != 1:
        return None
    e = hits[0]
    answer = observations.read_ir(obs_path, e["ir"]) if e.get("ir") else None
    where = f"observed by `jaxlint record`, first called at {e.get('first_call') or '?'}"
    return answer, where, e["qualname"]


def _show(args, settings, path: Path, function: str, answer: dict, inputs: str) -> int:
    from jaxlint.dynamic.analysis import FunctionAnalysis, run_rules
    from jaxlint.files.discovery import display_path
    from jaxlint.inspect.view import build_view

    display = display_path(path.resolve())
    if not answer.get("ok"):
        where = f"{answer['file']}:{answer['line']}: " if answer.get("file") else ""
        print(f"jaxlint: error: inspect {display}::{function}: {where}{answer.get('error')}", file=sys.stderr)
        return 2
    source = path.read_text(encoding="utf-8", errors="replace").splitlines()
    view = build_view(answer, function=function, file=str(path), display=display, inputs=inputs, source=source,
                      def_line=_def_line(path, function) or 0)
    if view.facts is not None:
        # the compile rules run as in a worker, on an analysis that holds only what was compiled
        fa = FunctionAnalysis(path=str(path), module="", qualname=view.facts.function, entry={}, spec=None,
                              versions={}, compile_facts=view.facts)
        for e in run_rules(fa, compile_rules(settings)):
            print(f"jaxlint: warning: {e}", file=sys.stderr)
        shown = lambda p: display_path(Path(p)) if os.path.isabs(p) else p  # noqa: E731
        view.findings = sorted((d.shown_at(shown) for d in fa.diagnostics), key=lambda d: d.sort_key)
    if args.format == "html":
        from jaxlint.inspect.html import render_inspect

        text = render_inspect(view)
    else:
        color = args.color == "always" or (
            args.color == "auto" and sys.stdout.isatty() and not args.output_file and "NO_COLOR" not in os.environ)
        text = render_text(view, args.stage, color)
    from jaxlint.output import write_report

    write_report(text, args.output_file)
    return 0


# ---------------------------------------------------------------------------- text
def render_text(view, stage: str = "all", color: bool = False) -> str:
    from jaxlint.textutil import human_bytes
    from jaxlint.inspect.view import STAGES, source_snippet

    dim = (lambda s: f"\x1b[2m{s}\x1b[0m") if color else (lambda s: s)
    bold = (lambda s: f"\x1b[1m{s}\x1b[0m") if color else (lambda s: s)
    out: list[str] = [bold(f"{view.display}::{view.function}") + dim(f"  (inputs: {view.inputs})")]
    if view.skipped:
        out.append(f"note: {view.skipped}")
    titles = {"jaxpr": "jaxpr (what tracing captured)", "stablehlo": "StableHLO (what jax gives XLA)",
              "hlo": "optimized HLO (what XLA compiled)"}
    for name in STAGES:
        if stage not in ("all", name) or name not in view.stages:
            continue
        rows = view.stages[name]
        out.append("")
        out.append(bold(f"== {titles[name]} =="))
        out.append(dim(" line | program"))
        for r in rows:
            tag = f"{r.line:>5}" if r.line else (f"{r.where:>5}" if r.where else "     ")
            extra = f"  {dim('# ' + human_bytes(r.bytes))}" if r.bytes and r.kind else ""
            out.append(f"{tag} | {r.text}{extra}")
    out.append("")
    out.append(bold("== per source line =="))
    out.append(f"{'line':>5}  {'eqns':>5}  {'hlo':>5}  {'kernels':>7}  {'fusions':>7}  {'bytes':>10}  source")
    for ln in sorted(view.lines):
        s = view.lines[ln]
        out.append(f"{ln:>5}  {s.equations:>5}  {s.instructions:>5}  {s.kernels:>7}  {s.fusions:>7}  "
                   f"{human_bytes(s.bytes) if s.bytes else '-':>10}  {source_snippet(view, ln)}")
    out.append("")
    out.append(bold("== constants =="))
    if view.constants:
        out.append(f"{'stage':<6} {'name':<16} {'shape':<16} {'dtype':<9} {'bytes':>10}  line")
        for c in sorted(view.constants, key=lambda c: -c["bytes"]):
            shape = "[" + ",".join(map(str, c["shape"])) + "]"
            out.append(f"{c['stage']:<6} {(c['name'] or '?'):<16} {shape:<16} {c['dtype']:<9} "
                       f"{human_bytes(c['bytes']):>10}  {c['line'] or '-'}")
    else:
        out.append("(none)")
    if view.collectives:
        out.append("")
        out.append(bold("== collectives (per device) =="))
        out.append(f"{'kind':<18} {'bytes':>10} {'per call':>10}  {'loop':<6} {'where':<16} axis")
        for c in view.collectives:
            where = c["where"] + (" (via operand)" if c["via"] == "operand" else "")
            out.append(f"{c['kind']:<18} {human_bytes(c['bytes']):>10} {human_bytes(c['payload']):>10}  "
                       f"{(c['loop'] or '-'):<6} {where or '-':<16} {c['axis']}")
    pairs = view.summary_pairs()
    if pairs:
        out.append("")
        out.append(bold("== cost and memory =="))
        width = max(len(k) for k, _ in pairs)
        for k, v in pairs:
            out.append(f"{k:<{width}}  {v}")
    out.append("")
    out.append(bold("== findings (compile tier) =="))
    if view.findings:
        for d in view.findings:
            out.append(f"{d.path}:{d.start.line}:{d.start.column}: {d.code} {d.message}")
    else:
        out.append("(none)")
    return "\n".join(out) + "\n"
