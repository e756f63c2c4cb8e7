"""Where a function jitted in this module is called, and which argument lands in which
parameter; which of them are tracers at a static parameter. Used by rules about static and
donated arguments (JAX108, JAX113)."""
from __future__ import annotations

import ast
import itertools
from typing import Iterator

from jaxlint.records import dataclass
from jaxlint.static.jitmap import EntryPoint
from jaxlint.static.scopes import is_staticmethod
from jaxlint.static.semantic import FunctionInfo, ModuleModel
from jaxlint.static.taint import CERTAIN, taint_of
from jaxlint.static.traced import runs_traced


def named_calls(model: ModuleModel) -> list[ast.Call]:
    """The calls of a name or an attribute in the module: walk once, pass to
    :func:`jit_call_sites` for every entry."""
    return [n for n in model.nodes(ast.Call) if isinstance(n.func, (ast.Name, ast.Attribute))]


def jitted_bound_method(model: ModuleModel, entry: EntryPoint) -> tuple[ast.Attribute, FunctionInfo] | None:
    """``jax.jit(env.reset)``, ``jax.jit(self.step)``: a method jitted bound (the method read
    as an attribute, ``self`` not static), with the function. The bound method is the jitted
    callable, so its object is a constant of every program it compiles, read once at trace
    time (a static ``self``, kept by identity)."""
    if not entry.is_method or "self" in entry.static_params:
        return None
    site, fn = model.entry_site(entry)
    bound = site.args[0] if isinstance(site, ast.Call) and site.args else None
    ok = isinstance(bound, ast.Attribute) and fn.params and fn.params[0].name == "self"
    return (bound, fn) if ok else None  # type: ignore[return-value]


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
                if _self_attr_call(model, call, fn.name, fn.class_name) or _instance_call(model, call, fn):
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


@dataclass(frozen=True)
class TracedStatic:
    """A tracer reaching static parameter ``param`` of the jitted ``target``: ``value``,
    traced in ``scope`` where it is passed or bound, or bound by a ``jax.tree_util.Partial``
    that ``into`` (the call, the jitted function) passes to a jitted function."""

    value: ast.expr
    param: str
    target: FunctionInfo
    scope: FunctionInfo | None = None
    into: tuple[ast.Call, FunctionInfo] | None = None


def traced_statics(model: ModuleModel, calls: list[ast.Call]) -> list[TracedStatic]:
    """Every tracer reaching a static parameter of a function jitted in the module, which
    raises there (a static argument is hashed; a tracer is unhashable): passed by a call in
    traced code (``_fit(x, n)`` in a jitted ``fit(x, n)``), bound there by
    ``functools.partial`` (``partial(tile_by, k)``), or bound by a ``jax.tree_util.Partial``
    passed to a jitted function, whose bound arguments are leaves of that pytree, traced by
    the jit whatever they are, Python ints too (jax #5609)."""
    statics: dict[int, set[str]] = {}
    for entry in model.entries:
        if entry.static_params and entry.specs_literal:
            statics.setdefault(id(model.entry_site(entry)[1]), set()).update(entry.static_params)
    if not statics:
        return []
    out: list[TracedStatic] = []
    into: dict[int, tuple[ast.Call, FunctionInfo]] = {}
    for entry in model.entries:
        jitted = model.entry_site(entry)[1]
        static = statics.get(id(jitted), set())
        for call, offset in jit_call_sites(model, entry, calls):
            scope = model.function_of(call)
            out += [TracedStatic(a, p, jitted, scope) for p, a in call_arguments(call, jitted, offset)
                    if p in static and _traced_at(model, scope, call, a)]
            for a in [*call.args, *(k.value for k in call.keywords)]:
                made = _partial_made(model, scope, a)
                if made is not None and made[1] == "jax.tree_util.Partial":
                    into[id(made[0])] = (call, jitted)
    for node in model.nodes(ast.Call):
        made = _partial_made(model, None, node) if isinstance(node, ast.Call) and node.args else None
        if made is None:
            continue
        scope = model.function_of(node)
        target, implicit = model.callee(node.args[0], scope)
        static = statics.get(id(target), set()) if target is not None else set()
        positional = [p.name for p in target.positional()[implicit:]] if target is not None and static else []
        bound = [*zip(positional, itertools.takewhile(lambda a: not isinstance(a, ast.Starred), node.args[1:])),
                 *((k.arg, k.value) for k in node.keywords if k.arg is not None)]
        for param, arg in bound:
            if param in static and target is not None and (id(node) in into or _traced_at(model, scope, node, arg)):
                out.append(TracedStatic(arg, param, target, scope, into.get(id(node))))
    return out


def _instance_call(model: ModuleModel, call: ast.Call, fn: FunctionInfo) -> bool:
    """``obj.method(...)`` of an instance of ``fn``'s class the model knows: an attribute of
    ``self`` set to one in ``__init__`` (``self.source = Basis(...)``), a name bound to one;
    for ``__call__``, a call of such an instance itself (``obj(...)``, ``self(...)``)."""
    func = call.func
    named = isinstance(func, ast.Attribute) and func.attr == fn.name
    called = fn.name == "__call__" and isinstance(func, ast.Name)
    return (named or called) and model.callee(func, model.function_of(call)) == (fn, 1)


def _traced_at(model: ModuleModel, scope: FunctionInfo | None, node: ast.AST, arg: ast.expr) -> bool:
    """``arg`` is certainly a tracer where ``node`` runs (in traced code, not in an arm the
    trace never takes)."""
    return scope is not None and scope.traced and runs_traced(model, node) \
        and taint_of(model, scope).level(arg) == CERTAIN


def _partial_made(model: ModuleModel, scope: FunctionInfo | None, arg: ast.expr) -> tuple[ast.Call, str] | None:
    """The ``functools.partial(...)`` / ``jax.tree_util.Partial(...)`` call ``arg`` is, or
    that the name ``arg`` is bound to once, with the qualified name of the maker."""
    if isinstance(arg, ast.Name):
        _, bindings = model.lookup(arg.id, scope)
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, ast.Call):
            return None
        arg = bindings[0].value
    if isinstance(arg, ast.Call):
        q = model.resolve_call(arg)
        if q in ("functools.partial", "jax.tree_util.Partial"):
            return arg, q
    return None
