from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Applicability, Severity
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.rules.static._fixplan import import_name, is_statement_list_member
from jaxlint.static.cfg import caught_in_function
from jaxlint.static.traced import only_differentiated, python_twin_of_cond
from jaxlint.static.usage import used_as_object
from jaxlint.static.values import python_container, truth_is_structure
from jaxlint.static.taint import (CERTAIN, LIKELY, POSSIBLE, THROUGH_CALLERS_KINDS, at_most_likely, bare_name_cap,
                                  confidence, describe, is_jit_entry, taint_of, through_callers, traced_how)
from jaxlint.static.shapes import same_shape, shape_guard

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

#: construct -> (what Python needs, the error jax raises, what to use instead)
_CONSTRUCTS = {
    "if": ("a concrete bool", "TracerBoolConversionError", "`jnp.where(cond, a, b)` or `jax.lax.cond`"),
    "while": ("a concrete bool", "TracerBoolConversionError", "`jax.lax.while_loop`"),
    "assert": ("a concrete bool", "TracerBoolConversionError",
               "`jax.experimental.checkify`, or check the inputs before calling the jitted function"),
    "conditional expression": ("a concrete bool", "TracerBoolConversionError", "`jnp.where(cond, a, b)`"),
    "comprehension filter": ("a concrete bool", "TracerBoolConversionError", "a mask with `jnp.where`"),
    "`and`/`or`": ("a concrete bool", "TracerBoolConversionError",
                   "`jnp.logical_and`/`jnp.logical_or` (or `&`/`|`)"),
    "`not`": ("a concrete bool", "TracerBoolConversionError", "`jnp.logical_not` (or `~`)"),
    "chained comparison": ("a concrete bool", "TracerBoolConversionError", "`(a < x) & (x < b)`"),
    "bool()": ("a concrete bool", "TracerBoolConversionError", "the array itself (`jnp.where`, `jax.lax.cond`)"),
    "all()": ("a concrete bool of each element", "TracerBoolConversionError",
              "`jnp.all(jnp.stack([...]))`, or test only static values (shapes) in Python"),
    "any()": ("a concrete bool of each element", "TracerBoolConversionError",
              "`jnp.any(jnp.stack([...]))`, or test only static values (shapes) in Python"),
    "int()": ("a concrete integer", "ConcretizationTypeError", "array operations (`x.astype(jnp.int32)`)"),
    "float()": ("a concrete number", "ConcretizationTypeError", "array operations (`x.astype(jnp.float32)`)"),
    "complex()": ("a concrete number", "ConcretizationTypeError", "array operations (`x.astype(jnp.complex64)`)"),
    "range()": ("a concrete integer", "TracerIntegerConversionError", "`jax.lax.fori_loop` with a traced bound"),
    "operator.index()": ("a concrete integer", "TracerIntegerConversionError", "array operations (`x.astype(jnp.int32)`)"),
    "list[i]": ("a concrete integer", "TracerIntegerConversionError",
                "an array (`jnp.stack(xs)[i]`) or `jax.lax.switch(i, branches)`"),
}
#: the constructs that take a value's truth: a Python container's is its structure
_CONTAINER_TRUTH = frozenset(k for k, v in _CONSTRUCTS.items() if v[0] == "a concrete bool")
_CONVERTING_BUILTINS = {"builtins.bool": "bool()", "builtins.int": "int()", "builtins.float": "float()",
                        "builtins.complex": "complex()", "builtins.range": "range()",
                        "operator.index": "operator.index()"}
#: builtins that take the truth of each element of the sequence they are given
_ELEMENT_TRUTH_BUILTINS = {"builtins.all": "all()", "builtins.any": "any()"}


