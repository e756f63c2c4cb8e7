"""The compile tier's analyser (registered for the ``compile`` level).

After a function is traced and the trace rules ran, this lowers and compiles it for
the backend present, with jax's persistent compilation cache on (in a program that
``jaxlint record`` observes, it reads the executable the program itself compiled,
``fa.captured``, and compiles nothing), and leaves
:class:`jaxlint.compile.facts.CompileFacts` in ``fa.compile_facts`` for the
``CompileRule``s and the function's summary in ``fa.compile_report``. It does not compile
when the trace tier already reported what makes compiling slow and large (big constants,
constant folding, a huge program): the reason is ``fa.compile_report["compile_skipped"]``.

Environment (set by the parent for the worker): ``JAXLINT_XLA_CACHE`` (the persistent
cache folder; unset: no cache), ``JAXLINT_BACKEND`` (the configured backend).
"""
from __future__ import annotations

import ast
import inspect
import os
import sys
import time
import types
from typing import Any, cast

from jaxlint.compile.facts import GivenFunction, MappedLine, TraceFacts, is_library_path
from jaxlint.compile.tier import analyse, enable_persistent_cache
from jaxlint.dynamic import adapter
from jaxlint.dynamic.analysis import FunctionAnalysis

#: compile nothing whose constants (baked in, or that XLA would fold) exceed this: a
#: 100 MB captured array lowers to 200 MB of text and compiles for seconds (docs/compile.md)
MAX_CONSTANT_BYTES = 64 << 20


def trace_facts(fa: FunctionAnalysis) -> TraceFacts:
    """What the compile rules may quote from the trace tier: its equations and constants,
    and the findings of every rule that declares a ``trace_fact`` key."""
    equations = sum(len(lv.jaxpr.eqns) for lv in fa.levels())
    constants = []
    for var, _value, _lv in adapter.constant_inputs(fa.jaxpr):
        aval = adapter.aval_of(var)
        n = adapter.nbytes(aval)
        if n >= 1024:
            constants.append({"shape": list(adapter.shape_of(aval)), "dtype": adapter.dtype_name(aval), "bytes": n})
    facts: dict[str, Any] = {"equations": equations, "constants": constants}
    # the lines that ask for a sharding (a reshard XLA makes for one points at its producer)
    constraints = []
    for eqn, lv in fa.equations():
        if adapter.primitive_name(eqn) == "sharding_constraint":
            site = fa.site(eqn, lv)
            if site is not None:
                constraints.append({"file": site.path, "line": site.line})
    if constraints:
        facts["sharding_constraints"] = constraints
    given = given_functions(fa.function)
    if given:
        facts["given"] = given
    mapped = vmapped(fa)
    if mapped is not None:
        facts["vmapped"] = mapped
    for d in fa.diagnostics:
        key = getattr(fa.rules_run.get(d.code), "trace_fact", None)
        if key is not None:
            facts.setdefault(key, []).append({**(d.data or {}), "code": d.code, "file": d.path, "line": d.start.line})
    return cast(TraceFacts, facts)  # the keys: TraceFacts's (tests/test_registry.py)


def vmapped(fa: FunctionAnalysis) -> MappedLine | None:
    """Where the jitted function is ``jax.vmap`` of the user's (``jit(vmap(f))``, ``@jit
    @vmap``) and the size of the axis it maps (every mapped argument's): the line that
    decides how much of the batch one call holds at once. None when it is not, or the
    size is not one number (``in_axes`` per argument)."""
    found = None
    for fn in (fa.jitted, fa.wrapped):
        for _ in range(16):
            if fn is None:
                break
            code = getattr(fn, "__code__", None)
            if code is not None and code.co_name == "vmap_f" and adapter.is_library_file(code.co_filename):
                found = fn
                break
            if code is not None and code.co_name == "reraise_with_filtered_traceback":
                # jax's traceback filter around an API function: the function is its `fun`
                try:
                    inner = inspect.getclosurevars(fn).nonlocals.get("fun")
                except (TypeError, ValueError):
                    inner = None
                if inner is not None:
                    fn = inner
                    continue
            fn = getattr(fn, "__wrapped__", None)
    if found is None or fa.jaxpr is None:
        return None
    try:
        free = inspect.getclosurevars(found).nonlocals
    except (TypeError, ValueError):
        return None
    size, axis = free.get("axis_size"), free.get("in_axes", 0)
    if not isinstance(size, int):
        if not isinstance(axis, int):
            return None
        dims = {adapter.shape_of(adapter.aval_of(v))[axis] for v in fa.jaxpr.jaxpr.invars
                if len(adapter.shape_of(adapter.aval_of(v))) > axis}
        if len(dims) != 1 or not isinstance(next(iter(dims)), int):
            return None
        size = next(iter(dims))
    # the `@vmap` decorator of the definition, else the line that jits (`jit(vmap(f))`)
    line = int(fa.entry.get("line") or 0)
    def_line = int(fa.entry.get("def_line") or 0)
    for node in ast.walk(fa.tree) if fa.tree is not None and def_line else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == def_line:
            line = next((d.lineno for d in node.decorator_list if "vmap" in ast.unparse(d)), line)
    return {"file": fa.path, "line": line, "size": size} if line else None


