"""Parameters of traced functions that hold Python values whatever the trace (issue 36's
blind spots, blind48):

* **Dtypes.** A dtype is a Python object: jit refuses one as a traced argument
  (``TypeError: ... is not a valid JAX type``), so a parameter annotated as a dtype
  (``dtype: np.dtype``, ``jnp.dtype``, ``DTypeLike``) never holds a tracer, and comparing
  two dtypes (``real == jnp.float64``) is a Python bool.
* **Filter-style transforms.** equinox's filtered transforms (``eqx.filter_jit``,
  ``filter_vmap``, ``filter_grad``, ``filter_value_and_grad``, ``filter_pmap``, ...) trace the
  array leaves of their arguments only: a Python ``bool``, ``int``, ``str``, ``None`` or
  callable arrives as itself (checked with equinox 0.13.8, jax 0.10.2). A parameter the
  author declares a Python scalar (annotated ``bool``, ``int``, ``float``, ``str``, a
  ``Callable``, ``Literal[...]``, or given a ``True``/``False``/string default and no
  annotation) is static where only such transforms trace the function, also through a
  function that hands on its own parameters (``g(x, *args)`` in a filter-jitted ``h``).

Tables and predicates only; ``taint.Taint`` asks ``python_param``.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.callers import UNREADABLE, argument_for

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.data import FunctionInfo, Param
    from jaxlint.static.scopes import Scopes

#: the reason kinds (a transform's short name) of equinox's filtered transforms
FILTER_KINDS = frozenset({
    "filter_jit", "filter_pmap", "filter_vmap", "filter_checkpoint", "filter_grad", "filter_value_and_grad",
    "filter_jacfwd", "filter_jacrev", "filter_hessian", "filter_jvp", "filter_vjp", "filter_eval_shape",
    "filter_make_jaxpr",
})
#: annotations whose values are dtypes (or scalar types such as ``jnp.float32``)
DTYPE_ANNOTATIONS = frozenset({
    "numpy.dtype", "jax.numpy.dtype", "numpy.typing.DTypeLike", "jax.typing.DTypeLike", "jaxtyping.DTypeLike",
    "builtins.type",
})
#: annotations of Python scalars and callables: no array is one
_PYTHON_NAMES = frozenset({"bool", "int", "float", "complex", "str", "bytes"})
_PYTHON_QUALS = frozenset({"typing.Callable", "collections.abc.Callable", "typing.Literal"})
#: how many callers deep a parameter handed on is followed
_MAX_DEPTH = 4


def _parsed(ann: ast.expr | None) -> ast.expr | None:
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):  # `"np.dtype"`
        try:
            return ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return None
    return ann


def _alternatives(model: "Scopes", ann: ast.expr) -> list[ast.expr] | None:
    """The members of ``A | B`` / ``Optional[A]`` / ``Union[A, B]`` (None: not a union)."""
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return [ann.left, ann.right]
    if isinstance(ann, ast.Subscript) and (model.resolve(ann.value) or "") in ("typing.Optional", "typing.Union"):
        return list(ann.slice.elts) if isinstance(ann.slice, ast.Tuple) else [ann.slice]
    return None


def dtype_annotation(model: "Scopes", ann: ast.expr | None) -> bool:
    """``ann`` names a dtype type (``np.dtype``, ``jnp.dtype``, ``DTypeLike``), or a union of
    such and None."""
    ann = _parsed(ann)
    if ann is None:
        return False
    parts = _alternatives(model, ann)
    if parts is not None:
        return any(dtype_annotation(model, a) for a in parts) and all(
            dtype_annotation(model, a) or (isinstance(a, ast.Constant) and a.value is None) for a in parts)
    base = ann.value if isinstance(ann, ast.Subscript) else ann
    q = model.resolve(base) or ""
    return q in DTYPE_ANNOTATIONS or (isinstance(base, ast.Name) and base.id == "type")


def python_annotation(model: "Scopes", ann: ast.expr | None) -> bool:
    """``ann`` names Python scalars or callables only (``bool``, ``int | None``,
    ``Callable[[Array], Array]``, ``Literal["a", "b"]``)."""
    ann = _parsed(ann)
    if ann is None:
        return False
    if isinstance(ann, ast.Constant) and ann.value is None:
        return True
    parts = _alternatives(model, ann)
    if parts is not None:
        return all(python_annotation(model, a) for a in parts)
    base = ann.value if isinstance(ann, ast.Subscript) else ann
    if isinstance(base, ast.Name) and base.id in _PYTHON_NAMES:
        return True
    return (model.resolve(base) or "") in _PYTHON_QUALS or dtype_annotation(model, ann)


def _declared_python(model: "Scopes", p: "Param") -> bool:
    """The author declares ``p`` a Python value: a Python annotation, or none and a flag
    or string default (``verbose=False``, ``mode="mean"``)."""
    if p.annotation is not None:
        return python_annotation(model, p.annotation)
    return isinstance(p.default, ast.Constant) and isinstance(p.default.value, (bool, str))


def python_param(model: "Scopes", fn: "FunctionInfo", p: "Param") -> bool:
    """``p`` holds a Python value wherever ``fn`` is traced (see the module's docstring)."""
    if p.kind in ("vararg", "kwarg"):
        return False
    if dtype_annotation(model, p.annotation):
        return True
    return _declared_python(model, p) and as_given(model, fn, p, 0)


def as_given(model: "Scopes", fn: "FunctionInfo", p: "Param", depth: int) -> bool:
    """Every trace of ``fn`` gives ``p`` what the user handed a filtered transform, array
    leaves traced and every other value as it is: each reason ``fn`` is traced is one of
    equinox's filtered transforms, or a traced call that passes ``p`` a constant, leaves it
    to its default, or hands on a parameter of its own (a splat of its ``*args`` too) that
    is as given there in turn."""
    if depth > _MAX_DEPTH or not fn.traced_by:
        return False
    callers = set()
    for r in fn.traced_by:
        if r.kind in FILTER_KINDS:
            continue
        if not r.by_call:
            return False
        callers.add(r.caller)
    for call, caller, implicit in fn.call_sites.values():
        if caller.qualname not in callers or not caller.traced:
            continue
        arg = argument_for(call, fn, p, implicit, skip=model.leading_arguments(call))
        if arg is None or isinstance(arg, ast.Constant):
            continue
        if arg is UNREADABLE:
            splats = [a.value for a in call.args if isinstance(a, ast.Starred)]
            splats += [k.value for k in call.keywords if k.arg is None]
            handed = [caller.param(s.id) if isinstance(s, ast.Name) else None for s in splats]
            if not handed or any(q is None or q.kind not in ("vararg", "kwarg") or len(caller.bindings.get(q.name, ())) > 1
                                 or not as_given(model, caller, q, depth + 1) for q in handed):
                return False
            continue
        q = caller.param(arg.id) if isinstance(arg, ast.Name) else None
        if q is None or len(caller.bindings.get(q.name, ())) > 1 or not as_given(model, caller, q, depth + 1):
            return False
    return True