class TracedControlFlow(StaticRule):
    """
    ## What it does
    Finds Python control flow and conversions that need a concrete value, applied to
    a traced value inside traced code: `if`, `while`, `assert`, conditional
    expressions, comprehension filters, `and`/`or`/`not`, chained comparisons
    (`a < x < b`), `bool()`, `int()`, `float()`, `complex()`, `range()`, `operator.index()`,
    the builtins `all()` and `any()`, which take each element's truth (`all(jnp.all(g > 0) for g
    in gs)`, `any([a > 0, b > 0])`: the elements written out only), and a Python list or tuple indexed by a traced integer (`xs[i]` in a `fori_loop` body).

    Tests on static information stay clean: `.shape`, `.ndim`, `.dtype`, `len(x)`, `x is None`, `isinstance`,
    static arguments (`static_argnames`), parameters with Python defaults that no call of the jitted callable
    passes (also one annotated `jax.Array`: `lr: jax.Array = 0.1` is that float; a call that passes one, by name or through an instance of a jitted method, `gp.posterior(x, p,
    True)` of a method jitted with `static_argnames="self"`, hands jit a value it traces: only jit's static
    arguments stay Python values), dtypes (`real == jnp.float64` with
    `real` from `jnp.promote_types` or a function annotated `-> np.dtype`), a parameter declared a Python flag
    (`weighted: bool`) where only equinox's filtered transforms trace the function, properties of the module's
    classes that read Python values (`gate.is_parametric`), attributes of `self` and of configuration objects
    (`config.x`, `cfg.n`, parameters annotated with a non-array type, `override or self.cfg`; but a parameter
    annotated `int`, `float` or `bool` of a function traced because traced code calls it holds a tracer when its
    callers are jitted (or vmapped, or lax bodies) themselves and one passes it one for certain, its own traced
    argument or a `jax.numpy` result: jit reads no annotation), comparisons with strings, with `object()`
    sentinels and with an empty tuple, list or dict (`args == ()`), the keys of a pytree dict (`for k, v in
    d.items()`), and the truth value of containers: a parameter annotated `Tuple[...]`, `list`, `dict` or
    `PyTree`, a local unpacked from a parameter whose `tuple[...]` annotation declares a container at its place
    (`arg, pending = carry`), a local that is still a list where it is tested (`xs = []` ... `jnp.stack(xs) if
    xs else ...`), one declared a container (`gammas: List[Array] = []`, whatever binds it later), a parameter
    every call in the module passes a list (`combine(x, [y])`; the function traced only through such calls),
    or one that falls back to a container (`params or {}`, `extra if extra else []`), and the truth
    value of a name or field the same function uses as an object, reading an attribute no array has (`if
    state.dynamic_scale:` beside `state.dynamic_scale.value_and_grad(...)`: `None` or a pytree object, never a
    tracer), and a field of a pytree class of the module declared a container (`if state.ids:` where the class
    annotates `ids: tuple[int, ...] | None`, `Sequence[int]`, `list[...]` or `dict[...]`, through
    `Optional`/`Union`/`Annotated`: the pytree keeps the container around its leaves; an unannotated parameter's
    field is not guessed, unless every call of the module hands it an instance of one registered pytree class
    of the module, whose leaves and aux data its flatten tells). A function jitted as a module-level twin (`f_jit = jax.jit(f)`) that its dispatchers
    call only under a test of an argument they pass on (`f if state is None else f_jit`) runs its other branch
    eagerly: `if state is None:` in `f` is not checked (nor traced what it calls), nor an `if` on the test the other arm of an `if flag:`
    hands to `lax.cond` (`if scheduled: lax.cond(steps == 1, f, g)` / `else: if steps == 1:`: the flag sends the
    traced value to the cond). A parameter defaulting to `None` that no call of its jitted callable passes
    (`self.g = jax.jit(self._f)` called as `self.g(x)`) stays None.

    Severity: **error** when the value is certainly a tracer (a traced parameter, a
    `jax.numpy` result, arithmetic on them): tracing fails. **Warning** when it is
    only likely: in a function traced only because traced functions call it ("called
    from traced `f`": the callers' binding, judged blind, was wrong in 15 of 17); an attribute of an unannotated parameter (`state.step`; a pytree
    may declare a field static) or a bare parameter used as a truth value (unless every call of the module
    passes it a number or a flag: an error; or a container display: its truth is its structure, clean), or an element
    unpacked from one (`a, b = carry`; it may be a dict pytree). Only one arm of `a if test else b` runs: a value traced in one arm
    only is *possible*, unless the test asks whether a traced name is a tracer
    (`x if isinstance(x, float) else x.sum()`: a tracer takes the `else` arm). So is a
    finding in the arm of a test that names one shape (`if x.ndim == 0:`, `x.shape[-1]
    == 1`, `x.size in (0, 1)`; the `else` of `!=`), or after an `if` that leaves for every
    other shape (`if x.ndim != 0: return ...`): shapes are static under a trace, and that
    code runs only if a traced caller passes that shape. Code that a test of `jax.core.Tracer` rules
    out for a traced name (`not isinstance(x, Tracer) and bool(x.any())`, the `else` of
    `if is_tracer(x):` with `is_tracer` a helper returning that test, after `if
    isinstance(x, Tracer): return x`) runs only eagerly and is not reported, nor is a
    conversion there of another name unpacked from the same call as the tested one
    (`g, ok = solve(x)`: one call's outputs are tracers together). A value that comes out of a call or
    a method the linter cannot see into is a *possible* finding, reported only under
    `--preview`; a method of a class of the module is read (`state.count()` returning
    `len(self.items)` is a Python int), and so are the fields a pytree class declares static
    (`struct.field(pytree_node=False)`, `dataclasses.field(metadata=dict(static=True))` or
    `metadata={"pytree_node": False}`, `eqx.field(static=True)`; every field of a class
    registered with `jax.tree_util.register_static`). A function or class
    imported from another module of the checked tree (`from .utils import helper`) is read
    too: `helper(x)` returning `x.shape[0]` is a Python int, one returning `jnp.sum(x)` a
    tracer.

    So do values static by construction: a registered pytree's aux data (what its flatten puts there) and a field set
    to a `len(...)`; a treedef; the keyword-only parameters `partial(f, **params)` binds (a primitive's, in its
    batching rule); a Python value's entry of a dict passed on as `f(**dict(g=g, floor=1.0))` (each caller's splat
    read by entry; a dict not seen fills nothing certain: *possible* at most); and `jax.numpy` on untraced
    arguments under a `vmap` or `grad` applied eagerly. A lax loop's `if verbose:` branch is not checked when the
    loop leaves `verbose` at its default `False`, or runs in the `else` of `if verbose:` (an eager Python loop). A
    debug arm under a test of jax's disable-jit flag (`if jax.config.jax_disable_jit:`, `config.jax_disable_jit`
    after `from jax import config`, the `else` of `if not ...:`) is not checked in a function only jits and lax
    loops trace: under jit the flag is off and the arm is skipped; with it on they run the function as Python on
    concrete arrays. A `vmap`, `grad` or `pmap` on the way, or a `with jax.disable_jit():` inside the trace, still
    traces the arm with the flag on: checked.

    A function traced only by `jax.grad` (or another differentiation transform) applied outside any trace runs on JVP
    tracers whose primal values are concrete: `if`, `assert`, `bool()` and `int()` work there, and only `float()`
    and `complex()` of a traced value are reported (they raise ConcretizationTypeError). A conversion (an `if`
    or other truth test, `float()`, `int()`, ...) in a `try:` whose handler catches what jax raises (`TypeError`,
    `Exception`, `ConcretizationTypeError` but for `range()`/`operator.index()`) and does not raise again is
    handled: not reported (under a trace the handler's fallback runs). Under a trace such a conversion of a value that is
    surely a tracer raises, so what runs only after it (the rest of that `try:` body and its `else:` arm) is
    eager-only: not checked, and a function called only from there is not traced by that call (`try: r =
    float(residual) except TypeError: jax.debug.callback(abort, residual) else: abort(r)`). A function handed to a
    host callback (`jax.debug.callback`, `jax.pure_callback`, `io_callback`) runs on the host with concrete
    arrays: not traced.

    ## Why is this bad?
    Under `jit` (and `vmap`, `grad`, `lax.scan` bodies) values are abstract tracers:
    their shape and dtype are known, their contents are not. Python's `if` needs a
    real `True`/`False`, so tracing stops with `TracerBoolConversionError` (or
    `ConcretizationTypeError` for `int()`/`float()`). The function fails the first
    time it is called, often far from where it was written.

    ## Example
    ```python
    @jax.jit
    def safe_log(x, training):
        if x.min() <= 0:
            x = x - x.min() + 1e-6
        if training:
            x = x * 0.5
        return jnp.log(x)
    ```

    ## Use instead
    ```python
    @partial(jax.jit, static_argnames="training")
    def safe_log(x, training):
        x = jnp.where(x.min() <= 0, x - x.min() + 1e-6, x)
        if training:  # a static Python bool now
            x = x * 0.5
        return jnp.log(x)
    ```
    Use `jax.lax.cond` to choose between two computations, `jax.lax.while_loop` for
    loops with a traced condition, or make the value static when it really is a
    Python constant (`@partial(jax.jit, static_argnames="training")`).

    ## Fix safety
    When the value is certainly traced, a choice between two values becomes
    `jnp.where`: `a if cond else b`; an `if`/`elif`/`else` whose branches each assign
    one name (`if cond: y = a else: y = b` -> `y = jnp.where(cond, a, b)`; without an
    `else`, `y` keeps its value: `y = jnp.where(cond, a, y)`); and one whose branches
    each return a value, or that returns and falls through to a `return`
    (`return jnp.where(cond, a, b)`). Conditions using `and`/`or`/`not` or a chained
    comparison are left alone, and so are tuple values. Comments inside the replaced
    `if` are kept, above the new line; `import jax.numpy as jnp` is added when the
    module has no alias of `jax.numpy`. It is unsafe: `jnp.where` computes both values
    (their cost, and NaNs that reach gradients), and broadcasts them together.

    ## Options

    ## References
    * [JAX sharp bits: control flow](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#control-flow)
    * [JAX errors: TracerBoolConversionError](https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError)
    * [jax.lax.cond](https://docs.jax.dev/en/latest/_autosummary/jax.lax.cond.html)
    """

    code = "JAX105"
    traced_code = True  # about code under a trace: an eager-only branch is none of its business
    group = "correctness"
    name = "traced-control-flow"
    fixable = Applicability.UNSAFE
    summary = "Python control flow or a conversion needs a concrete value but gets a tracer"
    fix_hint = "use jnp.where / jax.lax.cond / jax.lax.while_loop, or make the value a static argument"
    severity = Severity.ERROR
    kinds = THROUGH_CALLERS_KINDS

    VALID = [
        Valid(
            """
            import numpyro
            import numpyro.distributions as dist
            from numpyro.infer import MCMC, NUTS

            def model(data, use_bias=True):
                w = numpyro.sample("w", dist.Normal(0.0, 1.0))
                b = numpyro.sample("b", dist.Normal(0.0, 1.0)) if use_bias else 0.0
                y = numpyro.sample("y", dist.Normal(w + b, 1.0), obs=data)
                if y is not None and data.ndim > 1:
                    numpyro.deterministic("n", data.shape[0])
                return w

            mcmc = MCMC(NUTS(model), num_warmup=10, num_samples=10)
            """
        ),
        Valid(
            """
            from typing import Tuple
            import jax
            import jax.numpy as jnp

            def clamp(x: jax.Array, bounds: Tuple[jax.Array, jax.Array]) -> jax.Array:
                if bounds:  # a tuple: its truth value is static
                    x = jnp.clip(x, bounds[0], bounds[1])
                return x

            def run(xs, lo, hi):
                return jax.vmap(clamp)(xs, (lo, hi))
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            def blocks(x):
                h = jax.hessian(lambda v: jnp.sum(v ** 3))(x)
                if jax.config.jax_disable_jit:  # a debug mode: jit off, nothing traced here
                    assert not jnp.any(jnp.isnan(h)), "nans in the hessian"
                return h

            @jax.jit
            def step(xs):
                return jax.lax.map(blocks, xs)
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            def flatten(tree):
                parts = []
                for name, leaf in tree.items():
                    if name.startswith("_"):  # a dict key is a string, not a tracer
                        continue
                    parts.append(jnp.ravel(leaf))
                parts = jnp.concatenate(parts) if parts else jnp.zeros((0,))  # still a list here
                return parts

            @jax.jit
            def norm(params):
                return jnp.linalg.norm(flatten(params))
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            def is_tracer(value):
                return isinstance(value, jax.core.Tracer)

            @jax.jit
            def step(force):
                # a tracer under jit: `and` stops before `bool`, which runs only eagerly
                if not is_tracer(force) and bool(jnp.any(force < 0.0)):
                    raise ValueError("force must be non-negative")
                return force * 2.0
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit
            def relu(x):
                if x > 0:
                    return x
                return 0.0
            """,
            line=5,
            message="`if` on traced value `x > 0`",
            expected_fix="""
            import jax
            import jax.numpy as jnp

            @jax.jit
            def relu(x):
                return jnp.where(x > 0, x, 0.0)
            """,
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def solve(x):
                while jnp.linalg.norm(x) > 1e-3:
                    x = x / 2
                return x
            """,
            line=6,
            message="jax.lax.while_loop",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def f(x):
                assert jnp.all(x > 0)
                return jnp.log(x)
            """,
            line=6,
            message="`assert`",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        for fn in model.traced_functions(differentiated=True):
            taint = taint_of(model, fn)
            covered: set[int] = set()
            # traced only by jax.grad (or the like) applied outside any trace: its values
            # are JVP tracers with concrete primals, whose truth value and int() work, and
            # float() / complex() raise ConcretizationTypeError
            grad_only = only_differentiated(fn)
            for node in fn.body_nodes():
                if id(node) in covered:
                    continue
                if grad_only:
                    if isinstance(node, ast.Call) and node.args and _CONVERTING_BUILTINS.get(
                            model.resolve_call(node) or "") in ("float()", "complex()"):
                        self._truth_operands(ctx, taint, fn, node, node.args[:1],
                                             _CONVERTING_BUILTINS[model.resolve_call(node) or ""], covered)
                    continue
                if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
                    kind = {ast.If: "if", ast.While: "while", ast.Assert: "assert",
                            ast.IfExp: "conditional expression"}[type(node)]
                    self._truth(ctx, taint, fn, node, node.test, kind, covered)
                elif isinstance(node, ast.comprehension):
                    for cond in node.ifs:
                        self._truth(ctx, taint, fn, cond, cond, "comprehension filter", covered)
                elif isinstance(node, ast.BoolOp):
                    # every operand but the last is tested for truth
                    self._truth_operands(ctx, taint, fn, node, node.values[:-1], "`and`/`or`", covered)
                elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                    self._truth(ctx, taint, fn, node, node.operand, "`not`", covered)
                elif isinstance(node, ast.Compare) and len(node.ops) > 1:
                    self._truth(ctx, taint, fn, node, node, "chained comparison", covered)
                elif isinstance(node, ast.Call) and node.args:
                    converting = _CONVERTING_BUILTINS.get(model.resolve_call(node) or "")
                    if converting is not None:
                        operands = node.args if converting == "range()" else node.args[:1]
                        self._truth_operands(ctx, taint, fn, node, operands, converting, covered)
                    elementwise = _ELEMENT_TRUTH_BUILTINS.get(model.resolve_call(node) or "")
                    if elementwise is not None and len(node.args) == 1 and not node.keywords:
                        # `all(jnp.all(g > 0) for g in gs)`, `any([a > 0, b > 0])`: Python takes
                        # each element's truth; only elements written out are read
                        seq = node.args[0]
                        elements = [seq.elt] if isinstance(seq, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) \
                            else seq.elts if isinstance(seq, (ast.List, ast.Tuple)) else []
                        tested = [o for element in elements for o in _truth_operands(element, covered)]
                        self._truth_operands(ctx, taint, fn, node, tested, elementwise, covered)  # once
                elif isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Slice, ast.Tuple)) \
                        and python_container(model, node.value, fn, sequence=True):
                    self._truth_operands(ctx, taint, fn, node, [node.slice], "list[i]", covered)

    def _truth(self, ctx, taint, fn, report_node, test, kind, covered) -> None:
        """``test`` is converted to a Python bool: split and/or/not, then report once."""
        if kind in ("if", "conditional expression") and python_twin_of_cond(ctx.model, test) is not None:
            return  # `if flag: lax.cond(t, ...) else: if t: ...`: traced on the cond's path only
        self._truth_operands(ctx, taint, fn, report_node, _truth_operands(test, covered), kind, covered)

    def _truth_operands(self, ctx, taint, fn, report_node, operands, kind, covered) -> None:
        if caught_in_function(ctx.model, report_node, _CONSTRUCTS[kind][1]):
            return  # in a `try:` whose handler catches what jax raises: a fallback, not a raise
        for operand in operands:
            found = taint.culprit(operand)
            if found is None:
                continue
            if kind in _CONTAINER_TRUTH and truth_is_structure(ctx.model, operand, fn):
                continue  # `if jax.tree_util.tree_leaves(x):` a list, `params or {}`: its truth is the structure
            level, culprit = found
            if kind[-1] not in ")]" and used_as_object(ctx.model, fn, operand):
                continue  # `if state.dynamic_scale:` where the function calls `.value_and_grad` on
                # it: an object (a pytree, None on some path), whose truth value is static
            if isinstance(operand, ast.Name) and kind[-1] not in ")]":
                cap = bare_name_cap(ctx.model, fn, operand)
                if cap is None:
                    continue
                level = min(level, cap)
            guard = shape_guard(ctx.model, fn, report_node) if level > POSSIBLE else None
            if guard is not None:
                level = POSSIBLE  # `if x.ndim == 0:` runs only for the shape it names, which
                # the traced callers may never pass (shapes are static under a trace)
            self._report(ctx, fn, report_node, operand, culprit, kind, level, guard)
            return

    def _report(self, ctx, fn, node, operand, culprit, kind, level, guard=None) -> None:
        needs, error, instead = _CONSTRUCTS[kind]
        level, ctx = (min(level, LIKELY), at_most_likely(ctx)) if through_callers(fn) else (level, ctx)
        if kind[-1] in ")]":
            head = f"`{describe(node)}` in {traced_how(fn)} converts traced value `{describe(culprit)}`"
        else:
            what = f"`{kind}`" if kind in ("if", "while", "assert") else kind
            head = f"{what} on traced value `{describe(operand)}` in {traced_how(fn)}"
        msg = f"{head}: Python needs {needs} and tracing fails with {error}; use {instead}"
        retraced = fn.retraced_static.get(culprit.id) if isinstance(culprit, ast.Name) else None
        if retraced is not None:  # static already: a checkpoint or custom rule inside the jit traces it
            transform, keyword = retraced
            msg += (f"; `{culprit.id}` is static in the jit, but `{transform}` inside it traces it again: "
                    f"name it in `{transform}`'s `{keyword}` as well")
        elif _flag_like(fn, operand, culprit, kind):
            msg += f", or make `{culprit.id}` a static argument"
        if guard is not None:
            msg += (f" (this runs only when `{describe(guard)}`: shapes are static under a trace, so only if "
                    "a traced caller passes that shape)")
        elif level < CERTAIN:
            if isinstance(culprit, ast.Attribute):
                msg += f" (if `{describe(culprit)}` is a static pytree field, this is fine)"
            elif operand is not culprit:
                msg += (f" (if `{describe(culprit)}` holds a Python value, such as a static pytree field, "
                        "this is fine)")
            else:
                msg += f" (if `{describe(culprit)}` is a pytree container, its truth value is static and this is fine)"
        statement = isinstance(node, (ast.If, ast.While, ast.Assert))
        ctx.report(node, msg, end_node=node.test if statement else None,
                   confidence=confidence(level),
                   data={"construct": kind, "value": describe(culprit), "certain": level >= CERTAIN},
                   fix=_where_fix(ctx, fn, node) if level >= CERTAIN and kind in _WHERE_KINDS else None)

    def codemod(self, fx) -> None:
        import libcst as cst

        node = fx.node("node", cst.If, cst.IfExp)
        where = fx.expr(f"{fx.arg('jnp')}.where")
        if fx.arg("add"):
            fx.add_import("jax.numpy", fx.arg("jnp"))
        if isinstance(node, cst.IfExp):
            fx.replace(node, _where_call(cst, where, [(node.test, node.body)], node.orelse, node))
            return
        form, name = fx.arg("form"), fx.arg("name")
        comments: list = []
        chain, rest = _cst_chain(cst, node, comments)
        final = None
        if rest is not None:
            final = _cst_value(cst, rest, comments)
        elif form == "assign":
            final = cst.Name(name)
        else:  # `if c: return a` and then `return b`
            after = fx.node("next", cst.SimpleStatementLine)
            final = _cst_value(cst, after, comments)
            fx.remove(after)
        if final is None or any(v is None for _, v in chain):
            raise fx.cannot("a branch is not one assignment or return")
        call = _where_call(cst, where, chain, final, None)
        small = cst.Return(call) if form == "return" else cst.Assign([cst.AssignTarget(cst.Name(name))], call)
        lines = [*node.leading_lines, *(cst.EmptyLine(comment=c) for c in comments)]
        fx.replace(node, cst.SimpleStatementLine([small], leading_lines=lines))


