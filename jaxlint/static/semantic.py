"""The static phase's model of one module: names, scopes, functions and the jit map.

Built from Python's ``ast`` in one walk plus a small fixpoint over the call graph. It
resolves names through imports and simple aliases (``from jax import jit as J``,
``jit = jax.jit``) to fully qualified names, never by matching text, and answers the
questions rules ask: *is this node inside traced code?*, *is this expression a traced
value?*, *where was this name bound?*

Why ``ast`` and not libcst for analysis: on the benchmark corpus libcst's parser took
about 17x as long as ``ast.parse`` and its position metadata about as long again
(``benchmarks/bench_parsers.py``); the
static phase has to run on every keystroke and every commit. Fixes are text edits on
1-based line/character positions (see ``jaxlint.fix.apply``), as in ruff.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from jaxlint.static.jitmap import EntryPoint, JitMap
from jaxlint.static.runs import EAGER_UNDER_DISABLE_JIT, eager_block
from jaxlint.static.traced import CALL, Reason

_UNKNOWN = object()
#: node classes a parser creates (no subclasses below them): nodes() indexes these by type
_CONCRETE_NODES = frozenset(
    c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST) and not c.__subclasses__()
)
_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

#: Transforms whose first argument becomes a traced entry point, with the keyword
#: arguments that carry static / donated argument specs.
JIT_LIKE = {
    "jax.jit": "jit",
    "jax.api.jit": "jit",
    "jax.experimental.pjit.pjit": "pjit",
    "jax.pjit": "pjit",
    "jax.pmap": "pmap",
    "jax.experimental.maps.xmap": "xmap",
    "flax.nnx.jit": "nnx.jit",
    "flax.linen.jit": "linen.jit",
    "equinox.filter_jit": "filter_jit",
    "equinox.filter_pmap": "filter_pmap",
}
#: Entry kinds whose parameters are not all traced (the transform decides per value).
FILTERED_KINDS = {"filter_jit", "filter_pmap", "nnx.jit", "linen.jit"}

#: Functions that trace the callables they are given: (qualified name, indexes of the
#: callable arguments, or ``None`` for "every positional argument that is callable").
TRACING_HOFS: dict[str, tuple[int, ...]] = {
    "jax.lax.scan": (0,),
    "jax.lax.fori_loop": (2,),
    "jax.lax.while_loop": (0, 1),
    "jax.lax.cond": (1, 2),
    "jax.lax.switch": (1,),  # a sequence of branches
    "jax.lax.map": (0,),
    "jax.lax.associative_scan": (0,),
    "jax.lax.reduce": (),
    "jax.vmap": (0,),
    "jax.shard_map": (0,),
    "jax.experimental.shard_map.shard_map": (0,),
    "jax.checkpoint": (0,),
    "jax.remat": (0,),
    "jax.ad_checkpoint.checkpoint": (0,),
    "jax.named_call": (0,),
    "flax.linen.scan": (0,),
    "flax.nnx.scan": (0,),
    "flax.nnx.vmap": (0,),
    "flax.nnx.fori_loop": (2,),
    "flax.nnx.while_loop": (0, 1),
    "flax.nnx.cond": (1, 2),
    "flax.nnx.remat": (0,),
    "equinox.filter_vmap": (0,),
    "equinox.internal.scan": (0,),
}
#: Differentiation transforms: their callable is traced when the result runs under
#: another trace (inside jit); on their own they run with concrete values.
DIFF_TRANSFORMS = {
    "jax.grad",
    "jax.value_and_grad",
    "jax.jacfwd",
    "jax.jacrev",
    "jax.hessian",
    "jax.jvp",
    "jax.vjp",
    "jax.linearize",
    "flax.nnx.grad",
    "flax.nnx.value_and_grad",
    "equinox.filter_grad",
    "equinox.filter_value_and_grad",
}
#: Attributes of an array that are static Python values under tracing.
STATIC_ATTRS = {"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "sharding", "weak_type", "aval"}
#: Calls whose result is static even when given traced values.
STATIC_CALLS = {
    "builtins.len",
    "builtins.isinstance",
    "builtins.type",
    "builtins.hasattr",
    "builtins.getattr",
    "builtins.id",
    "builtins.callable",
    "jax.numpy.shape",
    "jax.numpy.ndim",
    "jax.numpy.size",
    "jax.numpy.result_type",
    "jax.numpy.dtype",
    "jax.numpy.issubdtype",
    "jax.numpy.iinfo",
    "jax.numpy.finfo",
    "numpy.shape",
    "numpy.ndim",
    "numpy.prod",
    "numpy.dtype",
    "jax.tree_util.tree_structure",
    "jax.tree.structure",
    "jax.eval_shape",
    "jax.core.get_aval",
    "jax.typeof",
}
ARRAY_ANNOTATIONS = ("jax.Array", "jax.numpy.ndarray", "jax.typing.ArrayLike", "chex.Array", "jaxtyping.")
#: jaxtyping names that are containers or helpers, not arrays (``PyTree[Any]`` may hold anything)
NOT_ARRAY_ANNOTATIONS = {"jaxtyping.PyTree", "jaxtyping.PyTreeDef", "jaxtyping.jaxtyped"}
BUILTINS = {
    "print", "open", "len", "range", "int", "float", "bool", "complex", "isinstance",
    "type", "hasattr", "getattr", "id", "callable", "list", "dict", "tuple", "set",
    "enumerate", "zip", "sum", "min", "max", "abs", "round", "input", "str", "iter",
    "next", "sorted", "reversed", "map", "filter", "any", "all", "divmod", "pow", "object",
}


@dataclass
class Param:
    name: str
    index: int | None  # positional index, None for keyword-only / *args / **kwargs
    kind: str  # "positional", "keyword", "vararg", "kwarg"
    default: ast.expr | None
    annotation: ast.expr | None
    node: ast.arg


@dataclass
class Binding:
    name: str
    node: ast.AST  # the statement (or arg) that binds it
    value: ast.expr | None  # the assigned expression, when it is a plain single assignment
    kind: str  # "assign", "param", "import", "def", "class", "for", "with", "other"


@dataclass(eq=False)
class FunctionInfo:
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    name: str
    qualname: str
    parent: "FunctionInfo | None"
    class_name: str | None
    params: list[Param]
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals_: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    #: Why this function is traced (empty when it is not known to be), as data.
    traced_by: list[Reason] = field(default_factory=list)
    #: Names of parameters known to carry traced values.
    traced_params: set[str] = field(default_factory=set)
    static_params: set[str] = field(default_factory=set)
    donated_params: set[str] = field(default_factory=set)
    #: Positional parameters bound by ``functools.partial`` at the entry point.
    partial_bound: set[str] = field(default_factory=set)
    #: Names (params and locals) that hold traced values, after local propagation.
    tainted: set[str] = field(default_factory=set)
    #: Calls from traced functions that made this one traced ("called from"), by id:
    #: (the call, the caller, how many leading parameters the call does not fill).
    call_sites: dict[int, tuple[ast.Call, "FunctionInfo", int]] = field(default_factory=dict, repr=False)
    #: body_nodes(), recorded by the model's one walk of the module (``ModuleModel._collect``)
    _body: list[ast.AST] = field(default_factory=list, repr=False)

    @property
    def traced(self) -> bool:
        return bool(self.traced_by)

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def positional(self) -> list[Param]:
        return [p for p in self.params if p.index is not None]

    def body_nodes(self) -> Iterator[ast.AST]:
        """Every node of this function's own body in source order (depth first), not
        descending into nested scopes: a nested function, lambda or class is there with
        its decorators, defaults and bases, which run in this scope, but not its body."""
        return iter(self._body)


#: The fields that hold context and operator nodes, which are shared singletons in a
#: parsed tree (one ``Load()`` for all): they have no one parent or scope, so the
#: model's own walks skip them, and with them a third of all nodes.
_SINGLETON_FIELDS = ("ctx", "op", "ops")
_LEAVES = frozenset({ast.Name, ast.Constant})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _SINGLETON_FIELDS)  # type: ignore[attr-defined]
    return fields


def children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` in field order, less the context/operator singletons:
    the children every walk of the model visits (``walk``, ``ModuleModel._collect``)."""
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
    (breadth-first) order, about twice as fast. ``by_type`` receives the nodes by class."""
    out: list[ast.AST] = [tree]
    append = out.append
    for node in out:  # the list grows while it is read: that is the queue
        if by_type is not None:
            same = by_type.get(node.__class__)
            if same is None:
                by_type[node.__class__] = [node]
            else:
                same.append(node)
        fields = _CHILD_FIELDS.get(node.__class__) or _child_fields(node.__class__)
        for name in fields:
            value = getattr(node, name, None)
            if value.__class__ is list:
                for v in value:
                    if isinstance(v, ast.AST):
                        append(v)
            elif isinstance(value, ast.AST):
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


def iteration_targets(target: ast.AST, it: ast.AST, traced) -> set[str]:
    """The names of a ``for`` target that receive traced values when iterating ``it``
    (``traced(expr)`` says whether an expression is traced). Keys of a pytree dict
    (``for k, v in d.items()``, ``d.keys()``) and ``enumerate`` counters are Python
    values, and so is what ``range`` yields; ``zip`` pairs each target with its own iterable."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
        if it.func.attr == "keys":
            return set()
        if it.func.attr == "items" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
            return set(target_names(target.elts[1])) if traced(it.func.value) else set()
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.args and not it.keywords:
        if it.func.id == "range":
            return set()  # range() takes concrete ints and yields Python ints
        if it.func.id == "enumerate" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
            return iteration_targets(target.elts[1], it.args[0], traced)
        if it.func.id == "zip" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(it.args) \
                and not any(isinstance(a, ast.Starred) for a in it.args):
            out: set[str] = set()
            for t, a in zip(target.elts, it.args):
                out |= iteration_targets(t, a, traced)
            return out
    return set(target_names(target)) if traced(it) else set()


