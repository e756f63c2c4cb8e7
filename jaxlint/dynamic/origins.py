"""Where an argument of a recorded call was made, read from the caller's source.

A recompilation is reported where the cause is made, not only at the call that compiled
again (issue 37): the line that builds a state with a literal ``0`` step counter (a
dataclass or ``TrainState`` constructor, an environment's ``reset``), or the line in the
loop that makes the next, longer input of a generation step. The recording knows the call
(file, line) and which parameter changed; this module finds, in the caller's source, the
argument expression at that call and follows a plain name back to the statement that bound
it:

* :func:`grown_at`: the assignment inside the loop around the call that rebinds the name
  (``tokens = jnp.concatenate([tokens, tok], axis=1)``);
* :func:`made_at`: the binding before the call, and in it the keyword that gives the field
  a Python number (``State(params, step=0)``), through one call of a function of the same
  file that returns the constructor (``state = reset()`` with ``return EnvState(time=0)``);
* :func:`padded_at`: the ``pad`` call that padded the argument to a size computed from its
  length (``np.pad(x, ((0, size - n), (0, 0)))``), on the binding before the call or in a
  function of the same file it calls (``batch = pad_batch(x)``);
* :func:`placed_at`: the statement that bound the value of the call's first compile (its
  binding before the call: ``params_repl = replicate(params)``, ``state = svi.init(...)``),
  or the argument itself when it is built in the call, for a recompile whose cause is a
  change of sharding, placement or committedness;
* :func:`given_at`: the statement that made a value the caller gave a library's factory on
  its jit line (``jit(elasticity.athermal_moduli(energy_fn))``: where ``energy_fn`` was
  made), for a compile finding whose cause the library computes with it.

Pure ``ast``: nothing is imported or run. Every function answers None when the source does
not say (a name bound elsewhere, an attribute, a file that does not parse).
"""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

#: (file, line, column), 1-based line and column
Where = tuple[str, int, int]


@lru_cache(maxsize=64)
def _tree(path: str) -> ast.Module | None:
    try:
        return ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    out = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            out[child] = node
    return out


def _call_at(tree: ast.Module, line: int, name: str, column: int | None = None) -> ast.Call | None:
    """The call on ``line`` of the function called ``name`` (its last dotted part), else
    the call that starts at ``column`` (1-based, as the recording saw it: a jitted function
    called under another name, ``p_step = jax.pmap(step)``), or the only call on that line."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line]
    named = [c for c in calls if _callee(c) == name]
    if len(named) == 1:
        return named[0]
    at = [c for c in calls if column is not None and c.col_offset + 1 == column]
    if len(at) == 1:
        return at[0]
    return calls[0] if len(calls) == 1 else None


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return None
    return call.args[index] if 0 <= index < len(call.args) else None


def _binds(stmt: ast.stmt, name: str) -> bool:
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    for t in targets:
        for n in ast.walk(t):
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
                return True
    return False


def _scope(node: ast.AST, parents: dict) -> ast.AST:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            return node
    return node


def _in_scope(root: ast.AST):
    """The statements of one scope (not those of functions or classes defined in it)."""
    todo = [root]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, ast.stmt):
                yield child
            todo.append(child)


def _the_call(file: str, line: int, callee: str, index: int, param: str, column: int | None = None):
    tree = _tree(str(file))
    if tree is None:
        return None, None, None
    call = _call_at(tree, int(line), callee, column)
    if call is None:
        return tree, None, None
    arg = _argument(call, index, param)
    return tree, call, arg


def grown_at(file: str, line: int, callee: str, index: int, param: str) -> Where | None:
    """Where the loop around the call ``callee(...)`` on ``line`` rebinds the name passed as
    parameter ``param`` (position ``index``): the statement that makes the next, larger
    value. None when the argument is no plain name or no loop around the call rebinds it."""
    tree, call, arg = _the_call(file, line, callee, index, param)
    if call is None or not isinstance(arg, ast.Name):
        return None
    parents = _parents(tree)
    node: ast.AST = call
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            return None
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            found = [s for s in _in_scope(node) if _binds(s, arg.id)]
            if found:
                s = max(found, key=lambda s: (s.lineno, s.col_offset))
                return str(file), s.lineno, s.col_offset + 1
    return None


def made_at(file: str, line: int, callee: str, index: int, param: str, field: str) -> Where | None:
    """Where the value passed as parameter ``param`` to ``callee(...)`` on ``line`` got the
    Python number in its ``field``: the keyword ``field=<number>`` of the constructor that
    made it (on the statement that bound the name before the call, or in a ``return`` of a
    function of the same file that statement calls), else that statement. ``field=""``:
    the argument is the number itself (``theta = 1.0`` before ``theta = step(theta)``): the
    statement that bound it. None when the argument is no plain name or its binding is not
    in the caller's scope."""
    tree, call, arg = _the_call(file, line, callee, index, param)
    if call is None:
        return None
    if isinstance(arg, ast.Call):  # built in the call itself: `step(State(w, step=0))`
        return _literal_keyword(arg, field, file) or (str(file), arg.lineno, arg.col_offset + 1)
    if not isinstance(arg, ast.Name):
        return None
    stmt = _binding_before(tree, _parents(tree), call, arg.id)
    if stmt is None:
        return None
    value = getattr(stmt, "value", None)
    if isinstance(value, ast.Call):
        hit = _literal_keyword(value, field, file)
        if hit is None:
            hit = _through_function(tree, value, field, file)
        if hit is not None:
            return hit
    return str(file), stmt.lineno, stmt.col_offset + 1


