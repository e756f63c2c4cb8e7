from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Applicability, Confidence, Severity
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.arrays import annotated_only, at_update_base, is_jax_array, ref_params, ref_write, used_as_array
from jaxlint.rules.static._sizes import in_test, is_test_path
from jaxlint.static.cfg import name_reads

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

#: In-place operators and the `.at[]` method that does the same out of place.
AUG_METHODS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide", ast.Pow: "power"}


class DiscardedUpdate(StaticRule):
    """
    ## What it does
    Finds array updates that do nothing or fail:

    * an `x.at[i].set(v)` (or `.add`, `.subtract`, `.multiply`, `.divide`, `.power`,
      `.min`, `.max`, `.apply`) used as a statement, so its result is thrown away;
    * an `.at[]` update assigned to a local name in a function that returns nothing,
      when nothing reads the name afterwards but further updates of itself
      (`a = a.at[i].set(v)`: the caller's array is not changed, the update is lost),
      or to a name that nothing in the function reads at all beside a `return x`
      (`y = x.at[i].set(v)`; not a name starting with `_`, unused on purpose);
    * other functional updates used as a statement, whose result is all they do:
      `optax.apply_updates(params, updates)`, `tx.update(...)` of a name bound to an
      optax transformation (`tx = optax.adam(...)`; nnx's `Optimizer.update`, which
      works in place, is not one), `jax.tree.map` / `jax.tree_util.tree_map` of a lambda
      that only computes (arithmetic, `jax.numpy`, array methods), a `jax.numpy`
      update of an array (`jnp.append(x, v)`, `jnp.insert`, `jnp.delete`, `jnp.clip`,
      `jnp.sort`, `jnp.nan_to_num`, `jnp.fill_diagonal`), and `.sort()`, `.clip()` or
      `.round()` of a JAX array (in place in NumPy, a copy in JAX). Not in tests, which
      call these for what they raise or accept;
    * item assignment `x[i] = v` or `x[i] += v` on a JAX array: a parameter of traced
      code used as an array, a value made by `jax.numpy` / `jax.random`, or a
      parameter annotated as `jax.Array` (an error when a transform of its function traces
      it or the module's calls hand it jax arrays; the annotation alone is what the author
      says, not a value: a likely warning; and none where a call of the module hands it a
      NumPy array, a list or a number, `x = np.array(x)` then `stencil(x)`: the value the
      body gets wins over the annotation); not a parameter of Pallas kernel code, a
      mutable `Ref` (`out_ref[...] += x` writes the kernel's output block): a kernel
      given to `pallas_call` (also through `functools.partial` or as its decorator), a
      `run_scoped` / `emit_pipeline` body, and the functions they call; nor, in a module
      that uses Pallas, a parameter of any function but a jit-like entry point (kernel
      helpers annotate refs `jax.Array` and are reached in ways the model cannot follow,
      overridden methods among them), though a value the module makes as an array stays
      reported.

    A mutable `Ref` is left alone: its `.at[i].set(v)` writes the buffer in place (and returns
    None): a parameter of Pallas kernel code, one annotated `Ref`, a `jax.new_ref(...)`.
    Containers (`params["w"] = ...` on a dict pytree) and values whose type is not
    known are left alone, and so are `jax.tree.map` of a named function, of a lambda
    that calls anything else (`lambda p: p.block_until_ready()`, `print`: run for their
    effect) or that reads none of its arguments (`lambda *a: None`: mapped to check
    that the trees' structures match).

    ## Why is this bad?
    JAX arrays are immutable. `x.at[i].set(v)` returns a *new* array and leaves `x`
    unchanged, so a discarded result is an update that silently never happens. Item
    assignment raises `TypeError: JAX arrays are immutable` when the function is
    traced (or run).

    ## Example
    ```python
    @jax.jit
    def reset(x):
        x.at[0].set(0.0)
        return x
    ```

    ## Use instead
    ```python
    @jax.jit
    def reset(x):
        x = x.at[0].set(0.0)
        return x
    ```

    ## Fix safety
    The fix assigns the updated array back to the name (`x = x.at[0].set(0.0)`,
    `x = x.at[i].add(v)` for `x[i] += v`). It is unsafe: code after the statement that
    relied on the old `x` now sees the new value. Offered only when the array is a
    plain name. The index, the value and the comments around the statement are kept
    as written (a tuple value gets the parentheses `.set((a, b))` needs); no import is
    needed.

    ## Options

    ## References
    * [JAX sharp bits: in-place updates](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#in-place-updates)
    * [jax.numpy.ndarray.at](https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html)
    """

    code = "JAX110"
    group = "correctness"
    name = "discarded-update"
    summary = "an `.at[]` update whose result is discarded, or item assignment on an immutable JAX array"
    fix_hint = "assign the result back: x = x.at[i].set(v)"
    severity = Severity.ERROR
    fixable = Applicability.UNSAFE

    VALID = [
        Valid(
            """
            import jax

            @jax.jit
            def f(x):
                x = x.at[0].set(0.0)
                y = x.at[1].add(1.0)
                return y.at[2].get()
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            def fill(a):
                for i in range(a.size):
                    a = a.at[i].set(2 * (a[i] + 1))
                return a

            def running(x, steps):
                total = jnp.zeros(3)
                while steps > 0:
                    total = total.at[0].add(x[0])
                    x = x + total
                    steps -= 1
                return x

            def counted(a):
                a = a.at[0].set(1.0)
                a += 1

            def unused_on_purpose(a):
                _b = a.at[0].set(1.0)
                return a
            """
        ),
        Valid(
            """
            import jax

            @jax.jit
            def step(params, grads):
                params = dict(params)
                params["w"] = params["w"] - grads["w"]
                return params
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit
            def f(x):
                x.at[0].set(0.0)
                return x
            """,
            line=5,
            message="`x.at[0].set(0.0)`",
            expected_fix="""
            import jax

            @jax.jit
            def f(x):
                x = x.at[0].set(0.0)
                return x
            """,
        ),
        Invalid(
            """
            import jax.numpy as jnp

            def build(n, i):
                counts = jnp.zeros(n)
                counts.at[i].add(1)
                counts.at[i + 1].multiply(2).at[0].set(3)
                return counts
            """,
            lines=(5, 6),
            expected_fix="""
            import jax.numpy as jnp

            def build(n, i):
                counts = jnp.zeros(n)
                counts = counts.at[i].add(1)
                counts = counts.at[i + 1].multiply(2).at[0].set(3)
                return counts
            """,
        ),
        Invalid(
            """
            import jax

            @jax.jit
            def scale(x, i):
                x[i] = x[i] * 2
                return x / x.sum()
            """,
            line=5,
            message="`x` is a JAX array",
            expected_fix="""
            import jax

            @jax.jit
            def scale(x, i):
                x = x.at[i].set(x[i] * 2)
                return x / x.sum()
            """,
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        updates = ".at[" in ctx.source
        tests = is_test_path(ctx.path)
        for expr in model.nodes(ast.Expr):
            if isinstance(expr.value, ast.Call):
                if updates:
                    self._discarded(ctx, expr, expr.value)
                if not tests:
                    self._discarded_copy(ctx, model, expr, expr.value)
        dead: dict[tuple[int, str], ast.Assign] = {}
        reads: dict = {}
        for assign in model.nodes(ast.Assign):
            name = _dead_update(model, assign, reads) if updates else None
            if name is not None:
                key = (id(model.function_of(assign)), name)
                if key not in dead or (dead[key].lineno, dead[key].col_offset) < (assign.lineno, assign.col_offset):
                    dead[key] = assign
            for t in assign.targets:
                if isinstance(t, ast.Subscript):
                    self._item_assignment(ctx, model, assign, t)
        for aug in model.nodes(ast.AugAssign):
            if isinstance(aug.target, ast.Subscript):
                self._item_assignment(ctx, model, aug, aug.target)

        for (_, name), assign in dead.items():
            ctx.report(
                assign,
                f"the result of `{_short(ctx.segment(assign.value))}` is assigned to `{name}`, which nothing "
                f"reads afterwards: the update is lost when the function returns; return `{name}` or use it",
                data={"array": name},
            )

    def _discarded(self, ctx, stmt: ast.Expr, call: ast.Call) -> None:
        base = at_update_base(call)
        if base is None or ref_write(ctx.model, ctx.model.function_of(stmt), call):
            return  # a Ref's `.at[i].set(v)` writes its buffer in place
        text = ctx.segment(call)
        what = ctx.segment(base)
        fix = None
        if isinstance(base, ast.Name):
            fix = ctx.codemod(f"Assign the result back to `{base.id}`", Applicability.UNSAFE, stmt=stmt, name=base.id)
        ctx.report(
            stmt,
            f"the result of `{_short(text)}` is discarded: `.at[]` returns an updated copy and "
            f"leaves `{what}` unchanged; assign it (`{what} = {what}.at[...]...`)",
            fix=fix,
            data={"array": what},
        )

    def _discarded_copy(self, ctx, model, stmt: ast.Expr, call: ast.Call) -> None:
        """A statement calling a function that returns an updated copy and changes nothing:
        ``optax.apply_updates(params, updates)``, ``tx.update(...)`` of an optax
        transformation, ``jax.tree.map`` of a pure function, a ``jax.numpy`` update
        (``jnp.append(x, v)``, ``jnp.clip(x, 0, 1)``), an array method NumPy runs in place
        (``x.sort()`` on a JAX array)."""
        fn = model.function_of(call)
        if in_test(fn):
            return  # tests call these for what they raise or accept, on purpose
        q = model.resolve_call(call)
        what = why = None
        if q == "optax.apply_updates":
            what, why = "the new parameters", "leaves `{}` unchanged".format(
                ctx.segment(call.args[0]) if call.args else "the parameters")
        elif q in _TREE_MAPS and call.args and _pure_leaf_function(model, call.args[0]):
            what, why = "a new tree", "leaves the tree it maps unchanged"
        elif q is not None and q.startswith("jax.numpy.") and q[len("jax.numpy."):] in _JNP_COPIES \
                and call.args and isinstance(call.args[0], (ast.Name, ast.Attribute)):
            what, why = "a new array", f"leaves `{ctx.segment(call.args[0])}` unchanged"
        elif q is None and isinstance(call.func, ast.Attribute):
            receiver = call.func.value
            if call.func.attr == "update" and _optax_transformation(model, fn, receiver):
                what, why = "the updates and the new optimizer state", "changes nothing"
            elif call.func.attr in _IN_PLACE_IN_NUMPY and is_jax_array(model, fn, receiver):
                what = "a new array"
                why = (f"leaves `{ctx.segment(receiver)}` unchanged (NumPy's `.{call.func.attr}()` works in place, "
                       f"a JAX array's does not)")
        if what is None:
            return
        ctx.report(
            stmt,
            f"the result of `{_short(ctx.segment(call))}` is discarded: it returns {what} and {why}; "
            f"assign it",
            data={"function": q if q is not None else f".{getattr(call.func, 'attr', '')}()"},
        )

    def _item_assignment(self, ctx, model, stmt: ast.Assign | ast.AugAssign, target: ast.Subscript) -> None:
        base = target.value
        idx = target.slice
        if isinstance(idx, ast.Constant) and isinstance(idx.value, str):
            return  # a string key: a dict or other container
        fn = model.function_of(stmt)
        # an unannotated traced parameter is an array (not a list/dict pytree) when the
        # body also uses it as one and never rebinds it
        traced_array_param = (
            fn is not None and fn.traced and isinstance(base, ast.Name) and base.id in fn.traced_params
            and _only_param_binding(fn, base.id) and used_as_array(fn, base.id) and not ref_params(model, fn)
        )
        if not (traced_array_param or is_jax_array(model, fn, base)):
            return
        name = ctx.segment(base)
        index = ctx.segment(idx)
        method = "set" if isinstance(stmt, ast.Assign) else AUG_METHODS.get(type(stmt.op))
        suggestion = f"{name} = {name}.at[{index}].{method or 'set'}(...)"
        fix = None
        if method is not None and isinstance(base, ast.Name) and (
                isinstance(stmt, ast.AugAssign) or len(stmt.targets) == 1):
            fix = ctx.codemod(f"Use `{name} = {name}.at[{_short(index)}].{method}(...)`", Applicability.UNSAFE,
                              stmt=stmt, name=name, method=method)
        ctx.report(
            stmt,
            f"item assignment to `{_short(ctx.segment(target))}` raises TypeError: `{name}` is a JAX array "
            f"and JAX arrays are immutable; use `{suggestion}`",
            fix=fix,
            data={"array": name},
            # certain when the model knows the value is a jax array; likely when a traced
            # parameter is only used like one (it may be a list or dict pytree)
            confidence=Confidence.LIKELY if traced_array_param and not is_jax_array(model, fn, base)
            or annotated_only(model, fn, base) else Confidence.CERTAIN,
        )

    def codemod(self, fx) -> None:
        import libcst as cst

        name = cst.Name(fx.arg("name"))
        stmt = fx.node("stmt", cst.Expr, cst.Assign, cst.AugAssign)
        if isinstance(stmt, cst.Expr):  # x.at[i].set(v) -> x = x.at[i].set(v)
            value = stmt.value
        else:  # x[i] = v -> x = x.at[i].set(v); x[i] += v -> x = x.at[i].add(v)
            target = stmt.targets[0].target if isinstance(stmt, cst.Assign) else stmt.target
            if not isinstance(target, cst.Subscript):
                raise fx.cannot("the target is not an item")
            arg = stmt.value
            if isinstance(arg, (cst.Tuple, cst.Yield)) and not arg.lpar:  # `x[i] = a, b` sets a tuple
                arg = arg.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            at = cst.Subscript(cst.Attribute(name, cst.Name("at")), target.slice,
                               lbracket=target.lbracket, rbracket=target.rbracket)
            value = cst.Call(cst.Attribute(at, cst.Name(fx.arg("method"))), [cst.Arg(arg)])
        fx.replace(stmt, cst.Assign([cst.AssignTarget(name)], value, semicolon=stmt.semicolon))


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TREE_MAPS = {"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"}
#: jax.numpy functions that return an updated copy of their first argument.
_JNP_COPIES = {"append", "insert", "delete", "clip", "sort", "nan_to_num", "fill_diagonal"}
#: Array methods that work in place on a NumPy array and return a copy on a JAX one.
_IN_PLACE_IN_NUMPY = {"sort", "clip", "round"}
#: What a leaf function may call and stay pure: jax's array libraries and array methods.
_PURE_MODULES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.")
_PURE_METHODS = {"astype", "reshape", "transpose", "squeeze", "clip", "sum", "mean", "conj", "round"}


def _pure_leaf_function(model, f: ast.expr) -> bool:
    """A lambda whose body only computes from its arguments (arithmetic, jax.numpy, array
    methods): mapping it makes a new tree and does nothing else."""
    if not isinstance(f, ast.Lambda) or isinstance(f.body, ast.Constant):
        return False  # `lambda *a: None` maps only to compare the trees' structures
    params = {a.arg for a in (*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs)}
    if not any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(f.body)):
        return False
    for node in ast.walk(f.body):
        if isinstance(node, ast.Call):
            q = model.resolve_call(node)
            if q is not None and q.startswith(_PURE_MODULES):
                continue
            if q is None and isinstance(node.func, ast.Attribute) and (
                    node.func.attr in _PURE_METHODS or at_update_base(node) is not None):
                continue
            return False
        if isinstance(node, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
    return True


def _optax_transformation(model, fn, receiver: ast.expr) -> bool:
    """``tx`` bound (every binding that reaches here) to a call of ``optax``: a gradient
    transformation, whose ``update`` is pure (nnx's ``Optimizer.update`` works in place)."""
    if not isinstance(receiver, ast.Name):
        return False
    _, bindings = model.lookup(receiver.id, fn)
    return bool(bindings) and all(
        b.kind == "assign" and isinstance(b.value, ast.Call)
        and (model.resolve_call(b.value) or "").startswith("optax.") for b in bindings)


def _dead_update(model, assign: ast.Assign, memo: dict) -> str | None:
    """``a = a.at[i].set(v)`` in a function that returns nothing and whose later code
    never reads ``a``: every read of the name that can see the update is inside such an
    update of itself (the value of the last one is dropped). Reads before it
    (``range(a.size)`` of the loop around it) cannot see it; a read in a loop around it
    can (the next iteration). The name, or None when the update is not dropped.
    ``memo`` keeps each function's reads by name (None: the function returns a value)."""
    target = assign.targets[0] if len(assign.targets) == 1 else None
    if not isinstance(target, ast.Name) or not isinstance(assign.value, ast.Call) \
            or at_update_base(assign.value) is None:
        return None
    name = target.id
    fn = model.function_of(assign)
    if ref_write(model, fn, assign.value):
        return None  # a Ref's `.at[i].set(v)` wrote its buffer: nothing is lost
    if fn is None or isinstance(fn.node, ast.Lambda) or name in fn.globals_ or name in fn.nonlocals:
        return None
    if id(fn) not in memo:
        memo[id(fn)] = name_reads(fn)
    reads, returns = memo[id(fn)]
    if reads is None:
        return None  # it cannot be read (`locals()`, `eval`)
    if returns and name not in reads and not name.startswith("_"):
        return name  # `y = x.at[i].set(v)` that nothing ever reads, beside `return x`: the update is lost
    if returns:
        return None  # it returns something: the name may be what it returns, or a part of it
    loops = {id(a) for a in model.ancestors(assign) if isinstance(a, _LOOPS)}
    at = (assign.lineno, assign.col_offset)
    for node in reads.get(name, ()):
        chain = list(model.ancestors(node))
        if any(isinstance(a, ast.Assign) and _self_update(a, name) for a in chain):
            continue  # read by the next update of itself
        if (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) > at:
            return None
        for a in chain:
            if id(a) in loops and not (isinstance(a, (ast.For, ast.AsyncFor)) and model.inside(node, a.iter)):
                return None  # a later iteration reads it
    return name


def _self_update(stmt: ast.Assign, name: str) -> bool:
    return len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name \
        and isinstance(stmt.value, ast.Call) and at_update_base(stmt.value) is not None


def _only_param_binding(fn, name: str) -> bool:
    """The parameter is never rebound in the body (so it is still the traced input)."""
    return all(b.kind == "param" or isinstance(b.node, ast.AugAssign) for b in fn.bindings.get(name, []))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."
