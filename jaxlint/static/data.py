"""The data every part of the static model names (issue 39): a function of the module
(``FunctionInfo``), its parameters (``Param``), a binding of a name (``Binding``), why a
function is traced (``Reason``), ``Model``, the questions of name resolution the parts
below ``scopes.Scopes`` ask of it, and ``ModuleLink``, how a module reaches the rest of
its tree. This module imports nothing of the model, so
the parts name these types without an import circle (type-only ones included:
tests/test_architecture.py); ``scopes`` and ``traced`` re-export them.
"""
from __future__ import annotations

import ast
from dataclasses import field
from typing import Any, Iterator, Protocol, TypeVar, overload

from jaxlint.records import FACTORY, dataclass as record

_Node = TypeVar("_Node", bound=ast.AST)

#: The kinds of jit-like entry points (the values of ``apis.JIT_LIKE``).
ENTRY_KINDS = frozenset({"jit", "pjit", "pmap", "xmap", "nnx.jit", "linen.jit", "filter_jit", "filter_pmap"})

#: ``kind`` of a reason that is a call from traced code.
CALL = "call"


@record(frozen=True)
class Reason:
    """One reason a function is traced: ``kind`` (an entry kind, the short name of the
    transform or lax function that traces it, or ``CALL``), the ``line`` of the entry
    or higher-order call, and the ``caller`` (the traced function that calls it, or in
    which a differentiation transform is applied)."""

    kind: str
    line: int | None = None
    caller: str | None = None

    def __str__(self) -> str:
        if self.kind == CALL:
            return f"called from {self.caller}"
        if self.line is not None:
            return f"{self.kind}@{self.line}"
        return f"{self.kind} in {self.caller}"

    @property
    def is_entry(self) -> bool:
        """A jit-like entry point (``jax.jit``, ``pmap``, ``eqx.filter_jit``, ...)."""
        return self.kind in ENTRY_KINDS

    @property
    def by_call(self) -> bool:
        """Traced because traced code calls it."""
        return self.kind == CALL


# Param, Binding and FunctionInfo are made for each parameter, binding and function of the
# checked code: their ``__init__`` is written out, as fast as the one ``dataclasses.dataclass``
# compiles (jaxlint.records' generic one is about four times slower) without compiling it
# at start-up (docs/performance.md, speed58). tests/test_records.py checks each against the
# standard library's.
@record
class Param:
    """A parameter of a function."""

    name: str
    index: int | None  # positional index, None for keyword-only / *args / **kwargs
    kind: str  # "positional", "keyword", "vararg", "kwarg"
    default: ast.expr | None
    annotation: ast.expr | None
    node: ast.arg

    def __init__(self, name: str, index: int | None, kind: str, default: ast.expr | None,
                 annotation: ast.expr | None, node: ast.arg) -> None:
        self.name = name
        self.index = index
        self.kind = kind
        self.default = default
        self.annotation = annotation
        self.node = node


@record
class Binding:
    """A binding of a name."""

    name: str
    node: ast.AST  # the statement (or arg) that binds it
    value: ast.expr | None  # the assigned expression, when it is a plain single assignment
    kind: str  # "assign", "param", "import", "def", "class", "for", "with", "other"

    def __init__(self, name: str, node: ast.AST, value: ast.expr | None, kind: str) -> None:
        self.name = name
        self.node = node
        self.value = value
        self.kind = kind


def by_imports(bindings: "list[Binding]") -> bool:
    """The bindings of a name are imports only (``import numpy as np``, ``from .cfg
    import N``, also twice): the one test of an imported name (``Scopes.imported``)."""
    return bool(bindings) and all(b.kind == "import" for b in bindings)


