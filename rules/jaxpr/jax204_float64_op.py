from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis

WIDE_FLOATS = ("float64", "complex128")
WIDE_INTS = ("int64", "uint64")


class Float64Op(TraceRule):
    """
    ## What it does
    With `jax_enable_x64` on (the project's own setting, or `[tool.jaxlint.dynamic]
    x64 = true`), finds operations of the traced program that produce 64-bit values:
    `float64`/`complex128` always, `int64`/`uint64` arrays when `int64` is on. One
    finding per source line, at the line that made the value.

    This is the measured version of JAX112 (float64); where both fire on one line
    only this one is reported.

    ## Why is this bad?
    64-bit floating point is many times slower than 32-bit on GPUs (and emulated on
    TPUs), and doubles memory traffic everywhere. It usually creeps in through a
    `float64` numpy array or a Python default, not by choice.

    ## Example
    ```python
    jax.config.update("jax_enable_x64", True)

    # jaxlint: args=(f32[128],)
    @jax.jit
    def f(x):
        return x * np.linspace(0, 1, 128)   # float64
    ```

    ## Use instead
    ```python
    # jaxlint: args=(f32[128],)
    @jax.jit
    def f(x):
        return x * jnp.linspace(0, 1, 128, dtype=x.dtype)
    ```

    ## Options

    ## References
    * [JAX: double (64-bit) precision](https://docs.jax.dev/en/latest/default_dtypes.html)
    """

    code = "JAX204"
    group = "perf"
    name = "float64-op"
    summary = "the traced program computes in 64 bits"
    fix_hint = "keep arrays float32 (or bfloat16): pass dtype= explicitly and convert numpy inputs"
    supersedes = ("JAX112",)
    options = {
        "int64": Option(True, "also report int64/uint64 arrays (scalars are ignored)", bool),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[128],)
            def f(x):
                return x * jnp.linspace(0, 1, 128, dtype=x.dtype)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import numpy as np
            jax.config.update("jax_enable_x64", True)

            @jax.jit  # jaxlint: args=(f32[128],)
            def f(x):
                return x * np.linspace(0, 1, 128)
            """,
            line=7,
            message="float64",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        from jaxlint.dynamic import adapter

        wide = WIDE_FLOATS + (WIDE_INTS if self.opts["int64"] else ())

        def is_wide(aval) -> bool:
            dt = adapter.dtype_name(aval)
            return dt in WIDE_FLOATS or (dt in wide and bool(adapter.shape_of(aval)))

        for eqn, aval, site in ctx.outputs_by_line(is_wide):
            ctx.report(site, f"`{adapter.primitive_name(eqn)}` produces {adapter.aval_str(aval)}: 64-bit "
                            f"math is slow on accelerators; use float32 (or pass dtype= explicitly)",
                      data={"dtype": adapter.dtype_name(aval), "shape": list(adapter.shape_of(aval)),
                            "primitive": adapter.primitive_name(eqn)})
