from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis


class UnrolledLoop(TraceRule):
    """
    ## What it does
    Finds a block of equations that the traced program repeats at least
    `min-iterations` times, at least `min-equations` equations in all, where every
    copy has the same primitives, the same output shapes and the same user source
    stack: the fingerprint of a Python loop that ran at trace time. It is reported
    at the loop (the `for`/`while` statement when it can be found, else the body
    line), with the number of iterations and equations per iteration.

    When one iteration reads what the previous one produced it suggests
    `lax.fori_loop`/`lax.scan`; when the iterations are independent, `jax.vmap`.
    Loops over a list of layers or a pytree (`for layer in params["layers"]`,
    `jax.tree.map`) are the architecture, not an accident, and are left alone.

    This is the measured version of JAX102 (python-loop-in-jit); where both fire on
    one loop only this one is reported.

    ## Why is this bad?
    Tracing a Python loop emits one copy of its body per iteration. XLA's compile time
    grows with program size: the 1,000-step loop below compiled in about 0.7 s instead
    of 0.05 s as a `fori_loop` on jax 0.10.2, and in about 3.6 s instead of 0.02 s on
    jax 0.4.38 (CPU, `benchmarks/bench_claims.py`); the cost grows with the body.

    ## Example
    ```python
    # jaxlint: args=(f32[64,64],)
    @jax.jit
    def simulate(x):
        for _ in range(1000):
            x = jnp.tanh(x @ x) * 0.5 + x
        return x
    ```

    ## Use instead
    ```python
    # jaxlint: args=(f32[64,64],)
    @jax.jit
    def simulate(x):
        return jax.lax.fori_loop(0, 1000, lambda i, x: jnp.tanh(x @ x) * 0.5 + x, x)
    ```

    ## Options

    ## References
    * [JAX: control flow and loops](https://docs.jax.dev/en/latest/control-flow.html)
    * [jax.lax.scan](https://docs.jax.dev/en/latest/_autosummary/jax.lax.scan.html)
    """

    code = "JAX202"
    name = "unrolled-loop"
    summary = "a Python loop was unrolled into many copies of its body in the traced program"
    fix_hint = "use jax.lax.fori_loop / jax.lax.scan (dependent iterations) or jax.vmap (independent ones)"
    supersedes = ("JAX102",)
    trace_fact = "loops"  # the compile tier names unrolled loops among a slow compile's causes
    options = {
        "min-iterations": Option(8, "report blocks repeated at least this many times", int, 2),
        "min-equations": Option(32, "and only when the copies hold at least this many equations in all", int, 1),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[16, 16],)
            def simulate(x):
                return jax.lax.fori_loop(0, 100, lambda i, x: jnp.tanh(x) * 0.5 + x, x)
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[16],)
            def short(x):
                for _ in range(3):
                    x = jnp.tanh(x) * 0.5 + x
                return x
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=({"w": [f32[8, 8]] * 12},  f32[4, 8])
            def mlp(params, x):
                for w in params["w"]:
                    x = jnp.tanh(x @ w) + x
                return x
            """
        ),
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=([f32[8]] * 40,)
            def scale(params):
                return jax.tree.map(lambda p: p * 0.9 + 0.1, params)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[16, 16],)
            def simulate(x):
                for _ in range(100):
                    x = jnp.tanh(x @ x) * 0.5 + x
                return x
            """,
            line=6,
            message="100 iterations",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def step(x, i):
                return jnp.sin(x) * 2.0 + i

            @jax.jit  # jaxlint: args=(f32[16],)
            def independent(x):
                outs = []
                for i in range(50):
                    outs.append(step(x, i))
                return jnp.stack(outs)
            """,
            line=10,
            message="jax.vmap",
        ),
    ]

    def check(self, fa: FunctionAnalysis) -> None:
        from jaxlint.dynamic import adapter

        if fa.jaxpr is None:
            return
        min_iter = self.opts["min-iterations"]
        min_eqns = self.opts["min-equations"]
        reported: set = set()
        for level in fa.levels():
            eqns = level.jaxpr.eqns
            if len(eqns) < min_eqns:
                continue
            keys = self._keys(eqns)
            for start, period, reps in find_repeats(keys, min_iter):
                if period * reps < min_eqns:
                    continue
                block = eqns[start:start + period]
                frames = fa.user_frames(block[0])
                if not frames or any(adapter.via_tree_map(e.source_info) for e in block):
                    continue
                self._report(fa, eqns, start, period, reps, frames, reported)

    @staticmethod
    def _keys(eqns) -> list[int]:
        """Equal ints for equations with the same primitive, output avals and whole
        creation stack (what one loop-body line makes on every iteration)."""
        from jaxlint.dynamic import adapter

        ids: dict = {}
        return [ids.setdefault((adapter.primitive_name(e), tuple(adapter.aval_key(v.aval) for v in e.outvars),
                                adapter.stack_key(e.source_info)), len(ids)) for e in eqns]

    def _report(self, fa, eqns, start, period, reps, frames, reported: set) -> None:
        loop, site = self._loop_site(fa, frames)
        if loop is None:
            return  # no Python loop in the user's stack: jax repeated it (vmap of a debug print ...)
        if isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)) and not _counted(loop.iter):
            return  # iterating a list of layers / a pytree: the architecture, not a bug
        key = (site.path, site.line)
        if key in reported:
            return
        reported.add(key)
        dependent = _dependent(eqns, start, period, reps)
        hint = ("use jax.lax.fori_loop or jax.lax.scan" if dependent else
                "the iterations are independent: use jax.vmap")
        body = sorted({(f.path, f.line) for f in [fa.site_of_frames(fa.user_frames(e)) for e in eqns[start:start + period]] if f})
        fa.report(
            site,
            f"Python loop unrolled at trace time: {reps} iterations x {period} equations = "
            f"{reps * period} equations in the traced program; {hint}",
            related=[type(site)(p, ln).related("loop body") for p, ln in body[:5] if ln != site.line],
            data={"iterations": reps, "equations_per_iteration": period, "equations": reps * period,
                  "dependent": dependent, "body_lines": [ln for _, ln in body]},
        )

    @staticmethod
    def _loop_site(fa, frames):
        """The loop that repeats: the outermost user frame inside a Python loop (in the
        checked file or a project module it calls), reported at its ``for``/``while``."""
        import os

        from jaxlint.dynamic.analysis import Site

        for f in reversed(frames):
            loop = fa.enclosing_loop(f.line, f.file)
            if loop is None:
                continue
            path = os.path.abspath(f.file)
            if isinstance(loop, ast.comprehension):  # `for` clause: from `for` to the end of the iterable
                return loop, Site(path, loop.target.lineno, max(loop.target.col_offset - 4, 0) + 1,
                                  loop.iter.end_lineno, (loop.iter.end_col_offset or 0) + 1)
            end = loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else loop.test
            return loop, Site(path, loop.lineno, loop.col_offset + 1, end.end_lineno, (end.end_col_offset or 0) + 1)
        return None, fa.site_of_frames(frames) or fa.def_site()


def find_repeats(keys: list[int], min_iter: int):
    """(start, period, repetitions) of maximal runs where ``keys[start:start+period]``
    repeats back to back at least ``min_iter`` times. Near-linear: each start is tried
    with the distance to the next equal key as its period."""
    n = len(keys)
    nxt = [0] * n
    last: dict[int, int] = {}
    for i in range(n - 1, -1, -1):
        nxt[i] = last.get(keys[i], -1)
        last[keys[i]] = i
    i = 0
    while i < n:
        j = nxt[i]
        if j < 0 or keys[i] < 0:
            i += 1
            continue
        p = j - i
        if p * min_iter > n - i:
            i += 1
            continue
        run = 0
        while i + run + p < n and keys[i + run] == keys[i + run + p]:
            run += 1
        reps = 1 + run // p
        if reps >= min_iter:
            yield i, p, reps
            i += reps * p
        else:
            i += 1


def _dependent(eqns, start: int, period: int, reps: int) -> bool:
    """Whether some copy reads a value the previous copy produced."""
    owner: dict[int, int] = {}
    for k in range(reps):
        for e in eqns[start + k * period:start + (k + 1) * period]:
            for v in e.invars:
                if owner.get(id(v), k) == k - 1:
                    return True
            for v in e.outvars:
                owner[id(v)] = k
    return False


def _counted(it: ast.expr) -> bool:
    """``range(...)``, ``enumerate(range(...))``, ``zip(range(...), ...)``: a counted loop."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name):
        if it.func.id == "range":
            return True
        if it.func.id in ("enumerate", "zip", "reversed") and it.args:
            return any(_counted(a) for a in it.args)
    return False
