"""Scopes and name resolution: the first part of the static model of a module.

``Scopes`` walks the module once and records every node's parent and scope, every
function (``FunctionInfo``) and the names each scope binds (``Binding``), and resolves
names through imports and simple aliases (``from jax import jit as J``,
``jit = jax.jit``) to fully qualified names, never by matching text. It answers *where
was this name bound?*, *what does this name refer to?*, *which module function does
this call run?*.

The other parts build on it: the jit map (``jitmap.EntryFinder``) finds the jitted
functions, ``traced.Tracing`` which functions run under a trace and why, and
``values`` what kind of thing an expression is. ``semantic.ModuleModel`` puts them
together.

Why ``ast`` and not libcst for analysis: on the benchmark corpus libcst's parser took
about 17x as long as ``ast.parse`` and its position metadata about as long again
(``benchmarks/bench_parsers.py``); the static phase has to run on every keystroke and
every commit. Fixes are text edits on 1-based line/character positions (see
``jaxlint.fix.apply``), as in ruff.
"""
from __future__ import annotations

import ast
import bisect
from typing import Any, Callable, Iterable, Iterator, TypeVar, overload

from jaxlint.static.apis import (ARRAY_ANNOTATIONS, BUILTINS, DIFF_TRANSFORMS, JIT_LIKE, LINEN_LIFTED,
                                 FOREIGN_ARRAY_MODULES, NOT_ARRAY_ANNOTATIONS, OWN_LEADING_ARGUMENTS,
                                 TRACING_HOFS)

from jaxlint.static.data import (Binding, FunctionInfo, Model, ModuleLink, Param, Reason,  # noqa: F401 (the model's data)
                                by_imports)

_UNKNOWN = object()
#: node classes a parser creates (no subclasses below them): nodes() indexes these by type
#: a node type :meth:`Scopes.nodes` is asked for, and what it returns
_Node = TypeVar("_Node", bound=ast.AST)
_CONCRETE_NODES = frozenset(
    c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST) and not c.__subclasses__()
)
_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
#: The fields that hold context and operator nodes, which are shared singletons in a
#: parsed tree (one ``Load()`` for all): they have no one parent or scope, so the
#: model's own walks skip them, and with them a third of all nodes.
_SINGLETON_FIELDS = ("ctx", "op", "ops")
_LEAVES = frozenset({ast.Name, ast.Constant})
#: what the model's walk does with a node of each class (``Scopes._collect``): most are
#: expressions it only records and descends into (not in the table)
_LEAF, _BINDS, _FUNCTION, _CLASS = 1, 2, 3, 4
_COLLECT: dict[type, int] = {
    **dict.fromkeys(_LEAVES, _LEAF),
    # the nodes that bind names (``Scopes._record_binding``)
    **dict.fromkeys((ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.AugAssign,
                     ast.For, ast.AsyncFor, ast.comprehension, ast.With, ast.AsyncWith, ast.NamedExpr,
                     ast.ExceptHandler), _BINDS),
    ast.FunctionDef: _FUNCTION, ast.AsyncFunctionDef: _FUNCTION, ast.Lambda: _FUNCTION, ast.ClassDef: _CLASS,
}
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _SINGLETON_FIELDS)  # type: ignore[attr-defined]
    return fields


