"""What the compile tier measured for one function, as plain data.

A worker builds :class:`CompileFacts` from a jax ``Compiled`` (see
``jaxlint.compile.tier``); everything here is pure Python so that the facts travel
between processes as JSON, are cached, and a compile-tier rule reads nothing else (its
``check`` gets them in a :class:`CompileContext`, which it reports through): testable on
real compiled output and runnable wherever the facts are.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Iterable, Mapping, TypedDict

from jaxlint.diagnostic import Diagnostic, Position, Related, Severity
from jaxlint.dynamic.project import not_the_projects
from jaxlint.compile.hlo import (
    Collective, HloModule, Instruction, Shape, SourceLocation, collectives as find_collectives, parse_hlo,
)
from jaxlint.findings.measured import MeasuredIn, measured_diagnostic

#: cost-analysis keys kept (the per-operand variants are noise for a reader)
COST_KEYS = ("flops", "bytes accessed", "transcendentals", "optimal_seconds")
MEMORY_KEYS = (
    "argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes",
    "generated_code_size_in_bytes", "peak_memory_in_bytes",
    "host_argument_size_in_bytes", "host_output_size_in_bytes", "host_alias_size_in_bytes",
    "host_temp_size_in_bytes",
)
GPU_PLATFORMS = frozenset({"cuda", "rocm", "gpu"})
HLO_DTYPES = {
    "bool": "pred", "int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64", "uint8": "u8",
    "uint16": "u16", "uint32": "u32", "uint64": "u64", "float16": "f16", "bfloat16": "bf16",
    "float32": "f32", "float64": "f64", "complex64": "c64", "complex128": "c128", "int4": "s4",
    "uint4": "u4",
}


def normalise_cost(cost: Any) -> dict[str, float]:
    """``cost_analysis()`` is a list of one dict on jax 0.4 and a dict later."""
    if isinstance(cost, (list, tuple)):
        cost = cost[0] if cost else {}
    if not isinstance(cost, Mapping):
        return {}
    out = {}
    for k in COST_KEYS:
        v = cost.get(k)
        if isinstance(v, (int, float)) and v >= 0:
            out[k] = float(v)
    return out


def normalise_memory(stats: Any) -> dict[str, int]:
    """``memory_analysis()`` fields present in this version (peak only from 0.10)."""
    out = {}
    for k in MEMORY_KEYS:
        v = getattr(stats, k, None) if not isinstance(stats, Mapping) else stats.get(k)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = int(v)
    return out


class TraceConstant(TypedDict):
    """A constant the traced program holds (1 KiB or more)."""

    shape: list[int]
    dtype: str
    bytes: int


class TraceLine(TypedDict):
    """A line of the user's code a trace fact points at."""

    file: str
    line: int


class TraceFinding(TraceLine, total=False):
    """A finding of a trace rule that declares a ``trace_fact``: its rule's ``code``,
    where, and its data (``iterations``, ``equations``, ... as the rule measured them)."""

    code: str
    iterations: int
    equations: int
    bytes: int


class MappedLine(TraceLine):
    """The line that maps the jitted function with ``jax.vmap``, and the mapped axis's size."""

    size: int


class GivenFunction(TypedDict):
    """A function the caller gave a library's factory whose product is the jitted function
    (``jit(elasticity.athermal_moduli(energy_fn))``): held in its closure as ``name``, the
    factory's parameter number ``index`` (-1: unknown); its code's file, qualified name and
    lines, to tell the kernels it computes by their stack frames."""

    name: str
    index: int
    factory: str
    file: str
    function: str
    first: int
    last: int


class TraceFacts(TypedDict, total=False):
    """What the compile rules may quote from the trace tier (``CompileFacts.trace``),
    made by :func:`jaxlint.compile.analyser.trace_facts`; plain JSON between processes.
    Every ``TraceRule.trace_fact`` key is declared here (tests/test_registry.py)."""

    #: equations of the program, nested levels included
    equations: int
    constants: list[TraceConstant]
    #: the lines that ask for a sharding (``with_sharding_constraint``)
    sharding_constraints: list[TraceLine]
    #: JAX202's unrolled loops
    loops: list[TraceFinding]
    #: JAX201's constants baked into the program (each its ``bytes``), at the line that
    #: takes hold of them
    baked: list[TraceFinding]
    #: functions the caller gave the library factory that made the jitted function
    given: list[GivenFunction]
    #: the jitted function is ``jax.vmap`` of the user's: where it maps and the mapped
    #: axis's size
    vmapped: MappedLine


