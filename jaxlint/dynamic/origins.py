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
* :func:`narrow_made_at`: for a leaf the step widens (float32 in, float64 out), the nearest
  statement behind the argument that names the narrow dtype (``jnp.float32``), going back
  through the names each binding reads, else the statement that bound the argument;
* :func:`element_made_at`: for an element of a container argument (``args[1]`` of
  ``step(i, state, args)``, ``theta['mean']``), the statement that bound the element's
  name, or the entry that made it, through the tuple, list or dict display, ``dict(...)``
  call or constructor keyword that bound the argument before the call (``args = (a, b,
  c)``, ``theta = {"mean": 0.0}``);
* :func:`padded_at`: the ``pad`` call that padded the argument to a size computed from its
  length (``np.pad(x, ((0, size - n), (0, 0)))``), on the binding before the call or in a
  function of the same file it calls (``batch = pad_batch(x)``);
* :func:`placed_at`: the statement that bound the value of the call's first compile (its
  binding before the call: ``params_repl = replicate(params)``, ``state = svi.init(...)``),
  or the argument itself when it is built in the call, for a recompile whose cause is a
  change of sharding, placement or committedness;
* :func:`batched_at`: for an argument bound by a ``for`` loop over a generator or function of
  the same file (``for step, (x, y) in zip(range(n), dataloader(...))``), the loop in that
  generator that makes the batches (``while start < dataset_size:``, the one to change for a
  smaller last batch), or its ``yield``/``return``;
* :func:`attribute_made_at`: for a field deep in a model (``model.func.out_scale``), the
  assignment in the constructors of the file's classes that made it
  (``self.out_scale = jnp.array(1.0)`` in ``Func.__init__``), followed through each
  ``self.func = Func(...)``, a constructor's keyword or its parameter's default; the model
  itself followed to its constructor through the file's functions that return it
  (``net, opt, state = init_trainer()``, ``return net, optimizer, opt_state``, ``net =
  init_net(key)``) and module globals (:func:`_resolved`);
* :func:`host_rebound_at`: for a Python number the loop around the call rebinds to what
  NumPy returns (``eps = np.exp(...)``), that statement (a NumPy scalar is a strong array to
  jit);
