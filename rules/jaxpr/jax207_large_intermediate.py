from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis


class LargeIntermediate(TraceRule):
    """
    ## What it does
    Reports values in the traced program at least `max-bytes` large (default
    256 MiB), at the line that makes them, with shape, dtype and size. This is an
    upper bound: XLA may fuse the value away; the compile tier (`--compile`) reports
    what is really materialized: JAX304's finding, when it names this intermediate
    among the largest, replaces this one (one problem, one finding), and when no buffer
    of the compiled program that large is made at this line (XLA fused the value away),
    this upper bound is dropped. The function's output buffers do not count for an
    intermediate: `jnp.cos(x**2 + y**2) / (1 + x**2 + y**2)` on one line is one fusion that
    writes only the quotient, the output, as large as `x**2`.

    ## Why is this bad?
    Intermediates of this size dominate device memory and bandwidth. They usually
    come from broadcasting (`x[:, None] - y[None, :]` on long vectors), an outer
    product, or materializing a one-hot or attention matrix that a smarter
    formulation never builds.

    ## Example
    ```python
    # jaxlint: args=(f32[4000,64], f32[4000,64])
    @jax.jit
    def pairwise(x, y):
        return ((x[:, None] - y[None]) ** 2).sum(-1)   # a 3.8 GiB intermediate for a 61 MiB result
    ```

    ## Use instead
    ```python
    # jaxlint: args=(f32[4000,64], f32[4000,64])
    @jax.jit
    def pairwise(x, y):
        return (x**2).sum(-1)[:, None] + (y**2).sum(-1)[None] - 2 * x @ y.T
    ```

    ## Options

    ## References
    * [JAX: GPU memory allocation](https://docs.jax.dev/en/latest/gpu_memory_allocation.html)
    """

    code = "JAX207"
    group = "perf"
    name = "large-intermediate"
    summary = "the traced program builds a very large intermediate value"
    fix_hint = "reformulate to avoid materializing it (matmul instead of broadcast, chunking, scan)"
    options = {
        "max-bytes": Option(256 << 20, "report values of at least this many bytes", int, 1),
    }

    VALID = [
        Valid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[4096, 64], f32[4096, 64])
            def pairwise(x, y):
                return (x**2).sum(-1)[:, None] + (y**2).sum(-1)[None] - 2 * x @ y.T
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[4096, 64], f32[4096, 64])
            def pairwise(x, y):
                return ((x[:, None] - y[None]) ** 2).sum(-1)
            """,
            line=5,
            message="4.0 GiB",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        from jaxlint.dynamic import adapter
        from jaxlint.textutil import human_bytes

        if ctx.jaxpr is None:
            return
        limit = self.opts["max-bytes"]
        for eqn, aval, site in ctx.outputs_by_line(lambda a: adapter.nbytes(a) >= limit):
            size = adapter.nbytes(aval)
            output = any(ctx.is_output(v) for v in eqn.outvars if adapter.nbytes(adapter.aval_of(v)) >= limit)
            ctx.report(site, f"`{adapter.primitive_name(eqn)}` makes a {adapter.aval_str(aval)} value of "
                            f"{human_bytes(size)} (upper bound: XLA may fuse it away)",
                      data={"bytes": size, "shape": list(adapter.shape_of(aval)),
                            "dtype": adapter.dtype_name(aval), "primitive": adapter.primitive_name(eqn),
                            "output": output},
                      related=[ctx.definition()])