def padded_at(file: str, line: int, callee: str, index: int, param: str) -> Where | None:
    """Where the value passed as parameter ``param`` to ``callee(...)`` on ``line`` was padded
    to a size computed from its length: a ``pad`` call (``jnp.pad``, ``np.pad``) whose pad
    widths are not all constants, found in the argument itself, on the statement that bound
    the name before the call, or in what a function of the same file that statement calls
    returns (two calls deep at most). None when the source shows no such padding."""
    tree, call, arg = _the_call(file, line, callee, index, param)
    if call is None or arg is None:
        return None
    found = _pad_of(tree, _parents(tree), arg, call, 0)
    return (str(file), found.lineno, found.col_offset + 1) if found is not None else None


def _pad_of(tree: ast.Module, parents: dict, expr: ast.expr, at: ast.AST, depth: int) -> ast.Call | None:
    """The sized ``pad`` call that made ``expr`` (evaluated at node ``at``), or None."""
    if isinstance(expr, ast.Call):
        if _callee(expr) == "pad":
            widths = expr.args[1] if len(expr.args) > 1 else next(
                (kw.value for kw in expr.keywords if kw.arg == "pad_width"), None)
            sized = widths is not None and any(isinstance(n, (ast.Name, ast.Attribute, ast.Call))
                                               for n in ast.walk(widths))
            return expr if sized else None
        if depth >= 2:
            return None
        name = _callee(expr)
        defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
        if len(defs) != 1:
            return None
        for node in _in_scope(defs[0]):
            if isinstance(node, ast.Return) and node.value is not None:
                hit = _pad_of(tree, parents, node.value, node, depth + 1)
                if hit is not None:
                    return hit
        return None
    if isinstance(expr, ast.Name) and depth <= 2:
        stmt = _binding_before(tree, parents, at, expr.id)
        value = getattr(stmt, "value", None)
        if stmt is not None and isinstance(value, ast.expr) and not isinstance(stmt, ast.AugAssign):
            return _pad_of(tree, parents, value, stmt, depth + 1)
    return None


def placed_at(file: str, line: int, callee: str, index: int, param: str, column: int | None = None) -> Where | None:
    """Where the value passed as parameter ``param`` to ``callee(...)`` on ``line`` was made
    or placed before the call: the statement that bound the name before it (a
    ``jax.device_put``, a ``flax.jax_utils.replicate``, an ``init`` that leaves it on the
    default device), or the argument itself when it is built in the call
    (``step(jax.device_put(x, s))``). ``column``: where the recorded call starts. None when
    the argument is no plain name or call, or its binding is not in the caller's scope."""
    tree, call, arg = _the_call(file, line, callee, index, param, column)
    if call is None or not isinstance(arg, (ast.Name, ast.Call)):
        return None
    return _made_before(tree, call, arg, file)


def given_at(file: str, line: int, factory: str, index: int, param: str) -> Where | None:
    """Where the value the caller gave a library's ``factory(...)`` on ``line`` (its jit line:
    ``jit(elasticity.athermal_moduli(energy_fn))``) as parameter ``param`` (position
    ``index``) was made: the statement that bound the name before that line
    (``energy_fn = energy.soft_sphere_pair(displacement)``), or the argument itself when
    it is built in the call. None when the line has no such call or the name is bound
    elsewhere."""
    tree, call, arg = _the_call(file, line, factory, index, param)
    if call is None or _callee(call) != factory or arg is None:
        return None
    return _made_before(tree, call, arg, file)


def _made_before(tree: ast.Module, call: ast.Call, arg: ast.expr, file: str) -> Where | None:
    """The statement that bound ``arg`` (a plain name) before ``call``, or ``arg`` itself
    when it is any other expression."""
    if not isinstance(arg, ast.Name):
        return str(file), arg.lineno, arg.col_offset + 1
    stmt = _binding_before(tree, _parents(tree), call, arg.id)
    return (str(file), stmt.lineno, stmt.col_offset + 1) if stmt is not None else None


def _binding_before(tree: ast.Module, parents: dict, at: ast.AST, name: str) -> ast.stmt | None:
    """The last statement of ``at``'s scope before it that binds ``name``, or None."""
    line = getattr(at, "lineno", 0)
    before = [s for s in _in_scope(_scope(at, parents)) if _binds(s, name) and s.lineno < line]
    return max(before, key=lambda s: (s.lineno, s.col_offset)) if before else None


def _literal_keyword(call: ast.Call, field: str, file: str) -> Where | None:
    for kw in call.keywords:
        if kw.arg == field and _number(kw.value):
            return str(file), kw.value.lineno, kw.value.col_offset + 1
    return None


def _through_function(tree: ast.Module, call: ast.Call, field: str, file: str) -> Where | None:
    """``state = reset(...)`` with ``def reset(...): ... return EnvState(time=0, ...)`` in the
    same file (a method too, by its name): the keyword in the returned constructor."""
    name = _callee(call)
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if len(defs) != 1:
        return None
    for node in ast.walk(defs[0]):
        if isinstance(node, ast.Return) and isinstance(node.value, (ast.Call, ast.Tuple)):
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for v in values:
                if isinstance(v, ast.Call):
                    hit = _literal_keyword(v, field, file)
                    if hit is not None:
                        return hit
    return None


def _number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)