* :func:`object_made_at`: for a static field of a graph that compares by identity (an
  optimizer's ``tx``), the constructor's argument that made its object
  (``nnx.Optimizer(model, optax.adam(1e-3))``), or the statement that bound the name given;
* :func:`function_around`: the name of the function whose body holds a line;
* :func:`sharding_declared_at`: for a field of a model whose sharding changes between calls,
  the declaration in a class of the file that decides it (``self.w2 = nnx.Param(...,
  out_sharding=...)``, ``kernel_init=nnx.with_partitioning(...)``);
* :func:`given_at`: the statement that made a value the caller gave a library's factory on
  its jit line (``jit(elasticity.athermal_moduli(energy_fn))``: where ``energy_fn`` was
  made), for a compile finding whose cause the library computes with it.

A notebook is read as its code cells one after another (:func:`source_text`), and a cell a
kernel ran while ``jaxlint record`` watched is found in it (:func:`in_source`), so a value
made in another cell is followed like one made earlier in a file.

Pure ``ast``: nothing is imported or run. Every function answers None when the source does
not say (a name bound elsewhere, an attribute, a file that does not parse).
"""
from __future__ import annotations

import ast
import os
from functools import lru_cache
from pathlib import Path
from types import ModuleType

#: (file, line, column), 1-based line and column
Where = tuple[str, int, int]

#: the recorder's state, :mod:`jaxlint.dynamic.record_state`, in a process that records (it
#: sets this when it loads); None in any other, where files are read as given
RECORDING: ModuleType | None = None


def in_source(file: str, line: int) -> tuple[str, int]:
    """(file, line) where ``line`` of ``file`` is read with the rest of its program: for a
    cell a Jupyter kernel ran while ``jaxlint record`` watched (a file name no disk holds),
    the notebook (its path under the record's root) and the line of its module, where the
    other cells are read too; anything else as given."""
    state = RECORDING
    if state is None or os.path.exists(file):
        return file, line
    placed = state.place(file, line)
    return (placed[0], int(placed[1])) if placed is not None else (file, line)


@lru_cache(maxsize=64)
def source_text(path: str) -> str | None:
    """The Python source of ``path`` as the recording's lines count it: a file's text, or
    a notebook's virtual module (its code cells one after another, as the static phase
    reads it, :func:`jaxlint.files.notebook.read_module_text`), so a value made in another
    cell is followed like one made earlier in the same file. None when unreadable."""
    state = RECORDING
    if state is not None and not os.path.isabs(path) and not os.path.exists(path):
        path = str(state.record_root() / path)  # a notebook placed under the record's root
    try:
        if str(path).endswith(".ipynb"):
            from jaxlint.files.notebook import NotebookError, read_module_text

            try:
                return read_module_text(path)
            except NotebookError:
                return None
        return Path(path).read_text(encoding="utf-8")
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def source_line(path: str, line: int) -> str:
    """Line ``line`` (1-based) of :func:`source_text`, or "" (``linecache.getline`` for a
    notebook would read its JSON)."""
    text = source_text(str(path))
    lines = text.splitlines() if text is not None else []
    return lines[line - 1] + "\n" if 0 < line <= len(lines) else ""


@lru_cache(maxsize=64)
def _tree(path: str) -> ast.Module | None:
    text = source_text(path)
    if text is None:
        return None
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError):
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
    for _, _, loop, name in _loops_around(file, line, callee, index, param):
        found = [s for s in _in_scope(loop) if _binds(s, name)]
        if found:
            s = max(found, key=lambda s: (s.lineno, s.col_offset))
            return str(file), s.lineno, s.col_offset + 1
    return None


def _loops_around(file: str, line: int, callee: str, index: int, param: str):
    """(tree, parents, loop, the argument's name) for each loop around the call, innermost
    first, within its function; nothing when the argument is no plain name."""
    tree, call, arg = _the_call(file, line, callee, index, param)
    if call is None or not isinstance(arg, ast.Name):
        return
    parents = _parents(tree)
    node: ast.AST = call
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            return
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            yield tree, parents, node, arg.id


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
    if not isinstance(arg, (ast.Name, ast.Attribute)):
        return None
    parents = _parents(tree)
    stmt = (_binding_before(tree, parents, call, arg.id) or _bound_by_callers(tree, parents, call, arg.id)
            if isinstance(arg, ast.Name) else None) or _upstream(tree, parents, call, arg, _UPSTREAM)
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


def narrow_made_at(file: str, line: int, callee: str, index: int, param: str,
                   dtype: str) -> tuple[Where, bool] | None:
    """Where the value passed as parameter ``param`` to ``callee(...)`` on ``line`` got the
    narrow ``dtype`` (``"float32"``) that the step then widens: the nearest statement, going
    back from the call through the statements that bound the names it reads (a few deep,
    each in its scope before its use), whose value names that dtype (``Q =
    random_quaternion(key, jnp.float32)`` behind ``body = RigidBody(R, Q)`` behind ``state
    = init(body)``), with True; else the statement that bound the argument before the call
    from a call of a function the file does not define (a library's call made the dtype),
    with False. None otherwise."""
    tree, call, arg = _the_call(file, line, callee, index, param)
    if call is None or arg is None:
        return None
    parents = _parents(tree)
    first: ast.expr | ast.stmt | None = None
    todo: list[tuple[ast.expr | ast.stmt, ast.AST]] = [(arg, call)]  # (an expression or statement, where it is used)
    seen: set[int] = set()
    while todo and len(seen) < 48:
        node, at = todo.pop(0)
        if isinstance(node, ast.Name):
            stmt = _binding_before(tree, parents, at, node.id) or (
                _bound_by_callers(tree, parents, at, node.id) if at is call else None)
            if stmt is None or id(stmt) in seen:
                continue
            seen.add(id(stmt))
            first = first or stmt
            node, at = stmt, stmt
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else node
        if value is None:
            continue
        if _names_dtype(value, dtype):
            return (str(file), node.lineno, node.col_offset + 1), True
        first = first or node
        todo += [(n, at) for n in _read_names(value)]
    value = getattr(first, "value", None)
    if not isinstance(first, ast.stmt) or not isinstance(value, ast.Call) or _callee(value) in {
            n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}:
        return None  # not received from a library's call: the source does not say where it was made
    return (str(file), first.lineno, first.col_offset + 1), False


def _names_dtype(node: ast.AST, dtype: str) -> bool:
    """Whether ``node`` names ``dtype``: ``jnp.float32``, ``float32``, ``"float32"``."""
    return any(isinstance(n, ast.Attribute) and n.attr == dtype or isinstance(n, ast.Name) and n.id == dtype
               or isinstance(n, ast.Constant) and n.value == dtype for n in ast.walk(node))


def _read_names(node: ast.AST) -> list[ast.Name]:
    """The plain names ``node`` reads, but a function called by its name (``Body`` of
    ``Body(a, b)``, ``init_fn`` of ``init_fn(body)``): what the value is made from (a
    module such as ``jnp`` is bound by no assignment, so it leads nowhere)."""
    skip = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in skip]


def element_made_at(file: str, line: int, callee: str, index: int, param: str,
                    path: tuple[int | str, ...]) -> Where | None:
    """Where element ``path`` of the container passed as parameter ``param`` to
    ``callee(...)`` on ``line`` was made (``args[1]`` of ``step(i, state, args)`` with
    ``args = (a, b, c)`` and ``b = jnp.array(1.0)`` before it: the statement that binds
    ``b``; ``theta['mean']`` with ``theta = {"mean": 0.0, ...}``: the ``0.0`` of that entry),
    following names through the statements that bound them before the call (a loop's own
    rebinding of the container comes after its first call), tuple or list displays by
    index (an ``int`` step), dict displays and ``dict(...)`` calls by key (a ``str`` step),
    and a constructor's keyword for a field (a step ``".field"``: ``Params(mean=0.0)``),
    through a field or constant subscript the binding reads (``theta = fit.theta``). None
    when a step is no plain name or display (an unpacking, a call's result), or not
    bound in the caller's scope before the call."""
    tree, call, arg = _the_call(file, line, callee, index, param)
    if call is None or arg is None:
        return None
    parents = _parents(tree)
    expr: ast.expr = arg
    at: ast.AST = call
    stmt: ast.stmt | None = None
    rest = list(path)
    for _ in range(8 + len(rest)):  # a few names deep
        if isinstance(expr, ast.Name):
            stmt = _binding_before(tree, parents, at, expr.id) or (
                _bound_by_callers(tree, parents, at, expr.id) if at is call else None)
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or \
                    not isinstance(stmt.targets[0], ast.Name):
                return None
            expr, at = stmt.value, stmt
        elif rest and (found := _element(expr, rest[0])) is not None:
            rest.pop(0)
            expr, stmt = found, None
        elif isinstance(expr, ast.Attribute):  # `theta = fit.theta`: the field of what `fit` was made
            rest.insert(0, f".{expr.attr}")
            expr, stmt = expr.value, None
        elif isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) \
                and isinstance(expr.slice.value, (int, str)) and not isinstance(expr.slice.value, bool):
            rest.insert(0, expr.slice.value)  # `theta = params["theta"]`: that entry of `params`
            expr, stmt = expr.value, None
        else:
            break
    if rest:
        return None
    if stmt is not None:  # the name's own binding (`b = jnp.array(1.0)`)
        return str(file), stmt.lineno, stmt.col_offset + 1
    return str(file), expr.lineno, expr.col_offset + 1  # made in the display (`(a, 1.0, c)`)


def _element(expr: ast.expr, step: int | str) -> ast.expr | None:
    """The expression a display or constructor gives for ``step``: an index of a tuple or
    list display, a constant key of a dict display or a keyword of ``dict(...)``, a
    keyword of a constructor for a field (``".mean"``). None when the source does not say
    (a starred element, a ``**`` entry, a positional field)."""
    if isinstance(step, int) and isinstance(expr, ast.Dict):  # `{0: ...}`: a key that is a number
        if any(k is None for k in expr.keys):
            return None
        hits = [v for k, v in zip(expr.keys, expr.values)
                if isinstance(k, ast.Constant) and type(k.value) is int and k.value == step]
        return hits[-1] if hits else None
    if isinstance(step, int):
        if not isinstance(expr, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in expr.elts):
            return None
        return expr.elts[step] if -len(expr.elts) <= step < len(expr.elts) else None
    if isinstance(expr, ast.Dict) and not step.startswith("."):
        if any(k is None for k in expr.keys):  # a `**other` entry may give the key
            return None
        hits = [v for k, v in zip(expr.keys, expr.values) if isinstance(k, ast.Constant) and k.value == step]
        return hits[-1] if hits else None
    if isinstance(expr, ast.Call) and (step.startswith(".") or _callee(expr) == "dict"):
        if step.startswith(".") and _callee(expr) == "dict":
            return None
        key = step.lstrip(".")
        hits = [kw.value for kw in expr.keywords if kw.arg == key]
        return hits[0] if hits else None
    return None


def object_made_at(file: str, line: int, callee: str, index: int, param: str, field: str,
                   position: int | None) -> Where | None:
    """Where the object in the static field ``field`` of the value passed as parameter
    ``param`` to ``callee(...)`` on ``line`` was made: on the statement that bound the
    argument before the call (``optimizer = nnx.Optimizer(model, optax.adam(1e-3))``), the
    constructor's argument for the field (its keyword ``field=``, else the one at
    ``position``, the constructor's parameter of that name), the call there that makes it
    or the statement before that binds the name given there (``tx = optax.adam(1e-3)``).
    None when the source does not say."""
    tree, call, arg = _the_call(file, line, callee, index, param)
    if call is None or arg is None:
        return None
    parents = _parents(tree)
    stmt = _upstream(tree, parents, call, arg, _UPSTREAM)
    value = getattr(stmt, "value", None)
    if not isinstance(value, ast.Call):
        return None
    given = next((kw.value for kw in value.keywords if kw.arg == field), None)
    if given is None and position is not None and 0 <= position < len(value.args) and \
            not any(isinstance(a, ast.Starred) for a in value.args[:position + 1]):
        given = value.args[position]
    if isinstance(given, ast.Name) and stmt is not None:
        made = getattr(_binding_before(tree, parents, stmt, given.id), "value", None)
        return (str(file), made.lineno, made.col_offset + 1) if isinstance(made, ast.Call) else None
    if isinstance(given, ast.Call):
        return str(file), given.lineno, given.col_offset + 1
    return None


def function_around(file: str, line: int) -> str | None:
    """The name of the innermost function whose body holds ``line`` in ``file``, or None
    (module level, or a file that does not parse)."""
    tree = _tree(str(file))
    if tree is None:
        return None
    best = None
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.body and \
                n.body[0].lineno <= line <= (n.end_lineno or n.lineno):
            if best is None or n.lineno > best.lineno:
                best = n
    return best.name if best is not None else None


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


def _bound_by_callers(tree: ast.Module, parents: dict, at: ast.AST, name: str, depth: int = 2) -> ast.stmt | None:
    """``name``, a parameter of the plain function around ``at`` that nothing there binds
    before ``at``: the one statement that binds the argument every call of that function in
    the file passes for it (`y = jnp.array(0.0)` before `solve(y, solver)`, when `solve`
    calls the jitted step with its parameter `y`), following parameters up to ``depth``
    callers deep. None when a call passes something else, or the calls disagree."""
    fn = _scope(at, parents)
    if depth <= 0 or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            isinstance(parents.get(fn), ast.ClassDef):
        return None
    positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if name not in positional and name not in [a.arg for a in fn.args.kwonlyargs]:
        return None
    index = positional.index(name) if name in positional else -1
    found: list[ast.stmt] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == fn.name):
            continue
        arg = _argument(node, index, name)
        if not isinstance(arg, ast.Name):
            return None
        stmt = _binding_before(tree, parents, node, arg.id) or \
            _bound_by_callers(tree, parents, node, arg.id, depth - 1)
        if stmt is None:
            return None
        found.append(stmt)
    return found[0] if found and all(s is found[0] for s in found) else None


#: how many functions up :func:`_upstream` follows a parameter to its callers
_UPSTREAM = 4


def _upstream(tree: ast.Module, parents: dict, at: ast.AST, expr: ast.expr, depth: int) -> ast.stmt | None:
    """The statement that made the value of ``expr`` read at ``at``, wherever in the file's
    functions it was made: a plain name's binding before ``at`` in its scope; a parameter
    nothing there binds, through every call of its function in the file (a method's
    through ``self.<method>(...)`` in its class), up to ``depth`` functions up, when all of
    them agree; ``self.<attr>`` in a method, the statement before ``at`` in that method that
    sets it, else the one statement of the class's methods that sets it to anything but a
    constant (``self._optimizer = nnx.ModelAndOptimizer(...)`` in ``fit``, read back in
    ``_epoch``). None when the source does not say (a caller passes something else, two
    statements could have made it, code outside the class sets the attribute or calls the
    method)."""
    if isinstance(expr, ast.Name):
        return _binding_before(tree, parents, at, expr.id) or (
            _from_callers(tree, parents, at, expr.id, depth) if depth > 0 else None)
    fn = _scope(at, parents)
    cls = parents.get(fn)
    if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and isinstance(cls, ast.ClassDef)
            and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args
            and fn.args.args[0].arg == expr.value.id):
        return None
    line = getattr(at, "lineno", 0)
    before = [s for s in _in_scope(fn) if _sets(s, expr.value.id, expr.attr) and s.lineno < line]
    if before:
        return max(before, key=lambda s: (s.lineno, s.col_offset))
    if any(not _within(n, cls, parents) and not _own_attribute(n, parents) for n in ast.walk(tree)
           if isinstance(n, ast.Attribute) and n.attr == expr.attr and isinstance(n.ctx, ast.Store)):
        return None  # set from outside the class too (`est.opt = ...`): the class does not say
    made = [s for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.args.args
            for s in _in_scope(m) if _sets(s, m.args.args[0].arg, expr.attr)
            and not isinstance(getattr(s, "value", None), ast.Constant)]
    return made[0] if len(made) == 1 else None


def _own_attribute(target: ast.Attribute, parents: dict) -> bool:
    """Whether ``target`` is ``<first parameter>.<attr>`` in a method: another class's own
    attribute of that name (``self.opt`` of another class), not one set from outside."""
    fn = _scope(target, parents)
    return isinstance(target.value, ast.Name) and isinstance(parents.get(fn), ast.ClassDef) and \
        isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and bool(fn.args.args) and \
        fn.args.args[0].arg == target.value.id


def _within(node: ast.AST, outer: ast.AST, parents: dict) -> bool:
    """Whether ``node`` lies inside ``outer``."""
    while node in parents:
        node = parents[node]
        if node is outer:
            return True
    return False


def _sets(stmt: ast.stmt, owner: str, attr: str) -> bool:
    """Whether ``stmt`` assigns ``<owner>.<attr>`` (``self._optimizer = ...``)."""
    targets = list(stmt.targets) if isinstance(stmt, ast.Assign) else \
        [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    return any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
               and t.value.id == owner for t in targets)


def _from_callers(tree: ast.Module, parents: dict, at: ast.AST, name: str, depth: int) -> ast.stmt | None:
    """``name``, a parameter of the function around ``at``: the one statement that made
    what every call of that function in the file passes for it (:func:`_upstream` of each
    call's argument, one function further up). None when a call passes something the
    source does not follow, the calls disagree, or nothing calls it."""
    fn = _scope(at, parents)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if name not in positional and name not in [a.arg for a in fn.args.kwonlyargs]:
        return None
    cls = parents.get(fn)
    method = isinstance(cls, ast.ClassDef) and bool(positional) and not any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    index = positional.index(name) - (1 if method else 0) if name in positional else -1
    if index < -1 or (method and name == positional[0]):
        return None
    if method and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == fn.name
                      and not (cls is not None and _within(n, cls, parents)) for n in ast.walk(tree)):
        return None  # called from outside the class too (`est._epochs(opt)`): its callers are not all seen
    found: list[ast.stmt] = []
    for node in ast.walk(cls if method and isinstance(cls, ast.ClassDef) else tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if method:  # `self.<method>(...)` in one of the class's own methods
            caller = _scope(node, parents)
            if not (isinstance(f, ast.Attribute) and f.attr == fn.name and isinstance(f.value, ast.Name)
                    and isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)) and caller.args.args
                    and caller.args.args[0].arg == f.value.id):
                continue
        elif not (isinstance(f, ast.Name) and f.id == fn.name):
            continue
        arg = _argument(node, index, name)
        stmt = _upstream(tree, parents, node, arg, depth - 1) if arg is not None else None
        if stmt is None:
            return None
        found.append(stmt)
    return found[0] if found and all(s is found[0] for s in found) else None


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