def children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` in field order, less the context/operator singletons:
    the children every walk of the model visits (``walk``, ``Scopes._collect``)."""
    out: list[ast.AST] = []
    for name in _CHILD_FIELDS.get(node.__class__) or _child_fields(node.__class__):
        value = getattr(node, name, None)
        if value.__class__ is list:
            out.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            out.append(value)
    return out


def walk(tree: ast.AST, by_type: dict[type, list[ast.AST]] | None = None) -> list[ast.AST]:
    """``list(ast.walk(tree))`` less the context/operator singletons, in the same
    (breadth-first) order, about twice as fast. ``by_type`` receives the nodes by class.
    Names and constants, half the nodes, have no children: they are listed, not read."""
    out: list[ast.AST] = [tree]
    append = out.append
    leaves, node_class, fields_of = _LEAVES, ast.AST, _CHILD_FIELDS.get
    group = by_type.get if by_type is not None else None
    for node in out:  # the list grows while it is read: that is the queue
        cls = node.__class__
        if group is not None:
            same = group(cls)
            if same is None:
                by_type[cls] = [node]  # type: ignore[index]  # group is by_type's
            else:
                same.append(node)
        if cls in leaves:
            continue
        for name in fields_of(cls) or _child_fields(cls):
            value = getattr(node, name, None)
            if value.__class__ is list:
                for v in value:
                    if isinstance(v, node_class):
                        append(v)
            elif isinstance(value, node_class):
                append(value)
    return out


def _params(args: ast.arguments) -> list[Param]:
    out: list[Param] = []
    positional = list(args.posonlyargs) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (a, d) in enumerate(zip(positional, defaults)):
        out.append(Param(a.arg, i, "positional", d, a.annotation, a))
    if args.vararg:
        out.append(Param(args.vararg.arg, None, "vararg", None, args.vararg.annotation, args.vararg))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(Param(a.arg, None, "keyword", d, a.annotation, a))
    if args.kwarg:
        out.append(Param(args.kwarg.arg, None, "kwarg", None, args.kwarg.annotation, args.kwarg))
    return out


def target_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            yield from target_names(e)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


class Scopes:
    """The scopes of one module and the names they bind, resolved."""

    def __init__(self, tree: ast.Module, module_name: str = "", link: ModuleLink | None = None) -> None:
        self.tree = tree
        self.module_name = module_name
        #: how the module reaches the other modules of its tree (``jaxlint.static.tree``),
        #: or None: a module checked on its own (outside its root, a test)
        self.link = link
        self.parents: dict[ast.AST, ast.AST] = {}
        self.functions: list[FunctionInfo] = []
        self._fn_by_node: dict[int, FunctionInfo] = {}
        self.module_bindings: dict[str, list[Binding]] = {}
        self.aliases: dict[str, str | None] = {}  # local name -> qualified name (None: ambiguous)
        self.classes: dict[str, ast.ClassDef] = {}
        self._scope_of: dict[ast.AST, FunctionInfo | None] = {}
        #: per statement list (by id): each statement's index, and where each name is assigned
        self._blocks: dict[int, tuple[list[ast.stmt], dict[int, int], dict[str, list[int]]]] = {}
        #: per bindings list (by id and length): the bindings' positions in source order
        self._sorted: dict[tuple[int, int], tuple[list[int], list[tuple[int, int]]]] = {}
        self._walk: tuple[ast.AST, ...] | None = None  # see nodes()
        self._by_type: dict[type, tuple[ast.AST, ...]] = {}
        self._attr_classes: dict[tuple[str, str], str | None] | None = None
        self._attr_functions: dict[tuple[str, str], FunctionInfo | None] | None = None
        #: (class, attribute) -> leading parameters a stored transform of a bound method fills
        #: itself (``self._step_fn = jax.pmap(self._step)``: 1, the instance)
        self._attr_implicit: dict[tuple[str, str], int] = {}
        #: per call: what ``resolve_call`` answered (see there)
        self._call_targets: dict[ast.Call, str | None] = {}
        #: what ``runs.unused_wrapper`` works out once for the module: the names it reads
        #: anywhere (and its ``__all__`` lists), and the functions it calls directly (by id)
        self.module_reads: set[str] | None = None
        self.called_directly: set[int] | None = None
        #: ``runs.never_given``'s answers, by (id of the function, callable's name, bound)
        self.never_given_memo: dict[tuple[int, str, int], set[str] | None] = {}
        self._collect()

    # ------------------------------------------------------------------ collection
    def _collect(self) -> None:
        """The model's walk of the module: depth-first in source order (children are pushed
        reversed), so bindings, functions and aliases are recorded in the order the code
        makes them (``jit = jax.jit`` after ``import jax`` resolves). It records each node's
        parent and scope, and each function's own body (``FunctionInfo.body_nodes``).

        Stack items: (node, enclosing function, enclosing class name, qualname prefix, the
        body list the node belongs to: its function's own body, or None outside one and in
        a class body). Names and constants (half the nodes) have no children and bind
        nothing: outside a function body they are recorded without going through the stack.
        """
        # (node, function, class, qualname prefix, body) tuples, and the bare leaves of a
        # function's body pushed as they are (the hot loop of the model: no tuple for them)
        stack: list[Any] = [(self.tree, None, None, "", None)]
        parents, scope_of, collect = self.parents, self._scope_of, _COLLECT
        lambda_count = 0
        while stack:
            item = stack.pop()
            if item.__class__ in _LEAVES:  # a name or constant in a function's body
                scope_of[item]._body.append(item)  # type: ignore[union-attr, index, arg-type]  # a leaf in a body
                continue
            node, fn, cls, prefix, body = item  # type: ignore[misc]
            scope_of[node] = fn
            if body is not None:
                body.append(node)
            kind = collect.get(node.__class__, 0)  # 0: an expression to record and descend into
            if kind == _LEAF:
                continue
            if kind == _FUNCTION:
                if isinstance(node, ast.Lambda):
                    lambda_count += 1
                    name = "<lambda>"
                else:
                    name = node.name
                    self._bind(fn, Binding(name, node, None, "def"))
                qual = f"{prefix}{name}"
                info = FunctionInfo(node, name, qual, fn, None, _params(node.args))
                info._body = []
                for p in info.params:
                    info.bindings.setdefault(p.name, []).append(Binding(p.name, p.node, None, "param"))
                self.functions.append(info)
                self._fn_by_node[id(node)] = info
                # decorators / defaults are evaluated in the enclosing scope
                outer = []
                if not isinstance(node, ast.Lambda):
                    outer.extend(node.decorator_list)
                outer.extend(node.args.defaults)
                outer.extend(d for d in node.args.kw_defaults if d is not None)
                mark = len(stack)
                for a in outer:
                    parents[a] = node
                    stack.append((a, fn, cls, prefix, body))
                own = [node.body] if isinstance(node, ast.Lambda) else node.body
                for param in (node.args.posonlyargs + node.args.args + node.args.kwonlyargs):
                    parents[param] = node
                for child in own:
                    parents[child] = node
                    stack.append((child, info, None, f"{qual}.<locals>.", info._body))
                stack[mark:] = stack[:mark - 1:-1] if mark else stack[::-1]
                continue
            if kind == _CLASS:
                self._bind(fn, Binding(node.name, node, None, "class"))
                if fn is None and cls is None:
                    self.classes[node.name] = node
                mark = len(stack)
                # decorators and bases run in the enclosing scope (and body); keywords in
                # the scope only; the class body belongs to no function's body
                for a in node.decorator_list + node.bases:
                    parents[a] = node
                    stack.append((a, fn, cls, prefix, body))
                for k in node.keywords:
                    parents[k.value] = node
                    stack.append((k.value, fn, cls, prefix, None))
                for child in node.body:
                    parents[child] = node
                    stack.append((child, None if fn is None else fn, node.name, f"{prefix}{node.name}.", None))
                stack[mark:] = stack[:mark - 1:-1] if mark else stack[::-1]
                continue
            if kind == _BINDS:  # the table spares the rest (most of the tree) a long isinstance chain
                self._record_binding(node, fn)
            mark = len(stack)
            # the children: the one field table every walk of the model reads (_CHILD_FIELDS)
            for name in _CHILD_FIELDS.get(node.__class__) or _child_fields(node.__class__):
                value = getattr(node, name, None)
                if value.__class__ is list:
                    for child in value:
                        if isinstance(child, ast.AST):
                            parents[child] = node
                            if child.__class__ in _LEAVES:
                                scope_of[child] = fn
                                if body is not None:
                                    stack.append(child)
                            else:
                                stack.append((child, fn, cls, prefix, body))
                elif isinstance(value, ast.AST):
                    parents[value] = node
                    if value.__class__ in _LEAVES:
                        scope_of[value] = fn
                        if body is not None:
                            stack.append(value)
                    else:
                        stack.append((value, fn, cls, prefix, body))
            if len(stack) - mark > 1:
                stack[mark:] = stack[:mark - 1:-1] if mark else stack[::-1]
        # the class of a method: methods are functions whose parent node is a ClassDef
        for info in self.functions:
            parent = parents.get(info.node)
            info.class_name = parent.name if isinstance(parent, ast.ClassDef) else None

    def _bind(self, fn: FunctionInfo | None, b: Binding) -> None:
        table = self.module_bindings if fn is None else fn.bindings
        if fn is not None and (b.name in fn.globals_):
            table = self.module_bindings
        table.setdefault(b.name, []).append(b)

    def _record_binding(self, node: ast.AST, fn: FunctionInfo | None) -> None:
        if isinstance(node, ast.Global) and fn is not None:
            fn.globals_.update(node.names)
        elif isinstance(node, ast.Nonlocal) and fn is not None:
            fn.nonlocals.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if isinstance(node, ast.Import):
                    local = alias.asname or alias.name.split(".")[0]
                    qual = alias.name if alias.asname else alias.name.split(".")[0]
                else:
                    if node.level or node.module is None:
                        local = alias.asname or alias.name
                        qual = f"{'.' * node.level}{node.module or ''}.{alias.name}".replace("..", ".") if node.module else None  # type: ignore[assignment]
                    else:
                        local = alias.asname or alias.name
                        qual = f"{node.module}.{alias.name}"
                if alias.name == "*":
                    continue
                self._bind(fn, Binding(local, node, None, "import"))
                self._add_alias(local, qual)
        elif isinstance(node, ast.Assign):
            single = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            for t in node.targets:
                if isinstance(t, ast.Name):
                    # `x = v`, and each name of `a = b = v`
                    self._bind(fn, Binding(t.id, node, node.value, "assign"))
                elif isinstance(t, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)) \
                        and len(t.elts) == len(node.value.elts) \
                        and not any(isinstance(e, ast.Starred) for e in (*t.elts, *node.value.elts)):
                    # `H, W = 64, 32`: each name gets its own element
                    for e, v in zip(t.elts, node.value.elts):
                        for name in target_names(e):
                            self._bind(fn, Binding(name, node, v if isinstance(e, ast.Name) else None, "assign"))
                else:
                    for name in target_names(t):
                        self._bind(fn, Binding(name, node, None, "assign"))
            if single and fn is None:
                q = self._qualname_no_scope(node.value)
                if q is not None and isinstance(node.value, (ast.Name, ast.Attribute)):
                    self._add_alias(node.targets[0].id, q)  # type: ignore[attr-defined]  # single: one Name
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            self._bind(fn, Binding(node.target.id, node, node.value, "assign"))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            self._bind(fn, Binding(node.target.id, node, None, "other"))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            for name in target_names(node.target):
                self._bind(fn, Binding(name, node, None, "for"))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    for name in target_names(item.optional_vars):
                        self._bind(fn, Binding(name, node, None, "with"))
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            self._bind(fn, Binding(node.target.id, node, node.value, "assign"))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self._bind(fn, Binding(node.name, node, None, "other"))

    def _add_alias(self, local: str, qual: str | None) -> None:
        if local in self.aliases and self.aliases[local] != qual:
            self.aliases[local] = None
        else:
            self.aliases[local] = qual

    def _qualname_no_scope(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            q = self.aliases.get(node.id)
            return q
        if isinstance(node, ast.Attribute):
            base = self._qualname_no_scope(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    # ------------------------------------------------------------------ queries
    @overload
    def nodes(self) -> tuple[ast.AST, ...]: ...

    @overload
    def nodes(self, kind: type[_Node], /) -> tuple[_Node, ...]: ...

    @overload
    def nodes(self, *types: type) -> tuple[ast.AST, ...]: ...

    def nodes(self, *types: type) -> tuple[ast.AST, ...]:
        """Every node of the module in ``ast.walk`` order (less the shared context and
        operator singletons such as ``ast.Load()``), or those of the given node types.
        The walk is done once per module and shared (hence tuples): use this in rules,
        not ``ast.walk(ctx.tree)``, which costs as much as building the model."""
        if self._walk is None:
            by_type: dict[type, list[ast.AST]] = {}
            self._walk = tuple(walk(self.tree, by_type))
            self._by_type = {k: tuple(v) for k, v in by_type.items()}
        if not types:
            return self._walk
        if len(types) == 1 and types[0] in _CONCRETE_NODES:
            return self._by_type.get(types[0], ())
        return tuple(n for n in self._walk if isinstance(n, types))

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(node)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        p = self.parents.get(node)
        while p is not None:
            yield p
            p = self.parents.get(p)

    def statement_of(self, node: ast.AST, stop_at: tuple[type, ...] = ()) -> ast.stmt | None:
        """The statement that holds ``node`` (``node`` itself when it is one), or None when
        an enclosing node of a type in ``stop_at`` (a lambda, a comprehension, a nested
        scope) comes first: ``node`` is then not that statement's business."""
        if isinstance(node, ast.stmt):
            return node
        for a in self.ancestors(node):
            if stop_at and isinstance(a, stop_at):  # before: a def is a statement too
                return None
            if isinstance(a, ast.stmt):
                return a
        return None

    def function_of(self, node: ast.AST) -> FunctionInfo | None:
        """The innermost function whose own body contains ``node``."""
        # the collection walk recorded the scope of every node it visited; nodes it does
        # not visit (parameters, annotations) take the walk up the parents
        scope = self._scope_of.get(node, _UNKNOWN)
        if scope is not _UNKNOWN:
            return scope  # type: ignore[return-value]
        for a in self.ancestors(node):
            info = self._fn_by_node.get(id(a))
            if info is not None:
                # decorators/defaults belong to the outer scope
                if _is_in_header(a, node, self):
                    continue
                return info
        return None

    def function_info(self, node: ast.AST) -> FunctionInfo | None:
        """The model of a ``def`` or ``lambda`` node."""
        return self._fn_by_node.get(id(node))

    def traced_function_of(self, node: ast.AST) -> FunctionInfo | None:
        fn = self.function_of(node)
        return fn if fn is not None and fn.traced else None

    def lookup(self, name: str, fn: FunctionInfo | None) -> tuple[FunctionInfo | None, list[Binding]]:
        """Where ``name`` read in ``fn`` is bound: (scope or None for module, bindings)."""
        scope = fn
        first = True
        while scope is not None:
            if name in scope.globals_:
                break
            if name in scope.bindings and (first or not isinstance(scope.node, ast.ClassDef)):
                return scope, scope.bindings[name]
            scope = scope.parent
            first = False
        return None, self.module_bindings.get(name, [])

    def inside(self, node: ast.AST, container: ast.AST) -> bool:
        """``node`` is ``container`` or lies within it."""
        return node is container or any(a is container for a in self.ancestors(node))

    def imported(self, expr: ast.AST, fn: FunctionInfo | None) -> bool:
        """Whether the name ``expr`` starts with (``np`` of ``np.random.rand``, ``sample``)
        is bound, where it is read in ``fn``, by imports only: the one question rules ask
        of an imported name before reading its module (``values.imported_constant``)."""
        return self.import_bindings(expr, fn) is not None

    def import_bindings(self, expr: ast.AST, fn: FunctionInfo | None) -> tuple[FunctionInfo | None, list[Binding]] | None:
        """``imported``, with the scope that binds the name and its import bindings
        (``lookup``'s answer), or None when the name is not bound by imports only."""
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        owner, bindings = self.lookup(expr.id, fn)
        return (owner, bindings) if by_imports(bindings) else None

    def reaching_bindings(self, name: ast.Name, fn: FunctionInfo | None) -> list[Binding]:
        """:meth:`iter_reaching` as a list, in the order the bindings were made."""
        where = {id(b): n for n, b in enumerate(self.lookup(name.id, fn)[1])}
        return sorted(self.iter_reaching(name, fn), key=lambda b: where[id(b)])

    def iter_reaching(self, name: ast.Name, fn: FunctionInfo | None) -> Iterator[Binding]:
        """The bindings of ``name`` (read in ``fn``) that may hold when it is read: those
        before it in the source, and those after it in a loop around it (they reach the
        next iteration). A statement's own binding does not reach its own reads
        (``x = f(x)`` reads the old ``x``) unless a loop brings it back."""
        _, bindings = self.lookup(name.id, fn)
        stop = fn.node if fn is not None else None
        chain = list(_until(self.ancestors(name), stop))
        loops = [a for a in chain if isinstance(a, (ast.For, ast.AsyncFor, ast.While))]
        at = (name.lineno, name.col_offset)
        # the last assignment on the way to the read that every path passes (a statement
        # before it in one of the blocks around it): earlier bindings are overwritten
        cut: tuple[int, int] = (0, -1)
        child: ast.AST = name
        for a in (*chain, stop) if stop is not None else chain:
            for field in ("body", "orelse", "finalbody"):
                block = getattr(a, field, None)
                if isinstance(block, list):
                    index, assigned = self._block(block)
                    i = index.get(id(child))
                    before = assigned.get(name.id, []) if i is not None else []
                    k = bisect.bisect_left(before, i) if i is not None else 0
                    if k:  # the last assignment to the name before the read in this block
                        st = block[before[k - 1]]
                        cut = max(cut, (st.lineno, st.col_offset))
            child = a
        # only bindings between the cut and the read, or inside the outermost loop around
        # it, can reach the read: looked up by position, not each binding of the name read
        # (in source order, lazily: a caller that needs one binding of a kind stops there)
        order, positions = self._in_order(bindings)
        ranges = [(bisect.bisect_left(positions, cut), bisect.bisect_left(positions, at))]
        if loops:
            outer = loops[-1]
            span = ((outer.lineno, outer.col_offset),
                    (outer.end_lineno or outer.lineno, outer.end_col_offset or outer.col_offset))
            ranges.append((bisect.bisect_left(positions, span[0]), bisect.bisect_right(positions, span[1])))
        chain_ids = {id(a) for a in chain}
        loop_ids = {id(loop) for loop in loops}
        ranges.sort()
        done = ranges[0][0]
        for lo, hi in ranges:
            for k in range(max(lo, done), hi):
                b = bindings[order[k]]
                if self._reaches(b, at, cut, chain_ids, loop_ids):
                    yield b
            done = max(done, hi)

    def _reaches(self, b: Binding, at: tuple[int, int], cut: tuple[int, int], chain_ids: set[int],
                 loop_ids: set[int]) -> bool:
        """Whether ``b`` reaches the read at ``at`` (see :meth:`iter_reaching`)."""
        node = b.node
        pos = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) if b.kind != "param" else (0, 0)
        in_loop = bool(loop_ids) and any(id(a) in loop_ids for a in self.ancestors(node))
        if in_loop and pos >= at:
            return True  # later in a loop around the read: reaches the next iteration
        if pos < at and pos >= cut and id(node) not in chain_ids:
            return True
        return id(node) in chain_ids and in_loop  # `x = f(x)` in a loop: the previous iteration's value

    def _block(self, block: list[ast.stmt]) -> tuple[dict[int, int], dict[str, list[int]]]:
        """A statement list's index of each statement (by id), and, per name, the indexes
        of the assignments (``=``, annotated, and unpacking ``a, b = ...``) to it, read
        once per list."""
        got = self._blocks.get(id(block))
        if got is None or got[0] is not block:
            assigned: dict[str, list[int]] = {}
            for i, st in enumerate(block):
                if isinstance(st, (ast.Assign, ast.AnnAssign)):
                    for whole in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                        # `a, b = f()` rebinds each name it unpacks to, as `a = f()` does
                        names = [whole] if isinstance(whole, ast.Name) else [
                            e.value if isinstance(e, ast.Starred) else e for e in whole.elts
                        ] if isinstance(whole, (ast.Tuple, ast.List)) else []
                        for t in names:
                            if isinstance(t, ast.Name) and (not assigned.get(t.id) or assigned[t.id][-1] != i):
                                assigned.setdefault(t.id, []).append(i)
            got = self._blocks[id(block)] = (block, {id(st): i for i, st in enumerate(block)}, assigned)
        return got[1], got[2]

    def _in_order(self, bindings: list[Binding]) -> tuple[list[int], list[tuple[int, int]]]:
        """The indexes of ``bindings`` sorted by source position, and those positions."""
        key = (id(bindings), len(bindings))
        got = self._sorted.get(key)
        if got is None:
            pos = [(getattr(b.node, "lineno", 0), getattr(b.node, "col_offset", 0)) if b.kind != "param" else (0, 0)
                   for b in bindings]
            order = sorted(range(len(bindings)), key=lambda n: pos[n])
            got = self._sorted[key] = (order, [pos[n] for n in order])
        return got

    def resolve(self, node: ast.AST, at: ast.AST | None = None) -> str | None:
        """The fully qualified name an expression refers to, through imports and aliases.

        ``at`` is the node whose scope is used (defaults to ``node``): a name that is a
        local variable or parameter there does not resolve.
        """
        if isinstance(node, ast.Name):
            scope = self.function_of(at or node)
            owner, bindings = self.lookup(node.id, scope)
            if owner is not None:
                if by_imports(bindings):
                    return self.aliases.get(node.id)
                if len(bindings) == 1 and bindings[0].kind == "param":
                    # what every caller passes it, or its default (`xnp=np`): ``callers``
                    from jaxlint.static.callers import Callers
                    return Callers.of(self).qualname(owner, node.id)
                return None
            if bindings:
                if by_imports(bindings) or node.id in self.aliases:
                    return self.aliases.get(node.id)
                return None
            if node.id in BUILTINS:
                return f"builtins.{node.id}"
            return None
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value, at or node)
            return f"{base}.{node.attr}" if base else None
        return None

    def resolve_call(self, call: ast.Call) -> str | None:
        """``resolve`` of the call's target, in the call's scope: worked out once per call
        and kept (the jit map, the tracing and most rules ask it of every call they read).
        The answer depends on the model alone, which does not change once collected,
        except while a parameter's qualified name is being worked out
        (``Callers.resolving``): then it is worked out anew and not kept."""
        callers = self.__dict__.get("_callers")
        if callers is not None and callers.resolving():
            return self.resolve(call.func, call)
        q = self._call_targets.get(call, _UNKNOWN)
        if q is _UNKNOWN:
            q = self._call_targets[call] = self.resolve(call.func, call)
        return q  # type: ignore[return-value]

    def function_named(self, name: str, scope: FunctionInfo | None) -> FunctionInfo | None:
        """The function a bare name refers to, if it is a def in this module, also when
        the name is rebound to a transform of itself (``f = jax.jit(f)``)."""
        owner, bindings = self.lookup(name, scope)
        defs = [b for b in bindings if b.kind == "def"]
        if len(defs) == 1 and (len(bindings) == 1 or all(b is defs[0] or self.rewraps(b) for b in bindings)):
            return self._fn_by_node.get(id(defs[0].node))
        return None

    def rewraps(self, b: Binding) -> bool:
        """Whether ``b`` rebinds a name to a transform of what it held: ``f = jax.jit(f)``,
        ``loss = eqx.filter_jit(loss)``, ``f = jax.jit(jax.vmap(f), ...)``. A call of the
        name still runs the same function, traced."""
        if b.kind != "assign" or not isinstance(b.value, ast.Call):
            return False
        expr: ast.expr = b.value
        for _ in range(4):
            if not (isinstance(expr, ast.Call) and expr.args):
                return False
            q = self.resolve_call(expr)
            if not (q in JIT_LIKE or q in DIFF_TRANSFORMS or q in TRACING_HOFS):
                return False
            expr = expr.args[0]
            if isinstance(expr, ast.Name):
                return expr.id == b.name
        return False

    def method_named(self, class_name: str | None, name: str) -> FunctionInfo | None:
        if class_name is None:
            return None
        for info in self.functions:
            if info.class_name == class_name and info.name == name and not isinstance(info.node, ast.Lambda):
                return info
        return None

    def callee(self, func: ast.expr, scope: FunctionInfo | None, follow: bool = True,
               instances: bool = True) -> tuple[FunctionInfo | None, int]:
        """The module function a call target refers to and how many positional
        parameters are consumed implicitly (1 for ``self.method``, the bound arguments
        of ``g = partial(f, a)``). ``follow``: look through one such binding.
        ``instances``: a call of an object of a module class runs its ``__call__``
        (``model(x)``, ``self.encoder(x)``), and ``obj.method(x)`` that method."""
        if isinstance(func, ast.Name):
            fn = self.function_named(func.id, scope)
            if fn is None and follow:
                _, bindings = self.lookup(func.id, scope)
                if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(bindings[0].value, ast.Lambda) \
                        and len(getattr(bindings[0].node, "targets", ())) == 1:
                    return self._fn_by_node.get(id(bindings[0].value)), 0  # `half = lambda v: v / 2`
                if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(bindings[0].value, ast.Call):
                    value = bindings[0].value
                    q = self.resolve_call(value)
                    if q == "functools.partial" or q in DIFF_TRANSFORMS or q in TRACING_HOFS:
                        return self.unwrap_target(value, value, follow=False)
                    made = self.returned_function(value, self.function_of(value))
                    if made is not None:
                        return made, 0  # `cell = make_cell(n)`: the function the factory returns
                if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is None:
                    made = self._unpacked_function(func.id, bindings[0].node)
                    if made is not None:
                        return made, 0  # `init, update = make_opt(lr)`: one of the functions it returns
                if len(bindings) == 1 and bindings[0].kind == "param":
                    passed = self.passed_function(func.id, scope)
                    if passed is not None:
                        return passed, 0  # `score_fn(x)`: the one def every caller hands in
            if fn is None and instances:
                cls = self.instance_class(func, scope) if func.id != "self" else self._own_class(scope)
                if cls is not None:
                    return self.method_named(cls, "__call__"), 1  # `model(x)`; `self(x)` in a method
            return fn, 0
        if isinstance(func, ast.Lambda):
            return self._fn_by_node.get(id(func)), 0
        if instances and isinstance(func, ast.Call):
            # ``Block(features)(x)``: an instance made and called at once runs its ``__call__``
            # (how linen's ``@nn.compact`` and haiku modules use their submodules), also of a
            # lifted class (``nn.remat(Block)(4)(x)``, ``RematBlock = nn.remat(Block)``)
            cls = self._called_class(func.func, scope)
            made = self.method_named(cls, "__call__") if cls is not None else None
            if made is not None:
                return made, 1
        if isinstance(func, ast.Call) and func.args:
            # called where it is made: ``jax.grad(loss)(params, x, True)``, ``partial(f, a)(x)``
            q = self.resolve_call(func)
            if q == "functools.partial" or q in DIFF_TRANSFORMS or q in TRACING_HOFS:
                return self.unwrap_target(func, func, follow=False)
            return self.returned_function(func, scope), 0
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("self", "cls")
            and scope is not None
        ):
            cls_scope: FunctionInfo | None = scope
            while cls_scope is not None and cls_scope.class_name is None:
                cls_scope = cls_scope.parent
            if cls_scope is not None:
                found = self.method_named(cls_scope.class_name, func.attr)
                if found is None and func.value.id == "self":
                    stored = self.attribute_function(cls_scope.class_name, func.attr)
                    if stored is not None:  # `self.init_fn(x)`: the function `__init__` stored
                        return stored, self.stored_implicit(cls_scope.class_name, func.attr)
                if found is not None or not instances:
                    return found, 0 if found is not None and is_staticmethod(found) else 1
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            method = self._class_method(func.value, func.attr, scope)
            if method is not None:
                return method, 1 if is_classmethod(method) else 0
        if instances and isinstance(func, ast.Attribute):
            cls = self.instance_class(func, scope)  # `self.encoder(x)`: its class's __call__
            if cls is not None:
                return self.method_named(cls, "__call__"), 1
            cls = self.instance_class(func.value, scope)  # `model.encode(x)`: that method
            if cls is not None:
                method = self.method_named(cls, func.attr)
                stored = self.attribute_function(cls, func.attr) if method is None else None
                if stored is not None:  # `model.init_fn(x)`: the function its class stored
                    return stored, self.stored_implicit(cls, func.attr)
                return method, 0 if method is not None and is_staticmethod(method) else 1
        return None, 0

    def _class_method(self, owner: ast.Name, attr: str, scope: FunctionInfo | None) -> FunctionInfo | None:
        """The classmethod or staticmethod ``Cls.attr`` names through a module class (made
        at module level, the name not rebound): a classmethod gets the class as ``cls``, a
        staticmethod nothing. A plain method named so takes its ``self`` as the first
        argument (``nnx.remat(Block.forward, static_argnums=(5,))(self, ...)``), where the
        transforms' models count a bound method's parameters without it: not followed; nor
        is a property or another wrapped method."""
        cls = owner.id
        node = self.classes.get(cls)
        if node is None or self.function_of(node) is not None or self.lookup(cls, scope)[0] is not None:
            return None
        if len(self.lookup(cls, scope)[1]) != 1:
            return None  # the class name rebound: not sure what it holds
        method = self.method_named(cls, attr)
        if method is None or isinstance(method.node, ast.Lambda):
            return None
        decorators = method.node.decorator_list
        if len(decorators) != 1 or not (isinstance(decorators[0], ast.Name)
                                        and decorators[0].id in ("classmethod", "staticmethod")):
            return None
        if sum(1 for f in self.functions if f.class_name == cls and f.name == attr) != 1:
            return None  # defined twice (a property's setter, an overload): not followed
        return method

    def _called_class(self, expr: ast.expr, scope: FunctionInfo | None, depth: int = 0) -> str | None:
        """The module class ``expr`` names when called: ``Block``, or a linen lifted
        transform of it (``nn.remat(Block, ...)``, or a module-level name bound once to one)."""
        if depth > 2:
            return None
        if isinstance(expr, ast.Name):
            if expr.id in self.classes and self.lookup(expr.id, scope)[0] is None:
                return expr.id
            _, bindings = self.lookup(expr.id, scope)
            if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(bindings[0].value, ast.Call):
                return self._called_class(bindings[0].value, scope, depth + 1)
            return None
        if isinstance(expr, ast.Call) and expr.args and self.resolve_call(expr) in LINEN_LIFTED:
            return self._called_class(expr.args[0], scope, depth + 1) if isinstance(expr.args[0], ast.Name) else None
        return None

    def returned_function(self, call: ast.Call, scope: FunctionInfo | None,
                          place: tuple[int, int] | None = None) -> FunctionInfo | None:
        """The function a call of a factory of this module makes: ``make_cell(n)`` where
        ``make_cell`` returns its own nested ``def cell`` (or a lambda) on every path.
        ``place``: (index, length): the function at that index of the tuple or list of that
        length every path returns (``return init, update``, unpacked by the caller:
        ``init, update = make_opt(lr)``)."""
        if not isinstance(call.func, ast.Name):
            return None
        factory = self.function_named(call.func.id, scope)
        if factory is None or isinstance(factory.node, ast.Lambda):
            return None
        found: FunctionInfo | None = None
        for node in factory.body_nodes():
            if not isinstance(node, ast.Return):
                continue
            value = node.value
            if place is not None:
                if not (isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == place[1]
                        and not any(isinstance(e, ast.Starred) for e in value.elts)):
                    return None
                value = value.elts[place[0]]
            made = self._fn_by_node.get(id(value)) if isinstance(value, ast.Lambda) else \
                self.function_named(value.id, factory) if isinstance(value, ast.Name) else None
            if made is None or made.parent is not factory or (found is not None and made is not found):
                return None
            found = made
        return found

    def passed_function(self, name: str, scope: FunctionInfo | None) -> FunctionInfo | None:
        """The def of this module that parameter ``name`` (read in ``scope``) holds at every
        call of its function: ``run(x, r_factor)`` everywhere hands ``run`` the same module
        function by name (also through a wrapper's own parameter, ``callers.values``), so
        ``score_fn(...)`` in ``run`` calls it. None when a caller passes anything else (a
        lambda, a partial, a name bound to several functions, an attribute) or the calls are
        not all known (``Callers.param_values``)."""
        return self._about_param(name, scope, "_passed_functions", self._passed_function)

    def _passed_function(self, owner: FunctionInfo, name: str) -> FunctionInfo | None:
        from jaxlint.static.callers import Callers
        found: FunctionInfo | None = None
        for b in Callers.of(self).values(owner, name) or ():
            fn = self.function_named(b.value.id, b.scope) if isinstance(b.value, ast.Name) else None
            if fn is None or isinstance(fn.node, ast.Lambda) or (found is not None and fn is not found):
                return None
            found = fn
        return found

    def _about_param(self, name: str, scope: FunctionInfo | None, table: str, compute: Callable) -> Any:
        """What ``compute(owner, name)`` says of parameter ``name`` (read in ``scope``) of
        its function ``owner``, worked out once (memo ``table``); None where ``name`` is no
        parameter bound once, and while it is being worked out (asked again: not followed)."""
        owner, bindings = self.lookup(name, scope)
        if owner is None or len(bindings) != 1 or bindings[0].kind != "param":
            return None
        cache = self.__dict__.setdefault(table, {})
        key = (id(owner), name)
        if key not in cache:
            cache[key] = None
            cache[key] = compute(owner, name)
        return cache[key]

    def passed_instance(self, name: str, scope: FunctionInfo | None) -> str | None:
        """The module class whose instance parameter ``name`` (read in ``scope``) holds: the
        class it is annotated with (``component: Powerlaw``, a bare name or a string) when no
        class of the module derives from it, else the one class every call of its function
        makes an instance of (``mean(Powerlaw(...))``, also through a wrapper's own parameter,
        ``callers.values``). None when the calls are not all known or pass anything else."""
        return self._about_param(name, scope, "_passed_instances", self._passed_instance)

    def _passed_instance(self, owner: FunctionInfo, name: str) -> str | None:
        p = owner.param(name)
        note = p.annotation if p is not None else None
        named = note.id if isinstance(note, ast.Name) else note.value if isinstance(note, ast.Constant) \
            and isinstance(note.value, str) and note.value.isidentifier() else None
        if named in self.classes and self.lookup(named, owner)[0] is None \
                and not any(isinstance(b, ast.Name) and b.id == named for c in self.classes.values() for b in c.bases):
            return named
        from jaxlint.static.callers import Callers
        made = {self.instance_class(b.value, b.scope) if isinstance(b.value, (ast.Call, ast.Name)) else None
                for b in Callers.of(self).values(owner, name) or []}
        return made.pop() if len(made) == 1 else None

    def _unpacked_function(self, name: str, stmt: ast.AST) -> FunctionInfo | None:
        """The function ``name`` gets from ``a, name = factory(...)``: the one at its place
        in the tuple every ``return`` of the factory gives."""
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.targets[0], (ast.Tuple, ast.List))):
            return None
        elts = stmt.targets[0].elts
        if any(not isinstance(e, ast.Name) for e in elts):
            return None  # a starred or nested target: the places are not read
        index = next(i for i, e in enumerate(elts) if isinstance(e, ast.Name) and e.id == name)
        return self.returned_function(stmt.value, self.function_of(stmt), (index, len(elts)))

    def instance_class(self, expr: ast.expr, scope: FunctionInfo | None) -> str | None:
        """The module class ``expr`` is an instance of, when it is ``C(...)`` (or a call of a
        factory of the module that makes one), a name bound once to one, a name iterating
        over a list, tuple or comprehension of them (``for m in models``), or an attribute
        ``self.x`` that its class only ever sets to ``C(...)``."""
        value: ast.AST | None = None
        if isinstance(expr, ast.Call):  # `Loss(i, w).__call__`; `Remat().init` of a lifted class
            return self._made_class(expr, scope, 0) or self._called_class(expr.func, scope)
        if isinstance(expr, ast.Name) and expr.id not in ("self", "cls"):
            for a in self.ancestors(expr):  # `[jax.jit(m.__call__) for m in models]`
                if isinstance(a, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                    gen = next((g for g in a.generators if isinstance(g.target, ast.Name) and g.target.id == expr.id),
                               None)
                    if gen is not None:
                        return self._element_class(gen.iter, scope, 0)
                elif isinstance(a, _SCOPE_NODES):
                    break
            _, bindings = self.lookup(expr.id, scope)
            if len(bindings) == 1 and bindings[0].kind == "for" and isinstance(bindings[0].node, ast.For) \
                    and bindings[0].node.target is not None and isinstance(bindings[0].node.target, ast.Name):
                return self._element_class(bindings[0].node.iter, scope, 0)  # `for m in models:`
            if len(bindings) == 1 and bindings[0].kind == "param":
                return self.passed_instance(expr.id, scope)  # `def run(self, component)`
            if len(bindings) != 1 or bindings[0].kind != "assign":
                return None
            value = bindings[0].value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id not in self.classes:
                # `m = make_model(...)`: what the factory makes; `m = Remat()` of a lifted class
                return self._made_class(value, scope, 0) or self._called_class(value.func, scope)
        elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            owner = scope
            while owner is not None and owner.class_name is None:
                owner = owner.parent
            if owner is None:
                return None
            found = self._self_attrs().get((owner.class_name, expr.attr))  # type: ignore[arg-type]
            return found if found else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in self.classes \
                and self.lookup(value.func.id, self.function_of(value))[0] is None:
            return value.func.id
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Call):
            return self._called_class(value.func, scope)  # `block = nn.remat(Block)()`
        return None

    def past_arm(self, node: ast.AST) -> ast.AST | None:
        """``node``'s parent, or where ``node`` is an arm of a conditional expression
        (``jit(core) if compile else core``), that expression's parent."""
        parent = self.parent(node)
        if isinstance(parent, ast.IfExp) and node is not parent.test:
            return self.parent(parent)
        return parent

    def _own_class(self, scope: FunctionInfo | None) -> str | None:
        """The class whose instance ``self`` read in ``scope`` is: the first parameter of the
        method that binds it (also from a function nested in it), not a static or class
        method; None otherwise."""
        owner, bindings = self.lookup("self", scope)
        if owner is None or owner.class_name is None or len(bindings) != 1 or bindings[0].kind != "param" \
                or not owner.params or owner.params[0].name != "self" or is_staticmethod(owner) \
                or is_classmethod(owner):
            return None
        return owner.class_name

    def lift_of(self, func: ast.expr, scope: FunctionInfo | None) -> ast.Call | None:
        """The linen lifted transform whose class made the instance ``func`` calls
        (``nn.remat(Block, static_argnums=(4,))()(x, ...)``, or a name bound once to such an
        instance, or to an instance of a name bound once to the lifted class); None otherwise."""
        made: ast.AST | None = func
        instance = False  # through a call of the class: an instance, not the class itself
        for _ in range(4):
            if isinstance(made, ast.Call) and self.resolve_call(made) in LINEN_LIFTED:
                return made if instance else None
            if isinstance(made, ast.Name):
                _, bindings = self.lookup(made.id, scope)
                if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, ast.Call):
                    return None
                made = bindings[0].value
            elif isinstance(made, ast.Call) and not instance:
                made, instance = made.func, True  # the instance's class
            else:
                return None
        return None

    def _made_class(self, expr: ast.AST | None, scope: FunctionInfo | None, depth: int) -> str | None:
        """The module class whose instance ``expr`` makes: ``C(...)``, a name bound to one,
        or a call of a factory of the module every ``return`` of which makes one."""
        if depth > 3 or expr is None:
            return None
        if isinstance(expr, ast.Name):
            return self.instance_class(expr, scope) if depth < 3 else None
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)):
            return None
        name = expr.func.id
        if name in self.classes and self.lookup(name, self.function_of(expr))[0] is None:
            return name
        factory = self.function_named(name, self.function_of(expr))
        if factory is None or isinstance(factory.node, ast.Lambda) or factory.class_name is not None:
            return None
        returns = [n.value for n in factory.body_nodes() if isinstance(n, ast.Return)]
        made = {self._made_class(v, factory, depth + 1) for v in returns}
        return made.pop() if len(made) == 1 and returns else None

    def _element_class(self, it: ast.AST | None, scope: FunctionInfo | None, depth: int) -> str | None:
        """The module class every element of the iterable ``it`` is an instance of: a list,
        tuple or set display of instances, a comprehension making them, or a name bound
        once to one of those."""
        if depth > 3 or it is None:
            return None
        if isinstance(it, (ast.List, ast.Tuple, ast.Set)):
            made = {self._made_class(e, scope, depth + 1) for e in it.elts}
            return made.pop() if len(made) == 1 and it.elts else None
        if isinstance(it, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self._made_class(it.elt, scope, depth + 1)
        if isinstance(it, ast.Name):
            _, bindings = self.lookup(it.id, scope)
            if len(bindings) == 1 and bindings[0].kind == "assign":
                owner = self.function_of(bindings[0].node)
                return self._element_class(bindings[0].value, owner, depth + 1)
        return None

    def _self_attrs(self) -> dict[tuple[str, str], str | None]:
        """(class, attribute) -> the module class every ``self.attribute = C(...)`` of that
        class makes (None when it is set to anything else too)."""
        if self._attr_classes is None:
            out: dict[tuple[str, str], str | None] = {}
            for node in self.nodes(ast.Assign):
                for t in node.targets:
                    if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
                        continue
                    owner = self.function_of(node)
                    while owner is not None and owner.class_name is None:
                        owner = owner.parent
                    if owner is None:
                        continue
                    v = node.value
                    made = v.func.id if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) \
                        and v.func.id in self.classes and len(node.targets) == 1 else None
                    key = (owner.class_name or "", t.attr)  # (the loop above found a class)
                    out[key] = made if key not in out or out[key] == made else None
            self._attr_classes = out
        return self._attr_classes

    def attribute_function(self, class_name: str | None, attr: str) -> FunctionInfo | None:
        """The module function every ``self.attr = f`` of the class stores (``self.init_fn =
        init``, ``self.kernel_initializer = scaled_normal``): called through the instance,
        ``self.attr(x)`` runs it, given no ``self``. None when the attribute is ever set to
        anything else, or set from outside the class (``obj.attr = g``)."""
        return None if class_name is None else self.stored_functions().get((class_name, attr))

    def stored_functions(self) -> dict[tuple[str, str], FunctionInfo | None]:
        """(class, attribute) -> what :meth:`attribute_function` answers, for every
        attribute a class sets on ``self``."""
        if self._attr_functions is None:
            out: dict[tuple[str, str], FunctionInfo | None] = {}
            implicits: dict[tuple[str, str], int] = {}
            elsewhere: set[str] = set()
            stores: list[ast.Assign | ast.AnnAssign | ast.AugAssign] = [
                *self.nodes(ast.Assign), *self.nodes(ast.AnnAssign), *self.nodes(ast.AugAssign)]
            for node in stores:
                targets: list[ast.expr] = node.targets if isinstance(node, ast.Assign) else [node.target]
                v = node.value
                for whole in targets:
                    for t in ast.walk(whole):  # (`self.a, self.b = f, g` sets each to something)
                        if not isinstance(t, ast.Attribute) or not isinstance(t.ctx, ast.Store):
                            continue
                        owner = self.function_of(node)
                        if not (isinstance(t.value, ast.Name) and t.value.id == "self"):
                            elsewhere.add(t.attr)
                            continue
                        scope = owner
                        while owner is not None and owner.class_name is None:
                            owner = owner.parent
                        if owner is None:
                            continue
                        plain = isinstance(node, ast.Assign) and t is whole and len(node.targets) == 1
                        made = self.function_named(v.id, scope) if plain and isinstance(v, ast.Name) else None
                        key = (owner.class_name or "", t.attr)
                        implicit = 0
                        if plain and made is None:
                            made, implicit = self._stored_transform(v, owner.class_name, scope)
                        if key in out and (out[key] is not made or implicits.get(key, 0) != implicit):
                            out[key] = None
                        else:
                            out[key] = made
                            implicits[key] = implicit
            self._attr_functions = {k: v for k, v in out.items() if k[1] not in elsewhere}
            self._attr_implicit = {k: n for k, n in implicits.items() if n and self._attr_functions.get(k) is not None}
        return self._attr_functions

    def stored_implicit(self, class_name: str | None, attr: str) -> int:
        """How many leading parameters of :meth:`attribute_function`'s function a call
        through the attribute does not fill: 1 for a jit-like transform of a bound method
        (``self._pmap_step = jax.pmap(self._step)``, its ``self``), else 0."""
        self.stored_functions()
        return self._attr_implicit.get((class_name or "", attr), 0)

    def _stored_transform(self, value: ast.expr | None, class_name: str | None,
                          scope: FunctionInfo | None) -> tuple[FunctionInfo | None, int]:
        """The function a jit-like transform stored on ``self`` runs, called through the
        attribute with the arguments as given (``self._step_fn = jax.pmap(self._step)``:
        the method, its ``self`` the instance; ``self.fn = jax.jit(step)``: ``step``),
        with how many leading parameters the call does not fill."""
        if not (isinstance(value, ast.Call) and value.args and not any(isinstance(a, ast.Starred) for a in value.args)):
            return None, 0
        q = self.resolve_call(value)
        if q not in JIT_LIKE or JIT_LIKE[q] == "linen.jit":
            return None, 0
        inner = value.args[0]
        if isinstance(inner, ast.Name):
            return self.function_named(inner.id, scope), 0
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "self":
            method = self.method_named(class_name, inner.attr)
            if method is None or isinstance(method.node, ast.Lambda) or any(
                    not (isinstance(d, ast.Name) and d.id == "staticmethod") for d in method.node.decorator_list):
                return None, 0  # a property, a classmethod, a wrapped method: not followed
            return method, 0 if is_staticmethod(method) else 1
        return None, 0

    def leading_arguments(self, call: ast.Call) -> int:
        """How many of ``call``'s first positional arguments the wrapper it calls takes for
        itself before handing the rest to the wrapped function (``Predictive(model)(key,
        *args)``: 1, the key; also through one name bound to the wrapper, ``predict =
        Predictive(model)``): :data:`apis.OWN_LEADING_ARGUMENTS`. :meth:`callee` names the
        wrapped function; its parameters get the arguments after these."""
        made: ast.expr = call.func
        if isinstance(made, ast.Name):
            _, bindings = self.lookup(made.id, self.function_of(call))
            if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(bindings[0].value, ast.Call):
                made = bindings[0].value
        if not isinstance(made, ast.Call):
            return 0
        return OWN_LEADING_ARGUMENTS.get(self.resolve_call(made) or "", 0)

    def unwrap_target(self, expr: ast.expr, at: ast.AST, follow: bool = True) -> tuple[FunctionInfo | None, int]:
        """Follow ``partial(f, a)``, ``grad(f)``, ``vmap(f)`` to the function ``f``, and the
        number of its leading positional parameters already bound (partial args, ``self``)."""
        scope = self.function_of(at)
        bound = 0
        for _ in range(8):
            if isinstance(expr, ast.Call) and expr.args:
                q = self.resolve_call(expr)
                if q == "functools.partial":
                    bound += len(expr.args) - 1
                    expr = expr.args[0]
                    continue
                if q in DIFF_TRANSFORMS or q in TRACING_HOFS:
                    expr = expr.args[0]
                    continue
                made = self.returned_function(expr, scope)
                if made is None:
                    return self._instance_call(expr, scope, bound)  # `jax.jit(Puzzle(3, 4))`
                return made, bound
            break
        fn, implicit = self.callee(expr, scope, follow=follow, instances=False)
        if fn is None and isinstance(expr, ast.Attribute):
            # `jax.jit(env.step)`: a bound method of an instance of a module class (bound
            # once to `Env(...)`, module-level or local, or held in `self.env`); the
            # instance is its `self`, not traced
            cls = self.instance_class(expr.value, scope)
            method = self.method_named(cls, expr.attr) if cls is not None else None
            if method is not None:
                return method, bound + (0 if is_staticmethod(method) else 1)
        if fn is None and isinstance(expr, (ast.Name, ast.Attribute, ast.Call)):
            return self._instance_call(expr, scope, bound)  # `gen = Puzzle(3, 4)`, `jax.jit(gen)`, `self.gen`
        return fn, bound + implicit

    def _instance_call(self, expr: ast.expr, scope: FunctionInfo | None, bound: int) -> tuple[FunctionInfo | None, int]:
        """A transform of a callable instance of a module class (``jax.jit(Puzzle(3, 4))``,
        or a name bound once to one) traces its class's ``__call__`` with the arguments;
        the instance is its ``self``, closed over, not traced."""
        cls = self.instance_class(expr, scope)
        method = self.method_named(cls, "__call__") if cls is not None else None
        if method is None:
            return None, 0
        return method, bound + (0 if is_staticmethod(method) else 1)

    def is_array_annotation(self, ann: ast.expr | None) -> bool:
        if ann is None:
            return False
        wrapped = None
        if isinstance(ann, ast.Subscript):
            # jaxtyping's `Float[T, "n"]` says the dtype and shape of an array of type `T`:
            # a NumPy (or torch) array there is no jax array (`Real[npt.NDArray, "M"]`)
            elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            wrapped = self.resolve(elts[0]) if elts else None
            ann = ann.value
        q = self.resolve(ann) or ""
        if q.startswith("jaxtyping.") and wrapped is not None and wrapped.startswith(FOREIGN_ARRAY_MODULES):
            return False
        return (q.startswith(ARRAY_ANNOTATIONS) or q in ARRAY_ANNOTATIONS) and q not in NOT_ARRAY_ANNOTATIONS

    def partial_keywords(self, expr: ast.expr, at: ast.AST, target: FunctionInfo | None = None) -> set[str]:
        """Parameters bound by keyword in ``functools.partial(f, k=v)`` around a callable,
        also through one name bound to such a call (``inner = partial(f, k=v)``). A splat
        (``partial(f, **params)``, a primitive's parameters in its batching rule) binds
        every keyword-only parameter of ``target``: a transform passes positional
        operands only, so nothing else can fill them."""
        out: set[str] = set()
        followed = False
        for _ in range(8):
            if isinstance(expr, ast.Name) and not followed:
                followed = True
                _, bindings = self.lookup(expr.id, self.function_of(at))
                if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(bindings[0].value, ast.Call):
                    expr = bindings[0].value
                    continue
            if isinstance(expr, ast.Call) and expr.args:
                q = self.resolve_call(expr)
                if q == "functools.partial":
                    out |= {k.arg for k in expr.keywords if k.arg}
                    if target is not None and any(k.arg is None for k in expr.keywords):
                        out |= {p.name for p in target.params if p.kind == "keyword"}
                    expr = expr.args[0]
                    continue
                if q in DIFF_TRANSFORMS or q in TRACING_HOFS:
                    expr = expr.args[0]
                    continue
            break
        return out


def is_classmethod(fn: FunctionInfo) -> bool:
    """A ``@classmethod``: called through its class or an instance, it gets the class as its first parameter."""
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in getattr(fn.node, "decorator_list", ()))


def is_staticmethod(fn: FunctionInfo) -> bool:
    """A ``@staticmethod``: called through ``self`` or an instance, it gets no ``self``."""
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in getattr(fn.node, "decorator_list", ()))


def _until(nodes: Iterable[ast.AST], stop: ast.AST | None) -> Iterator[ast.AST]:
    for n in nodes:
        if n is stop:
            return
        yield n


def _is_in_header(fn_node: ast.AST, node: ast.AST, model: Scopes) -> bool:
    """True when ``node`` sits in the decorators or defaults of ``fn_node``."""
    header: list[ast.expr]
    if isinstance(fn_node, ast.Lambda):
        header = list(fn_node.args.defaults) + [d for d in fn_node.args.kw_defaults if d]
    elif isinstance(fn_node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        header = list(fn_node.decorator_list) + list(fn_node.args.defaults) + [
            d for d in fn_node.args.kw_defaults if d]
    else:
        return False
    if not header:
        return False
    ids = {id(h) for h in header}
    cur: ast.AST | None = node
    while cur is not None and cur is not fn_node:
        if id(cur) in ids:
            return True
        cur = model.parents.get(cur)
    return False
