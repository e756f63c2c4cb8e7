from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Confidence, Severity
from jaxlint.records import dataclass
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.apis import SIZE_ARGS, STATIC_ATTRS
from jaxlint.static.arrays import is_at_helper, not_an_array_method
from jaxlint.static.masks import builds_with_brackets, mask_level
from jaxlint.static.flow import iterated_source, staged_call
from jaxlint.static.taint import (_UNREADABLE, CERTAIN, THROUGH_CALLERS_KINDS, Taint, _argument_for, at_most_likely,
                                  confidence, describe, taint_of, through_callers, traced_how)
from jaxlint.static.consts import UNKNOWN, static_value
from jaxlint.static.containers import dict_entry
from jaxlint.static.values import ARRAY_METHODS, static_field
from jaxlint.static.semantic import FunctionInfo, ModuleModel
from jaxlint.static.classes import leaf_field

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

#: jax.numpy functions whose output size depends on the data unless `size=` is given.
SIZED = {
    "nonzero", "argwhere", "flatnonzero", "unique", "unique_values", "unique_counts",
    "unique_inverse", "unique_all", "extract", "compress", "setdiff1d", "union1d", "intersect1d",
}


class DataDependentShape(StaticRule):
    """
    ## What it does
    Finds operations in traced code whose output shape depends on the values of a
    traced array:

    * boolean-mask indexing with a traced mask: `x[x > 0]`, `x[mask]`, `x.at[mask]`, a
      mask made by a comparison, `jnp.isnan` and the other boolean functions, `~`, `&`,
      `|`, or reduced along an axis (`x[~jnp.any(x < b, axis=1)]`, `m.all(axis=0)`), or a
      boolean array made in traced code even from constants (`jnp.zeros(n, dtype=bool)`,
      `jnp.array([True, False])`, `x.astype(bool)`, joined, sliced, reshaped or updated:
      `jnp.concatenate([m1, m2]).ravel()[:-1]`);
    * `jnp.nonzero`, `jnp.argwhere`, `jnp.flatnonzero`, `jnp.unique` (and its
      variants), `jnp.extract`, `jnp.compress`, the set operations `union1d`,
      `intersect1d`, `setdiff1d`, and one-argument `jnp.where`, called on a traced
      array without `size=`;
    * a traced value in a size position of a shape-taking API: a non-static parameter
      of a jitted function, a mapped parameter of a vmapped one, the carry or index of
      a `lax.scan` / `fori_loop` / `while_loop` body, a leaf field of such a parameter
      (`cfg.steps` of a NamedTuple or dataclass argument, unless the class declares the
      field static), an `eqx.filter_jit` parameter annotated as an array, an element of
      a traced array (`x[0]`) or of any array at a traced index (`sizes[i]` in a
      `fori_loop` body), a name unpacked from a traced value (`cov, n = operands` in a
      `lax.cond` / `lax.switch` branch, which cond traces even when called eagerly,
      or a loop body's carry), an entry of a dict display (`d["k"]`), an array computed
      in traced code (`steps = jnp.array(span // dt)`: under a trace a `jax.numpy`
      result is a tracer even when it is computed from constants), a helper's parameter
      that traced code passes one of these, a helper's result or an object's field that
      the value model computes from one (`double(n)`, `Box(n).a`), a name assigned one,
      or arithmetic (also
      `abs()`, `max()`, `min()`) on any of them, or a `tuple(...)` / `list(...)` of a
      generator computing one per element (`tuple(d - s for d, s in zip(x.shape,
      starts))`). A traced size in only one arm of a conditional expression (`n - i if
      s == -1 else s`) is reported as likely: it raises whenever that arm is taken. The
      size positions: `shape` of `zeros` / `ones` / `full` / `empty` (and of their
      `_like` forms), `start` / `stop` / `step` of `arange`, `num` of `linspace` /
      `logspace` / `geomspace`, `eye` / `identity` / `tri`, `reshape` (the function and
      the method), `broadcast_to`, `resize`, `tile` reps, `pad` widths, `repeat` without
      `total_repeat_length` (function and method), `split` / `array_split` sections,
      `triu_indices` / `tril_indices` / `indices`, `jax.nn.one_hot` classes, the
      `shape` of `jax.random` samplers (every `shape=`), `jax.random.split` num,
      `lax.full` / `full_like` / `iota` / `broadcast` / `broadcast_in_dim` /
      `reshape`, the sizes of `lax.dynamic_slice` / `dynamic_slice_in_dim`, the
      indices of `lax.slice`, `lax.top_k` k and `jax.image.resize` shape. jit traces
      every argument it is not told is static, Python ints included (so does
      `nnx.jit`); `eqx.filter_jit` keeps Python ints static, and a differentiation
      transform passes its other arguments through, so those stay quiet, as do shapes, `len()`, static
      arguments and `lax.psum(1, axis)`.

    * the same traced values used as an axis, which decides the result's shape:
      `axis=` / `axes=` / `axis1=` / `axis2=` / `source=` / `destination=` of a
      `jax.numpy` function, the positional axis of the reductions, `expand_dims`,
      `squeeze`, `flip`, `sort`, `concatenate`, `stack`, `transpose`, `moveaxis`,
      `swapaxes`, `take`, `roll` (its shift may be traced), `jax.nn.softmax` and
      `logsumexp`, and of the array methods (`x.sum(k)`; not `self.mean(x)`, `critic:
      QNet`'s, `critic.mean(x, zs=zs)` or the module's own classes' methods).
    * the same traced values as a bound of a slice (`x[0:n]`), whose length they decide.

    In a function traced only because traced functions call it, a finding is at most a
    likely warning (see JAX105: the callers' binding is not proof).

    ## Why is this bad?
    XLA compiles programs with static shapes. Under `jit` (and inside `scan`, `vmap`,
    `grad`...) the number of `True` entries of a traced mask is unknown, so these
    operations cannot be traced: they raise `NonConcreteBooleanIndexError` or
    `ConcretizationTypeError` the first time the function is called.

    ## Example
    ```python
    @jax.jit
    def positive_mean(x):
        return x[x > 0].mean()
    ```

    ## Use instead
    Keep the shape and mask the values:
    ```python
    @jax.jit
    def positive_mean(x):
        mask = x > 0
        return jnp.where(mask, x, 0).sum() / mask.sum()
    ```
    or give the bound explicitly: `jnp.nonzero(mask, size=k, fill_value=-1)`,
    `jnp.unique(x, size=k, fill_value=0)`.

    ## Options

    ## References
    * [JAX sharp bits: dynamic shapes](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#dynamic-shapes)
    * [NonConcreteBooleanIndexError](https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError)
    """

    code = "JAX111"
    traced_code = True  # about code under a trace: an eager-only branch is none of its business
    group = "correctness"
    name = "data-dependent-shape"
    summary = "an operation in traced code whose output shape depends on traced values"
    fix_hint = "mask with jnp.where, or pass size= (and fill_value=)"
    severity = Severity.ERROR
    kinds = THROUGH_CALLERS_KINDS

    VALID = [
        Valid(
            """
            from functools import partial
            import jax
            import jax.numpy as jnp

            @partial(jax.jit, static_argnames="width")
            def padded(values, width):
                return jnp.zeros((width, values.shape[-1])).at[: values.shape[0]].set(values)

            def tiles(key, count):
                return jax.random.normal(key, (count, 2))

            many = jax.vmap(tiles, in_axes=(0, None))

            def eager_steps(span):
                steps = jnp.array(span // 0.5).astype(int)
                return jnp.arange(int(steps))

            @jax.jit
            def static_steps(x):
                n = x.shape[0] * 2
                with jax.ensure_compile_time_eval():
                    k = jnp.array(3)
                return jnp.zeros((n,)) + jnp.tile(x, 2), jnp.arange(len(x)), jnp.zeros(k)
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def f(x):
                idx = jnp.nonzero(x > 0, size=4, fill_value=-1)
                u = jnp.unique(x, size=8, fill_value=0)
                return jnp.where(x > 0, x, 0), idx, u
            """
        ),
        Valid(
            """
            import numpy as np
            import jax.numpy as jnp

            def eager(x):
                return x[x > 0], jnp.nonzero(x), jnp.unique(x)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit
            def positive_mean(x):
                return x[x > 0].mean()
            """,
            line=5,
            message="boolean mask `x > 0`",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def clean(x, y):
                bad = jnp.isnan(x) | (y < 0)
                keep = ~bad
                return x[keep], y.at[bad].set(0.0)
            """,
            line=8,
            count=2,
            message="`keep`",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp
            from jax import lax

            def body(c, x):
                idx = jnp.nonzero(x)
                return c, jnp.unique(x)

            def run(xs):
                return lax.scan(body, 0, xs)
            """,
            lines=(6, 7),
            message="`jnp.nonzero` without `size=`",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        top = ctx
        for fn in model.traced_functions(abstract=True):  # a shape from a tracer fails under eval_shape too
            ctx = at_most_likely(top) if through_callers(fn) else top
            taint = taint_of(model, fn)
            for node in fn.body_nodes():
                if isinstance(node, ast.Subscript) and not isinstance(node.ctx, (ast.Store, ast.Del)) \
                        and not builds_with_brackets(model, node):  # `jnp.r_[...]` builds an array
                    self._mask_index(ctx, taint, fn, node)
                    self._traced_slice(ctx, model, fn, node)
                elif isinstance(node, ast.Call):
                    self._sized_call(ctx, taint, fn, node)
                    self._traced_shape(ctx, model, fn, node)
                    self._traced_axis(ctx, model, fn, node)

    def _traced_slice(self, ctx, model: ModuleModel, fn: FunctionInfo, node: ast.Subscript) -> None:
        """``x[0:n]`` with a bound the model says is certainly traced (as a size is, by
        ``_size_source``): the length of the slice would depend on a traced value."""
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for part in parts:
            if not isinstance(part, ast.Slice):
                continue
            for bound in (part.lower, part.upper, part.step):
                if bound is None:
                    continue
                found = _size_source(ctx, model, fn, bound, 0)
                if found is None:
                    continue
                what = ("an array computed in traced code" if found.kind == "array"
                        else "a leaf field of a traced argument" if found.kind == "field"
                        else f"traced argument `{found.name}` of {traced_how(found.fn)}")
                ctx.report(
                    node,
                    f"slice bound `{describe(bound)}` of `{ctx.segment(node)}` is computed from {what}"
                    f"{found.condition}: "
                    f"a slice's length must be static, so tracing raises an IndexError (or a "
                    f"ConcretizationTypeError); make the bound static, or use `jax.lax.dynamic_slice` with a "
                    f"static size",
                    data={"function": "slice", "param": found.name},
                    confidence=found.confidence,
                )
                return

    def _mask_index(self, ctx, taint: Taint, fn: FunctionInfo, node: ast.Subscript) -> None:
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        found = next(((p, lv) for p in parts if (lv := mask_level(taint, fn, p)) is not None), None)
        if found is None:
            return
        mask, level = found
        m = ctx.segment(mask)
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr == "at":
            arr = ctx.segment(base.value)
            advice = f"use `jnp.where({m}, new_value, {arr})`"
        else:
            arr = ctx.segment(base)
            advice = f"keep the shape with `jnp.where({m}, {arr}, 0)` or a `where=` reduction"
        ctx.report(
            node,
            f"boolean mask `{m}` indexes `{arr}` in traced code: the result's shape depends on the "
            f"mask's values, so tracing raises NonConcreteBooleanIndexError; {advice}",
            data={"mask": m, "array": arr},
            confidence=confidence(level),
        )

    def _sized_call(self, ctx, taint: Taint, fn: FunctionInfo, call: ast.Call) -> None:
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        size = keywords.get("size")
        if size is not None and not (isinstance(size, ast.Constant) and size.value is None):
            return
        q = taint.model.resolve_call(call)
        shown, level = None, None
        if q is not None and q.startswith("jax.numpy."):
            short = q[len("jax.numpy."):]
            if short in SIZED:
                level = max((lv for a in call.args if (lv := taint.level(a)) is not None), default=None)
                shown = f"`jnp.{short}`"
            elif short == "where" and len(call.args) == 1 and not {"x", "y"} & keywords.keys():
                level = taint.level(call.args[0])
                shown = "one-argument `jnp.where`"
        elif q is None and isinstance(call.func, ast.Attribute) and call.func.attr == "nonzero":
            level = taint.level(call.func.value)
            shown = f"`{ctx.segment(call.func.value)}.nonzero()`"
        if shown is None or level is None:
            return
        ctx.report(
            call,
            f"{shown} without `size=` on a traced array: its output shape depends on the data, so tracing "
            f"raises ConcretizationTypeError; pass `size=` (and `fill_value=`), or keep the full shape "
            f"with a three-argument `jnp.where`",
            data={"function": shown.replace("`", "")},
            confidence=confidence(level),
        )

    def _traced_axis(self, ctx, model: ModuleModel, fn: FunctionInfo, call: ast.Call) -> None:
        """A traced value as an axis (``jnp.sum(x, axis=axis)`` with ``axis`` a traced
        argument, ``x.mean(k)``): which axis decides the result's shape, so it must be a
        Python int at trace time. The same traced values as for sizes."""
        q = model.resolve_call(call)
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        axes = [v for k, v in keywords.items() if k in _AXIS_KEYWORDS]
        if q is not None and q.startswith(("jax.numpy.", "jax.nn.", "jax.scipy.special.")):
            positions = _AXIS_POSITIONS.get(q.rsplit(".", 1)[-1], ())
        elif q is None and isinstance(call.func, ast.Attribute) and call.func.attr in _AXIS_METHODS \
                and not is_at_helper(call.func.value) \
                and taint_of(model, fn).level(call.func.value) == CERTAIN and not not_an_array_method(model, fn, call):
            positions = (0,)
        else:
            return
        starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), len(call.args))
        axes += [call.args[i] for i in positions if i < starred]
        for axis in axes:
            found = _size_source(ctx, model, fn, axis, 0)
            if found is None:
                continue
            short = (q or ctx.segment(call.func)).replace("jax.numpy.", "jnp.")
            ctx.report(
                call,
                f"`{describe(axis)}` is used as an axis of `{short}` but it is traced "
                f"({'traced argument `' + found.name + '`' if found.kind == 'param' else '`' + found.name + '`'}"
                f" of {traced_how(found.fn)}){found.condition}: the axis decides the result's shape, so it must be a Python int at "
                f"trace time and tracing raises a TypeError (or ConcretizationTypeError); "
                + (f"mark `{found.name}` static (`static_argnames=\"{found.name}\"`)"
                   if found.kind == "param" and found.direct and _jitted(found.fn)
                   else "compute it from static values"),
                data={"function": short, "param": found.name},
                confidence=found.confidence,
            )
            return

    def _traced_shape(self, ctx, model: ModuleModel, fn: FunctionInfo, call: ast.Call) -> None:
        """A traced value in a size position of a shape-taking API (``SIZE_ARGS``, the
        methods ``x.reshape(...)`` and ``x.repeat(n)``): a parameter that jit, vmap or a
        lax loop traces (jit traces every non-static argument, Python ints included), a
        leaf field of one, an index of one (``x[0]``), an array computed in traced code
        (``steps = jnp.array(span // dt)``: staged out under the trace even from
        constants), or arithmetic on any of these. Names are followed through their
        reaching assignments, and a helper's parameter to what its traced callers pass."""
        q = model.resolve_call(call)
        sizes = _size_arguments(model, fn, call, q)
        if not sizes:
            return
        found = None
        for arg in sizes:
            found = _size_source(ctx, model, fn, arg, 0)
            if found is not None:
                break
        if found is None:
            return
        short = (q or f"{ctx.segment(call.func)}").replace("jax.numpy.", "jnp.")
        size_text = describe(arg)
        retraced = fn.retraced_static.get(found.name) if found.kind == "param" and found.fn is fn else None
        if retraced is not None and found.direct:  # static already: a checkpoint or custom rule inside the jit traces it
            transform, keyword = retraced
            ctx.report(
                call,
                f"argument `{found.name}` of {traced_how(fn)} is used as a shape or size in `{short}`: the jit "
                f"keeps it static, but `{transform}` inside it traces it again, so tracing raises a "
                f"ConcretizationTypeError (or TypeError); name `{found.name}` in `{transform}`'s `{keyword}` as well",
                data={"function": short, "param": found.name},
                confidence=found.confidence,
            )
            return
        if found.kind == "param" and found.direct and found.fn is fn:
            mapped = all(r.kind == "vmap" for r in fn.traced_by)
            ctx.report(
                call,
                f"traced argument `{found.name}` of {traced_how(fn)} is used as a shape or size in `{short}`"
                f"{found.condition}: "
                + ("eqx.filter_jit traces an argument annotated as an array"
                   if not any(r.kind in _ALL_TRACED for r in fn.traced_by)
                   else f"{'vmap maps' if mapped else _traces(found.fn)} every non-static argument, Python ints "
                        f"included")
                + ", so tracing raises a ConcretizationTypeError (or TypeError); "
                + (f"pass `{found.name}` unmapped (`in_axes=None` for it)" if mapped
                   else f"mark `{found.name}` static (`static_argnames=\"{found.name}\"`)"
                   if _jitted(fn) else "compute it from static values (a shape, a static argument)"),
                data={"function": short, "param": found.name},
                confidence=found.confidence,
            )
            return
        if found.kind == "array":
            ctx.report(
                call,
                f"`{found.name}` is an array computed in traced code (`{ctx.segment(found.made_by)}`) and is used "
                f"as a shape or size in `{short}`{found.condition}: under the trace it is a tracer even when "
                f"computed from constants, so tracing raises a ConcretizationTypeError (or TypeError); compute it "
                f"with Python or NumPy from static values",
                data={"function": short, "param": found.name},
                confidence=found.confidence,
            )
            return
        what = ("a leaf field of a traced argument" if found.kind == "field"
                else f"traced argument `{found.name}` of {traced_how(found.fn)}")
        head = (f"`{size_text}` is {what}" if size_text == found.name and found.kind == "field"
                else f"`{size_text}` is computed from {what}")
        ctx.report(
            call,
            f"{head} and is used as a shape or size in `{short}`{found.condition}: {_traces_leaves(found.fn)}, "
            f"Python ints included, so tracing raises a ConcretizationTypeError (or TypeError); compute the size "
            f"from static values (a shape, a static argument or field)",
            data={"function": short, "param": found.name},
            confidence=found.confidence,
        )


