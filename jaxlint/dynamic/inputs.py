"""Where trace inputs come from (docs/architecture.md, "Where trace inputs come from"), decided in the parent without jax.

An *input spec* is plain JSON so it can be cached, sent to a worker and written to
``signatures.json``. A spec is ``{"args": [node...], "kwargs": {name: node},
"source": ..., "where": ...}`` and a node is one of::

    {"array": [8, 128], "dtype": "float32", "weak": false}   # shape entries may be "b" (symbolic)
    {"value": 4}                   # a real Python value (JSON); static args need these
    {"repr": "Foo(1)"}             # a value that is not JSON: shown, never rebuilt
    {"tuple": [...]} / {"list": [...]} / {"dict": {"k": node}}
    {"namedtuple": "pkg.mod:Point", "fields": {"x": node}}
    {"opaque": "pkg.mod.Class"}    # recorded but not rebuildable

Sources, in order of preference: recorded signatures, a ``# jaxlint: args=...``
directive or a ``[tool.jaxlint.dynamic.functions]`` entry, jaxtyping annotations,
same-file example calls built from literal constructors. Anything else is skipped
with the reason; a shape is never guessed for a bare ``jax.Array``.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from jaxlint.config.inputspec import DTYPES, EMPTY_DIMS, SpecError
from jaxlint.static.jitmap import EntryPoint

_DIRECTIVE = re.compile(r"#\s*jaxlint\s*:\s*(?P<body>(?:args|kwargs|static|skip)\b.*)$")


@dataclass
class Plan:
    """What the parent decided for one jit entry point."""

    entry: EntryPoint
    spec: dict | None = None
    skip: str | None = None
    #: every distinct recorded signature (for the recompilation rule)
    signatures: list[dict] = field(default_factory=list)
    #: what `jaxlint record` observed for this function, still current: reported as it
    #: is, nothing to trace
    observed: dict | None = None
    #: `jaxlint record` traced it in the running program without an error (its
    #: observation, current or not): a worker that cannot trace it says "record again"
    observed_clean: bool = False
    #: {argument: whether the recorded program used it again after a call} (the
    #: recording's ``reused``; empty: unknown)
    reused: dict[str, bool] = field(default_factory=dict)

    def to_job(self) -> dict:
        return {
            "qualname": self.entry.qualname,
            "entry": self.entry.to_dict(),
            "spec": self.spec,
            "signatures": self.signatures,
            "observed_clean": self.observed_clean,
            "reused": self.reused,
        }


def parse_directive(body: str) -> tuple[str | None, str | None, dict | None, bool]:
    """``args=(...), static={...}, kwargs={...}`` or ``skip``."""
    body = body.strip()
    if body.startswith("skip"):
        return None, None, None, True
    fixed = EMPTY_DIMS.sub(r"\1[()]", body)
    try:
        call = ast.parse(f"_({fixed})", mode="eval").body
    except SyntaxError as e:
        raise SpecError(f"cannot parse directive `{body}`: {e.msg}") from None
    assert isinstance(call, ast.Call)
    if call.args:
        raise SpecError(f"directive arguments must be named (args=, kwargs=, static=): `{body}`")
    parts: dict[str, ast.expr] = {}
    for kw in call.keywords:
        if kw.arg not in ("args", "kwargs", "static"):
            raise SpecError(f"unknown directive key `{kw.arg}` (use args=, kwargs=, static=)")
        parts[kw.arg] = kw.value
    static = None
    if "static" in parts:
        try:
            static = ast.literal_eval(parts["static"])
        except ValueError:
            raise SpecError("static= must be a dict of literal values") from None
        if not isinstance(static, dict):
            raise SpecError("static= must be a dict of literal values")
    args = ast.unparse(parts["args"]) if "args" in parts else None
    kwargs = ast.unparse(parts["kwargs"]) if "kwargs" in parts else None
    return args, kwargs, static, False


def directives(lines: list[str]) -> dict[int, str]:
    """1-based line -> directive body, for every ``# jaxlint: args=...`` comment."""
    out = {}
    for i, line in enumerate(lines, 1):
        if "jaxlint" in line:
            m = _DIRECTIVE.search(line)
            if m:
                out[i] = m.group("body")
    return out


