"""Boolean masks: which expressions of a traced function are boolean arrays computed from
traced values (a comparison, ``jnp.isnan`` and the other boolean functions, ``~m``, ``a & b``,
a reduction ``jnp.any(m, axis=1)`` / ``m.all(axis=0)``, a name bound to one of these). A part
of the static model: JAX111 asks it of an index (``x[mask]`` under a trace has a shape that
depends on the mask's values)."""
from __future__ import annotations

import ast

from jaxlint.static.arrays import is_jax_array
from jaxlint.static.scopes import FunctionInfo
from jaxlint.static.taint import Taint

#: jax.numpy functions that return a boolean array.
BOOL_FUNCS = {
    "isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "isclose", "isin",
    "logical_and", "logical_or", "logical_not", "logical_xor", "equal", "not_equal",
    "greater", "greater_equal", "less", "less_equal", "isreal", "iscomplex",
}
BOOL_OPS = (ast.BitAnd, ast.BitOr, ast.BitXor)
#: reductions that return a boolean array whatever their operand's type (`jnp.any(x < b, axis=1)`,
#: `m.all(axis=0)`): indexing with their result is boolean-mask indexing too
BOOL_REDUCTIONS = frozenset({"any", "all"})
#: numpy's and jax.numpy's index-trick objects: their brackets build an array, a slice or a
#: grid (`jnp.r_[True, v[1:] != v[:-1]]` concatenates), they index nothing
INDEX_TRICKS = frozenset({"r_", "c_", "s_", "index_exp", "mgrid", "ogrid"})


def builds_with_brackets(model, node: ast.Subscript) -> bool:
    """Whether ``node`` subscripts an index-trick object (``jnp.r_[...]``, ``np.s_[...]``,
    ``jnp.mgrid[...]``): a construction, not an indexing of an array."""
    q = model.resolve(node.value) or ""
    base, _, attr = q.rpartition(".")
    return attr in INDEX_TRICKS and base in ("jax.numpy", "numpy")


#: jax.numpy functions that make a new array of the dtype given (``dtype=bool``): in traced
#: code even a constant one is a tracer (jax 0.10.2 raises NonConcreteBooleanIndexError on
#: ``x[jnp.zeros(3, dtype=bool)]`` under jit)
MAKERS = frozenset({"zeros", "ones", "full", "empty", "array", "asarray", "zeros_like", "ones_like", "full_like",
                    "empty_like"})
#: jax.numpy functions whose result has the dtype of their array operand(s): of boolean
#: arrays, a boolean array (``jnp.concatenate([m1, m2]).ravel()``)
KEEPS_DTYPE = frozenset({"concatenate", "stack", "hstack", "vstack", "column_stack", "ravel", "reshape", "tile",
                         "repeat", "flip", "roll", "transpose", "squeeze", "expand_dims", "atleast_1d",
                         "broadcast_to"})
#: array methods whose result has the array's dtype
KEEPS_DTYPE_METHODS = frozenset({"ravel", "reshape", "flatten", "squeeze", "transpose", "repeat", "copy"})
BOOL_DTYPES = frozenset({"builtins.bool", "jax.numpy.bool_", "jax.numpy.bool", "numpy.bool_", "numpy.bool"})


def _is_bool_dtype(taint: Taint, expr: ast.AST | None) -> bool:
    if isinstance(expr, ast.Constant):
        return expr.value in ("bool", "bool_")
    return expr is not None and (taint.model.resolve(expr) or "") in BOOL_DTYPES


