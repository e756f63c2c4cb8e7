"""A block-level control-flow view of one function body, and uses-after on it.

Rules that ask what happens to a value *after* a statement (a donated argument read
again, an update that nothing reads, a key drawn from again) need the paths the code can
take from there: into both arms of an ``if``, round a loop back to its header (where a
name rebound on every pass is no longer the value the first pass saw), out of a loop by
``break``, to the end by ``return``. ``ControlFlow`` is that graph, in basic blocks of
statements; a compound statement stands in its block for its header (the ``if`` test,
the ``for`` iterable and target, the ``while`` test, the ``with`` items).

``ControlFlow.reads_after(stmt, name)`` is the question: the reads of ``name`` that the
value ``name`` holds after ``stmt`` can reach, stopping on each path where a statement
binds ``name`` again (its own reads come first: ``x = f(x)`` reads the old ``x``).
Exceptions are approximated: a handler of a ``try`` is reachable from anywhere in its
body, before or after a rebinding there. Nested functions and classes are statements that bind their name; their bodies
are theirs.
"""
from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass, field

from jaxlint.static.scopes import target_names


@dataclass
class Block:
    """Statements that run one after the other, and the blocks that may run next."""

    stmts: list[ast.stmt] = field(default_factory=list)
    succ: list[int] = field(default_factory=list)
    #: the handlers an exception raised anywhere in the block may go to
    raises: list[int] = field(default_factory=list)


class ControlFlow:
    """The blocks of one statement list (a function's body)."""

    def __init__(self, body: list[ast.stmt]) -> None:
        self.blocks: list[Block] = []
        #: where each statement stands: (block, index in it)
        self.where: dict[int, tuple[int, int]] = {}
        self.entry = self._new()
        self.exit = self._new()
        end = self._seq(body, self.entry, [])
        if end is not None:
            self._link(end, self.exit)

    # ------------------------------------------------------------------ building
    def _new(self) -> int:
        self.blocks.append(Block())
        return len(self.blocks) - 1

    def _link(self, a: int, b: int) -> None:
        if b not in self.blocks[a].succ:
            self.blocks[a].succ.append(b)

    def _put(self, block: int, stmt: ast.stmt) -> None:
        self.where[id(stmt)] = (block, len(self.blocks[block].stmts))
        self.blocks[block].stmts.append(stmt)

    def _seq(self, stmts: list[ast.stmt], cur: int, loops: list[tuple[int, int]]) -> int | None:
        """Lay ``stmts`` out from block ``cur``; the block control reaches after them
        (None: no path gets past them). ``loops``: (header, after) of the loops around."""
        for s in stmts:
            if isinstance(s, ast.If):
                self._put(cur, s)
                then_b, else_b, join = self._new(), self._new(), self._new()
                self._link(cur, then_b)
                self._link(cur, else_b)
                ends = [self._seq(s.body, then_b, loops), self._seq(s.orelse, else_b, loops)]
                for e in ends:
                    if e is not None:
                        self._link(e, join)
                if all(e is None for e in ends):
                    return None
                cur = join
            elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                head, body_b, else_b, after = self._new(), self._new(), self._new(), self._new()
                self._link(cur, head)
                self._put(head, s)
                self._link(head, body_b)
                forever = isinstance(s, ast.While) and isinstance(s.test, ast.Constant) and bool(s.test.value)
                if not forever:
                    self._link(head, else_b)  # the loop may end (or never run)
                body_end = self._seq(s.body, body_b, loops + [(head, after)])
                if body_end is not None:
                    self._link(body_end, head)
                else_end = self._seq(s.orelse, else_b, loops)
                if else_end is not None:
                    self._link(else_end, after)
                cur = after
            elif isinstance(s, (ast.Break, ast.Continue)):
                self._put(cur, s)
                if loops:
                    head, after = loops[-1]
                    self._link(cur, after if isinstance(s, ast.Break) else head)
                return None
            elif isinstance(s, (ast.Return, ast.Raise)):
                self._put(cur, s)
                self._link(cur, self.exit)
                return None
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                self._put(cur, s)
                end = self._seq(s.body, cur, loops)
                if end is None:
                    return None
                cur = end
            elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
                body_b = self._new()
                self._link(cur, body_b)
                first = len(self.blocks)
                body_end = self._seq(s.body, body_b, loops)  # type: ignore[attr-defined]
                inside = [body_b, *range(first, len(self.blocks))]
                join = self._new()
                handlers = []
                for h in s.handlers:  # type: ignore[attr-defined]
                    hb = self._new()
                    for b in inside:  # an exception may leave the body anywhere
                        if hb not in self.blocks[b].raises:
                            self.blocks[b].raises.append(hb)
                    handlers.append(self._seq(h.body, hb, loops))
                if body_end is not None:
                    else_b = self._new()
                    self._link(body_end, else_b)
                    handlers.append(self._seq(s.orelse, else_b, loops))  # type: ignore[attr-defined]
                for e in handlers:
                    if e is not None:
                        self._link(e, join)
                if not any(e is not None for e in handlers) and not s.finalbody:  # type: ignore[attr-defined]
                    return None
                end = self._seq(s.finalbody, join, loops)  # type: ignore[attr-defined]
                if end is None:
                    return None
                cur = end
            elif isinstance(s, ast.Match):
                self._put(cur, s)
                join = self._new()
                self._link(cur, join)  # no case may match
                for case in s.cases:
                    cb = self._new()
                    self._link(cur, cb)
                    end = self._seq(case.body, cb, loops)
                    if end is not None:
                        self._link(end, join)
                cur = join
            else:
                self._put(cur, s)
        return cur

    # ------------------------------------------------------------------ queries
    def reads_after(self, stmt: ast.stmt, name: str) -> list[ast.Name]:
        """The reads of ``name`` that its value after ``stmt`` reaches, in no particular
        order: on every path from ``stmt``, up to a statement that binds it again (whose
        own reads still count). A loop brings a path back to its header, and so to
        ``stmt`` itself: its reads count when no statement of the loop rebinds the name."""
        at = self.where.get(id(stmt))
        if at is None:
            return []
        found: dict[int, ast.Name] = {}
        seen: set[int] = set()
        queue: deque[tuple[int, int]] = deque([at])
        first = True
        while queue:
            block, start = queue.popleft()
            stmts = self.blocks[block].stmts
            i = start + 1 if first else start
            first = False
            killed = False
            while i < len(stmts):
                s = stmts[i]
                for n in _header_reads(s, name):
                    found[id(n)] = n
                if name in _header_binds(s):
                    killed = True
                    break
                i += 1
            # an exception may leave the block before its rebinding, with the value as it was
            onward = self.blocks[block].raises if killed else self.blocks[block].succ + self.blocks[block].raises
            for nxt in onward:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, 0))
        return list(found.values())