_WHERE_KINDS = ("if", "conditional expression")


def _where_fix(ctx, fn, node):
    """``jnp.where`` for a choice between values; None for other shapes."""
    model = ctx.model
    plan: dict = {}
    if isinstance(node, ast.IfExp):
        if not (_plain_test(node.test) and _plain_value(node.body) and _plain_value(node.orelse)):
            return None
        shown = "`a if cond else b`"
    else:
        chain = []
        cur = node
        while True:
            chain.append(cur)
            if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
                cur = cur.orelse[0]
                continue
            break
        if not all(_plain_test(c.test) and len(c.body) == 1 for c in chain) or len(cur.orelse) > 1:
            return None
        branches = [c.body[0] for c in chain] + list(cur.orelse)
        if all(isinstance(b, ast.Assign) and len(b.targets) == 1 and isinstance(b.targets[0], ast.Name)
               and _plain_value(b.value) for b in branches):
            name = branches[0].targets[0].id  # type: ignore[attr-defined]
            if any(b.targets[0].id != name for b in branches):  # type: ignore[attr-defined]
                return None
            if not cur.orelse and not _bound_before(fn, name, node):
                return None  # `y` would be read before it is bound
            plan.update(form="assign", name=name)
            shown = f"`{name} = jnp.where(...)`"
        elif all(isinstance(b, ast.Return) and _plain_value(b.value) for b in branches):
            plan.update(form="return")
            if not cur.orelse:
                after = _next_statement(model, node)
                if not (isinstance(after, ast.Return) and _plain_value(after.value)):
                    return None
                plan.update(next=after)
            shown = "`return jnp.where(...)`"
        else:
            return None
        if not is_statement_list_member(model, node):
            return None
    if not _same_shaped(model, fn, node):
        return None
    jnp = import_name(model, "jax.numpy", fn, "jnp")
    if jnp is None:
        return None
    return ctx.codemod(f"Replace the {'conditional expression' if isinstance(node, ast.IfExp) else '`if`'} "
                       f"with {shown.replace('jnp', jnp[0])}", Applicability.UNSAFE, node=node, jnp=jnp[0],
                       add=jnp[1], **plan)


