from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, Option, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis


class HostCallbackTraced(TraceRule):
    """
    ## What it does
    Finds host-callback primitives in the traced program (`pure_callback`,
    `io_callback`, `jax.debug.print` / `jax.debug.callback`, whatever their primitive
    is called in the installed jax version), including those reached through helper
    functions and libraries. A callback inside the body of a `scan` or `while` loop
    (`lax.scan`, `lax.fori_loop`, `lax.while_loop`, `lax.map`) is an error: it runs on
    every iteration.

    A callback inside a `lax.cond` or `lax.switch` branch runs only when that branch is
    taken, and the message says so. A branch that only raises (its callback's function
    can only raise, as in `equinox.error_if` and the failure checks of libraries built
    on it, such as diffrax's solvers) runs only when the program fails: it is not a
    per-step round trip and is not reported unless `report-error-branches` is set.

    This is the measured version of JAX109 (host-callback); where both fire on one
    line only this one is reported.

    ## Why is this bad?
    A callback stops the compiled program, copies its operands to the host, runs
    Python and copies the result back; XLA cannot fuse across it. Inside a loop body
    this happens once per iteration.

    ## Example
    ```python
    def body(c, x):
        jax.debug.print("c = {}", c)
        return c + x, c
    ```

    ## Use instead
    ```python
    def body(c, x):
        return c + x, c   # inspect the stacked outputs after the loop
    ```

    ## Options

    ## References
    * [JAX: external callbacks](https://docs.jax.dev/en/latest/external-callbacks.html)
    """

    code = "JAX203"
    group = "pedantic"  # blind figure 0 of 10 true (fifteenth judgement, issue 37): off by default
    name = "host-callback-traced"
    summary = "the traced program calls back into Python on the host"
    fix_hint = "remove debug callbacks; keep needed host calls out of loop bodies"
    supersedes = ("JAX109",)
    options = {
        "report-error-branches": Option(False, "also report callbacks in a `lax.cond` branch that only raises "
                                               "(equinox's `error_if`, a solver's failure check)", bool),
    }

    VALID = [
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[8],)
            def f(x):
                return jax.lax.scan(lambda c, v: (c + v, c), 0.0, x)[1]
            """
        ),
        # an error check (what equinox.error_if builds): the callback only raises, in a
        # branch taken only when the program fails
        Valid(
            """
            import jax
            import jax.numpy as jnp

            def fail(bad):
                raise RuntimeError("the solver diverged")

            def check(x):
                bad = jnp.any(jnp.isnan(x))
                jax.lax.cond(bad, lambda: jax.debug.callback(fail, bad), lambda: None)
                return x

            @jax.jit  # jaxlint: args=(f32[8],)
            def step(x):
                return jax.lax.fori_loop(0, 10, lambda i, x: check(x * 0.5), x)
            """
        ),
    ]
    INVALID = [
        # a callback in a branch that returns is conditional, and said so
        Invalid(
            """
            import jax
            import numpy as np

            @jax.jit  # jaxlint: args=(f32[8],)
            def f(x):
                return jax.lax.cond(x.sum() > 0,
                                    lambda v: jax.pure_callback(np.sin, jax.ShapeDtypeStruct(v.shape, v.dtype), v),
                                    lambda v: v, x)
            """,
            line=7,
            message="branch runs only when that branch is taken",
        ),
        Invalid(
            """
            import jax

            def body(c, v):
                jax.debug.print("c = {}", c)
                return c + v, c

            @jax.jit  # jaxlint: args=(f32[8],)
            def f(x):
                return jax.lax.scan(body, 0.0, x)[1]
            """,
            line=4,
            message="runs on every iteration",
        ),
        Invalid(
            """
            import jax
            import numpy as np

            @jax.jit  # jaxlint: args=(f32[8],)
            def f(x):
                return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
            """,
            line=6,
            message="pure_callback",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        from jaxlint.dynamic import adapter

        found = []
        errors: set[int] = set()  # the cond branches that only raise (id of the branch's jaxpr)
        for eqn, level in ctx.equations():
            name = adapter.primitive_name(eqn)
            if name not in adapter.CALLBACK_PRIMITIVES:
                continue
            branch = _branch(level)
            if branch is not None and adapter.never_returns(adapter.callback_function(eqn)):
                errors.add(id(branch.jaxpr))
            found.append((eqn, level, name, branch))
        seen: set[tuple[str, int]] = set()
        for eqn, level, name, branch in found:
            if branch is not None and id(branch.jaxpr) in errors and not self.opts["report-error-branches"]:
                continue  # an error check: runs only when the program fails
            site = ctx.site(eqn, level) or ctx.def_site()
            if (site.path, site.line) in seen:
                continue
            seen.add((site.path, site.line))
            loop = next((c for c in reversed(level.context) if c in adapter.LOOP_PRIMITIVES), None)
            if branch is not None:
                msg = (f"host callback `{name}` inside a `lax.cond`/`lax.switch` branch runs only when that branch "
                       f"is taken{' (on the iterations of the `' + loop + '` that take it)' if loop else ''}: "
                       f"each time, it stops the device and round-trips through Python")
                loop = None  # conditional: not on every iteration
            elif loop:
                msg = (f"host callback `{name}` inside a `{loop}` body runs on every iteration: each call "
                       f"stops the device and round-trips through Python")
            else:
                msg = f"host callback `{name}` in the traced program stops the device and round-trips through Python"
            ctx.report(site, msg, severity=Severity.ERROR if loop else None,
                      data={"primitive": name, "in_loop": loop, "conditional": branch is not None})


def _branch(level):
    """The branch of the innermost `lax.cond`/`lax.switch` a level sits in (the level
    right under the `cond` equation), or None."""
    from jaxlint.dynamic import adapter

    while level is not None:
        if level.parent_eqn is not None and adapter.primitive_name(level.parent_eqn) == "cond":
            return level
        level = level.parent
    return None
