from __future__ import annotations

import ast
import os
from collections import Counter
from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, TraceRule, Valid, reported_cause

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis


#: a finding of a rule declaring this trace fact (an unrolled loop) explains equations
EXPLAINED_BY = "loops"


#: an unrolled loop (300 of the program's 364 equations) beside a loop over 8 layers (64,
#: the architecture): above a budget of 60 even without the loop
LOOP_AND_LAYERS = """
import jax
import jax.numpy as jnp

# jaxlint: args=([f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8], f32[8,8]], f32[4,8])
@jax.jit
def model(layers, x):
    for _ in range(100):
        x = jnp.tanh(x) * 0.5 + x
    for w in layers:
        x = jnp.tanh(jnp.sin(x @ w) * 2.0 + jnp.cos(x)) * 0.5 + x
    return x
"""


class LargeProgram(TraceRule):
    """
    ## What it does
    Counts the equations of the traced program at every nesting level (loop and
    branch bodies included) and reports functions above `max-equations`, at the
    function's `def` line (where a `# noqa: JAX206` for the whole function goes),
    with the source lines that contribute most as related locations.

    A program that is large only because of Python loops that were unrolled, and
    that an unrolled-loop finding already names at the loop with its counts, is
    reported once, by that finding: this rule stays quiet when the program without
    those loops' equations is within budget. When it is still above the budget
    without them, the loops are all its author can remove and the rest is size alone
    (an ODE solver's, a model's): its figures (the total, how many come from the
    loops, the lines that contribute most) join the largest loop's finding as a
    related location instead of a second finding at the `def`. A loop's equations are
    those its finding counts (the bodies its iterations call included: a jitted solver
    step whose own frames do not show the loop). (The function is still not compiled
    by the compile tier.) Loops over a list of layers are not such findings and count
    as the program's own.

    Size alone is not reported: a program above the budget none of whose equations come
    from a reported unrolled loop (a ResNet, a transformer, an ODE solve) names nothing
    its author can remove, and stays quiet; it is still not compiled by the compile tier,
    with the reason. Set `size-alone = true` to use the budget as a plain size limit
    (every program above it reported at its `def`, with the lines that contribute most
    and the share of the loops reported elsewhere).

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
    group = "perf"
    name = "large-program"
    summary = "the traced program has too many equations"
    fix_hint = "vectorize, or replace Python loops with jax.lax.scan / fori_loop / vmap"
    skip_compile_reason = "a program above the equation budget"
    reads = (EXPLAINED_BY,)
    options = {
        "max-equations": Option(5000, "report programs with more equations than this", int, 1),
        "size-alone": Option(False, "also report a program above the budget when no removable cause (an unrolled "
                             "loop) is named: the budget as a plain size limit", bool),
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
        # 300 equations, all from a loop the unrolled-loop rule reports at its `for`
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[16],)
            def simulate(x):
                for _ in range(100):
                    x = jnp.tanh(x) * 0.5 + x
                return x
            """,
            options={"max-equations": 60},
            select=("JAX202",),
        ),
        # 64 layers (the architecture, no unrolled loop): large, but nothing removable is named
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=([f32[8,8]] * 64, f32[4,8])
            @jax.jit
            def model(layers, x):
                for w in layers:
                    x = jnp.tanh(jnp.sin(x @ w) * 2.0 + jnp.cos(x)) * 0.5 + x
                return x
            """,
            options={"max-equations": 60},
            select=("JAX202",),
        ),
        # still above the budget without the loop the unrolled-loop rule reports at its
        # `for` (300 of 364 equations), and the rest is the architecture: the loop is all
        # there is to remove, and this measurement joins that finding as a related location
        Valid(
            LOOP_AND_LAYERS,
            options={"max-equations": 60},
            select=("JAX202",),
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
            line=5,
            message="equations",
            options={"max-equations": 100, "size-alone": True},
        ),
        # as a plain size limit: the counted loop (300 equations) is reported at its `for`
        # by the unrolled-loop rule; the layer loop (64) is the architecture, and the
        # program is still above the budget without the loop
        Invalid(
            LOOP_AND_LAYERS,
            line=6,
            message="has 364 equations (budget 60); line 8: 300, line 10: 64; 300 of them come from the "
                    "unrolled loop at line 7, reported there",
            options={"max-equations": 60, "size-alone": True},
            select=("JAX202",),
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        if ctx.jaxpr is None:
            return
        limit = self.opts["max-equations"]
        total = sum(1 for _ in ctx.equations())
        if total <= limit:
            return
        loop_sites = _loop_findings(ctx)
        in_loop = _LoopOf(ctx, loop_sites)
        lines: Counter = Counter()
        loops: Counter = Counter()
        counted = 0
        for eqn, level in ctx.equations():
            if counted >= 200_000:  # enough to name the biggest contributors
                break
            counted += 1
            site = ctx.site(eqn, level)
            if site is not None:
                lines[(site.path, site.line)] += 1
            if loop_sites:
                loop = in_loop(eqn, level)
                if loop is not None:
                    loops[loop] += 1
        from jaxlint.dynamic.analysis import Site

        def where(path: str, line: int) -> str:  # lines of other project files name their file
            return f"line {line}" if ctx.is_checked_file(path) else f"{os.path.basename(path)}:{line}"

        # what the loop findings count themselves: the copies' equations with the bodies
        # they call (a jitted solver step's, whose stacks may not reach the loop's line)
        reported = sum(int((d.data or {}).get("equations") or 0) for d in ctx.findings_of(EXPLAINED_BY))
        from_loops = min(total, max(sum(loops.values()), reported))
        loops_text = " and ".join(f"the unrolled loop at {where(p, ln)}" for (p, ln) in sorted(loops))
        if from_loops and total - from_loops <= limit:
            # the program is large because of loops another finding names, with their
            # counts: that finding is the one to act on. Compiling it is still not worth it.
            ctx.skip_compile = (f"{self.skip_compile_reason} ({self.code}: {total} equations, "
                                f"{from_loops} of them from {loops_text}, reported there)")
            return
        if not from_loops and not self.opts["size-alone"]:
            # size alone names nothing the author can remove: quiet, and still not compiled
            ctx.skip_compile = (f"{self.skip_compile_reason} ({self.code}: {total} equations, "
                                f"no removable cause named, not reported)")
            return
        top = lines.most_common(3)
        message = (f"traced program of `{ctx.qualname}` has {total} equations (budget {limit}); "
                   + ", ".join(f"{where(p, ln)}: {n}" for (p, ln), n in top))
        cause = None
        if from_loops and self.opts["size-alone"]:
            message += f"; {from_loops} of them come from {loops_text}, reported there"
        elif from_loops:
            message += f"; {from_loops} of them come from {loops_text}, the rest names nothing removable"
            # the loops are the one removable cause, and another finding reports them: the
            # rest is size alone. This measurement joins the largest loop's finding as a
            # related location (one cause, one finding); not compiled either.
            largest = max(ctx.findings_of(EXPLAINED_BY), key=lambda d: int((d.data or {}).get("equations") or 0))
            cause = {"code": largest.code, "file": largest.path, "line": largest.start.line}
            ctx.skip_compile = (f"{self.skip_compile_reason} ({self.code}: {total} equations, {from_loops} of "
                                f"them from {loops_text}, reported there; the rest names nothing removable)")
        ctx.report(
            ctx.def_site(),
            message,
            related=[Site(p, ln).related(f"{n} equations come from this line") for (p, ln), n in top],
            data={"equations": total, "budget": limit, "top_lines": [[ln, n] for (_, ln), n in top],
                  "loop_equations": from_loops, **({"cause": cause} if cause else {})},
        )

    @classmethod
    def defers_to(cls, mine, earlier) -> bool:
        """The unrolled loops are the only removable cause: the loop finding at the largest
        one's line says what to change, and takes this measurement as a related location."""
        return reported_cause(mine, earlier)


