"""How sure the static phase is that an expression in traced code is a tracer: the rules'
view of the value model.

The decision itself is ``flow.Flow.culprit`` (see ``flow``'s docstring for what the model
knows of each shape of value); the tracing fixpoint (``Tracing``) asks the same function,
with yes/no = "level is not None". ``Taint`` adds levels to the names a function binds:

* ``CERTAIN``: a traced parameter, a jax.numpy / lax result, arithmetic on those.
* ``LIKELY``: an attribute of an unannotated traced parameter (``state.step``: usually a
  leaf, but a pytree may declare the field static) or of any traced value that an array
  cannot be (``out.timestep.extras``: a field), or a bare unannotated parameter
  used as a truth value (it may be a dict or tuple pytree, whose truthiness is static).
* ``POSSIBLE``: the result of a call the model cannot see into (``helper(x)``), which
  may return a static value such as ``x.ndim > 1``.

A parameter of a function traced only because traced code calls it is as sure as the
surest argument its traced callers pass (``_call_site_level``).

Attributes of config-like names (``config.use_bias``, ``cfg.n_layers``) and of
parameters annotated with a non-array type are not traced here: they are static
configuration in every codebase we checked (flax, optax, equinox, haiku).
"""
from __future__ import annotations

import ast
from typing import Iterator, TypeVar, cast

from jaxlint.diagnostic import Confidence
from jaxlint.rule import FindingKind
from jaxlint.static.flow import (CERTAIN, CONFIG_NAME, CONVERTERS, CONVERTING_METHODS, LIKELY, POSSIBLE,  # noqa: F401
                                 STATIC_JAX_FUNCS, _UNREADABLE, Flow, argument_for,
                                 iterated_source, iteration_targets, unpacked)
from jaxlint.static.containers import (container_carry, container_param, container_value, scalar_or_array_annotation,
                                       splat_entries)
from jaxlint.static.pyvalues import python_param
from jaxlint.static.scopes import FunctionInfo, target_names
from jaxlint.static.semantic import ModuleModel

_CONFIDENCE = (Confidence.POSSIBLE, Confidence.LIKELY, Confidence.CERTAIN)
#: how many callers (and enclosing functions) deep a view asks at most (a bound on the cost;
#: recursion stops where a function's view is being made already)
_MAX_DEPTH = 12


def confidence(level: int) -> Confidence:
    """The finding's confidence for a taint level (a finding is as sure as its value)."""
    return _CONFIDENCE[level]


