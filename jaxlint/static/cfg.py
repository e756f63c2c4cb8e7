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

``first_read_after(model, stmt, name)`` asks a narrower question on the statements as
written: the first thing done with ``name`` after ``stmt`` on the way out of its blocks,
a read on any branch counting and a store on any branch ending the search; a buffer read
(``buffer_reads``) leaves out what a deleted array still answers (``x.shape``, ``len(x)``:
``METADATA``). ``loop_without_store`` is the loop around a statement that brings it back
with the name unchanged. (JAX113 asks them of a donated argument.)
"""
from __future__ import annotations

import ast
from collections import deque
from dataclasses import field
from typing import Callable, Iterator, cast

from jaxlint.records import FACTORY, dataclass
from jaxlint.static.scopes import FunctionInfo, Scopes, children, target_names, walk


@dataclass
class Block:
    """Statements that run one after the other, and the blocks that may run next."""

    stmts: list[ast.stmt] = field(default_factory=list)
    succ: list[int] = field(default_factory=list)
    #: the handlers an exception raised anywhere in the block may go to
    raises: list[int] = field(default_factory=list)

    # written out (made for each block of the checked code: see jaxlint.records.FACTORY)
    def __init__(self, stmts: list[ast.stmt] = FACTORY, succ: list[int] = FACTORY,
                 raises: list[int] = FACTORY) -> None:
        self.stmts = [] if stmts is FACTORY else stmts
        self.succ = [] if succ is FACTORY else succ
        self.raises = [] if raises is FACTORY else raises


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
        return [n for n, _ in self.reads_after_via(stmt, name, None)]

    def reads_after_via(self, stmt: ast.stmt, name: str, via: ast.stmt | None) -> list[tuple[ast.Name, bool]]:
        """``reads_after``, each read with whether a path to it from ``stmt`` runs the
        statement ``via`` on the way (``via`` itself included; ``stmt`` counts when it is
        ``via``): the reads of the value on the runs that also run ``via``."""
        at = self.where.get(id(stmt))
        if at is None:
            return []
        found: dict[tuple[int, bool], ast.Name] = {}
        seen: set[tuple[int, bool]] = set()
        queue: deque[tuple[int, int, bool]] = deque([(*at, stmt is via)])
        first = True
        while queue:
            block, start, passed = queue.popleft()
            stmts = self.blocks[block].stmts
            i = start + 1 if first else start
            first = False
            killed = False
            while i < len(stmts):
                s = stmts[i]
                passed = passed or s is via
                for n in _header_reads(s, name):
                    found[(id(n), passed)] = n
                if name in _header_binds(s):
                    killed = True
                    break
                i += 1
            # an exception may leave the block before its rebinding, with the value as it was
            onward = self.blocks[block].raises if killed else self.blocks[block].succ + self.blocks[block].raises
            for nxt in onward:
                if (nxt, passed) not in seen:
                    seen.add((nxt, passed))
                    queue.append((nxt, 0, passed))
        return [(n, passed) for (_, passed), n in found.items()]

    def reaches(self, a: ast.stmt, b: ast.stmt) -> bool:
        """Statement ``b`` may run after statement ``a`` (round a loop too); False when
        either is not in this graph."""
        at, to = self.where.get(id(a)), self.where.get(id(b))
        if at is None or to is None:
            return False
        if at[0] == to[0] and to[1] > at[1]:
            return True
        seen: set[int] = set()
        queue = deque(self.blocks[at[0]].succ + self.blocks[at[0]].raises)
        while queue:
            block = queue.popleft()
            if block in seen:
                continue
            if block == to[0]:
                return True
            seen.add(block)
            queue.extend(self.blocks[block].succ + self.blocks[block].raises)
        return False


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


BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers")


_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


#: what a deleted array still answers (its abstract value, kept on the Python object):
#: reading these after donation is no use of the buffer (checked with jax 0.10.2)
METADATA = frozenset({"shape", "dtype", "ndim", "size", "sharding", "nbytes", "itemsize", "aval", "weak_type"})


def metadata_read(n: ast.AST | None, is_it) -> bool:
    """``x.shape`` (and the other :data:`METADATA`) or ``len(x)``, ``is_it(x)`` true."""
    if isinstance(n, ast.Attribute) and n.attr in METADATA and isinstance(n.ctx, ast.Load):
        return is_it(n.value)
    return (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1
            and not n.keywords and is_it(n.args[0]))


def buffer_reads(node: ast.AST, name: str) -> Iterator[ast.Name]:
    """Reads of ``name``'s buffer in an expression or simple statement, not in nested
    scopes (its shape or dtype is no read of the buffer)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if metadata_read(n, lambda v: isinstance(v, ast.Name) and v.id == name):
            continue
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            yield n
        if isinstance(n, ast.Lambda) and n is not node:
            continue
        stack.extend(reversed(children(n)))


