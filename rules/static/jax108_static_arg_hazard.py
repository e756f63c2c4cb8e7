from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Confidence, Severity
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.jitcalls import call_arguments, jit_call_sites, jitted_bound_method, named_calls, traced_statics
from jaxlint.static.classes import ASSIGNMENTS, annotation_options, class_hashing, field_arguments, module_class, stale_attribute
from jaxlint.static.hashing import (annotation_compare_raises, compare_raises, constant_value, unhashable_annotation,
                                    unhashable_value)
from jaxlint.static.semantic import FunctionInfo, ModuleModel
from jaxlint.static.taint import traced_how
from jaxlint.static.values import class_facts

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

_FLOAT_TYPES = {"builtins.float", "numpy.float32", "numpy.float64"}


class StaticArgHazard(StaticRule):
    """
    ## What it does
    Checks the parameters named in `static_argnums` / `static_argnames` of functions
    jitted in this module, using their annotations, defaults and the calls in the
    same module as evidence, and finds:

    * unhashable static values: lists, dicts, sets, NumPy or JAX arrays, instances of
      a plain `@dataclass` (without `frozen=True`), tuples and `NamedTuple` /
      `collections.namedtuple` instances holding one of these (a tuple hashes by hashing
      its elements), also given to a wrapper function
      that passes its parameter on as the static argument (`def grid(f, bounds):
      return _grid(f, bounds)`, `grid(f, [-1, 1])`) or a wrapper parameter's default;
    * a tracer reaching a static parameter: passed or `functools.partial`-bound in traced
      code (to a jitted method also through an instance: `self.source.fill(v, i)`, `obj.take(x, i)`,
      `self(x, i)` of a jitted `__call__`),
      or bound by a `jax.tree_util.Partial` passed to a jit (its leaves are traced);
    * float static values that vary between calls (a call passes a computed value,
      or several different float literals);
    * a static `self` of a class that hashes by identity (no `__hash__` / `__eq__`)
      whose attributes are read in the traced method and reassigned after setup, and
      the same of a method jitted bound (`jax.jit(env.reset)`, `jax.jit(self.step)`),
      whose object every program it compiles bakes in; and a static `self` of a plain
      `@dataclass`, which is unhashable (a static `self` is shown at the decorator or
      the jit call that makes it static, where the fix goes);
    * an object of such an identity-hashed class passed as a static argument again
      after an attribute the trace reads was reassigned (`h.data = ...` between two
      calls): the second call reuses the stale program;
    * an instance of a `@dataclass(frozen=True)` or `@dataclass(unsafe_hash=True)`
      holding an array, passed as a static argument: its generated hash hashes the
      array;
    * (in a module that jits) an array, list, dict or set in a field a pytree class
      declares static (`eqx.field(static=True)`, `flax.struct.field(pytree_node=False)`,
      `dataclasses.field(metadata=dict(static=True))` of a registered dataclass), by the
      field's annotation or by the value given where the class is instantiated: static
      fields are the pytree's metadata, which jit compares with its cached programs',
      so a second call with another instance raises ValueError. jit compares them with
      `==`, not by hash: a value given there is an error only when it is an array or holds
      one (a list or dict of Python values compares fine, checked with jax 0.10.2); an
      annotation alone is a likely warning, which says it raises only where the annotation
      admits arrays alone (`jax.Array`, `list[jax.Array]`, `dict[str, Array]`), and of a
      `list` or `dict` that each instance holding another one compiles again. Where every
      instantiation in the module writes the value out (`Model((1.0, 2.0))`, `Model([64],
      {"a": 1})`: the same at every call), the values decide over the annotation.

    Parameters with no evidence are left alone. A value a call passes (or gives to a
    static field) makes an error: jax raises. An unhashable default is a warning: jit
    hashes only the static arguments a call gives, so the default itself runs, and any
    call that passes such a value raises. An annotation alone is what the author says, not
    a value, and may be stale: a warning, and none when the module's own calls of the
    function pass the parameter (they are the evidence then).

    ## Why is this bad?
    jit caches compiled programs by the *hash* of static arguments. An unhashable
    value raises `ValueError: Non-hashable static arguments are not supported`.
    Every distinct float compiles a new program (seconds each for a real model) and
    fills the cache. A `self` that hashes by identity always hits the cache, so after
    `self.scale = 2.0` the jitted method keeps running the program traced with the
    old value: a silent wrong result.

    ## Example
    ```python
    @functools.partial(jax.jit, static_argnames=("sizes", "lr"))
    def step(params, sizes: list[int], lr: float):
        ...

    for i in range(steps):
        params = step(params, [64, 64], lr * 0.99**i)
    ```

    ## Use instead
    ```python
    @functools.partial(jax.jit, static_argnames=("sizes",))
    def step(params, sizes: tuple[int, ...], lr):
        ...  # lr is traced: one program for every value

    params = step(params, (64, 64), lr * 0.99**i)
    ```
    For methods, pass the changing state as an argument, make the object an
    immutable pytree (`flax.struct.dataclass`, `equinox.Module`), or define
    `__hash__` and `__eq__` over the fields the trace reads.

    ## Options

    ## References
    * [jax.jit static_argnums](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)
    * [JAX FAQ: how to use jit with methods](https://docs.jax.dev/en/latest/faq.html#how-to-use-jit-with-methods)
    """

    code = "JAX108"
    group = "pedantic"
    severity = Severity.WARNING  # the findings that raise ask for error; those that compile again warn
    name = "static-arg-hazard"
    summary = "a static argument that is unhashable, a varying float, or a mutable identity-hashed object"
    fix_hint = "make static values hashable and few (tuples, ints, strings), or pass them as traced arguments"

    VALID = [
        Valid(
            """
            from typing import Any, NamedTuple
            import jax

            class OptState(NamedTuple):
                packed: tuple
                treedef: Any

            def optimize(start, num_batches, opt_state):
                return opt_state

            optimize_jit = jax.jit(optimize, static_argnums=(1, 2))

            def run(params):
                return optimize_jit(0, 20, OptState((1, 2), None)), optimize_jit(0, 20, (3, (4, 5)))
            """
        ),
        Valid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, static_argnames=("sizes", "mode", "eps"))
            def f(x, sizes: tuple[int, ...], mode: str = "train", eps: float = 1e-6):
                return x

            y = f(1.0, (2, 3), "eval", 1e-5)
            """
        ),
        Valid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, static_argnums=1)
            def f(x, cfg):
                return x * cfg.scale

            def run(x, cfg):
                return f(x, cfg)
            """
        ),
    ]

    INVALID = [
        Invalid(
            """
            from typing import Any, NamedTuple
            import jax

            class OptState(NamedTuple):
                packed: list
                treedef: Any

            def optimize(start, num_batches, opt_state):
                return opt_state

            optimize_jit = jax.jit(optimize, static_argnums=(1, 2))

            def run(params):
                state = OptState([params], None)
                return optimize_jit(0, 20, state)
            """,
            line=15,
            message="holding a list in field `packed`",
        ),
        Invalid(
            """
            from functools import partial
            import jax
            import jax.numpy as jnp

            class Planner:
                def __init__(self, area):
                    self._precompute(area)

                def _precompute(self, area):
                    self.index = jnp.cumsum(area)

                def grow(self, area):
                    self._precompute(area)  # after construction: lookup keeps the old index

                @partial(jax.jit, static_argnums=(0,))
                def lookup(self, pos):
                    return self.index[pos]
            """,
            line=15,
            message="reassigned at line 10",
        ),
        Invalid(
            """
            import functools
            import jax
            from typing import List

            @functools.partial(jax.jit, static_argnames="sizes")
            def f(x, sizes: List[int]):
                return x
            """,
            line=6,
            message="`sizes` is static but annotated as a list",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        calls: list[ast.Call] | None = None
        for entry in model.entries:
            bound = jitted_bound_method(model, entry)  # its `self` is baked in, as a static `self` is
            if bound is not None:
                self._static_self(ctx, model, bound[1], bound[0], f"`{ctx.segment(bound[0])}` is jitted as a bound method")
            if not entry.static_params or not entry.specs_literal:
                continue
            calls = named_calls(model) if calls is None else calls
            site, fn = model.entry_site(entry)
            static = set(entry.static_params)
            reported: set[str] = set()
            for name in sorted(static):
                p = fn.param(name)
                if p is None:
                    continue
                if name in ("self", "cls") and p.index == 0 and fn.class_name:
                    # shown where the jit makes `self` static (the decorator or the call), about `self`
                    self._static_self(ctx, model, fn, site, anchor=p.node)
                    reported.add(name)
                    continue
                what = unhashable_annotation(model, p.annotation) or unhashable_value(model, fn, p.default, None)
                if what is not None:
                    annotated = unhashable_annotation(model, p.annotation) is not None
                    if annotated and any(param == name for call, offset in jit_call_sites(model, entry, calls)
                                         for param, _ in call_arguments(call, fn, offset)):
                        continue  # the module's calls say what is passed (`_call_sites` reports an array
                        # passed there); an annotation is only what the author says it is
                    how = "annotated as" if annotated else "defaulting to"
                    # not proven: jit hashes only the static arguments a call gives (a default it is
                    # not given is never hashed), and an annotation is not a value; a call passing
                    # one is the error (`_call_sites`)
                    ctx.report(p.node, f"`{name}` is static but {how} {what}, which is unhashable: calling "
                                       f"`{fn.name}` with {what} for it raises ValueError "
                                       f"(static arguments must be hashable)",
                               severity=Severity.WARNING,
                               related=[ctx.related(site, "made static here")],
                               data={"param": name, "kind": what},
                               confidence=Confidence.LIKELY if annotated else Confidence.CERTAIN)
            self._call_sites(ctx, model, entry, fn, static - reported, calls)
        if model.entries:
            self._static_fields(ctx, model)
            self._traced_statics(ctx, model, calls if calls is not None else named_calls(model))

    def _static_fields(self, ctx, model: ModuleModel) -> None:
        """An array, list, dict or set in a field a pytree class declares static
        (``eqx.field(static=True)``, ``struct.field(pytree_node=False)``,
        ``dataclasses.field(metadata=dict(static=True))`` of a registered dataclass): the
        field is the pytree's metadata, which jit compares with that of its cached
        programs, so a second call with another instance raises ValueError. Evidence: the field's annotation,
        or an unhashable value given for it where the class is instantiated."""
        facts = class_facts(model)
        given: list[tuple[ast.Call, FunctionInfo | None, ast.ClassDef, str, ast.expr]] = []
        for call in model.nodes(ast.Call):
            scope = model.function_of(call)
            made = module_class(model, scope, call.func)
            f = facts.get(made.name) if made is not None else None
            if made is not None and f is not None and f.pytree in _METADATA_PYTREES and f.static_fields:
                given += [(call, scope, made, field_name, arg) for field_name, arg in field_arguments(made, call)
                          if field_name in f.static_fields]
        written: dict[tuple[str, str], bool] = {}  # every value given is written out, the same at every run
        for call, scope, made, field_name, arg in given:
            key = (made.name, field_name)
            written[key] = written.get(key, True) and constant_value(model, scope, arg)
        annotated: set[tuple[str, str]] = set()
        for name, cls in model.classes.items():
            f = facts.get(name)
            if f is None or f.pytree not in _METADATA_PYTREES or not f.static_fields:
                continue
            for stmt in cls.body:
                if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                        and stmt.target.id in f.static_fields) or written.get((name, stmt.target.id)):
                    continue  # the values the module gives the field decide: the same on every call
                what = unhashable_annotation(model, stmt.annotation)
                if what is None:
                    continue
                annotated.add((name, stmt.target.id))
                raises = annotation_compare_raises(model, stmt.annotation)
                how = (f"raises ValueError (an array's `==` is elementwise)" if raises else
                       f"compiles again for each `{name}` whose {what} differs (jit compares it by `==`; {what} of "
                       f"arrays raises ValueError)")
                ctx.report(stmt, f"field `{stmt.target.id}` of `{name}` is declared static but annotated as {what}: "
                                 f"a static field is the pytree's metadata, which jit compares with that of its "
                                 f"cached programs, so calling a jitted function again with another `{name}` "
                                 f"{how}; make it a leaf (drop the "
                                 f"static declaration) or store a hashable value (a tuple)",
                           severity=Severity.WARNING, data={"class": name, "field": stmt.target.id, "kind": what},
                           confidence=Confidence.LIKELY)  # an annotation, not a value seen: unproven
        for call, scope, made, field_name, arg in given:
            if (made.name, field_name) in annotated:
                continue  # shown at the field's annotation
            what = unhashable_value(model, scope, arg, call)
            if what is None or not compare_raises(model, scope, arg, call):
                continue  # jit compares static metadata by `==`: plain lists and dicts compare fine
            ctx.report(arg, f"`{ctx.segment(arg)}` is {what}, given to field `{field_name}` that `{made.name}` "
                            f"declares static: a static field is the pytree's metadata, which jit compares with "
                            f"that of its cached programs, so calling a jitted function again with another "
                            f"`{made.name}` raises ValueError (an array's `==` is elementwise); make the field a "
                            f"leaf or store a hashable value (a tuple)",
                       severity=Severity.ERROR, data={"class": made.name, "field": field_name, "kind": what})

    def _call_sites(self, ctx, model: ModuleModel, entry, fn: FunctionInfo, static: set[str],
                    calls: list[ast.Call]) -> None:
        floats: dict[str, list[ast.expr]] = {}
        by_object: dict[tuple[int, str, str], list[tuple[ast.Call, ast.Name]]] = {}
        for call, offset in jit_call_sites(model, entry, calls):
            scope = model.function_of(call)
            for param, arg in call_arguments(call, fn, offset):
                if param not in static:
                    continue
                what = unhashable_value(model, scope, arg, call)
                via = None
                if what is None:
                    via = _unhashable_through_wrapper(model, scope, arg, calls)
                    what = via[0] if via is not None else None
                if what is not None:
                    how = (f" (`{via[1]}` passes it to `{scope.name if scope else ''}` at line {via[2]})"
                           if via is not None else "")
                    ctx.report(arg, f"`{ctx.segment(arg)}` is {what}{how}, passed to static parameter `{param}` of "
                                    f"`{fn.name}`: it is unhashable, so the call raises ValueError",
                               severity=Severity.ERROR, data={"param": param, "kind": what})
                    static = static - {param}
                else:
                    floats.setdefault(param, []).append(arg)
                    if isinstance(arg, ast.Name) and scope is not None:
                        by_object.setdefault((id(scope), arg.id, param), []).append((call, arg))
        for (_, name, param), uses in by_object.items():
            self._stale_static_object(ctx, model, fn, name, param, uses)
        for param, args in floats.items():
            if param in static:
                self._varying_float(ctx, model, fn, param, args)

    def _traced_statics(self, ctx, model: ModuleModel, calls: list[ast.Call]) -> None:
        for t in traced_statics(model, calls):
            into, scope = t.into, t.scope
            how = (f"is bound by a `jax.tree_util.Partial` passed to jitted `{into[1].name}` (line "
                   f"{into[0].lineno}), whose bound arguments are pytree leaves the jit traces, and" if into is not None
                   else f"is traced in {traced_how(scope)} and" if scope is not None else "is traced and")
            ctx.report(t.value, f"`{ctx.segment(t.value)}` {how} reaches static parameter `{t.param}` of "
                                f"`{t.target.name}`: a tracer is unhashable, so the call raises ValueError "
                                f"(non-hashable static arguments); pass or close over a Python value",
                       severity=Severity.ERROR, data={"param": t.param, "kind": "a tracer"})

    def _stale_static_object(self, ctx, model: ModuleModel, fn: FunctionInfo, name: str, param: str,
                             uses: list[tuple[ast.Call, ast.Name]]) -> None:
        """``h = Holder(...)`` passed to static parameter ``param`` of jitted ``fn`` twice,
        with ``h.attr = ...`` between the calls and ``param.attr`` read in the trace:
        ``Holder`` hashes by identity, so the second call hits the cache and runs the
        program traced with the old value."""
        scope = model.function_of(uses[0][0])
        _, bindings = model.lookup(name, scope)
        if not bindings or not all(b.kind == "assign" and isinstance(b.value, ast.Call) for b in bindings):
            return
        made = bindings[0].value
        if len(bindings) != 1 or not isinstance(made, ast.Call):
            return
        classes = {id(c): c for c in [module_class(model, scope, made.func)] if c is not None}
        if len(classes) != 1:
            return
        only = next(iter(classes.values()))
        if class_hashing(model, only) != "identity":
            return
        read = {n.attr for n in fn.body_nodes() if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                and n.value.id == param and isinstance(n.ctx, ast.Load)}
        ordered = sorted(uses, key=lambda u: (u[0].lineno, u[0].col_offset))
        if scope is None or len(ordered) < 2:
            return
        for n in scope.body_nodes():
            if not isinstance(n, ASSIGNMENTS):
                continue
            changed = [(t.attr, t) for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                       if isinstance(t, ast.Attribute) and t.attr in read
                       and isinstance(t.value, ast.Name) and t.value.id == name]
            if not changed or ordered[0][0].lineno >= n.lineno:
                continue  # no write of a field the trace reads, or none after a first call
            later = [u for u in ordered if u[0].lineno > n.lineno]
            if not later:
                continue
            call, arg = later[0]
            attr = changed[0][0]
            ctx.report(arg, f"`{name}` is passed to static parameter `{param}` of `{fn.name}` again after "
                            f"`{name}.{attr}` changed at line {n.lineno}: `{only.name}` hashes by identity, so this "
                            f"call reuses the program compiled with the old `{attr}` (a silent stale result); pass "
                            f"`{name}` as a traced argument (a pytree) or define `__hash__` and `__eq__` over the "
                            f"fields the trace reads",
                       related=[ctx.related(n, f"`{name}.{attr}` changes here")],
                       data={"param": param, "class": only.name, "attribute": attr},
                       confidence=Confidence.LIKELY)  # the write may sit in a branch that rarely runs
            return

    def _varying_float(self, ctx, model: ModuleModel, fn: FunctionInfo, param: str, args: list[ast.expr]) -> None:
        p = fn.param(param)
        literals = [a for a in args if _float_literal(a) is not None]
        declared = p is not None and (_is_float_annotation(model, p.annotation) or _float_literal(p.default) is not None)
        # a name or a stored setting (`self.epsilon`, `cfg.lr`) holds one value per object:
        # only arithmetic, calls and lookups compute a new one per call
        computed = [a for a in args if _float_literal(a) is None and not isinstance(a, (ast.Constant, ast.Name))
                    and not _attribute_chain(a)]
        floaty = [a for a in computed if _float_arithmetic(a)]
        if floaty or (computed and (declared or literals)):
            arg = (floaty or computed)[0]
        elif len({_float_literal(a) for a in literals}) > 1:
            arg = literals[1]
        else:
            return
        ctx.report(arg, f"static parameter `{param}` of `{fn.name}` receives floats that vary between calls "
                        f"(`{ctx.segment(arg)}`): jit compiles one program per value; pass `{param}` as a traced "
                        f"argument instead", data={"param": param},
                   confidence=Confidence.CERTAIN if arg in literals else Confidence.LIKELY)

    def _static_self(self, ctx, model: ModuleModel, fn: FunctionInfo, node: ast.AST, bound: str | None = None,
                     anchor: ast.AST | None = None) -> None:
        cls = model.classes.get(fn.class_name or "")
        if cls is None:
            return
        hashing = class_hashing(model, cls)
        if hashing == "unhashable" and bound is None:
            ctx.report(node, f"`self` is static in `{fn.qualname}` but `{cls.name}` is a @dataclass without "
                             f"frozen=True, which is unhashable: calling it raises ValueError",
                       severity=Severity.ERROR, data={"class": cls.name}, anchor=anchor)
            return
        if hashing != "identity":
            return
        found = stale_attribute(model, cls, fn)
        if found is not None:
            read, write = found
            ctx.report(
                node,
                f"{bound or f'`self` is static in `{fn.qualname}`'} and `{cls.name}` hashes by identity, but "
                f"`self.{read.attr}` (read in the trace) is reassigned at line {write.lineno}: later calls reuse "
                f"the program compiled with the old value",
                related=[ctx.related(read, f"`self.{read.attr}` is read here"),
                         ctx.related(write, f"`self.{read.attr}` changes here")],
                data={"class": cls.name, "attribute": read.attr},
                confidence=Confidence.LIKELY,  # the write may run only while the object is built (a set-up helper)
                anchor=anchor,
            )


#: Pytree kinds whose static fields are metadata that jit hashes and compares.
_METADATA_PYTREES = frozenset({"equinox", "flax.struct", "register_dataclass"})


def _is_float_annotation(model: ModuleModel, ann: ast.expr | None) -> bool:
    options = annotation_options(model, ann)
    return bool(options) and all(model.resolve(a) in _FLOAT_TYPES for a in options)


def _float_literal(node: ast.AST | None) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _float_literal(node.operand)
        return -v if v is not None and isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Constant) and type(node.value) is float:
        return node.value
    return None