@record(eq=False)
class FunctionInfo:
    """A function of the module (a ``def``, ``async def`` or ``lambda``)."""

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
    #: Keys of the ``**kwargs`` parameter that a traced call site fills with a traced value
    #: (``update(state, sync=step % 2 == 0)`` into ``def update(state, **kwargs)``).
    traced_keywords: set[str] = field(default_factory=set)
    #: Parameters a jit keeps static that a transform inside it traces again, each with
    #: the transform and the keyword that would keep it static there
    #: (``{"n": ("jax.checkpoint", "static_argnums")}``).
    retraced_static: dict[str, tuple[str, str]] = field(default_factory=dict)
    donated_params: set[str] = field(default_factory=set)
    #: Positional parameters bound by ``functools.partial`` at the entry point.
    partial_bound: set[str] = field(default_factory=set)
    #: Names (params and locals) that hold traced values, after local propagation.
    tainted: set[str] = field(default_factory=set)
    #: Calls from traced functions that made this one traced ("called from"), by id:
    #: (the call, the caller, how many leading parameters the call does not fill).
    call_sites: dict[int, tuple[ast.Call, "FunctionInfo", int]] = field(default_factory=dict, repr=False)
    #: body_nodes(), recorded by the model's one walk of the module (``Scopes._collect``)
    _body: list[ast.AST] = field(default_factory=list, repr=False)

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, name: str, qualname: str,
                 parent: FunctionInfo | None, class_name: str | None, params: list[Param],
                 bindings: dict[str, list[Binding]] = FACTORY, globals_: set[str] = FACTORY,
                 nonlocals: set[str] = FACTORY, traced_by: list[Reason] = FACTORY,
                 traced_params: set[str] = FACTORY, static_params: set[str] = FACTORY,
                 traced_keywords: set[str] = FACTORY, retraced_static: dict[str, tuple[str, str]] = FACTORY,
                 donated_params: set[str] = FACTORY, partial_bound: set[str] = FACTORY,
                 tainted: set[str] = FACTORY, call_sites: dict[int, tuple[ast.Call, FunctionInfo, int]] = FACTORY,
                 _body: list[ast.AST] = FACTORY) -> None:
        self.node = node
        self.name = name
        self.qualname = qualname
        self.parent = parent
        self.class_name = class_name
        self.params = params
        self.bindings = {} if bindings is FACTORY else bindings
        self.globals_ = set() if globals_ is FACTORY else globals_
        self.nonlocals = set() if nonlocals is FACTORY else nonlocals
        self.traced_by = [] if traced_by is FACTORY else traced_by
        self.traced_params = set() if traced_params is FACTORY else traced_params
        self.static_params = set() if static_params is FACTORY else static_params
        self.traced_keywords = set() if traced_keywords is FACTORY else traced_keywords
        self.retraced_static = {} if retraced_static is FACTORY else retraced_static
        self.donated_params = set() if donated_params is FACTORY else donated_params
        self.partial_bound = set() if partial_bound is FACTORY else partial_bound
        self.tainted = set() if tainted is FACTORY else tainted
        self.call_sites = {} if call_sites is FACTORY else call_sites
        self._body = [] if _body is FACTORY else _body

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


class Model(Protocol):
    """What the model's parts below ``scopes.Scopes`` ask of a module's scopes (the
    callers of a function: ``callers.Callers``): ``Scopes`` is one. Named here so that
    a part ``Scopes`` itself calls does not name ``Scopes``."""

    functions: list[FunctionInfo]
    aliases: dict[str, str | None]
    classes: dict[str, ast.ClassDef]

    @overload
    def nodes(self) -> tuple[ast.AST, ...]: ...

    @overload
    def nodes(self, kind: type[_Node], /) -> tuple[_Node, ...]: ...

    @overload
    def nodes(self, *types: type) -> tuple[ast.AST, ...]: ...

    def parent(self, node: ast.AST) -> ast.AST | None: ...

    def function_of(self, node: ast.AST) -> FunctionInfo | None: ...

    def lookup(self, name: str, fn: FunctionInfo | None) -> tuple[FunctionInfo | None, list[Binding]]: ...

    def resolve(self, node: ast.AST, at: ast.AST | None = None) -> str | None: ...

    def resolve_call(self, call: ast.Call) -> str | None: ...

    def function_named(self, name: str, scope: FunctionInfo | None) -> FunctionInfo | None: ...

    def callee(self, func: ast.expr, scope: FunctionInfo | None, follow: bool = True,
               instances: bool = True) -> tuple[FunctionInfo | None, int]: ...


class ModuleLink(Protocol):
    """How a module reaches the other modules of its checked tree (``tree.Link`` is one):
    what the model's parts ask of it, each answer recording the modules read in
    ``deps`` (``use`` adds them to the file's dependencies). Typed loosely here: its
    answers are ``tree``'s types, which name the model."""

    #: the modules of the tree read so far and their digests (None: not recorded)
    used: dict[str, str] | None

    def use(self, deps: Any) -> None: ...

    def imported(self, model: Any, name: str, scope: FunctionInfo | None, attrs: tuple[str, ...], deps: Any,
                 hops: int = 0) -> Any: ...

    def class_(self, model: Any, name: str, deps: Any, mentions: Any = None) -> Any: ...

    def constant(self, model: Any, expr: ast.expr, scope: FunctionInfo | None, deps: Any,
                 mentions: Any = None) -> Any: ...

    def function(self, model: Any, func: ast.expr, scope: FunctionInfo | None, deps: Any) -> Any: ...

    def mentioned_elsewhere(self, word: str, deps: Any) -> bool: ...
