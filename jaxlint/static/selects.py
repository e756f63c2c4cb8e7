"""Selects: where two values are alternatives of which only one survives.

``jnp.where(c, a, b)`` keeps, element by element, either ``a``'s value or ``b``'s, never
both; ``lax.select``, ``lax.select_n``, ``jnp.select``'s choices and a conditional
expression (``a if c else b``) do the same. Two values that reach a program only as
different operands of one select never meet in the result: one key drawing both
(``where(c, normal(key, s), uniform(key, s))``) is not two draws that correlate.

``alternatives(model, a, b)`` answers that for two expressions of one function: each
is an operand of the select (or inside one, through arithmetic and calls on it), or is
assigned to a name read exactly once, as such an operand (``a = normal(key, s)``,
``b = uniform(key, s)``, ``where(c, a, b)``), and they reach different operands of the
same select. The model says no when unsure (a name read twice, rebound, or an operand
that is also the condition).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.scopes import FunctionInfo, Scopes

#: selects by qualified name: the index of the first operand (those before it are the
#: condition or the selector); every later positional argument is one alternative
SELECTS = {
    "jax.numpy.where": 1,
    "jax.lax.select": 1,
    "jax.lax.select_n": 1,
}
#: selects whose alternatives are the elements of a list argument (``jnp.select(conds, choices)``)
SELECT_LISTS = {"jax.numpy.select": 1, "jax.numpy.piecewise": None}
#: calls that run one of several functions and return its result: {qualified name: the
#: positions of the functions (a list or tuple argument: each element is one)}
BRANCHES = {"jax.lax.cond": (1, 2), "jax.lax.switch": (1,)}
#: how many names one question follows (``a = ...; b = a * 2; where(c, b, ...)``)
_MAX_HOPS = 4


def slot(model: "Scopes", node: ast.AST, parent: ast.AST) -> tuple[int, int] | None:
    """When ``node`` is one alternative of the select ``parent``: (the select's id, which
    alternative); None when ``parent`` is not a select or ``node`` is its condition. A dict
    display whose one use is one subscript (``{"a": x, "b": y}[name]``, or ``d = {...}``
    then ``d[name]`` its only read, in the same loop) is a select of its values."""
    if isinstance(parent, ast.Dict):
        if chooser(model, parent) is None or not any(v is node for v in parent.values):
            return None
        return id(parent), next(i for i, v in enumerate(parent.values) if v is node)
    if isinstance(parent, ast.IfExp):
        if node is parent.body:
            return id(parent), 0
        if node is parent.orelse:
            return id(parent), 1
        return None
    if isinstance(parent, (ast.List, ast.Tuple)):
        call = model.parent(parent)
        if isinstance(call, ast.Call) and not call.keywords:
            q = model.resolve_call(call) or ""
            at = SELECT_LISTS.get(q)
            if at is not None and len(call.args) > at and call.args[at] is parent:
                return id(parent), next(i for i, e in enumerate(parent.elts) if e is node)
        return None
    if isinstance(parent, ast.Call) and not parent.keywords and not any(
            isinstance(a, ast.Starred) for a in parent.args):
        first = SELECTS.get(model.resolve_call(parent) or "")
        if first is None:
            return None
        for i, a in enumerate(parent.args):
            if a is node:
                return (id(parent), i) if i >= first and len(parent.args) > first + 1 else None
    return None


def result_of(model: "Scopes", select: ast.AST) -> ast.AST | None:
    """The node whose value is the result of the select ``select`` (a ``slot``'s parent):
    the call around a list of choices, the subscript that picks a dict display's value."""
    if isinstance(select, (ast.List, ast.Tuple)):
        return model.parent(select)
    if isinstance(select, ast.Dict):
        return chooser(model, select)
    return select


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def chooser(model: "Scopes", display: ast.Dict) -> ast.Subscript | None:
    """The one subscript that reads ``display`` (a dict display without ``**``): the display
    itself subscripted, or a name bound once to it and read only there, in the same
    function and the same loop (``inits[n] for n in names`` would keep several values)."""
    if any(k is None for k in display.keys):
        return None
    holder = model.parent(display)
    read: ast.AST | None = display
    if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
        fn = model.function_of(display)
        read = single_read(model, fn, holder.targets[0].id) if fn is not None else None
        if read is None or _loop_of(model, read) is not _loop_of(model, holder):
            return None
        holder = model.parent(read)
    if isinstance(holder, ast.Subscript) and holder.value is read and isinstance(holder.ctx, ast.Load) \
            and not isinstance(holder.slice, ast.Slice):
        return holder
    return None


def _loop_of(model: "Scopes", node: ast.AST) -> ast.AST | None:
    return next((a for a in model.ancestors(node) if isinstance(a, _LOOPS)), None)


def single_read(model: "Scopes", fn: "FunctionInfo", name: str) -> ast.Name | None:
    """The one read of ``fn``'s ``name``, bound once there and read by no nested function."""
    if len(fn.bindings.get(name, ())) != 1:
        return None  # rebound: which value a read sees is another question
    reads = [n for n in fn.body_nodes() if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if len(reads) != 1 or any(name in _free_reads(model, f) for f in _nested(model, fn)):
        return None  # read twice (or by a nested function): both may survive
    return reads[0]


def branch_slot(model: "Scopes", lam: ast.Lambda) -> tuple[ast.Call, int] | None:
    """When the lambda ``lam`` is one branch of ``lax.cond(p, f, g, ...)`` or
    ``lax.switch(i, [f, g, ...], ...)``: (that call, which branch); what it returns is the
    call's result only on the runs that take it (under ``vmap``, element by element)."""
    parent = model.parent(lam)
    holder = model.parent(parent) if isinstance(parent, (ast.List, ast.Tuple)) else parent
    if not isinstance(holder, ast.Call) or holder.keywords or any(isinstance(a, ast.Starred) for a in holder.args):
        return None
    positions = BRANCHES.get(model.resolve_call(holder) or "")
    if positions is None:
        return None
    for i in positions:
        if i >= len(holder.args):
            return None
    if parent is holder:
        return next(((holder, i) for i in positions if holder.args[i] is lam), None)
    if isinstance(parent, (ast.List, ast.Tuple)) and any(holder.args[i] is parent for i in positions):
        return holder, next(i for i, e in enumerate(parent.elts) if e is lam)
    return None


def _landings(model: "Scopes", fn: "FunctionInfo | None", expr: ast.AST) -> dict[int, int]:
    """The select alternatives ``expr``'s value flows into, as {select: alternative}, from
    the innermost out (``where(c, a, where(d, b, e))``: ``b`` is in the inner select's
    first alternative and the outer's second). The walk stops where the value may reach
    the result another way (or the model cannot tell)."""
    found: dict[int, int] = {}
    node, hops = expr, 0
    while True:
        parent = model.parent(node)
        if parent is None:
            return found
        where = slot(model, node, parent)
        if where is not None:
            found.setdefault(*where)
            select = result_of(model, parent)
            if select is None:
                return found
            node = select
            continue  # the select's result flows on
        if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Call, ast.keyword, ast.Subscript, ast.Attribute,
                               ast.Starred)):
            if isinstance(parent, ast.Call) and parent.func is node:
                return found
            node = parent  # the value flows on through arithmetic, a call on it, an index
            continue
        if isinstance(parent, ast.Assign) and parent.value is node and hops < _MAX_HOPS and fn is not None \
                and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            read = single_read(model, fn, parent.targets[0].id)
            if read is None:
                return found  # rebound, read twice or by a nested function: both may survive
            node, hops = read, hops + 1
            continue
        return found


def _nested(model: "Scopes", fn: "FunctionInfo") -> list["FunctionInfo"]:
    return [f for f in model.functions if f.parent is fn]


def _free_reads(model: "Scopes", fn: "FunctionInfo") -> set[str]:
    return {n.id for n in fn.body_nodes() if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and n.id not in fn.bindings}


def alternatives(model: "Scopes", a: ast.AST, b: ast.AST) -> bool:
    """``a`` and ``b`` (two expressions of one function) reach different alternatives of
    one select, and nothing else: at most one of their values survives in any element
    of the result."""
    if a is b:
        return False
    fn = model.function_of(a)
    if fn is not model.function_of(b):
        return False
    first = _landings(model, fn, a)
    if not first:
        return False
    second = _landings(model, fn, b)
    return any(select in first and first[select] != alternative for select, alternative in second.items())
