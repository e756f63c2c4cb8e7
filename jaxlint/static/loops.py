"""Loops and repetition, as the model answers them (issue 39): the loop of a node's own
scope that runs it again (``loop_of``) and the names such a loop rebinds, the functions
called from a loop or from a function that is (``repeatedly_called``), the functions that
run once (``main``, set-up and tear-down, what only they call: ``runs_once``), and the
calls of a name bound once in a scope (``calls_of``), from which whether a nested function
outlives the call that made it follows (``escapes``). ``runs.py`` holds the other half of
how often code runs: what a memo guards, and blocks that run eagerly.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.classes import method_of
from jaxlint.static.scopes import FunctionInfo, Scopes, walk
from jaxlint.textutil import LazyPattern

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.semantic import ModuleModel

COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
#: Traced-by reasons (``traced.Reason``) that mean "runs once per loop iteration".
LOOP_REASONS = ("scan", "fori_loop", "while_loop", "map")


def escapes(model: Scopes, scope: FunctionInfo | None, owner: FunctionInfo) -> bool:
    """Whether ``scope``, nested in ``owner``, is a function object that outlives the call
    of ``owner`` that made it (returned, stored, passed on), rather than one only called
    there: then what ``owner`` made is the same object on every call of ``scope``."""
    fn = scope
    while fn is not None and fn.parent is not owner:
        fn = fn.parent
    if fn is None or isinstance(fn.node, ast.Lambda) or fn.class_name is not None:
        return fn is not None  # a lambda or a method of a nested class: made once, kept
    calls = calls_of(model, owner, fn.name)
    return calls is None


def loop_of(model: Scopes, node: ast.AST) -> ast.AST | None:
    """The innermost loop of ``node``'s own scope whose body runs ``node`` repeatedly."""
    child = node
    for a in model.ancestors(node):
        if isinstance(a, _SCOPES):
            return None
        if isinstance(a, (ast.For, ast.AsyncFor)) and any(child is s for s in a.body):
            return a
        if isinstance(a, ast.While) and (child is a.test or any(child is s for s in a.body)):
            return a
        if isinstance(a, COMPREHENSIONS) and not (a.generators and child is a.generators[0]):
            return a
        if isinstance(a, ast.comprehension) and child is a.iter:
            # the first generator's iterable runs once; later ones once per outer item
            comp = model.parent(a)
            if isinstance(comp, COMPREHENSIONS) and comp.generators and comp.generators[0] is a:
                child = comp
                continue
            return comp
        child = a
    return None


def loop_bound(loop: ast.AST) -> set[str]:
    """Names that can change from one iteration to the next."""
    names: set[str] = set()
    if isinstance(loop, COMPREHENSIONS):
        for g in loop.generators:
            names.update(n.id for n in walk(g.target) if isinstance(n, ast.Name))
        return names
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        names.update(n.id for n in walk(loop.target) if isinstance(n, ast.Name))
    for stmt in getattr(loop, "body", ()):  # a for or while loop
        for n in walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
    return names


def depends_on(model: Scopes, expr: ast.AST, names: set[str], scope: FunctionInfo | None) -> bool:
    """Whether ``expr`` reads one of ``names`` as bound in ``scope`` (a def's own
    parameters and locals, which share a name with a loop variable, do not count)."""
    for n in walk(expr):
        if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load):
            if model.lookup(n.id, model.function_of(n))[0] is scope:
                return True
    return False


def calls_of(model: Scopes, scope: FunctionInfo | None, name: str, handed_on: bool = False) -> list[ast.Call] | None:
    """The calls ``name(...)`` in ``scope``; None when the name is used any other way
    (returned, stored, passed, closed over) or bound more than once. ``handed_on``: an
    argument of a call of a function of this module (``_sum(fn, xs)``, which calls it)
    is a use too, and the call is in the list."""
    bindings = model.module_bindings.get(name, []) if scope is None else scope.bindings.get(name, [])
    # bound once, or a def and its rewrap `f = jax.jit(f)`
    rewrap = [b for b in bindings if model.rewraps(b)]
    rest = [b for b in bindings if b not in rewrap]
    if len(rest) != 1 or len(rewrap) > 1 or (rewrap and rest[0].kind != "def"):
        return None
    wrapped = {id(n) for b in rewrap if b.value is not None for n in walk(b.value)}
    calls = []
    root = model.tree if scope is None else scope.node
    for n in model.nodes(ast.Name):
        if n.id != name or not isinstance(n.ctx, ast.Load) or not model.inside(n, root) or id(n) in wrapped:
            continue
        if model.function_of(n) is not scope:
            if scope is None:
                continue  # module-level name read inside a function: another scope's business
            return None  # closed over by a nested function: it escapes
        parent = model.parent(n)
        if isinstance(parent, ast.Call) and parent.func is n:
            calls.append(parent)
            continue
        if handed_on:
            call = model.parent(parent) if isinstance(parent, ast.keyword) else parent
            if isinstance(call, ast.Call) and (isinstance(parent, ast.keyword) or any(a is n for a in call.args)) \
                    and model.callee(call.func, scope, follow=False)[0] is not None:
                calls.append(call)
                continue
        return None
    return calls


def local_function(model: Scopes, target: ast.AST, scope: FunctionInfo) -> bool:
    """Whether ``target`` is a lambda, or a def nested in ``scope``: a new function object
    on every call of ``scope``."""
    if isinstance(target, ast.Lambda):
        return True
    if isinstance(target, ast.Name):
        fn = model.function_named(target.id, scope)
        return fn is not None and fn.parent is scope
    if isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = model.function_info(target)
        return fn is not None and fn.parent is scope
    return False