def is_axis_size(call: ast.Call, q: str | None) -> bool:
    """``lax.psum(1, "i")`` (a Python number summed over a named axis: jax's idiom for the
    axis size, a concrete Python value) or ``lax.axis_size("i")``."""
    if q == "jax.lax.axis_size":
        return True
    return q == "jax.lax.psum" and bool(call.args) and isinstance(call.args[0], ast.Constant) \
        and isinstance(call.args[0].value, (int, float)) and not isinstance(call.args[0].value, bool)


def literal_int(node: ast.AST | None) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = literal_int(node.operand)
        return -v if v is not None else None
    return None


def literal_ints(node: ast.AST | None) -> tuple[int, ...] | None:
    """``1`` or ``(0, 2)`` or ``[1]`` as a tuple of ints; None when not literal."""
    v = literal_int(node)
    if v is not None:
        return (v,)
    if isinstance(node, (ast.Tuple, ast.List)):
        vals = [literal_int(e) for e in node.elts]
        if all(x is not None for x in vals):
            return tuple(vals)  # type: ignore[arg-type]
    return None


def literal_strs(node: ast.AST | None) -> tuple[str, ...] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.Tuple, ast.List)):
        if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            return tuple(e.value for e in node.elts)  # type: ignore[union-attr]
    return None


