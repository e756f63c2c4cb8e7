"""The other modules of the checked tree, read for what a module imports from them.

A function summary (``values.Summaries``) of a helper in another file of the tree is
what a rule sees when it asks what ``helper(x)`` returns, once the import is followed:
``from .utils import helper``, ``from pkg import mod; mod.f(x)``, ``import pkg.mod as
m; m.f(x)``, a name an ``__init__`` re-exports (up to ``MAX_HOPS`` re-exports), and a
name the module never binds that a star import of a module of the tree gives it
(``from .utils import *``: the module's ``__all__`` when it has one, else its public
names; a star import of a module outside the tree gives nothing known).
Classes are found the same way, for the fields they declare static, and module-level
constants (``Link.constant``: a name the other module binds once, by a plain assignment
at column 0), for the arrays a jitted function closes over.

Nothing is imported or run: a module is read and parsed with ``ast`` (a ``Scopes``
model, no jit map or tracing), once per process while its file is unchanged, and only
when a name asked for occurs in its text. What cannot be read gives nothing, which the
summaries take as unknown: a module outside the tree (the settings' root; a file checked
outside it has no tree at all), one that does not parse, one over ``MAX_BYTES``, and
anything past ``MAX_MODULES`` distinct modules for one checked file. Summaries of
another module are computed once per process (``values.Summaries``, with the modules
each one read), bounded in depth by ``Summaries.MAX_DEPTH`` across modules too.

A checked file's findings then depend on the modules it read: ``Link.used`` records
each (path relative to the root, digest of its bytes), and the static cache keeps that
set with the entry and throws the entry away when any of them has changed
(``jaxlint.static.runner``).
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from jaxlint.records import dataclass
from jaxlint.textutil import LazyPattern

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.scopes import FunctionInfo, Scopes

#: a module larger than this is not read (a generated file, not a helper module)
MAX_BYTES = 1 << 20
#: distinct modules one checked file may consult (a bound on the cost of one file). On
#: the speed corpus (1,014 files of jax, flax, optax, equinox, diffrax, chex; model51,
#: 2026-12-02) 83 files read another module, one file opens at most 26 (mean 0.45) and
#: none reaches the cap; a summary computed in another module counts against that
#: module's own link, and its depth against ``Summaries.MAX_DEPTH``
MAX_MODULES = 32
#: re-exports followed from the module a name is imported from (``pkg/__init__.py``)
MAX_HOPS = 2
#: module files a search of the whole tree for a word reads at most (``Link.mentioned_elsewhere``),
#: and the entries (files and folders of any kind) its listing visits at most: a larger tree
#: (a data folder of many files under the root) answers "mentioned", as does a file that
#: cannot be read
MAX_SCAN = 5000
MAX_LISTED = 100_000
#: folders a search of the whole tree does not enter: not the project's own code
_NOT_SCANNED = frozenset({"__pycache__", "node_modules", "site-packages"})

#: a line that starts a def or class (its name), or an import statement (its text,
#: parenthesised continuation lines included)
_OUTLINE = LazyPattern(rb"^[ \t]*(?:(?:async[ \t]+)?(def|class)[ \t]+(\w+)|(?:from[ \t]+\S+[ \t]+)?import\b"
                      rb"([^\n(]*(?:\([^)]*\))?[^\n]*))", re.M)
_WORD = LazyPattern(rb"\w+")
#: a line with a star import (``from .utils import *``): the module may take names from it
_STAR = LazyPattern(rb"^[ \t]*from[ \t]+\S+[ \t]+import[ \t]+\*", re.M)
#: a line that assigns to a name at column 0 (the name, and what follows ``=`` on the line)
_ASSIGN = LazyPattern(rb"^([A-Za-z_]\w*)[ \t]*(?::[^\n=]*)?=(?!=)([^\n]*)", re.M)

#: a dependency of a checked file: (path relative to the root, digest of its bytes)
Dep = tuple[str, str]
#: the path of the dependency on the tree's listing of module files (``SourceTree.listing``):
#: a search of the whole tree depends on which files there are, not only on their bytes
LISTING = ""


def digest(data: bytes) -> str:
    import hashlib  # here: a check that reads no other module of the tree does not load it

    return hashlib.sha256(data).hexdigest()[:16]


@dataclass(eq=False)
class Module:
    """One module file of the tree, read but not yet parsed."""

    tree: "SourceTree"
    path: Path
    data: bytes
    stamp: tuple[int, int, int]
    dep: Dep
    _scopes: "Scopes | None | bool" = field(default=False, repr=False)
    _names: tuple[frozenset[str], frozenset[str], frozenset[str]] | None = field(default=None, repr=False)
    _assigned: dict[str, list[bytes]] | None = field(default=None, repr=False)

    def mentions(self, name: str) -> bool:
        return name.encode() in self.data

    def defines(self, what: str, name: str) -> bool:
        """Whether a line of the module starts a ``def`` or ``class`` (``what``) ``name``,
        or (``what`` is ``"assign"``) a line at column 0 assigns to ``name``."""
        if what == "assign":
            return name in self.assigned()
        return name in self._outline()[0 if what == "def" else 1]

    def assigned(self) -> dict[str, list[bytes]]:
        """The names lines of the module assign to at column 0 (``N = 3``, ``W: A = ...``),
        each with the text after ``=`` on those lines: read from the text with one pass."""
        if self._assigned is None:
            self._assigned = {}
            for m in _ASSIGN().finditer(self.data):
                self._assigned.setdefault(m.group(1).decode("ascii", "replace"), []).append(m.group(2))
        return self._assigned

    def imports(self, name: str) -> bool:
        """Whether an import statement of the module may bind ``name`` (a re-export)."""
        return name in self._outline()[2]

    def stars(self) -> bool:
        """Whether a line of the module may be a star import (``from .utils import *``)."""
        return b"*" in self.data and _STAR().search(self.data) is not None

    def exports(self, name: str) -> bool:
        """Whether a star import of the module may give ``name``: named in its ``__all__``
        (a list or tuple of strings, assigned or added to at module level; any other form
        gives nothing known), or, without ``__all__``, a public name (no leading ``_``) a
        line of the module defines, assigns at column 0 or imports, or one of its own star
        imports may give."""
        if b"__all__" in self.data:
            scopes = self.scopes()
            if scopes is None:
                return False
            has_all, listed = public_names(scopes.tree)
            if has_all:
                return listed is not None and name in listed
        return not name.startswith("_") and (self.defines("def", name) or self.defines("class", name)
                                             or self.defines("assign", name) or self.imports(name) or self.stars())

    def _outline(self) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        """The names the module's lines define with ``def`` and ``class``, and the words
        of its import statements: read from the text with one pass, no parse."""
        if self._names is None:
            defs: set[str] = set()
            classes: set[str] = set()
            imported: set[str] = set()
            word = _WORD()
            for m in _OUTLINE().finditer(self.data):
                if m.group(1) == b"class":
                    classes.add(m.group(2).decode("ascii", "replace"))
                elif m.group(1) is not None:
                    defs.add(m.group(2).decode("ascii", "replace"))
                else:
                    imported.update(w.decode("ascii", "replace") for w in word.findall(m.group(3)))
            self._names = (frozenset(defs), frozenset(classes), frozenset(imported))
        return self._names

    def scopes(self) -> "Scopes | None":
        """The module's model (parsed on first use); None when it does not parse."""
        if self._scopes is False:
            from jaxlint.static.scopes import Scopes

            try:
                tree = ast.parse(self.data, filename=str(self.path))
                # (its link records what the module's own questions read: a checked file that
                # uses an answer of this module also depends on those modules)
                self._scopes = Scopes(tree, "", link=Link(self.tree, self.path))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._scopes = None
        return self._scopes  # type: ignore[return-value]


