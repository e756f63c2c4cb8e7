"""What ``jaxlint inspect`` shows, built from the worker's answer (pure Python).

The same view feeds the text and the HTML renderers: each stage as rows annotated
with the user's source line, a per-source-line summary, the constants, the cost and
memory figures, versions and the findings.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from jaxlint.compile.facts import CompileFacts, is_library_path
from jaxlint.textutil import human_bytes
from jaxlint.compile.hlo import HloModule, Instruction
from jaxlint.compile.stablehlo import Locations, strip_locations

STAGES = ("jaxpr", "stablehlo", "hlo")


@dataclass
class Row:
    text: str
    line: int | None = None  # a line of the inspected file
    where: str = ""  # "helpers.py:12" for a line in another file
    bytes: int = 0
    kind: str = ""  # "eqn", "op", "kernel", "fusion", "custom-call", "constant", ""


@dataclass
class LineStats:
    equations: int = 0
    ops: int = 0  # StableHLO operations
    instructions: int = 0  # optimized HLO instructions (fused ones included)
    kernels: int = 0
    fusions: int = 0
    bytes: int = 0  # bytes written by the kernels attributed to the line


@dataclass
class View:
    function: str
    file: str
    display: str
    inputs: str
    source: list[str]
    stages: dict[str, list[Row]] = field(default_factory=dict)
    lines: dict[int, LineStats] = field(default_factory=dict)
    constants: list[dict] = field(default_factory=list)
    #: the collectives of the optimized program (several devices): kind, bytes, axis, line, loop
    collectives: list[dict] = field(default_factory=list)
    facts: CompileFacts | None = None
    findings: list = field(default_factory=list)
    skipped: str | None = None
    trace_seconds: float = 0.0
    #: the inspected function's first line (decorator or ``def``): where a page opens
    def_line: int = 0

    def stats(self, line: int) -> LineStats:
        return self.lines.setdefault(line, LineStats())

    @property
    def first_line(self) -> int:
        return min(self.lines) if self.lines else 1

    def summary_pairs(self) -> list[tuple[str, str]]:
        """(label, value) of the cost, memory and environment figures."""
        f = self.facts
        if f is None:
            return []
        out = []
        c = f.cost
        for key, label in (("flops", "flops"), ("transcendentals", "transcendentals"),
                           ("bytes accessed", "bytes accessed")):
            if key in c:
                out.append((label, human_bytes(c[key]) if "bytes" in key else count_text(c[key])))
        m = f.memory
        for key, label in (("argument_size_in_bytes", "argument memory"), ("output_size_in_bytes", "output memory"),
                           ("temp_size_in_bytes", "temp memory"), ("alias_size_in_bytes", "aliased (donated)"),
                           ("peak_memory_in_bytes", "peak memory")):
            if key in m:
                out.append((label, human_bytes(m[key])))
        out.append(("compile time", f"{f.compile_seconds * 1000:.0f} ms (lower {f.lower_seconds * 1000:.0f} ms, "
                                    f"trace {self.trace_seconds * 1000:.0f} ms)"))
        backend = f.platform + (f" ({f.device_kind})" if f.device_kind and f.device_kind != f.platform else "")
        if f.requested_backend and f.requested_backend not in (f.platform, "") and not (
                f.requested_backend == "gpu" and f.platform in ("cuda", "rocm")):
            backend += f"; configured {f.requested_backend} is not present, so this is a {f.platform} compile"
        out.append(("backend", backend))
        out.append(("versions", f"jax {f.versions.get('jax', '?')}, jaxlib {f.versions.get('jaxlib', '?')}"))
        if f.devices > 1:
            mesh = ", ".join(f"{a}={n}" for a, n in zip(f.mesh.get("axes") or (), f.mesh.get("sizes") or ()))
            out.append(("devices", f"{f.devices}" + (f" (mesh {mesh})" if mesh else "")))
            out.append(("collective payload", f"{human_bytes(f.collective_bytes())} per call, per device"))
        out.append(("XLA_FLAGS", f.xla_flags or "(unset)"))
        out.extend(("unavailable", why) for why in f.unavailable)
        return out


def count_text(n: float | None) -> str:
    if n is None:
        return "-"
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= div:
            return f"{n / div:.2f}{unit}"
    return f"{n:.0f}"


def _same(a: str | None, b: str) -> bool:
    return a is not None and a != "" and os.path.normpath(os.path.abspath(a)) == os.path.normpath(b)


def build_view(answer: dict, *, function: str, file: str, display: str, inputs: str, source: list[str],
               def_line: int = 0) -> View:
    file = os.path.abspath(file)
    v = View(function, file, display, inputs, source, skipped=answer.get("skipped"),
             trace_seconds=float(answer.get("trace_seconds") or 0), def_line=def_line)
    v.stages["jaxpr"] = _jaxpr_rows(v, answer.get("jaxpr") or [])
    for key, n in (answer.get("equations") or {}).items():
        path, _, line = key.rpartition(":")
        if _same(path, file):
            v.stats(int(line)).equations += n
    for c in answer.get("constants") or []:
        v.constants.append({"stage": "jaxpr", **c})
    if answer.get("stablehlo"):
        v.stages["stablehlo"] = _stablehlo_rows(v, answer["stablehlo"])
    if answer.get("facts"):
        v.facts = CompileFacts.from_dict(answer["facts"])
        v.stages["hlo"] = _hlo_rows(v, v.facts)
        for inst in v.facts.module.constants():
            if inst.shape.bytes >= 1024:
                users = v.facts.module.consumers(inst)
                locs = [loc for u in users for loc in v.facts.lines_of(u)]
                v.constants.append({"stage": "hlo", "name": inst.name, "shape": list(inst.shape.dims),
                                    "dtype": inst.shape.dtype, "bytes": inst.shape.bytes,
                                    "line": locs[0].line if locs and _same(locs[0].file, file) else None})
        v.collectives = collective_rows(v.facts)
    return v


def collective_rows(facts: CompileFacts) -> list[dict]:
    """One row per collective: kind, bytes per execution and per call (x trip count), the
    mesh axis, the user's line (``via`` "operand" when placed through its producer) and
    the loops around it."""
    from jaxlint.compile.facts import loc_text

    rows = []
    for c in facts.collectives:
        loc = facts.collective_location(c)
        rows.append({"kind": c.kind, "shape": str(c.result_shape), "bytes": c.bytes, "payload": c.payload,
                     "axis": facts.axis_text(c), "line": loc.line if loc is not None else None,
                     "where": loc_text(loc, facts) if loc is not None else "", "via": c.origin_via,
                     "loop": " x ".join(str(lp.trip_count) if lp.trip_count is not None else "?" for lp in c.loops)})
    return rows


def _jaxpr_rows(v: View, rows: list[dict]) -> list[Row]:
    out = []
    for r in rows:
        row = Row(r["text"], kind="eqn" if r.get("file") is not None or " = " in r["text"] else "")
        if r.get("file"):
            if _same(r["file"], v.file):
                row.line = r["line"]
            elif not is_library_path(r["file"]):
                row.where = f"{os.path.basename(r['file'])}:{r['line']}"
        out.append(row)
    return out


def _stablehlo_rows(v: View, text: str) -> list[Row]:
    locs = Locations(text)
    out = []
    for raw in text.splitlines():
        if raw.startswith("#loc"):
            continue
        stack = locs.of_line(raw)
        row = Row(strip_locations(raw), kind="op" if " = " in raw or "stablehlo." in raw else "")
        mine = next((s for s in stack if _same(s.file, v.file)), None)
        other = next((s for s in stack if not is_library_path(s.file)), None)
        if mine is not None:
            row.line = mine.line
            v.stats(mine.line).ops += 1
        elif other is not None:
            row.where = f"{os.path.basename(other.file)}:{other.line}"
        out.append(row)
    return out


_NOISE = frozenset({"metadata", "backend_config", "frontend_attributes", "operand_layout_constraints", "sharding"})


def short_instruction(inst: Instruction) -> str:
    """The instruction line without metadata and backend configuration (shown apart)."""
    from jaxlint.compile.hlo import _read_shape, match_closer, split_top

    text = inst.text
    eq = text.find(" = ")
    if eq < 0:
        return text
    rest = text[eq + 3:]
    try:
        _, pos = _read_shape(rest, 0)
        op = re.compile(r"\s*([\w\-]+)\(").match(rest, pos)
        close = match_closer(rest, op.end() - 1) if op else -1
    except ValueError:
        return text
    if close < 0:
        return text
    attrs = [p for p in split_top(rest[close + 1:]) if p and p.split("=", 1)[0].strip() not in _NOISE]
    return text[:eq + 3] + rest[:close + 1] + "".join(", " + p for p in attrs)


def _hlo_rows(v: View, facts: CompileFacts) -> list[Row]:
    module: HloModule = facts.module
    kernels = {k.name for k in module.kernels()}
    out: list[Row] = []
    for comp in module.computations.values():
        out.append(Row(comp.signature + " {"))
        for inst in comp.instructions:
            row = Row("  " + short_instruction(inst))
            loc = facts.user_location(inst)
            if loc is not None:
                if _same(loc.file, v.file):
                    row.line = loc.line
                    v.stats(loc.line).instructions += 1
                else:
                    row.where = f"{os.path.basename(loc.file)}:{loc.line}"
            if inst.name in kernels:
                row.bytes = inst.shape.bytes
                row.kind = "fusion" if inst.opcode == "fusion" else (
                    "custom-call" if inst.opcode == "custom-call" else "kernel")
                for loc2 in facts.lines_of(inst):
                    if _same(loc2.file, v.file):
                        st = v.stats(loc2.line)
                        st.kernels += 1
                        st.fusions += inst.opcode == "fusion"
                if loc is not None and _same(loc.file, v.file):
                    v.stats(loc.line).bytes += inst.shape.bytes
            elif inst.opcode == "constant" and inst.shape.bytes >= 1024:
                row.kind = "constant"
                row.bytes = inst.shape.bytes
            out.append(row)
        out.append(Row("}"))
    return out


def weight(stats: LineStats) -> float:
    """How much a line costs, for shading: bytes its kernels write, else its op count."""
    return float(stats.bytes) if stats.bytes else float(stats.equations + stats.instructions) * 1.0


def source_snippet(v: View, line: int) -> str:
    return v.source[line - 1].strip() if 0 < line <= len(v.source) else ""
