from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Applicability, Confidence
from jaxlint.rule import FindingKind, Invalid, Option, StaticRule, Valid
from jaxlint.static.arrays import is_jax_array, used_as_array
from jaxlint.rules.static._fixplan import attribute_path, free_local_name, is_statement_list_member
from jaxlint.static.consts import (RANGES, counted_iterable, static_count, static_source, trip_count, while_count,
                                   written_count)
from jaxlint.static.taint import CERTAIN, POSSIBLE, describe, taint_of, traced_how
from jaxlint.static.semantic import walk
from jaxlint.static.traced import compiled_nowhere

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext


#: a known count from which a loop is of the kind ``long-count`` (docs/precision.md, "JAX102's default scope")
LONG_COUNT = 100
_kind = {True: "long-count", False: None}.get


class PythonLoopInJit(StaticRule):
    """
    ## What it does
    Finds `for` loops in traced code whose trip count is known statically and is at least `max-iterations`:
    `range(1000)`, `range(N)` with a module-level constant, `range(a, b, step)`. The count is what the value model
    computes statically (`jaxlint.static.consts`): a literal, a constant bound once (module-level or local, unpacked
    or not), a dict entry with a constant key (`CFG["steps"]`), a field of a module-level NamedTuple or dataclass
    instance (`CONFIG.steps`), a class attribute bound once (`Config.steps`), what a helper without arguments
    returns, and arithmetic on those; anything else is unknown, never guessed.

    The other ways Python repeats traced work are counted the same way, when what they repeat computes on a traced
    value (building Python ints or index lists costs nothing to unroll and stays clean): a list, set or dict
    comprehension or a generator (`jnp.stack([x * i for i in range(N)])`, `sum(f(x, i) for i in ...)`; its
    generators' counts multiply); `while i < N:` with a static counter stepped once per iteration (`i += 1`) and no
    `break`; and loops each under the limit nested so that their counts multiply past it (`8 x 8 = 64`), reported
    once, at the innermost.

    Also finds loops whose count is fixed at trace time but unknown statically: over the rows of a traced array
    (`for row in x`, and Python's `sum(x)`, `min(x)`, `max(x)` of one, which iterate it the same way), or up to a
    size of a traced argument (`range(x.shape[0])`, `range(len(x))`), or up to a static argument of the jit
    (`range(n)` with `n` in `static_argnums`). The message says the count is unknown; the dynamic phase measures it
    (JAX202).

    A loop whose count the model knows is small stays clean: a literal tuple or list, a module-level one, `len()` of
    those, `range(k)` with a small static `k` (through any of the paths above), a field declared static. A count
    unknown here is a likely finding when it is a leading axis (`x.shape[0]`, `len(x)`, the rows of `x`) or a static
    argument, and only a possible one (`--preview`) when it is a trailing axis (`range(field.shape[-1])`, the 2 or 3
    components of a vector field) or `jnp.arange(n)` of a static `n`.

    Loops over pytrees, lists of layers, and other loops whose count is not known statically are left alone. So are
    the loops of a function traced only by `vmap` or a differentiation transform (`grad`, `value_and_grad`, `jvp`,
    ...) applied in eager code, or called only from such functions (`jax.vmap(train)(keys)` at the top level of a
    script or test): those transforms build no program of their own, so each iteration's operations are dispatched
    one by one and nothing is unrolled into a compiled program (checked with real jax: a 40-step loop after a
    10-step one compiles nothing new). A `jit`, `pmap`, lax loop or `cond` on the path makes it traced code again.

    Its default scope is measured (docs/precision.md, "JAX102's default scope"): a count the model knows and is at
    least 100 (kind `long-count`) is in `perf`, on by default; a shorter or unknown one is in `pedantic`.

    ## Why is this bad?
    Under `jit`, a Python loop runs at trace time: every iteration is traced again and emitted as a fresh copy of
    the body. A 1,000-step loop makes a program 1,000 times larger, and XLA compile time grows with it (seconds to
    minutes).

    ## Example
    ```python
    @jax.jit
    def simulate(x):
        for _ in range(1000):
            x = step(x)
        return x
    ```

    ## Use instead
    ```python
    @jax.jit
    def simulate(x):
        return jax.lax.fori_loop(0, 1000, lambda i, x: step(x), x)
    ```
    Use `jax.lax.scan` when each step also produces an output, and `jax.vmap` when the iterations do not depend on
    each other.

    ## Fix safety
    A loop the fix can rewrite exactly becomes `jax.lax.fori_loop`: `for _ in range(n)` or `range(a, b)` (step 1, no
    `else`), whose index is not used, and whose body is assignments to names of which exactly one is carried from
    one iteration to the next (read before it is assigned, and bound before the loop); the others are temporaries,
    unused after the loop. A one-line body becomes a lambda (`x = jax.lax.fori_loop(0, n, lambda _, x: x * 2, x)`; a
    comment on the `for` line goes to the new line), a longer one (or one with comments) a local `def body(_, x):
    ...; return x`, its statements and comments kept. `jax.lax` is named through the module's imports (`import jax`
    is added when there is none). It is unsafe: the carried value must keep its shape and dtype from one iteration
    to the next, which a Python loop does not require, and the body is traced once instead of once per iteration.

    ## Options

    ## References
    * [JAX: control flow](https://docs.jax.dev/en/latest/control-flow.html)
    * [jax.lax.fori_loop](https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html)
    """

    code = "JAX102"
    traced_code = True  # about code under a trace: an eager-only branch is none of its business
    group = "pedantic"
    kinds = {"long-count": FindingKind("perf", f"a count the model knows statically and is at least {LONG_COUNT} "
                                               "(`range(1000)`, `range(STEPS)` with `STEPS = 500`)")}
    name = "python-loop-in-jit"
    fixable = Applicability.UNSAFE
    summary = "a long Python loop in traced code is unrolled into the program"
    fix_hint = "use jax.lax.fori_loop / jax.lax.scan, or jax.vmap for independent iterations"
    options = {
        "max-iterations": Option(16, "loops with at least this many iterations are reported", int, 1),
    }

    VALID = [
        Valid(
            """
            import jax

            @jax.jit
            def f(x):
                for _ in range(4):
                    x = x * 2
                return x
            """
        ),
        Valid(
            """
            import jax

            @jax.jit
            def f(params, x):
                for layer in params["layers"]:
                    x = x @ layer
                return x
            """
        ),
        Valid(
            """
            import jax

            def f(x, n):
                for _ in range(n):
                    x = x * 2
                return x
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            from typing import NamedTuple
            import jax

            class Config(NamedTuple):
                steps: int

            CONFIG = Config(steps=1000)

            @jax.jit
            def simulate(x):
                n = CONFIG.steps
                for _ in range(n):
                    x = x * 0.5
                return x
            """,
            line=12,
            message="Python loop with 1000 iterations",
        ),
        Invalid(
            """
            import jax

            CFG = {"steps": 500, "lr": 0.1}

            def n_steps():
                return CFG["steps"] * 2

            @jax.jit
            def simulate(x):
                for _ in range(n_steps()):
                    x = x * 0.5
                return x
            """,
            line=10,
            message="Python loop with 1000 iterations",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def scan_sensors(pos):
                for angle in jnp.arange(64):
                    pos = pos + jnp.cos(angle)
                return pos
            """,
            line=6,
            message="Python loop with 64 iterations",
        ),
    ]

    @classmethod
    def kind_of(cls, signature: str) -> str | None:
        """``long-count`` where the header writes a count of at least ``LONG_COUNT`` (a name's is the model's)."""
        n = written_count(signature.partition(":")[2])
        return "long-count" if n is not None and n >= LONG_COUNT else None

    def check(self, ctx: StaticContext) -> None:
        limit = self.opts["max-iterations"]
        model = ctx.model
        for fn in model.traced_functions():
            if compiled_nowhere(model, fn):
                continue  # only an eager `vmap` / `grad` runs it: its loops run op by op, unrolled into nothing
            for node in fn.body_nodes():
                if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                        and isinstance(node.func, ast.Name) and node.func.id in ("sum", "min", "max") \
                        and model.resolve_call(node) in _ITERATING_BUILTINS:
                    self._builtin_over_rows(ctx, fn, node)
                    continue
                if isinstance(node, _COMPREHENSIONS):
                    if _traces(model, fn, [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
                        self._comprehension(ctx, model, node, limit)
                    continue
                if isinstance(node, ast.While):
                    if _traces(model, fn, node.body):
                        self._counted_while(ctx, model, fn, node, limit)
                    continue
                if not isinstance(node, (ast.For, ast.AsyncFor)):
                    continue
                n = trip_count(model, counted_iterable(model, node.iter))
                if n is None:
                    self._unknown_count(ctx, fn, node)
                    continue
                if n < limit:
                    if _traces(model, fn, node.body):
                        self._nested(ctx, model, fn, node, n, limit)
                    continue
                body = node.body
                independent = self._independent(node)
                hint = "jax.vmap (iterations look independent)" if independent else "jax.lax.fori_loop or jax.lax.scan"
                ctx.report(
                    node,
                    f"Python loop with {n} iterations in traced code is unrolled {n} times; use {hint}",
                    end_node=node.iter,
                    data={"iterations": n, "body_lines": [body[0].lineno, body[-1].end_lineno]},
                    fix=None if independent else _fori_fix(ctx, fn, node),
                    kind=_kind(n >= LONG_COUNT),
                )

    def codemod(self, fx) -> None:
        import libcst as cst

        loop = fx.node("loop", cst.For)
        x, index = fx.arg("carry"), fx.arg("index")
        it = loop.iter
        if loop.orelse is not None or not isinstance(it, cst.Call) or not isinstance(loop.body, cst.IndentedBlock):
            raise fx.cannot("the loop is not of the shape the check saw")
        args = [a.value for a in it.args]
        start, stop = (cst.Integer("0"), args[0]) if len(args) == 1 else (args[0], args[1])
        if fx.arg("module"):
            fx.add_import(fx.arg("module"))
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        stmts = list(loop.body.body)
        one = stmts[0] if len(stmts) == 1 else None
        line = one if (isinstance(one, cst.SimpleStatementLine) and len(one.body) == 1 and not one.leading_lines
                       and one.trailing_whitespace.comment is None and not loop.body.footer) else None
        simple = line is not None
        params = cst.Parameters([cst.Param(cst.Name(index), comma=comma), cst.Param(cst.Name(x))])
        fn: cst.BaseExpression
        made: list[cst.BaseStatement]
        if line is not None:
            fn = cst.Lambda(params, _step_value(cst, line.body[0], x))
            made = []
        else:
            name = fx.arg("body")
            ret = cst.SimpleStatementLine([cst.Return(cst.Name(x))])
            fn = cst.Name(name)
            made = [cst.FunctionDef(cst.Name(name), params,
                                    loop.body.with_changes(body=[*stmts, ret], header=cst.TrailingWhitespace()))]
        call = cst.Call(fx.expr(fx.arg("fori")), [cst.Arg(start, comma=comma), cst.Arg(stop, comma=comma),
                                                   cst.Arg(fn, comma=comma), cst.Arg(cst.Name(x))])
        header = loop.body.header if simple else cst.TrailingWhitespace()
        made.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(x))], call)],
                                            trailing_whitespace=header))
        if not simple and loop.body.header.comment is not None:  # `for ...:  # note` -> a line above the def
            made[0] = made[0].with_changes(leading_lines=[cst.EmptyLine(comment=loop.body.header.comment)])
        fx.insert_before(loop, *made)
        fx.remove(loop)

    def _comprehension(self, ctx, model, node, limit: int) -> None:
        """A list, set or dict comprehension or a generator in traced code runs its element
        once per item, as a loop does: its generators' static counts multiply."""
        total = 1
        for gen in node.generators:
            n = trip_count(model, counted_iterable(model, gen.iter))
            if n is None or gen.ifs or gen.is_async:
                return  # a count unknown here, or filtered: not sized
            total *= n
        if total < limit:
            return
        ctx.report(node, f"Python comprehension with {total} iterations in traced code is unrolled {total} "
                         f"times (each element is traced again); use jax.vmap or a jax.numpy operation over "
                         f"an axis",
                   data={"iterations": total}, kind=_kind(total >= LONG_COUNT))

    def _nested(self, ctx, model, fn, loop, n: int, limit: int) -> None:
        """A loop below the limit inside loops below it whose counts multiply past it
        (8 x 8 = 64 copies of the body): reported at the inner loop, once."""
        total, outer = n, []
        for a in model.ancestors(loop):
            if a is fn.node:
                break
            if isinstance(a, (ast.For, ast.AsyncFor)):
                m = trip_count(model, counted_iterable(model, a.iter))
                if m is None or m >= limit:
                    return  # the outer loop is unknown here, or reported itself
                total *= m
                outer.append(m)
            elif isinstance(a, (ast.While, *_COMPREHENSIONS)):
                return
        if not outer or total < limit:
            return
        if any(isinstance(d, (ast.For, ast.AsyncFor)) and d is not loop
               and (trip_count(model, counted_iterable(model, d.iter)) or limit) < limit for d in walk(loop)):
            return  # a loop inside this one multiplies further: reported there
        counts = " x ".join(str(m) for m in [*reversed(outer), n])
        ctx.report(loop, f"nested Python loops in traced code ({counts} = {total} iterations) are unrolled {total} "
                         f"times; use jax.lax.fori_loop or jax.lax.scan (or jax.vmap) for at least one of them",
                   end_node=loop.iter, data={"iterations": total,
                                             "body_lines": [loop.body[0].lineno, loop.body[-1].end_lineno]},
                   kind=_kind(total >= LONG_COUNT))

    def _counted_while(self, ctx, model, fn, loop: ast.While, limit: int) -> None:
        """``i = 0; while i < N: ...; i += 1`` with static bounds: a Python counter, so the
        loop runs at trace time, unrolled (N - 0) / 1 times."""
        n = while_count(model, fn, loop)
        if n is None or n < limit:
            return
        ctx.report(loop, f"Python while loop with a static counter runs {n} iterations in traced code and is "
                         f"unrolled {n} times; use jax.lax.fori_loop or jax.lax.while_loop",
                   end_node=loop.test, data={"iterations": n}, kind=_kind(n >= LONG_COUNT))

    def _builtin_over_rows(self, ctx, fn, call: ast.Call) -> None:
        """Python's ``sum(x)`` (``min``, ``max``) of a traced array: it iterates the rows
        one by one, an unrolled loop as ``for row in x`` is."""
        model, arg = ctx.model, call.args[0]
        taint = taint_of(model, fn)
        if taint.level(arg) != CERTAIN or not (is_jax_array(model, fn, arg) or _array_arithmetic(arg)):
            return
        name = call.func.id if isinstance(call.func, ast.Name) else describe(call.func)
        ctx.report(call, f"Python's `{name}()` in {traced_how(fn)} iterates over the rows of traced array "
                         f"`{describe(arg)}` one by one: it is unrolled once per row, a count fixed at trace time "
                         f"but unknown statically; use `jnp.{name}`",
                   data={"iterations": None, "builtin": name}, confidence=Confidence.LIKELY)

    def _unknown_count(self, ctx, fn, loop: ast.For | ast.AsyncFor) -> None:
        """A loop over the rows of a traced array, or up to a size of a traced argument:
        unrolled as many times as that size, which is fixed at trace time but unknown here."""
        model, it = ctx.model, counted_iterable(ctx.model, loop.iter)
        taint = taint_of(model, fn)
        rows = None
        # a count the model cannot size: likely large when it is a leading (batch, time) axis or a caller's choice;
        # only possibly when it is a range built as an array from a static size (`jnp.arange(n)`) or a trailing axis
        sure = Confidence.LIKELY
        if isinstance(it, ast.Call) and model.resolve_call(it) in RANGES - {"builtins.range"}:
            if it.args and not any(taint.level(a) is not None for a in it.args):
                sure = Confidence.POSSIBLE
                rows = f"runs as many times as `{describe(it)}` has elements, a static size not known here"
        elif taint.level(it) is not None and (is_jax_array(model, fn, it) or (
                isinstance(it, ast.Name) and it.id in fn.traced_params
                and all(b.kind == "param" for b in fn.bindings.get(it.id, [])) and used_as_array(fn, it.id))):
            rows = f"iterates over the rows of traced array `{describe(it)}`"
            if taint.level(it) == POSSIBLE:
                sure = Confidence.POSSIBLE  # an array only possibly traced (a helper's result)
        if rows is None:
            bound = self._size_bound(model, fn, it)
            if bound is not None:
                rows = f"runs `{describe(bound)}` times, a size of traced argument `{describe(bound_base(bound))}`"
                if isinstance(bound, ast.Subscript) and static_count(model, bound.slice) not in (0, None):
                    sure = Confidence.POSSIBLE  # `x.shape[-1]`: a trailing axis, often a handful
            else:
                static = self._static_bound(model, fn, it)
                if static is not None:
                    rows = f"runs `{static}` times, a static argument of the jit (each value compiles again)"
        if rows is None:
            return
        hint = "jax.vmap (iterations look independent)" if self._independent(loop) else \
            "jax.lax.fori_loop or jax.lax.scan"
        ctx.report(loop, f"Python loop in {traced_how(fn)} {rows}: it is unrolled once per iteration, a count "
                         f"fixed at trace time but unknown statically (`jaxlint check --dynamic` measures it); "
                         f"if it can be large, use {hint}",
                   end_node=it, data={"iterations": None, "body_lines": [loop.body[0].lineno, loop.body[-1].end_lineno]},
                   confidence=sure)

    @staticmethod
    def _size_bound(model, fn, it: ast.AST) -> ast.AST | None:
        """``x.shape[0]`` / ``len(x)`` bounding ``range(...)``, with ``x`` a traced parameter."""
        if not (isinstance(it, ast.Call) and model.resolve_call(it) == "builtins.range" and it.args):
            return None
        stop = it.args[0] if len(it.args) == 1 else it.args[1]
        if isinstance(stop, ast.Subscript) and isinstance(stop.value, ast.Attribute) and stop.value.attr == "shape":
            base = stop.value.value
        elif isinstance(stop, ast.Call) and model.resolve_call(stop) == "builtins.len" and len(stop.args) == 1:
            base = stop.args[0]
            if not is_jax_array(model, fn, base):
                return None  # `len(layers)` of a list or a pytree
        else:
            return None
        if isinstance(base, ast.Name) and base.id in fn.traced_params and fn.param(base.id) is not None \
                and all(b.kind == "param" for b in fn.bindings.get(base.id, [])):
            return stop
        return None

    @staticmethod
    def _static_bound(model, fn, it: ast.AST) -> str | None:
        """``n`` of ``range(n)`` / ``range(a, n)``, with ``n`` a parameter the jit marks
        static (never rebound): a count chosen by the caller, unknown here."""
        if not (isinstance(it, ast.Call) and model.resolve_call(it) == "builtins.range" and it.args):
            return None
        stop = it.args[0] if len(it.args) == 1 else it.args[1]
        return static_source(model, fn, stop) if isinstance(stop, ast.Name) else None

    @staticmethod
    def _independent(loop: ast.For | ast.AsyncFor) -> bool:
        """True when no name assigned in the body is read before it is assigned
        (no loop-carried value): ``ys.append(f(xs[i]))`` style."""
        assigned: set[str] = set()
        for stmt in loop.body:
            for n in walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    assigned.add(n.id)
                if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                    return False
        # nothing assigned (only `ys.append(...)` style calls) leaves nothing to carry
        for stmt in loop.body:
            if isinstance(stmt, ast.Assign):
                reads = {n.id for n in walk(stmt.value) if isinstance(n, ast.Name)}
                if reads & assigned:
                    return False
        return True


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _traces(model, fn, parts: list) -> bool:
    """Whether ``parts`` (statements or expressions) compute on a traced value: a loop that
    only builds Python ints or index lists costs nothing to unroll."""
    taint = taint_of(model, fn)
    return any(isinstance(n, (ast.Call, ast.BinOp, ast.Subscript, ast.UnaryOp)) and taint.level(n) is not None
               for part in parts for n in walk(part))


_AUG_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult,
            ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)


def _fori_fix(ctx, fn, loop: ast.For | ast.AsyncFor):
    """``jax.lax.fori_loop`` for a loop it can express exactly; None otherwise."""
    model = ctx.model
    it = loop.iter
    if loop.orelse or not isinstance(loop.target, ast.Name) or not isinstance(it, ast.Call) or it.keywords:
        return None
    if len(it.args) == 3 and static_count(model, it.args[2]) != 1 or not 1 <= len(it.args) <= 3:
        return None
    if any(isinstance(a, ast.Starred) for a in it.args):
        return None
    index = loop.target.id
    assigned: list[str] = []
    carried: set[str] = set()
    for stmt in loop.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target, reads = stmt.targets[0].id, [stmt.value]
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and isinstance(stmt.op, _AUG_OPS):
            target, reads = stmt.target.id, [stmt.target, stmt.value]
        else:
            return None
        for r in reads:
            for n in walk(r):
                if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)):
                    return None
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in assigned:
                    carried.add(n.id)
        assigned.append(target)
    if index in carried or index in assigned:
        return None  # the index is used: fori_loop's is a traced int32, not a Python int
    # a name assigned in the body and read at the start of an iteration, or after the loop, is carried
    inside = {id(n) for s in loop.body for n in walk(s)} | {id(loop.target)}
    read_outside = {n.id for n in fn.body_nodes() if isinstance(n, ast.Name) and id(n) not in inside}
    carries = {a for a in assigned if a in carried or a in read_outside}
    if len(carries) != 1 or index in read_outside:
        return None
    (x,) = carries
    if x in fn.globals_ or x in fn.nonlocals or any(a in fn.globals_ | fn.nonlocals for a in assigned):
        return None
    if fn.param(x) is None and not any(getattr(b.node, "lineno", loop.lineno) < loop.lineno
                                       for b in fn.bindings.get(x, []) if b.node is not loop):
        return None  # the carry must have a value before the loop
    if not is_statement_list_member(model, loop):
        return None
    fori = attribute_path(model, "jax.lax.fori_loop", fn)
    if fori is None:
        return None
    body = free_local_name(model, fn, "body")
    return ctx.codemod(f"Rewrite the loop as `{x} = {fori[0]}(..., {x})`", Applicability.UNSAFE, loop=loop,
                       carry=x, index=index, fori=fori[0], module=fori[1], body=body)


