"""What an observation rests on: the code it analysed, function by function.

An observation of ``jaxlint record`` is current while the code it analysed is
unchanged: the jitted function, every function its trace entered (from the trace's
source frames, callees in other files included), the lines its findings point at, and
the module-level constants those functions read. Each is a *scope* of a file, named so
that it is found again after unrelated edits move it:

* a function or method: its qualified name (``Trainer.step``, ``main.update``), its
  digest the sha256 of its source, decorators included; a name the file defines again
  is ``name#2``, ``name#3``... from its second definition on;
* a top-level statement that is not a function (a call in a script's loop, a
  constant): ``<stmt>@`` + the digest of its text;
* a class whose method the trace entered (a flax linen or nnx module, an equinox
  module, a dataclass): ``Cls.<class>``, the digest of its header (decorators, bases)
  and of the statements of its body that are not functions (field defaults); with it
  the class's ``__init__``, ``setup`` and ``__post_init__`` and the module constants all
  of these read. What the traced code reads of the instance is decided there: a field
  default raised from 512 to 1024, directly or through a constant, changes the program.

An edit elsewhere in the file, or in a file the trace never entered, leaves every
scope found with its digest: the observation is current, and its findings move with
the scopes they are in (:func:`moved`). An edit inside a scope makes the observations
resting on it stale. A notebook is one scope (the digest of its code cells).

Never imports jax.
"""
from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Scope:
    name: str
    line: int  # first line (the first decorator's)
    end: int
    digest: str


class FileScopes:
    """The scopes of one file's current text."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        try:
            self.tree: ast.Module | None = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            self.tree = None
        self.by_name: dict[str, Scope] = {}
        self._defs: list[tuple[int, int, Scope]] = []  # (start, end, scope) of every function
        self._top: list[tuple[int, int, ast.stmt]] = []
        #: qualname -> how many functions of that name were met so far
        self._count: dict[str, int] = {}
        #: qualname -> class definition
        self.classes: dict[str, ast.ClassDef] = {}
        if self.tree is None:
            return
        self._walk(self.tree.body, "")
        for stmt in self.tree.body:
            start = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
            self._top.append((start, stmt.end_lineno or stmt.lineno, stmt))
        #: module-level name -> the top-level statements that bind it
        self.binders: dict[str, list[ast.stmt]] = {}
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            self.binders.setdefault(n.id, []).append(stmt)

    def _walk(self, body: list[ast.stmt], prefix: str) -> None:
        for n in body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + n.name
                if isinstance(n, ast.ClassDef):
                    self.classes.setdefault(name, n)
                else:
                    start = min([n.lineno] + [d.lineno for d in n.decorator_list])
                    self._count[name] = self._count.get(name, 0) + 1
                    if self._count[name] > 1:  # defined again (a notebook's later cell): `name#2`, ...
                        name = f"{name}#{self._count[name]}"
                    scope = Scope(name, start, n.end_lineno or n.lineno, self._digest(start, n.end_lineno or n.lineno))
                    self.by_name.setdefault(name, scope)
                    self._defs.append((start, scope.end, scope))
                self._walk(n.body, name + ".")
            else:  # functions defined in an `if`/`try` block
                for field in ("body", "orelse", "finalbody", "handlers"):
                    sub = getattr(n, field, None)
                    if isinstance(sub, list) and sub and isinstance(sub[0], (ast.stmt, ast.excepthandler)):
                        self._walk([s for h in sub for s in (h.body if isinstance(h, ast.ExceptHandler) else [h])],
                                   prefix)

    def _digest(self, start: int, end: int) -> str:
        text = "\n".join(self.lines[start - 1:end])
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]

    def _stmt_scope(self, start: int, end: int) -> Scope:
        d = self._digest(start, end)
        return Scope(f"<stmt>@{d}", start, end, d)

    def at(self, line: int) -> Scope | None:
        """The innermost function containing ``line``, else its top-level statement."""
        best = None
        for start, end, scope in self._defs:
            if start <= line <= end and (best is None or start >= best.line):
                best = scope
        if best is not None:
            return best
        for start, end, _ in self._top:
            if start <= line <= end:
                return self._stmt_scope(start, end)
        return None

    def constants_read(self, scope: Scope) -> list[Scope]:
        """The top-level assignments of the names a function reads (its constants)."""
        if scope.name.startswith("<stmt>@") or self.tree is None:
            return []
        names = set()
        for n in ast.walk(self.tree):
            if (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                    and scope.line <= getattr(n, "lineno", 0) <= scope.end):
                names.add(n.id)
        out = []
        for name in sorted(names):
            for stmt in self.binders.get(name, []):
                out.append(self._stmt_scope(stmt.lineno, stmt.end_lineno or stmt.lineno))
        return out

    def class_scope(self, name: str) -> Scope | None:
        """``Cls.<class>``: the class's header and the statements of its body that are not
        functions (field defaults, class constants), digested together."""
        node = self.classes.get(name)
        if node is None:
            return None
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        header_end = node.body[0].lineno - 1 if node.body else node.end_lineno or node.lineno
        parts = ["\n".join(self.lines[start - 1:header_end])]
        for stmt in node.body:
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                parts.append("\n".join(self.lines[stmt.lineno - 1:stmt.end_lineno or stmt.lineno]))
        digest = hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:20]
        return Scope(f"{name}{_CLASS}", start, node.end_lineno or node.lineno, digest)

    def classes_read(self, scope: Scope) -> list[Scope]:
        """What a method's trace rests on in its class (and the classes around it): the
        class scope, its ``__init__`` / ``setup`` / ``__post_init__``, and the module
        constants these read."""
        out: list[Scope] = []
        parts = scope.name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            cls = ".".join(parts[:i])
            body = self.class_scope(cls)
            if body is None:
                continue
            made = [body] + [m for m in (self.by_name.get(f"{cls}.{f}") for f in _BUILDERS) if m is not None]
            for s in made:
                out.append(s)
                out.extend(self.constants_read(s))
        return out

    def find(self, name: str) -> Scope | None:
        if name.endswith(_CLASS):
            return self.class_scope(name[:-len(_CLASS)])
        if name.startswith("<stmt>@"):
            for start, end, _ in self._top:
                s = self._stmt_scope(start, end)
                if s.name == name:
                    return s
            return None
        return self.by_name.get(name)


_NOTEBOOK = "<notebook>"
#: a class's own scope: ``Cls.<class>``
_CLASS = ".<class>"
#: methods that decide what a traced method reads of its instance
_BUILDERS = ("__init__", "setup", "__post_init__")


def _read(path: Path) -> FileScopes | str | None:
    """A file's scopes; a notebook's code digest; None when it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if path.suffix == ".ipynb":
        from jaxlint.files.notebook import code_digest

        return code_digest(data)
    return FileScopes(data.decode("utf-8", "replace"))