def _header(s: ast.stmt) -> list[ast.AST]:
    """The parts of ``s`` that its block runs: all of a simple statement, the header of a
    compound one (its body's statements stand in blocks of their own)."""
    if isinstance(s, (ast.If, ast.While)):
        return [s.test]
    if isinstance(s, (ast.For, ast.AsyncFor)):
        return [s.iter, s.target]
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return list(s.items)
    if isinstance(s, ast.Match):
        return [s.subject]
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []  # its body runs later; what it closes over is its own question
    if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
        return []
    return [s]


def _header_reads(s: ast.stmt, name: str) -> list[ast.Name]:
    out = []
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id == name:
        out.append(s.target)  # `x += 1` reads `x` first
    for part in _header(s):
        for n in ast.walk(part):
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                out.append(n)
    return out


def _header_binds(s: ast.stmt) -> set[str]:
    """The names ``s`` binds where its block runs it."""
    if isinstance(s, ast.Assign):
        return {n for t in s.targets for n in target_names(t)}
    if isinstance(s, (ast.AnnAssign, ast.AugAssign)) and isinstance(s.target, ast.Name):
        return {s.target.id} if not isinstance(s, ast.AnnAssign) or s.value is not None else set()
    if isinstance(s, (ast.For, ast.AsyncFor)):
        return set(target_names(s.target))
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return {n for item in s.items if item.optional_vars is not None for n in target_names(item.optional_vars)}
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {s.name}
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in s.names}
    if isinstance(s, ast.Delete):
        return {n for t in s.targets for n in target_names(t)}
    return set()
