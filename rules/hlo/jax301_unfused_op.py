from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule, kernel_key
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext
    from jaxlint.compile.hlo import Instruction


class UnfusedOp(HloRule):
    """
    ## What it does
    Reads the optimized HLO and finds work XLA could not fuse: a custom call that
    splits what would have been one elementwise kernel, with the intermediate arrays
    written to memory and read back on either side of it. By default it looks at host
    callbacks (`jax.pure_callback`, `jax.debug.callback`, `io_callback`); with
    `include-library-calls` also at library custom calls (LAPACK) and `sort`. On a GPU
    or TPU it also reports single-operation loop fusions fed by a compatible fusion
    that XLA left separate. The message names the source lines of the producer and
    the consumer.

    CPU fusion differs between jax versions (0.10 routes dots and reductions through
    custom fusions, 0.8 wraps single ops in `wrapped_*` fusions), so on CPU only the
    signals that held in every version are used; GPU-only findings are never reported
    from a CPU executable.

    ## Why is this bad?
    An elementwise chain fused into one kernel reads its inputs once and writes its
    output once. A callback in the middle forces XLA to materialize the values before
    it and after it, and (for host callbacks) to copy them to Python and back: the
    chain costs several memory passes instead of one.

    ## Example
    ```python
    @jax.jit
    def f(x):
        y = jnp.tanh(x) * 2.0
        y = jax.pure_callback(np.log1p, jax.ShapeDtypeStruct(y.shape, y.dtype), y)
        return jnp.exp(y) + x
    ```

    ## Use instead
    ```python
    @jax.jit
    def f(x):
        return jnp.exp(jnp.log1p(jnp.tanh(x) * 2.0)) + x
    ```
    Or move the callback to the start or the end of the computation, outside the chain.

    ## Options

    ## References
    * [XLA operation fusion](https://openxla.org/xla/operation_semantics)
    * [jax.pure_callback](https://docs.jax.dev/en/latest/_autosummary/jax.pure_callback.html)
    """

    code = "JAX301"
    group = "perf"
    name = "unfused-op"
    # the static host-callback finding and the trace tier's host-callback-traced at the
    # same line: this is their measured cost
    supersedes = ("JAX109", "JAX203")
    summary = "a kernel splits what XLA would have fused, materializing intermediates"
    fix_hint = "express the step in jax.numpy or move it outside the elementwise chain"
    options = {
        "min-bytes": Option(1 << 20, "report only when at least this many bytes cross the split", int, 0),
        "include-library-calls": Option(False, "also report LAPACK custom calls and sort", bool),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[512,1024],)
            @jax.jit
            def f(x):
                y = jnp.tanh(x) * 2.0
                return jnp.exp(y) + x
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            # jaxlint: args=(f32[8,16],)
            @jax.jit
            def small(x):
                y = jnp.tanh(x) * 2.0
                y = jax.pure_callback(np.log1p, jax.ShapeDtypeStruct(y.shape, y.dtype), y)
                return jnp.exp(y) + x
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            # jaxlint: args=(f32[512,1024],)
            @jax.jit
            def callback_at_the_end(x):
                y = jnp.exp(jnp.tanh(x) * 2.0) + x
                return jax.pure_callback(np.log1p, jax.ShapeDtypeStruct(y.shape, y.dtype), y)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            # jaxlint: args=(f32[512,1024],)
            @jax.jit
            def f(x):
                y = jnp.tanh(x) * 2.0
                y = jax.pure_callback(np.log1p, jax.ShapeDtypeStruct(y.shape, y.dtype), y)
                return jnp.exp(y) + x
            """,
            line=9,
            message="line 8",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            # jaxlint: args=(f32[8,16],)
            @jax.jit
            def small(x):
                y = jnp.tanh(x) * 2.0
                y = jax.pure_callback(np.log1p, jax.ShapeDtypeStruct(y.shape, y.dtype), y)
                return jnp.exp(y) + x
            """,
            options={"min-bytes": 0},
            line=9,
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.compile.hlo import host_calls

        facts = ctx.facts
        m = facts.module
        for call in host_calls(m):  # a callback custom call, or the TPU's host transfers
            self._split(ctx, call.inst, call.inputs, call.results, "host callback")
        if self.opts["include-library-calls"]:
            for k in m.kernels():
                if self._library_call(k):
                    self._split(ctx, k, k.operands, (k,), f"custom call `{k.custom_call_target}`"
                                if k.opcode == "custom-call" else f"`{k.opcode}`")
        if facts.on_accelerator:
            self._single_op_fusions(ctx)

    @staticmethod
    def _library_call(k: Instruction) -> bool:
        if k.opcode == "custom-call":
            return (k.custom_call_target or "").startswith(("lapack_", "__cpu$lapack"))
        return k.opcode == "sort"

    def _split(self, ctx: CompileContext, k: Instruction, inputs, results, what: str) -> None:
        """``k`` (a callback or library call) between elementwise kernels: ``inputs`` what
        it reads, ``results`` the instructions whose users read what it gives back."""
        from jaxlint.compile.facts import lines_text

        facts = ctx.facts
        m = facts.module
        before = [p for p in (m.producer(op) for op in inputs) if p is not None and m.is_elementwise(p)]
        after = [c for r in results for c in m.consumers(r) if m.is_elementwise(c)]
        if not before or not after:
            return
        crossing = sum(p.shape.bytes for p in before) + sum(leaf.bytes for r in results for leaf in r.shape.leaves())
        if crossing < self.opts["min-bytes"]:
            return
        where = facts.user_location(k)
        prod = [loc for p in before for loc in facts.lines_of(p)]
        cons = [loc for c in after for loc in facts.lines_of(c)]
        msg = (f"{what} splits an elementwise chain that XLA would fuse: the kernel from "
               f"{lines_text(prod, facts)} and the one from {lines_text(cons, facts)} run separately, "
               f"and {human_bytes(crossing)} go to memory and back around the call")
        related = [ctx.related(loc, "producer kernel") for loc in prod[:3]] + [
            ctx.related(loc, "consumer kernel") for loc in cons[:3]]
        ctx.report(where, msg, related=related,
                   data={"bytes": crossing, "target": k.custom_call_target or k.opcode,
                         "producer_lines": [x.line for x in prod], "consumer_lines": [x.line for x in cons]},
                   key=kernel_key(k))

    def _single_op_fusions(self, ctx: CompileContext) -> None:
        """GPU/TPU: a one-op loop fusion whose only input is another loop fusion of the
        same shape that has no other user: XLA left two kernels where one would do."""
        from jaxlint.compile.facts import lines_text

        facts = ctx.facts
        m = facts.module
        for k in m.kernels():
            if k.opcode != "fusion" or k.fusion_kind != "kLoop" or not m.is_elementwise(k):
                continue
            work = [j for j in m.fused_instructions(k) if j.opcode not in ("parameter", "constant", "broadcast")]
            if len(work) != 1:
                continue
            srcs = [p for p in (m.producer(op) for op in k.operands)
                    if p is not None and p.opcode == "fusion" and m.is_elementwise(p)]
            for p in srcs:
                if p.shape.dims != k.shape.dims or len(m.consumers(p)) != 1 or p.shape.bytes < self.opts["min-bytes"]:
                    continue
                here = facts.lines_of(k)
                there = facts.lines_of(p)
                ctx.report(
                    facts.user_location(k),
                    f"single-op fusion ({work[0].opcode}) from {lines_text(here, facts)} runs as its own kernel "
                    f"after the fusion from {lines_text(there, facts)}; {human_bytes(p.shape.bytes)} are written "
                    f"and read back between them",
                    related=[ctx.related(loc, "producer kernel") for loc in there[:3]],
                    data={"bytes": p.shape.bytes, "opcode": work[0].opcode}, key=kernel_key(k))
