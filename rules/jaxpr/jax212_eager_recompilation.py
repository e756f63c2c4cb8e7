from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, TraceRule, Valid, is_test_path

if TYPE_CHECKING:
    from jaxlint.dynamic.eager import SiteContext

#: an L-BFGS-like step run eagerly: its line search is a `lax.while_loop` over a new
#: closure each call, so jax traces and compiles the loop again on every step
EAGER_STEP = """
import jax
import jax.numpy as jnp

@jax.jit
def loss(w):
    return jnp.sum((w - 3.0) ** 2)

def step(w, lr):
    shrink = lambda c: (c[0] * 0.5, c[1] + 1)          # a new closure on every call
    t, _ = jax.lax.while_loop(lambda c: c[1] < 4, shrink, (lr, 0))
    return w - t * jax.grad(loss)(w)

if __name__ == "__main__":
    w = jnp.zeros(4)
    for _ in range(6):
        w = step(w, 1.0)
    print(loss(w))
"""


class EagerRecompilation(TraceRule):
    """
    ## What it does
    Reports a line of your code where the program compiled the same function again and
    again outside any jitted function of yours: work that runs eagerly between jitted
    calls and compiles anew each time. An eager `jax.lax.while_loop`, `scan` or
    `fori_loop` over a closure made on each call (optax's L-BFGS `update`, whose line
    search is a `while_loop`, run in an un-jitted step: `jit(while)` compiled once per
    step), a library that makes a new `jax.jit` on each call (a solver built per solve),
    eager operations applied to a new shape on each iteration (a mask or a
    `jnp.concatenate` that grows). It reads what `jaxlint record` saw: jax reports every
    XLA compile (`jax.monitoring`'s backend-compile event, with the compiled function's
    name and its seconds) in the thread that compiles, and the recorder counts each at
    the innermost line of the project's code on that thread's stack (where a library
    called that code back, a kernel's `evaluate` or a value function, at the project's
    call into the library), per compiled function (nothing per operation: only per
    compile). Compiles of your own jitted
    functions (`jax.jit`, `nnx.jit`, `equinox.filter_jit`, called anywhere) are JAX208's
    and are not counted here.

    It reports a line only when one function compiled there in at least `min-compiles`
    calls of the line (each call of a line is told apart by a mark on the frame it
    calls) and those compiles took at least `min-seconds` in all: one call that compiles
    an operation once per shape (an eager model's first call, a library's set-up at
    import, a circuit of many gate shapes applied once) is one call, and a warm-up over
    a few shapes is under the count; neither is a finding. The finding says the function, the count and the seconds, with the call
    that led there (the loop's) as related; a line under a test file (`test_*.py`) is
    left out unless `check-tests` is on. `check --dynamic` reports it while the code of
    the line's function and of that call is unchanged, as it does a function's.

    It is a code of its own, not a kind of JAX208: JAX208 judges the project's jitted
    functions from their recorded signatures (what changed between two compiles, and where
    that is made), where this rule sees only what jax's compile events say (a function's
    name, a line, a time) about programs the project never jitted, and its advice is
    another (jit the eager step, or make the jit once). It is in `nursery` (off by
    default, on with `--preview` or `--select JAX212`) until a blind judgement gives it a
    figure.

    ## Why is this bad?
    Each compile is a trace and an XLA compile, paid again on every call: an eager
    L-BFGS step whose line search compiles every step takes seconds a step where the
    same step under one `jax.jit` compiles once and then takes milliseconds.

    ## Example
    ```python
    def train_step(w, state):                     # called in a loop, not jitted
        value_fn = lambda p: loss(p)              # a new closure on every call
        g = jax.grad(value_fn)(w)
        u, state = opt.update(g, state, w, value=loss(w), grad=g, value_fn=value_fn)
        return optax.apply_updates(w, u), state
    ```

    ## Use instead
    ```python
    @jax.jit                                      # one program, compiled once
    def train_step(w, state):
        ...
    ```
    A `jax.jit` made inside a loop or a function called per step: make it once, outside.
    An eager operation on a new shape each time: pad to a fixed size, or jit the step.

    ## Options

    ## References
    * [JAX: jit compilation and caching](https://docs.jax.dev/en/latest/jit-compilation.html)
    * [`jax.monitoring`](https://docs.jax.dev/en/latest/jax.monitoring.html)
    """

    code = "JAX212"
    group = "nursery"
    name = "eager-recompilation"
    summary = "work outside any jitted function compiles the same program again and again"
    fix_hint = "put the step under one `jax.jit`, or make the jitted function once outside the loop"
    program_level = True
    options = {
        "min-compiles": Option(4, "report a line only where one function compiled in at least this many of its "
                                  "calls", int, 2),
        "min-seconds": Option(1.0, "report a line only where its repeated compiles took at least this many seconds "
                                   "in all (XLA's compile time as jax measured it, the wall clock)", (int, float), 0),
        "check-tests": Option(False, "also report lines of test files (`test_*.py`, `*_test.py`)", bool),
    }

    VALID = [
        # the same step under one jit: it compiles once (the loop is in the jitted program)
        Valid(
            EAGER_STEP.replace("def step(w, lr):", "@jax.jit\ndef step(w, lr):"),
            run=True,
            options={"min-seconds": 0},
        ),
        # a warm-up over three sizes: one compile per shape, each reused after
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def norm(x):
                return jnp.sqrt(jnp.sum(x * x))

            if __name__ == "__main__":
                for n in (8, 16, 32, 8, 16, 32, 8, 16, 32):
                    x = jnp.arange(n, dtype=jnp.float32) / n
                    print(norm(x))
            """,
            run=True,
            options={"min-seconds": 0},
        ),
    ]
    INVALID = [
        # the eager step's `while_loop` compiles on each of the 6 steps (`min-seconds` 0:
        # this small loop compiles in milliseconds)
        Invalid(
            EAGER_STEP,
            line=10,
            message="`jit(while)` was compiled 6 times at this line, outside any jitted function",
            run=True,
            options={"min-seconds": 0},
        ),
    ]

    def check(self, ctx: SiteContext) -> None:
        site = ctx.site
        if is_test_path(site["file"]) and not self.opts["check-tests"]:
            return
        # compiled again by later calls of the line: one call that compiles an operation
        # per shape (an eager model's first call) compiles each once, in that call
        again = {n: c for n, c in site["functions"].items() if c.get("calls", c["compiles"]) > 1}
        if not again:
            return
        name, worst = max(again.items(), key=lambda kv: (kv[1].get("calls", kv[1]["compiles"]), kv[1]["compiles"],
                                                         kv[1]["seconds"], kv[0]))
        calls = worst.get("calls", worst["compiles"])
        if calls < self.opts["min-compiles"]:
            return
        seconds = sum(c["seconds"] for c in again.values())
        if seconds < self.opts["min-seconds"]:
            return
        ranked = sorted(again.items(), key=lambda kv: (-kv[1].get("calls", kv[1]["compiles"]), kv[0]))
        what = (f"`{name}` was compiled {worst['compiles']} times at this line"
                + (f", in {calls} of its calls" if calls != worst["compiles"] else ""))
        if len(ranked) > 1:
            others = ", ".join(f"`{n}` {c['compiles']}" for n, c in ranked[1:4] if n != name)
            what += f" (and {others}{' ...' if len(ranked) > 4 else ''})"
        scope = site["scope"]
        while scope.rpartition(".")[2].startswith("<") and ".<locals>." in scope:
            scope = scope.rpartition(".<locals>.")[0]  # a lambda's or a comprehension's: the function around it
        if scope.startswith("<"):  # a module's top-level loop
            remedy = ("put the loop's step in a function under one `jax.jit`, so that it compiles once; a `jax.jit` "
                      "made in the loop: make it once, before it")
        else:
            remedy = (f"put `{scope}` (or the step that calls it) under one `jax.jit`, so that it compiles once; a "
                      "`jax.jit` made on each call: make it once, outside the loop")
        ctx.report(
            f"{what}, outside any jitted function: this work runs eagerly and jax compiles it again on each call "
            f"(a closure or a `jax.jit` made anew, or a new shape, each time); {remedy}",
            key=name, measured=f"{seconds:.1f} s of XLA compiles",
            data={"compiles": sum(c["compiles"] for c in again.values()), "functions": {n: c["compiles"] for n, c in ranked}},
            caller_note="called from here",
        )
