"""Whether values are arrays of one shape (issue 39), as far as the source shows it:
Python numbers broadcast, a name a comparison reads as a truth value is one element (an
``if`` on it worked), elementwise arithmetic and functions keep the broadcast shape of
their arrays, a whole-array reduction is one element. A dtype, a pytree, a slice or any
other value is not shown to be anything (``same_shape`` then says no).
"""
from __future__ import annotations

import ast

from jaxlint.static.scopes import FunctionInfo, Scopes

_NEUTRAL, _SCALAR, _UNKNOWN = "neutral", "scalar", "unknown"


def same_shape(model: Scopes, fn: FunctionInfo | None, values: list[ast.expr], scalars: set[str]) -> bool:
    """Whether ``values`` (read in ``fn``) are shown to be arrays of one shape, or Python
    numbers and one-element values beside at most one array shape; ``scalars``: names
    known to hold one element."""
    keys = [_shape_key(model, fn, v, scalars) for v in values]
    if _UNKNOWN in keys:
        return False
    arrays = {k for k in keys if isinstance(k, frozenset)}
    return len(arrays) <= 1 and not (arrays and _SCALAR in keys)


#: elementwise functions (jax.numpy or numpy, and Python's math): the result has the
#: broadcast shape of the arguments
_ELEMENTWISE = frozenset("""
    abs absolute exp exp2 expm1 log log1p log2 log10 sqrt cbrt square sin cos tan tanh sinh cosh arcsin arccos
    arctan arctan2 sign floor ceil round rint trunc clip maximum minimum fmax fmin add subtract multiply divide
    true_divide power negative reciprocal where logaddexp hypot fabs
""".split())


#: reductions whose result (without an axis) is one element
_REDUCTIONS = frozenset("min max sum mean prod std var amin amax any all".split())


def _shape_key(model: Scopes, fn: FunctionInfo | None, v: ast.AST, scalars: set[str]) -> object:
    """What the shape of ``v`` follows: _NEUTRAL (a Python number or a one-element name),
    _SCALAR (a one-element array), a set of array names (their broadcast shape), or
    _UNKNOWN."""
    if isinstance(v, ast.Constant):
        return _NEUTRAL if isinstance(v.value, (int, float)) else _UNKNOWN  # a str may be a dtype name
    if isinstance(v, ast.Name):
        if v.id in scalars:
            return _NEUTRAL
        bindings = fn.bindings.get(v.id, []) if fn is not None else []
        if fn is None or (fn.param(v.id) is None and not bindings):
            return _UNKNOWN  # a module-level or outer name: a dtype, a table ...
        if not all(_array_binding(model, b.value) for b in bindings):
            return _UNKNOWN  # bound to a container, a dtype, a call that may return either ...
        return frozenset([v.id])
    if isinstance(v, ast.UnaryOp):
        return _shape_key(model, fn, v.operand, scalars)
    if isinstance(v, ast.BinOp):
        return _combine([_shape_key(model, fn, v.left, scalars), _shape_key(model, fn, v.right, scalars)])
    if isinstance(v, ast.Call) and not v.keywords:
        if isinstance(v.func, ast.Attribute) and not v.args and v.func.attr in _REDUCTIONS \
                and model.resolve_call(v) is None:
            return _SCALAR  # x.sum()
        q = model.resolve_call(v) or ""
        module, _, name = q.rpartition(".")
        if module in ("jax.numpy", "numpy", "math") and v.args and not any(isinstance(a, ast.Starred) for a in v.args):
            if name in _REDUCTIONS and len(v.args) == 1:
                return _SCALAR
            if name in _ELEMENTWISE:
                return _combine([_shape_key(model, fn, a, scalars) for a in v.args])
    return _UNKNOWN


def _array_binding(model: Scopes, value: ast.AST | None) -> bool:
    """Whether a local's assigned value is an array (None: a parameter, a loop variable,
    an augmented assignment, which hold what they were given)."""
    if value is None or isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Name, ast.Subscript)):
        return True
    if isinstance(value, ast.Call):
        q = model.resolve_call(value) or ""
        return q.startswith(("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.")) and not q.endswith("dtype")
    return False


def _combine(keys: list) -> object:
    if _UNKNOWN in keys:
        return _UNKNOWN
    arrays = frozenset().union(*(k for k in keys if isinstance(k, frozenset)))
    if arrays:
        return arrays
    return _SCALAR if _SCALAR in keys else _NEUTRAL


#: calls that read a value's shape (``jnp.ndim(x)``, ``np.shape(x)``, ``len(x)``: the first axis)
_SHAPE_CALLS = frozenset({f"{m}.{f}" for m in ("jax.numpy", "numpy") for f in ("ndim", "shape", "size")}
                         | {"builtins.len"})


def shape_guard(model: Scopes, fn: FunctionInfo | None, node: ast.AST) -> ast.expr | None:
    """The test of the innermost ``if``/conditional expression of ``fn`` around ``node``
    that lets ``node`` run only for one shape of a value: ``node`` is in the arm taken
    when a shape read equals a constant (``if x.ndim == 0:``, ``x.shape[-1] == 1``,
    ``x.size in (0, 1)``, ``len(x.shape) == 2``, one such conjunct of an ``and``; the
    ``else`` arm of ``!=``), or that follows an ``if`` that leaves the block for every
    other shape (``if x.ndim != 0: return ...``). Shapes are static under a trace, so
    that code runs only when the traced callers pass that shape; None when no such test
    is around ``node``. An ``if`` that raises for every other shape (``if x.ndim != 1:
    raise ValueError(...)``) is no such test: it checks the argument, and the code after
    it is the path of every call that does not fail."""
    stop = fn.node if fn is not None else None
    child: ast.AST = node
    for a in model.ancestors(node):
        if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test and a is not stop:
            in_body = child is a.body or (isinstance(a.body, list) and child in a.body)
            if _names_shape(model, a.test, in_body):
                return a.test
        for field in ("body", "orelse", "finalbody"):
            block = getattr(a, field, None)
            if isinstance(block, list) and child in block:
                for before in block[:block.index(child)]:
                    if isinstance(before, ast.If) and not before.orelse and before.body \
                            and isinstance(before.body[-1], (ast.Return, ast.Continue, ast.Break)) \
                            and _names_shape(model, before.test, False):
                        return before.test
        if a is stop:
            return None
        child = a
    return None


def _names_shape(model: Scopes, test: ast.AST, holds: bool) -> bool:
    """``test`` evaluating to ``holds`` says a shape read equals a constant."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _names_shape(model, test.operand, not holds)
    if isinstance(test, ast.BoolOp):
        return isinstance(test.op, ast.And if holds else ast.Or) \
            and any(_names_shape(model, v, holds) for v in test.values)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    op = test.ops[0]
    if not isinstance(op, (ast.Eq, ast.In) if holds else ast.NotEq):
        return False
    left, right = test.left, test.comparators[0]
    return (_shape_read(model, left) and _constant(right)) or (_shape_read(model, right) and _constant(left)
                                                               and not isinstance(op, ast.In))


def _shape_read(model: Scopes, e: ast.AST) -> bool:
    if isinstance(e, ast.Subscript):  # `x.shape[-1]`
        e = e.value
    if isinstance(e, ast.Attribute):
        return e.attr in ("ndim", "shape", "size")
    if isinstance(e, ast.Call) and len(e.args) == 1 and not e.keywords:
        return model.resolve_call(e) in _SHAPE_CALLS
    return False


def _constant(e: ast.AST) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        e = e.operand
    if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
        return all(_constant(x) for x in e.elts)
    return isinstance(e, ast.Constant) and type(e.value) is int