def _loop_findings(ctx) -> set[tuple[str, int]]:
    """(path, line) of the unrolled loops reported for this function: the findings of the
    rules that declare the trace fact :data:`EXPLAINED_BY` (declared in ``reads``, so
    those rules have run)."""
    return {(os.path.abspath(d.path), d.start.line) for d in ctx.findings_of(EXPLAINED_BY)}


class _LoopOf:
    """Which reported loop made an equation: the first frame of its creation stack (or
    of the enclosing call's, inside jax's own helpers) that lies in the body of one of
    ``loop_sites``, enclosing loops followed outwards. Memoized per source line."""

    def __init__(self, ctx, loop_sites: set[tuple[str, int]]) -> None:
        self.ctx = ctx
        self.sites = loop_sites
        self.memo: dict[tuple[str, int], tuple[str, int] | None] = {}

    def __call__(self, eqn, level):
        frames = self.ctx.user_frames(eqn)
        while not frames and level is not None and level.parent_eqn is not None:
            frames = self.ctx.user_frames(level.parent_eqn)
            level = level.parent
        for f in frames:
            key = (os.path.abspath(f.file), f.line)
            if key not in self.memo:
                self.memo[key] = self._reported_loop(*key)
            if self.memo[key] is not None:
                return self.memo[key]
        return None

    def _reported_loop(self, path: str, line: int) -> tuple[str, int] | None:
        seen: set[int] = set()
        loop = self.ctx.enclosing_loop(line, path)
        while loop is not None and id(loop) not in seen:
            seen.add(id(loop))
            # loop findings sit at the `for`/`while` line (a comprehension's at its target)
            head = loop.target.lineno if isinstance(loop, ast.comprehension) else loop.lineno
            if (path, head) in self.sites:
                return (path, head)
            loop = self.ctx.enclosing_loop(head, path)
        return None