def binds_name(target: ast.AST, name: str) -> bool:
    return isinstance(target, ast.Name) and target.id == name or isinstance(target, (ast.Tuple, ast.List)) and any(
        binds_name(e.value if isinstance(e, ast.Starred) else e, name) for e in target.elts)


def stores_name(stmt: ast.stmt, name: str) -> bool:
    """Whether the statement itself (not its nested blocks) rebinds ``name``."""
    if isinstance(stmt, ast.Assign):
        return any(binds_name(t, name) for t in stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return binds_name(stmt.target, name)
    return False


def _first_event(node: ast.AST | list[ast.stmt], name: str) -> tuple[str, ast.AST] | None:
    """The first thing a statement does with ``name``: ("load", node), ("store", node), or None.
    Leaving the block (return, break...) counts as a store: nothing after it is reached.

    Branches: a read on any path is a read; a store on any path ends the search (the
    name may hold a fresh array there, so staying quiet is the safe answer).
    """
    if isinstance(node, list):
        for s in node:
            ev = _first_event(s, name)
            if ev is not None:
                return ev
        return None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        header = [*node.decorator_list, *getattr(node, "bases", ())]
        if not isinstance(node, ast.ClassDef):
            header += [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
        use = next((u for h in header for u in buffer_reads(h, name)), None)
        if use is not None:
            return "load", use
        return ("store", node) if node.name == name else None
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        if isinstance(node, ast.AugAssign) and binds_name(node.target, name):
            return "load", node.target
        value = node.value
        use = next(buffer_reads(value, name), None) if value is not None else None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            use = use or next((u for u in buffer_reads(t, name)), None)
        if use is not None:
            return "load", use
        return ("store", node) if stores_name(node, name) else None
    if isinstance(node, ast.Delete):
        if any(binds_name(t, name) for t in node.targets):
            return "store", node
    if isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        # the path leaves here: what follows is not "after the call" on this path
        use = next(buffer_reads(node, name), None)
        return ("load", use) if use is not None else ("store", node)
    head: list[ast.AST] = []
    blocks: list[list[ast.stmt]] = []
    if isinstance(node, (ast.For, ast.AsyncFor)):
        head = [node.iter]
        if binds_name(node.target, name):
            use = next(buffer_reads(node.iter, name), None)
            return ("load", use) if use is not None else ("store", node)
        blocks = [node.body, node.orelse]
    elif isinstance(node, (ast.While, ast.If)):
        head, blocks = [node.test], [node.body, node.orelse]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            use = next(buffer_reads(item.context_expr, name), None)
            if use is not None:
                return "load", use
            if item.optional_vars is not None and binds_name(item.optional_vars, name):
                return "store", node
        blocks = [node.body]
    elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        blocks = [node.body, *[h.body for h in node.handlers], node.orelse, node.finalbody]  # type: ignore[attr-defined]
    elif isinstance(node, ast.Match):
        head, blocks = [node.subject], [c.body for c in node.cases]
    else:
        use = next(buffer_reads(node, name), None)
        return ("load", use) if use is not None else None
    for h in head:
        use = next(buffer_reads(h, name), None)
        if use is not None:
            return "load", use
    events = [ev for b in blocks if (ev := _first_event(b, name)) is not None]
    load = next((ev for ev in events if ev[0] == "load"), None)
    return load or (events[0] if events else None)


def _rest_of_block(parent: ast.AST, cur: ast.AST) -> list[ast.stmt] | None:
    """The statements after ``cur`` in the block of ``parent`` that holds it, or None."""
    for part in BLOCK_FIELDS:
        seq = getattr(parent, part, None)
        if isinstance(seq, list) and cur in seq:
            return seq[seq.index(cur) + 1:]
    return None


def _outward(model: Scopes, stmt: ast.stmt,
             through_handlers: bool) -> Iterator[tuple[ast.AST, ast.AST, list[ast.stmt] | None]]:
    """The blocks around ``stmt`` on the way out of its function, innermost first: each
    compound statement (or the function) ``parent`` holding ``cur`` (``stmt`` or a
    compound statement around it), with the statements after ``cur`` in its block.
    ``through_handlers``: from an ``except`` handler, straight on to what follows its
    ``try``."""
    cur: ast.AST = stmt
    while True:
        parent = model.parent(cur)
        if parent is None:
            return
        yield parent, cur, _rest_of_block(parent, cur)
        if isinstance(parent, (*_NESTED_SCOPES, ast.Module)):
            return
        if through_handlers and isinstance(parent, ast.ExceptHandler):
            parent = model.parent(parent)
            if parent is None:
                return
        cur = parent


def first_read_after(model: Scopes, stmt: ast.stmt, name: str) -> ast.AST | None:
    """The first read of ``name`` after ``stmt`` on straight-line paths of its function."""
    for _, _, rest in _outward(model, stmt, through_handlers=True):
        ev = _first_event(rest, name) if rest is not None else None
        if ev is not None:
            return ev[1] if ev[0] == "load" else None
    return None


def loop_without_store(model: Scopes, stmt: ast.stmt, name: str) -> ast.For | ast.AsyncFor | ast.While | None:
    """The innermost loop around ``stmt`` (same function) that never rebinds ``name``
    and does not leave right after the call."""
    for parent, cur, rest in _outward(model, stmt, through_handlers=False):
        if rest is not None and any(isinstance(s, (ast.Return, ast.Break, ast.Raise)) for s in rest):
            return None
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and cur in parent.body:
            stored = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
                         for s in parent.body for n in walk(s))
            if isinstance(parent, (ast.For, ast.AsyncFor)) and binds_name(parent.target, name):
                stored = True
            return None if stored else parent
    return None


def name_reads(fn: FunctionInfo) -> tuple[dict[str, list[ast.AST]] | None, bool]:
    """The reads of each name in ``fn`` (nested functions included; ``x += 1`` reads
    ``x``), or None when it calls ``locals``/``vars``/``eval``; and whether it returns a
    value or yields."""
    returns = any(isinstance(n, (ast.Yield, ast.YieldFrom)) or isinstance(n, ast.Return) and n.value is not None
                  and not (isinstance(n.value, ast.Constant) and n.value.value is None) for n in fn.body_nodes())
    out: dict[str, list[ast.AST]] = {}
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("locals", "vars", "eval"):
            return None, returns
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            out.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id, []).append(node)
    return out, returns


