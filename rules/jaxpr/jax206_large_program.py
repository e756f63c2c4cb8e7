from __future__ import annotations

import os
from collections import Counter

from jaxlint.rule import Invalid, Option, TraceRule, Valid


class LargeProgram(TraceRule):
    """
    ## What it does
    Counts the equations of the traced program at every nesting level (loop and
    branch bodies included) and reports functions above `max-equations`, at the
    line where the function is jitted, with the source lines that contribute most.

    ## Why is this bad?
    XLA's compile time and memory grow with program size, often worse than linearly.
    Large programs usually come from Python loops, deep unrolled recursion or many
    small per-element operations, each of which has a compact alternative (`scan`,
    `vmap`, vectorized array code).

    ## Example
    ```python
    @jax.jit
    def f(xs):
        return [jnp.sin(x) * 2 for x in xs]   # 10,000 list elements
    ```

    ## Use instead
    ```python
    @jax.jit
    def f(xs):
        return jnp.sin(xs) * 2   # one stacked array
    ```

    ## Options

    ## References
    * [JAX: jaxprs](https://docs.jax.dev/en/latest/jaxpr.html)
    """

    code = "JAX206"
    name = "large-program"
    summary = "the traced program has too many equations"
    fix_hint = "vectorize, or replace Python loops with jax.lax.scan / fori_loop / vmap"
    skip_compile_reason = "a program above the equation budget"
    options = {
        "max-equations": Option(5000, "report programs with more equations than this", int, 1),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[1000],)
            def f(x):
                return jnp.sin(x) * 2
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[64],)
            def f(x):
                return jnp.stack([jnp.sin(x[i]) * 2 + 1 for i in range(64)])
            """,
            line=4,
            message="equations",
            options={"max-equations": 100},
        ),
    ]

    def check(self, fa) -> None:
        if fa.jaxpr is None:
            return
        limit = self.opts["max-equations"]
        total = sum(1 for _ in fa.equations())
        if total <= limit:
            return
        lines: Counter = Counter()
        for i, (eqn, level) in enumerate(fa.equations()):
            if i >= 200_000:  # enough to name the biggest contributors
                break
            site = fa.site(eqn, level)
            if site is not None:
                lines[(site.path, site.line)] += 1
        top = lines.most_common(3)
        from jaxlint.dynamic.analysis import Site


        def where(path: str, line: int) -> str:  # lines of other project files name their file
            return f"line {line}" if fa.is_checked_file(path) else f"{os.path.basename(path)}:{line}"

        fa.report(
            fa.entry_site(),
            f"traced program of `{fa.qualname}` has {total} equations (budget {limit}); "
            + ", ".join(f"{where(p, ln)}: {n}" for (p, ln), n in top),
            related=[Site(p, ln).related(f"{n} equations come from this line") for (p, ln), n in top],
            data={"equations": total, "budget": limit, "top_lines": [[ln, n] for (_, ln), n in top]},
        )