def _jitted(fn: FunctionInfo) -> bool:
    return any(r.kind in ("jit", "pjit", "pmap", "nnx.jit") for r in fn.traced_by)


def _traces_leaves(fn: FunctionInfo) -> str:
    kinds = [r.kind for r in fn.traced_by if r.kind in _ALL_TRACED]
    if kinds and kinds[0] in _LOOPS:
        return f"`{kinds[0]}` traces every value it passes its body"
    return f"{kinds[0] if kinds else 'the trace'} traces every leaf of a non-static argument"


def _traces(fn: FunctionInfo) -> str:
    """Which transform traces ``fn``'s arguments, for messages (``jit traces``)."""
    kinds = [r.kind for r in fn.traced_by if r.kind in _ALL_TRACED]
    return f"{kinds[0] if kinds else 'the trace'} traces"


@dataclass(frozen=True)
class _Source:
    """Why a size expression is traced."""

    kind: str  # "param": a traced parameter; "field": a leaf field of one; "array": made in traced code
    name: str  # the parameter, the field (`p.n`) or the name of the array
    fn: FunctionInfo  # the function whose parameter or array it is
    direct: bool = True  # the size is the parameter itself or arithmetic on it (marking it static fixes it)
    made_by: ast.AST | None = None  # the call that made the array
    when: str = ""  # the condition of the one arm of a conditional expression that holds it ("": always)

    @property
    def confidence(self) -> Confidence:
        return Confidence.LIKELY if self.when else Confidence.CERTAIN

    @property
    def condition(self) -> str:
        """For messages: when the size holds the tracer."""
        return f" (when `{self.when}`)" if self.when else ""