class Taint(Flow):
    """Certainty levels of traced values in one traced function (memoized per name)."""

    def __init__(self, model: ModuleModel, fn: FunctionInfo, _depth: int = 0) -> None:
        super().__init__(model, fn)
        self.model: ModuleModel = model
        self._depth = _depth
        #: some answer stood in for one too deep to ask (``_call_site_level``): a shallower
        #: view of the function is asked again (``_taint_of``)
        self.truncated = False
        self.names: dict[str, int] = {}
        self._raised = 0  # how many times a name's level was set (what `_state` adds)
        self._compute_names()

    def name_level(self, name: str) -> int | None:
        """Never more than the model: a name the fixpoint does not taint stays clean."""
        return self.names.get(name) if name in self.fn.tainted else None

    def _state(self) -> tuple[int, ...]:
        """A name's level raised is a new state too: ``_compute_names`` asks again."""
        return (*super()._state(), self._raised)

    # ------------------------------------------------------------------ names
    def _compute_names(self) -> None:
        fn = self.fn
        for name in fn.traced_params:
            p = fn.param(name)
            if self.indirect and p is not None and p.annotation is not None \
                    and not self.model.is_array_annotation(p.annotation) \
                    and self._pytree_field(p.annotation, "") is None \
                    and not (_scalar_annotation(p.annotation) and self._given_by_entries(p)):
                # the author declares a Python value (`flag: bool`, `spec: Spec`), not a pytree;
                # but jit reads no annotation: `n: int` that a jitted caller passes a certain
                # tracer (its own traced argument, a `jax.numpy` result) holds that tracer
                continue
            if p is not None and python_param(self.model, fn, p):
                continue  # a dtype, or a Python flag only filtered transforms trace (`pyvalues`)
            level = self._call_site_level(p) if self.indirect and p is not None else CERTAIN
            if level is not None:
                self.names[name] = level
                self._raised += 1
        parent = fn.parent
        if parent is not None and parent.traced and (self._depth >= _MAX_DEPTH or self._busy(parent)):
            self.truncated = True
        elif parent is not None and parent.traced:
            outer = self._asked(parent)
            for name, level in outer.names.items():
                if name not in fn.bindings:
                    self.names[name] = level
                    self._raised += 1
        binders = [n for n in fn.body_nodes() if isinstance(
            n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension))]
        for _ in range(4):
            before = dict(self.names)
            for s in binders:
                if isinstance(s, ast.Assign):
                    targets: list[ast.AST] = list(s.targets)
                    value: ast.AST | None = s.value
                elif isinstance(s, (ast.AnnAssign, ast.NamedExpr)):
                    targets, value = [s.target], s.value
                elif isinstance(s, ast.AugAssign):
                    targets, value = [s.target], ast.BinOp(s.target, s.op, s.value)
                else:
                    traced_targets = iteration_targets(s.target, s.iter, lambda e: self.culprit(e) is not None)
                    targets = [ast.Name(id=n) for n in traced_targets]
                    value = s.iter
                if value is None:
                    continue
                for whole in targets:
                    # `for offset, data in zip(m.offsets, m.data)`: each name is as traced as
                    # its own iterable (`iterated_source`), not as the `zip` call the model cannot see into
                    if isinstance(s, (ast.For, ast.AsyncFor, ast.comprehension)) and isinstance(whole, ast.Name):
                        pairs: list = [(whole, iterated_source(whole.id, s.target, s.iter) or s.iter)]
                    else:
                        pairs = unpacked(whole, value)
                    for t, v in pairs:
                        level = self.level(v)
                        if level is None:
                            continue
                        for name in target_names(t):
                            # never more than the model: a name it does not taint stays clean
                            if name in fn.tainted and self.names.get(name, -1) < level:
                                self.names[name] = level
                                self._raised += 1
            if self.names == before:
                break

    def _call_site_level(self, p) -> int | None:
        """How sure parameter ``p`` of a function traced only because traced code calls
        it holds a tracer: the surest argument the traced callers pass it (``helper(x)``
        with ``x`` a traced array: CERTAIN; ``helper(view.axis)``, a pytree field: LIKELY).
        A keyword splat binds ``p`` per caller (``_splat_level``). CERTAIN when a call site
        cannot be read otherwise (``*args``, too deep)."""
        best: int | None = None
        sites = [(c, caller, implicit) for c, caller, implicit in self.fn.call_sites.values() if caller.traced]
        if not sites:
            return CERTAIN
        if self._depth >= _MAX_DEPTH or any(self._busy(caller) for _, caller, _ in sites):
            self.truncated = True  # too deep, or a caller being asked already (recursion)
            return CERTAIN
        for call, caller, implicit in sites:
            skip = self.model.leading_arguments(call)
            arg = argument_for(call, self.fn, p, implicit, skip=skip)
            if arg is _UNREADABLE:
                level = self._splat_level(call, caller, p, implicit, skip)
            elif arg is None:
                continue  # left to its default here
            else:
                level = self._asked(caller).level(arg)
            if level is not None and (best is None or level > best):
                best = level
            if best == CERTAIN:
                break
        return best

    def _given_by_entries(self, p) -> bool:
        """Every traced caller of this function is itself traced only by a transform (a jit,
        a vmap, a lax body: not because other traced code calls it), and one passes ``p`` a
        certain tracer. Through a chain of calls the callers' binding is too often wrong
        (a `None` default of a jitted wrapper's `n: int | None`, handed down) to overrule
        the author's annotation."""
        sites = [(c, caller, implicit) for c, caller, implicit in self.fn.call_sites.values() if caller.traced]
        if not sites or any(r.by_call for _, caller, _ in sites for r in caller.traced_by):
            return False
        if self._depth >= _MAX_DEPTH or any(self._busy(caller) for _, caller, _ in sites):
            return False
        certain = False
        for call, caller, implicit in sites:
            arg = argument_for(call, self.fn, p, implicit, skip=self.model.leading_arguments(call))
            if arg is _UNREADABLE:
                return False  # a splat (`f(*args)`): which value fills `p` is not read
            if arg is not None and self._asked(caller).level(arg) == CERTAIN:
                certain = True
        return certain

    def _busy(self, other: FunctionInfo) -> bool:
        """``other``'s view is being made (this one is asked on the way): recursion."""
        return id(other) in self.model.__dict__.setdefault("_taint_busy", set())

    def _asked(self, other: FunctionInfo) -> "Taint":
        """The view of another function this one's answer reads (a caller, the enclosing
        function): one level deeper; a truncated answer there truncates this one."""
        t = _taint_of(self.model, other, self._depth + 1)
        self.truncated |= t.truncated
        return t

    def _splat_level(self, call: ast.Call, caller: FunctionInfo, p, implicit: int, skip: int) -> int | None:
        """How sure ``p`` holds a tracer where ``call`` (in ``caller``) may fill it from a
        keyword splat, ``f(x, **kw)``: as sure as what a keyword or a positional argument
        passes it, if one does; else as the entry for ``p`` of each dict the splat may hold
        where every one is known (``containers.splat_entries``), read where the dict is
        made (a dict made outside any trace holds concrete values), not at all where none
        has that key. A splat of a dict the model cannot see binds nothing certain: at most
        POSSIBLE, when it is traced. A positional splat (``f(*xs)``) or ``p`` a ``*args`` /
        ``**kwargs`` parameter: CERTAIN."""
        if p.kind in ("vararg", "kwarg"):
            return CERTAIN
        here = self._asked(caller)
        named = [k for k in call.keywords if k.arg is not None]
        arg = argument_for(ast.Call(func=call.func, args=call.args, keywords=named), self.fn, p, implicit, skip=skip)
        if arg is _UNREADABLE:
            return CERTAIN
        if arg is not None:
            return here.level(arg)
        best: int | None = None
        for k in call.keywords:
            if k.arg is not None:
                continue
            found = splat_entries(self.model, caller, k.value)
            if found is None:
                level = None if here.level(k.value) is None else POSSIBLE
            else:
                level = _best_level(self._asked(scope).level(entries[p.name])
                                    for entries, scope in found
                                    if p.name in entries and scope is not None and scope.traced)
            best = _best_level((best, level))
        return best


