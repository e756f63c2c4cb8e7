from __future__ import annotations

import ast

from jaxlint.rule import Invalid, Option, StaticRule, Valid
from jaxlint.rules.static._common import static_int


class PythonLoopInJit(StaticRule):
    """
    ## What it does
    Finds `for` loops in traced code whose trip count is known statically and is at
    least `max-iterations`: `range(1000)`, `range(N)` with a module-level constant,
    `range(a, b, step)`.

    Loops over pytrees, lists of layers, small literal ranges, and loops whose count
    is not known statically are left alone (the dynamic phase measures those).

    ## Why is this bad?
    Under `jit`, a Python loop runs at trace time: every iteration is traced again
    and emitted as a fresh copy of the body. A 1,000-step loop makes a program 1,000
    times larger, and XLA compile time grows with it (seconds to minutes).

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
    Use `jax.lax.scan` when each step also produces an output, and `jax.vmap` when
    the iterations do not depend on each other.

    ## Options

    ## References
    * [JAX: control flow](https://docs.jax.dev/en/latest/control-flow.html)
    * [jax.lax.fori_loop](https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html)
    """

    code = "JAX102"
    name = "python-loop-in-jit"
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
        Valid(
            """
            def not_traced(x):
                for _ in range(1000):
                    x = x * 2
                return x
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit
            def f(x):
                for _ in range(1000):
                    x = x * 2
                return x
            """,
            line=5,
            message="1000 iterations",
        ),
        Invalid(
            """
            import jax
            STEPS = 10 * 10

            def step(x):
                for i in range(0, STEPS, 2):
                    x = x + i
                return x

            run = jax.jit(step)
            """,
            line=5,
            message="50 iterations",
        ),
        Invalid(
            """
            from functools import partial
            import jax

            @partial(jax.jit, static_argnums=1)
            def f(x, n):
                for _ in range(64):
                    x = x + n
                return x
            """,
            line=6,
        ),
    ]

    def check(self, ctx) -> None:
        limit = self.opts["max-iterations"]
        model = ctx.model
        for fn in model.traced_functions():
            for node in fn.body_nodes():
                if not isinstance(node, (ast.For, ast.AsyncFor)):
                    continue
                n = self._trip_count(model, node.iter)
                if n is None or n < limit:
                    continue
                body = node.body
                independent = self._independent(node)
                hint = "jax.vmap (iterations look independent)" if independent else "jax.lax.fori_loop or jax.lax.scan"
                ctx.report(
                    node,
                    f"Python loop with {n} iterations in traced code is unrolled {n} times; use {hint}",
                    end_node=node.iter,
                    data={"iterations": n, "body_lines": [body[0].lineno, body[-1].end_lineno]},
                )

    @staticmethod
    def _trip_count(model, it: ast.AST) -> int | None:
        if isinstance(it, ast.Call) and model.resolve_call(it) == "builtins.range" and not it.keywords:
            vals = [static_int(model, a) for a in it.args]
            if not vals or any(v is None for v in vals):
                return None
            if len(vals) == 1:
                return max(0, vals[0])
            start, stop = vals[0], vals[1]
            step = vals[2] if len(vals) > 2 else 1
            if step == 0:
                return None
            return max(0, -(-(stop - start) // step)) if step > 0 else max(0, -(-(start - stop) // -step))
        return None

    @staticmethod
    def _independent(loop: ast.For) -> bool:
        """True when no name assigned in the body is read before it is assigned
        (no loop-carried value): ``ys.append(f(xs[i]))`` style."""
        assigned: set[str] = set()
        for stmt in loop.body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    assigned.add(n.id)
                if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                    return False
        if not assigned:
            return not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                           and n.func.attr in ("append", "extend") for s in loop.body for n in ast.walk(s)) or True
        for stmt in loop.body:
            if isinstance(stmt, ast.Assign):
                reads = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
                if reads & assigned:
                    return False
        return True