class Reader:
    """The current scopes of the files observations rest on, each file read once."""

    def __init__(self) -> None:
        self._files: dict[str, FileScopes | str | None] = {}

    def file(self, path: Path) -> FileScopes | str | None:
        key = str(path)
        if key not in self._files:
            self._files[key] = _read(path)
        return self._files[key]

    def scopes(self, path: Path, lines: set[int]) -> dict[str, dict]:
        """The scopes of ``path`` that hold ``lines`` (and the constants they read), as
        an observation keeps them: ``{name: {"line", "end", "digest"}}``."""
        fs = self.file(path)
        if fs is None:
            return {}
        if isinstance(fs, str):
            return {_NOTEBOOK: {"line": 1, "end": 1, "digest": fs}}
        out: dict[str, dict] = {}
        for line in sorted(lines):
            scope = fs.at(line)
            if scope is None:
                continue
            for s in [scope, *fs.constants_read(scope), *fs.classes_read(scope)]:
                out.setdefault(s.name, {"line": s.line, "end": s.end, "digest": s.digest})
        return out

    def changed(self, path: Path, recorded: dict[str, dict]) -> tuple[list[str], dict[str, int]]:
        """(the recorded scopes of ``path`` that changed or are gone, how far each
        unchanged one moved: name -> lines)."""
        fs = self.file(path)
        if fs is None:
            return sorted(recorded) or ["(the file)"], {}
        if isinstance(fs, str):
            want = (recorded.get(_NOTEBOOK) or {}).get("digest")
            return ([] if want == fs else [_NOTEBOOK]), {}
        changed, moved = [], {}
        for name, rec in recorded.items():
            now = fs.find(name)
            if now is None or now.digest != rec.get("digest"):
                changed.append(name)
            else:
                moved[name] = now.line - int(rec.get("line") or now.line)
        return changed, moved


def moved(line: int, recorded: dict[str, dict], shifts: dict[str, int]) -> int:
    """Where a recorded line of a file is now: shifted as the innermost recorded scope
    that held it moved."""
    best = None
    for name, rec in recorded.items():
        start, end = int(rec.get("line") or 0), int(rec.get("end") or 0)
        if start <= line <= end and (best is None or start >= best[0]):
            best = (start, name)
    if best is None:
        return line
    return line + shifts.get(best[1], 0)