#: The classes above each error jax raises on a tracer's concrete value (jax 0.10.2's MRO):
#: an ``except`` naming any of them (or a bare ``except``) catches it.
_CAUGHT_BY = {
    "TracerBoolConversionError": ("ConcretizationTypeError", "JAXTypeError", "TypeError"),
    "ConcretizationTypeError": ("JAXTypeError", "TypeError"),
    "TracerIntegerConversionError": ("JAXTypeError", "TypeError"),
}

_TRY_NODES: tuple[type[ast.Try], ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))  # except* from 3.11


def caught_in_function(model: Scopes, node: ast.AST, error: str) -> bool:
    """``node`` sits in the body of a ``try`` of its own function whose handler catches
    ``error`` (one of ``_CAUGHT_BY``'s jax errors) and does not raise again (no ``raise``
    among its statements): raising it there is handled on purpose, the handler's fallback
    runs instead (an ``if`` on a tracer, ``float(x)``)."""
    names = {error, *_CAUGHT_BY.get(error, ()), "Exception", "BaseException"}
    cur: ast.AST = node
    for a in model.ancestors(node):
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(a, _TRY_NODES) and any(cur is s for s in a.body):
            for h in a.handlers:
                if any(isinstance(s, ast.Raise) for s in h.body):
                    continue  # `except Exception: log(...); raise`: the trace still fails
                kinds = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
                if any(k is None or (isinstance(k, ast.Name) and k.id in names)
                       or (isinstance(k, ast.Attribute) and k.attr in names) for k in kinds):
                    return True
        cur = a
    return False


