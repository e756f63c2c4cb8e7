from __future__ import annotations

import re
from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis

WIDE_FLOATS = ("float64", "complex128")
WIDE_INTS = ("int64", "uint64")
#: a cast to a 64-bit float spelled out in the source: `.astype(jnp.float64)`,
#: `lax.convert_element_type(x, np.float64)`, `jnp.asarray(x, dtype="float64")`
EXPLICIT_CAST = re.compile(r"""(?:\.astype\(|convert_element_type\(|\b(?:as)?array\([^#]*?dtype\s*=)[^)#]*?"""
                           r"""\b(?:float64|f64|complex128|c128|double)\b""")
#: floats a 64-bit program still keeps narrow on purpose (made so by an explicit dtype)
NARROW_FLOATS = ("float32", "bfloat16", "float16", "complex64")


class Float64Op(TraceRule):
    """
    ## What it does
    With `jax_enable_x64` on (the project's own setting, or `[tool.jaxlint.dynamic]
    x64 = true`), finds operations of the traced program that produce 64-bit values:
    `float64`/`complex128` always, `int64`/`uint64` arrays when `int64` is on. One
    finding per source line, at the line that made the value.

    A program that turns x64 on itself has made float64 its policy (a simulation that
    minimises to a force of 1e-12, which float32 cannot reach): its code calls
    `jax.config.update("jax_enable_x64", True)` or sets `JAX_ENABLE_X64` (the traced
    module, the recorded program's main script, or a package `__init__.py`, `conftest.py`,
    configuration module or configuration file of the project, as JAX112 reads them), or
    the recorded program ran with `JAX_ENABLE_X64` on in its environment, or, in a
    recording where neither does, a library the program imported turns it on (netket does
    when imported, as its documented default: a module outside jax whose code sets
    `jax_enable_x64` to `True`, named in the message). There its
    64-bit values are not reported, only a narrow float array of its own made wide: a
    `float32` (or `bfloat16`, `float16`, `complex64`) array that a 64-bit numpy constant
    or default dtype turns into `float64` (the message names where the program turns x64
    on). A narrow scalar meeting the program's float64 arrays (a library's own
    `f32(0.5)` constant in jax-md's energies, a float32 loss) widens nothing in bulk and
    loses nothing, and a narrow value a library made (its float32 mask) is no slip of
    the program's: neither is reported. A cast
    that names the 64-bit type on its line (`x.astype(jnp.float64)`,
    `jnp.asarray(x, dtype=jnp.float64)`) is asked for, and not reported there either.
    That holds on TPU too, where float64 is emulated and slow: the program needs the
    precision, and float32 advice would break it; `report-x64-programs` reports every
    64-bit value anyway. x64 turned on by jaxlint's own `x64 = true` is not the
    program's choice: every 64-bit value is reported.

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
    #: off by default by its blind figure: 0 true of 18 blind findings (the twelfth dynamic
    #: judgement took it past 10; benchmarks/dynamic_programs.md, docs/precision.md)
    group = "pedantic"
    name = "float64-op"
    summary = "the traced program computes in 64 bits"
    fix_hint = "keep arrays float32 (or bfloat16): pass dtype= explicitly and convert numpy inputs"
    supersedes = ("JAX112",)
    options = {
        "int64": Option(True, "also report int64/uint64 arrays (scalars are ignored)", bool),
        "report-x64-programs": Option(False, "also report the 64-bit values of a program that turns x64 on itself "
                                             "(its float64 is its policy; on TPU it is emulated)", bool),
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
        # the module turns x64 on itself: its float64 forces are its policy (a minimiser's
        # 1e-12 threshold needs them), and nothing narrow is made wide
        Valid(
            """
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)

            @jax.jit  # jaxlint: args=(f64[128,3],)
            def max_force(force):
                return jnp.amax(jnp.abs(force))
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

        policy = None if self.opts["report-x64-programs"] else ctx.x64_policy
        if policy is None:
            for eqn, aval, site in ctx.outputs_by_line(is_wide):
                ctx.report(site, f"`{adapter.primitive_name(eqn)}` produces {adapter.aval_str(aval)}: 64-bit "
                                f"math is slow on accelerators; use float32 (or pass dtype= explicitly)",
                          data={"dtype": adapter.dtype_name(aval), "shape": list(adapter.shape_of(aval)),
                                "primitive": adapter.primitive_name(eqn)})
            return

        # the program computes in 64 bits on purpose: only a narrow array of its own made wide
        # is a slip. A narrow scalar meeting its float64 arrays (a library's `f32(0.5)`
        # constant, a float32 loss) widens nothing in bulk and loses nothing; a value a
        # library made narrow is no choice of the program's; a call (jit, custom_jvp) only
        # passes its operands on, and what widens inside is seen there
        producer = {id(o): e for e, _ in ctx.equations() for o in e.outvars}

        def own_narrow(v) -> bool:
            if adapter.is_literal(v) or adapter.dtype_name(adapter.aval_of(v)) not in NARROW_FLOATS:
                return False
            if adapter.nbytes(adapter.aval_of(v)) <= adapter.itemsize(adapter.aval_of(v)):
                return False  # a scalar (or one element)
            made = producer.get(id(v))
            return made is None or not adapter.made_in_library(made.source_info)

        def narrow_input(eqn):
            return next((adapter.aval_of(v) for v in eqn.invars if own_narrow(v)), None)

        def widens(eqn) -> bool:
            return not adapter.sub_jaxprs(eqn) and narrow_input(eqn) is not None

        for eqn, aval, site in ctx.outputs_by_line(lambda a: adapter.dtype_name(a) in WIDE_FLOATS, widens):
            if EXPLICIT_CAST.search(ctx.line_text(site)):
                continue  # `x.astype(jnp.float64)`: the program asks for 64 bits here by name
            narrow = narrow_input(eqn)
            ctx.report(site, f"`{adapter.primitive_name(eqn)}` widens {adapter.aval_str(narrow)} to "
                            f"{adapter.aval_str(aval)}: the program computes in 64 bits on purpose ({policy}), "
                            f"but this value was {adapter.dtype_name(narrow)} until here (a 64-bit numpy "
                            f"array, constant or default dtype beside it); if it needs no 64 bits, "
                            f"keep it {adapter.dtype_name(narrow)} (pass dtype= explicitly, convert the other "
                            f"operand)",
                      data={"dtype": adapter.dtype_name(aval), "shape": list(adapter.shape_of(aval)),
                            "primitive": adapter.primitive_name(eqn), "from": adapter.dtype_name(narrow),
                            "policy": policy})
