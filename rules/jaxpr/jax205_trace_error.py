from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis

#: exception class name (or message fragment) -> what to do instead
HINTS = (
    ("TracerBoolConversionError", "Python `if`/`while`/`and` needs a concrete bool: use jnp.where or "
                                  "jax.lax.cond, or make the argument static"),
    ("TracerIntegerConversionError", "a traced value was used as a Python int (an index, a size or "
                                     "`range`): make the argument static or use jax.lax.dynamic_slice"),
    ("TracerArrayConversionError", "numpy cannot run on a traced value: use jax.numpy"),
    ("NonConcreteBooleanIndexError", "a boolean mask gives a data-dependent shape: use "
                                     "jnp.where(mask, x, 0) or a `where=` reduction"),
    ("ConcretizationTypeError", "a concrete value was needed from a traced one: mark the argument "
                                "static (static_argnums) or use jax.lax control flow"),
    ("UnexpectedTracerError", "a tracer escaped its transformation (stored in a global or an object)"),
    ("immutable", "JAX arrays are immutable: write `x = x.at[i].set(v)`"),
    ("Shapes must be 1D sequences of concrete values", "a shape depends on a traced value: make it static"),
    ("static start/stop/step", "slice bounds must be static: use jax.lax.dynamic_slice with a static "
                               "size, or make the bound a static argument"),
    ("Slice entries must be static", "slice bounds must be static: use jax.lax.dynamic_slice with a static "
                                     "size, or make the bound a static argument"),
)


class TraceError(TraceRule):
    """
    ## What it does
    Reports a jitted function that fails to trace with its inputs: a Python `if` on a
    traced value, a traced value used as a Python int or as a shape, numpy called on a
    tracer, a boolean-mask index, in-place assignment `x[i] = v`, a leaked tracer. The
    finding sits at your line where the error was raised, with the exception's
    essence and what to do instead; jaxlint never crashes on it.

    ## Why is this bad?
    The function cannot run under `jit` at all with such inputs; the error would
    surface at the first call, often far from the code that caused it.

    ## Example
    ```python
    # jaxlint: args=(f32[],)
    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0
    ```

    ## Use instead
    ```python
    # jaxlint: args=(f32[],)
    @jax.jit
    def relu(x):
        return jnp.where(x > 0, x, 0.0)
    ```

    ## Options

    ## References
    * [JAX: common errors](https://docs.jax.dev/en/latest/errors.html)
    * [JAX: the sharp bits](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html)
    """

    code = "JAX205"
    group = "correctness"
    means_trace_failed = True
    name = "trace-error"
    summary = "the jitted function fails to trace"
    fix_hint = "use jax.numpy / jax.lax control flow on traced values, or make the argument static"
    severity = Severity.ERROR
    #: numpy-on-tracer, traced-control-flow, data-dependent-shape: the static guesses of
    #: the errors this rule observes
    supersedes = ("JAX104", "JAX105", "JAX111")

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[4],)
            def relu(x):
                return jnp.where(x > 0, x, 0.0)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[],)
            def relu(x):
                if x > 0:
                    return x
                return 0.0
            """,
            line=5,
            message="TracerBoolConversionError",
        ),
        Invalid(
            """
            import jax

            @jax.jit  # jaxlint: args=(f32[4],)
            def set_first(x):
                x[0] = 1.0
                return x
            """,
            line=5,
            message="x = x.at[i].set(v)",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        import traceback

        from jaxlint.dynamic.analysis import Site

        e = ctx.error
        if e is None:
            return
        frames = traceback.extract_tb(e.__traceback__)
        site = None
        for fr in reversed(frames):
            if fr.filename and _same(fr.filename, ctx.path):
                col = (getattr(fr, "colno", None) or 0) + 1
                end = getattr(fr, "end_colno", None)
                site = Site(ctx.path, fr.lineno or 1, col, getattr(fr, "end_lineno", None) or fr.lineno,
                            (end + 1) if end is not None else col)
                break
        text = str(e).strip().splitlines()
        first = text[0] if text else ""
        kind = type(e).__name__
        hint = next((h for key, h in HINTS if key in kind or key in first), None)
        msg = f"tracing `{ctx.qualname}` fails with {kind}: {first[:200].rstrip('.')}"
        if hint:
            msg += f"; {hint}"
        ctx.report(site or ctx.def_site(), msg, data={"exception": kind})


def _same(a: str, b: str) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
