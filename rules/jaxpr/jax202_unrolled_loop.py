from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis, Site


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
    `jax.tree.map`) are the architecture, not an accident, and are left alone. A loop
    over a traced array (`for row in x:`, `[f(r) for r in x]`, `zip(xs, ys)`) is not:
    each copy starts by slicing one row of the same array at the loop's header, and it
    is reported with the array's type. Nested counted loops (`for i in range(n): for j
    in range(n): out = out.at[i, j].set(...)`) are reported once, at the outer loop,
    with every copy of the inner body counted. Each finding says how many of the
    copies' equations slice, index or write single elements or rows (`data
    ["indexing_equations"]`). An iteration's equations include the bodies of the
    functions it calls (a jitted solver step, a `while` inside it): ten iterations of
    `solver.update(...)` are one call equation each at the loop's level, but each copies
    the step's whole body into the compiled program, and count so against
    `min-equations`. A loop whose body calls `jax.tree.map` is a loop all the same; only
    copies made wholly by `tree_map` (one per leaf) are the pytree's structure.

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
    group = "perf"
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
        # ten iterations of a call into a jitted solver step: one equation each at this
        # level, but each copies the step's whole body into the compiled program
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def solver_update(x):
                return jnp.tanh(x @ x) * 0.5 + jnp.sin(x) - jnp.cos(x) * 0.1

            @jax.jit  # jaxlint: args=(f32[16, 16],)
            def learner(x):
                for _ in range(10):
                    x = jax.jit(solver_update)(x)  # jaxlint: args=(f32[16, 16],)
                    x = jax.tree.map(lambda a: a / jnp.sqrt(jnp.sum(a * a)), x)
                return x
            """,
            line=9,
            message="10 iterations, 130 equations",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[4], f32[32, 4])
            def loss(w, x):
                total = 0.0
                for row in x:
                    total = total + jnp.tanh(row @ w).sum()
                return total
            """,
            line=7,
            message="Python loop over the rows of `x` (a traced float32[32,4])",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        from jaxlint.dynamic import adapter

        if ctx.jaxpr is None:
            return
        min_iter = self.opts["min-iterations"]
        min_eqns = self.opts["min-equations"]
        found: dict[tuple[str, int], _Unrolled] = {}
        sizes: dict[int, int] = {}
        for level in ctx.levels():
            eqns = level.jaxpr.eqns
            weights = [_size(e, sizes) for e in eqns]
            if sum(weights) < min_eqns:
                continue
            keys = self._keys(eqns)
            for start, period, reps in find_repeats(keys, min_iter):
                block = eqns[start:start + period]
                frames = ctx.user_frames(block[0])
                if not frames or all(adapter.via_tree_map(e.source_info) for e in block):
                    continue  # tree_map's copies, one per leaf (a loop's body may call tree_map)
                loop, site = self._loop_site(ctx, frames)
                if loop is None:
                    continue  # no Python loop in the user's stack: jax repeated it (vmap of a debug print ...)
                over = None
                if isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)) and not _counted(loop.iter):
                    over = _iterated_array(ctx, loop, eqns, start, period, reps, site.path)
                    seen = found.get((site.path, site.line))
                    if over is None and (seen is None or seen.over is None):
                        continue  # iterating a list of layers / a pytree: the architecture, not a bug
                outer, site = _outermost(ctx, loop, site)
                u = found.setdefault((site.path, site.line), _Unrolled(site, loop, outer, over))
                u.add(tuple(keys[start:start + period]), eqns, start, period, reps, weights)
        for u in found.values():
            if u.equations >= min_eqns:
                self._report(ctx, u)

    @staticmethod
    def _keys(eqns) -> list[int]:
        """Equal ints for equations with the same primitive, output avals and whole
        creation stack (what one loop-body line makes on every iteration)."""
        from jaxlint.dynamic import adapter

        ids: dict = {}
        return [ids.setdefault((adapter.primitive_name(e), tuple(adapter.aval_key(v.aval) for v in e.outvars),
                                adapter.stack_key(e.source_info)), len(ids)) for e in eqns]

    def _report(self, ctx: FunctionAnalysis, u: _Unrolled) -> None:
        from jaxlint.dynamic import adapter

        site = u.site
        reps, period = u.iterations, u.period
        hint = ("use jax.lax.fori_loop or jax.lax.scan" if u.dependent else
                "the iterations are independent: use jax.vmap")
        body = sorted({(f.path, f.line) for f in [ctx.site_of_frames(ctx.user_frames(e)) for e in u.sample] if f})
        what = "Python loop unrolled at trace time"
        if u.outer is not None:
            what = (f"nested Python loops (lines {u.outer.lineno}-{u.loop_line}) unrolled at trace time, "
                    f"building the result element by element")
        if u.over is not None:
            text, aval = u.over
            what = (f"Python loop over the rows of `{text}` (a traced {adapter.aval_str(aval)}) unrolled at "
                    f"trace time")
        msg = (f"{what}: {reps} iterations x {period} equations = {u.equations} equations in the traced program"
               if u.equations == reps * period else
               f"{what}: {reps} iterations, {u.equations} equations in the traced program")
        if u.indexing:
            msg += f", {u.indexing} of them slicing or indexing arrays one element or row at a time"
        ctx.report(
            site, f"{msg}; {hint}",
            related=[type(site)(p, ln).related("loop body") for p, ln in body[:5] if ln != site.line],
            data={"iterations": reps, "equations_per_iteration": period, "equations": u.equations,
                  "indexing_equations": u.indexing, "dependent": u.dependent, "body_lines": [ln for _, ln in body],
                  **({"over": u.over[0], "shape": list(adapter.shape_of(u.over[1]))} if u.over else {}),
                  **({"nested": [u.outer.lineno, u.loop_line]} if u.outer is not None else {})},
        )

    @staticmethod
    def _loop_site(ctx, frames):
        """The loop that repeats: the outermost user frame inside a Python loop (in the
        checked file or a project module it calls), reported at its ``for``/``while``."""
        import os

        for f in reversed(frames):
            loop = ctx.enclosing_loop(f.line, f.file) or _header_of(ctx, f.line, os.path.abspath(f.file))
            if loop is None:
                continue
            return loop, _loop_header(os.path.abspath(f.file), loop)
        return None, ctx.site_of_frames(frames) or ctx.def_site()


#: primitives that take one element, row or slice of an array (or write one)
INDEXING = frozenset({"slice", "squeeze", "gather", "dynamic_slice", "dynamic_update_slice", "scatter",
                      "scatter-add", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"})


class _Unrolled:
    """What the trace repeated for one Python loop (or loop nest): every run of copies its
    body made, summed per kind of block (a ``grad`` repeats the forward body, then the
    backward one; a loop nest repeats the inner body once per outer iteration)."""

    def __init__(self, site, loop, outer, over) -> None:
        self.site, self.outer, self.over = site, outer, over
        self.loop_line = getattr(loop, "lineno", None) or loop.target.lineno
        self.by_block: dict[tuple, int] = {}
        self.equations = 0
        self.indexing = 0
        self.period = 0
        self.dependent = False
        self.sample: list = []

    def add(self, block: tuple, eqns, start: int, period: int, reps: int, weights: list[int]) -> None:
        from jaxlint.dynamic import adapter

        self.by_block[block] = self.by_block.get(block, 0) + reps
        self.equations += sum(weights[start:start + period * reps])
        copies = eqns[start:start + period * reps]
        self.indexing += sum(1 for e in copies if adapter.primitive_name(e) in INDEXING)
        if self.by_block[block] >= max(self.by_block.values()):
            self.period, self.sample = period, list(eqns[start:start + period])
        self.dependent = self.dependent or _dependent(eqns, start, period, reps)

    @property
    def iterations(self) -> int:
        return max(self.by_block.values())


def _size(eqn, sizes: dict[int, int], depth: int = 0) -> int:
    """The equations one equation puts into the traced program: 1, plus those of the
    bodies it calls (a jitted library function, a `custom_jvp`, a `while`): an iteration
    made of calls into jitted solvers copies their whole bodies (``sizes``: by body, once)."""
    from jaxlint.dynamic import adapter

    n = 1
    if depth < 16:
        for sub, _ in adapter.sub_jaxprs(eqn):
            if id(sub) not in sizes:
                sizes[id(sub)] = sum(_size(e, sizes, depth + 1) for e in sub.eqns)
            n += sizes[id(sub)]
    return n


def _header_of(ctx: FunctionAnalysis, line: int, path: str) -> ast.For | ast.AsyncFor | None:
    """The ``for`` whose header (``for row in x:``) holds ``line``: iterating a traced
    array slices it there."""
    from jaxlint.dynamic.analysis import _source

    tree = ctx.tree if ctx.is_checked_file(path) else _source(path)[1]
    for n in ast.walk(tree) if tree is not None else ():
        if isinstance(n, (ast.For, ast.AsyncFor)) and n.lineno <= line <= (n.iter.end_lineno or n.lineno):
            return n
    return None


def _loop_header(path: str, loop):
    """The site of a loop's header: from ``for``/``while`` to the end of its iterable or test
    (a comprehension's ``for`` clause: from its target)."""
    from jaxlint.dynamic.analysis import Site

    if isinstance(loop, ast.comprehension):
        return Site(path, loop.target.lineno, max(loop.target.col_offset - 4, 0) + 1,
                    loop.iter.end_lineno, (loop.iter.end_col_offset or 0) + 1)
    end = loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else loop.test
    return Site(path, loop.lineno, loop.col_offset + 1, end.end_lineno, (end.end_col_offset or 0) + 1)


def _outermost(ctx: FunctionAnalysis, loop: ast.AST, site: Site) -> tuple:
    """(the outermost loop of the nest ``loop`` is the innermost of, or None when it is not
    nested; the site to report): a ``for`` whose body is loops, down to ``loop``, in one
    function."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None, site
    from jaxlint.dynamic.analysis import _source

    tree = ctx.tree if ctx.is_checked_file(site.path) else _source(site.path)[1]
    if tree is None:
        return None, site
    parents: dict[int, ast.AST] = {}
    for n in ast.walk(tree):
        for c in ast.iter_child_nodes(n):
            parents[id(c)] = n
    outer = None
    node = loop
    while True:
        up = parents.get(id(node))
        if not isinstance(up, (ast.For, ast.AsyncFor)) or node not in up.body or not _counted(up.iter):
            break
        outer = node = up
    if outer is None:
        return None, site
    return outer, _loop_header(site.path, outer)


def _iterated_array(ctx: FunctionAnalysis, loop: ast.For | ast.AsyncFor | ast.comprehension, eqns, start: int, period: int, reps: int, path: str):
    """(the iterable's text, its aval) when a ``for`` over a traced array made the copies:
    each copy starts by slicing one array, at the loop's header line; None otherwise."""
    from jaxlint.dynamic import adapter

    head = range(loop.target.lineno, (loop.iter.end_lineno or loop.target.lineno) + 1) \
        if isinstance(loop, ast.comprehension) else range(loop.lineno, (loop.iter.end_lineno or loop.lineno) + 1)
    sources = set()
    for k in range(reps):
        for e in eqns[start + k * period:start + (k + 1) * period]:
            if adapter.primitive_name(e) not in INDEXING or not e.invars:
                continue
            f = ctx.site_of_frames(ctx.user_frames(e))
            if f is not None and f.line in head and f.path == path:
                sources.add(id(e.invars[0]))
                src = e.invars[0]
                break
        else:
            return None
    if len(sources) != 1:
        return None  # each copy slices something else: not one array's rows
    return ast.unparse(loop.iter), adapter.aval_of(src)


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
