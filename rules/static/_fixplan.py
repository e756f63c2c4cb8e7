"""What the rules' fix plans share: names read on the ``ast`` model (which alias a module
is imported under, which names are free), so that each codemod only writes.

No libcst here: plans are made on every check, codemods only when a fix is computed.
"""
from __future__ import annotations

import ast
import builtins
import weakref

from jaxlint.static.data import by_imports
from jaxlint.static.semantic import FunctionInfo, ModuleModel, walk

#: Python's builtins and soft keywords a new name must not shadow.
_RESERVED = set(dir(builtins)) | {"match", "case", "type", "_"}
_USED: "weakref.WeakKeyDictionary[ModuleModel, frozenset[str]]" = weakref.WeakKeyDictionary()


_IMPORTED: "weakref.WeakKeyDictionary[ModuleModel, dict[str, list[str]]]" = weakref.WeakKeyDictionary()


def module_alias(model: ModuleModel, qual: str, fn: FunctionInfo | None) -> str | None:
    """A module-level name bound only by imports of ``qual`` (``jnp`` for ``jax.numpy``)
    that ``fn`` does not shadow, or None. The names are gathered once per module: a
    finding's plan costs the same beside 40,000 module constants as in a small module."""
    for local in _imported(model).get(qual, ()):
        if fn is None or model.lookup(local, fn)[0] is None:
            return local
    return None


def _imported(model: ModuleModel) -> dict[str, list[str]]:
    """module -> the module-level names bound only by imports of it, sorted."""
    found = _IMPORTED.get(model)
    if found is None:
        found = {}
        for local, bindings in model.module_bindings.items():
            qual = model.aliases.get(local)
            if qual is not None and by_imports(bindings):
                found.setdefault(qual, []).append(local)
        for names in found.values():
            names.sort()
        _IMPORTED[model] = found
    return found


def used_names(model: ModuleModel) -> frozenset[str]:
    """Every name bound or read anywhere in the module (computed once per module)."""
    names = _USED.get(model)
    if names is None:
        found = set(model.module_bindings)
        for f in model.functions:
            found.update(f.bindings)
            found.update(f.globals_ | f.nonlocals)
        found.update(n.id for n in model.nodes(ast.Name))
        found.update(model.classes)
        names = _USED[model] = frozenset(found)
    return names


def free_name(model: ModuleModel, base: str, taken: frozenset[str] | set[str] | None = None) -> str:
    """``base``, or ``base_2``, ``base_3``...: the first not used anywhere in the module."""
    taken = used_names(model) if taken is None else taken
    name, i = base, 2
    while name in taken or name in _RESERVED:
        name, i = f"{base}_{i}", i + 1
    return name


def free_local_name(model: ModuleModel, fn: FunctionInfo | None, base: str) -> str:
    """Like :func:`free_name`, for a new variable of ``fn``: free in it, in the functions
    nested in it, in the functions around it and at module level."""
    if fn is None:
        return free_name(model, base)
    taken = set(model.module_bindings)
    taken.update(n.id for n in walk(fn.node) if isinstance(n, ast.Name))
    outer: FunctionInfo | None = fn
    while outer is not None:
        taken.update(outer.bindings)
        outer = outer.parent
    for f in model.functions:
        if f is fn or any(a is fn.node for a in model.ancestors(f.node)):
            taken.update(f.bindings)
    return free_name(model, base, taken)


def import_name(model: ModuleModel, qual: str, fn: FunctionInfo | None, want: str) -> tuple[str, bool] | None:
    """How code in ``fn`` can name module ``qual``: (its alias, False) when imported,
    else (``want``, True) when ``want`` is free for a new ``import qual as want``."""
    alias = module_alias(model, qual, fn)
    if alias is not None:
        return alias, False
    if want not in used_names(model) and want not in _RESERVED:
        return want, True
    return None


def attribute_path(model: ModuleModel, qual: str, fn: FunctionInfo | None) -> tuple[str, str | None] | None:
    """A dotted expression for ``qual`` (``jax.random.split``) through the module's
    imports (``jr.split`` after ``import jax.random as jr``, ``jax.random.split`` after
    ``import jax``), and the module to import when none does (``jax``), or None."""
    parts = qual.split(".")
    for i in range(len(parts), 0, -1):
        alias = module_alias(model, ".".join(parts[:i]), fn)
        if alias is not None:
            return ".".join([alias, *parts[i:]]), None
    root = parts[0]
    if root not in used_names(model):
        return qual, root
    return None


def is_statement_list_member(model: ModuleModel, stmt: ast.AST) -> bool:
    """``stmt`` sits in a block (a module, function, loop, ``if``... body), so that
    statements can be put before it."""
    parent = model.parent(stmt) or model.tree
    return any(stmt in getattr(parent, f, ()) for f in ("body", "orelse", "finalbody"))


def block_holding(model: ModuleModel, stmt: ast.stmt) -> list[ast.stmt] | None:
    """The list of statements (a body, an ``else``, a ``finally``, the handlers) that
    holds ``stmt``; None when it sits elsewhere."""
    parent = model.parent(stmt) or model.tree
    for f in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, f, None)
        if isinstance(block, list) and any(x is stmt for x in block):
            return block
    return None
