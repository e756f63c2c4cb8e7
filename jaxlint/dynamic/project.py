"""Project layout for the dynamic phase: root, import names, imported project files.

Shared by the parent (planning, cache keys) and ``jaxlint record`` (keying recorded
functions), so both name a module the same way. Never imports jax.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import os
from pathlib import Path
from typing import Any, Callable

#: what marks a project's root; ``.jaxlint/`` is where `jaxlint record` writes, at the
#: root it chose, so a recorded folder with no other marker is found again by `check`
ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", ".jaxlint")


#: what this process knows of the project's files (the recorder's observer: its files and
#: notebook cells; a worker: what lies under its root), for the two library predicates of
#: the dynamic phase (``adapter.is_library_file``, ``compile.facts.is_library_path``): a
#: file it says is not the project's is a library's wherever it is installed (a folder on
#: PYTHONPATH, an editable install of a sibling checkout, ``pip --target``), not only in
#: site-packages
_OWN: list[Callable[[str], bool]] = []


def set_project(own: Callable[[str], bool] | None) -> None:
    """From now on a file ``own`` says is not the project's is a library's (None: only
    jax, jaxlib, jaxlint, the standard library and site-packages are)."""
    _OWN[:] = [own] if own is not None else []


def under_root(root: Any) -> Callable[[str], bool] | None:
    """The project's files as a worker knows them: those under ``root`` (None: unknown)."""
    if not root:
        return None
    base = os.path.realpath(str(root)) + os.sep

    @functools.lru_cache(maxsize=8192)
    def own(file: str) -> bool:
        return os.path.realpath(file).startswith(base)

    return own


def not_the_projects(path: str) -> bool:
    """True when this process knows the project's files and ``path`` is not one of them."""
    return bool(_OWN) and not _OWN[0](path)


def project_root(path: Path, config_root: Path | None = None) -> Path:
    """The config root, else the nearest directory with a project marker (pytest's
    rootdir rule), else the file's own directory."""
    path = path.resolve()
    if config_root is not None:
        root = config_root.resolve()
        if root == path or root in path.parents:
            return root
    for d in path.parents:
        if any((d / m).exists() for m in ROOT_MARKERS):
            return d
    return path.parent


def relative_path(path: str, root: Path) -> str:
    """``path`` relative to the project ``root`` in POSIX form; unchanged when outside it."""
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


def relative_finding(d: dict, root: Path) -> dict:
    """A finding (``Diagnostic.to_dict``) as a worker or the recorder's observer made it,
    its file and its related places absolute, with those paths relative to ``root``: the
    one conversion of paths at the dynamic phase's boundary. Paths cross into a worker in
    one form (its file and the root, absolute and resolved), come back in the form the
    cache and ``observed.json`` keep (root-relative, ``relative_path``; unchanged outside
    the project) and are shown in one place (``driver._display``)."""
    return dict(d, filename=relative_path(d["filename"], root),
                related=[dict(r, filename=relative_path(r["filename"], root)) for r in d.get("related", [])])


def import_roots(root: Path) -> list[Path]:
    """Directories to put on ``sys.path``: the root, and ``src/`` when the project uses it."""
    out = [root]
    if (root / "src").is_dir():
        out.insert(0, root / "src")
    return out


def module_name(path: Path, root: Path) -> tuple[str, Path]:
    """(dotted module name, the sys.path entry it is importable from)."""
    path = path.resolve()
    for base in import_roots(root):
        try:
            rel = path.relative_to(base)
        except ValueError:
            continue
        parts = list(rel.with_suffix("").parts)
        if parts and parts[-1] == "__init__":
            parts.pop()
        if parts and all(p.isidentifier() for p in parts):
            return ".".join(parts), base
    # not importable from the root: import it from its own package base (pytest's
    # "prepend" mode): climb while the directory is a package
    base = path.parent
    parts = [path.stem] if path.stem != "__init__" else []
    while (base / "__init__.py").exists() and base.parent != base:
        parts.insert(0, base.name)
        base = base.parent
    return ".".join(parts) or path.stem, base


def _resolve_import(name: str, roots: list[Path]) -> Path | None:
    rel = Path(*name.split("."))
    for base in roots:
        for cand in (base / rel.with_suffix(".py"), base / rel / "__init__.py"):
            if cand.is_file():
                return cand
    return None


def imported_project_files(path: Path, root: Path, modname: str, tree: ast.Module | None = None,
                           limit: int = 400) -> list[Path]:
    """Project files ``path`` imports, transitively (a cache key must change when they do)."""
    roots = import_roots(root)
    seen: dict[Path, None] = {}
    queue: list[tuple[Path, str, ast.Module | None]] = [(path.resolve(), modname, tree)]
    while queue and len(seen) < limit:
        p, mod, t = queue.pop()
        if t is None:
            try:
                t = ast.parse(p.read_bytes())
            except (OSError, SyntaxError, ValueError):
                continue
        package = mod if p.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(t):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = package.split(".") if package else []
                    pkg = pkg[: len(pkg) - (node.level - 1)] if node.level > 1 else pkg
                    base = ".".join(x for x in (*pkg, base) if x)
                names = [base] + [f"{base}.{a.name}" for a in node.names if base]
            for name in names:
                if not name:
                    continue
                f = _resolve_import(name, roots)
                if f is None:
                    continue
                f = f.resolve()
                if f not in seen and f != path.resolve():
                    seen[f] = None
                    queue.append((f, name, None))
    return sorted(seen)


def content_hash(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(os.fsencode(p))
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"<missing>")
    return h.hexdigest()