def batched_at(file: str, line: int, callee: str, index: int, param: str) -> Where | None:
    """Where the batches passed as parameter ``param`` to ``callee(...)`` on ``line`` are
    made, when the argument is a name bound by the target of a ``for`` loop around the
    call whose iterable is (through ``zip``/``enumerate``, or a name bound to it before
    the loop) a call of a function of the same file: in that function, the loop around
    its ``yield`` (the loop that decides where each batch starts and ends), else the
    ``yield``; the ``return`` of a plain function. None when the source does not say."""
    for tree, parents, loop, name in _loops_around(file, line, callee, index, param):
        if isinstance(loop, (ast.For, ast.AsyncFor)) and _in_target(loop.target, name):
            source = _iterated(tree, parents, loop, loop.iter, name, loop.target)
            made = _maker(tree, source) if source is not None else None
            return (str(file), made.lineno, made.col_offset + 1) if made is not None else None
    return None


def _in_target(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _iterated(tree: ast.Module, parents: dict, loop: ast.AST, it: ast.expr, name: str,
              target: ast.expr) -> ast.Call | None:
    """The call whose items bind ``name`` in ``target``: ``it`` itself, the argument of a
    ``zip`` whose target element holds the name, the second of an ``enumerate``, or the
    call a plain name was bound to before the loop."""
    if isinstance(it, ast.Name):
        stmt = _binding_before(tree, parents, loop, it.id)
        value = getattr(stmt, "value", None)
        return value if isinstance(value, ast.Call) and not isinstance(stmt, ast.AugAssign) else None
    if not isinstance(it, ast.Call):
        return None
    wrapper = _callee(it)
    parts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else None
    if wrapper == "zip" and parts is not None and len(parts) == len(it.args):
        hits = [k for k, t in enumerate(parts) if _in_target(t, name)]
        return _iterated(tree, parents, loop, it.args[hits[0]], name, parts[hits[0]]) if len(hits) == 1 else None
    if wrapper == "enumerate" and parts is not None and len(parts) == 2 and it.args and _in_target(parts[1], name):
        return _iterated(tree, parents, loop, it.args[0], name, parts[1])
    return it


def _maker(tree: ast.Module, call: ast.Call) -> ast.stmt | ast.expr | None:
    """In the function of this file that ``call`` calls: the loop around its ``yield`` (of a
    generator), else the ``yield``, else its ``return``."""
    fn = _function(tree, _callee(call))
    if fn is None:
        return None
    parents = _parents(fn)
    yields = sorted((n for n in ast.walk(fn) if isinstance(n, (ast.Yield, ast.YieldFrom)) and _scope(n, parents) is fn),
                    key=lambda n: (n.lineno, n.col_offset))
    if not yields:
        returns = [s for s in _in_scope(fn) if isinstance(s, ast.Return) and s.value is not None]
        return returns[0] if len(returns) == 1 else None
    node: ast.AST = yields[0]
    while node in parents and node is not fn:
        node = parents[node]
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and not _endless(node):
            return node
    return yields[0]


def _endless(loop: ast.AST) -> bool:
    """``while True:`` (a generator's outer loop over epochs): not where batches end."""
    return isinstance(loop, ast.While) and isinstance(loop.test, ast.Constant) and bool(loop.test.value)


def host_rebound_at(file: str, line: int, callee: str, index: int, param: str) -> tuple[Where, str] | None:
    """(where, its source) of the one statement in a loop around the call ``callee(...)`` on
    ``line`` that rebinds the name passed as parameter ``param`` to what a call of NumPy
    returns (``eps = np.exp(np.mean(np.log(eps_list)))`` in a sampler's loop, where ``eps``
    started as a Python number): a NumPy scalar, which jit takes as a strong array where the
    Python number was weak. None when no loop rebinds it so, or more than one statement does."""
    for tree, _, loop, name in _loops_around(file, line, callee, index, param):
        aliases = _numpy_aliases(tree)
        found = [s for s in _in_scope(loop) if isinstance(s, ast.Assign) and len(s.targets) == 1
                 and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name and _numpy_call(s.value, aliases)]
        if len(found) == 1:
            text = ast.get_source_segment(source_text(str(file)) or "", found[0].value) or ""
            return (str(file), found[0].lineno, found[0].col_offset + 1), " ".join(text.split())
        if found:
            return None
    return None


def _numpy_aliases(tree: ast.Module) -> set[str]:
    """The names the file imports NumPy as (``np`` of ``import numpy as np``)."""
    return {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
            for a in n.names if a.name == "numpy"}


def _numpy_call(expr: ast.expr, aliases: set[str]) -> bool:
    """Whether ``expr`` is a call of a function of the NumPy module (``np.exp(...)``,
    ``np.float64(x)``, ``np.random.uniform()``): what it returns is a NumPy value."""
    if not isinstance(expr, ast.Call):
        return False
    f = expr.func
    while isinstance(f, ast.Attribute):
        f = f.value
    return isinstance(f, ast.Name) and f.id in aliases and f is not expr.func


#: how many bindings and returns :func:`_resolved` follows
_RESOLVE = 6


def _resolved(tree: ast.Module, parents: dict, expr: ast.expr, at: ast.AST, element: int | None,
              depth: int) -> ast.expr | None:
    """The expression that made the value of ``expr`` read at ``at`` (its ``element``-th
    item when not None): a name through the statement that bound it before ``at`` (an
    unpacking ``pinn, opt, state = init_trainer()`` by its position; at module level for a
    global a function reads), a call of a plain function of the file through its one
    ``return`` (``return pinn, optimizer, opt_state``, then ``pinn = init_pinn(key)`` in it),
    a tuple or list display by position; stops at anything else (a constructor call of
    a class of the file, a literal, a library's call). None when the source does not say
    (two returns, a starred unpacking, a name bound elsewhere)."""
    if depth < 0:
        return None
    if element is not None and isinstance(expr, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in expr.elts) or element >= len(expr.elts):
            return None
        return _resolved(tree, parents, expr.elts[element], at, None, depth - 1)
    if isinstance(expr, ast.Name):
        stmt = _binding_before(tree, parents, at, expr.id) or _global_binding(tree, parents, at, expr.id)
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
            return None
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            if isinstance(t, ast.Name) and t.id == expr.id:
                return _resolved(tree, parents, stmt.value, stmt, element, depth - 1)
            if isinstance(t, (ast.Tuple, ast.List)) and element is None and \
                    not any(isinstance(e, ast.Starred) for e in t.elts):
                at_ = [i for i, e in enumerate(t.elts) if isinstance(e, ast.Name) and e.id == expr.id]
                if at_:
                    return _resolved(tree, parents, stmt.value, stmt, at_[0], depth - 1)
        return None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and _class(tree, expr.func.id) is None:
        fn = _function(tree, expr.func.id)
        returns = [n for n in _in_scope(fn) if isinstance(n, ast.Return)] if fn is not None else []
        if len(returns) == 1 and returns[0].value is not None:
            return _resolved(tree, parents, returns[0].value, returns[0], element, depth - 1)
    return expr if element is None else None


def _global_binding(tree: ast.Module, parents: dict, at: ast.AST, name: str) -> ast.stmt | None:
    """For a name a function reads and never binds (a global), the one module-level
    statement that binds it; None when it is local, or bound more than once there."""
    fn = _scope(at, parents)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            any(_binds(s, name) for s in _in_scope(fn)) or \
            name in [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]:
        return None
    found = [s for s in _in_scope(tree) if _binds(s, name)]
    return found[0] if len(found) == 1 else None


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    return defs[0] if len(defs) == 1 else None


def attribute_made_at(file: str, line: int, callee: str, index: int, param: str,
                      fields: list[str]) -> tuple[Where, str] | None:
    """(where, the expression's source) of the value at ``fields`` (``["func",
    "out_scale"]``) of the object passed as parameter ``param`` to ``callee(...)`` on
    ``line``, when that object is built by a class of the same file (in the call, or on
    the statement that bound the name before it): each field's ``self.<field> = ...`` in
    the class's ``__init__`` (or its class-level default), followed through a
    constructor of another class of the file for the next field, through an ``__init__``
    parameter to the constructor's argument (or the parameter's default). None when the
    source does not say."""
    tree, call, arg = _the_call(file, line, callee, index, param)
    if call is None or not fields or arg is None:
        return None
    ctor = _resolved(tree, _parents(tree), arg, call, None, _RESOLVE)
    value: ast.expr | None = None
    for field in fields:
        cls = _class(tree, _callee(ctor)) if isinstance(ctor, ast.Call) else None
        if cls is None or not isinstance(ctor, ast.Call):
            return None
        value = _field_value(cls, ctor, field)
        ctor = value
    if value is None:
        return None
    text = ast.get_source_segment(source_text(str(file)) or "", value) or ""
    return (str(file), value.lineno, value.col_offset + 1), " ".join(text.split())


#: calls that declare an array's sharding where it is made (flax's metadata, jax's constraints)
_DECLARES = {"with_partitioning", "with_logical_partitioning", "with_sharding_constraint", "device_put", "reshard"}


def sharding_declared_at(file: str, fields: list[str]) -> tuple[Where, str] | None:
    """(where, its source) of the declaration that decides the sharding of the value at
    ``fields`` (``["down"]`` of ``model['down'].value``) of an object built by a class of
    ``file``: the one ``self.<field> = ...`` among the file's classes, for the deepest
    field that has one, whose value declares a sharding (a keyword naming one,
    ``out_sharding=``/``sharding=``, or a call such as ``nnx.with_partitioning``); the
    keyword's value or that call. None when no such assignment, or more than one, says."""
    tree = _tree(str(file))
    if tree is None:
        return None
    for field in reversed(fields):
        found: list[ast.keyword | ast.Call] = []
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for s in ast.walk(cls):
                if not isinstance(s, (ast.Assign, ast.AnnAssign)) or s.value is None:
                    continue
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                if any(isinstance(t, ast.Attribute) and t.attr == field and isinstance(t.value, ast.Name)
                       and t.value.id == "self" for t in targets):
                    found += [d for d in [_declaration(s.value)] if d is not None]
        if len(found) == 1:
            node = found[0]
            text = ast.get_source_segment(source_text(str(file)) or "", node) or ""
            return (str(file), node.lineno, node.col_offset + 1), " ".join(text.split())
        if found:
            return None
    return None


def _declaration(value: ast.expr) -> ast.keyword | ast.Call | None:
    """The keyword (``out_sharding=...``) or call (``nnx.with_partitioning(...)``) in
    ``value`` that declares a sharding, the outermost first; None when there is none."""
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg and "sharding" in kw.arg:
                    return kw
            if _callee(node) in _DECLARES:
                return node
    return None


def _class(tree: ast.Module, name: str) -> ast.ClassDef | None:
    found = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name]
    return found[0] if len(found) == 1 else None