def directive_for(lines: list[str], found: dict[int, str], node: ast.AST) -> tuple[int, str] | None:
    """The directive in the comment block directly above a def (or its decorators) or
    an assignment, or trailing on its first line."""
    first = getattr(node, "lineno", 0)
    decos = getattr(node, "decorator_list", None) or []
    if decos:
        first = min(first, min(d.lineno for d in decos))
    if first in found:
        return first, found[first]
    ln = first - 1
    while ln >= 1 and lines[ln - 1].strip().startswith("#"):
        if ln in found:
            return ln, found[ln]
        ln -= 1
    return None


# ---------------------------------------------------------------------------- jaxtyping
_JAXTYPING_DTYPES = {
    "Float": "float32", "Float32": "float32", "Float64": "float64", "Float16": "float16",
    "BFloat16": "bfloat16", "Int": "int32", "Int32": "int32", "Int64": "int64", "Int8": "int8",
    "UInt8": "uint8", "UInt32": "uint32", "Bool": "bool", "Complex": "complex64",
    "Complex64": "complex64", "Shaped": None, "Num": "float32", "Inexact": "float32",
    "Real": "float32", "Integer": "int32",
}


def jaxtyping_node(model, ann: ast.expr | None) -> tuple[dict | None, str | None]:
    """A node for ``Float[Array, "b n"]`` (symbolic dims kept as names), or a reason."""
    if not isinstance(ann, ast.Subscript):
        return None, None
    q = model.resolve(ann.value) or ""
    if not q.startswith("jaxtyping."):
        return None, None
    kind = q.rsplit(".", 1)[-1]
    if kind not in _JAXTYPING_DTYPES:
        return None, f"jaxtyping `{kind}` annotation is not supported"
    dtype = _JAXTYPING_DTYPES[kind]
    if dtype is None:
        return None, "`Shaped[...]` does not say the dtype"
    sl = ann.slice
    if not (isinstance(sl, ast.Tuple) and len(sl.elts) == 2 and isinstance(sl.elts[1], ast.Constant)
            and isinstance(sl.elts[1].value, str)):
        return None, "jaxtyping annotation without a literal shape string"
    shape: list[int | str] = []
    for tok in sl.elts[1].value.split():
        tok = tok.lstrip("#")
        if tok.isdigit():
            shape.append(int(tok))
        elif tok.isidentifier():
            shape.append(tok)
        elif tok in ("...",) or tok.startswith("*"):
            continue  # variadic: no extra dims in the example input
        elif tok == "_":
            shape.append("_")
        else:
            return None, f"jaxtyping dimension `{tok}` is an expression; give a directive instead"
    return {"array": shape, "dtype": dtype, "weak": False}, None


# ---------------------------------------------------------------------------- example calls
_CONSTRUCTORS = {"ones", "zeros", "empty", "full"}
_ARRAY_MODULES = ("jax.numpy.", "numpy.")


