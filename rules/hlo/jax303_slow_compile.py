from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, Valid, reported_cause
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

#: optimized HLO instructions above which a program is reported. Measured on the CPU
#: backend (jax 0.10.2, 2 cores at load 14): a chain of 64x64 matmuls unrolled 100 and 400
#: times is 1,499 and 5,999 instructions, 5.1 and 25 s of compile CPU (17 and 115 s wall);
#: public programs judged in issue 20 had 1,223 (2.6 s CPU), 2,674 (5.6 s) and 21-22k
#: instructions (10.8-13.3 s CPU). Time per instruction varies fivefold with what they are.
MAX_INSTRUCTIONS = 5000

#: baked-in constants of at least this many bytes in all are a cause a slow compile names
#: (JAX201's default threshold: smaller ones do not make a program slow to compile)
CAUSE_CONSTANT_BYTES = 1 << 20

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext, CompileFacts, TraceFinding
    from jaxlint.compile.hlo import SourceLocation


class SlowCompile(HloRule):
    """
    ## What it does
    Reports a function whose optimized XLA program is larger than `max-instructions`
    HLO instructions: a program that size takes seconds to compile. It names the
    contributors the trace tier knows (unrolled Python loops with their line and
    iterations, baked-in constants, the number of jaxpr equations) and shows the compile
    time measured on this machine beside them, wall and CPU.

    The decision rests on the program's size, which XLA makes the same for the same
    code, jax version and backend, and never on the measured time, which grows with the
    machine's load: the same program gives the same finding on an idle machine and on a
    busy one, and a compile served from jax's persistent cache is judged the same way.

    Size alone is not reported. A program is reported only when a cause its author can
    remove is named: an unrolled Python loop (JAX202's findings, so select it too) or
    baked-in constants of 1 MiB or more. When every cause it names is already another
    finding's at the cause's line (the loops JAX202 reports, the constants JAX201
    reports: select them too), that finding is the one to act on: this measurement joins
    it as a related location (its size, all the constants' bytes and the compile time)
    instead of a second finding at the `jit`, at the largest loop's finding, else at the
    largest constant's. It stands as a finding of its own only for a cause no other
    finding reports (constants each below JAX201's `max-bytes` that add up to 1 MiB or
    more, or those rules not selected). An ordinary model step (a ResNet, a U-Net, a
    transformer, a GPT, an adaptive ODE solve) compiles to thousands of instructions that
    name nothing to change, and stays quiet. Set `size-alone = true` to use
    `max-instructions` as a plain size budget.

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
    group = "perf"
    name = "slow-compile"
    summary = "the function's optimized XLA program is large enough to compile slowly"
    fix_hint = "shrink the program: loops as scan/fori_loop, large constants as arguments"
    reads = ("loops",)  # the unrolled loops the trace tier reported, among the causes it names
    options = {
        "max-instructions": Option(MAX_INSTRUCTIONS, "report a function whose optimized HLO program has more "
                                   "instructions than this (a size that does not depend on the machine's load)", int, 0),
        "size-alone": Option(False, "also report a program above the budget when no removable cause (an unrolled "
                             "loop, baked-in constants) is named: the budget as a plain size limit", bool),
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
            """,
            options={"max-instructions": 100},
        ),
        # a stack of layers (the architecture): large, but nothing removable is named
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=([f32[64,64]] * 24, f32[8,64])
            @jax.jit
            def model(layers, x):
                for w in layers:
                    x = jnp.tanh(x @ w) * 0.5 + x
                return x
            """,
            options={"max-instructions": 20},
            select=("JAX202",),
        ),
        # an unrolled loop is the only cause: JAX202 reports it at the loop's line, and this
        # measurement joins that finding as a related location (one cause, one finding)
        Valid(
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
            options={"max-instructions": 100},
            select=("JAX202",),
        ),
        # the baked-in table is the one cause named, and JAX201 reports it where the function
        # reads it: this measurement joins that finding (one cause, one finding)
        Valid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            TABLE = np.linspace(0.0, 1.0, 512 * 1024, dtype=np.float32).reshape(512, 1024)

            # jaxlint: args=(f32[64,64],)
            @jax.jit
            def simulate(x):
                return x + jnp.asarray(TABLE)[:64, :64] @ x
            """,
            options={"max-instructions": 1},
            select=("JAX201",),
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            TABLE = np.linspace(0.0, 1.0, 512 * 1024, dtype=np.float32).reshape(512, 1024)

            # jaxlint: args=(f32[64,64],)
            @jax.jit
            def simulate(x):
                for _ in range(20):
                    x = jnp.tanh(x @ x) * 0.5 + x
                return x + jnp.asarray(TABLE)[:64, :64] @ x
            """,
            options={"max-instructions": 100},
            select=("JAX202",),
            line=9,
            message="optimized HLO instructions (budget 100)",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        facts = ctx.facts
        budget = int(self.opts["max-instructions"])
        size = len(facts.module.instructions)
        if size <= budget:
            return
        parts = []
        loops = sorted(facts.trace.get("loops", ()), key=lambda lp: -int(lp.get("equations", 0) or 0))[:3]
        for loop in loops:
            parts.append(f"an unrolled loop at line {loop['line']} ({loop.get('iterations', '?')} iterations)")
        consts = facts.trace.get("constants", ())
        total = sum(int(c.get("bytes", 0)) for c in consts)
        # each removable cause named, and the finding that already reports it at its line
        # (the largest loop's JAX202, the largest constant's JAX201), None where none does
        reported: list[TraceFinding | None] = [loops[0]] if loops else []
        if consts and (total >= CAUSE_CONSTANT_BYTES or self.opts["size-alone"]):
            parts.append(f"{len(consts)} baked-in constant(s) of {human_bytes(total)}")
            baked = sorted(facts.trace.get("baked", ()), key=lambda c: -int(c.get("bytes", 0) or 0))
            reported.append(baked[0] if baked else None)
        if not parts and not self.opts["size-alone"]:
            return  # size alone names nothing the author can remove
        # every removable cause is another finding's: that finding (the loop's, else the
        # constant's) is the one to act on, and this measurement joins it (one cause, one finding)
        cause = reported[0] if reported and all(r is not None for r in reported) else None
        eqns = facts.trace.get("equations")
        if eqns:
            parts.append(f"{eqns} jaxpr equations")
        if facts.cache_hit:
            measured = "served from jax's persistent compilation cache in this run"
        else:
            measured = f"{facts.compile_seconds:.1f} s wall, {facts.compile_cpu_seconds:.1f} s CPU"
        ctx.report(
            None,
            f"`{facts.function}` compiles to {size} optimized HLO instructions (budget {budget}), a program that "
            f"takes seconds to compile again for every new shape and fresh process"
            + (f"; contributors: {'; '.join(parts)}" if parts else ""),
            related=[ctx.related(_loc(facts, lp), "unrolled loop") for lp in facts.trace.get("loops", ())[:3]],
            data={"hlo_instructions": size, "budget": budget, "equations": eqns,
                  **({"cause": {"code": cause.get("code"), "file": cause.get("file") or facts.file,
                                "line": int(cause["line"])}} if cause is not None else {})},
            key="slow-compile", measured=f"compile measured here: {measured}")

    @classmethod
    def defers_to(cls, mine, earlier) -> bool:
        """Every removable cause named is another finding's (unrolled loops JAX202 reports,
        baked-in constants JAX201 reports): the finding at the largest one's line says what
        to change there, and takes this measurement as a related location."""
        return reported_cause(mine, earlier)


def _loc(facts: CompileFacts, loop: TraceFinding) -> SourceLocation:
    from jaxlint.compile.hlo import SourceLocation

    return SourceLocation(loop.get("file") or facts.file, int(loop["line"]))
