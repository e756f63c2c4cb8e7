"""The subprocess behind ``jaxlint inspect``: imports the user's module, traces, lowers
and compiles one function, and returns every stage as text plus the compile facts.

Run as ``python -m jaxlint.inspect.worker``: one JSON request on stdin, one JSON
answer on stdout (user ``print`` output goes to stderr). Inputs, module import and
argument building are the trace tier's (``jaxlint.dynamic.worker``); the stages are
read by :func:`jaxlint.inspect.programs.stages`.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import traceback


def run(req: dict) -> dict:
    from jaxlint.dynamic.worker import (
        InputError, add_sys_path, essence, import_user_module, jitted_for, resolve_target, static_value_names,
        trace_args, user_line,
    )

    path = os.path.abspath(req["path"])
    roots = add_sys_path(req.get("sys_path", []))
    try:
        import jax

        from jaxlint.compile.tier import enable_persistent_cache

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
        from jaxlint.dynamic import placement

        # on a target's devices where one is set (a TPU slice, compiled deviceless)
        try:
            args, kwargs = placement.place(trace_args(original, spec, req.get("dimensions") or {}, False))
        except placement.PlacementError as e:
            raise InputError(str(e)) from None
        t1 = time.perf_counter()
        with placement.within(spec.get("mesh")) if placement.active() is not None else contextlib.nullcontext():
            traced = jitted.trace(*args, **kwargs)
        trace_s = time.perf_counter() - t1
        from jaxlint.inspect.programs import stages

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
    from jaxlint.inspect.levels import hand_rules

    hand_rules()
    proto_in, out = isolate_stdio()
    limit_memory()
    out.send(run(json.loads(proto_in.read())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