def literal_arg_node(model, n: ast.expr) -> dict | None:
    """A node for a literal-constructor argument (``jnp.ones((4, 8))``), else None."""
    if isinstance(n, ast.Constant) and isinstance(n.value, (int, float, bool)) or (
            isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant)):
        try:
            return {"value": ast.literal_eval(n)}
        except ValueError:
            return None
    if isinstance(n, ast.Constant) and (n.value is None or isinstance(n.value, str)):
        return {"value": n.value}
    if isinstance(n, (ast.Tuple, ast.List)):
        items = [literal_arg_node(model, e) for e in n.elts]
        if any(i is None for i in items):
            return None
        return {"tuple" if isinstance(n, ast.Tuple) else "list": items}
    if isinstance(n, ast.Dict):
        out = {}
        for k, v in zip(n.keys, n.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                return None
            node = literal_arg_node(model, v)
            if node is None:
                return None
            out[k.value] = node
        return {"dict": out}
    if not isinstance(n, ast.Call):
        return None
    q = model.resolve_call(n) or ""
    mod = next((m for m in _ARRAY_MODULES if q.startswith(m)), None)
    fn = q.rsplit(".", 1)[-1]
    dtype_kw = next((k.value for k in n.keywords if k.arg == "dtype"), None)
    if mod and fn in _CONSTRUCTORS and n.args:
        shape = _literal_shape(n.args[0])
        if shape is None:
            return None
        pos_dtype = n.args[2] if fn == "full" and len(n.args) > 2 else (n.args[1] if fn != "full" and len(n.args) > 1 else None)
        dtype = _dtype_of(model, dtype_kw or pos_dtype, default="float32")
        return None if dtype is None else {"array": shape, "dtype": dtype, "weak": False}
    if mod and fn == "arange" and len(n.args) == 1 and isinstance(n.args[0], ast.Constant) \
            and isinstance(n.args[0].value, int):
        dtype = _dtype_of(model, dtype_kw, default="int32")
        return None if dtype is None else {"array": [n.args[0].value], "dtype": dtype, "weak": False}
    if mod and fn in ("array", "asarray") and n.args:
        try:
            val = ast.literal_eval(n.args[0])
        except ValueError:
            return None
        shape = _nested_shape(val)
        if shape is None:
            return None
        flat = _flatten(val)
        default = "float32" if any(isinstance(x, float) for x in flat) else (
            "bool" if flat and all(isinstance(x, bool) for x in flat) else "int32")
        dtype = _dtype_of(model, dtype_kw, default=default)
        return None if dtype is None else {"array": shape, "dtype": dtype, "weak": False}
    if q.startswith("jax.random.") and fn in ("normal", "uniform", "bernoulli") and len(n.args) >= 2:
        shape = _literal_shape(n.args[1])
        if shape is None:
            return None
        dtype = _dtype_of(model, dtype_kw, default="bool" if fn == "bernoulli" else "float32")
        return None if dtype is None else {"array": shape, "dtype": dtype, "weak": False}
    if mod and fn in DTYPES and len(n.args) == 1 and isinstance(n.args[0], ast.Constant):
        return {"array": [], "dtype": DTYPES[fn], "weak": False}  # jnp.float32(1.0)
    return None


def _literal_shape(n: ast.expr) -> list[int] | None:
    try:
        v = ast.literal_eval(n)
    except ValueError:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return [v]
    if isinstance(v, (tuple, list)) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return list(v)
    return None


def _nested_shape(v: Any) -> list[int] | None:
    if isinstance(v, (int, float, bool)):
        return []
    if isinstance(v, (list, tuple)) and v:
        inner = [_nested_shape(x) for x in v]
        if any(i is None for i in inner) or any(i != inner[0] for i in inner):
            return None
        return [len(v)] + inner[0]  # type: ignore[operator]
    return None


def _flatten(v: Any) -> list:
    if isinstance(v, (list, tuple)):
        return [y for x in v for y in _flatten(x)]
    return [v]


def _dtype_of(model, n: ast.expr | None, default: str) -> str | None:
    if n is None:
        return default
    if isinstance(n, ast.Constant) and isinstance(n.value, str):
        return DTYPES.get(n.value)
    q = model.resolve(n) or ""
    name = q.rsplit(".", 1)[-1]
    if q.startswith(_ARRAY_MODULES) or q.startswith("builtins."):
        if name == "float":
            return "float32"
        if name == "int":
            return "int32"
        return DTYPES.get(name)
    return None


def example_calls(model, tree: ast.Module, names: set[str]) -> dict[str, tuple[int, list[dict], dict[str, dict]]]:
    """name -> (line, args, kwargs) of the first call ``name(...)`` in the module whose
    arguments are all literal constructors."""
    out: dict[str, tuple[int, list[dict], dict[str, dict]]] = {}
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names):
            continue
        if n.func.id in out:
            continue
        args = [literal_arg_node(model, a) for a in n.args]
        kwargs = {k.arg: literal_arg_node(model, k.value) for k in n.keywords if k.arg}
        if any(isinstance(a, ast.Starred) for a in n.args) or any(k.arg is None for k in n.keywords):
            continue
        if any(a is None for a in args) or any(v is None for v in kwargs.values()):
            continue
        out[n.func.id] = (n.lineno, args, kwargs)  # type: ignore[assignment]
    return out