#: Conversions to a Python value and the error each raises on a tracer (jax 0.10.2), and
#: whether a differentiation transform's JVP tracer with a concrete primal raises it too.
_TRACER_CONVERSIONS = {
    "builtins.float": ("ConcretizationTypeError", True),
    "builtins.complex": ("ConcretizationTypeError", True),
    "builtins.int": ("ConcretizationTypeError", False),
    "builtins.bool": ("TracerBoolConversionError", False),
    "operator.index": ("TracerIntegerConversionError", True),
}


def _evaluated(expr: ast.AST) -> Iterator[ast.AST]:
    """The parts of ``expr`` that run whenever it runs: not a lambda's or comprehension's
    body, not an arm of a conditional expression, not an ``and``/``or`` operand past the
    first, not a chained comparison past its first pair."""
    yield expr
    if isinstance(expr, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return
    if isinstance(expr, ast.IfExp):
        parts: list[ast.AST] = [expr.test]
    elif isinstance(expr, ast.BoolOp):
        parts = [*expr.values[:1]]
    elif isinstance(expr, ast.Compare):
        parts = [expr.left, *expr.comparators[:1]]
    else:
        parts = list(children(expr))
    for part in parts:
        yield from _evaluated(part)


def eager_after_conversion(model: Scopes, fn: FunctionInfo, traced: Callable[[ast.expr], bool],
                           jvp_only: Callable[[], bool]) -> frozenset[int]:
    """The nodes of ``fn``'s body (by id) that run only after a conversion of a tracer to a
    Python value succeeded, so never under a trace: in a ``try:`` whose body converts a
    value ``traced`` says is surely a tracer (``rr = float(residual)``) in a statement of
    its own that always runs that conversion, and whose handler catches what jax raises
    there (``caught_in_function``), the statements after that one and the ``else:`` arm
    (``else: report(rr)``): under a trace the conversion raises, the handler runs, and
    the ``else:`` arm only runs when the body finished. ``jvp_only()``: ``fn`` is traced only
    by a differentiation transform applied eagerly, whose JVP tracers ``int()`` and
    ``bool()`` convert (only ``float()``, ``complex()`` and ``operator.index()`` raise);
    asked once, when a conversion is found."""
    out: set[int] = set()
    eager_grad: list[bool] = []

    def raises(part: ast.AST) -> bool:
        known = _conversion(model, part)
        if known is None or not caught_in_function(model, part, known[0]) \
                or not traced(cast(ast.Call, part).args[0]):
            return False
        if not known[1] and not eager_grad:
            eager_grad.append(jvp_only())
        return known[1] or not eager_grad[0]

    for node in fn.body_nodes():
        if not isinstance(node, _TRY_NODES):
            continue
        for i, stmt in enumerate(node.body):
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)):
                value = stmt.value
            elif isinstance(stmt, (ast.If, ast.While)):
                value = stmt.test
            else:
                continue
            if value is not None and any(raises(part) for part in _evaluated(value)):
                for dead in (*node.body[i + 1:], *node.orelse):
                    out.update(id(n) for n in walk(dead))
                break
    return frozenset(out)


def _conversion(model: Scopes, node: ast.AST) -> tuple[str, bool] | None:
    """``node`` is a call of one of ``_TRACER_CONVERSIONS`` on one plain argument: its entry."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords \
            or isinstance(node.args[0], ast.Starred):
        return None
    return _TRACER_CONVERSIONS.get(model.resolve_call(node) or "")
