"""The subprocess behind ``jaxlint inspect``: imports the user's module, traces, lowers
and compiles one function, and returns every stage as text plus the compile facts.

Run as ``python -m jaxlint.inspect_worker``: one JSON request on stdin, one JSON
answer on stdout (user ``print`` output goes to stderr). Inputs, module import and
argument building are the trace tier's (``jaxlint.dynamic.worker``).
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from typing import Any


def _jaxpr_rows(closed, path: str) -> list[dict]:
    """The pretty-printed jaxpr, one row per text line, with each equation's user line."""
    from jaxlint.dynamic import adapter

    rows = []
    for line in adapter.jaxpr_text(closed).splitlines():
        body, sep, comment = line.partition(" # ")
        if not sep and line.rstrip().endswith("#"):
            body, comment = line.rstrip()[:-1], ""
        loc = _parse_summary(comment.strip()) if sep else None
        rows.append({"text": body.rstrip(), "file": loc[0] if loc else None, "line": loc[1] if loc else None})
    return rows


def _parse_summary(s: str) -> tuple[str, int] | None:
    """``/p/m.py:12:4 (fn)`` -> (path, 12)."""
    head = s.split(" (", 1)[0]
    parts = head.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return parts[0], int(parts[1])
    if len(parts) >= 2 and parts[-1].isdigit():
        return ":".join(parts[:-1]), int(parts[-1])
    return None


def _equations_by_line(closed, path: str) -> dict[str, int]:
    from jaxlint.dynamic import adapter

    counts: dict[str, int] = {}
    for lv in adapter.walk(closed):
        for eqn in lv.jaxpr.eqns:
            frames = adapter.frames(eqn.source_info)
            mine = [f for f in frames if os.path.abspath(f.file) == path] or frames
            if mine:
                key = f"{os.path.abspath(mine[0].file)}:{mine[0].line}"
                counts[key] = counts.get(key, 0) + 1
    return counts


def _constants(closed, function, path: str) -> list[dict]:
    """Constants baked into the jaxpr, with a name and the line of their first consumer."""
    from jaxlint.dynamic import adapter
    from jaxlint.dynamic.analysis import FunctionAnalysis

    fa = FunctionAnalysis(path=path, module="", qualname="", entry={}, spec=None, versions={})
    fa.function = function
    fa.jaxpr = closed
    out = []
    for var, value, lv in adapter.constant_inputs(closed):
        aval = adapter.aval_of(var)
        line = None
        for eqn in lv.jaxpr.eqns:
            if any(v is var for v in eqn.invars):
                site = fa.site(eqn)
                line = site.line if site is not None else None
                break
        out.append({"name": fa.name_of_value(value) or "", "shape": list(adapter.shape_of(aval)),
                    "dtype": adapter.dtype_name(aval), "bytes": adapter.nbytes(aval), "line": line})
    return out


def _stablehlo_text(lowered) -> str:
    # large constants elided: never print a lowering that holds big arrays in full
    try:
        module = lowered.compiler_ir("stablehlo")
        return module.operation.get_asm(enable_debug_info=True, large_elements_limit=16)
    except Exception:
        return lowered.as_text()


def stages(traced, original, path: str, function: str, line: int, backend: str, *, captured=None, facts=None,
           max_constant_bytes: int = 64 << 20) -> dict:
    """Every stage of one traced function as ``jaxlint inspect`` shows it: the jaxpr rows,
    equations per line, constants, the lowered StableHLO and the compile facts.
    ``captured``/``facts``: what a program observed by ``jaxlint record`` already
    compiled and measured (nothing is compiled again)."""
    from jaxlint.compile_tier import analyse

    closed = traced.jaxpr
    constants = _constants(closed, original, path)
    out: dict[str, Any] = {
        "ok": True,
        "jaxpr": _jaxpr_rows(closed, path),
        "equations": _equations_by_line(closed, path),
        "constants": constants,
    }
    if captured is None and facts is None and sum(c["bytes"] for c in constants) > max_constant_bytes:
        out["skipped"] = "not lowered or compiled: the program holds more than 64 MiB of constants"
        return out
    t1 = time.perf_counter()
    lowered = traced.lower()
    lower_s = time.perf_counter() - t1
    out["stablehlo"] = _stablehlo_text(lowered)
    if facts is None:
        facts = analyse(traced, function=function, file=path, line=line, requested_backend=backend,
                        trace_facts={"equations": sum(out["equations"].values()), "constants": constants},
                        captured=captured)
        facts.lower_seconds = max(facts.lower_seconds, lower_s)  # jax reused the lowering above
    out["facts"] = facts.to_dict()
    return out


def run(req: dict) -> dict:
    from jaxlint.dynamic.worker import (
        InputError, add_sys_path, essence, import_user_module, jitted_for, resolve_target, static_value_names,
        trace_args, user_line,
    )

    path = os.path.abspath(req["path"])
    roots = add_sys_path(req.get("sys_path", []))
    try:
        import jax

        from jaxlint.compile_tier import enable_persistent_cache

        if req.get("xla_cache"):
            enable_persistent_cache(req["xla_cache"])
        module = import_user_module(req["module"], path)
        spec = req["spec"]
        entry = req.get("entry")
        if entry is not None:
            # a jit map entry: trace it as the dynamic phase does (a recorded model or
            # `self` from its saved arguments, filter_jit / nnx.jit / pmap as they trace)
            obj, original = resolve_target(module, entry, spec)
            jitted = jitted_for(obj, original, entry, static_value_names(spec, original), spec)
        else:
            obj = module
            for part in req["function"].split("."):
                obj = getattr(obj, part)
            original = getattr(obj, "__wrapped__", obj)
            statics = static_value_names(spec, original)
            jitted = obj if hasattr(obj, "trace") and not statics else jax.jit(original, static_argnames=tuple(statics))
        args, kwargs = trace_args(original, spec, req.get("dimensions") or {}, False)
        t1 = time.perf_counter()
        traced = jitted.trace(*args, **kwargs)
        trace_s = time.perf_counter() - t1
        out = stages(traced, original, path, req["function"], req.get("line") or 1, req.get("backend", "cpu"),
                     max_constant_bytes=req.get("max_constant_bytes") or 64 << 20)
        out["trace_seconds"] = trace_s
        return out
    except InputError as e:
        return {"ok": False, "error": f"cannot build the inputs: {e}"}
    except SystemExit as e:
        return {"ok": False, "error": f"the module called sys.exit({e.code!r})"}
    except BaseException as e:
        where = user_line(e.__traceback__, path, roots, e)
        return {"ok": False, "error": essence(e), "file": where[0] if where else None,
                "line": where[1] if where else None, "traceback": traceback.format_exc(limit=-8)}


def main() -> int:
    # the same isolation and memory cap as a ``check --dynamic`` worker
    from jaxlint.dynamic.worker import isolate_stdio, limit_memory

    proto_in, out = isolate_stdio()
    limit_memory()
    out.send(run(json.loads(proto_in.read())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
