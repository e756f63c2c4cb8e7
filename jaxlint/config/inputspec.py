"""Input specs: the text a user writes for trace inputs (``# jaxlint: args=(f32[8,128],)``,
``[tool.jaxlint.dynamic.functions]``) read into plain JSON nodes (the node forms are in
:mod:`jaxlint.dynamic.inputs`). Pure Python: the config validates specs with it.
"""
from __future__ import annotations

import ast
import re
from typing import Any, Mapping

DTYPES = {
    "bool": "bool", "b1": "bool",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128",
}
DTYPES.update({v: v for v in list(DTYPES.values())})

EMPTY_DIMS = re.compile(r"\b([A-Za-z][A-Za-z0-9]*)\[\s*\]")


#: the most nodes (arrays, values, containers) one input spec may build, and the longest text
MAX_NODES = 10_000
MAX_TEXT = 10_000


class SpecError(ValueError):
    """An input directive or config entry that cannot be read."""


def parse_spec_expr(text: str) -> dict:
    """``(f32[8,128], i32[8])`` -> a tuple node. Accepts dtype abbreviations or full
    names, ``f32[]`` scalars, symbolic dims (``f32[b,128]``), nested tuples, lists and
    dicts, repeated sequences (``[f32[8,8]] * 12``), and plain literals."""
    if len(text) > MAX_TEXT:
        raise SpecError(f"input spec of {len(text)} characters, over the limit of {MAX_TEXT}")
    src = EMPTY_DIMS.sub(r"\1[()]", text.strip())
    try:
        tree = ast.parse(src, mode="eval")
        node = _node(tree.body, text)
    except SyntaxError as e:
        raise SpecError(f"cannot parse input spec {_short(text)}: {e.msg}") from None
    except (RecursionError, MemoryError):
        raise SpecError(f"input spec {_short(text)} is nested too deeply") from None
    if _count(node) > MAX_NODES:
        raise SpecError(f"input spec {_short(text)} has more than {MAX_NODES} entries")
    return node


def _short(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _count(node: Any) -> int:
    """The number of nodes of a spec, counted up to just past :data:`MAX_NODES`."""
    n, stack = 0, [node]
    while stack and n <= MAX_NODES:
        x = stack.pop()
        n += 1
        for kind in ("tuple", "list", "dict"):
            if kind in x:
                stack.extend(x[kind].values() if kind == "dict" else x[kind])
    return n


def _node(n: ast.expr, text: str) -> dict:
    if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
        dtype = DTYPES.get(n.value.id)
        if dtype is None:
            raise SpecError(f"unknown dtype `{n.value.id}` in {text!r} (use f32, i32, bf16, ...)")
        dims = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
        shape: list[int | str] = []
        for d in dims:
            if isinstance(d, ast.Constant) and isinstance(d.value, int) and not isinstance(d.value, bool) and d.value >= 0:
                shape.append(d.value)
            elif isinstance(d, ast.Name):
                shape.append(d.id)
            else:
                raise SpecError(f"bad dimension `{ast.unparse(d)}` in {text!r}")
        return {"array": shape, "dtype": dtype, "weak": False}
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
        # `f32[8192,1024] @ P("data", None)`: an array split over a target's mesh axes
        node = _node(n.left, text)
        if "array" not in node:
            raise SpecError(f"`@ P(...)` places an array, not `{ast.unparse(n.left)}`, in {text!r}")
        node["sharding"] = {"spec": _partition_spec(n.right, text, len(node["array"]))}
        return node
    if isinstance(n, ast.Tuple):
        return {"tuple": [_node(e, text) for e in n.elts]}
    if isinstance(n, ast.List):
        return {"list": [_node(e, text) for e in n.elts]}
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
        # `[f32[8,8]] * 12`: a list of layers, written the way Python builds it
        seq, count = (n.left, n.right) if isinstance(n.left, (ast.List, ast.Tuple)) else (n.right, n.left)
        if isinstance(seq, (ast.List, ast.Tuple)) and isinstance(count, ast.Constant) \
                and type(count.value) is int and count.value >= 0:
            node = _node(seq, text)
            kind = "tuple" if "tuple" in node else "list"
            if count.value * (_count(node) - 1) > MAX_NODES:  # refused before it is built
                raise SpecError(f"`{_short(ast.unparse(n))[1:-1]}` in input spec {_short(text)} makes more than "
                                f"{MAX_NODES} entries")
            return {kind: node[kind] * count.value}
    if isinstance(n, ast.Dict):
        out = {}
        for k, v in zip(n.keys, n.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                raise SpecError(f"dict keys must be strings in {text!r}")
            out[k.value] = _node(v, text)
        return {"dict": out}
    try:
        return {"value": ast.literal_eval(n)}
    except (ValueError, SyntaxError):
        raise SpecError(f"cannot read `{ast.unparse(n)}` in {text!r}: use f32[8,128]-style specs or literals") from None


def _partition_spec(n: ast.expr, text: str, ndim: int) -> list:
    """``P("data", None)`` / ``P(("data", "model"))`` -> one entry per dimension: None
    (not split) or the list of mesh axis names it is split over."""
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("P", "PartitionSpec")
            and not n.keywords):
        raise SpecError(f"after `@` comes a partition spec such as P(\"data\", None), not `{ast.unparse(n)}`, "
                        f"in {text!r}")
    if len(n.args) > ndim:
        raise SpecError(f"`{ast.unparse(n)}` names {len(n.args)} dimensions of a {ndim}-dimensional array in {text!r}")
    out: list = []
    for a in n.args:
        names = a.elts if isinstance(a, ast.Tuple) else [a]
        if isinstance(a, ast.Constant) and a.value is None:
            out.append(None)
        elif all(isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.isidentifier() for e in names):
            out.append([e.value for e in names])  # type: ignore[attr-defined]
        else:
            raise SpecError(f"a partition spec entry is None, an axis name or a tuple of them, not "
                            f"`{ast.unparse(a)}`, in {text!r}")
    while out and out[-1] is None:
        out.pop()
    return out


def value_node(v: Any) -> dict:
    """A node for a real Python value given in TOML or a directive's ``static=``."""
    return {"value": v}


def spec_from_parts(args: str | None, kwargs: str | None, static: Mapping[str, Any] | None,
                    source: str, where: str) -> dict:
    a = parse_spec_expr(args) if args else {"tuple": []}
    if "tuple" not in a:
        a = {"tuple": [a]}
    kw: dict[str, dict] = {}
    if kwargs:
        k = parse_spec_expr(kwargs)
        if "dict" not in k:
            raise SpecError(f"kwargs must be a dict: {kwargs!r}")
        kw.update(k["dict"])
    for name, v in (static or {}).items():
        kw[name] = value_node(v)
    return {"args": a["tuple"], "kwargs": kw, "source": source, "where": where}