def _bool_literals(expr: ast.AST, depth: int = 0) -> bool:
    """A (nested) list or tuple display of the constants True and False only."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, bool)
    return isinstance(expr, (ast.List, ast.Tuple)) and bool(expr.elts) and depth < 4 \
        and all(_bool_literals(e, depth + 1) for e in expr.elts)


def _built_mask(taint: Taint, fn: FunctionInfo, call: ast.Call, short: str, depth: int) -> bool:
    """``call`` (to ``jax.numpy.<short>``) makes a boolean array: a maker given a boolean
    dtype (``jnp.zeros(n, dtype=bool)``, ``x.astype`` aside) or boolean literals
    (``jnp.array([True, False])``, ``jnp.full(n, True)``), or a function keeping the dtype
    of the masks it is given (``jnp.concatenate([m1, m2])``)."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if short in MAKERS:
        dtype = keywords.get("dtype")
        if dtype is None and short in ("zeros", "ones", "empty", "full", "full_like") and len(call.args) > \
                (2 if short in ("full", "full_like") else 1):
            dtype = call.args[2 if short in ("full", "full_like") else 1]
        if dtype is not None:
            return _is_bool_dtype(taint, dtype)
        if short in ("array", "asarray") and call.args:
            return _bool_literals(call.args[0])
        if short in ("full", "full_like") and len(call.args) > 1:
            return isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, bool)
        if short.endswith("_like") and call.args:
            return mask_level(taint, fn, call.args[0], depth + 1) is not None
        return False
    if short in KEEPS_DTYPE and call.args and "dtype" not in keywords:
        first = call.args[0]
        parts = first.elts if short in ("concatenate", "stack", "hstack", "vstack", "column_stack") \
            and isinstance(first, (ast.List, ast.Tuple)) else [first]
        return bool(parts) and all(mask_level(taint, fn, e, depth + 1) is not None for e in parts)
    return False


def mask_level(taint: Taint, fn: FunctionInfo, expr: ast.AST, depth: int = 0) -> int | None:
    """How sure ``expr`` is a boolean array computed in traced code (a comparison,
    `isnan`, `~m`, `a & b`, `jnp.any(m, axis=1)`, a boolean array made there even from
    constants, `jnp.concatenate` or a slice of such masks): the taint level of the values
    it compares, None if it is not."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Slice):
        return mask_level(taint, fn, expr.value, depth + 1)  # `m[:-1]`: a boolean array still
    if isinstance(expr, ast.Compare):
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
            return None
        operands = [expr.left, *expr.comparators]
        if any(isinstance(o, ast.Constant) and isinstance(o.value, (str, bytes)) for o in operands):
            return None
        return taint.level(expr)
    if isinstance(expr, ast.Call):
        q = taint.model.resolve_call(expr) or ""
        if q.startswith("jax.numpy."):
            short = q[len("jax.numpy."):]
            if short in BOOL_FUNCS or short in BOOL_REDUCTIONS or _built_mask(taint, fn, expr, short, depth):
                return taint.level(expr)
            return None
        func = expr.func
        if not q and isinstance(func, ast.Attribute) and func.attr in KEEPS_DTYPE_METHODS:
            return mask_level(taint, fn, func.value, depth + 1)  # `m.ravel()` of a mask
        if not q and isinstance(func, ast.Attribute) and func.attr == "set" and isinstance(func.value, ast.Subscript) \
                and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "at":
            return mask_level(taint, fn, func.value.value.value, depth + 1)  # `m.at[i].set(True)`
        if not q and isinstance(func, ast.Attribute) and func.attr == "astype" and len(expr.args) == 1 \
                and _is_bool_dtype(taint, expr.args[0]):
            return taint.level(func.value)  # `x.astype(bool)` of a traced array
        if not q and isinstance(func, ast.Attribute) and func.attr in BOOL_REDUCTIONS:
            # `m.any(axis=1)` of a known mask, or of an array the model knows is traced
            inner = mask_level(taint, fn, func.value, depth + 1)
            if inner is not None:
                return inner
            return taint.level(func.value) if is_jax_array(taint.model, fn, func.value) else None
        return None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert):
        return mask_level(taint, fn, expr.operand, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, BOOL_OPS):
        levels = [lv for e in (expr.left, expr.right) if (lv := mask_level(taint, fn, e, depth + 1)) is not None]
        return max(levels, default=None)
    if isinstance(expr, ast.Name) and expr.id in fn.tainted:
        bindings = fn.bindings.get(expr.id, [])
        bound = [mask_level(taint, fn, b.value, depth + 1) if b.kind == "assign" and b.value is not None else None
                 for b in bindings]
        known = [lv for lv in bound if lv is not None]
        return min(known) if known and len(known) == len(bound) else None
    return None