def _best_level(levels) -> int | None:
    """The surest of some levels (None: not traced)."""
    return max((lv for lv in levels if lv is not None), default=None)


#: the rules' name for ``callers.argument_for`` (JAX111 reads call sites with it)
_argument_for = argument_for


def taint_of(model: ModuleModel, fn: FunctionInfo) -> "Taint":
    """The value model's view of traced function ``fn``, made once per module and function."""
    return _taint_of(model, fn, 0)


def _taint_of(model: ModuleModel, fn: FunctionInfo, depth: int) -> "Taint":
    """One Taint per traced function of a module (callers are asked about many callees)."""
    cache = model.__dict__.setdefault("_taint_by_function", {})
    t = cache.get(id(fn))
    if t is None or (t.truncated and t._depth > depth):
        # made deep in a chain of callers, where the callers' callers were not asked: ask
        # again from here, so that no answer depends on the order the rules ask in
        busy = model.__dict__.setdefault("_taint_busy", set())
        busy.add(id(fn))
        try:
            t = cache[id(fn)] = Taint(model, fn, depth)
        finally:
            busy.discard(id(fn))
    return t


def describe(node: ast.AST) -> str:
    """Short source text for messages."""
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover - exotic nodes
        return type(node).__name__
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def traced_functions(model: ModuleModel) -> Iterator[tuple[FunctionInfo, Taint]]:
    for fn in model.traced_functions():
        yield fn, _taint_of(model, fn, 0)


