"""A parser of optimized HLO text (``Compiled.as_text()``) into a small model.

Pure Python, never imports jax: the compile tier's workers send the text back and the
rules, ``jaxlint inspect`` and the reports read this model. The text is the one
interface that is stable across jax versions (the Python HLO bindings differ in every
release and expose neither shapes nor fusion kinds).

Two metadata styles map instructions to the user's source lines:

* up to jax 0.6: ``metadata={op_name="..." source_file="/p/m.py" source_line=12}``;
* from jax 0.8: ``metadata={... stack_frame_id=7}``, resolved through the
  ``FileNames`` / ``FunctionNames`` / ``FileLocations`` / ``StackFrames`` tables that
  precede the computations. There, a frame's printed ``parent_frame_id`` is one more
  than the parent's id (0 and 1 both mean "no parent"); this held on 0.8.3 and 0.10.2.

Operands are printed with their shapes on old versions (``f32[8]{0} %a``) and as bare
names on new ones (``%a``); both parse to names.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterator

#: bits per element of each HLO primitive type
DTYPE_BITS = {
    "pred": 8, "s2": 2, "u2": 2, "s4": 4, "u4": 4, "s8": 8, "u8": 8, "s16": 16, "u16": 16,
    "s32": 32, "u32": 32, "s64": 64, "u64": 64, "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
    "c64": 64, "c128": 128, "f8e5m2": 8, "f8e4m3fn": 8, "f8e4m3b11fnuz": 8, "f8e5m2fnuz": 8,
    "f8e4m3fnuz": 8, "f8e4m3": 8, "f8e3m4": 8, "f8e8m0fnu": 8, "f4e2m1fn": 4,
    "token": 0, "opaque": 0,
}

#: opcodes that compute each output element from the same element of their operands
ELEMENTWISE = frozenset("""
abs add and atan2 cbrt ceil clamp compare complex convert cosine count-leading-zeros divide
erf exponential exponential-minus-one floor imag is-finite log log-plus-one logistic maximum
minimum multiply negate not or popcnt power real reduce-precision remainder round-nearest-afz
round-nearest-even rsqrt select shift-left shift-right-arithmetic shift-right-logical sign
sine sqrt subtract tan tanh xor stochastic-convert
""".split())
#: opcodes that move no data or only replicate a value; harmless inside an elementwise fusion
FREE = frozenset("parameter constant broadcast bitcast reshape iota tuple get-tuple-element".split())
#: opcodes that only route values between kernels
PLUMBING = frozenset("parameter constant tuple get-tuple-element bitcast after-all".split())
#: the TPU's asynchronous moves of a value (or of slices of it) between memory spaces
MOVES = frozenset({"copy-start", "copy-done", "slice-start", "slice-done"})
#: custom-call targets that run Python on the host
HOST_CALLBACK_TARGETS = frozenset({
    "xla_python_cpu_callback", "xla_ffi_python_cpu_callback",
    "xla_python_gpu_callback", "xla_ffi_python_gpu_callback",
    "xla_ffi_partitioned_python_cpu_callback", "xla_ffi_partitioned_python_gpu_callback",
})


class HloParseError(ValueError):
    """The text is not optimized HLO as ``as_text()`` prints it."""


@dataclass(frozen=True)
class Shape:
    """An array shape (``dtype``, ``dims``) or a tuple of shapes (``dtype == "tuple"``)."""

    dtype: str
    dims: tuple[int, ...] = ()
    elements: tuple["Shape", ...] = ()
    #: the layout as printed, without braces (``1,0:T(8,128)S(1)``; "" when none)
    layout: str = field(default="", compare=False)

    @property
    def is_tuple(self) -> bool:
        return self.dtype == "tuple"

    @property
    def minor_to_major(self) -> tuple[int, ...]:
        """The layout's dimension order, minor first (row-major when none is printed)."""
        head = self.layout.split(":", 1)[0]
        order = tuple(int(d) for d in head.split(",") if d.strip().isdigit())
        return order if sorted(order) == list(range(len(self.dims))) else tuple(range(len(self.dims) - 1, -1, -1))

    @property
    def tiles(self) -> tuple[tuple[int, ...], ...]:
        """The layout's tiles, outermost first: ``T(8,128)(2,1)`` -> ``((8, 128), (2, 1))``
        (a ``*`` dimension reads as 1: it does not pad); () when the layout has none."""
        m = re.search(r"T((?:\([\d,*\s]*\))+)", self.layout.split(":", 1)[1] if ":" in self.layout else "")
        if m is None:
            return ()
        return tuple(tuple(int(d) if d.strip().isdigit() else 1 for d in t.split(","))
                     for t in re.findall(r"\(([^)]*)\)", m.group(1)))

    @property
    def memory_space(self) -> int:
        """The layout's memory space: ``S(1)`` -> 1 (on a TPU: its on-chip memory); 0 (the
        device's main memory, HBM) when none is printed."""
        m = re.search(r"S\((\d+)\)", self.layout.split(":", 1)[1] if ":" in self.layout else "")
        return int(m.group(1)) if m else 0

    @property
    def physical_dims(self) -> tuple[int, ...]:
        """The dimensions in memory order, major first, padded to the first tile: what
        the array occupies (its logical dims, reordered, without a tiled layout)."""
        dims = [self.dims[i] for i in reversed(self.minor_to_major)]
        if not self.tiles:
            return tuple(dims)
        tile = self.tiles[0]
        # a tile of more dimensions than the array pads leading dimensions of size 1
        dims = [1] * max(0, len(tile) - len(dims)) + dims
        k = len(tile)
        return tuple(dims[:len(dims) - k]) + tuple(-(-d // t) * t for d, t in zip(dims[len(dims) - k:], tile))

    def padded_dims(self) -> list[tuple[int, int, int]]:
        """(logical dimension, its size, the size its tile pads it to) of each dimension
        the layout's first tile pads: ``f32[1000,200]{1,0:T(8,128)}`` -> ``[(1, 200, 256)]``."""
        if not self.tiles or self.is_tuple:
            return []
        order = list(reversed(self.minor_to_major))  # logical dimensions, major first
        tile = self.tiles[0][-len(order):] if order else ()
        out = []
        for dim, t in zip(order[len(order) - len(tile):], tile):
            size = self.dims[dim]
            if t > 1 and size % t:
                out.append((dim, size, -(-size // t) * t))
        return out

    @property
    def tiled_bytes(self) -> int:
        """Bytes the array takes in its tiled layout (the TPU pads each dimension a tile
        spans to a multiple of the tile: ``f32[200,100]{1,0:T(8,128)}`` takes
        ``200 x 128 x 4``); ``bytes`` where the layout has no tiles. A tuple counts its
        elements."""
        if self.is_tuple:
            return sum(e.tiled_bytes for e in self.elements)
        if not self.tiles:
            return self.bytes
        n = 1
        for d in self.physical_dims:
            n *= d
        return (n * DTYPE_BITS.get(self.dtype, 0) + 7) // 8

    @property
    def size(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    @property
    def bytes(self) -> int:
        """Bytes of the buffer(s): a tuple counts its elements (not the pointer table)."""
        if self.is_tuple:
            return sum(e.bytes for e in self.elements)
        return (self.size * DTYPE_BITS.get(self.dtype, 0) + 7) // 8

    def leaves(self) -> Iterator["Shape"]:
        if self.is_tuple:
            for e in self.elements:
                yield from e.leaves()
        else:
            yield self

    def __str__(self) -> str:
        if self.is_tuple:
            return "(" + ", ".join(map(str, self.elements)) + ")"
        return f"{self.dtype}[{','.join(map(str, self.dims))}]"


@dataclass(frozen=True)
class SourceLocation:
    file: str
    line: int
    function: str = ""
    column: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class Instruction:
    name: str
    opcode: str
    shape: Shape
    operands: tuple[str, ...]
    attrs: dict[str, str]
    metadata: dict[str, str]
    computation: str
    is_root: bool = False
    #: the raw operand text of a ``constant`` (``{...}`` when XLA elided a large one)
    literal: str | None = None
    #: source locations, innermost (the user's line) first
    stack: tuple[SourceLocation, ...] = ()
    #: 1-based line of this instruction in the HLO text
    text_line: int = 0
    text: str = ""
    #: a ``while`` without XLA's ``known_trip_count`` (a TPU's program has none): the
    #: count read from its condition, its start value and its step (:func:`trip_count`)
    derived_trip_count: int | None = None

    @property
    def source(self) -> SourceLocation | None:
        return self.stack[0] if self.stack else None

    @property
    def fusion_kind(self) -> str | None:
        """``kLoop``/``kInput``/``kOutput``/``kCustom`` for fusions, else None."""
        return self.attrs.get("kind") if self.opcode == "fusion" else None

    @property
    def custom_fusion_kind(self) -> str | None:
        """The backend's name for a ``kCustom`` fusion (e.g. ``__ynn_fusion`` on CPU)."""
        m = re.search(r'"kind"\s*:\s*"([^"]+)"', self.attrs.get("backend_config", ""))
        return m.group(1) if m and self.opcode == "fusion" else None

    @property
    def custom_call_target(self) -> str | None:
        t = self.attrs.get("custom_call_target")
        return _unquote(t) if t is not None else None

    @property
    def called(self) -> tuple[str, ...]:
        """Names of the computations this instruction calls (fusion, reduce, while, ...)."""
        out: list[str] = []
        for key in ("calls", "to_apply", "condition", "body", "branch_computations", "called_computations",
                    "true_computation", "false_computation"):
            v = self.attrs.get(key)
            if v:
                out.extend(n.lstrip("%") for n in re.findall(r"%?[\w.\-]+", v.strip("{}")))
        return tuple(out)

    def location_in(self, path_suffix: str) -> SourceLocation | None:
        """The innermost location in a file whose path ends with ``path_suffix``."""
        for loc in self.stack:
            if _same_file(loc.file, path_suffix):
                return loc
        return None


@dataclass
class Computation:
    name: str
    instructions: list[Instruction] = field(default_factory=list)
    is_entry: bool = False
    signature: str = ""

    @cached_property
    def by_name(self) -> dict[str, Instruction]:
        return {i.name: i for i in self.instructions}

    @property
    def root(self) -> Instruction | None:
        for i in self.instructions:
            if i.is_root:
                return i
        return self.instructions[-1] if self.instructions else None

    def parameters(self) -> list[Instruction]:
        params = [i for i in self.instructions if i.opcode == "parameter"]
        return sorted(params, key=lambda i: int(i.literal or 0))


@dataclass(frozen=True)
class Alias:
    """One ``input_output_alias`` entry: output index <- parameter (+ index inside it)."""

    output_index: tuple[int, ...]
    parameter: int
    parameter_index: tuple[int, ...]
    kind: str = "may-alias"


@dataclass
class HloModule:
    name: str
    header: dict[str, str]
    computations: dict[str, Computation]
    entry: Computation
    aliases: tuple[Alias, ...] = ()
    #: True when locations came from the stack-frame tables (jax >= 0.8)
    stack_frames: bool = False
    #: those tables, to resolve a ``stack_frame_id`` met elsewhere (XLA's log)
    frame_table: "_FrameTable | None" = None

    def frame_stack(self, frame_id: int) -> tuple[SourceLocation, ...]:
        """The source locations of a stack frame id, innermost first (() without tables)."""
        return self.frame_table.stack(frame_id) if self.frame_table is not None else ()

    # -- lookups ---------------------------------------------------------------------------
    @cached_property
    def instructions(self) -> dict[str, Instruction]:
        return {i.name: i for c in self.computations.values() for i in c.instructions}

    @cached_property
    def users(self) -> dict[str, list[Instruction]]:
        """Instruction name -> the instructions (same computation) that read it."""
        out: dict[str, list[Instruction]] = {}
        for c in self.computations.values():
            for i in c.instructions:
                for op in i.operands:
                    out.setdefault(op, []).append(i)
        return out

    @cached_property
    def caller_of(self) -> dict[str, Instruction]:
        """Computation name -> the (first) instruction that calls it."""
        out: dict[str, Instruction] = {}
        for c in self.computations.values():
            for i in c.instructions:
                for name in i.called:
                    out.setdefault(name, i)
        return out

    def scheduled_computations(self) -> list[Computation]:
        """Computations whose instructions run as kernels: ENTRY and the bodies of
        while/conditional/call (not fused bodies and not reducers/comparators)."""
        out = []
        for c in self.computations.values():
            if c.is_entry:
                out.append(c)
                continue
            caller = self.caller_of.get(c.name)
            if caller is not None and caller.opcode in ("while", "conditional", "call", "async-start"):
                out.append(c)
        return out

    def kernels(self) -> list[Instruction]:
        """Instructions that do work at run time (fusions, custom calls, bare ops)."""
        return [i for c in self.scheduled_computations() for i in c.instructions
                if i.opcode not in PLUMBING and i.opcode not in ("while", "conditional", "call")]

    def fused_instructions(self, inst: Instruction) -> list[Instruction]:
        """For a fusion, the instructions of its fused computation(s), nested fusions included."""
        out: list[Instruction] = []
        seen: set[str] = set()
        todo = list(inst.called) if inst.opcode == "fusion" else []
        while todo:
            name = todo.pop()
            if name in seen or name not in self.computations:
                continue
            seen.add(name)
            for j in self.computations[name].instructions:
                out.append(j)
                if j.opcode == "fusion":
                    todo.extend(j.called)
        return out

    def is_elementwise(self, inst: Instruction) -> bool:
        """An elementwise kernel: a bare elementwise op, or a loop fusion of only
        elementwise and free ops (what XLA could merge with its neighbours)."""
        if inst.opcode in ELEMENTWISE:
            return True
        if inst.opcode == "fusion" and inst.fusion_kind == "kLoop":
            body = self.fused_instructions(inst)
            return bool(body) and all(j.opcode in ELEMENTWISE or j.opcode in FREE for j in body)
        return False

    def elementwise_operands(self, inst: Instruction, index: int | None = None) -> list[str]:
        """The operands ``inst`` is an elementwise function of (each output element reads the
        same element of the operand): every operand of a bare elementwise op; of a fusion,
        those its root reaches through elementwise ops alone, whatever else it reads (a
        moment update ``0.9 * m + 0.1 * transpose(g)`` is one of ``m``, not of ``g``). Of a
        multi-output fusion (a tuple root: the TPU fuses a gradient's matmul with the
        updates that read it), the result ``index`` of the tuple."""
        if inst.opcode in ELEMENTWISE:
            return list(inst.operands)
        return self._elementwise_walk(inst, index)[0]

    def elementwise_part(self, inst: Instruction, index: int | None = None) -> list[Instruction]:
        """The fused elementwise ops between a fusion's result (``index`` of a tuple root)
        and the operands :meth:`elementwise_operands` finds: the update itself, without
        the matmul a multi-output fusion computes beside it."""
        return self._elementwise_walk(inst, index)[1]

    def elementwise_depths(self, inst: Instruction, index: int | None = None) -> dict[str, int]:
        """:meth:`elementwise_operands` with how many elementwise ops lie between the
        result and each (1: an operand of the root op): ``p - lr * m'`` reads ``p`` at 1
        and the old moment ``m`` deeper, through ``m' = 0.9 * m + ...``."""
        if inst.opcode in ELEMENTWISE:
            return {o: 1 for o in inst.operands}
        return self._elementwise_walk(inst, index)[2]

    def _elementwise_walk(self, inst: Instruction, index: int | None
                          ) -> tuple[list[str], list[Instruction], dict[str, int]]:
        comp = self.computations.get(inst.called[0]) if inst.opcode == "fusion" and inst.called else None
        root = comp.root if comp is not None else None
        if comp is not None and root is not None and root.opcode == "tuple":
            picked = root.operands[index] if index is not None and 0 <= index < len(root.operands) else None
            root = comp.by_name.get(picked) if picked is not None else None
        if comp is None or root is None:
            return [], [], {}
        found: list[str] = []
        ops: list[Instruction] = []
        depth: dict[str, int] = {}
        todo, seen = [(root, 0)], set()
        while todo:  # breadth first: the nearest operands first
            j, d = todo.pop(0)
            if j.name in seen:
                continue
            seen.add(j.name)
            if j.opcode == "parameter" and j.shape.dims == root.shape.dims and (j.literal or "").isdigit() \
                    and int(j.literal or 0) < len(inst.operands):
                found.append(inst.operands[int(j.literal or 0)])
                depth.setdefault(found[-1], d)
            elif j.opcode in ELEMENTWISE:
                ops.append(j)
                todo.extend((x, d + 1) for o in j.operands if (x := comp.by_name.get(o)) is not None)
        return found, ops, depth

    def source_lines(self, inst: Instruction, path_suffix: str | None = None) -> list[SourceLocation]:
        """Distinct user locations of an instruction (for a fusion: of what it fused)."""
        seen: dict[tuple[str, int], SourceLocation] = {}
        for j in [inst] + self.fused_instructions(inst):
            loc = j.location_in(path_suffix) if path_suffix else j.source
            if loc is not None:
                seen.setdefault((loc.file, loc.line), loc)
        return sorted(seen.values(), key=lambda s: (s.file, s.line))

    def producer(self, name: str) -> Instruction | None:
        """The instruction computing ``name``, looking through get-tuple-element/bitcast
        and the moves that change where a value lives, not what it is (see :meth:`produced`)."""
        return self.produced(name)[0]

    def produced(self, name: str) -> tuple[Instruction | None, int | None]:
        """(the instruction computing ``name``, which element of its tuple result ``name``
        is, or None). Looks through get-tuple-element, bitcast, jaxlib 0.4's ``call``
        wrappers, and the TPU's memory moves: ``copy-done(copy-start(x))`` (a prefetch into
        another memory space) and a ``ConcatBitcast`` of ``slice-done`` pieces that make up
        all of ``x`` give ``x``."""
        inst = self.instructions.get(name)
        index: int | None = None
        seen: set[str] = set()
        while inst is not None and inst.name not in seen:
            seen.add(inst.name)
            if inst.opcode == "get-tuple-element" and inst.operands:
                try:
                    index = int(inst.attrs.get("index", ""))
                except ValueError:
                    index = None
                inst = self.instructions.get(inst.operands[0])
            elif inst.opcode == "bitcast" and inst.operands:
                inst = self.instructions.get(inst.operands[0])
            elif inst.opcode == "call" and inst.called and inst.called[0] in self.computations:
                # jaxlib 0.4 wraps big loop fusions in call(to_apply=%parallel_*_fusion)
                inst = self.computations[inst.called[0]].root
            elif inst.opcode == "parameter" and (operand := self._call_operand(inst)) is not None:
                inst, index = self.instructions.get(operand), None
            elif (moved := self._moved_from(inst)) is not None:
                inst, index = moved, None
            else:
                break
        return inst, index

    def _moved_from(self, inst: Instruction) -> Instruction | None:
        """The value a memory move hands on unchanged, or None: ``copy-done`` of a
        ``copy-start``; a TPU ``ConcatBitcast`` custom call whose operands are
        ``slice-done`` pieces of one instruction with as many elements as it has."""
        if inst.opcode == "copy-done" and inst.operands:
            start = self.instructions.get(inst.operands[0])
            if start is not None and start.opcode == "copy-start" and start.operands:
                return self.instructions.get(start.operands[0])
            return None
        if inst.opcode != "custom-call" or inst.custom_call_target != "ConcatBitcast" or not inst.operands:
            return None
        whole: set[str] = set()
        pieces = 0
        for op in inst.operands:
            done = self.instructions.get(op)
            start = self.instructions.get(done.operands[0]) if done is not None and done.operands else None
            if done is None or done.opcode != "slice-done" or start is None or start.opcode != "slice-start" \
                    or not start.operands:
                return None
            whole.add(start.operands[0])
            pieces += done.shape.size
        src = self.instructions.get(next(iter(whole))) if len(whole) == 1 else None
        if src is None or src.shape.is_tuple or src.shape.dims != inst.shape.dims or src.shape.size != pieces:
            return None
        return src

    def _call_operand(self, param: Instruction) -> str | None:
        """For a parameter of a ``call``ed body: the caller's operand it stands for."""
        caller = self.caller_of.get(param.computation)
        if caller is None or caller.opcode != "call":
            return None
        try:
            return caller.operands[int(param.literal or 0)]
        except (ValueError, IndexError):
            return None

    def consumers(self, inst: Instruction) -> list[Instruction]:
        """Users of ``inst``, looking through get-tuple-element/bitcast and the TPU's
        memory moves (``copy-start``/``-done``, ``slice-start``/``-done`` and the
        ``ConcatBitcast`` that puts the slices together again)."""
        out: list[Instruction] = []
        todo = [inst]
        seen = set()
        while todo:
            cur = todo.pop()
            for u in self.users.get(cur.name, ()):
                if u.name in seen:
                    continue
                seen.add(u.name)
                if u.opcode in ("get-tuple-element", "bitcast") or u.opcode in MOVES \
                        or (u.opcode == "custom-call" and u.custom_call_target == "ConcatBitcast"):
                    todo.append(u)
                elif u.opcode == "call" and u.called and u.called[0] in self.computations:
                    # jaxlib 0.4's parallel wrapper: the kernel is the body's root
                    out.append(self.computations[u.called[0]].root or u)
                else:
                    out.append(u)
            # the root of a called body flows to the users of the call
            caller = self.caller_of.get(cur.computation)
            if cur.is_root and caller is not None and caller.opcode == "call" and caller.name not in seen:
                seen.add(caller.name)
                todo.append(caller)
        return out

    def constants(self) -> list[Instruction]:
        return [i for c in self.computations.values() for i in c.instructions if i.opcode == "constant"]

    def entry_parameters(self) -> list[Instruction]:
        return self.entry.parameters()

    def entry_outputs(self) -> list[tuple[tuple[int, ...], Shape]]:
        """(output index, shape) of each leaf of the ENTRY result."""
        root = self.entry.root
        if root is None:
            return []
        out: list[tuple[tuple[int, ...], Shape]] = []

        def walk(shape: Shape, idx: tuple[int, ...]) -> None:
            if shape.is_tuple:
                for k, e in enumerate(shape.elements):
                    walk(e, idx + (k,))
            else:
                out.append((idx, shape))

        walk(root.shape, ())
        return out


# -- parsing -------------------------------------------------------------------------------

_COMP_RE = re.compile(r"^(ENTRY\s+)?%?([^\s(]+)\s+(\(.*\))\s+->\s+(.*?)\s*\{\s*$")
_INST_RE = re.compile(r"^\s*(ROOT\s+)?%?([^\s=]+)\s+=\s+(.*)$")
_META_RE = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
_TABLE_ENTRY_RE = re.compile(r'^(\d+)\s+(.*)$')
_ALIAS_RE = re.compile(r"\{([\d,\s]*)\}\s*:\s*\(\s*(\d+)\s*,\s*\{([\d,\s]*)\}\s*(?:,\s*([\w-]+))?\s*\)")
_OPENERS = {"(": ")", "{": "}", "[": "]"}
_COMMENT_RE = re.compile(r"/\*.*?\*/")
_OPCODE_RE = re.compile(r"\s*([\w\-]+)\(")
_ARRAY_SHAPE_RE = re.compile(r"([a-z][a-z0-9]*)\[([^\]]*)\]")
_BARE_TYPE_RE = re.compile(r"([a-z][a-z0-9]*)")


def parse_hlo(text: str) -> HloModule:
    """Parse the text of one optimized HLO module."""
    lines = text.splitlines()
    i = 0
    while i < len(lines) and not lines[i].startswith("HloModule"):
        i += 1
    if i == len(lines):
        raise HloParseError("no `HloModule` header")
    name, header = _parse_header(lines[i])
    i += 1
    tables: dict[str, dict[int, str]] = {}
    section: str | None = None
    computations: dict[str, Computation] = {}
    current: Computation | None = None
    for lineno in range(i, len(lines)):
        raw = lines[lineno]
        # long tuples carry position comments: (f32[], ..., /*index=5*/f32[10])
        line = _COMMENT_RE.sub("", raw).strip() if "/*" in raw else raw.strip()
        if not line or line.startswith("//"):
            continue
        if current is not None:
            if line == "}":
                computations[current.name] = current
                current = None
                continue
            inst = _parse_instruction(line, current.name)
            if inst is None:
                raise HloParseError(f"line {lineno + 1}: cannot parse instruction: {line[:120]}")
            inst.text_line = lineno + 1
            inst.text = line
            current.instructions.append(inst)
            continue
        m = _COMP_RE.match(line)
        if m:
            current = Computation(m.group(2), is_entry=bool(m.group(1)), signature=line[:-1].rstrip())
            section = None
            continue
        if re.fullmatch(r"[A-Za-z]+", line):
            section = line
            tables[section] = {}
            continue
        m = _TABLE_ENTRY_RE.match(line)
        if m and section is not None:
            tables[section][int(m.group(1))] = m.group(2)
            continue
        raise HloParseError(f"line {lineno + 1}: unexpected text: {line[:120]}")
    if current is not None:
        raise HloParseError(f"computation `{current.name}` is not closed")
    entries = [c for c in computations.values() if c.is_entry]
    if not entries:
        raise HloParseError("no ENTRY computation")
    _acyclic(computations)
    frames = _FrameTable(tables) if "StackFrames" in tables else None
    for c in computations.values():
        for inst in c.instructions:
            inst.stack = _locate(inst.metadata, frames)
    module = HloModule(
        name=name,
        header=header,
        computations=computations,
        entry=entries[0],
        aliases=tuple(_parse_aliases(header.get("input_output_alias", ""))),
        stack_frames=frames is not None,
        frame_table=frames,
    )
    for c in computations.values():
        for inst in c.instructions:
            if inst.opcode == "while" and trip_count(inst) is None:
                inst.derived_trip_count = _counted_loop(module, inst)
    return module


def _acyclic(computations: dict[str, Computation]) -> None:
    """The parser's error when a computation calls itself, directly or through others
    (HLO has no recursion; a damaged text would send every walk of the calls round)."""
    calls = {name: {n for i in c.instructions for n in i.called if n in computations}
             for name, c in computations.items()}
    done: set[str] = set()
    for start in calls:
        if start in done:
            continue
        path, stack = {start}, [(start, iter(calls[start]))]
        while stack:
            name, todo = stack[-1]
            callee = next(todo, None)
            if callee is None:
                stack.pop()
                path.discard(name)
                done.add(name)
            elif callee in path:
                raise HloParseError(f"computation `{callee}` calls itself (through `{name}`)")
            elif callee not in done:
                path.add(callee)
                stack.append((callee, iter(calls[callee])))


def _parse_header(line: str) -> tuple[str, dict[str, str]]:
    rest = line[len("HloModule"):].strip()
    parts = split_top(rest)
    name = parts[0].strip() if parts else ""
    header: dict[str, str] = {}
    for p in parts[1:]:
        k, sep, v = p.partition("=")
        if sep:
            header[k.strip()] = v.strip()
    return name, header


def _parse_aliases(text: str) -> Iterator[Alias]:
    for m in _ALIAS_RE.finditer(text):
        yield Alias(_int_tuple(m.group(1)), int(m.group(2)), _int_tuple(m.group(3)), m.group(4) or "may-alias")


def _int_tuple(s: str) -> tuple[int, ...]:
    return tuple(int(x) for x in s.replace(" ", "").split(",") if x)


def _parse_instruction(line: str, computation: str) -> Instruction | None:
    m = _INST_RE.match(line)
    if not m:
        return None
    is_root, name, rest = bool(m.group(1)), m.group(2).lstrip("%"), m.group(3)
    shape, pos = _read_shape(rest, 0)
    om = _OPCODE_RE.match(rest, pos)
    if om is None:
        return None
    opcode = om.group(1)
    open_at = om.end() - 1
    close_at = match_closer(rest, open_at)
    inner = rest[open_at + 1:close_at]
    attrs: dict[str, str] = {}
    last: str | None = None
    for part in split_top(rest[close_at + 1:]):
        k, sep, v = part.partition("=")
        if sep and k.strip() == "device_ids" and last == "replica_groups":
            # Shardy's `replica_groups=mesh[...], device_ids=([4,2]T(1,0)) {'axis'}`: one
            # attribute with a comma of its own at the top level
            attrs["replica_groups"] += ", " + part.strip()
        elif sep:
            last = k.strip()
            attrs[last] = v.strip()
    literal = None
    operands: tuple[str, ...] = ()
    if opcode in ("constant", "parameter", "iota", "rng-get-and-update-state"):
        literal = inner.strip()
        if opcode == "parameter" and not (literal.isascii() and literal.isdigit()):
            raise HloParseError(f"parameter `{name}` has no number: {line[:120]}")
    else:
        operands = tuple(_operand_name(p) for p in split_top(inner) if p.strip())
    metadata = {}
    if "metadata" in attrs:
        metadata = {k: _unquote(v) for k, v in _META_RE.findall(attrs["metadata"].strip()[1:-1])}
    return Instruction(name, opcode, shape, operands, attrs, metadata, computation, is_root, literal)


def _operand_name(text: str) -> str:
    token = text.strip().split()[-1]
    return token.lstrip("%")


def parse_shape(text: str) -> Shape:
    shape, _ = _read_shape(text.strip(), 0)
    return shape


def _read_shape(s: str, pos: int) -> tuple[Shape, int]:
    while pos < len(s) and s[pos] == " ":
        pos += 1
    if pos < len(s) and s[pos] == "(":
        end = match_closer(s, pos)
        elems = tuple(parse_shape(p) for p in split_top(s[pos + 1:end]) if p.strip())
        return Shape("tuple", (), elems), end + 1
    m = _ARRAY_SHAPE_RE.match(s, pos)
    if m is None:
        m2 = _BARE_TYPE_RE.match(s, pos)  # token, opaque
        if m2 is None:
            raise HloParseError(f"cannot read a shape at: {s[pos:pos + 40]!r}")
        return Shape(m2.group(1)), m2.end()
    dims = tuple(int(d) if d.isdigit() else int(re.sub(r"[^0-9]", "", d) or 0)
                 for d in m.group(2).split(",") if d.strip())
    end = m.end()
    layout = ""
    if end < len(s) and s[end] == "{":  # layout
        close = match_closer(s, end)
        layout, end = s[end + 1:close], close + 1
    return Shape(m.group(1), dims, layout=layout), end


#: the characters the bracket scanners care about; a string literal is one token
_SCAN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|[(){}\[\],]')


def match_closer(s: str, i: int) -> int:
    """Index of the bracket closing ``s[i]``, skipping nested brackets and strings."""
    depth = 0
    for m in _SCAN_RE.finditer(s, i):
        c = m.group()
        if c in _OPENERS:
            depth += 1
        elif c in ")}]":
            depth -= 1
            if depth == 0:
                return m.start()
    raise HloParseError(f"unbalanced brackets in: {s[i:i + 80]!r}")


def split_top(s: str) -> list[str]:
    """Split at commas outside brackets and strings."""
    if "," not in s:
        return [s.strip()] if s.strip() else []
    parts: list[str] = []
    depth = 0
    start = 0
    for m in _SCAN_RE.finditer(s):
        c = m.group()
        if c in _OPENERS:
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(s[start:m.start()])
            start = m.end()
    tail = s[start:]
    if tail.strip():
        parts.append(tail)
    return [p.strip() for p in parts]


def _unquote(v: str) -> str:
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        return re.sub(r"\\(.)", r"\1", v[1:-1])
    return v


class _FrameTable:
    """The stack-frame tables printed by jax >= 0.8."""

    def __init__(self, tables: dict[str, dict[int, str]]) -> None:
        self.files = {k: _unquote(v) for k, v in tables.get("FileNames", {}).items()}
        self.functions = {k: _unquote(v) for k, v in tables.get("FunctionNames", {}).items()}
        self.locations = {k: _fields(v) for k, v in tables.get("FileLocations", {}).items()}
        self.frames = {k: _fields(v) for k, v in tables.get("StackFrames", {}).items()}
        self._cache: dict[int, tuple[SourceLocation, ...]] = {}

    def location(self, loc_id: int) -> SourceLocation | None:
        f = self.locations.get(loc_id)
        if f is None:
            return None
        col = f.get("column")
        return SourceLocation(
            self.files.get(f.get("file_name_id", 0), "?"),
            f.get("line", 0),
            self.functions.get(f.get("function_name_id", 0), ""),
            col + 1 if col is not None else None,  # printed 0-based
        )

    def stack(self, frame_id: int) -> tuple[SourceLocation, ...]:
        if frame_id in self._cache:
            return self._cache[frame_id]
        out: list[SourceLocation] = []
        seen: set[int] = set()
        fid = frame_id
        while fid in self.frames and fid not in seen:
            seen.add(fid)
            fr = self.frames[fid]
            loc = self.location(fr.get("file_location_id", 0))
            if loc is not None:
                out.append(loc)
            fid = fr.get("parent_frame_id", 0) - 1
        self._cache[frame_id] = tuple(out)
        return self._cache[frame_id]


def _fields(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", text)}


def _locate(meta: dict[str, str], frames: _FrameTable | None) -> tuple[SourceLocation, ...]:
    if frames is not None and "stack_frame_id" in meta:
        try:
            return frames.stack(int(meta["stack_frame_id"]))
        except ValueError:
            return ()
    if "source_file" in meta and "source_line" in meta:
        try:
            line = int(meta["source_line"])
        except ValueError:
            return ()
        col = meta.get("source_column")
        return (SourceLocation(meta["source_file"], line, "", int(col) if col and col.isdigit() else None),)
    return ()


def _same_file(a: str, b: str) -> bool:
    a = a.replace("\\", "/")
    b = b.replace("\\", "/")
    return a == b or a.endswith("/" + b.lstrip("/")) or b.endswith("/" + a.lstrip("/"))


def describe(inst: Instruction) -> str:
    """A short human name for a kernel: its fusion kind or custom-call target."""
    if inst.opcode == "custom-call":
        return f"custom-call `{inst.custom_call_target}`"
    if inst.opcode == "fusion":
        kind = inst.custom_fusion_kind or inst.fusion_kind or "fusion"
        return f"fusion `{inst.name}` ({kind})"
    return f"`{inst.opcode}`"


# -- host calls ----------------------------------------------------------------------------

#: the host-transfer halves a TPU program calls Python with (``is_host_transfer=true``)
HOST_TRANSFERS = frozenset({"send", "send-done", "recv", "recv-done"})


@dataclass(frozen=True)
class HostCall:
    """One call out to Python on the host: a callback custom call (CPU, GPU), or on the
    TPU the ``send``/``recv`` host transfers of one callback, chained by their tokens.

    ``inst`` names it (the custom call, or the first ``send``: its metadata has the
    callback's line); ``inputs`` the values sent; ``results`` the instructions whose
    users read what comes back (the custom call, or the ``recv-done`` halves)."""

    inst: Instruction
    inputs: tuple[str, ...]
    results: tuple[Instruction, ...]
    target: str


def host_calls(module: HloModule) -> list[HostCall]:
    """Every host callback of the program, in text order."""
    out: list[HostCall] = []
    for c in module.computations.values():
        transfers = [i for i in c.instructions if i.opcode in HOST_TRANSFERS
                     and i.attrs.get("is_host_transfer") == "true"]
        group = {i.name: i.name for i in transfers}

        def find(n: str) -> str:
            while group[n] != n:
                group[n] = group[group[n]]
                n = group[n]
            return n

        for i in transfers:  # one callback: the transfers its tokens chain together
            for op in i.operands:
                if op in group:
                    group[find(op)] = find(i.name)
        calls: dict[str, list[Instruction]] = {}
        for i in transfers:
            calls.setdefault(find(i.name), []).append(i)
        for i in c.instructions:
            if i.opcode == "custom-call" and (i.custom_call_target in HOST_CALLBACK_TARGETS
                                               or "callback" in (i.custom_call_target or "")):
                out.append(HostCall(i, i.operands, (i,), i.custom_call_target or ""))
        for parts in calls.values():
            sends = [i for i in parts if i.opcode == "send"]
            head = sends[0] if sends else parts[0]
            out.append(HostCall(head, tuple(s.operands[0] for s in sends if s.operands),
                                tuple(i for i in parts if i.opcode == "recv-done"), "host transfer"))
    return sorted(out, key=lambda h: h.inst.text_line)


# -- collectives ---------------------------------------------------------------------------

#: collective opcodes (the ``-start`` halves of async pairs count; ``-done`` halves do not)
COLLECTIVES = frozenset({
    "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "ragged-all-to-all",
    "collective-permute", "collective-broadcast",
    "all-reduce-start", "all-gather-start", "collective-permute-start",
})


@dataclass(frozen=True)
class Loop:
    """A ``while`` that encloses an instruction: its name and ``known_trip_count``
    (None when XLA does not know it)."""

    name: str
    trip_count: int | None
    source: SourceLocation | None = None


@dataclass(frozen=True)
class Collective:
    """One collective of the optimized program, per device and per call.

    ``groups``: the device groups that communicate, as partition (or replica) ids;
    None when the instruction names none (every device). ``loops``: the enclosing
    ``while`` loops, innermost first. ``origin``: the instruction whose metadata gives
    the user's line: the collective itself, or, for a reshard XLA inserted without
    metadata, the producer of its operand (``origin_via`` is then ``"operand"``);
    ``argument`` the ENTRY parameter number when the operand is an argument as passed.
    """

    inst: Instruction
    kind: str
    operand_shapes: tuple[Shape, ...]
    groups: tuple[tuple[int, ...], ...] | None
    loops: tuple[Loop, ...] = ()
    origin: Instruction | None = None
    origin_via: str = ""
    argument: int | None = None

    @property
    def result_shape(self) -> Shape:
        return self.inst.shape

    @property
    def operand_bytes(self) -> int:
        return sum(s.bytes for s in self.operand_shapes)

    @property
    def result_bytes(self) -> int:
        return self.inst.shape.bytes

    @property
    def bytes(self) -> int:
        """Payload of one execution: max(operand, result) bytes, per device."""
        return max(self.operand_bytes, self.result_bytes)

    @property
    def trip_count(self) -> int:
        """Executions per call of the program: the product of the known trip counts of
        the enclosing loops (an unknown count counts once; see ``unknown_trip_count``)."""
        n = 1
        for lp in self.loops:
            n *= lp.trip_count if lp.trip_count is not None else 1
        return n

    @property
    def unknown_trip_count(self) -> bool:
        return any(lp.trip_count is None for lp in self.loops)

    @property
    def payload(self) -> int:
        """Bytes per call of the program: ``bytes`` x ``trip_count``."""
        return self.bytes * self.trip_count

    @property
    def in_loop(self) -> bool:
        return bool(self.loops)

    @property
    def group_size(self) -> int | None:
        return len(self.groups[0]) if self.groups else None


def parse_replica_groups(text: str) -> tuple[tuple[int, ...], ...] | None:
    """Device groups in any of the four spellings XLA prints: explicit
    ``{{0,1},{2,3}}``; iota ``[2,4]<=[8]`` or ``[4,2]<=[2,4]T(1,0)``; Shardy's
    ``mesh['a'=4,'b'=2] {'a'}``, optionally with ``, device_ids=([4,2]T(1,0))`` before
    the axes. ``{}`` (every device) gives None; so does a spelling not known here."""
    t = text.strip()
    if not t or t == "{}":
        return None
    if t.startswith("{"):
        groups = tuple(_int_tuple(g) for g in re.findall(r"\{([\d,\s]*)\}", t[1:-1]))
        return groups or None
    m = re.fullmatch(r"\[(\d+),(\d+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?", t.replace(" ", ""))
    if m:
        count, size = _devices(t, [int(m.group(1)), int(m.group(2))]), int(m.group(2))
        flat = _iota_tile(t, _int_list(m.group(3)), _int_list(m.group(4)) if m.group(4) else None)
        if len(flat) != count:
            raise HloParseError(f"replica groups {t[:80]!r}: {m.group(1)}x{size} groups of {len(flat)} devices")
        return tuple(tuple(flat[i:i + size]) for i in range(0, len(flat), size))
    if t.startswith("mesh["):
        return _mesh_groups(t)
    return None


#: the most devices a program's replica groups may name (the largest TPU slices have a
#: few thousand chips): more is a damaged text, never expanded into a list
MAX_DEVICES = 1 << 16


def _int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def _devices(text: str, dims: list[int]) -> int:
    """How many devices an array of ``dims`` of them holds: each 1 or more and at most
    :data:`MAX_DEVICES` in all, else the parser's error naming ``text``."""
    n = 1
    for d in dims:
        n *= d
        if d < 1 or n > MAX_DEVICES:
            raise HloParseError(f"replica groups {text[:80]!r}: {'x'.join(map(str, dims))} devices "
                                f"({'an empty dimension' if d < 1 else f'more than {MAX_DEVICES}'})")
    return n


def _iota_tile(text: str, dims: list[int], perm: list[int] | None) -> list[int]:
    """``iota(prod(dims)).reshape(dims).transpose(perm).ravel()`` without numpy; the
    parser's error when ``dims`` is out of bounds or ``perm`` no permutation of them."""
    n = _devices(text, dims)
    if perm is not None and sorted(perm) != list(range(len(dims))):
        raise HloParseError(f"replica groups {text[:80]!r}: T({','.join(map(str, perm))}) is no permutation "
                            f"of {len(dims)} dimensions")
    if not perm:
        return list(range(n))
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    tdims = [dims[p] for p in perm]
    tstrides = [strides[p] for p in perm]
    out = []
    for flat in range(n):
        rem, off = flat, 0
        for i in range(len(tdims) - 1, -1, -1):
            rem, c = divmod(rem, tdims[i])
            off += c * tstrides[i]
        out.append(off)
    return out


def _mesh_groups(text: str) -> tuple[tuple[int, ...], ...] | None:
    m = re.match(r"mesh\[([^\]]*)\]", text)
    if m is None:
        return None
    axes = [(a.strip().strip("'\""), int(n)) for a, n in re.findall(r"([^,=]+)=(\d+)", m.group(1))]
    rest = text[m.end():]
    total = _devices(text, [n for _, n in axes])
    devices = list(range(total))
    d = re.search(r"device_ids=\((\[[\d,\s]+\](?:T\([\d,\s]+\))?|[\d,\s]+)\)", rest)
    if d:
        spec = d.group(1).replace(" ", "")
        it = re.fullmatch(r"\[([\d,]+)\](?:T\(([\d,]+)\))?", spec)
        if it:
            devices = _iota_tile(text, _int_list(it.group(1)), _int_list(it.group(2)) if it.group(2) else None)
        elif re.fullmatch(r"[\d,]+", spec):
            devices = [int(x) for x in spec.split(",")]
        else:
            return None
        rest = rest[:d.start()] + rest[d.end():]
    sel = re.search(r"\{([^}]*)\}", rest)
    if sel is None or len(devices) != total:
        return None
    names = [a for a, _ in axes]
    chosen = [s.strip().strip("'\"") for s in sel.group(1).split(",") if s.strip()]
    if any(c not in names for c in chosen):  # sub-axes ('a':(1)2) are not read here
        return None
    sizes = [n for _, n in axes]
    strides = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    inner = [names.index(c) for c in chosen]
    outer = [i for i in range(len(names)) if i not in inner]
    groups = []
    for o in _coords([sizes[i] for i in outer]):
        base = sum(c * strides[i] for c, i in zip(o, outer))
        groups.append(tuple(devices[base + sum(c * strides[i] for c, i in zip(g, inner))]
                            for g in _coords([sizes[i] for i in inner])))
    return tuple(groups)


def _coords(sizes: list[int]) -> Iterator[tuple[int, ...]]:
    """Every index tuple of an array of ``sizes``, row-major."""
    if not sizes:
        yield ()
        return
    for head in range(sizes[0]):
        for tail in _coords(sizes[1:]):
            yield (head,) + tail


def trip_count(inst: Instruction) -> int | None:
    """A ``while``'s ``known_trip_count`` from its backend config, else the count read
    from the loop itself (``derived_trip_count``); None when unknown."""
    m = re.search(r'"known_trip_count"\s*:\s*\{\s*"n"\s*:\s*"?(\d+)', inst.attrs.get("backend_config", ""))
    return int(m.group(1)) if m else inst.derived_trip_count


def _counted_loop(module: HloModule, loop: Instruction) -> int | None:
    """The trip count of a counted ``while`` (a ``scan``, a ``fori_loop``): its condition
    is ``counter < N`` on one element of the loop's tuple, that element starts at a
    constant and the body adds a constant step to it. None for any other loop."""
    cond = module.computations.get(loop.attrs.get("condition", "").lstrip("%"))
    body = module.computations.get(loop.attrs.get("body", "").lstrip("%"))
    test = cond.root if cond is not None else None
    if body is None or test is None or test.opcode != "compare" or len(test.operands) != 2 \
            or test.attrs.get("direction") != "LT":
        return None
    counter = cond.by_name.get(test.operands[0])  # type: ignore[union-attr]
    limit = _int_constant(module, test.operands[1])
    if counter is None or counter.opcode != "get-tuple-element" or limit is None:
        return None
    index = int(counter.attrs.get("index", "-1"))
    init = module.instructions.get(loop.operands[0]) if loop.operands else None
    start = _int_constant(module, init.operands[index]) if init is not None and init.opcode == "tuple" \
        and 0 <= index < len(init.operands) else None
    root = body.root
    step_inst = module.instructions.get(root.operands[index]) if root is not None and root.opcode == "tuple" \
        and 0 <= index < len(root.operands) else None
    if start is None or step_inst is None or step_inst.opcode != "add" or len(step_inst.operands) != 2:
        return None
    step = None
    for mine, other in (step_inst.operands, step_inst.operands[::-1]):
        src = _looked_through(module, mine)
        if src is not None and src.opcode == "get-tuple-element" and src.attrs.get("index") == str(index) \
                and src.operands and module.instructions.get(src.operands[0]) is not None \
                and module.instructions[src.operands[0]].opcode == "parameter":
            step = _int_constant(module, other)
    if not step or step <= 0:
        return None
    return max(0, -(-(limit - start) // step))


def _looked_through(module: HloModule, name: str) -> Instruction | None:
    """The instruction behind ``name`` through copies and bitcasts (a TPU copies a loop
    counter into its scalar memory first)."""
    inst = module.instructions.get(name)
    for _ in range(8):
        if inst is None or inst.opcode not in ("copy", "bitcast") or not inst.operands:
            break
        inst = module.instructions.get(inst.operands[0])
    return inst


def _int_constant(module: HloModule, name: str) -> int | None:
    inst = _looked_through(module, name)
    if inst is None or inst.opcode != "constant" or inst.shape.dims or not inst.shape.dtype.startswith(("s", "u")):
        return None
    try:
        return int((inst.literal or "").strip())
    except ValueError:
        return None


def enclosing_loops(module: HloModule, inst: Instruction) -> tuple[Loop, ...]:
    """The ``while`` loops around an instruction, innermost first (through calls,
    conditionals and fusions too)."""
    out: list[Loop] = []
    comp = inst.computation
    seen: set[str] = set()
    while comp not in seen:
        seen.add(comp)
        caller = module.caller_of.get(comp)
        if caller is None:
            break
        if caller.opcode == "while" and caller.attrs.get("body", "").lstrip("%") == comp:
            out.append(Loop(caller.name, trip_count(caller), caller.source))
        comp = caller.computation
    return tuple(out)


def collectives(module: HloModule) -> list[Collective]:
    """Every collective of the program, in text order, with its loops and its origin.

    A TPU runs an asynchronous collective as fusions that each hold a copy of it (the
    start, the computation it overlaps, the done), with one ``channel_id``: it is one
    collective, counted once (its first copy, the start's)."""
    out = []
    entry_params = {p.name: int(p.literal or 0) for p in module.entry.parameters()}
    fused_seen: set[tuple[str, str]] = set()
    scheduled = {c.name for c in module.scheduled_computations()}
    for c in module.computations.values():
        for inst in c.instructions:
            if inst.opcode not in COLLECTIVES:
                continue
            channel = inst.attrs.get("channel_id")
            if channel is not None and c.name not in scheduled:
                if (inst.opcode, channel) in fused_seen:
                    continue
                fused_seen.add((inst.opcode, channel))
            kind = inst.opcode[:-len("-start")] if inst.opcode.endswith("-start") else inst.opcode
            shapes = tuple(module.instructions[o].shape for o in inst.operands if o in module.instructions)
            if "source_target_pairs" in inst.attrs:
                groups = parse_replica_groups(inst.attrs["source_target_pairs"])
            else:
                groups = parse_replica_groups(inst.attrs.get("replica_groups", ""))
            origin, via, arg = _origin(module, inst, entry_params)
            out.append(Collective(inst, kind, shapes, groups, enclosing_loops(module, inst), origin, via, arg))
    return out


def _origin(module: HloModule, inst: Instruction, params: dict[str, int]) -> tuple[Instruction | None, str, int | None]:
    """(the instruction that gives ``inst`` its line, how it was found, the argument
    number when the data comes straight from an argument)."""
    arg = None
    todo = list(inst.operands)
    seen: set[str] = set()
    first = True
    found: Instruction | None = inst if _has_location(module, inst) else None
    via = "metadata" if found is not None else ""
    while todo and len(seen) < 64:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        p = module.producer(name)
        if p is None:
            continue
        if p.opcode == "parameter" and p.name in params:
            if first:
                arg = params[p.name]
            continue
        if found is None and _has_location(module, p):
            found, via = p, "operand"
            break
        if p.opcode in ("copy", "reshape", "transpose", "tuple", "bitcast", "dynamic-slice", "slice",
                        "get-tuple-element") or p.opcode in COLLECTIVES:
            todo.extend(p.operands)
        first = False
    return found, via, arg


def _has_location(module: HloModule, inst: Instruction) -> bool:
    return bool(inst.stack) or any(j.stack for j in module.fused_instructions(inst))