@dataclass(frozen=True)
class ArgFact:
    """One leaf of the function's (non-static) arguments."""

    path: str  # "state['w']"
    top: str  # the Python parameter it belongs to ("state")
    shape: tuple[int, ...]
    dtype: str  # numpy name
    donated: bool
    #: HLO entry parameter number; None when XLA pruned the argument as unused
    parameter: int | None
    #: the partition spec it was compiled with, one entry per dimension (None: not
    #: split; a list of mesh axis names); None when no named sharding is known
    spec: tuple | None = None

    @property
    def bytes(self) -> int:
        return _nbytes(self.shape, self.dtype)


@dataclass(frozen=True)
class OutFact:
    path: str  # "[0]['w']"
    shape: tuple[int, ...]
    dtype: str
    #: index of this leaf in the HLO result tuple (() when the result is one array)
    index: tuple[int, ...]

    @property
    def bytes(self) -> int:
        return _nbytes(self.shape, self.dtype)


def _spec_tuple(spec: Any) -> tuple | None:
    if spec is None:
        return None
    return tuple(tuple(e) if isinstance(e, (list, tuple)) else e for e in spec)


def _unravel(i: int, sizes: list[int]) -> tuple[int, ...]:
    out = []
    for n in reversed(sizes):
        i, r = divmod(i, n)
        out.append(r)
    return tuple(reversed(out))


def _nbytes(shape: tuple[int, ...], dtype: str) -> int:
    from jaxlint.compile.hlo import DTYPE_BITS

    n = 1
    for d in shape:
        n *= d
    return (n * DTYPE_BITS.get(HLO_DTYPES.get(dtype, dtype), 32) + 7) // 8


@dataclass(frozen=True)
class Buffer:
    """An array the compiled program holds in device memory: an argument, an output, or a
    temporary (a kernel's result that is neither), with its shape as the program lays it
    out (a TPU's tiles included) and the user's lines that make it (none for an argument)."""

    kind: str  # "argument", "output", "temporary"
    #: the argument's or output's path (``params['w1']``, ``[0]['w1']``); a temporary's shape
    name: str
    shape: Shape
    lines: tuple[SourceLocation, ...] = ()
    #: the instruction that makes it (an output, a temporary)
    inst: Instruction | None = None

    @property
    def bytes(self) -> int:
        """What the device allocates for it: its tiled size (its size where untiled)."""
        return self.shape.tiled_bytes


