from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._common import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileFacts, Finding


class SlowCompile(HloRule):
    """
    ## What it does
    Reports a function whose XLA compilation took longer than `max-seconds`, with the
    contributors the trace tier knows: unrolled Python loops (their line and
    iterations), baked-in constants, and the size of the program (jaxpr equations and
    optimized HLO instructions).

    A compile served from jax's persistent compilation cache is fast and is not
    reported; run with `--no-cache` (or clear the XLA cache) to measure a cold compile.

    ## Why is this bad?
    Every new shape, dtype or static value compiles again, and so does every fresh
    process without a warm cache: tests, CI and the first step of each training job pay
    for it. Compile time grows with program size, and an unrolled loop or a folded
    constant is usually the reason a program is large.

    ## Example
    ```python
    @jax.jit
    def simulate(x):
        for _ in range(1000):
            x = jnp.tanh(x @ x) * 0.5 + x
        return x
    ```

    ## Use instead
    ```python
    @jax.jit
    def simulate(x):
        return jax.lax.fori_loop(0, 1000, lambda i, x: jnp.tanh(x @ x) * 0.5 + x, x)
    ```

    ## Options

    ## References
    * [Persistent compilation cache](https://docs.jax.dev/en/latest/persistent_compilation_cache.html)
    * [Control flow: fori_loop and scan](https://docs.jax.dev/en/latest/control-flow.html)
    """

    code = "JAX303"
    name = "slow-compile"
    summary = "XLA compilation of the function takes longer than the budget"
    fix_hint = "shrink the program: loops as scan/fori_loop, large constants as arguments"
    reads = ("loops",)  # the unrolled loops the trace tier reported, among the causes it names
    options = {
        "max-seconds": Option(10.0, "report compiles slower than this many seconds", (int, float), 0),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[64,64],)
            @jax.jit
            def simulate(x):
                return jax.lax.fori_loop(0, 100, lambda i, x: jnp.tanh(x @ x) * 0.5 + x, x)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[64,64],)
            @jax.jit
            def simulate(x):
                for _ in range(20):
                    x = jnp.tanh(x @ x) * 0.5 + x
                return x
            """,
            options={"max-seconds": 0.0},
            line=6,
            message="HLO instructions",
        ),
    ]

    def findings(self, facts: CompileFacts) -> Iterable[Finding]:
        from jaxlint.compile.facts import Finding

        budget = float(self.opts["max-seconds"])
        if facts.compile_seconds <= budget or facts.cache_hit:
            return
        parts = []
        for loop in sorted(facts.trace.get("loops", ()), key=lambda lp: -int(lp.get("equations", 0) or 0))[:3]:
            parts.append(f"an unrolled loop at line {loop['line']} ({loop.get('iterations', '?')} iterations)")
        consts = facts.trace.get("constants", ())
        if consts:
            total = sum(int(c.get("bytes", 0)) for c in consts)
            parts.append(f"{len(consts)} baked-in constant(s) of {human_bytes(total)}")
        eqns = facts.trace.get("equations")
        size = f"{len(facts.module.instructions)} HLO instructions"
        if eqns:
            size = f"{eqns} jaxpr equations, {size}"
        parts.append(size)
        yield Finding(
            f"XLA took {facts.compile_seconds:.1f} s to compile `{facts.function}` (budget {budget:g} s); "
            f"contributors: {'; '.join(parts)}",
            None, tuple((_loc(facts, lp), "unrolled loop") for lp in facts.trace.get("loops", ())[:3]),
            {"seconds": round(facts.compile_seconds, 3), "budget": budget,
             "hlo_instructions": len(facts.module.instructions), "equations": eqns},
            key="slow-compile")


def _loc(facts: CompileFacts, loop: dict):
    from jaxlint.compile.hlo import SourceLocation

    return SourceLocation(loop.get("file") or facts.file, int(loop["line"]))
