"""Which modules do work when imported: ``check --dynamic`` does not run programs.

A worker of the dynamic phase imports a module to reach its jitted functions, so its
top-level code runs. A library module only defines things; a script trains, writes
files, downloads. Read with ``ast`` alone (nothing is imported): a module does work at
import when a top-level statement, outside ``if __name__ == "__main__":``, is one of

* a loop, a ``with`` block, a ``del``, an ``assert``, an ``await``;
* a call made as a statement (``train()``, ``np.save(...)``), except the configuration
  calls libraries are set up with (``jax.config.update``, ``warnings.filterwarnings``,
  ``logging.basicConfig``, ``matplotlib.use``, ``sys.path.insert``, a pytree
  registration, a seed);
* a call of a function the module defines in the test of a top-level ``if``.

An assignment is a constant whatever builds it (``W = np.random.randn(...)``, a
factory's jitted step, a config object).

Definitions, imports, constants, decorators, type annotations, a ``raise`` or
``sys.exit`` (a usage check: it ends the import), same-file example
calls (``f(jnp.ones((4, 8)))``: inputs for tracing) and ``try``/``if`` blocks made only
of those are not work. ``import-scripts = true`` in
``[tool.jaxlint.dynamic]`` imports such modules anyway.
"""
from __future__ import annotations

import ast
import sys

#: the last name of a call that configures a library rather than running the program
_SETUP_CALLS = frozenset({
    "update", "config_update", "filterwarnings", "simplefilter", "resetwarnings", "basicConfig", "getLogger",
    "setLevel", "addHandler", "disable", "captureWarnings", "use", "seed", "insert", "append", "extend",
    "setdefault", "set_printoptions", "set_matmul_precision", "initialize_cache", "set_cache_dir",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_dataclass", "register_static", "register", "install",
    "enable_x64", "disable_jit", "putenv", "set_default_device", "set_visible_devices",
})

#: the ``try`` statements (``try``/``except*`` is one of its own from Python 3.11 on)
if sys.version_info >= (3, 11):
    _TRY = (ast.Try, ast.TryStar)
else:
    _TRY = (ast.Try,)


def import_work(tree: ast.Module) -> tuple[int, str] | None:
    """(line, what) of the first top-level statement that does work at import, or None."""
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for stmt in tree.body:
        why = _work(stmt, defined)
        if why:
            return stmt.lineno, why
    return None


def _work(stmt: ast.stmt, defined: set[str]) -> str:
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass, ast.Global, ast.Nonlocal, ast.Raise)):
        return ""  # a raise ends the import (a usage check): nothing runs
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        # decorators and default values run at import: a decorator that runs the program is rare
        return ""
    if isinstance(stmt, ast.If):
        if _is_main_guard(stmt.test):
            return _first(stmt.orelse, defined)
        return _calls_own(stmt.test, defined) or _first(stmt.body, defined) or _first(stmt.orelse, defined)
    if isinstance(stmt, _TRY):
        return (_first(stmt.body, defined) or _first(stmt.orelse, defined) or _first(stmt.finalbody, defined)
                or next((w for h in stmt.handlers for w in [_first(h.body, defined)] if w), ""))
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return ""  # a constant, whatever builds it (a factory's jitted step, a config object)
    if isinstance(stmt, ast.Expr):
        if isinstance(stmt.value, ast.Constant):
            return ""  # a docstring
        if isinstance(stmt.value, ast.Call):
            if _example_call(stmt.value, defined):
                return ""  # `f(jnp.ones((4, 8)))`: the inputs the dynamic phase traces with
            own = _calls_own(stmt.value, defined)
            if own:
                return own
            name = _last_name(stmt.value.func)
            if _dotted(stmt.value.func) in ("sys.exit", "exit", "quit"):
                return ""  # ends the import, like a raise
            if name in _SETUP_CALLS or name.startswith(("set_", "register_", "enable_", "disable_")):
                return _calls_own(stmt, defined)
            return f"calls `{_dotted(stmt.value.func) or name or 'a function'}(...)`"
        return "evaluates an expression"
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
        return "runs a loop"
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return "runs a `with` block"
    return f"runs a `{type(stmt).__name__.lower()}` statement"


def _first(stmts: list[ast.stmt], defined: set[str]) -> str:
    for s in stmts:
        why = _work(s, defined)
        if why:
            return why
    return ""


def _calls_own(node: ast.AST, defined: set[str]) -> str:
    """A call of a function the module defines, outside nested functions and lambdas."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in defined:
            return f"calls `{n.func.id}(...)`, defined in it"
        todo.extend(ast.iter_child_nodes(n))
    return ""


#: array constructors whose literal arguments make an example call (docs/architecture.md, "Where trace inputs come from")
_CONSTRUCTORS = frozenset({"ones", "zeros", "empty", "full", "arange", "linspace", "eye", "array", "asarray"})


def _example_call(call: ast.Call, defined: set[str]) -> bool:
    """A same-file example call: a function the module defines, called with literals
    and array constructors of literals only."""
    if not (isinstance(call.func, ast.Name) and call.func.id in defined) or not (call.args or call.keywords):
        return False  # `main()` is the program

    def literal(n: ast.AST) -> bool:
        if isinstance(n, ast.Constant):
            return True
        if isinstance(n, (ast.Tuple, ast.List)):
            return all(literal(e) for e in n.elts)
        if isinstance(n, ast.UnaryOp):
            return literal(n.operand)
        if isinstance(n, ast.Call) and _last_name(n.func) in _CONSTRUCTORS:
            return all(literal(a) for a in n.args) and all(literal(k.value) for k in n.keywords)
        if isinstance(n, ast.Attribute):  # a dtype: jnp.float32
            return True
        return False

    return all(literal(a) for a in call.args) and all(literal(k.value) for k in call.keywords)


def _is_main_guard(test: ast.expr) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))


def _last_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _dotted(func: ast.expr) -> str:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
        return ".".join(reversed(parts))
    return ""