def repeatedly_called(model: Scopes) -> set[int]:
    """ids of functions called inside a loop, or from a function that is."""
    calls_in: dict[int, list[FunctionInfo]] = {}
    seeds: set[int] = set()
    instances: dict[str, str] | None = None  # made when a method call asks (few files)
    for node in model.nodes(ast.Call):
        scope = model.function_of(node)
        target, _ = model.callee(node.func, scope)
        if target is None and isinstance(node.func, ast.Attribute):
            if instances is None:
                instances = module_instances(model)
            target = instance_method(model, node.func, scope, instances)
        if target is None:
            continue
        calls_in.setdefault(id(scope), []).append(target)
        if loop_of(model, node) is not None:
            seeds.add(id(target))
    by_id = {id(f): f for f in model.functions}
    out = set()
    stack = list(seeds)
    while stack:
        i = stack.pop()
        if i in out:
            continue
        out.add(i)
        if i in by_id:
            stack.extend(id(t) for t in calls_in.get(i, ()))
    return out


#: Functions that run once per program or per object: entry points, set-up and tear-down.
_ONCE_NAMES = LazyPattern(r"^_*(main|run_main|\w+_main|setup|set_up|setUp\w*|teardown|tear_down|tearDown\w*|"
                         r"init|initiali[sz]e|init_\w+|initiali[sz]e_\w+|__init__|__post_init__|close|shutdown|"
                         r"cleanup|finali[sz]e)$")


#: Calls that run a program's entry point once: `app.run(main)`, `fire.Fire(main)`.
_RUNNERS = {"absl.app.run", "fire.Fire", "typer.run", "jax.distributed.initialize"}


def runs_once(model: Scopes, repeated: set[int]) -> set[int]:
    """ids of functions that run once: ``main`` (by name or given to ``app.run``), set-up
    and tear-down functions, and functions called only from those or from module level,
    outside loops, and never passed around (a callback may run any number of times)."""
    once_names = _ONCE_NAMES()
    once = {id(f) for f in model.functions
            if not isinstance(f.node, ast.Lambda) and once_names.match(f.name) and id(f) not in repeated}
    sites: dict[int, list[tuple[FunctionInfo | None, bool]]] = {}  # callee -> (caller, in a loop)
    for node in model.nodes(ast.Call):
        q = model.resolve_call(node)
        if q in _RUNNERS and node.args and isinstance(node.args[0], ast.Name):
            target = model.function_named(node.args[0].id, model.function_of(node))
            if target is not None:
                once.add(id(target))
            continue
        scope = model.function_of(node)
        target, _ = model.callee(node.func, scope, follow=False)
        if target is not None and not isinstance(target.node, ast.Lambda):
            sites.setdefault(id(target), []).append((scope, loop_of(model, node) is not None))
    # a function passed around (a callback, a method handed to jit) may run any number of times
    referenced = {n.id for n in model.nodes(ast.Name) if isinstance(n.ctx, ast.Load) and not _is_call_func(model, n)}
    referenced |= {n.attr for n in model.nodes(ast.Attribute)
                   if isinstance(n.ctx, ast.Load) and not _is_call_func(model, n)}
    by_id = {id(f): f for f in model.functions}
    changed = True
    while changed:
        changed = False
        for i, callers in sites.items():
            if i in once or i in repeated or by_id[i].name in referenced:
                continue
            if all(not in_loop and (caller is None or id(caller) in once) for caller, in_loop in callers):
                once.add(i)
                changed = True
    return once


def _is_call_func(model: Scopes, name: ast.AST) -> bool:
    parent = model.parent(name)
    return isinstance(parent, ast.Call) and parent.func is name


def module_instances(model: Scopes) -> dict[str, str]:
    """Names and ``self.`` attributes bound to an instance of a module class, once
    (``buffer = Buffer(...)``, ``self.buffer = Buffer(...)``): name -> class name."""
    out: dict[str, str | None] = {}
    for node in model.nodes(ast.Assign):
        if len(node.targets) != 1 or not isinstance(node.value, ast.Call) \
                or not isinstance(node.value.func, ast.Name) or node.value.func.id not in model.classes:
            continue
        t = node.targets[0]
        key = t.id if isinstance(t, ast.Name) else f"self.{t.attr}" if (
            isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self") else None
        if key is not None:
            out[key] = node.value.func.id if out.get(key, node.value.func.id) == node.value.func.id else None
    return {k: v for k, v in out.items() if v is not None}


def instance_method(model: Scopes, func: ast.Attribute, scope: FunctionInfo | None, instances: dict[str, str]) -> FunctionInfo | None:
    """The method ``obj.m`` calls when ``obj`` holds an instance of a module class."""
    base = func.value
    if isinstance(base, ast.Name):
        key = base.id
        if len(model.lookup(key, scope)[1]) != 1:
            return None
    elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self":
        key = f"self.{base.attr}"
    else:
        return None
    cls = instances.get(key)
    return method_of(model, cls, func.attr) if cls is not None else None


def lax_loop_bodies(model: "ModuleModel") -> dict[FunctionInfo, str]:
    """Traced functions that run once per iteration of a lax loop, and which loop."""
    out: dict[FunctionInfo, str] = {}
    by_qual = {f.qualname: f for f in model.functions}
    for _ in range(len(model.functions) + 1):
        changed = False
        for fn in model.traced_functions():
            if fn in out:
                continue
            for reason in fn.traced_by:
                if reason.kind in LOOP_REASONS and reason.line is not None:
                    loop: str | None = "lax." + reason.kind
                elif reason.by_call:
                    caller = by_qual.get(reason.caller or "")
                    loop = out.get(caller) if caller is not None else None
                else:
                    loop = None
                if loop is not None:
                    out[fn] = loop
                    changed = True
                    break
        if not changed:
            break
    return out

