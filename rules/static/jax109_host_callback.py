from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.taint import LIKELY, POSSIBLE, taint_of
from jaxlint.static.semantic import FunctionInfo, ModuleModel
from jaxlint.static.loops import lax_loop_bodies
from jaxlint.static.apis import HOST_CALLBACKS

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

class HostCallback(StaticRule):
    """
    ## What it does
    Finds host callbacks in traced code: `jax.debug.print`, `jax.debug.callback`,
    `jax.debug.breakpoint`, `jax.pure_callback` and `jax.experimental.io_callback`
    (and the removed `host_callback` API). A callback in the body of a `lax.scan`,
    `lax.fori_loop`, `lax.while_loop` or `lax.map` (or in a function called from one)
    is reported as a warning (otherwise info): it runs on every iteration.

    Callbacks outside traced code are plain Python calls and are not reported, nor
    are callbacks that are plainly deliberate: under an `if` on a Python flag
    (`if verbose:`, `if self.debug:`, `if log_level > 1:`, also around the jitted
    function's definition) or in a branch of
    `lax.cond` / `lax.switch` (`lax.cond(bad, lambda: jax.debug.print(...), ...)`
    prints only when asked to), also in a function called only from such branches
    (a progress meter's update method).

    ## Why is this bad?
    A callback stops the compiled program, copies its operands to the host, runs
    Python, and copies the result back. XLA cannot fuse across it and the device
    waits for the host. Left over from debugging, a `jax.debug.print` in a training
    step costs a device-host round trip per call; inside a loop body it costs one
    per iteration, and a 10,000-step `scan` makes 10,000 of them.

    ## Example
    ```python
    def body(carry, x):
        jax.debug.print("carry {}", carry)
        return carry + x, carry

    jax.lax.scan(body, 0.0, xs)
    ```

    ## Use instead
    Remove the print, or return the value and inspect it after the loop:
    ```python
    def body(carry, x):
        return carry + x, carry  # the stacked carries come back as the second output
    ```
    When a callback is really needed (calling a host library), keep it out of loop
    bodies and suppress this finding with `# noqa: JAX109`.

    ## Options

    ## References
    * [JAX: external callbacks](https://docs.jax.dev/en/latest/external-callbacks.html)
    * [JAX: debugging with jax.debug.print](https://docs.jax.dev/en/latest/debugging.html)
    """

    code = "JAX109"
    traced_code = True  # about code under a trace: an eager-only branch is none of its business
    group = "pedantic"
    name = "host-callback"
    summary = "a host callback in traced code stops the device program (once per iteration in loop bodies)"
    fix_hint = "remove debug callbacks, or move host work out of jitted code and loop bodies"
    severity = Severity.INFO

    VALID = [
        Valid(
            """
            import jax
            import numpy as np

            class Meter:
                def update(self, progress):
                    def show(p):
                        print(f"{float(np.asarray(p)):.0%}")
                        return p
                    return jax.pure_callback(show, progress, progress)

            meter = Meter()

            def step(i, x, every=100):
                return jax.lax.cond(i % every == 0, lambda v: meter.update(v), lambda v: v, x)
            """
        ),
        Valid(
            """
            import jax

            def report(x):
                jax.debug.print("x = {}", x)
                return x
            """
        ),
        Valid(
            """
            import jax

            @jax.jit
            def f(x):
                return x * 2

            y = f(1.0)
            jax.debug.print("y = {}", y)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit
            def step(x):
                jax.debug.print("x = {x}", x=x)
                return x * 2
            """,
            line=5,
            message="`jax.debug.print` in `step`",
        ),
        Invalid(
            """
            import jax
            from jax import lax

            def body(carry, x):
                jax.debug.print("carry {}", carry)
                return carry + x, carry

            def run(xs):
                return lax.scan(body, 0.0, xs)
            """,
            line=5,
            message="every iteration",
        ),
        Invalid(
            """
            import jax
            import numpy as np
            from jax.experimental import io_callback

            def log_host(v):
                np.save("v.npy", v)

            def inner(i, c):
                io_callback(log_host, None, c)
                return c + i

            @jax.jit
            def f(x):
                return jax.lax.fori_loop(0, 100, lambda i, c: inner(i, c), x)
            """,
            line=9,
            message="every iteration",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        if "callback" not in ctx.source and "debug" not in ctx.source:
            return  # every callback's qualified name contains one of the two
        model = ctx.model
        in_loop = lax_loop_bodies(model)
        for fn in model.traced_functions():
            for node in fn.body_nodes():
                if not isinstance(node, ast.Call):
                    continue
                q = model.resolve_call(node)
                if q not in HOST_CALLBACKS or _deliberate(model, fn, node):
                    continue
                name = fn.name if not isinstance(fn.node, ast.Lambda) else "a lambda"
                loop = in_loop.get(fn)
                if loop is not None:
                    msg = (f"`{q}` in `{name}`, which runs inside a `{loop}` loop body, calls back to the host "
                           f"on every iteration: each one stops the device program and copies data to Python")
                else:
                    msg = (f"`{q}` in `{name}` (traced code) calls back to the host: the compiled program "
                           f"stops, copies its operands to Python and cannot fuse across the call")
                ctx.report(node, msg, severity=Severity.WARNING if loop else None,
                           data={"callback": q, "loop": loop})


#: Traced-by reasons of a function that is only a branch of a conditional.
BRANCH_REASONS = ("cond", "switch")


def _deliberate(model: ModuleModel, fn: FunctionInfo, call: ast.Call) -> bool:
    """The callback is opt-in: its function is only ever a ``cond``/``switch`` branch,
    or the call sits under an ``if`` on a Python flag (a library's ``verbose`` option,
    a debug switch). Left-over debugging prints are unconditional."""
    if _branch_only(model, fn):
        return True
    # the `if` may also enclose the jitted function's definition (`if profile: @jax.jit def ...`)
    child: ast.AST = call
    for anc in model.ancestors(call):
        if isinstance(anc, ast.If) and child in anc.body and _is_flag(anc.test):
            scope = model.function_of(anc)
            # a flag the value model does not see as surely traced: a setting
            if scope is None or not scope.traced or (taint_of(model, scope).level(anc.test) or POSSIBLE) < LIKELY:
                return True
        child = anc
    return False


def _branch_only(model: ModuleModel, fn: FunctionInfo, depth: int = 0) -> bool:
    """``fn`` is traced only as a ``cond``/``switch`` branch, or only called from such
    branches (a progress bar's update helper called from the branch that refreshes it)."""
    if not fn.traced_by or depth > 4:
        return False
    by_qual = {f.qualname: f for f in model.functions}
    for r in fn.traced_by:
        if r.kind in BRANCH_REASONS and r.line is not None:
            continue
        caller = by_qual.get(r.caller) if r.by_call and r.caller else None
        if caller is None or not _branch_only(model, caller, depth + 1):
            return False
    return True


def _is_flag(test: ast.expr) -> bool:
    """A name, an attribute, or a comparison of one with literals: a setting, not data."""
    if isinstance(test, (ast.Name, ast.Attribute)):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _is_flag(test.operand)
    if isinstance(test, ast.BoolOp):
        return all(_is_flag(v) for v in test.values)
    if isinstance(test, ast.Compare):
        return _is_flag(test.left) and all(isinstance(c, ast.Constant) for c in test.comparators)
    return False


