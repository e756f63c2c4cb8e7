"""Pytrees that are surely one array: ``one_array`` (issue 36, blind57's continuation-jax).

A ``tree_map`` over one array calls its function once: a key drawn from there draws once,
not once per leaf. The model says one array only where it can show it: a ``jax.numpy``
constructor's result; the first result of ``jax.flatten_util.ravel_pytree`` (the flat
vector), called directly or returned by a helper of the checked tree; a name whose every
binding that reaches the read is one (``n, unravel = ravel_pytree(t)``, then ``n =
normalized(n)``); a helper's result whose every ``return`` maps over a parameter given one
array (``return tree_map(f, x)`` keeps ``x``'s structure). Anything else: not known.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.jitcalls import call_arguments

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.data import Binding, FunctionInfo
    from jaxlint.static.scopes import Scopes

#: ``jax.numpy`` calls whose result is one array (never a tuple, never a pytree of several)
_ONE_ARRAY = {f"jax.numpy.{n}" for n in ("zeros", "ones", "full", "empty", "arange", "linspace", "eye", "array",
                                         "asarray", "ravel", "concatenate")}
_RAVEL = "jax.flatten_util.ravel_pytree"
#: functions that call a function once per leaf and return a pytree of the first tree's structure
_TREE_MAPS = {"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map"}
#: how many steps (a name to its binding, a call to its helper's returns) the question follows
_DEPTH = 10


def one_array(model: "Scopes", expr: ast.AST, fn: "FunctionInfo | None", depth: int = 0) -> bool:
    """``expr``, read in ``fn`` of ``model``, is surely one array (a pytree of one leaf)."""
    if depth > _DEPTH:
        return False
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and expr.slice.value == 0 \
            and not isinstance(expr.slice.value, bool):
        return _raveled(model, expr.value, fn, depth)
    if isinstance(expr, ast.Name):
        if fn is None or expr.id in fn.globals_ or expr.id in fn.nonlocals or expr.id not in fn.bindings:
            return False  # a name of elsewhere: which value it holds is another question
        bindings = model.reaching_bindings(expr, fn)
        return bool(bindings) and all(_bound_one(model, b, fn, depth) for b in bindings)
    if not isinstance(expr, ast.Call):
        return False
    if (model.resolve_call(expr) or "") in _ONE_ARRAY:
        return True
    found = _helper(model, expr, fn)
    if found is None:
        return False
    home, h, returns = found
    given = dict(call_arguments(expr, h, 0))
    for value in returns:
        if isinstance(value, ast.Call) and (home.resolve_call(value) or "") in _TREE_MAPS and len(value.args) > 1 \
                and isinstance(value.args[1], ast.Name) and value.args[1].id in given \
                and len(h.bindings.get(value.args[1].id, ())) == 1:  # a parameter, never rebound
            if one_array(model, given[value.args[1].id], fn, depth + 1):
                continue
        if not one_array(home, value, h, depth + 1):
            return False
    return True


def _raveled(model: "Scopes", expr: ast.AST, fn: "FunctionInfo | None", depth: int) -> bool:
    """``expr`` is a call of ``ravel_pytree``, or of a helper every ``return`` of which is one."""
    if not isinstance(expr, ast.Call) or depth > _DEPTH:
        return False
    if model.resolve_call(expr) == _RAVEL:
        return True
    found = _helper(model, expr, fn)
    return found is not None and all(_raveled(found[0], v, found[1], depth + 1) for v in found[2])


def _bound_one(model: "Scopes", b: "Binding", fn: "FunctionInfo", depth: int) -> bool:
    """The binding ``b`` gives its name one array: ``n = <one array>``, or ``n, unravel =
    <ravel_pytree's result>``."""
    if b.kind != "assign" or not isinstance(b.node, ast.Assign) or len(b.node.targets) != 1:
        return False
    target = b.node.targets[0]
    if isinstance(target, ast.Name):
        return one_array(model, b.node.value, fn, depth + 1)
    return isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 \
        and isinstance(target.elts[0], ast.Name) and target.elts[0].id == b.name \
        and _raveled(model, b.node.value, fn, depth + 1)


def _helper(model: "Scopes", call: ast.Call,
            fn: "FunctionInfo | None") -> "tuple[Scopes, FunctionInfo, list[ast.expr]] | None":
    """The function of this module or of the checked tree that ``call`` runs (a plain
    function, no bound ``self``), with the values of its ``return``s; None when unknown or
    when some path returns nothing."""
    h, bound = model.callee(call.func, fn, follow=False, instances=False)
    home: "Scopes | None" = model
    if h is None and model.link is not None and isinstance(call.func, (ast.Name, ast.Attribute)):
        deps: set = set()
        found = model.link.function(model, call.func, fn, deps)
        if found is not None:
            home, h, bound = found[0].scopes(), found[1], 0
            model.link.use(deps)
    if h is None or home is None or bound or isinstance(h.node, ast.Lambda):
        return None
    returns = [n for n in ast.walk(h.node) if isinstance(n, ast.Return) and home.function_of(n) is h]
    last = h.node.body[-1] if h.node.body else None
    if not returns or any(r.value is None for r in returns) or not isinstance(last, (ast.Return, ast.Raise)):
        return None  # (the end of the body returns None)
    return home, h, [r.value for r in returns if r.value is not None]