def given_functions(fn: Any) -> list[GivenFunction]:
    """The functions a library's factory closed over when it made ``fn`` (a library
    function the program jits: ``jit(elasticity.athermal_moduli(energy_fn))``): what the
    caller gave it, which a compile rule can follow back to the caller's line."""
    code = getattr(fn, "__code__", None)
    qualname = str(getattr(fn, "__qualname__", ""))
    if code is None or not getattr(fn, "__closure__", None) or ".<locals>." not in qualname \
            or not is_library_path(code.co_filename):
        return []
    factory = qualname.split(".<locals>.")[0].rsplit(".", 1)[-1]
    made_by = getattr(sys.modules.get(str(getattr(fn, "__module__", ""))), factory, None)
    try:
        params = list(inspect.signature(made_by).parameters) if callable(made_by) else []
    except (TypeError, ValueError):
        params = []
    out: list[GivenFunction] = []
    for name, cell in zip(code.co_freevars, fn.__closure__):
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        inner = getattr(value, "__code__", None)
        if inner is None or not isinstance(value, types.FunctionType):
            continue
        lines = [n for *_, n in inner.co_lines() if n is not None]
        out.append({"name": name, "index": params.index(name) if name in params else -1, "factory": factory,
                    "file": inner.co_filename, "function": value.__qualname__, "first": inner.co_firstlineno,
                    "last": max(lines, default=inner.co_firstlineno)})
    return out


def skip_reason(fa: FunctionAnalysis, facts: TraceFacts) -> str | None:
    quiet = fa.skip_compile
    if quiet:  # a rule that stayed quiet (another finding names the cause) still vouches for it
        return f"not compiled: the trace tier found {quiet}"
    for d in fa.diagnostics:
        rule = fa.rules_run.get(d.code)
        why = getattr(rule, "skip_compile_reason", None)
        if why is not None:
            return f"not compiled: the trace tier found {why} ({d.code} at line {d.start.line})"
        if getattr(rule, "constant_finding", False) and int((d.data or {}).get("bytes") or 0) > MAX_CONSTANT_BYTES:
            return (f"not compiled: {int(d.data['bytes']) >> 20} MiB of constants ({d.code} at line "
                    f"{d.start.line}) would make XLA slow and large")
    total = sum(c["bytes"] for c in facts.get("constants", ()))
    if total > MAX_CONSTANT_BYTES:
        return f"not compiled: {total >> 20} MiB of constants are baked into the program"
    return None


def compile_function(fa: FunctionAnalysis) -> None:
    if fa.traced is None or fa.jaxpr is None:
        return
    t0 = time.perf_counter()
    facts = trace_facts(fa)
    report: dict[str, Any] = {"equations": facts.get("equations", 0),
                              "constant_bytes": sum(c["bytes"] for c in facts.get("constants", ()))}
    fa.compile_report = report
    captured = fa.captured
    reason = skip_reason(fa, facts) if captured is None else None  # what the program compiled is free to read
    if reason is not None:
        report["compile_skipped"] = reason
        return
    cache = os.environ.get("JAXLINT_XLA_CACHE")
    if cache and captured is None:
        enable_persistent_cache(cache)
    from jaxlint.dynamic import placement

    target = placement.active() if captured is None else None
    cf = fa.compile_facts = analyse(
        fa.traced,
        function=fa.qualname,
        file=fa.path,
        line=fa.def_site().line,
        # an observed program's backend is the one it ran on
        requested_backend=(captured.platform()[0] if captured is not None else target.backend if target else
                           os.environ.get("JAXLINT_BACKEND") or os.environ.get("JAX_PLATFORMS", "cpu")),
        platforms=placement.platforms() if target is not None else None,
        trace_facts=facts,
        captured=captured,
        warnings_seen=fa.call.warnings if fa.call is not None else (),
        shardings=(fa.call.shardings or None) if fa.call is not None and captured is not None else None,
    )
    if target is not None and target.hbm_gib is not None:  # the target's `hbm-gib` (JAX315 reads it)
        cf.hbm_bytes = target.hbm_bytes()
    cf.kind = str(fa.entry.get("kind") or "jit")
    cf.reused = dict(fa.reused)
    cf.sharing = tuple(fa.call.sharing) if fa.call is not None else ()
    made = fa.call_site()
    if made is not None:  # `step = jax.jit(f)`: where its keywords (donate_argnums) go (JAX302)
        cf.sites["jit"] = [made.path, made.line, made.column]
    donate = fa.donation_site()
    if donate is not None:  # where an unusable donation is undone (JAX302)
        cf.sites["donate"] = [donate.path, donate.line, donate.column]
    report.update({
        "compile_seconds": round(cf.compile_seconds, 4), "lower_seconds": round(cf.lower_seconds, 4),
        "flops": cf.cost.get("flops"), "bytes_accessed": cf.cost.get("bytes accessed"),
        "temp_bytes": cf.memory.get("temp_size_in_bytes"), "peak_bytes": cf.memory.get("peak_memory_in_bytes"),
        "hlo_instructions": len(cf.module.instructions), "platform": cf.platform,
        "requested_backend": cf.requested_backend, "observed": captured is not None,
        # everything this tier spent on the function (rules add theirs): the benchmark's numerator
        "tier_seconds": round(time.perf_counter() - t0, 4),
    })
    try:  # what `jaxlint budget` holds the function to: read from these facts, nothing compiled again
        from jaxlint.compile.figures import budget_figures

        report["budget"] = budget_figures(cf, fa.spec)
    except Exception as e:  # a budget cannot be made of this function; the rules still run
        report["budget_error"] = f"{type(e).__name__}: {e}"[:300]
    if cf.devices > 1:  # several devices: the collectives' bytes per call, per device (budgets read it)
        report.update({"devices": cf.devices, "collective_bytes": cf.collective_bytes(),
                       "collectives": len(cf.collectives)})
    if cf.unavailable:  # the rules that read these statistics cannot fire: the summary says so
        report["statistics_unavailable"] = list(cf.unavailable)

