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


def mask_level(taint: Taint, fn: FunctionInfo, expr: ast.AST, depth: int = 0) -> int | None:
    """How sure ``expr`` is a boolean array computed from traced values (a comparison,
    `isnan`, `~m`, `a & b`, `jnp.any(m, axis=1)`): the taint level of the values it
    compares, None if it is not."""
    if depth > 6:
        return None
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
            return taint.level(expr) if short in BOOL_FUNCS or short in BOOL_REDUCTIONS else None
        func = expr.func
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