#: the finding kind of a finding in a function traced only through its callers
#: (:func:`through_callers`; JAX105's and JAX111's ``kinds``)
THROUGH_CALLERS = "through-callers"

#: the kind as JAX105 and JAX111 declare it (``Rule.kinds``): on by default in the rules' group
#: while its blind figure holds (``benchmarks/rule_figures.json``; ``tests/test_groups.py``)
THROUGH_CALLERS_KINDS = {THROUGH_CALLERS: FindingKind(
    "correctness", "a finding in a function no transform applies to, traced only because traced functions call it "
                   "(the message says \"called from traced `f`\"): it stands on the model's binding of the callers' "
                   "arguments and on every path of theirs that reaches the call")}


def through_callers(fn: FunctionInfo) -> bool:
    """Traced only because traced functions call it: no transform applies to ``fn`` itself,
    so a value is traced there only as the model binds the callers' arguments to its
    parameters, across calls, keywords, closures and partials. Judged blind on unseen
    libraries, that binding was wrong in 17 of the 19 JAX105/JAX111 findings it made
    (docs/precision.md, "Findings in functions traced through their callers"): a finding
    there is at most likely, never an error, however sure the binding looks. Not so a
    helper defined inside the function that calls it (``def clip(y): ...`` called as
    ``clip(x * 2)`` in a jitted ``step``): the call and the definition are in one scope,
    and the helper is as sure as that caller."""
    if not fn.traced_by or not all(r.by_call for r in fn.traced_by):
        return False
    callers = [caller for _, caller, _ in fn.call_sites.values()]
    return not callers or not all(_encloses(caller, fn) and not through_callers(caller) for caller in callers)


def _encloses(outer: FunctionInfo, fn: FunctionInfo) -> bool:
    scope = fn.parent
    while scope is not None:
        if scope is outer:
            return True
        scope = scope.parent
    return False


_Context = TypeVar("_Context")


def at_most_likely(ctx: _Context) -> _Context:
    """``ctx``, whose findings are at most likely and of the kind :data:`THROUGH_CALLERS` (in a
    function traced only through its callers, :func:`through_callers`): every other attribute is
    the context's own."""
    return cast(_Context, _AtMostLikely(ctx))


class _AtMostLikely:

    def __init__(self, ctx) -> None:
        self._ctx = ctx

    def report(self, *args, confidence: Confidence = Confidence.CERTAIN, kind: str | None = None, **kwargs):
        if confidence is Confidence.CERTAIN:
            confidence = Confidence.LIKELY
        return self._ctx.report(*args, confidence=confidence, kind=kind or THROUGH_CALLERS, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._ctx, name)


def traced_how(fn: FunctionInfo) -> str:
    """``jitted `step``` / ```body`` (traced by scan at line 12)`` for messages."""
    name = "lambda" if isinstance(fn.node, ast.Lambda) else fn.qualname.replace(".<locals>.", ".")
    reasons = fn.traced_by
    for r in reasons:
        if r.kind in _JIT_KINDS or r.kind == "filter_pmap":
            return f"{'pmapped' if 'pmap' in r.kind else 'jitted'} `{name}`"
    for r in reasons:
        if r.line is not None:
            return f"`{name}` (traced by {r.kind} at line {r.line})"
    if reasons:
        r = reasons[0]
        if r.by_call:
            return f"`{name}` (called from traced `{(r.caller or '').replace('.<locals>.', '.')}`)"
        return f"`{name}` (traced: {r})"
    return f"`{name}`"


def is_jit_entry(fn: FunctionInfo) -> bool:
    return any(r.kind in _JIT_KINDS for r in fn.traced_by)


#: the entry kinds that messages call jitted (xmap and filter_pmap are left out)
_JIT_KINDS = frozenset({"jit", "pjit", "pmap", "filter_jit", "nnx.jit", "linen.jit"})