def _same_shaped(model, fn, node) -> bool:
    """Whether the values ``jnp.where`` would choose between are shown to be arrays of
    one shape (Python numbers broadcast): names read by the condition's comparisons are
    one element each (Python's ``if`` on them worked), elementwise arithmetic keeps the
    shape of its arrays, a whole-array reduction is one element. A dtype, a pytree (a
    dict, a list, a tuple), a slice or any other value is not shown to be: no fix."""
    if isinstance(node, ast.IfExp):
        tests, values = [node.test], [node.body, node.orelse]
    else:
        tests, values, cur = [], [], node
        while True:
            tests.append(cur.test)
            values.append(cur.body[0].value)
            if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
                cur = cur.orelse[0]
                continue
            values.extend(b.value for b in cur.orelse)
            break
    scalars: set[str] = set()
    for t in tests:
        operands = [t.left, *t.comparators] if isinstance(t, ast.Compare) else [t]
        scalars.update(o.id for o in operands if isinstance(o, ast.Name))
    return same_shape(model, fn, values, scalars)


def _plain_test(test: ast.AST) -> bool:
    """A condition ``jnp.where`` takes as it is (``and``/``or``/``not`` would still convert)."""
    return not (isinstance(test, ast.BoolOp) or (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not))
                or (isinstance(test, ast.Compare) and len(test.ops) > 1))


