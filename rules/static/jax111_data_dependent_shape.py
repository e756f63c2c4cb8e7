from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.taint import CERTAIN, Taint, confidence, taint_of, traced_how
from jaxlint.static.semantic import FunctionInfo, ModuleModel

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

#: jax.numpy functions whose output size depends on the data unless `size=` is given.
SIZED = {
    "nonzero", "argwhere", "flatnonzero", "unique", "unique_values", "unique_counts",
    "unique_inverse", "unique_all", "extract", "compress", "setdiff1d", "union1d", "intersect1d",
}
#: jax.numpy functions that return a boolean array.
BOOL_FUNCS = {
    "isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "isclose", "isin",
    "logical_and", "logical_or", "logical_not", "logical_xor", "equal", "not_equal",
    "greater", "greater_equal", "less", "less_equal", "isreal", "iscomplex",
}
_BOOL_OPS = (ast.BitAnd, ast.BitOr, ast.BitXor)


class DataDependentShape(StaticRule):
    """
    ## What it does
    Finds operations in traced code whose output shape depends on the values of a
    traced array:

    * boolean-mask indexing with a traced mask: `x[x > 0]`, `x[mask]`, `x.at[mask]`;
    * `jnp.nonzero`, `jnp.argwhere`, `jnp.flatnonzero`, `jnp.unique` (and its
      variants), `jnp.extract`, `jnp.compress`, the set operations `union1d`,
      `intersect1d`, `setdiff1d`, and one-argument `jnp.where`, called on a traced
      array without `size=`;
    * a non-static parameter of a jitted function, or a mapped parameter of a vmapped
      one, used as a shape or a size, also inside arithmetic: `jnp.zeros(n)`,
      `jnp.zeros((n * x.shape[0],))`, `jax.random.normal(key, (n, 3))`,
      `jax.nn.one_hot(x, k)`, `jax.random.split(key, n)`, `jnp.tile(x, n)`,
      `lax.full((n, 3), 0.0)`. jit traces
      every argument it is not told is static, Python ints included;
    * an array computed in traced code used as a shape or a size
      (`steps = jnp.array(span // dt)`, then `jnp.arange(steps)`): under a trace a
      `jax.numpy` result is a tracer even when it is computed from constants.

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
    name = "data-dependent-shape"
    summary = "an operation in traced code whose output shape depends on traced values"
    fix_hint = "mask with jnp.where, or pass size= (and fill_value=)"
    severity = Severity.ERROR

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
        Valid(
            """
            import jax
            import numpy as np

            MASK = np.array([True, False, True])

            @jax.jit
            def f(x, i):
                return x[MASK], x[i], x[x.shape[0] > 2], x[:, 0]
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def f(x):
                return x[jnp.argmax(x)], x[jnp.argsort(x)]
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
            line=6,
            count=2,
            message="`jnp.nonzero` without `size=`",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def where_positive(x):
                rows, cols = jnp.where(x > 0)
                return rows + cols, jnp.argwhere(x), x.nonzero()
            """,
            count=3,
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def padded(values, width):
                out = jnp.zeros((width, values.shape[-1]))
                return out.at[: values.shape[0]].set(values)
            """,
            line=6,
            message="traced argument `width` of jitted `padded` is used as a shape",
        ),
        Invalid(
            """
            import jax

            def labels(ids, n_classes):
                return jax.nn.one_hot(ids, n_classes)

            labels_jit = jax.jit(labels)
            """,
            line=4,
            message="mark `n_classes` static",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def repeat_rows(x, n):
                return jnp.zeros((n * x.shape[0],)) + jnp.tile(x, n)
            """,
            line=6,
            count=2,
            message="traced argument `n` of jitted `repeat_rows`",
        ),
        Invalid(
            """
            import jax

            def labels(ids, n_classes):
                return jax.nn.one_hot(ids, n_classes)

            labels_all = jax.vmap(labels)
            """,
            line=4,
            message="vmap maps every non-static argument",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def grid(t1):
                steps = jnp.array(10.0 // 0.5).astype(int)
                return jnp.arange(steps) * t1
            """,
            line=7,
            message="`steps` is an array computed in traced code",
        ),
        Invalid(
            """
            import jax
            from jax import lax

            @jax.jit
            def padded(row, length):
                return lax.full((length, row.shape[0]), 0.0, row.dtype)
            """,
            line=6,
            message="traced argument `length` of jitted `padded` is used as a shape or size in `jax.lax.full`",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        for fn in model.traced_functions():
            taint = taint_of(model, fn)
            for node in fn.body_nodes():
                if isinstance(node, ast.Subscript) and not isinstance(node.ctx, (ast.Store, ast.Del)):
                    self._mask_index(ctx, taint, fn, node)
                elif isinstance(node, ast.Call):
                    self._sized_call(ctx, taint, fn, node)
                    self._traced_shape(ctx, model, fn, node)

    def _mask_index(self, ctx, taint: Taint, fn: FunctionInfo, node: ast.Subscript) -> None:
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        found = next(((p, lv) for p in parts if (lv := _mask_level(taint, fn, p)) is not None), None)
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

    def _traced_shape(self, ctx, model: ModuleModel, fn: FunctionInfo, call: ast.Call) -> None:
        """A traced value used as a shape or a size: ``jnp.zeros(n)``, ``jax.random.normal(key,
        (n * 2, 3))``, ``jax.nn.one_hot(x, k)``, ``jnp.tile(x, n)`` with ``n`` a parameter
        that jit or vmap traces (jit traces every non-static argument, Python ints included)
        or arithmetic on one; or a local name bound to an array computed in traced code
        (``steps = jnp.array(span // dt)``: staged out under the trace even from constants)."""
        q = model.resolve_call(call)
        where = SHAPE_ARGS.get(q) if q is not None else None
        if q is None or where is None:
            return
        pos, kw = where
        arg = next((k.value for k in call.keywords if k.arg == kw), None)
        if arg is None and len(call.args) > pos and not any(isinstance(a, ast.Starred) for a in call.args[:pos + 1]):
            arg = call.args[pos]
        if arg is None:
            return
        parts = arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else [arg]
        every_param_traced = bool(fn.traced_by) and all(r.kind in _ALL_TRACED for r in fn.traced_by)
        taint = taint_of(model, fn)
        found = next((f for p in parts if (f := _traced_size(taint, fn, p, every_param_traced)) is not None), None)
        if found is None:
            return
        name, made_by = found
        short = q.replace("jax.numpy.", "jnp.")
        if made_by is None:
            ctx.report(
                call,
                f"traced argument `{name}` of {traced_how(fn)} is used as a shape or size in `{short}`: "
                f"{'vmap maps' if _mapped_only(fn) else 'jit traces'} every non-static argument, Python ints "
                f"included, so tracing raises a ConcretizationTypeError (or TypeError); "
                + (f"pass `{name}` unmapped (`in_axes=None` for it)" if _mapped_only(fn)
                   else f"mark `{name}` static (`static_argnames=\"{name}\"`)"),
                data={"function": short, "param": name},
            )
            return
        ctx.report(
            call,
            f"`{name}` is an array computed in traced code (`{ctx.segment(made_by)}`) and is used as a "
            f"shape or size in `{short}`: under the trace it is a tracer even when computed from constants, "
            f"so tracing raises a ConcretizationTypeError (or TypeError); compute it with Python or NumPy "
            f"from static values",
            data={"function": short, "param": name},
        )


def _mapped_only(fn: FunctionInfo) -> bool:
    return all(r.kind == "vmap" for r in fn.traced_by)


def _traced_size(taint: Taint, fn: FunctionInfo, expr: ast.AST, params: bool,
                 depth: int = 0) -> tuple[str, ast.AST | None] | None:
    """The traced name in a size expression (read through arithmetic: ``n * x.shape[0]``),
    and the call that made it when it is a local array (None for a parameter). ``params``:
    the function's traced parameters are all traced by jit or vmap."""
    if depth > 8:
        return None
    if isinstance(expr, ast.BinOp):
        return _traced_size(taint, fn, expr.left, params, depth + 1) \
            or _traced_size(taint, fn, expr.right, params, depth + 1)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _traced_size(taint, fn, expr.operand, params, depth + 1)
    if not isinstance(expr, ast.Name):
        return None
    bindings = fn.bindings.get(expr.id, [])
    if fn.param(expr.id) is not None:
        if params and expr.id in fn.traced_params and all(b.kind == "param" for b in bindings):
            return expr.id, None
        return None
    if not bindings or expr.id not in fn.tainted or any(b.kind != "assign" or b.value is None for b in bindings):
        return None
    made = None
    for b in bindings:
        found = taint.culprit(b.value)
        if found is None or found[0] != CERTAIN or not isinstance(found[1], ast.Call):
            return None  # not every value it holds is an array made in traced code
        made = found[1]
    return expr.id, made


#: jax.numpy / jax.random / jax.nn functions, and the argument (position, keyword) that
#: is a shape or a size: it must be a Python value at trace time.
SHAPE_ARGS = {
    "jax.numpy.zeros": (0, "shape"), "jax.numpy.ones": (0, "shape"), "jax.numpy.empty": (0, "shape"),
    "jax.numpy.full": (0, "shape"), "jax.numpy.eye": (0, "N"), "jax.numpy.identity": (0, "n"),
    "jax.numpy.arange": (0, "start"), "jax.numpy.tri": (0, "N"),
    "jax.random.normal": (1, "shape"), "jax.random.uniform": (1, "shape"), "jax.random.randint": (1, "shape"),
    "jax.random.bernoulli": (2, "shape"), "jax.random.truncated_normal": (3, "shape"),
    "jax.random.split": (1, "num"), "jax.random.gumbel": (1, "shape"),
    "jax.random.categorical": (3, "shape"), "jax.random.exponential": (1, "shape"),
    "jax.nn.one_hot": (1, "num_classes"), "jax.numpy.tile": (1, "reps"),
    "jax.lax.full": (0, "shape"), "jax.lax.iota": (1, "size"),
}
#: transforms whose non-static parameters are all traced (eqx.filter_jit and nnx.jit
#: keep non-array arguments static)
_ALL_TRACED = ("jit", "pjit", "pmap", "vmap")


def _mask_level(taint: Taint, fn: FunctionInfo, expr: ast.AST, depth: int = 0) -> int | None:
    """How sure ``expr`` is a boolean array computed from traced values (a comparison,
    `isnan`, `~m`, `a & b`): the taint level of the values it compares, None if it is not."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Compare):
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
            return None
        operands = [expr.left, *expr.comparators]
        if any(isinstance(o, ast.Constant) and isinstance(o.value, (str, bytes)) for o in operands):
            return None
        return taint.level(expr)
    if isinstance(expr, ast.Call):
        q = taint.model.resolve_call(expr) or ""
        return taint.level(expr) if q.startswith("jax.numpy.") and q[len("jax.numpy."):] in BOOL_FUNCS else None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert):
        return _mask_level(taint, fn, expr.operand, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _BOOL_OPS):
        levels = [lv for e in (expr.left, expr.right) if (lv := _mask_level(taint, fn, e, depth + 1)) is not None]
        return max(levels, default=None)
    if isinstance(expr, ast.Name) and expr.id in fn.tainted:
        bindings = fn.bindings.get(expr.id, [])
        bound = [_mask_level(taint, fn, b.value, depth + 1) if b.kind == "assign" and b.value is not None else None
                 for b in bindings]
        known = [lv for lv in bound if lv is not None]
        return min(known) if known and len(known) == len(bound) else None
    return None
