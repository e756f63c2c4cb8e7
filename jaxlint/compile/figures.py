"""The figures a cost budget holds a compiled function to (``jaxlint budget``).

Computed in the process that compiled the function (a dynamic-phase worker, or a program
``jaxlint record --compile`` observes) from the :class:`~jaxlint.compile.facts.CompileFacts`
the compile tier already has: no compile, no call into jax beyond the environment. They
travel in the function's compile report (``report["budget"]``), so the check and
``jaxlint budget update`` read figures already measured, from the result cache and
``.jaxlint/observed.json`` alike.

* ``figures``: the exact ones (bit-exact over fresh processes in one environment, see
  docs/budgets.md): cost_analysis's
  flops, transcendentals and bytes accessed; memory_analysis's argument, output, alias,
  temp and (jax >= 0.10) peak bytes; and the loop-scaled flops and bytes:
  ``cost_analysis()`` counts a ``while`` body once, so each loop with a
  ``known_trip_count`` adds (count - 1) times its body, counted from the optimized HLO
  (dots 2*M*N*K, elementwise ops one per element, as XLA's cost analysis does).
* ``compile_seconds``: not exact (2-3x under load); gated only past a loose ceiling.
* ``environment``: what the figures are exact within (jax, jaxlib, backend, device kind
  and count, XLA_FLAGS, x64).
* ``largest``: the biggest intermediate buffers and the ops with the most flops, with
  their source lines, for the message of a figure that went up.

``collective_bytes`` (the payload of the collectives of a partitioned program, per
device, times the trip counts of the loops around them) is budgeted like the others;
other figures join through :data:`FIGURE_SOURCES` (``facts -> {name: number}``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from jaxlint.compile.facts import CompileFacts, loc_text
from jaxlint.compile.hlo import HloModule, Instruction, PLUMBING

_COST = {"flops": "flops", "transcendentals": "transcendentals", "bytes_accessed": "bytes accessed"}
_MEMORY = {"argument_bytes": "argument_size_in_bytes", "output_bytes": "output_size_in_bytes",
           "alias_bytes": "alias_size_in_bytes", "temp_bytes": "temp_size_in_bytes",
           "peak_bytes": "peak_memory_in_bytes"}

#: more figures per function: ``fn(facts) -> {name: number}``; a figure added here is
#: budgeted like the others (its unit from its name: ``*_bytes`` are bytes)
FIGURE_SOURCES: list[Callable[[CompileFacts], Mapping[str, float]]] = []

#: ops XLA's cost analysis counts as transcendentals, not flops
TRANSCENDENTAL = frozenset({
    "exponential", "exponential-minus-one", "log", "log-plus-one", "tanh", "logistic", "sine", "cosine", "tan",
    "sqrt", "rsqrt", "cbrt", "power", "atan2", "erf",
})
#: elementwise ops that cost one flop per element
_FLOP_OPS = frozenset({
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "abs", "negate", "sign", "floor", "ceil",
    "round-nearest-afz", "round-nearest-even", "remainder", "compare", "select", "clamp", "and", "or", "xor",
    "not", "shift-left", "shift-right-logical", "shift-right-arithmetic", "convert", "is-finite", "real", "imag",
    "popcnt", "count-leading-zeros", "stochastic-convert",
})
_JIT_PREFIX = re.compile(r"^(?:p?jit\([^)]*\)/)+")
_TRIP_RE = re.compile(r'"known_trip_count"\s*:\s*\{\s*"n"\s*:\s*"?(\d+)')


def budget_figures(facts: CompileFacts, spec: Mapping[str, Any] | None = None,
                   environment: Mapping[str, Any] | None = None) -> dict:
    """What ``jaxlint budget`` keeps of one compiled function (plain JSON)."""
    figures: dict[str, float] = {}
    for name, key in _COST.items():
        if key in facts.cost:
            figures[name] = facts.cost[key]
    for name, key in _MEMORY.items():
        if key in facts.memory:
            figures[name] = facts.memory[key]
    m = facts.module
    scaled, once = _cost(m, m.entry.name, True, {}), _cost(m, m.entry.name, False, {})
    if "flops" in figures:
        figures["loop_flops"] = figures["flops"] + scaled.flops - once.flops
    if "bytes_accessed" in figures:
        figures["loop_bytes_accessed"] = figures["bytes_accessed"] + scaled.bytes - once.bytes
    # bytes the collectives move per device, loops scaled (0 on one device; docs/multi-device.md)
    figures["collective_bytes"] = facts.collective_bytes()
    for source in FIGURE_SOURCES:
        figures.update({k: float(v) for k, v in source(facts).items()})
    return {
        "signature": signature(facts, spec),
        "figures": {k: int(v) if float(v).is_integer() else v for k, v in figures.items()},
        "compile_seconds": round(facts.compile_seconds, 3),
        "environment": dict(environment or environment_of(facts)),
        "loops": loops(facts),
        "largest": largest(facts),
    }


def signature(facts: CompileFacts, spec: Mapping[str, Any] | None) -> str:
    """The argument signature, line-free: each array leaf's path, dtype and shape, then
    the static values the trace was given (``x: f32[8,128], n=4``)."""
    from jaxlint.compile.facts import HLO_DTYPES

    parts = [f"{a.path}: {HLO_DTYPES.get(a.dtype, a.dtype)}[{','.join(map(str, a.shape))}]" for a in facts.args]
    static = (spec or {}).get("static") if isinstance(spec, Mapping) else None
    if isinstance(static, Mapping):
        parts += [f"{k}={static[k]!r}" for k in sorted(static, key=str)]
    return ", ".join(parts) or "()"


def environment_of(facts: CompileFacts, devices: int | None = None, x64: bool | None = None) -> dict:
    """What the exact figures hold within; ``devices``/``x64`` from jax where it is loaded."""
    target = _target()
    if target is not None and devices is None:  # the slice's chips, not this process's CPU
        devices = target.device_count()
    if devices is None or x64 is None:
        try:
            import jax

            devices = jax.device_count() if devices is None else devices
            x64 = bool(getattr(jax.config, "jax_enable_x64")) if x64 is None else x64
        except Exception:  # no jax here (a test over saved facts): what is known
            pass
    env: dict[str, Any] = {"jax": facts.versions.get("jax", "?"), "jaxlib": facts.versions.get("jaxlib", "?"),
           "backend": facts.platform, "device_kind": facts.device_kind, "xla_flags": facts.xla_flags}
    if target is not None and target.topology:  # figures of a slice compiled deviceless: the slice names them
        env["target"] = target.topology + ("" if not target.mesh else " " + ",".join(f"{a}={n}" for a, n in target.mesh))
    if devices is not None:
        env["devices"] = int(devices)
    if x64 is not None:
        env["x64"] = bool(x64)
    return env


def _target():
    """The target this worker compiles for (``JAXLINT_TARGET``), or None."""
    import os

    from jaxlint.targets import Target

    text = os.environ.get("JAXLINT_TARGET")
    return Target.from_json(text) if text else None


def loops(facts: CompileFacts) -> list[dict]:
    """Loops with a known trip count: how often each runs and where (for the message)."""
    out = []
    for c in facts.module.computations.values():
        for i in c.instructions:
            n = trip_count(i)
            if n is not None:
                loc = facts.user_location(i) or _body_location(facts, i)
                out.append({"trip_count": n, "op": _op(i), "where": loc_text(loc, facts) if loc else "?",
                            "file": loc.file if loc else None, "line": loc.line if loc else None})
    return sorted(out, key=lambda d: (-d["trip_count"], d["op"]))


def largest(facts: CompileFacts, n: int = 3) -> list[dict]:
    """The biggest intermediate buffers (kernel outputs that are not the function's
    outputs) and the kernels with the most flops (times their loops' trip counts)."""
    m = facts.module
    root = m.entry.root
    outs = set(root.operands if root is not None and root.opcode == "tuple" else [root.name if root else ""])
    cands = [k for k in m.kernels() if k.name not in outs and not k.is_root and k.shape.bytes > 0]
    out = []
    for k in sorted(cands, key=lambda k: (-k.shape.bytes, k.name))[:n]:
        out.append(_item(facts, k, "buffer", k.shape.bytes))
    repeat = _repeats(m)
    memo: dict = {}
    ops = [(k, _cost(m, None, True, memo, k).flops * repeat.get(k.computation, 1)) for k in m.kernels()]
    for k, fl in sorted((x for x in ops if x[1] > 0), key=lambda x: (-x[1], x[0].name))[:n]:
        out.append(_item(facts, k, "op", fl))
    return out


def _item(facts: CompileFacts, k: Instruction, kind: str, amount: float) -> dict:
    loc = facts.user_location(k)
    return {"kind": kind, "amount": int(amount), "shape": str(k.shape), "op": _op(k),
            "where": loc_text(loc, facts) if loc else "?",
            "file": loc.file if loc else None, "line": loc.line if loc else None}


def _op(i: Instruction) -> str:
    """A line-free name: the jax op path without the ``jit(f)/`` prefix, else the opcode."""
    name = i.metadata.get("op_name") or i.opcode
    return _JIT_PREFIX.sub("", name) or name


def _body_location(facts: CompileFacts, loop: Instruction):
    for name in loop.called:
        comp = facts.module.computations.get(name)
        for j in comp.instructions if comp else ():
            loc = facts.user_location(j)
            if loc is not None:
                return loc
    return None


def trip_count(i: Instruction) -> int | None:
    if i.opcode != "while":
        return None
    m = _TRIP_RE.search(i.attrs.get("backend_config", ""))
    return int(m.group(1)) if m else None


def _repeats(m: HloModule) -> dict[str, int]:
    """How often each computation runs per call: the product of the trip counts of the
    loops around it (1 outside loops)."""
    out: dict[str, int] = {m.entry.name: 1}
    todo = [m.entry.name]
    while todo:
        name = todo.pop()
        comp = m.computations.get(name)
        for i in comp.instructions if comp else ():
            factor = out[name] * ((trip_count(i) or 1) if i.opcode == "while" else 1)
            for callee in i.called:
                if callee not in out and callee in m.computations:
                    out[callee] = factor
                    todo.append(callee)
    return out


@dataclass
class _Cost:
    flops: float = 0.0
    bytes: float = 0.0

    def add(self, other: "_Cost", times: float = 1) -> None:
        self.flops += other.flops * times
        self.bytes += other.bytes * times


def _cost(m: HloModule, comp_name: str | None, scale: bool, memo: dict, only: Instruction | None = None,
          fused: bool = False) -> _Cost:
    """Flops and bytes of a computation (or of one instruction ``only``) as XLA's cost
    analysis counts them; a ``while`` body counts once, or (``scale``) its trip count times."""
    insts = [only] if only is not None else (m.computations[comp_name].instructions
                                             if comp_name in m.computations else [])
    key = (comp_name, scale, fused)
    if only is None and key in memo:
        return memo[key]
    total = _Cost()
    for i in insts:
        if i.opcode == "while":
            inner = _Cost()
            for callee in i.called:
                inner.add(_cost(m, callee, scale, memo))
            total.add(inner, (trip_count(i) or 1) if scale else 1)
            continue
        if i.opcode in ("call", "conditional"):
            branches = [_cost(m, c, scale, memo) for c in i.called]
            if branches:
                total.add(max(branches, key=lambda c: c.flops) if i.opcode == "conditional" else branches[0])
            continue
        total.flops += _flops(m, i, scale, memo)
        if not fused and i.opcode not in PLUMBING:
            total.bytes += i.shape.bytes + sum(_shape_bytes(m, o, i.computation) for o in i.operands)
    if only is None:
        memo[key] = total
    return total


def _flops(m: HloModule, i: Instruction, scale: bool, memo: dict) -> float:
    op = i.opcode
    if op == "fusion":
        return sum(_cost(m, c, scale, memo, fused=True).flops for c in i.called)
    if op == "dot":
        lhs = _shape(m, i.operands[0], i.computation) if i.operands else None
        dims = [int(d) for d in re.findall(r"\d+", i.attrs.get("lhs_contracting_dims", ""))]
        k = 1
        for d in dims:
            k *= lhs.dims[d] if lhs is not None and d < len(lhs.dims) else 1
        return 2.0 * i.shape.size * k
    if op == "convolution":
        rhs = _shape(m, i.operands[1], i.computation) if len(i.operands) > 1 else None
        labels = i.attrs.get("dim_labels", "")
        kernel = labels.split("_", 1)[1].split("->", 1)[0] if "_" in labels else ""
        out_features = rhs.dims[kernel.index("o")] if rhs is not None and "o" in kernel and \
            kernel.index("o") < len(rhs.dims) else 1
        return 2.0 * i.shape.size * (rhs.size // max(out_features, 1) if rhs is not None else 1)
    if op in ("reduce", "reduce-window", "map", "scatter", "select-and-scatter", "all-reduce"):
        per = sum(_cost(m, c, scale, memo, fused=True).flops for c in i.called) or 1.0
        src = _shape(m, i.operands[0], i.computation) if i.operands else None
        return per * (src.size if src is not None and not src.is_tuple else i.shape.size)
    if op in _FLOP_OPS:
        return float(i.shape.size)
    return 0.0


def _shape(m: HloModule, name: str, computation: str):
    inst = m.computations[computation].by_name.get(name) if computation in m.computations else None
    inst = inst or m.instructions.get(name)
    return inst.shape if inst is not None else None


def _shape_bytes(m: HloModule, name: str, computation: str) -> int:
    s = _shape(m, name, computation)
    return s.bytes if s is not None else 0

