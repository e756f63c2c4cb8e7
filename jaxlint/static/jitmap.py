"""The jit map: which functions of a module are jitted, with their static and donated
arguments. A part of the static model of a module.

``EntryFinder`` finds them in a module's ``Scopes`` (jit-like decorators, and calls of
a jit-like transform whose target is a function of the module) and marks each traced
function with its entry ``Reason``; ``EntryPoint`` and ``JitMap`` are the plain,
serializable result, which the dynamic phase reads to know what to trace and with which
static / donated arguments.
"""
from __future__ import annotations

import ast
from dataclasses import asdict
from typing import TYPE_CHECKING

from jaxlint.records import dataclass
from jaxlint.static.apis import (ARRAY_LEAVES_ONLY_KINDS, CHECKPOINTS, DIFF_TRANSFORMS, FILTERED_KINDS, JIT_LIKE, TRACING_HOFS,
                                 WRITES_BACK_KINDS, literal_ints, literal_strs)
from jaxlint.static.runs import eager_block, never_given
from jaxlint.static.traced import Reason
from jaxlint.static.values import class_facts

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.scopes import FunctionInfo, Scopes


@dataclass(frozen=True)
class EntryPoint:
    kind: str  # "jit", "pjit", "pmap", "filter_jit", "nnx.jit", ...
    qualname: str  # "f", "Model.__call__", "main.<locals>.step", "<lambda>@12"
    name: str
    line: int  # where the transform is applied (decorator or call)
    column: int
    def_line: int  # where the traced function is defined
    form: str  # "decorator", "partial-decorator", "call", "immediate"
    bound_name: str | None  # the name the jitted callable is bound to, when known
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    donate_argnums: tuple[int, ...] = ()
    donate_argnames: tuple[str, ...] = ()
    static_params: tuple[str, ...] = ()
    traced_params: tuple[str, ...] = ()
    partial_bound: int = 0
    is_method: bool = False
    specs_literal: bool = True  # False when static/donate specs are not literals

    @property
    def writes_back(self) -> bool:
        """Whether the transform stores a donated graph object's new state back into it after
        each call (``nnx.jit``: ``apis.WRITES_BACK_KINDS``), so reading it again is no misuse."""
        return self.kind in WRITES_BACK_KINDS

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "EntryPoint":
        d = dict(d)
        for k in ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames",
                  "static_params", "traced_params"):
            d[k] = tuple(d.get(k, ()))
        return cls(**d)


