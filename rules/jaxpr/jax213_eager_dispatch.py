from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, TraceRule, Valid, is_test_path

if TYPE_CHECKING:
    from jaxlint.dynamic.eager import SiteContext

#: a sampling loop that makes its noise eagerly between the calls of its jitted step
EAGER_NOISE = """
import jax
import jax.numpy as jnp

@jax.jit
def denoise(x, noise, t):
    return x * (1.0 - 0.01 * t) + noise

if __name__ == "__main__":
    key = jax.random.key(0)
    x = jnp.zeros((8, 8))
    for i in range(60):
        key, sub = jax.random.split(key)
        noise = 0.1 * jax.random.normal(sub, x.shape) * jnp.sqrt(1.0 / (i + 1.0)) + jnp.float32(0.0)
        x = denoise(x, noise, jnp.float32(i) / 60.0)
    print(float(x.sum()))
"""


class EagerDispatch(TraceRule):
    """
    ## What it does
    Reports a line of your code that runs eager jax operations between the calls of a
    jitted step, over and over: an optax update applied outside the jitted gradient,
    noise and time steps made with `jax.random` and `jnp` in the sampling loop, a small
    model's forward called without `jit` on each move of an environment. Each eager
    operation is a dispatch of its own (a small program jax compiled once, then runs from
    its cache): tens of microseconds of Python and runtime each, where the same work
    inside the jitted step is a few fused instructions.

    It reads what `jaxlint record` saw: jax calls a hook after every call its C++ jit runs
    from its cache (the hook `jax_debug_nans` uses), and the recorder counts each at the
    innermost line of the project on the stack (where a library called that code back, a
    model's `__call__` run by flax's `apply`, at the project's call into the library), with
    the time one operation took there (the mean gap between consecutive operations of
    one call, without the outliers that hold a compile), and the recorded jitted functions between whose calls it ran. A line is
    reported when it ran between at least `min-steps` pairs of calls of a jitted function
    and the eager operations between those calls (its own and every other line's that
    ran there, one finding per jitted function, at the line that costs most, the others
    related) take at least `min-share` (5 %) of the time between its calls: all of
    them (the first, which compiles, aside, and the compiles in the others), the long
    ones too, so that work done every 30th step beside a slow plot is a share of the
    whole loop, not of the step's typical interval. The figure is the dispatch alone, a
    lower bound (never above 100 %): each operation then also runs
    on the device as a program of its own, and a read of its result waits for the chain
    (an eager policy whose dispatch was 7 % of the loop ran 1.7 times slower than the
    same policy jitted). Work done once (set-up before the first call, an evaluation
    after the last) is never between two calls; a few cheap operations beside a step
    that takes long are under the share.

    The line is the one to change. Operations written in the loop's body (a function the
    jitted step is called from) are reported at their line. Operations of a function of
    the project's that the loop calls (a whole `train_step` run without jit, with its
    `value_and_grad` and optimizer update; a policy's forward) are counted at the loop's
    call of it, the outermost call that led to them: the finding names the function to
    jit, with its lines that dispatch most as related.

    Compiles outside the jitted functions are [JAX212](JAX212.md)'s; this rule counts
    the operations that run without compiling. It is in `perf` (on by default, where a
    recording exists): its first blind judgement (4 findings at `c9000de`: 3 true, 1
    debatable, 0 false) is too few for the assignment rule to set its group by, so the
    group follows its claim; the two faults that judgement found (a share set against
    the typical interval, a line inside the function to jit) were fixed after it
    (`c4f2966`, not blind). Its share is a lower bound that falls with machine load:
    on a busy machine it reports less, not more.

    ## Why is this bad?
    The step waits on Python: a training step of 1 ms with 35 eager optimizer operations
    (~1 ms of dispatch) after it runs at half the speed of the same update inside the
    jitted step. The hand-timed programs behind this rule ran 1.2 to 3.4 times slower than
    one jitted step.

    ## Example
    ```python
    grad_fn = jax.jit(jax.grad(loss))
    for batch in batches:
        grads = grad_fn(params, batch)
        updates, opt_state = opt.update(grads, opt_state, params)   # eager: ~35 dispatches
        params = optax.apply_updates(params, updates)
    ```

    ## Use instead
    ```python
    @jax.jit
    def train_step(params, opt_state, batch):
        grads = jax.grad(loss)(params, batch)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state
    ```
    Work that cannot join the step (an environment in Python): jit the model's forward
    (`policy = jax.jit(model.apply)`) or the noise maker once, outside the loop.

    ## Options

    ## References
    * [JAX: asynchronous dispatch](https://docs.jax.dev/en/latest/async_dispatch.html)
    * [JAX: just-in-time compilation](https://docs.jax.dev/en/latest/jit-compilation.html)
    """

    code = "JAX213"
    group = "perf"
    name = "eager-dispatch"
    summary = "eager jax operations run between the calls of a jitted step, each dispatched on its own"
    fix_hint = "move the work into the jitted step, or jit it once outside the loop"
    program_level = True
    options = {
        "min-steps": Option(4, "report only work that ran between at least this many pairs of calls of the jitted "
                               "function (fewer is set-up or an occasional evaluation)", int, 2),
        "min-share": Option(0.05, "report only where the dispatch of the function's eager operations between two "
                                  "calls of the step takes at least this share of the time between its calls (all of "
                                  "them, the long ones too, without their compiles; the dispatch alone is measured: a lower bound of their cost, since each "
                                  "operation then also runs on the device as a program of its own; an eager policy "
                                  "at 7 % of dispatch ran 1.7x slower than jitted)", (int, float), 0),
        "check-tests": Option(False, "also report lines of test files (`test_*.py`, `*_test.py`)", bool),
    }

    VALID = [
        # the same loop with the noise made inside the jitted step: nothing eager between calls
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def denoise(x, key, i):
                key, sub = jax.random.split(key)
                noise = 0.1 * jax.random.normal(sub, x.shape) * jnp.sqrt(1.0 / (i + 1.0))
                return x * (1.0 - 0.01 * i / 60.0) + noise, key

            if __name__ == "__main__":
                key = jax.random.key(0)
                x = jnp.zeros((8, 8))
                for i in range(60):
                    x, key = denoise(x, key, i)
                print(float(x.sum()))
            """,
            run=True,
        ),
        # eager set-up before the loop and an evaluation after it: each runs once
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def step(w):
                return w - 0.1 * jnp.tanh(w)

            if __name__ == "__main__":
                w = jnp.linspace(-1.0, 1.0, 64) * 2.0 + jnp.ones(64)
                w = w / jnp.max(jnp.abs(w))
                for _ in range(60):
                    w = step(w)
                print(float(jnp.mean(w)), float(jnp.std(w)), float(jnp.max(w) - jnp.min(w)))
            """,
            run=True,
        ),
    ]
    INVALID = [
        Invalid(EAGER_NOISE, line=13, message="eager jax operations between calls of `denoise`", run=True),
    ]

    def check(self, ctx: SiteContext) -> None:
        site = ctx.site
        mine = site.get("dispatch") or {}
        if not mine or (is_test_path(site["file"]) and not self.opts["check-tests"]):
            return
        program = ctx.program
        fallback = program.get("op_seconds")
        least = self.opts["min-steps"]
        best = None
        for step, figures in mine.items():
            st = program["steps"].get(step) or {}
            period, between = st.get("period"), int(st.get("calls") or 0) - 1
            if not period or between < least or figures["intervals"] < least:
                continue
            # every line that ran between its calls: one problem (work outside the step), one finding
            group = [s for s in program["sites"] if (s.get("dispatch") or {}).get(step, {}).get("intervals", 0) >= least]

            def cost(s: dict) -> float:
                return s["dispatch"][step]["ops"] * float(s.get("op_seconds") or fallback or 0.0)

            if max(group, key=lambda s: (cost(s), s["dispatch"][step]["ops"], -s["line"])) is not site:
                continue  # one finding per step: at the line that costs most
            # every interval's time (the long ones too) against the dispatch in all of them: a
            # lower bound, never more than the time it is a share of
            per_call = min(sum(cost(s) for s in group) / between, period)
            share = per_call / period
            if share >= self.opts["min-share"] and (best is None or share > best[0]):
                best = (share, step, group, per_call, period, between)
        if best is None:
            return
        share, step, group, per_call, period, between = best
        name = step.rpartition(":")[2] or step
        own = site["dispatch"][step]
        each = max(1, round(own["ops"] / own["intervals"]))
        others = sorted((s for s in group if s is not site), key=lambda s: s["line"])
        total = round(sum(s["dispatch"][step]["ops"] for s in group) / between, 1)
        where = ""
        if others:
            lines = ", ".join(str(s["line"]) if s["file"] == site["file"] else f"{s['file']}:{s['line']}"
                              for s in others[:4]) + (" ..." if len(others) > 4 else "")
            where = f" (with line{'s' if len(others) > 1 else ''} {lines}: {total:g} per call in all)"
        # the lines under this call of the loop's (a function it calls that runs eagerly), the most first
        inner = sorted(((w.rpartition(":")[0], int(w.rpartition(":")[2]), n) for w, n in (site.get("inner") or {}).items()
                        if isinstance(n, int) and w.rpartition(":")[2].isdigit()), key=lambda t: (-t[2], t[0], t[1]))
        callee = site.get("callee") if inner else None
        plural = "s" if each != 1 else ""
        if callee:
            top = str(inner[0][1]) if inner[0][0] == site["file"] else f"{inner[0][0]}:{inner[0][1]}"
            said = (f"{each} eager jax operation{plural} between calls of `{name}` under this call of `{callee}`, in "
                    f"{own['intervals']} of its {between} intervals (the most at line {top}){where}: `{callee}` runs "
                    f"without jit, each of its operations a dispatch of its own; jit `{callee}` (or move its work into "
                    f"`{name}`)")
        else:
            said = (f"{each} eager jax operation{plural} between calls of `{name}` at this line, in "
                    f"{own['intervals']} of its {between} intervals{where}: each runs outside the jitted step as a "
                    f"dispatch of its own; move this work into `{name}` (return what it makes), or jit it once outside "
                    "the loop")
        heavy = [(f, ln, f"{max(1, round(n / own['intervals']))} eager operation(s) of `{callee}` here between calls "
                         f"of `{name}`") for f, ln, n in inner[:3]] if callee else []
        ctx.report(
            said,
            key=step,
            measured=f"at least {per_call * 1e3:.2f} ms of eager dispatch per call of `{name}`, {share:.0%} of the "
                     f"{period * 1e3:.2f} ms from one call to the next",
            data={"step": step, "ops_per_call": total, "calls": between + 1,
                  "lines": {str(s["line"]): s["dispatch"][step]["ops"] for s in group},
                  **({"inner": {f"{f}:{ln}": n for f, ln, n in inner}} if callee else {})},
            caller_note="called from here",
            also=heavy + [(s["file"], s["line"], f"{max(1, round(s['dispatch'][step]['ops'] / s['dispatch'][step]['intervals']))} "
                                                 f"more eager operation(s) between calls of `{name}`") for s in others[:8]],
        )