class SourceTree:
    """The module files under one root, read on demand and kept while unchanged."""

    _by_root: dict[Path, "SourceTree"] = {}

    def __init__(self, root: Path) -> None:
        self.root = root
        self._modules: dict[Path, Module] = {}
        self._files: list[Path] | None | bool = False

    @classmethod
    def of(cls, root: Path) -> "SourceTree":
        """The tree at ``root`` (one per root and process)."""
        try:
            root = root.resolve()
        except OSError:
            pass
        tree = cls._by_root.get(root)
        if tree is None:
            tree = cls._by_root[root] = cls(root)
        return tree

    def inside(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents

    def module(self, path: Path) -> Module | None:
        """The module at ``path`` (a file of the tree), reread when its file changed."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        known = self._modules.get(path)
        if known is not None and known.stamp == stamp:
            return known
        if st.st_size > MAX_BYTES or not self.inside(path):
            return None
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_BYTES:
            return None
        mod = Module(self, path, data, stamp, (self.rel(path), digest(data)))
        self._modules[path] = mod
        return mod

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def files(self) -> list[Path] | None:
        """The tree's module files (``*.py``, outside hidden folders and ``_NOT_SCANNED``),
        listed once per process; None past ``MAX_SCAN`` of them or ``MAX_LISTED`` entries."""
        if self._files is False:
            found: list[Path] = []
            listed = 0
            for folder, dirs, names in os.walk(self.root):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_SCANNED)
                found.extend(Path(folder, n) for n in sorted(names) if n.endswith(".py"))
                listed += len(dirs) + len(names)
                if len(found) > MAX_SCAN or listed > MAX_LISTED:
                    self._files = None
                    break
            else:
                self._files = found
        return self._files  # type: ignore[return-value]

    def listing(self) -> Dep:
        """The dependency on which module files the tree has (``files``): a file added or
        removed changes its digest."""
        files = self.files()
        names = "\n".join(self.rel(f) for f in files) if files is not None else "\0too large"
        return LISTING, digest(names.encode("utf-8", "surrogateescape"))

    def current(self, dep: Dep) -> bool:
        """Whether the file of ``dep`` still has the bytes it had (the listing: the same files)."""
        if dep[0] == LISTING:
            return self.listing() == dep
        mod = self.module(self.root / dep[0])
        return mod is not None and mod.dep[1] == dep[1]

    def module_file(self, folder: Path, parts: tuple[str, ...]) -> Path | None:
        """``folder/a/b.py`` or ``folder/a/b/__init__.py`` for parts ``(a, b)``; the
        folder's own ``__init__.py`` for no parts."""
        base = os.path.join(folder, *parts)
        for candidate in ((f"{base}.py",) if parts else ()) + (os.path.join(base, "__init__.py"),):
            if os.path.isfile(candidate):
                found = Path(candidate)
                return found if self.inside(found) else None
        return None

    def import_roots(self, path: Path) -> list[Path]:
        """Folders an absolute import of the file at ``path`` is looked up in: the one
        above its outermost package (within the root), the root, and ``root/src``."""
        top = path.parent
        while top != self.root and self.root in top.parents and (top / "__init__.py").is_file():
            top = top.parent
        return list(dict.fromkeys((top, self.root, self.root / "src")))


class Link:
    """How one module reaches the rest of its tree; for a checked file, also which of
    its modules the analysis read (``used``)."""

    def __init__(self, tree: SourceTree, path: Path, record: bool = True) -> None:
        self.tree = tree
        self.path = path
        self.used: dict[str, str] | None = {} if record else None
        self._found: dict[tuple, tuple[Module, str] | None] = {}
        self._star_deps: dict[tuple, set[Dep]] = {}  # the modules a star lookup read
        self._modules: set[Path] = set()
        self._roots: list[Path] | None = None

    def import_roots(self) -> list[Path]:
        if self._roots is None:
            self._roots = self.tree.import_roots(self.path)
        return self._roots

    @classmethod
    def for_file(cls, path: Path, root: Path, real: Path | None = None) -> "Link | None":
        """The link of a file checked under ``root``; None for a file outside it
        (``real``: ``path`` resolved, if known)."""
        tree = SourceTree.of(root)
        if real is not None:
            path = real
        else:
            try:
                path = path.resolve()
            except OSError:
                return None
        return cls(tree, path) if tree.inside(path) else None

    def use(self, deps: "set[Dep] | frozenset[Dep]") -> None:
        if self.used is not None:
            for rel, d in deps:
                self.used[rel] = d

    def _open(self, path: Path | None, deps: set[Dep]) -> Module | None:
        if path is None:
            return None
        if path not in self._modules and len(self._modules) >= MAX_MODULES:
            return None  # the bound on one file's cost
        mod = self.tree.module(path)
        if mod is not None:
            self._modules.add(path)
            deps.add(mod.dep)
        return mod

    def imported(self, model: "Scopes", name: str, scope: "FunctionInfo | None", attrs: tuple[str, ...],
                 deps: set[Dep], hops: int = 0) -> tuple[Module, str] | None:
        """The module of the tree and the name in it that ``name.attrs...`` read in
        ``scope`` of ``model`` refers to through one import binding, or None. Each module
        read on the way is added to ``deps``."""
        _, bindings = model.lookup(name, scope)
        if not bindings:
            return self._starred(model, name, attrs, deps)
        if len(bindings) != 1 or bindings[0].kind != "import":
            return None
        node = bindings[0].node
        key = (id(node), name, attrs)
        if key in self._found:
            found = self._found[key]
            if found is not None:
                deps.add(found[0].dep)
            return found
        found = self._imported(node, name, attrs, deps)
        self._found[key] = found
        return found

    def _starred(self, model: "Scopes", name: str, attrs: tuple[str, ...],
                 deps: set[Dep]) -> tuple[Module, str] | None:
        """The module of the tree and the name in it that ``name.attrs...``, never bound in
        ``model``, refers to through the module-level star imports of ``model`` (``from
        .utils import *``, ``from pkg.mod import *``): the last one whose module, a file of
        the tree, exports the name (``Module.exports``), as the last import binds it. Each
        module read is a dependency, those that do not export the name too (an edit may add
        it). A star import of a module outside the tree is passed over."""
        key = ("*", name, attrs)
        if key in self._found:
            deps |= self._star_deps.get(key, set())
            return self._found[key]
        stars = [n for n in model.nodes(ast.ImportFrom)
                 if any(a.name == "*" for a in n.names) and model.function_of(n) is None]
        read: set[Dep] = set()
        found: tuple[Module, str] | None = None
        for node in reversed(stars):
            parts = tuple(node.module.split(".")) if node.module else ()
            folders = self._folders(node)
            mod = next((m for m in (self._open(self.tree.module_file(f, parts), read) for f in folders)
                        if m is not None), None) if parts or node.level else None
            if mod is not None and mod.path != self.path and mod.exports(name):
                found = (mod, name) if not attrs else self._imported_attrs(mod, name, attrs, read)
                break
        deps |= read
        self._found[key], self._star_deps[key] = found, read
        return found

    def _imported_attrs(self, mod: Module, name: str, attrs: tuple[str, ...],
                        deps: set[Dep]) -> tuple[Module, str] | None:
        """``name.attrs...`` where ``name``, exported by ``mod``, is a module of the tree
        (``from .pkg import *`` giving a submodule ``ops``, read as ``ops.f``): that module
        and the name in it; None for anything else."""
        parts = (name, *attrs)
        for i in range(len(parts) - 1, 0, -1):
            sub = self._open(self.tree.module_file(mod.path.parent, parts[:i]), deps)
            if sub is not None:
                rest = parts[i:]
                return (sub, rest[0]) if len(rest) == 1 and sub.mentions(rest[0]) else None
        return None

    def _folders(self, node: ast.ImportFrom) -> list[Path]:
        """The folders the module of ``from X import ...`` is looked up in."""
        if not node.level:
            return self.import_roots()
        folder = self.path.parent
        for _ in range(node.level - 1):
            folder = folder.parent
        return [folder]

    def _imported(self, node: ast.AST, name: str, attrs: tuple[str, ...], deps: set[Dep]) -> tuple[Module, str] | None:
        alias = next((a for a in getattr(node, "names", ()) if (a.asname or a.name.split(".")[0]) == name), None)
        if alias is None:
            return None
        if isinstance(node, ast.Import):
            dotted = alias.name.split(".") if alias.asname else [alias.name.split(".")[0]]
            folders, parts = self.import_roots(), (*dotted, *attrs)
        elif isinstance(node, ast.ImportFrom):
            parts = (*(node.module.split(".") if node.module else ()), alias.name, *attrs)
            folders = self._folders(node)
        else:
            return None
        least = 0 if isinstance(node, ast.ImportFrom) and node.level else 1
        for folder in folders:
            for i in range(len(parts) - 1, least - 1, -1):
                mod = self._open(self.tree.module_file(folder, parts[:i]), deps)
                if mod is None:
                    continue
                rest = parts[i:]
                return (mod, rest[0]) if len(rest) == 1 and mod.mentions(rest[0]) else None
        return None

    def function(self, model: "Scopes", func: ast.expr, scope: "FunctionInfo | None",
                 deps: set[Dep]) -> "tuple[Module, FunctionInfo] | None":
        """The function of another module of the tree that ``func`` (a name or dotted
        attribute read in ``scope`` of ``model``) refers to through imports."""
        found = self._resolve(model, func, scope, deps, "def")
        if found is None:
            return None
        mod, scopes, name = found
        fn = scopes.function_named(name, None)
        return (mod, fn) if fn is not None else None

    def mentioned_elsewhere(self, word: str, deps: set[Dep]) -> bool:
        """Whether a module file of the tree other than this link's own may name ``word``
        (its text holds it), searched in every module of the tree (``SourceTree.files``):
        each module read is added to ``deps``, so an edit of any re-checks the file; a
        module added later is seen by a later process (the tree is listed once per
        process). True when the tree is too large to search or a module cannot be read:
        the answer "no" is a proof. The listing is a dependency too (``SourceTree.listing``):
        a module added to the tree re-checks the file."""
        files = self.tree.files()
        deps.add(self.tree.listing())
        if files is None:
            return True
        for path in files:
            if path == self.path:
                continue
            mod = self.tree.module(path)
            if mod is None:
                return True
            deps.add(mod.dep)
            if mod.mentions(word):
                return True
        return False

    def class_(self, model: "Scopes", name: str, deps: set[Dep],
               mentions: "Callable[[bytes], bool] | None" = None) -> "tuple[Scopes, str] | None":
        """The module model and name of the class of another module of the tree that the
        module-level name ``name`` of ``model`` is imported as. ``mentions``: a test of
        the class's module's text (no module that fails it is parsed)."""
        found = self._resolve(model, ast.Name(id=name), None, deps, "class", mentions)
        if found is None:
            return None
        _, scopes, cls = found
        return (scopes, cls) if cls in scopes.classes else None

    def constant(self, model: "Scopes", expr: ast.expr, scope: "FunctionInfo | None", deps: set[Dep],
                 mentions: "Callable[[bytes], bool] | None" = None) -> "tuple[Module, Scopes, ast.expr] | None":
        """The module, its model and the value of the module-level name of another module
        of the tree that ``expr`` (a name or dotted attribute read in ``scope`` of
        ``model``) refers to through imports (``from .data import TABLE``, ``data.TABLE``
        after ``from . import data``), when that module binds the name once, by a plain
        assignment at column 0 (``TABLE = np.ones(...)``): its value is then that
        expression, read in that module's model. None for anything else. ``mentions``: a
        test of the text after ``=`` on the assignment's line (no module whose
        assignment fails it is parsed: ``np.`` for a caller that wants arrays)."""
        def once(text: bytes) -> bool:  # (assigned at column 0 on more than one line: joined by a newline)
            return b"\n" not in text and (mentions is None or mentions(text))

        found = self._resolve(model, expr, scope, deps, "assign", once)
        if found is None:
            return None
        mod, scopes, name = found
        bindings = scopes.module_bindings.get(name, [])
        if len(bindings) != 1 or bindings[0].kind != "assign" or bindings[0].value is None:
            return None
        return mod, scopes, bindings[0].value

    def _resolve(self, model: "Scopes", func: ast.expr, scope: "FunctionInfo | None", deps: set[Dep],
                 what: str, mentions: "Callable[[bytes], bool] | None" = None) -> "tuple[Module, Scopes, str] | None":
        """The module, its model and the name in it of the ``what`` (``def``, ``class``
        or ``assign``) that ``func`` refers to. A module is parsed only when its text
        defines or imports that name (and matches ``mentions``: for ``assign``, the text
        assigned to it)."""
        attrs: list[str] = []
        while isinstance(func, ast.Attribute):
            attrs.append(func.attr)
            func = func.value
        if not isinstance(func, ast.Name):
            return None
        found = self.imported(model, func.id, scope, tuple(reversed(attrs)), deps)
        for hop in range(MAX_HOPS + 1):
            if found is None:
                return None
            mod, name = found
            # (a constant is followed through a package's `__init__` only: its re-exports are
            # the common case, and parsing every module that imports a name costs the most)
            reexport = hop < MAX_HOPS and (mod.imports(name) or mod.stars()) \
                and (what != "assign" or mod.path.name == "__init__.py")
            if not reexport and not (mod.defines(what, name) and (mentions is None or mentions(
                    b"\n".join(mod.assigned()[name]) if what == "assign" else mod.data))):
                return None
            scopes = mod.scopes()
            if scopes is None or scopes.link is None:
                return None
            bindings = scopes.module_bindings.get(name, [])
            # (a name bound there by an import, or bound nowhere there: taken by a star import)
            if not (len(bindings) == 1 and bindings[0].kind == "import" or not bindings) or not reexport:
                return mod, scopes, name
            # a re-export (`from .core import helper` in a package's __init__): follow it
            found = scopes.link.imported(scopes, name, None, (), deps)
        return None


def public_names(tree: ast.Module) -> tuple[bool, frozenset[str] | None]:
    """Whether a module has an ``__all__``, and the names it lists: its module-level
    assignments of a list or tuple of strings (``__all__ = [...]``, ``__all__ += (...)``,
    ``__all__: list[str] = [...]``) and ``__all__.extend([...])`` / ``.append("f")``; None
    when it gives it in another form (built by a loop, concatenated from another module's):
    its star import then gives nothing known."""
    names: set[str] = set()
    seen = False
    for stmt in tree.body:
        value: ast.expr | None = None
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
            value = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                and isinstance(stmt.value.func, ast.Attribute) and isinstance(stmt.value.func.value, ast.Name) \
                and stmt.value.func.value.id == "__all__" and stmt.value.func.attr in ("extend", "append") \
                and len(stmt.value.args) == 1:
            arg = stmt.value.args[0]
            value = ast.List(elts=[arg], ctx=ast.Load()) if stmt.value.func.attr == "append" else arg
        else:
            if any(isinstance(n, ast.Name) and n.id == "__all__" for n in ast.walk(stmt)):
                return True, None  # `__all__` made or changed some other way
            continue
        seen = True
        if not isinstance(value, (ast.List, ast.Tuple)) or not all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
            return True, None
        names.update(e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return seen, frozenset(names) if seen else None