def _step_value(cst, small, x: str):
    """The new carry an assignment computes: ``v`` for ``x = v``, ``x op (v)`` for ``x op= v``."""
    if isinstance(small, cst.Assign):
        return small.value
    op = {"+=": cst.Add, "-=": cst.Subtract, "*=": cst.Multiply, "/=": cst.Divide, "//=": cst.FloorDivide,
          "%=": cst.Modulo, "**=": cst.Power, "@=": cst.MatrixMultiply, "&=": cst.BitAnd, "|=": cst.BitOr,
          "^=": cst.BitXor, "<<=": cst.LeftShift, ">>=": cst.RightShift}[small.operator._get_token()]
    value = small.value
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
                              cst.SimpleString)) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BinaryOperation(cst.Name(x), op(), value)


#: Builtins that iterate their one argument.
_ITERATING_BUILTINS = {"builtins.sum", "builtins.min", "builtins.max"}
#: Operators a list or tuple does not support with a number (`*` repeats them by an int).
_ARRAY_OPS = (ast.Sub, ast.Div, ast.Pow, ast.MatMult, ast.FloorDiv, ast.Mod, ast.Mult)


def _array_arithmetic(expr: ast.AST) -> bool:
    """Arithmetic that only arrays (or numbers, which ``sum`` cannot iterate) support:
    ``a * b * 0.5``, ``x - y``; not ``xs * 2`` (a list repeated)."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, _ARRAY_OPS)):
        return False
    if isinstance(expr.op, ast.Mult):
        return not any(isinstance(o, ast.Constant) and isinstance(o.value, int) for o in (expr.left, expr.right))
    return True


def bound_base(bound: ast.AST) -> ast.AST:
    """``x`` of ``x.shape[0]`` or ``len(x)``."""
    if isinstance(bound, ast.Subscript):
        return bound.value.value  # type: ignore[attr-defined]
    return bound.args[0]  # type: ignore[attr-defined]