def _unpacked_cap(model: ModuleModel, fn: FunctionInfo, name: str, bindings: list) -> int | None:
    """A local unpacked once from a parameter (``arg, deque = carry``) is an element of a
    tuple pytree, which may be a container as the parameter may: as sure as its place in
    the parameter's ``tuple[...]`` annotation says (a container class there: static), or
    LIKELY, as a bare unannotated parameter; CERTAIN for any other local."""
    if len(bindings) != 1 or not isinstance(bindings[0].node, ast.Assign):
        return CERTAIN
    stmt = bindings[0].node
    target = stmt.targets[0] if len(stmt.targets) == 1 else None
    source = fn.param(stmt.value.id) if isinstance(stmt.value, ast.Name) else None
    if source is None or not isinstance(target, (ast.Tuple, ast.List)) \
            or not all(isinstance(e, ast.Name) for e in target.elts):
        return CERTAIN
    index = next(i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name)
    ann = source.annotation
    if ann is None:
        return LIKELY
    if isinstance(ann, ast.Subscript) and (model.resolve(ann.value) or "") in ("builtins.tuple", "typing.Tuple") \
            and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) == len(target.elts):
        return CERTAIN if scalar_or_array_annotation(model, ann.slice.elts[index]) else None
    return CERTAIN


def _scalar_annotation(ann: ast.expr | None) -> bool:
    """``ann`` is a Python number or flag type, alone or optional (``int``, ``float | None``)."""
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        parts = [ann.left, ann.right]
        return any(_scalar_annotation(a) for a in parts) and all(
            _scalar_annotation(a) or (isinstance(a, ast.Constant) and a.value is None) for a in parts)
    return isinstance(ann, ast.Name) and ann.id in ("int", "float", "bool", "complex")


def bare_name_cap(model: ModuleModel, fn: FunctionInfo, name: ast.Name) -> int | None:
    """How sure a bare name used as a truth value is an array. Containers have a static
    truth value: ``*args``/``**kwargs``, a parameter defaulting to ``()``/``[]``/``{}`` or
    annotated as a tuple, list, dict or other non-array type, a local that holds a
    display or a ``jax.tree`` result where it is tested (``xs = []`` ... ``if xs``, even
    when a later statement rebinds it to an array). An unannotated parameter may be a
    dict or tuple pytree, so at most LIKELY; a local holding a pytree field
    (``extras = out.timestep.extras``) is both unsure and maybe a container: POSSIBLE."""
    p = fn.param(name.id)
    if p is None or len(fn.bindings.get(name.id, [])) > 1:
        bindings = model.reaching_bindings(name, fn)
        if bindings and all(b.kind == "param" and container_param(model, fn.param(name.id))
                            or container_value(model, b.value) for b in bindings):
            return None
        if bindings and all(isinstance(b.value, ast.Attribute) and b.value.attr not in ("T", "mT", "real", "imag")
                            for b in bindings):
            # `extras = state.timestep.extras; if extras:` a pytree field (it may be static)
            # tested for truth (it may be a dict or tuple): not sure enough to report
            return POSSIBLE
        if p is None:
            return _unpacked_cap(model, fn, name.id, bindings)
    if container_param(model, p) or container_carry(model, fn, p):
        return None
    if p.annotation is None:
        return _given_level(model, fn, p.name)
    return CERTAIN if scalar_or_array_annotation(model, p.annotation) else None


def _given_level(model: ModuleModel, fn: FunctionInfo, name: str) -> int | None:
    """How sure an unannotated parameter ``name`` of ``fn`` (traced by a transform of ``fn``
    itself) tested for truth is an array, by what the module's calls hand it: CERTAIN when
    every one passes a number or a flag (``f(x, True)``: jit traces it), none when every one
    passes a container display (``f(x, {"a": 1})``: its truth is its structure), LIKELY when
    the calls are not all known or differ (an unannotated parameter may be a container)."""
    if not any(not r.by_call for r in fn.traced_by):
        return LIKELY
    from jaxlint.static.callers import Callers
    held = Callers.of(model).held(fn, name)
    if not held:
        return LIKELY
    if all(isinstance(v, ast.Constant) and isinstance(v.value, (bool, int, float, complex)) for v, _ in held):
        return CERTAIN
    if all(container_value(model, v) for v, _ in held):
        return None
    return LIKELY