def _plain_value(value: ast.AST | None) -> bool:
    return value is not None and not isinstance(value, (ast.Tuple, ast.Starred, ast.Yield, ast.YieldFrom, ast.Await))


def _bound_before(fn, name: str, node: ast.stmt) -> bool:
    if fn.param(name) is not None:
        return True
    return any(getattr(b.node, "lineno", node.lineno) < node.lineno for b in fn.bindings.get(name, []))


def _next_statement(model, node: ast.stmt) -> ast.stmt | None:
    parent = model.parent(node)
    for f in ("body", "orelse", "finalbody"):
        block = getattr(parent, f, None)
        if isinstance(block, list) and any(x is node for x in block):
            i = next(k for k, x in enumerate(block) if x is node)
            return block[i + 1] if i + 1 < len(block) else None
    return None


def _cst_chain(cst, node, comments: list):
    """``[(test, value)]`` of an ``if``/``elif`` chain and its ``else`` branch (or None),
    collecting the comments of the statements they replace."""
    chain = []
    cur = node
    while True:
        chain.append((cur.test, _cst_value(cst, cur.body, comments)))
        rest = cur.orelse
        if isinstance(rest, cst.If):
            _comments_of_lines(rest.leading_lines, comments)
            cur = rest
            continue
        if isinstance(rest, cst.Else):
            _comments_of_lines(rest.leading_lines, comments)
            return chain, rest.body
        return chain, None


