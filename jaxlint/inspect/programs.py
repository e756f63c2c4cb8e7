"""Every stage of one traced function as text, as ``jaxlint inspect`` shows it: the jaxpr
rows with their source lines, equations per line, constants, the lowered StableHLO and
the compile facts. Runs where the function was traced (``jaxlint inspect``'s worker, a
program ``jaxlint record --keep-ir`` observes: the ``ir`` analysis level).
"""
from __future__ import annotations

import os
import re
import time
from typing import Any, cast


#: IR kept per function (``record --keep-ir``) is cut to this many characters per stage
MAX_IR_CHARS = 2_000_000


def _var_name(i: int) -> str:
    """a, b, ..., z, ba, bb, ...: jax's spelling of variable names."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = letters[i % 26]
    i //= 26
    while i:
        out = letters[i % 26] + out
        i //= 26
    return out


def _located(eqn, path: str) -> tuple[str, int] | None:
    """The equation's line: the innermost frame in the inspected file, else the innermost
    project frame (jax's own frames and installed packages never count)."""
    from jaxlint.dynamic import adapter

    frames = adapter.frames(eqn.source_info)
    mine = [f for f in frames if os.path.abspath(f.file) == path] or frames
    return (os.path.abspath(mine[0].file), mine[0].line) if mine else None


def _program(closed, path: str) -> tuple[list[dict], dict[str, int]]:
    """The jaxpr as rows of text, one row per equation (its sub-programs indented below
    it), each with its line, and the equation count per line: the gutter and the
    per-line table are the same numbers. An equation inside one of jax's own helpers
    (``jnp.take``) counts at the line of the call into the helper."""
    from jaxlint.dynamic import adapter

    names: dict[int, str] = {}

    def var(v) -> str:
        if adapter.is_literal(v):
            return f"{adapter.literal_value(v)}:{adapter.short_type(adapter.aval_of(v))}"
        return names.setdefault(id(v), _var_name(len(names)))

    def binder(v) -> str:
        return f"{var(v)}:{adapter.short_type(adapter.aval_of(v))}"

    def param(v) -> str:
        return re.sub(r" at 0x[0-9a-fA-F]+", " at 0x…", " ".join(str(v).split()))

    rows: list[dict] = []
    counts: dict[str, int] = {}

    def emit(jaxpr, indent: str, outer: tuple[str, int] | None) -> None:
        consts = " ".join(binder(v) for v in jaxpr.constvars)
        rows.append({"text": f"{indent}{{ lambda {consts}; {' '.join(binder(v) for v in jaxpr.invars)}. let",
                     "file": None, "line": None})
        for eqn in jaxpr.eqns:
            where = _located(eqn, path) or outer
            subs = adapter.sub_jaxprs(eqn)
            sub_ids = {id(j) for j, _ in subs}
            shown = [f"{k}={text}" for k, v in sorted(eqn.params.items())
                     if not _holds_program(v, sub_ids) and not _UNSET.match(text := param(v))]
            lhs = " ".join(binder(v) for v in eqn.outvars)
            rhs = adapter.primitive_name(eqn) + (f"[{' '.join(shown)}]" if shown else "")
            args = " ".join(var(v) for v in eqn.invars)
            rows.append({"text": f"{indent}    {lhs + ' = ' if lhs else ''}{rhs} {args}".rstrip(),
                         "file": where[0] if where else None, "line": where[1] if where else None})
            if where is not None:
                key = f"{where[0]}:{where[1]}"
                counts[key] = counts.get(key, 0) + 1
            for sub, _ in subs:
                emit(sub, indent + "        ", where)
        outs = ", ".join(var(v) for v in jaxpr.outvars) + ("," if len(jaxpr.outvars) == 1 else "")
        rows.append({"text": f"{indent}  in ({outs}) }}", "file": None, "line": None})

    emit(closed.jaxpr, "", None)
    return rows, counts


#: parameter values that say nothing (unset, empty, all-default tuples): not shown
_UNSET = re.compile(r"^(None|\(\)|\{\}|Mesh\(\)|\(((None|False|UnspecifiedValue),? ?)+\))$")


def _holds_program(v, ids: set[int]) -> bool:
    """Whether a param value is (or holds) one of the equation's sub-programs."""
    if isinstance(v, (tuple, list)):
        return any(_holds_program(x, ids) for x in v)
    return id(v) in ids or id(getattr(v, "jaxpr", None)) in ids


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
    from jaxlint.compile.facts import TraceFacts
    from jaxlint.compile.tier import analyse

    closed = traced.jaxpr
    constants = _constants(closed, original, path)
    rows, equations = _program(closed, path)
    out: dict[str, Any] = {
        "ok": True,
        "jaxpr": rows,
        "equations": equations,
        "constants": constants,
    }
    if captured is None and facts is None and sum(c["bytes"] for c in constants) > max_constant_bytes:
        out["skipped"] = "not lowered or compiled: the program holds more than 64 MiB of constants"
        return out
    from jaxlint.dynamic import placement

    platforms = placement.platforms() if captured is None and facts is None else None
    t1 = time.perf_counter()
    lowered = traced.lower(lowering_platforms=platforms) if platforms else traced.lower()
    lower_s = time.perf_counter() - t1
    out["stablehlo"] = _stablehlo_text(lowered)
    if facts is None:
        target = placement.active() if platforms else None
        facts = analyse(traced, function=function, file=path, line=line,
                        requested_backend=target.backend if target is not None else backend,
                        # the constants with their names and lines too (inspect shows them)
                        trace_facts=cast(TraceFacts, {"equations": sum(out["equations"].values()),
                                                      "constants": constants}),
                        captured=captured, platforms=platforms)
        facts.lower_seconds = max(facts.lower_seconds, lower_s)  # jax reused the lowering above
    out["facts"] = facts.to_dict()
    return out


def keep_ir(fa) -> None:
    """The ``ir`` level: what ``jaxlint inspect`` shows, for a function no import can
    reach: the jaxpr, the lowered StableHLO (one extra lowering, never a compile) and the
    optimized HLO the program compiled, each cut to :data:`MAX_IR_CHARS`; left in
    ``fa.ir`` (a failure as ``{"ok": False, "error": ...}``)."""
    try:
        answer = stages(fa.traced, fa.function, fa.path, fa.qualname, fa.def_site().line,
                        fa.versions.get("backend", "cpu"), captured=fa.captured,
                        facts=fa.compile_facts)
    except Exception as e:
        fa.ir = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        return
    for k in ("stablehlo",):
        if isinstance(answer.get(k), str) and len(answer[k]) > MAX_IR_CHARS:
            answer[k] = answer[k][:MAX_IR_CHARS] + "\n... (cut by jaxlint record --keep-ir)"
    fa.ir = answer

