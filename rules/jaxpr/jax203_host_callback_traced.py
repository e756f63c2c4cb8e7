from __future__ import annotations

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, TraceRule, Valid


class HostCallbackTraced(TraceRule):
    """
    ## What it does
    Finds host-callback primitives in the traced program (`pure_callback`,
    `io_callback`, `jax.debug.print` / `jax.debug.callback`, whatever their primitive
    is called in the installed jax version), including those reached through helper
    functions and libraries. A callback inside the body of a `scan` or `while` loop
    (`lax.scan`, `lax.fori_loop`, `lax.while_loop`, `lax.map`) is an error: it runs on
    every iteration.

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
    name = "host-callback-traced"
    summary = "the traced program calls back into Python on the host"
    fix_hint = "remove debug callbacks; keep needed host calls out of loop bodies"
    supersedes = ("JAX109",)

    VALID = [
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[8],)
            def f(x):
                return jax.lax.scan(lambda c, v: (c + v, c), 0.0, x)[1]
            """
        ),
    ]
    INVALID = [
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

    def check(self, fa) -> None:
        from jaxlint.dynamic import adapter

        seen: set[tuple[str, int]] = set()
        for eqn, level in fa.equations():
            name = adapter.primitive_name(eqn)
            if name not in adapter.CALLBACK_PRIMITIVES:
                continue
            site = fa.site(eqn, level) or fa.def_site()
            if (site.path, site.line) in seen:
                continue
            seen.add((site.path, site.line))
            loop = next((c for c in reversed(level.context) if c in adapter.LOOP_PRIMITIVES), None)
            if loop:
                msg = (f"host callback `{name}` inside a `{loop}` body runs on every iteration: each call "
                       f"stops the device and round-trips through Python")
            else:
                msg = f"host callback `{name}` in the traced program stops the device and round-trips through Python"
            fa.report(site, msg, severity=Severity.ERROR if loop else None,
                      data={"primitive": name, "in_loop": loop})
