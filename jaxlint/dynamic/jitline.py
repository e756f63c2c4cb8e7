"""The jit line of a traced function as the user wrote it, and that line with arguments
made static: what a finding says to write there (``jax.jit(example_fun,
static_argnames='length')``). Reads the source only; never imports jax."""
from __future__ import annotations

import ast
import copy
from typing import Sequence

#: a remedy longer than this is said as the keyword to add, not as the whole call
_LONGEST = 100


def jit_node(tree: ast.Module | None, line: int, column: int) -> ast.expr | None:
    """The decorator expression or the ``jax.jit(...)`` call that the static jit map's entry
    at ``line``/``column`` (1-based) names, or None."""
    if tree is None or not line:
        return None
    found = [n for n in ast.walk(tree) if isinstance(n, (ast.Call, ast.Attribute, ast.Name))
             and n.lineno == line and n.col_offset == column - 1]
    calls = [n for n in found if isinstance(n, ast.Call)]
    # `jax.jit(f)` and its callee `jax.jit` start at one column: the call is the jit
    return (calls or found or [None])[0]


def with_static(tree: ast.Module, node: ast.expr, names: Sequence[str], decorator: bool) -> tuple[str, str] | None:
    """(the jit as it should be written, the keyword alone) with ``names`` added to its
    ``static_argnames``; None when the line's own ``static_argnames`` is no literal to add to."""
    value = _names_node(names)
    if isinstance(node, ast.Call):
        new = copy.deepcopy(node)
        kw = next((k for k in new.keywords if k.arg == "static_argnames"), None)
        if kw is not None:
            given = _literal_strs(kw.value)
            if given is None:
                return None
            kw.value = _names_node(list(given) + [n for n in names if n not in given])
            value = kw.value
        else:
            new.keywords.append(ast.keyword(arg="static_argnames", value=value))
        text = ast.unparse(new)
    else:  # a bare decorator (`@jax.jit`): a partial of it takes the keyword
        text = f"{_partial_name(tree)}({ast.unparse(node)}, static_argnames={ast.unparse(value)})"
    keyword = f"static_argnames={ast.unparse(value)}"
    if decorator:
        text = "@" + text
    return (text if len(text) <= _LONGEST else ""), keyword


def _names_node(names: Sequence[str]) -> ast.expr:
    if len(names) == 1:
        return ast.Constant(names[0])
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def _literal_strs(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def _partial_name(tree: ast.Module) -> str:
    """``partial`` when the module imports it from functools, else ``functools.partial``."""
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module == "functools" and any(
                a.name == "partial" and a.asname is None for a in n.names):
            return "partial"
    return "functools.partial"