def _field_value(cls: ast.ClassDef, ctor: ast.Call, field: str) -> ast.expr | None:
    """What the constructor call ``ctor`` of ``cls`` gives ``field``: the last
    ``self.<field> = value`` of its ``__init__``, a parameter of it resolved to the call's
    argument or its default; else the constructor's keyword ``field=`` (a dataclass) or the
    class-level default."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is not None:
        sets = [s for s in _in_scope(init) if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None
                and any(isinstance(t, ast.Attribute) and t.attr == field and isinstance(t.value, ast.Name)
                        and t.value.id == "self" for t in (s.targets if isinstance(s, ast.Assign) else [s.target]))]
        if not sets:
            return None
        value = max(sets, key=lambda s: (s.lineno, s.col_offset)).value
        if isinstance(value, ast.Name):
            return _parameter_value(init, ctor, value.id) or value
        return value
    for kw in ctor.keywords:
        if kw.arg == field:
            return kw.value
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == field:
            return stmt.value
    return None


def _parameter_value(init: ast.FunctionDef, ctor: ast.Call, name: str) -> ast.expr | None:
    """The argument ``ctor`` gives ``__init__``'s parameter ``name``, or its default."""
    params = [a.arg for a in init.args.args]
    if name not in params and name not in [a.arg for a in init.args.kwonlyargs]:
        return None
    for kw in ctor.keywords:
        if kw.arg == name:
            return kw.value
    if name in params:
        k = params.index(name) - 1  # `self`
        if 0 <= k < len(ctor.args) and not any(isinstance(a, ast.Starred) for a in ctor.args[:k + 1]):
            return ctor.args[k]
        defaults = init.args.defaults
        j = params.index(name) - (len(params) - len(defaults))
        return defaults[j] if 0 <= j < len(defaults) else None
    kw_index = [a.arg for a in init.args.kwonlyargs].index(name)
    return init.args.kw_defaults[kw_index]
