from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis


class DonatedBufferReused(TraceRule):
    """
    ## What it does
    In a program observed by `jaxlint record`, finds a call of a jitted function that
    donates an argument (`donate_argnums` / `donate_argnames`) and passes the same
    buffer again in that call: twice in donated places, or once donated and once not
    (`step(state, state)`, `update(params, ema_params)` where both names hold one
    array). It names both arguments, down to the pytree leaf.

    Only a real call shows which arrays are one buffer: the rule needs a recording
    (`jaxlint record -- python train.py`) and stays quiet without one. The static
    `JAX113` finds the cases visible in the source.

    ## Why is this bad?
    Donating a buffer hands its memory to XLA for an output; the same call cannot also
    read it. jax refuses the call (`INVALID_ARGUMENT: Attempt to use a buffer that was
    previously donated in the same call`, seen on CPU with jax 0.4.38 and 0.10.2) and
    names only a flattened argument index.

    ## Example
    ```python
    @functools.partial(jax.jit, donate_argnums=0)
    def ema(avg, params):
        return jax.tree.map(lambda a, p: 0.99 * a + 0.01 * p, avg, params)

    avg = params          # the same arrays
    avg = ema(avg, params)
    ```

    ## Use instead
    ```python
    avg = jax.tree.map(jnp.copy, params)   # its own buffers
    avg = ema(avg, params)
    ```

    ## Options

    ## References
    * [Buffer donation](https://docs.jax.dev/en/latest/faq.html#buffer-donation)
    """

    code = "JAX210"
    group = "correctness"
    name = "donated-buffer-reused"
    summary = "a buffer donated to a jitted call is passed to the same call again"
    fix_hint = "pass a copy (jnp.copy) in one of the places, or do not donate that argument"
    severity = Severity.ERROR
    # the measured form of the static donation-misuse finding at the same call
    supersedes = ("JAX113",)

    VALID = [
        Valid(
            """
            import functools
            import jax
            import jax.numpy as jnp

            @functools.partial(jax.jit, donate_argnums=0)
            def ema(avg, params):
                return jax.tree.map(lambda a, p: 0.99 * a + 0.01 * p, avg, params)

            if __name__ == "__main__":
                params = {"w": jnp.ones((64, 64))}
                avg = jax.tree.map(jnp.copy, params)
                avg = ema(avg, params)
            """,
            run=True,
        ),
    ]
    INVALID = [
        Invalid(
            """
            import functools
            import jax
            import jax.numpy as jnp

            @functools.partial(jax.jit, donate_argnums=0)
            def ema(avg, params):
                return jax.tree.map(lambda a, p: 0.99 * a + 0.01 * p, avg, params)

            if __name__ == "__main__":
                params = {"w": jnp.ones((64, 64))}
                avg = params
                try:
                    avg = ema(avg, params)
                except Exception as e:  # jax refuses the call
                    print(type(e).__name__)
            """,
            line=13,
            message="`avg['w']` is donated and also passed as `params['w']`",
            run=True,
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        call = ctx.call
        if call is None or not call.donated_twice:
            return
        pairs = "; ".join(f"`{a}` is donated and also passed as `{b}`" for a, b in call.donated_twice[:4])
        ctx.report(call.site, f"one buffer is donated to `{ctx.qualname}` and passed to it again in the same call: "
                             f"{pairs}; jax refuses a call that reads a buffer it donates",
                  related=[ctx.entry_site().related(f"`{ctx.qualname}` donates it here")],
                  data={"pairs": [list(p) for p in call.donated_twice]})