@dataclass(frozen=True)
class JitMap:
    module: str
    entries: tuple[EntryPoint, ...]
    #: every function known to be traced: (qualname, def line, reasons)
    traced: tuple[tuple[str, int, tuple[str, ...]], ...] = ()

    def to_dict(self) -> dict:
        return {
            "module": self.module,
            "entries": [e.to_dict() for e in self.entries],
            "traced": [{"qualname": q, "line": l, "reasons": list(r)} for q, l, r in self.traced],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "JitMap":
        return cls(
            d["module"],
            tuple(EntryPoint.from_dict(e) for e in d["entries"]),
            tuple((t["qualname"], t["line"], tuple(t["reasons"])) for t in d.get("traced", ())),
        )


class EntryFinder:
    """The jit map of one module: its entry points, found in its ``Scopes``.

    Finding an entry marks its function (``FunctionInfo``): its ``Reason`` in
    ``traced_by``, its static, donated, partial-bound and traced parameters.
    """

    def __init__(self, scopes: "Scopes") -> None:
        self.scopes = scopes
        self.entries: list[EntryPoint] = []
        #: jit calls whose target is not a function of this module (e.g. ``jit(obj.f)``)
        self.entries_unresolved: list[ast.Call] = []
        #: entry point -> (the decorator or jit call node, the traced function)
        self._entry_sites: dict[EntryPoint, tuple[ast.AST, FunctionInfo]] = {}
        #: per def (by id): its decorators' places, and the tracing wrappers among them
        self._wrapping: dict[int, tuple[dict[int, int], list[tuple[int, ast.Call, str, str]]]] = {}
        self._find_entry_points()
        self._passed_defaults()

    def _find_entry_points(self) -> None:
        """Jit-like decorators first (in function order), then jit-like calls (in walk order)."""
        for info in self.scopes.functions:
            if isinstance(info.node, ast.Lambda):
                continue
            for dec in info.node.decorator_list:
                spec = self._jit_spec(dec)
                if spec is not None:
                    kind, kwargs, form = spec
                    self._add_entry(kind, info, dec, form, kwargs, 0, bound_name=info.name)
        for node in self.scopes.nodes(ast.Call):
            q = self.scopes.resolve_call(node)
            if q in JIT_LIKE and node.args:
                parent = self.scopes.parent(node)
                if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in parent.decorator_list:
                    continue  # a decorator factory call, handled above
                target, bound = self.scopes.unwrap_target(node.args[0], node)
                kwargs = {k.arg: k.value for k in node.keywords if k.arg}
                form = "immediate" if isinstance(parent, ast.Call) and parent.func is node else "call"
                if form == "immediate" and eager_block(self.scopes, node) == "jax.disable_jit":
                    continue  # `jax.jit(f)(x)` under `jax.disable_jit()` runs `f` eagerly
                bound_name = None
                if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
                    t = parent.targets[0]
                    bound_name = t.id if isinstance(t, ast.Name) else ast.unparse(t)
                if target is not None:
                    self._add_entry(JIT_LIKE[q], target, node, form, kwargs, bound, bound_name=bound_name)
                else:
                    self.entries_unresolved.append(node)

    def _passed_defaults(self) -> None:
        """A parameter with a default keeps it, a Python value, when the jitted callable
        is called without it; a call of the module that passes it (``radial_jit(r, 2)``)
        gives it to jit, which traces it like any argument not marked static."""
        callers: dict[str, list[tuple[EntryPoint, FunctionInfo]]] = {}
        for entry, (_, fn) in self._entry_sites.items():
            if entry.bound_name and entry.kind not in FILTERED_KINDS and entry.specs_literal \
                    and entry.bound_name.isidentifier():
                callers.setdefault(entry.bound_name, []).append((entry, fn))
        calls: list[tuple[ast.Call, EntryPoint, FunctionInfo]] = []
        for entry, (node, fn) in self._entry_sites.items():
            parent = self.scopes.parent(node)
            if entry.form == "immediate" and entry.kind not in FILTERED_KINDS and entry.specs_literal \
                    and isinstance(parent, ast.Call):
                calls.append((parent, entry, fn))  # `jax.jit(block)(x, m, False)`
        for call in self.scopes.nodes(ast.Call) if callers else ():
            func = call.func
            if not isinstance(func, ast.Name) or func.id not in callers or len(callers[func.id]) != 1:
                continue
            _, bindings = self.scopes.lookup(func.id, self.scopes.function_of(call))
            if len(bindings) != 1 or bindings[0].kind not in ("def", "assign"):
                continue  # another name of the same spelling
            calls.append((call, *callers[func.id][0]))
        calls += self._method_calls()
        for call, entry, fn in calls:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                continue
            params = fn.positional()[entry.partial_bound:]
            if entry.is_method and fn.params and fn.params[0].name in ("self", "cls"):
                if not isinstance(call.func, ast.Attribute):
                    continue  # a bare name of the method's spelling is another function
                params = params[1:]  # `obj.method(x, True)`: the instance is `self`
            passed = {params[i].name for i in range(min(len(call.args), len(params)))}
            passed |= {k.arg for k in call.keywords if k.arg and fn.param(k.arg) is not None}
            for p in fn.params:
                if p.name in passed and p.default is not None and p.name not in fn.static_params \
                        and p.name not in fn.partial_bound:
                    fn.traced_params.add(p.name)

    def _method_calls(self) -> list[tuple[ast.Call, EntryPoint, "FunctionInfo"]]:
        """The calls of a jitted method of a module class (``@partial(jax.jit,
        static_argnames="self")``) through an instance the model knows the class of
        (``gp.posterior(x, params, True)``, ``self.posterior(...)``): what they pass is
        given to jit like the arguments of a call of a jitted name."""
        methods: dict[str, list[tuple[EntryPoint, FunctionInfo]]] = {}
        for entry, (_, fn) in self._entry_sites.items():
            if entry.is_method and entry.form in ("decorator", "partial-decorator") and entry.specs_literal \
                    and entry.kind not in FILTERED_KINDS and fn.params and fn.params[0].name == "self" \
                    and not isinstance(fn.node, ast.Lambda):
                methods.setdefault(fn.name, []).append((entry, fn))
        found: list[tuple[ast.Call, EntryPoint, FunctionInfo]] = []
        for call in self.scopes.nodes(ast.Call) if methods else ():
            func = call.func
            if not isinstance(func, ast.Attribute) or func.attr not in methods:
                continue
            target, implicit = self.scopes.callee(func, self.scopes.function_of(call))
            if implicit != 1:
                continue
            found += [(call, entry, fn) for entry, fn in methods[func.attr] if fn is target]
        return found

    def _jit_spec(self, dec: ast.expr) -> tuple[str, dict[str, ast.expr], str] | None:
        q = self.scopes.resolve(dec)
        if q in JIT_LIKE:
            return JIT_LIKE[q], {}, "decorator"
        if isinstance(dec, ast.Call):
            fq = self.scopes.resolve_call(dec)
            kwargs = {k.arg: k.value for k in dec.keywords if k.arg}
            if fq in JIT_LIKE and not dec.args:
                return JIT_LIKE[fq], kwargs, "decorator"
            if fq == "functools.partial" and dec.args:
                inner = self.scopes.resolve(dec.args[0])
                if inner in JIT_LIKE:
                    return JIT_LIKE[inner], kwargs, "partial-decorator"
        return None

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
        # a static argument handed to `jax.checkpoint(f)` or a `@jax.custom_vjp` function
        # inside the jit is traced again by it (unless its own static spec names it): jit
        # keeps it a Python value in its cache key, `f` sees a tracer
        retracing = self._retraced(fn, node, offset)
        retraced = static & set(retracing)
        fn.retraced_static.update({name: retracing[name] for name in retraced})
        donated = by_num(donate_nums) | set(donate_names)
        bound_params = {p.name for p in positional[:offset]}
        if isinstance(node, ast.Call) and node.args:
            bound_params |= self.scopes.partial_keywords(node.args[0], node, fn)
        fn.static_params |= static - retraced
        fn.donated_params |= donated
        fn.partial_bound |= bound_params
        line = getattr(node, "lineno", 0)
        fn.traced_by.append(Reason(kind, line))
        traced: set[str] = set()
        for p in fn.params:
            if p.name in static - retraced or p.name in bound_params:
                continue
            if p.name in ("self", "cls") and p.index == 0 and fn.class_name:
                continue
            if kind in FILTERED_KINDS and kind != "nnx.jit" and not self.scopes.is_array_annotation(p.annotation) \
                    and not (kind in ARRAY_LEAVES_ONLY_KINDS and self._pytree_annotation(p.annotation)):
                continue  # a filtered transform: only what is declared an array (or a pytree of them) is known traced
            if p.default is not None and not (isinstance(p.default, ast.Constant) and p.default.value is None) \
                    and (isinstance(p.default, ast.Constant) or not self.scopes.is_array_annotation(p.annotation)):
                continue  # keeps its default where no call passes it (`lr: jax.Array = 0.1`: a Python float)
            if isinstance(p.default, ast.Constant) and p.default.value is None \
                    and p.name in never_given(self.scopes, fn, bound_name, offset):
                continue  # `weights=None` that no call of the jitted callable passes: None under this trace
            traced.add(p.name)
        specs_literal = all(
            kwargs.get(k) is None or literal_ints(kwargs.get(k)) is not None or literal_strs(kwargs.get(k)) is not None
            for k in ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames")
        )
        # a negative static_argnums counts from the end of each call's positional arguments,
        # which defaults or *args make vary: which parameter it is depends on the call
        by_call = any(n < 0 for n in static_nums) and (
            any(p.default is not None for p in callable_params) or any(p.kind == "vararg" for p in fn.params))
        if not specs_literal or by_call or any(k.arg is None for k in getattr(node, "keywords", ())):
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

    def _retraced(self, fn: "FunctionInfo", node: ast.AST, bound: int) -> dict[str, tuple[str, str]]:
        """Parameters of ``fn`` that a transform between the jit and ``fn`` traces again,
        whatever the jit keeps static: a ``jax.checkpoint`` / ``jax.remat``
        (``jax.jit(jax.remat(f), static_argnums=0)``, or a checkpoint decorator under the
        jit decorator) traces every argument but those at its own ``static_argnums``; a
        ``@jax.custom_vjp`` / ``@jax.custom_jvp`` function every argument but those at its
        ``nondiff_argnums`` / ``nondiff_argnames`` (jax 0.10.2 raises a tracer error on
        ``if flag:`` in each). Counted, like jit's, after ``bound`` leading parameters. Each
        with the transform that traces it and the keyword that would keep it static there."""
        wrappers: list[tuple[ast.Call, str, str]] = []  # (the transform, its name, the keyword of its static spec)
        decorators: list[ast.expr] = [] if isinstance(fn.node, ast.Lambda) else fn.node.decorator_list
        place, wrapping = self._decorator_wrappers(fn, decorators)
        if isinstance(node, ast.Call) and node.args and id(node) not in place:
            expr = node.args[0]
            for _ in range(8):
                if not (isinstance(expr, ast.Call) and expr.args):
                    break
                q = self.scopes.resolve_call(expr)
                if q in CHECKPOINTS:
                    wrappers.append((expr, q, "static_argnums"))
                elif q != "functools.partial" and q not in TRACING_HOFS and q not in DIFF_TRANSFORMS:
                    break
                expr = expr.args[0]
        if isinstance(node, ast.Call) and node.args and id(node) not in place:
            below = -1  # every decorator of the def applies before the jit
        else:
            below = place.get(id(node), len(decorators))
        wrappers += [(call, q, spec) for i, call, q, spec in wrapping if i > below]
        if not wrappers:
            return {}
        params = [p for p in fn.positional()[bound:]
                  if not (p.index == 0 and fn.class_name and p.name in ("self", "cls"))]
        traced = {p.name for p in params} | {p.name for p in fn.params if p.kind == "keyword"}
        for call, _, spec_name in wrappers:
            spec = next((k.value for k in call.keywords if k.arg == spec_name), None)
            nums = () if spec is None else literal_ints(spec)
            names = next((k.value for k in call.keywords if k.arg == "nondiff_argnames"), None)
            if nums is None or names is not None and literal_strs(names) is None:
                return {}  # a spec that is not a literal: not known
            traced -= {params[n].name for n in nums if -len(params) <= n < len(params)}
            traced -= set(literal_strs(names) or ()) if names is not None else set()
        _, transform, spec_name = wrappers[0]
        return {name: (transform, spec_name) for name in traced}

    def _decorator_wrappers(self, fn: "FunctionInfo", decorators: list[ast.expr]
                            ) -> tuple[dict[int, int], list[tuple[int, ast.Call, str, str]]]:
        """Where each decorator of ``fn`` is (by id), and the decorators that trace again
        (a checkpoint, a custom derivative) with their place, read once per def: a def
        under thousands of stacked jits looks each of them up, not the whole stack again."""
        known = self._wrapping.get(id(fn.node))
        if known is not None:
            return known
        wrapping = []
        for i, dec in enumerate(decorators):
            call = dec if isinstance(dec, ast.Call) else ast.Call(func=dec, args=[], keywords=[])
            q = self.scopes.resolve_call(call) if isinstance(dec, ast.Call) else self.scopes.resolve(dec)
            if q == "functools.partial" and call.args:
                q = self.scopes.resolve(call.args[0])
            elif isinstance(dec, ast.Call) and dec.args:
                continue  # a decorator factory given arguments of its own: not read
            if q in CHECKPOINTS:
                wrapping.append((i, call, q, "static_argnums"))
            elif q in ("jax.custom_vjp", "jax.custom_jvp"):
                wrapping.append((i, call, q, "nondiff_argnums"))
        known = self._wrapping[id(fn.node)] = ({id(d): i for i, d in enumerate(decorators)}, wrapping)
        return known

    def _pytree_annotation(self, ann: ast.expr | None) -> bool:
        """``ann`` names a pytree class of this module (an ``eqx.Module``, a NamedTuple, a
        registered class or dataclass, a flax struct): equinox's filtered transforms trace
        its array leaves (the value model tells a field's kind), and keep the rest static."""
        if not isinstance(ann, ast.Name):
            return False
        facts = class_facts(self.scopes).get(ann.id)
        return facts is not None and facts.pytree not in (None, "linen", "nnx", "dataclass")

    def entry_site(self, entry: EntryPoint) -> tuple[ast.AST, FunctionInfo]:
        """The decorator or transform call that made ``entry``, and the traced function."""
        return self._entry_sites[entry]