class ModuleModel:
    """Everything the static rules need to know about one module."""

    def __init__(self, tree: ast.Module, module_name: str = "") -> None:
        self.tree = tree
        self.module_name = module_name
        self.parents: dict[int, ast.AST] = {}
        self.functions: list[FunctionInfo] = []
        self._fn_by_node: dict[int, FunctionInfo] = {}
        self.module_bindings: dict[str, list[Binding]] = {}
        self.aliases: dict[str, str | None] = {}  # local name -> qualified name (None: ambiguous)
        self.classes: dict[str, ast.ClassDef] = {}
        self.entries: list[EntryPoint] = []
        self._scope_of: dict[int, FunctionInfo | None] = {}
        self._walk: tuple[ast.AST, ...] | None = None  # see nodes()
        self._by_type: dict[type, tuple[ast.AST, ...]] = {}
        #: jit calls whose target is not a function of this module (e.g. ``jit(obj.f)``)
        self.entries_unresolved: list[ast.Call] = []
        #: entry point -> (the decorator or jit call node, the traced function)
        self._entry_sites: dict[EntryPoint, tuple[ast.AST, FunctionInfo]] = {}
        self._attr_classes: dict[tuple[str, str], str | None] | None = None
        self._collect()
        self._find_entry_points()
        self._propagate()

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
        stack: list[tuple[ast.AST, FunctionInfo | None, str | None, str, list | None]] = [
            (self.tree, None, None, "", None)]
        parents, scope_of = self.parents, self._scope_of
        lambda_count = 0
        while stack:
            item = stack.pop()
            if item.__class__ in _LEAVES:  # a name or constant in a function's body
                scope_of[id(item)]._body.append(item)  # type: ignore[union-attr]
                continue
            node, fn, cls, prefix, body = item  # type: ignore[misc]
            scope_of[id(node)] = fn
            if body is not None:
                body.append(node)
            if node.__class__ in _LEAVES:
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
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
                    parents[id(a)] = node
                    stack.append((a, fn, cls, prefix, body))
                own = [node.body] if isinstance(node, ast.Lambda) else node.body
                for a in (node.args.posonlyargs + node.args.args + node.args.kwonlyargs):
                    parents[id(a)] = node
                for child in own:
                    parents[id(child)] = node
                    stack.append((child, info, None, f"{qual}.<locals>.", info._body))
                stack[mark:] = stack[:mark - 1:-1] if mark else stack[::-1]
                continue
            if isinstance(node, ast.ClassDef):
                self._bind(fn, Binding(node.name, node, None, "class"))
                if fn is None and cls is None:
                    self.classes[node.name] = node
                mark = len(stack)
                # decorators and bases run in the enclosing scope (and body); keywords in
                # the scope only; the class body belongs to no function's body
                for a in node.decorator_list + node.bases:
                    parents[id(a)] = node
                    stack.append((a, fn, cls, prefix, body))
                for k in node.keywords:
                    parents[id(k.value)] = node
                    stack.append((k.value, fn, cls, prefix, None))
                for child in node.body:
                    parents[id(child)] = node
                    stack.append((child, None if fn is None else fn, node.name, f"{prefix}{node.name}.", None))
                stack[mark:] = stack[:mark - 1:-1] if mark else stack[::-1]
                continue
            # of all expressions only `:=` binds a name; skipping the rest spares a long
            # isinstance chain on most of the tree
            if not isinstance(node, ast.expr) or isinstance(node, ast.NamedExpr):
                self._record_binding(node, fn)
            mark = len(stack)
            # the children: the one field table every walk of the model reads (_CHILD_FIELDS)
            for name in _CHILD_FIELDS.get(node.__class__) or _child_fields(node.__class__):
                value = getattr(node, name, None)
                if value.__class__ is list:
                    for child in value:
                        if isinstance(child, ast.AST):
                            parents[id(child)] = node
                            if child.__class__ in _LEAVES:
                                scope_of[id(child)] = fn
                                if body is not None:
                                    stack.append(child)
                            else:
                                stack.append((child, fn, cls, prefix, body))
                elif isinstance(value, ast.AST):
                    parents[id(value)] = node
                    if value.__class__ in _LEAVES:
                        scope_of[id(value)] = fn
                        if body is not None:
                            stack.append(value)
                    else:
                        stack.append((value, fn, cls, prefix, body))
            if len(stack) - mark > 1:
                stack[mark:] = stack[:mark - 1:-1] if mark else stack[::-1]
        # the class of a method: methods are functions whose parent node is a ClassDef
        for info in self.functions:
            parent = parents.get(id(info.node))
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
                    self._add_alias(node.targets[0].id, q)  # type: ignore[union-attr]
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
        return self.parents.get(id(node))

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        p = self.parents.get(id(node))
        while p is not None:
            yield p
            p = self.parents.get(id(p))

    def function_of(self, node: ast.AST) -> FunctionInfo | None:
        """The innermost function whose own body contains ``node``."""
        # the collection walk recorded the scope of every node it visited; nodes it does
        # not visit (parameters, annotations) take the walk up the parents
        scope = self._scope_of.get(id(node), _UNKNOWN)
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

    def reaching_bindings(self, name: ast.Name, fn: FunctionInfo | None) -> list[Binding]:
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
                if isinstance(block, list) and child in block:
                    for st in block[:block.index(child)]:
                        if isinstance(st, (ast.Assign, ast.AnnAssign)) and any(
                                isinstance(t, ast.Name) and t.id == name.id
                                for t in (st.targets if isinstance(st, ast.Assign) else [st.target])):
                            cut = max(cut, (st.lineno, st.col_offset))
            child = a
        out = []
        for b in bindings:
            node = b.node
            pos = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) if b.kind != "param" else (0, 0)
            if any(a is loop for loop in loops for a in self.ancestors(node)) and pos >= at:
                out.append(b)  # later in a loop around the read: reaches the next iteration
            elif pos < at and pos >= cut and not any(a is node for a in chain):
                out.append(b)
            elif any(a is node for a in chain) and any(a is loop for loop in loops for a in self.ancestors(node)):
                out.append(b)  # `x = f(x)` in a loop: the previous iteration's value
        return out

    def resolve(self, node: ast.AST, at: ast.AST | None = None) -> str | None:
        """The fully qualified name an expression refers to, through imports and aliases.

        ``at`` is the node whose scope is used (defaults to ``node``): a name that is a
        local variable or parameter there does not resolve.
        """
        if isinstance(node, ast.Name):
            scope = self.function_of(at or node)
            owner, bindings = self.lookup(node.id, scope)
            if owner is not None:
                if bindings and all(b.kind == "import" for b in bindings):
                    return self.aliases.get(node.id)
                return None
            if bindings:
                if all(b.kind == "import" for b in bindings) or node.id in self.aliases:
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
        return self.resolve(call.func, call)

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
                if len(bindings) == 1 and bindings[0].kind == "assign" and isinstance(bindings[0].value, ast.Call):
                    value = bindings[0].value
                    q = self.resolve_call(value)
                    if q == "functools.partial" or q in DIFF_TRANSFORMS or q in TRACING_HOFS:
                        return self._unwrap_target(value, value, follow=False)
            if fn is None and instances:
                cls = self.instance_class(func, scope)
                if cls is not None:
                    return self.method_named(cls, "__call__"), 1
            return fn, 0
        if isinstance(func, ast.Lambda):
            return self._fn_by_node.get(id(func)), 0
        if isinstance(func, ast.Call) and func.args:
            # called where it is made: ``jax.grad(loss)(params, x, True)``, ``partial(f, a)(x)``
            q = self.resolve_call(func)
            if q == "functools.partial" or q in DIFF_TRANSFORMS or q in TRACING_HOFS:
                return self._unwrap_target(func, func, follow=False)
            return None, 0
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in ("self", "cls")
            and scope is not None
        ):
            cls_scope = scope
            while cls_scope is not None and cls_scope.class_name is None:
                cls_scope = cls_scope.parent
            if cls_scope is not None:
                found = self.method_named(cls_scope.class_name, func.attr)
                if found is not None or not instances:
                    return found, 1
        if instances and isinstance(func, ast.Attribute):
            cls = self.instance_class(func, scope)  # `self.encoder(x)`: its class's __call__
            if cls is not None:
                return self.method_named(cls, "__call__"), 1
            cls = self.instance_class(func.value, scope)  # `model.encode(x)`: that method
            if cls is not None:
                return self.method_named(cls, func.attr), 1
        return None, 0

    def instance_class(self, expr: ast.expr, scope: FunctionInfo | None) -> str | None:
        """The module class ``expr`` is an instance of, when it is a name bound once to
        ``C(...)`` or an attribute ``self.x`` that its class only ever sets to ``C(...)``."""
        value: ast.AST | None = None
        if isinstance(expr, ast.Name) and expr.id not in ("self", "cls"):
            _, bindings = self.lookup(expr.id, scope)
            if len(bindings) != 1 or bindings[0].kind != "assign":
                return None
            value = bindings[0].value
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
                    key = (owner.class_name, t.attr)
                    out[key] = made if out.get(key, made) == made else None
            self._attr_classes = out
        return self._attr_classes

    # ------------------------------------------------------------------ entry points
    def _find_entry_points(self) -> None:
        for info in self.functions:
            if isinstance(info.node, ast.Lambda):
                continue
            for dec in info.node.decorator_list:
                spec = self._jit_spec(dec)
                if spec is not None:
                    kind, kwargs, form = spec
                    self._add_entry(kind, info, dec, form, kwargs, 0, bound_name=info.name)
        for node in self.nodes(ast.Call):
            q = self.resolve_call(node)
            if q in JIT_LIKE and node.args:
                parent = self.parent(node)
                if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in parent.decorator_list:
                    continue  # a decorator factory call, handled above
                target, bound = self._unwrap_target(node.args[0], node)
                kwargs = {k.arg: k.value for k in node.keywords if k.arg}
                form = "immediate" if isinstance(parent, ast.Call) and parent.func is node else "call"
                if form == "immediate" and eager_block(self, node) == "jax.disable_jit":
                    continue  # `jax.jit(f)(x)` under `jax.disable_jit()` runs `f` eagerly
                bound_name = None
                if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
                    t = parent.targets[0]
                    bound_name = t.id if isinstance(t, ast.Name) else ast.unparse(t)
                if target is not None:
                    self._add_entry(JIT_LIKE[q], target, node, form, kwargs, bound, bound_name=bound_name)
                else:
                    self.entries_unresolved.append(node)

    def _jit_spec(self, dec: ast.expr) -> tuple[str, dict[str, ast.expr], str] | None:
        q = self.resolve(dec)
        if q in JIT_LIKE:
            return JIT_LIKE[q], {}, "decorator"
        if isinstance(dec, ast.Call):
            fq = self.resolve_call(dec)
            kwargs = {k.arg: k.value for k in dec.keywords if k.arg}
            if fq in JIT_LIKE and not dec.args:
                return JIT_LIKE[fq], kwargs, "decorator"
            if fq == "functools.partial" and dec.args:
                inner = self.resolve(dec.args[0])
                if inner in JIT_LIKE:
                    return JIT_LIKE[inner], kwargs, "partial-decorator"
        return None

    def _unwrap_target(self, expr: ast.expr, at: ast.AST, follow: bool = True) -> tuple[FunctionInfo | None, int]:
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
                return None, 0
            break
        fn, implicit = self.callee(expr, scope, follow=follow, instances=False)
        return fn, bound + implicit

    def _add_entry(self, kind: str, fn: FunctionInfo, node: ast.AST, form: str,
                   kwargs: dict[str, ast.expr], bound: int, bound_name: str | None) -> None:
        positional = fn.positional()
        offset = bound
        static_nums = literal_ints(kwargs.get("static_argnums")) or ()
        if kind in ("pmap",):
            static_nums = literal_ints(kwargs.get("static_broadcasted_argnums")) or static_nums
        static_names = literal_strs(kwargs.get("static_argnames")) or ()
        donate_nums = literal_ints(kwargs.get("donate_argnums")) or ()
        donate_names = literal_strs(kwargs.get("donate_argnames")) or ()
        callable_params = positional[offset:]

        def by_num(nums: tuple[int, ...]) -> set[str]:
            out = set()
            for n in nums:
                if -len(callable_params) <= n < len(callable_params):
                    out.add(callable_params[n].name)
            return out

        static = by_num(static_nums) | set(static_names)
        donated = by_num(donate_nums) | set(donate_names)
        bound_params = {p.name for p in positional[:offset]}
        if isinstance(node, ast.Call) and node.args:
            bound_params |= self.partial_keywords(node.args[0], node)
        fn.static_params |= static
        fn.donated_params |= donated
        fn.partial_bound |= bound_params
        line = getattr(node, "lineno", 0)
        fn.traced_by.append(Reason(kind, line))
        traced: set[str] = set()
        for p in fn.params:
            if p.name in static or p.name in bound_params:
                continue
            if p.name in ("self", "cls") and p.index == 0 and fn.class_name:
                continue
            if kind in FILTERED_KINDS and not self.is_array_annotation(p.annotation):
                continue
            if p.default is not None and not (isinstance(p.default, ast.Constant) and p.default.value is None) \
                    and not self.is_array_annotation(p.annotation):
                continue
            traced.add(p.name)
        specs_literal = all(
            kwargs.get(k) is None or literal_ints(kwargs.get(k)) is not None or literal_strs(kwargs.get(k)) is not None
            for k in ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames")
        )
        if not specs_literal or any(k.arg is None for k in getattr(node, "keywords", ())):
            # which parameters are static is unknown (`static_argnums=SPEC`, `**opts`):
            # mark none traced, so rules stay quiet instead of guessing
            traced = set()
        fn.traced_params |= traced
        self.entries.append(
            EntryPoint(
                kind=kind,
                qualname=fn.qualname if not isinstance(fn.node, ast.Lambda) else f"<lambda>@{fn.node.lineno}",
                name=fn.name,
                line=line,
                column=getattr(node, "col_offset", 0) + 1,
                def_line=fn.node.lineno,
                form=form,
                bound_name=bound_name,
                static_argnums=tuple(static_nums),
                static_argnames=tuple(sorted(static_names)),
                donate_argnums=tuple(donate_nums),
                donate_argnames=tuple(sorted(donate_names)),
                static_params=tuple(sorted(static)),
                traced_params=tuple(sorted(traced)),
                partial_bound=bound,
                is_method=fn.class_name is not None,
                specs_literal=specs_literal,
            )
        )
        self._entry_sites[self.entries[-1]] = (node, fn)

    def entry_site(self, entry: EntryPoint) -> tuple[ast.AST, FunctionInfo]:
        """The decorator or transform call that made ``entry``, and the traced function."""
        return self._entry_sites[entry]

    def is_array_annotation(self, ann: ast.expr | None) -> bool:
        if ann is None:
            return False
        if isinstance(ann, ast.Subscript):
            ann = ann.value
        q = self.resolve(ann) or ""
        return (q.startswith(ARRAY_ANNOTATIONS) or q in ARRAY_ANNOTATIONS) and q not in NOT_ARRAY_ANNOTATIONS

    # ------------------------------------------------------------------ propagation
    def _propagate(self) -> None:
        """Mark functions traced through entry points and compute tainted names."""
        changed = True
        rounds = 0
        while changed and rounds < 20:
            changed = False
            rounds += 1
            for fn in list(self.functions):
                self._compute_taint(fn)
            for fn in list(self.functions):
                if fn.traced:
                    changed |= self._spread_from(fn)
            # traced-through lax bodies etc. anywhere (they are always traced)
            if rounds == 1:
                changed |= self._mark_hof_bodies_everywhere()

    def _mark(self, fn: FunctionInfo, reason: Reason, params: set[str] | None) -> bool:
        changed = False
        if not fn.traced_by:
            changed = True
        if reason not in fn.traced_by:
            fn.traced_by.append(reason)
        new = (params if params is not None else {p.name for p in fn.params}) - fn.static_params - fn.partial_bound
        if not new <= fn.traced_params:
            fn.traced_params |= new
            changed = True
        return changed

    @staticmethod
    def callable_params(target: FunctionInfo, bound: int) -> set[str]:
        """Parameters a caller supplies: not partial-bound, not the ``self`` of a method."""
        params = {p.name for p in target.positional()[bound:]} | {p.name for p in target.params if p.index is None}
        if target.class_name and target.params and target.params[0].name in ("self", "cls"):
            params.discard(target.params[0].name)
        return params

    def partial_keywords(self, expr: ast.expr, at: ast.AST) -> set[str]:
        """Parameters bound by keyword in ``functools.partial(f, k=v)`` around a callable,
        also through one name bound to such a call (``inner = partial(f, k=v)``)."""
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
                    expr = expr.args[0]
                    continue
                if q in DIFF_TRANSFORMS or q in TRACING_HOFS:
                    expr = expr.args[0]
                    continue
            break
        return out

    def _passthrough_params(self, call: ast.Call, q: str, target: FunctionInfo, bound: int) -> set[str]:
        """Parameters a transform passes through as given (vmap ``in_axes`` None,
        checkpoint ``static_argnums``, or a spec that is not a literal): they often hold
        Python constants, so they are not marked traced."""
        params = [p for p in target.positional()[bound:] if not (p.index == 0 and target.class_name
                                                                  and p.name in ("self", "cls"))]
        # as for jit: a parameter with a Python default (``first=False``) that the
        # transform does not pass (scan passes exactly carry and x) keeps its default
        defaulted = {p.name for p in target.params if p.default is not None
                     and not (isinstance(p.default, ast.Constant) and p.default.value is None)
                     and not self.is_array_annotation(p.annotation)}
        if q in ("jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint", "flax.nnx.remat"):
            spec = next((k.value for k in call.keywords if k.arg == "static_argnums"), None)
            nums = () if spec is None else literal_ints(spec)
            if nums is None:
                return {p.name for p in params}
            return defaulted | {params[n].name for n in nums if -len(params) <= n < len(params)}
        if q not in ("jax.vmap", "flax.nnx.vmap", "equinox.filter_vmap"):
            return defaulted
        spec = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "in_axes"), None)
        if spec is None:
            # filter_vmap batches array leaves only; jax.vmap batches everything
            if q == "equinox.filter_vmap":
                return {p.name for p in params if not self.is_array_annotation(p.annotation)}
            return defaulted
        if literal_int(spec) is not None:
            return defaulted
        if isinstance(spec, (ast.Tuple, ast.List)):
            return defaulted | {p.name for p, e in zip(params, spec.elts)
                                if isinstance(e, ast.Constant) and e.value is None}
        return {p.name for p in params}

    def _differentiated_params(self, call: ast.Call, q: str, target: FunctionInfo, bound: int) -> set[str]:
        """Parameters a differentiation transform traces: those at ``argnums`` (default
        0). The other arguments pass through as given (see ``callee`` for calls made
        where the transform is applied)."""
        if q.rsplit(".", 1)[-1] in ("jvp", "vjp", "linearize"):
            return self.callable_params(target, bound)
        spec = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "argnums"), None)
        nums = (0,) if spec is None or q.startswith("equinox.") else literal_ints(spec)
        params = [p for p in target.positional()[bound:] if not (p.index == 0 and target.class_name
                                                                  and p.name in ("self", "cls"))]
        return {params[n].name for n in nums or () if -len(params) <= n < len(params)}

    def _hof_callables(self, call: ast.Call, q: str) -> list[ast.expr]:
        idxs = TRACING_HOFS.get(q)
        if idxs is None:
            return []
        out: list[ast.expr] = []
        for i in idxs:
            if i < len(call.args):
                a = call.args[i]
                if q == "jax.lax.switch" and isinstance(a, (ast.List, ast.Tuple)):
                    out.extend(a.elts)
                else:
                    out.append(a)
        for k in call.keywords:
            if k.arg in ("f", "body_fun", "cond_fun", "true_fun", "false_fun", "fun", "branches"):
                out.append(k.value)
        return out

    def _mark_hof_bodies_everywhere(self) -> bool:
        changed = False
        for node in self.nodes(ast.Call):
            q = self.resolve_call(node)
            if q in TRACING_HOFS:
                if q in EAGER_UNDER_DISABLE_JIT and eager_block(self, node) == "jax.disable_jit":
                    continue  # `with jax.disable_jit():` runs the body as Python, with values
                for arg in self._hof_callables(node, q):
                    target, bound = self._unwrap_target(arg, node)
                    if target is not None:
                        changed |= self._mark(target, Reason(q.rsplit('.', 1)[-1], node.lineno),
                                              self.callable_params(target, bound)
                                              - self._passthrough_params(node, q, target, bound)
                                              - self.partial_keywords(arg, node))
        return changed

    def _spread_from(self, fn: FunctionInfo) -> bool:
        changed = False
        for node in fn.body_nodes():
            if isinstance(node, ast.Call):
                q = self.resolve_call(node)
                if q in DIFF_TRANSFORMS and node.args:
                    target, bound = self._unwrap_target(node.args[0], node)
                    if target is not None:
                        changed |= self._mark(target, Reason(q.rsplit('.', 1)[-1], caller=fn.qualname),
                                              self._differentiated_params(node, q, target, bound))
                    continue
                if q in TRACING_HOFS or q in JIT_LIKE:
                    continue
                target, implicit = self.callee(node.func, fn)
                if target is None or target is fn:
                    continue
                tainted_params: set[str] = set()
                positional = target.positional()
                for i, a in enumerate(node.args):
                    if isinstance(a, ast.Starred):
                        if self.is_traced_expr(a.value, fn):
                            tainted_params |= {p.name for p in target.params if p.kind in ("positional", "vararg")}
                        continue
                    j = i + implicit
                    if j < len(positional):
                        if self.is_traced_expr(a, fn):
                            tainted_params.add(positional[j].name)
                    else:
                        va = [p for p in target.params if p.kind == "vararg"]
                        if va and self.is_traced_expr(a, fn):
                            tainted_params.add(va[0].name)
                for k in node.keywords:
                    if k.arg and target.param(k.arg) and self.is_traced_expr(k.value, fn):
                        tainted_params.add(k.arg)
                    elif k.arg is None and self.is_traced_expr(k.value, fn):
                        tainted_params |= {p.name for p in target.params}
                # `self` and partial-bound leading parameters are never filled by a splat
                tainted_params -= {p.name for p in positional[:implicit]}
                target.call_sites[id(node)] = (node, fn, implicit)
                changed |= self._mark(target, Reason(CALL, caller=fn.qualname), tainted_params)
        # nested defs that close over traced names are traced when called; their
        # free names referring to tainted outer names are tainted (handled in taint)
        return changed

    def _compute_taint(self, fn: FunctionInfo) -> None:
        if not fn.traced:
            return
        tainted = set(fn.traced_params)
        # closed-over traced names from a traced enclosing function
        parent = fn.parent
        while parent is not None:
            if parent.traced:
                for name in parent.tainted:
                    if name not in fn.bindings:
                        tainted.add(name)
            parent = parent.parent
        fn.tainted = tainted
        stmts = [n for n in fn.body_nodes() if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.NamedExpr, ast.comprehension))]
        for _ in range(4):
            before = len(tainted)
            for s in stmts:
                if isinstance(s, ast.Assign):
                    if self.is_traced_expr(s.value, fn):
                        for t in s.targets:
                            tainted.update(target_names(t))
                elif isinstance(s, (ast.AnnAssign, ast.NamedExpr)):
                    if s.value is not None and self.is_traced_expr(s.value, fn) and isinstance(s.target, ast.Name):
                        tainted.add(s.target.id)
                elif isinstance(s, ast.AugAssign):
                    if self.is_traced_expr(s.value, fn) and isinstance(s.target, ast.Name):
                        tainted.add(s.target.id)
                elif isinstance(s, (ast.For, ast.AsyncFor, ast.comprehension)):
                    tainted.update(iteration_targets(s.target, s.iter, lambda e: self.is_traced_expr(e, fn)))
                elif isinstance(s, ast.With):
                    pass
            if len(tainted) == before:
                break

    def is_traced_expr(self, expr: ast.AST | None, fn: FunctionInfo | None = None) -> bool:
        """Whether ``expr`` (inside traced function ``fn``) evaluates to a traced value.

        Conservative in the direction of *not traced*: rules stay quiet when unsure.
        """
        if expr is None:
            return False
        if fn is None:
            fn = self.traced_function_of(expr)
            if fn is None:
                return False
        if isinstance(expr, ast.Name):
            return expr.id in fn.tainted
        if isinstance(expr, ast.Attribute):
            if expr.attr in STATIC_ATTRS:
                return False
            if expr.attr in ("T", "real", "imag", "mT", "at"):
                return self.is_traced_expr(expr.value, fn)
            return self.is_traced_expr(expr.value, fn)
        if isinstance(expr, ast.Subscript):
            return self.is_traced_expr(expr.value, fn)
        if isinstance(expr, ast.Starred):
            return self.is_traced_expr(expr.value, fn)
        if isinstance(expr, ast.Call):
            q = self.resolve_call(expr)
            if q in STATIC_CALLS:
                return False
            if q is not None and q.startswith(("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.")):
                if is_axis_size(expr, q):
                    return False
                if q.rsplit(".", 1)[-1] in ("shape", "ndim", "size", "dtype", "result_type", "issubdtype", "iinfo", "finfo", "promote_types", "can_cast", "isdtype"):
                    return False
                # constructors from static sizes are concrete-free constants, but under
                # jit they are still traced arrays
                return True
            if q is not None and q.startswith("jax.random."):
                return q.rsplit(".", 1)[-1] not in ("PRNGKey", "key", "key_data", "wrap_key_data") or any(
                    self.is_traced_expr(a, fn) for a in expr.args)
            if isinstance(expr.func, ast.Attribute):
                if self.is_traced_expr(expr.func.value, fn):
                    return expr.func.attr not in ("item", "tolist", "__len__")
            return any(self.is_traced_expr(a, fn) for a in expr.args) or any(
                self.is_traced_expr(k.value, fn) for k in expr.keywords)
        if isinstance(expr, ast.BinOp):
            return self.is_traced_expr(expr.left, fn) or self.is_traced_expr(expr.right, fn)
        if isinstance(expr, ast.UnaryOp):
            return self.is_traced_expr(expr.operand, fn)
        if isinstance(expr, ast.BoolOp):
            return any(self.is_traced_expr(v, fn) for v in expr.values)
        if isinstance(expr, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
                return False
            return self.is_traced_expr(expr.left, fn) or any(self.is_traced_expr(c, fn) for c in expr.comparators)
        if isinstance(expr, ast.IfExp):
            return self.is_traced_expr(expr.body, fn) or self.is_traced_expr(expr.orelse, fn)
        if isinstance(expr, (ast.Tuple, ast.List)):
            return any(self.is_traced_expr(e, fn) for e in expr.elts)
        if isinstance(expr, ast.NamedExpr):
            return self.is_traced_expr(expr.value, fn)
        return False

    # ------------------------------------------------------------------ helpers for rules
    def traced_functions(self) -> list[FunctionInfo]:
        return [f for f in self.functions if f.traced]

    def jit_map(self) -> JitMap:
        return JitMap(
            module=self.module_name,
            entries=tuple(self.entries),
            traced=tuple(
                (f.qualname if not isinstance(f.node, ast.Lambda) else f"<lambda>@{f.node.lineno}", f.node.lineno, tuple(map(str, f.traced_by)))
                for f in self.functions if f.traced
            ),
        )


def _until(nodes: Iterable[ast.AST], stop: ast.AST | None) -> Iterator[ast.AST]:
    for n in nodes:
        if n is stop:
            return
        yield n


def _is_in_header(fn_node: ast.AST, node: ast.AST, model: ModuleModel) -> bool:
    """True when ``node`` sits in the decorators or defaults of ``fn_node``."""
    if isinstance(fn_node, ast.Lambda):
        header = list(fn_node.args.defaults) + [d for d in fn_node.args.kw_defaults if d]
    else:
        header = list(fn_node.decorator_list) + list(fn_node.args.defaults) + [  # type: ignore[union-attr]
            d for d in fn_node.args.kw_defaults if d]  # type: ignore[union-attr]
    if not header:
        return False
    ids = {id(h) for h in header}
    cur: ast.AST | None = node
    while cur is not None and cur is not fn_node:
        if id(cur) in ids:
            return True
        cur = model.parents.get(id(cur))
    return False

