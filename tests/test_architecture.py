"""The layering DESIGN.md and STYLE.md ask for, read from the source itself: the engine
names no rule by code, and jax internals are touched only by the version adapter."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADAPTER = ROOT / "jaxlint" / "dynamic" / "adapter.py"
#: jax names that are private or change between versions without notice
PRIVATE = re.compile(r"^jax\._src\b|^jax\.interpreters\b|^jax\.core\b")
#: attributes of jax objects whose spelling is private (see the adapter's version table)
PRIVATE_ATTRS = {"debug_info", "pretty_print", "source_info_util"}


def _sources(*folders: str):
    for folder in folders:
        for p in sorted((ROOT / folder).rglob("*.py")):
            yield p, ast.parse(p.read_text(encoding="utf-8"), str(p))


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def test_the_engine_names_no_rule_by_its_code():
    found = []
    for path, tree in _sources("jaxlint"):
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                    and re.fullmatch(r"JAX[0-9]{3}", node.value)):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found, "declare a rule attribute instead:\n" + "\n".join(found)


def test_jax_internals_are_used_only_by_the_version_adapter():
    found = []
    for path, tree in _sources("jaxlint", "rules"):
        if path == ADAPTER:
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Attribute) and node.attr in PRIVATE_ATTRS:
                names = [f"<attr>.{node.attr}"]
            for n in names:
                if PRIVATE.match(n) or n.startswith("<attr>."):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {n}")
    assert not found, "move these behind jaxlint/dynamic/adapter.py:\n" + "\n".join(found)
