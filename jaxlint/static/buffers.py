"""Which names hold the same array buffer (issue 39): the leaves an argument passes (the
items of a display, also through a name bound to one, and the arguments a helper's result
holds as they are: ``values.Summaries``), the roots of a name through ``a = b`` (as keys
equal for one buffer), and the other names of the function that hold the array a name
holds where a call reads it. JAX113 asks them of a donated argument.
"""
from __future__ import annotations

import ast
from typing import Iterator

from jaxlint.static.jitcalls import call_arguments
from jaxlint.static.scopes import Binding, Scopes, target_names
from jaxlint.static.values import Summaries


def buffer_keys(model: Scopes, leaf: ast.expr) -> set[str]:
    """Every array a passed leaf may hold, as keys equal for one buffer: the roots of a
    name (``ema = params`` before a loop: on the first iteration both hold one buffer),
    the text of an attribute."""
    return {f"name:{r}" for r in buffer_roots(model, leaf)} if isinstance(leaf, ast.Name) else {ast.dump(leaf)}


def passed_leaves(model: Scopes, arg: ast.expr, depth: int = 0) -> Iterator[ast.expr]:
    """The names and attributes a donated argument passes: itself, or the items of a
    tuple, list or dict display, also through a name bound to one (a donated pytree
    donates every leaf)."""
    if isinstance(arg, (ast.Tuple, ast.List)):
        for e in arg.elts:
            yield from passed_leaves(model, e.value if isinstance(e, ast.Starred) else e, depth)
    elif isinstance(arg, ast.Dict):
        for v in arg.values:
            yield from passed_leaves(model, v, depth)
    elif isinstance(arg, ast.Name) and depth < 4:
        b = _reaching(model, arg)
        if b is not None and isinstance(b.value, (ast.Tuple, ast.List, ast.Dict)):
            yield from passed_leaves(model, b.value, depth + 1)
        else:
            yield arg
            if b is not None and isinstance(b.value, ast.Call):
                # made by a helper that returns some of its arguments as they are
                # (`state = init(params)` returning `{"z": params, ...}`): those share buffers
                for held in _held_arguments(model, b.value):
                    yield from passed_leaves(model, held, depth + 1)
    elif isinstance(arg, (ast.Name, ast.Attribute)):
        yield arg


def _held_arguments(model: Scopes, call: ast.Call) -> list[ast.expr]:
    """The arguments of ``call`` that its result holds as they are, by the callee's
    summary (a function of this module), each as many times as the result holds it."""
    callee, implicit = model.callee(call.func, model.function_of(call))
    if callee is None:
        return []
    held = Summaries.of(model).aliased_counts(callee)  # an argument held twice is yielded twice
    return [a for p, a in call_arguments(call, callee, implicit) if p in held for _ in range(held[p])] \
        if held else []


def _reaching(model: Scopes, name: ast.Name) -> Binding | None:
    """The one plain assignment of ``name`` that holds where it is read, if any."""
    bindings = model.reaching_bindings(name, model.function_of(name))
    if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None:
        return bindings[0]
    return None


def _root(model: Scopes, name: ast.Name) -> ast.Name:
    """Follow ``a = b`` back from a read of ``a`` to the first name of the array."""
    seen = {name.id}
    for _ in range(8):
        b = _reaching(model, name)
        if b is None or not isinstance(b.value, ast.Name) or b.value.id in seen:
            return name
        name = b.value
        seen.add(name.id)
    return name


def buffer_roots(model: Scopes, name: ast.Name, depth: int = 0) -> set[str]:
    """Where the arrays ``name`` may hold where it is read were made: the bindings that
    reach the read, followed through each ``name = other`` to the roots of ``other``
    (as ``name@line:col`` of each binding)."""
    bindings = model.reaching_bindings(name, model.function_of(name))
    out: set[str] = set()
    for b in bindings:
        if b.kind == "assign" and isinstance(b.value, ast.Name) and depth < 6 \
                and not _earlier_pass(model, b.node, b.value.id, name):
            out |= buffer_roots(model, b.value, depth + 1)
        else:
            out.add(f"{b.name}@{getattr(b.node, 'lineno', 0)}:{getattr(b.node, 'col_offset', 0)}")
    return out or {name.id}


def _earlier_pass(model: Scopes, alias: ast.AST, source: str, read: ast.AST) -> bool:
    """``alias`` (``total = fresh``) reaches ``read`` only from an earlier pass of a loop
    that binds ``source`` again before every pass's alias and read: the two are in the
    two arms of one ``if`` in the loop (``if total is None: total = fresh`` ... ``else:
    step(total, fresh)``), and the loop's target or a statement of its body before that
    ``if`` binds ``fresh`` anew. The alias then holds the array of a pass before, not the
    one ``source`` holds at the read."""
    arms: dict[int, str] = {}
    for a in model.ancestors(alias):
        if isinstance(a, ast.If):
            arms[id(a)] = "body" if any(alias is n or alias in ast.walk(n) for n in a.body) else "orelse"
        if isinstance(a, (ast.For, ast.AsyncFor, ast.While)):
            break
    else:
        return False
    loop = a
    branch = next((i for i in model.ancestors(read) if id(i) in arms), None)
    if not isinstance(branch, ast.If) or not any(x is loop for x in model.ancestors(branch)):
        return False
    if arms[id(branch)] == ("body" if any(read in ast.walk(n) for n in branch.body) else "orelse"):
        return False  # the same arm: the alias may reach the read in one pass
    if isinstance(loop, (ast.For, ast.AsyncFor)) and source in set(target_names(loop.target)):
        return True
    for stmt in loop.body:
        if stmt is branch or any(branch is n for n in ast.walk(stmt)):
            return False
        if isinstance(stmt, ast.Assign) and any(source in set(target_names(t)) for t in stmt.targets):
            return True
    return False


def same_buffer_names(model: Scopes, arg: ast.Name, call: ast.Call) -> list[str]:
    """Other names holding the same array as ``arg`` where ``call`` reads it: assigned
    ``old = state`` earlier in the function (or ``state`` itself came from ``old``)."""
    scope = model.function_of(call)
    if scope is None:
        return []
    root = _root(model, arg).id
    out: list[str] = []
    for node in scope.body_nodes():
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Name) and node.lineno < call.lineno):
            continue
        n = node.targets[0].id
        if n != arg.id and n not in out and len(scope.bindings.get(n, [])) == 1 and _root(model, node.value).id == root:
            out.append(n)
    if root != arg.id and root not in out and root in scope.bindings:
        out.append(root)
    return out