def _attribute_chain(node: ast.AST) -> bool:
    """``self.epsilon``, ``self.cfg.lr``: a value read from an object."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _float_arithmetic(node: ast.AST) -> bool:
    """Arithmetic that yields a float: a true division, or a float literal operand."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.Div) or _float_arithmetic(node.left) or _float_arithmetic(node.right)
    if isinstance(node, ast.UnaryOp):
        return _float_arithmetic(node.operand)
    return _float_literal(node) is not None


def _unhashable_through_wrapper(model: ModuleModel, scope: FunctionInfo | None, arg: ast.expr,
                                calls: list[ast.Call]) -> tuple[str, str, int] | None:
    """``arg`` is a parameter of the wrapper ``scope`` (``def mesh_eval(func, x_limits):
    return _mesh_eval(func, x_limits)``) that a call of the wrapper in this module fills
    with an unhashable value, or that defaults to one: (what it is, the caller, line)."""
    if scope is None or not isinstance(arg, ast.Name) or isinstance(scope.node, ast.Lambda):
        return None
    reach = model.reaching_bindings(arg, scope)
    p = scope.param(arg.id)
    if p is None or len(reach) != 1 or reach[0].kind != "param":
        return None
    what = unhashable_value(model, scope, p.default, None)
    if what is not None:
        return what, f"the default of `{arg.id}`", getattr(p.default, "lineno", scope.node.lineno)
    for call in calls:
        caller = model.function_of(call)
        target, offset = model.callee(call.func, caller)
        if target is not scope:
            continue
        for name, value in call_arguments(call, scope, offset):
            if name == arg.id:
                what = unhashable_value(model, caller, value, call)
                if what is not None:
                    return what, caller.name if caller is not None else "module code", call.lineno
    return None