@dataclass
class CompileFacts:
    """The compiled program of one function and its measurements."""

    function: str
    file: str  # absolute path of the file defining the function
    line: int  # the function's first line (decorator or def)
    hlo_text: str
    cost: dict[str, float] = field(default_factory=dict)
    memory: dict[str, int] = field(default_factory=dict)
    compile_seconds: float = 0.0
    #: the process's CPU time during the compile
    compile_cpu_seconds: float = 0.0
    lower_seconds: float = 0.0
    #: platform of the executable that was actually built ("cpu", "cuda", "rocm", "tpu")
    platform: str = "cpu"
    device_kind: str = ""
    #: the configured backend (may differ from ``platform`` when it is absent)
    requested_backend: str = "cpu"
    versions: dict[str, str] = field(default_factory=dict)
    xla_flags: str = ""
    args: list[ArgFact] = field(default_factory=list)
    outputs: list[OutFact] = field(default_factory=list)
    #: warnings jax emitted while lowering/compiling (e.g. unusable donations)
    warnings: list[str] = field(default_factory=list)
    #: what the trace tier knows (:class:`TraceFacts`)
    trace: TraceFacts = field(default_factory=lambda: TraceFacts())
    #: True when jax's persistent compilation cache served the executable
    cache_hit: bool | None = None
    #: statistics the executable could not give, and why ("memory statistics unavailable
    #: on this backend: ..."): the rules that read them (JAX304) cannot fire
    unavailable: list[str] = field(default_factory=list)
    #: the mesh the program is partitioned over: {"axes": [names], "sizes": [ints]}
    #: (empty when no named sharding is known; partition ids index it row-major)
    mesh: dict[str, Any] = field(default_factory=dict)
    #: what XLA's C++ log printed while compiling (the SPMD partitioner's warnings); kept
    #: in jaxlint's cache, since a persistent-cache hit does not print it again
    compiler_log: list[str] = field(default_factory=list)
    #: XLA refused the program for the chip's memory (a TPU compile's RESOURCE_EXHAUSTED):
    #: {"message", "required_bytes", "available_bytes"} from its error; the figures above are
    #: then those of a compile told not to stop there (``xla_tpu_no_crash_on_oom``)
    out_of_memory: dict = field(default_factory=dict)
    #: the memory of one chip the target configures (its ``hbm-gib``), bytes; None: the
    #: chip table's
    hbm_bytes: int | None = None
    #: places in the user's source a fix goes to that the program does not show, by name:
    #: ``"donate"``, the ``donate_argnums``/``donate_argnames`` keyword of the jit that
    #: donates; ``"jit"``, the ``jax.jit(f, ...)`` call that made the function when it is
    #: not a decorator; each ``[file, line, column]`` (see :meth:`site`)
    sites: dict[str, list] = field(default_factory=dict)
    #: the transform that compiled it (``jit``, ``pmap``, ``filter_jit`` ...)
    kind: str = "jit"
    #: {argument name: whether the program used it again after a call}, where `jaxlint
    #: record` saw it (``FunctionAnalysis.reused``); an argument not in it: unknown
    reused: dict[str, bool] = field(default_factory=dict)
    #: the arguments of a recorded call that hold one array at two places
    #: (``Params(online=p, target=p)``): jax refuses to donate them
    sharing: tuple[str, ...] = ()

    @cached_property
    def module(self) -> HloModule:
        return parse_hlo(self.hlo_text)

    @property
    def on_accelerator(self) -> bool:
        return self.platform in GPU_PLATFORMS or self.platform == "tpu"

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("module", None)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "CompileFacts":
        d = dict(d)
        d["args"] = [ArgFact(**{**a, "shape": tuple(a["shape"]), "spec": _spec_tuple(a.get("spec"))})
                     for a in d.get("args", ())]
        d["outputs"] = [OutFact(**{**o, "shape": tuple(o["shape"]), "index": tuple(o["index"])})
                        for o in d.get("outputs", ())]
        return cls(**d)

    # -- several devices -------------------------------------------------------------------
    @property
    def devices(self) -> int:
        """Devices the program runs on: partitions x replicas (1 for a one-device program)."""
        try:  # (facts without a program, made by hand, have one device)
            h = self.module.header
            return int(h.get("num_partitions", 1)) * int(h.get("replica_count", 1))
        except ValueError:  # HloParseError too
            return 1

    @cached_property
    def collectives(self) -> list[Collective]:
        return find_collectives(self.module)

    def collective_bytes(self) -> int:
        """Collective payload of one call, per device: max(operand, result) bytes of every
        collective x the trip counts of its loops (the figure budgets can hold)."""
        return sum(c.payload for c in self.collectives)

    def mesh_axes(self, c: Collective) -> tuple[str, ...] | None:
        """The mesh axes a collective communicates over (names from the user's mesh), or
        None when no mesh is known or its groups do not line up with the mesh's axes."""
        axes, sizes = list(self.mesh.get("axes") or ()), [int(n) for n in self.mesh.get("sizes") or ()]
        total = 1
        for n in sizes:
            total *= n
        if not axes or total != self.devices:
            return None
        groups = c.groups or (tuple(range(total)),)
        found: set[int] | None = None
        for g in groups:
            if any(d >= total for d in g):
                return None
            coords = [_unravel(d, sizes) for d in g]
            varying = {i for i in range(len(sizes)) if len({co[i] for co in coords}) > 1}
            if found is None:
                found = varying
            elif varying != found:
                return None
        if found is None:
            return None
        size = 1
        for i in found:
            size *= sizes[i]
        if size != len(groups[0]) and c.kind != "collective-permute":
            return None
        return tuple(axes[i] for i in sorted(found))

    def axis_text(self, c: Collective) -> str:
        """``over mesh axis 'data' (4 devices)`` or ``over groups of 4 devices``."""
        axes = self.mesh_axes(c)
        n = c.group_size or self.devices
        if axes:
            names = ", ".join(f"'{a}'" for a in axes)
            return f"over mesh axis {names} ({n} devices)" if len(axes) == 1 else f"over mesh axes {names} ({n} devices)"
        return f"over groups of {n} devices"

    def collective_location(self, c: Collective) -> SourceLocation | None:
        """The user's line of a collective: its own metadata, else its operand's producer."""
        return self.user_location(c.origin) if c.origin is not None else None

    # -- buffers ---------------------------------------------------------------------------
    def argument_buffers(self) -> list[Buffer]:
        """The arguments the program keeps (not pruned), per device."""
        params = {int(p.literal or 0): p for p in self.module.entry_parameters() if (p.literal or "").isdigit()}
        return [Buffer("argument", a.path, params[a.parameter].shape) for a in self.args
                if a.parameter is not None and a.parameter in params]

    def output_value(self, index: tuple[int, ...]) -> tuple[Instruction | None, int | None]:
        """(the instruction computing the output at ``index`` of the result, which element of
        its tuple result it is): through the root ``tuple``, or of a root that is itself a
        fusion with several results (a TPU's program may end in one)."""
        m = self.module
        root = m.entry.root
        if root is None:
            return None, None
        if not index:
            return m.produced(root.name)
        if len(index) != 1:
            return None, None
        if root.opcode == "tuple":
            return m.produced(root.operands[index[0]]) if index[0] < len(root.operands) else (None, None)
        return (root, index[0]) if index[0] < len(root.shape.elements) else (None, None)

    def output_buffers(self) -> list[Buffer]:
        """The outputs the program allocates, per device: not those that reuse a donated
        argument's buffer (``input_output_alias``)."""
        root = self.module.entry.root
        if root is None:
            return []
        aliased = {a.output_index for a in self.module.aliases}
        out = []
        for o in self.outputs:
            if o.index in aliased or len(o.index) > 1:
                continue
            shape = root.shape.elements[o.index[0]] if o.index and o.index[0] < len(root.shape.elements) else root.shape
            made, element = self.output_value(o.index)
            out.append(Buffer("output", o.path, shape, tuple(self.result_lines(made, element)) if made else (), made))
        return out

    def temporary_buffers(self) -> list[Buffer]:
        """The results of the program's kernels that are not its outputs, largest first
        (what ``temp_size_in_bytes`` holds, as far as the program's text shows it)."""
        root = self.module.entry.root
        outs = set(root.operands if root is not None and root.opcode == "tuple" else [root.name if root else ""])
        found = []
        for k in self.module.kernels():
            if k.name in outs or k.is_root or k.opcode in ("copy-start", "slice-start", "send", "recv"):
                continue  # (an async start's result is the pair of places it moves between)
            lines = tuple(self.lines_of(k))
            # in the device's main memory: a TPU's on-chip memory (S(1)) is not its HBM
            found += [Buffer("temporary", str(leaf), leaf, lines, k) for leaf in k.shape.leaves()
                      if leaf.memory_space == 0 and leaf.dims]
        return sorted(found, key=lambda b: -b.bytes)

    # -- locations -------------------------------------------------------------------------
    def site(self, name: str) -> SourceLocation | None:
        """A place of :attr:`sites` (``"donate"``), or None when it is not known."""
        at = self.sites.get(name)
        if not at:
            return None
        return SourceLocation(str(at[0]), int(at[1]), self.function, int(at[2]) if len(at) > 2 else None)

    def definition(self) -> tuple[SourceLocation, str]:
        """The function's definition as a related location of a finding made elsewhere."""
        name = self.function.rsplit(".", 1)[-1]
        return (SourceLocation(self.file, self.line, self.function, _indent_column(self.file, self.line)),
                f"`{name}` is defined here")

    def user_location(self, inst: Instruction) -> SourceLocation | None:
        """The innermost project location of an instruction (or of what a fusion fused)."""
        for j in [inst] + self.module.fused_instructions(inst):
            for loc in j.stack:
                if not is_library_path(loc.file):
                    return loc
        return None

    def result_lines(self, inst: Instruction, index: int | None = None) -> list[SourceLocation]:
        """The user's lines of one result of ``inst`` (``index`` of a tuple): where a
        fusion computes it elementwise beside other work (the TPU fuses an update into
        its gradient's matmul), the lines of that elementwise part; else all of them."""
        m = self.module
        part = [] if m.is_elementwise(inst) and index is None else m.elementwise_part(inst, index)
        return self.lines_of(inst, part)

    def lines_of(self, inst: Instruction, part: Iterable[Instruction] = ()) -> list[SourceLocation]:
        """The user's lines of an instruction and what it fused; or, given ``part``, of
        those fused instructions alone (one result of a multi-output fusion)."""
        out: dict[tuple[str, int], SourceLocation] = {}
        for j in list(part) or [inst] + self.module.fused_instructions(inst):
            for loc in j.stack:
                if not is_library_path(loc.file):
                    out.setdefault((loc.file, loc.line), loc)
                    break
        return sorted(out.values(), key=lambda s: (s.file != self.file, s.file, s.line))


_JAXLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))).replace("\\", "/") + "/"


def is_library_path(path: str) -> bool:
    """Installed packages, the standard library, jaxlint itself (it calls the user's
    function), and any file not the project's where that is known
    (:func:`jaxlint.dynamic.project.set_project`): never the line a finding points at."""
    p = path.replace("\\", "/")
    return (not p or p.startswith("<") or "/site-packages/" in p or "/dist-packages/" in p or _is_stdlib(p)
            or p.startswith(_JAXLINT_DIR) or not_the_projects(path))


@functools.lru_cache(maxsize=1)
def _stdlib_prefix() -> str:
    import sysconfig

    std = sysconfig.get_paths().get("stdlib", "")
    return std.replace("\\", "/").rstrip("/") + "/" if std else "\0"


def _is_stdlib(p: str) -> bool:
    return p.startswith(_stdlib_prefix())


@dataclass
class CompileContext:
    """What a compile rule sees of one compiled function, and how it reports: its
    ``check(ctx)`` reads :attr:`facts` and calls :meth:`report`, as a rule of every tier
    does. The engine builds one per rule and function (``CompileRule.check_function``);
    a test builds one from facts alone and reads :attr:`diagnostics`."""

    facts: CompileFacts
    #: the rule reporting (its code, name and phase go into each finding)
    rule: Any
    #: the function measured (default: ``facts.function``)
    about: MeasuredIn | None = None
    #: where the findings go (the engine hands the function's list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def related(self, where: SourceLocation, message: str) -> Related:
        """A related location of a finding (a producer kernel, the definition)."""
        col = where.column or 1
        return Related(where.file, Position(where.line, col), Position(where.line, col + 1), message)

    def report(self, where: SourceLocation | None, message: str, *, severity: Severity | None = None,
               data: Mapping[str, Any] | None = None, related: Iterable[Related] = (), key: str = "",
               measured: str = "") -> None:
        """Report a finding at ``where`` (the function's first line when None). ``key``:
        what tells this finding from the rule's others in the function, line-independent
        (e.g. the HLO instruction's op name), for the baseline. ``measured``: figures
        measured on this machine (times), shown after the message in parentheses but never
        part of what is committed or compared (they change from run to run: a recording
        keeps them in its timings side file, see ``findings.measured``)."""
        facts = self.facts
        loc = where or SourceLocation(facts.file, facts.line, column=_indent_column(facts.file, facts.line))
        col = loc.column or 1
        self.diagnostics.append(measured_diagnostic(
            self.rule, self.about or MeasuredIn(facts.function), message=message, path=loc.file,
            start=Position(loc.line, col), end=Position(loc.line, col + 1), key=key, severity=severity,
            # one place once, however many HLO instructions point at it
            related=tuple(dict.fromkeys(related)),
            data={"backend": facts.platform, "jax": facts.versions.get("jax", ""), **dict(data or {})},
            measured=measured))