def _size_arguments(model: ModuleModel, fn: FunctionInfo, call: ast.Call, q: str | None) -> list[ast.expr]:
    """The expressions ``call`` passes in size positions (each a size or a shape)."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if q is None:
        if not isinstance(call.func, ast.Attribute) or call.func.attr not in _SIZE_METHODS:
            return []
        if taint_of(model, fn).level(call.func.value) != CERTAIN or not_an_array_method(model, fn, call):
            return []  # `obj.reshape(...)` of an object that is not known to be an array
        if call.func.attr == "repeat":
            if "total_repeat_length" in keywords:
                return []
            return [a for a in [call.args[0] if call.args else keywords.get("repeats")] if a is not None]
        return [a.value if isinstance(a, ast.Starred) else a for a in call.args] + \
            [v for k, v in keywords.items() if k == "shape"]
    spec = SIZE_ARGS.get(q)
    out: list[ast.expr] = []
    if spec is None:
        if q.startswith("jax.random.") and "shape" in keywords:
            out.append(keywords["shape"])
        return out
    if q in ("jax.numpy.repeat",) and "total_repeat_length" in keywords:
        return []
    starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), len(call.args))
    for pos, kw in spec:
        if kw in keywords:
            out.append(keywords[kw])
        elif pos is not None and pos < starred:
            out.append(call.args[pos])
    return out


def _size_source(ctx, model: ModuleModel, fn: FunctionInfo, expr: ast.AST, depth: int) -> _Source | None:
    """Why the size expression ``expr`` (read in ``fn``) holds a tracer, or None when the
    model does not say for certain that it does."""
    if depth > 12:
        return None
    if isinstance(expr, (ast.Tuple, ast.List)):
        found = [s for e in expr.elts if (s := _size_source(ctx, model, fn, e, depth + 1)) is not None]
        return min(found, key=lambda s: bool(s.when), default=None)  # an element that always holds one first
    if isinstance(expr, ast.Starred):
        return _size_source(ctx, model, fn, expr.value, depth + 1)
    if isinstance(expr, ast.BinOp):
        return _size_source(ctx, model, fn, expr.left, depth + 1) or \
            _size_source(ctx, model, fn, expr.right, depth + 1)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd, ast.Invert)):
        return _size_source(ctx, model, fn, expr.operand, depth + 1)
    if isinstance(expr, ast.IfExp):
        # only one arm runs: the one a static test takes (`m if False else 2`); else certain
        # when both arms are traced, likely when one is (it raises whenever that arm is
        # taken: `n - i if s == -1 else s`)
        test = static_value(model, expr.test)
        if test is not UNKNOWN:
            return _size_source(ctx, model, fn, expr.body if test else expr.orelse, depth + 1)
        body = _size_source(ctx, model, fn, expr.body, depth + 1)
        orelse = _size_source(ctx, model, fn, expr.orelse, depth + 1)
        if body is not None and orelse is not None:
            return body
        if body is not None:
            return replace(body, when=body.when or describe(expr.test))
        if orelse is not None:
            return replace(orelse, when=orelse.when or f"not {describe(expr.test)}")
        return None
    taint = taint_of(model, fn)
    if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        # `[x * k for k in (1, 2)]`: its elements are what `elt` computes
        return _size_source(ctx, model, fn, expr.elt, depth + 1)
    if isinstance(expr, ast.Subscript):
        entry = dict_entry(model, fn, expr)
        if entry is not None:
            # `d["k"]` of `d = {"k": n, ...}`: that entry's value
            return _size_source(ctx, model, fn, entry, depth + 1)
        # `x[0]`, `sizes[1]` of a traced value: its element is traced (a shape's is not)
        inner = _size_source(ctx, model, fn, expr.value, depth + 1)
        if inner is None and not isinstance(expr.slice, ast.Slice):  # `sizes[i]`, `i` traced: a tracer
            inner = _size_source(ctx, model, fn, expr.slice, depth + 1)
        if inner is None and isinstance(expr.value, ast.Name) and taint.level(expr) == CERTAIN \
                and model.lookup(expr.value.id, fn)[0] is None:  # `kvals[i]` of a module-level jax array
            return _Source("array", ctx.segment(expr), fn, direct=False, made_by=expr)
        if inner is None or taint.level(expr) is None:
            return None
        return replace(inner, direct=False) if inner.kind != "array" else inner
    if isinstance(expr, ast.Attribute):
        return _field_source(ctx, model, fn, expr, depth)
    if isinstance(expr, ast.Call):
        return _call_source(ctx, model, fn, expr, depth)
    if isinstance(expr, ast.Name):
        return _name_source(ctx, model, fn, expr, depth)
    return None


def _field_source(ctx, model: ModuleModel, fn: FunctionInfo, expr: ast.Attribute, depth: int) -> _Source | None:
    """``p.n`` with ``p`` a traced parameter and ``n`` a field that a pytree class of the
    module declares a leaf (a NamedTuple or dataclass field) and none declares static:
    jit traces every leaf. ``x.T`` of an array made in traced code is that array."""
    if expr.attr in STATIC_ATTRS or static_field(model, expr.attr):
        return None
    base = expr.value
    if isinstance(base, ast.Name) and base.id in ("self", "cls"):
        return None
    inner = _size_source(ctx, model, fn, base, depth + 1)
    if inner is None and isinstance(base, ast.Name) and taint_of(model, fn).level(expr) == CERTAIN:
        # the model says the field holds a tracer (`b.a` of `b = Box(x)`, whose
        # constructor stores `x` there): it comes from what the constructor was given
        reach = model.reaching_bindings(base, fn)
        made = reach[0].value if len(reach) == 1 and reach[0].kind == "assign" else None
        if isinstance(made, ast.Call):
            args = [*made.args, *(k.value for k in made.keywords)]
            inner = next((src for a in args if (src := _size_source(ctx, model, fn, a, depth + 1)) is not None), None)
            return replace(inner, direct=False) if inner is not None and inner.kind != "array" else inner
    if inner is None:
        return None
    if inner.kind == "array" and expr.attr in ("T", "mT", "real", "imag"):
        return inner
    if inner.kind == "param" and inner.direct and leaf_field(model, inner.fn, inner.name, expr.attr):
        return _Source("field", f"{describe(base)}.{expr.attr}", inner.fn, direct=False)
    if taint_of(model, fn).level(expr) == CERTAIN:
        # the model says the field holds a tracer: it comes from what `base` came from
        return replace(inner, direct=False) if inner.kind != "array" else inner
    return None


def _call_source(ctx, model: ModuleModel, fn: FunctionInfo, call: ast.Call, depth: int) -> _Source | None:
    """A jax function's result made in traced code (staged out, even from constants), or
    an array method of a traced value (``n.astype(int)``, ``x.sum()``)."""
    q = model.resolve_call(call)
    if q in _SEQUENCE_BUILTINS and len(call.args) == 1 and not call.keywords:
        # `tuple(n - i for i in starts)`, `list(sizes)`: its elements are its argument's
        return _size_source(ctx, model, fn, call.args[0], depth + 1)
    taint = taint_of(model, fn)
    if taint.level(call) != CERTAIN:
        return None
    if q is not None and q.startswith(_ARRAY_MAKERS) or staged_call(model, call.func, fn):
        # a jitted function of the module called here is staged out too: `plus_one(k)`
        return _Source("array", ctx.segment(call), fn, made_by=call)
    if q is None or not q.startswith(("jax.", "numpy.", "builtins.")):
        # a function or class of the checked tree whose result the model computes from
        # its arguments (`double(x)` returning `x * 2`, `Box(x)`): from what they came from
        args = [*call.args, *(k.value for k in call.keywords)]
        if q is None and isinstance(call.func, ast.Attribute):
            args.append(call.func.value)  # `t.double()`: a method computing from its object's leaves
        inner = next((src for a in args if (src := _size_source(ctx, model, fn, a, depth + 1)) is not None), None)
        if inner is not None:
            return replace(inner, direct=False) if inner.kind != "array" else inner
    if q in _COMPUTING_BUILTINS:
        # `abs(n)`, `max(n, 2)`: computed from what they are given
        inner = next((src for a in call.args if (src := _size_source(ctx, model, fn, a, depth + 1)) is not None), None)
        return replace(inner, direct=False) if inner is not None and inner.kind != "array" else inner
    if q is None and isinstance(call.func, ast.Attribute) and call.func.attr in ARRAY_METHODS:
        inner = _size_source(ctx, model, fn, call.func.value, depth + 1)
        if inner is not None and inner.kind != "array":
            return replace(inner, direct=False)
        return inner
    return None


def _name_source(ctx, model: ModuleModel, fn: FunctionInfo, name: ast.Name, depth: int) -> _Source | None:
    """A name whose every reaching binding is a traced parameter or an assignment of a
    traced size; a parameter of a function traced only through calls is what its traced
    callers pass it."""
    taint = taint_of(model, fn)
    if taint.level(name) is None:
        return None  # not traced here (a static argument, an isinstance-narrowed name, ...)
    gen = taint.comprehension_binding(name)
    if gen is not None:
        # `i` of `(s - i for s, i in zip(x.shape, starts))`: an element of what it iterates
        it = iterated_source(name.id, gen.target, gen.iter)
        src = _size_source(ctx, model, fn, it, depth + 1) if it is not None else None
        return replace(src, direct=False) if src is not None and src.kind != "array" else src
    owner, _ = model.lookup(name.id, fn)
    if owner is None or not owner.traced:
        return None
    reach = model.reaching_bindings(name, fn)
    if not reach:
        return None
    found: _Source | None = None
    for b in reach:
        if b.kind == "param":
            src = _param_source(ctx, model, owner, b.name, depth)
        elif b.kind == "assign" and b.value is not None and owner is fn:
            src = _size_source(ctx, model, owner, b.value, depth + 1)
            if src is not None and src.kind == "array" and src.made_by is not None \
                    and src.name == ctx.segment(src.made_by):
                src = replace(src, name=name.id)  # `steps = jnp.array(...)`: shown as `steps`
        elif b.kind == "assign" and owner is fn and (whole := _unpacked_from(b.node, name.id)) is not None:
            # `a, n = operands`: an element of a traced value is traced (as `operands[1]` is)
            src = _size_source(ctx, model, owner, whole, depth + 1)
            if src is not None:
                src = replace(src, direct=False) if src.kind != "array" else replace(src, name=name.id)
        else:
            return None
        if src is None:
            return None  # some value it may hold is not known to be traced
        found = found or src
    return found


def _unpacked_from(stmt: ast.AST, name: str) -> ast.expr | None:
    """The value that ``a, name = value`` unpacks (``name`` an unstarred element of a tuple or
    list target, at any depth) when the value is not itself a tuple or list of the same length
    (those bind each name to its own element); None for any other binding."""
    if not isinstance(stmt, ast.Assign) or isinstance(stmt.value, (ast.Tuple, ast.List)):
        return None

    def holds(target: ast.AST) -> bool:
        return isinstance(target, (ast.Tuple, ast.List)) and any(
            (isinstance(e, ast.Name) and e.id == name) or holds(e) for e in target.elts)

    return stmt.value if any(holds(t) for t in stmt.targets) else None


def _param_source(ctx, model: ModuleModel, owner: FunctionInfo, param: str, depth: int) -> _Source | None:
    if param not in owner.traced_params:
        return None
    if any(r.kind in _ALL_TRACED for r in owner.traced_by):
        return _Source("param", param, owner)
    p = owner.param(param)
    if p is not None and model.is_array_annotation(p.annotation) \
            and any(r.kind in ("filter_jit", "filter_pmap", "filter_eval_shape", "filter_make_jaxpr")
                    for r in owner.traced_by):
        return _Source("param", param, owner)  # eqx.filter_jit traces what it is told is an array
    if not owner.traced_by or not all(r.by_call for r in owner.traced_by) or depth > 6:
        return None  # eqx.filter_jit keeps Python ints static
    for call, caller, implicit in owner.call_sites.values():
        if not caller.traced or p is None:
            continue
        arg = _argument_for(call, owner, p, implicit)
        if arg is None or arg is _UNREADABLE:
            continue
        src = _size_source(ctx, model, caller, arg, depth + 1)
        if src is not None:
            return replace(src, direct=False) if src.kind == "param" else src
    return None


#: Keywords that name an axis (jax.numpy): each must be a Python int at trace time.
_AXIS_KEYWORDS = frozenset({"axis", "axes", "axis1", "axis2", "source", "destination"})
#: jax.numpy / jax.nn functions whose positional arguments at these positions are axes.
_AXIS_POSITIONS: dict[str, tuple[int, ...]] = {
    **{n: (1,) for n in ("sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "argmax", "argmin",
                         "cumsum", "cumprod", "median", "nansum", "nanmean", "nanmax", "nanmin", "count_nonzero",
                         "ptp", "expand_dims", "squeeze", "flip", "sort", "argsort", "concatenate", "stack",
                         "transpose", "logsumexp", "softmax", "log_softmax", "amax", "amin")},
    "moveaxis": (1, 2), "swapaxes": (1, 2), "take": (2,), "roll": (2,),
}
#: Array methods whose first positional argument is an axis (``x.sum(k)``).
_AXIS_METHODS = frozenset({"sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "argmax", "argmin",
                           "cumsum", "cumprod", "squeeze", "sort", "argsort", "ptp"})
#: Array methods whose arguments are sizes (``x.reshape(n, -1)``; ``x.repeat(n)`` without
#: ``total_repeat_length``).
_SIZE_METHODS = frozenset({"reshape", "repeat"})
#: Builtins whose result is computed from their arguments (a tracer in, a tracer out).
_COMPUTING_BUILTINS = frozenset({"builtins.abs", "builtins.max", "builtins.min", "builtins.sum", "builtins.round",
                                 "builtins.pow", "builtins.divmod"})
#: Builtins that make a sequence of their argument's elements (a size from each).
_SEQUENCE_BUILTINS = frozenset({"builtins.tuple", "builtins.list"})
#: Calls whose result is a traced array when made in traced code.
_ARRAY_MAKERS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.", "jax.scipy.")
_LOOPS = frozenset({"scan", "fori_loop", "while_loop", "map", "cond", "switch", "associative_scan"})
#: transforms whose non-static parameters are all traced, Python ints included (nnx.jit
#: too, flax 0.12.8; eqx.filter_jit keeps non-array arguments static; a differentiation
#: transform traces its argnums)
_ALL_TRACED = frozenset({"jit", "pjit", "pmap", "nnx.jit", "vmap", "scan", "fori_loop", "while_loop", "map", "cond",
                         "switch", "associative_scan", "shard_map", "checkpoint", "remat", "grad", "value_and_grad",
                         "jacfwd", "jacrev", "hessian", "eval_shape", "make_jaxpr", "nnx.eval_shape"})