def _cst_value(cst, block, comments: list):
    """The value a branch (a block, or a statement line) assigns or returns; None when it
    is not one assignment or return."""
    if isinstance(block, cst.IndentedBlock):
        if block.header.comment is not None:
            comments.append(block.header.comment)
        _comments_of_lines(block.footer, comments)
        if len(block.body) != 1 or not isinstance(block.body[0], cst.SimpleStatementLine):
            return None
        line = block.body[0]
    elif isinstance(block, cst.SimpleStatementSuite):
        if block.trailing_whitespace.comment is not None:
            comments.append(block.trailing_whitespace.comment)
        line = block
    else:
        line = block
    if isinstance(line, cst.SimpleStatementLine):
        _comments_of_lines(line.leading_lines, comments)
        if line.trailing_whitespace.comment is not None:
            comments.append(line.trailing_whitespace.comment)
    if len(line.body) != 1:
        return None
    small = line.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return small.value
    if isinstance(small, cst.Return):
        return small.value
    return None


def _comments_of_lines(lines, comments: list) -> None:
    comments.extend(line.comment for line in lines if line.comment is not None)


def _where_call(cst, where, chain, final, like):
    """``jnp.where(c1, a1, jnp.where(c2, a2, b))``."""
    out = final
    for test, value in reversed(chain):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        out = cst.Call(where, [cst.Arg(test, comma=comma), cst.Arg(value, comma=comma), cst.Arg(out)])
    if like is not None and like.lpar:
        out = out.with_changes(lpar=like.lpar, rpar=like.rpar)
    return out


def _truth_operands(test: ast.AST, covered: set[int]) -> list[ast.AST]:
    """The values whose truth Python takes when it tests ``test`` (and/or/not split)."""
    if isinstance(test, ast.BoolOp):
        covered.add(id(test))
        out: list[ast.AST] = []
        for v in test.values:
            out.extend(_truth_operands(v, covered))
        return out
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        covered.add(id(test))
        return _truth_operands(test.operand, covered)
    if isinstance(test, ast.Compare) and len(test.ops) > 1:
        covered.add(id(test))
    return [test]


def _flag_like(fn, operand, culprit, kind: str) -> bool:
    """Suggest a static argument only for what looks like a Python flag or count: a jit
    parameter tested bare, used as an int/range bound, or annotated bool/int/float/str."""
    if not (isinstance(culprit, ast.Name) and culprit.id in fn.traced_params and is_jit_entry(fn)):
        return False
    p = fn.param(culprit.id)
    if p is not None and isinstance(p.annotation, ast.Name) and p.annotation.id in ("bool", "int", "float", "str"):
        return True
    return operand is culprit or kind in ("int()", "range()", "operator.index()")
