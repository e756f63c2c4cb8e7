"""The static phase's model of one module, put together from its parts.

Each part says what it holds:

* ``scopes.Scopes``: the module's scopes, functions and bindings, and name resolution
  through imports and aliases (*where was this name bound?*, *what does it refer to?*);
* ``jitmap.EntryFinder``: the jit map, the module's jitted functions with their static
  and donated arguments;
* ``traced.Tracing``: which functions are traced, with the reason as data (``Reason``),
  and which of their names hold traced values;
* ``values``: what kind of value an expression is (``Kind``, class fields, function
  summaries); ``flow``: the one decision whether, and how surely, a value in traced code
  is a tracer (``Flow.culprit``), which the tracing fixpoint asks yes/no; and ``taint``:
  the rules' view of it, with a level for each name.

``ModuleModel`` is the ``Scopes`` of a module with its jit map (``jits``) and tracing
(``tracing``) computed; it is what rules receive (``ctx.model``).
"""
from __future__ import annotations

import ast

from jaxlint.static.apis import (ARRAY_ANNOTATIONS, BUILTINS, DIFF_TRANSFORMS, FILTERED_KINDS, JIT_LIKE,  # noqa: F401
                                 NOT_ARRAY_ANNOTATIONS, STATIC_ATTRS, STATIC_CALLS, TRACING_HOFS, is_axis_size,
                                 literal_int, literal_ints, literal_strs)
from jaxlint.static.jitmap import EntryFinder, EntryPoint, JitMap
from jaxlint.static.scopes import (Binding, FunctionInfo, Param, Scopes, children, target_names,  # noqa: F401
                                   walk)
from jaxlint.static.traced import Reason, Tracing, iteration_targets, only_abstract, only_differentiated  # noqa: F401
from jaxlint.static.tree import Link


class ModuleModel(Scopes):
    """Everything the static rules need to know about one module: its scopes, with the
    jit map (``jits``) and which functions are traced (``tracing``)."""

    def __init__(self, tree: ast.Module, module_name: str = "", link: Link | None = None) -> None:
        super().__init__(tree, module_name, link)
        self.jits = EntryFinder(self)
        self.entries: list[EntryPoint] = self.jits.entries
        #: jit calls whose target is not a function of this module (e.g. ``jit(obj.f)``)
        self.entries_unresolved: list[ast.Call] = self.jits.entries_unresolved
        self.tracing = Tracing(self)
        self.tracing.propagate()

    def entry_site(self, entry: EntryPoint) -> tuple[ast.AST, FunctionInfo]:
        """The decorator or transform call that made ``entry``, and the traced function."""
        return self.jits.entry_site(entry)

    def is_traced_expr(self, expr: ast.AST | None, fn: FunctionInfo | None = None) -> bool:
        """Whether ``expr`` (inside traced function ``fn``) evaluates to a traced value."""
        return self.tracing.is_traced_expr(expr, fn)

    def traced_functions(self, differentiated: bool = False, abstract: bool | None = None) -> list[FunctionInfo]:
        """The traced functions. Those traced only by a differentiation transform applied
        outside any trace (``traced.only_differentiated``: their values are JVP tracers
        whose Python control flow works and which nothing compiles) are left out unless
        ``differentiated``: the rules about what fails on any tracer (numpy on it, printing
        it, storing it) ask for them. Those traced only abstractly (``traced.only_abstract``:
        ``jax.eval_shape``, ``jax.make_jaxpr``; nothing compiles them, they run once) are
        left out unless ``abstract`` (by default: as ``differentiated``)."""
        abstract = differentiated if abstract is None else abstract
        eager: set[int] = set()  # each walk up the callers stops where an earlier one found "no"
        evaluated: set[int] = set()
        return [f for f in self.functions if f.traced and (differentiated or not only_differentiated(f, eager))
                and (abstract or not only_abstract(f, evaluated))]

    def jit_map(self) -> JitMap:
        return JitMap(
            module=self.module_name,
            entries=tuple(self.entries),
            traced=tuple(
                (f.qualname if not isinstance(f.node, ast.Lambda) else f"<lambda>@{f.node.lineno}", f.node.lineno,
                 tuple(map(str, f.traced_by)))
                for f in self.functions if f.traced
            ),
        )
