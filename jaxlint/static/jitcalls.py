"""Where a function jitted in this module is called, and which argument lands in which
parameter. Used by rules about static and donated arguments (JAX108, JAX113)."""
from __future__ import annotations

import ast
from typing import Iterator

from jaxlint.static.jitmap import EntryPoint
from jaxlint.static.scopes import is_staticmethod
from jaxlint.static.semantic import FunctionInfo, ModuleModel


def named_calls(model: ModuleModel) -> list[ast.Call]:
    """The calls of a name or an attribute in the module: walk once, pass to
    :func:`jit_call_sites` for every entry."""
    return [n for n in model.nodes(ast.Call) if isinstance(n.func, (ast.Name, ast.Attribute))]


def jit_call_sites(model: ModuleModel, entry: EntryPoint, calls: list[ast.Call]) -> Iterator[tuple[ast.Call, int]]:
    """Calls (among ``calls``) of the jitted callable, with the number of leading
    parameters the call does not pass: partial-bound arguments, and ``self`` for
    ``self.method(...)`` (bound by the call) or ``jit(self.method)`` (bound already)."""
    site, fn = model.entry_site(entry)
    parent = model.parent(site)
    if entry.form == "immediate" and isinstance(parent, ast.Call):
        yield parent, entry.partial_bound
        return
    if entry.form in ("decorator", "partial-decorator"):
        is_method = fn.class_name is not None and not is_staticmethod(fn)
        for call in calls:
            if is_method:
                if _self_attr_call(model, call, fn.name, fn.class_name):
                    yield call, 1
            elif isinstance(call.func, ast.Name) and call.func.id == fn.name:
                _, bindings = model.lookup(call.func.id, model.function_of(call))
                if len(bindings) == 1 and bindings[0].node is fn.node:
                    yield call, 0
        return
    if entry.bound_name is None or not isinstance(parent, ast.Assign):
        return
    if entry.bound_name.startswith("self.") and "." not in entry.bound_name[5:]:
        owner = model.function_of(site)
        cls = owner.class_name if owner is not None else None
        for call in calls:
            if cls is not None and _self_attr_call(model, call, entry.bound_name[5:], cls):
                yield call, entry.partial_bound
        return
    for call in calls:
        if isinstance(call.func, ast.Name) and call.func.id == entry.bound_name:
            _, bindings = model.lookup(call.func.id, model.function_of(call))
            if len(bindings) == 1 and bindings[0].node is parent:
                yield call, entry.partial_bound
            elif any(b.node is parent for b in bindings) and all(
                    b.node is parent or b.node is fn.node for b in bindings) and (
                    call.lineno > parent.lineno or model.function_of(call) is not model.function_of(parent)):
                # `f = jax.jit(f, donate_argnums=0)`: calls after the rebinding are jitted (and
                # calls from another function run after it)
                yield call, entry.partial_bound


def call_arguments(call: ast.Call, fn: FunctionInfo, offset: int) -> list[tuple[str, ast.expr]]:
    """(parameter name, argument expression) for each argument of ``call`` whose
    parameter is known; ``offset`` leading positional parameters are not passed."""
    positional = fn.positional()
    out = []
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break  # positions after *args are unknown
        j = i + offset
        if j < len(positional):
            out.append((positional[j].name, a))
    for k in call.keywords:
        if k.arg is not None and fn.param(k.arg) is not None:
            out.append((k.arg, k.value))
    return out


def _self_attr_call(model: ModuleModel, call: ast.Call, attr: str, class_name: str | None) -> bool:
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == attr and isinstance(func.value, ast.Name)
            and func.value.id == "self"):
        return False
    scope = model.function_of(call)
    while scope is not None and scope.class_name is None:
        scope = scope.parent
    return scope is not None and scope.class_name == class_name