def _indent_column(file: str, line: int) -> int:
    """The column of the first character of ``line`` (a method's ``def`` is indented)."""
    import linecache

    text = linecache.getline(file, line)
    return len(text) - len(text.lstrip()) + 1 if text.strip() else 1


def loc_text(loc: SourceLocation | None, facts: CompileFacts) -> str:
    """``line 12`` in the function's own file, ``helpers.py:12`` elsewhere."""
    if loc is None:
        return "?"
    if os.path.normpath(loc.file) == os.path.normpath(facts.file):
        return f"line {loc.line}"
    return f"{os.path.basename(loc.file)}:{loc.line}"


def lines_text(locs: Iterable[SourceLocation], facts: CompileFacts) -> str:
    locs = list(locs)
    if not locs:
        return "?"
    same = [x for x in locs if os.path.normpath(x.file) == os.path.normpath(facts.file)]
    if len(same) == len(locs):
        nums = sorted({x.line for x in locs})
        return ("line " if len(nums) == 1 else "lines ") + ", ".join(map(str, nums))
    return ", ".join(dict.fromkeys(loc_text(x, facts) for x in locs))  # each place once, in order


_STATE_WORDS = re.compile(
    r"(^|_)(state|states|params|param|weights|variables|vars|opt|carry|model|buffers|cache|"
    r"moments|momentum|ema|accum|accumulators|stats)(_|$)", re.I)


def looks_like_state(name: str) -> bool:
    return bool(_STATE_WORDS.search(name))


_UPDATE_WORDS = re.compile(r"(^|_)(step|update|updates|sgd|adam|train|optimize|optimizer|apply)(_|$)", re.I)


def looks_like_update(function: str) -> bool:
    return bool(_UPDATE_WORDS.search(function.rsplit(".", 1)[-1]))
