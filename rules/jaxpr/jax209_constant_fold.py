from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jaxlint.rule import Invalid, Option, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis

#: Primitives whose folding costs real compile time (arithmetic over every element,
#: contractions, transforms, scatters). A constant chain without one of them (data
#: movement, comparisons, selects: causal masks, ``jnp.eye``) stays quiet: XLA folds or
#: simplifies those cheaply, and they are common idioms.
HEAVY = frozenset({
    "dot_general", "conv_general_dilated", "fft", "scatter", "scatter-add", "scatter_add", "scatter_mul",
    "scatter_min", "scatter_max", "gather", "dynamic_update_slice", "sort", "cumsum", "cumprod", "cummax",
    "cummin", "cumlogsumexp", "exp", "exp2", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh",
    "logistic", "pow", "sqrt", "rsqrt", "cbrt", "erf", "erf_inv", "lgamma", "digamma", "atan2",
    "triangular_solve", "cholesky", "eig", "eigh", "lu", "qr", "svd", "random_bits", "threefry2x32",
    "rng_bit_generator",
})


class ConstantFold(TraceRule):
    """
    ## What it does
    Finds large arrays (at least `max-bytes`) that the traced program computes
    entirely from constants: `jnp.ones(big).at[0].set(1)`, an FFT or a matmul of a
    captured array, `jnp.arange(n) ** 2` with a big static `n`. It reports the line
    that produces the value where it meets the function's real inputs. When the function
    is compiled (`--compile`), the compile tier's JAX305 replaces the prediction with the
    constant it finds in the optimized program, and a prediction the compiled program
    refutes (no constant of that shape and dtype: XLA does not fold a broadcast) is
    dropped. Constant chains
    of only data movement, comparisons and selects (`jnp.zeros(n)`, causal masks,
    `jnp.eye(n)`) are not reported: XLA folds or simplifies those cheaply.

    ## Why is this bad?
    XLA evaluates constant subexpressions at compile time and embeds the result in the
    executable. For big arrays that is slow: a captured 100 MB array of random floats,
    scaled inside the function, took about 5 s and 700 MiB more memory to compile on jax
    0.10.2 (about 1 s and 840 MiB on jax 0.4.38), against 0.04 s for the same computation
    on an argument (CPU, `benchmarks/bench_claims.py`); and the result is stored in the
    program instead of being computed once.

    ## Example
    ```python
    # jaxlint: args=(f32[4096,4096],)
    @jax.jit
    def f(x):
        mask = jnp.ones((4096, 4096)).at[:, 0].set(0.0)
        return x * mask
    ```

    ## Use instead
    Compute the constant once outside and pass it in, or build it from the inputs:
    ```python
    MASK = jnp.ones((4096, 4096)).at[:, 0].set(0.0)   # computed once, eagerly

    # jaxlint: args=(f32[4096,4096], f32[4096,4096])
    @jax.jit
    def f(x, mask):
        return x * mask
    ```

    ## Options

    ## References
    * [XLA: constant folding](https://openxla.org/xla/operation_semantics)
    """

    code = "JAX209"
    group = "perf"
    name = "constant-fold"
    summary = "a large array is computed from constants only, so XLA folds it at compile time"
    fix_hint = "compute the array once outside the jitted function and pass it as an argument"
    constant_finding = True
    options = {
        "max-bytes": Option(1 << 20, "report constant-only values of at least this many bytes", int, 1),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[1024, 1024],)
            def f(x):
                causal = jnp.tril(jnp.ones((1024, 1024), bool))
                return jnp.where(causal, x, 0.0) + jnp.eye(1024) + jnp.ones((1024, 1024))
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[1024, 1024], f32[1024, 1024])
            def f(x, mask):
                return x * mask.at[:, 0].set(0.0)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit  # jaxlint: args=(f32[1024, 1024],)
            def f(x):
                mask = jnp.ones((1024, 1024)).at[:, 0].set(0.0)
                return x * mask
            """,
            line=6,
            message="4.0 MiB",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        from jaxlint.dynamic import adapter
        from jaxlint.textutil import human_bytes

        if ctx.jaxpr is None:
            return
        limit = self.opts["max-bytes"]
        seen: set[tuple[str, int]] = set()
        for level in ctx.levels():
            jaxpr = level.jaxpr
            const = {id(v) for v in jaxpr.constvars}
            costly: set[int] = set()
            producer: dict[int, Any] = {}
            for eqn in jaxpr.eqns:
                ins = [v for v in eqn.invars]
                if adapter.sub_jaxprs(eqn) or adapter.primitive_name(eqn) in adapter.CALLBACK_PRIMITIVES:
                    continue  # calls and loops: not folded as a whole
                if all(adapter.is_literal(v) or id(v) in const for v in ins):
                    heavy = adapter.primitive_name(eqn) in HEAVY or any(id(v) in costly for v in ins)
                    for o in eqn.outvars:
                        const.add(id(o))
                        producer[id(o)] = eqn
                        if heavy:
                            costly.add(id(o))
            frontier: list[Any] = []
            for eqn in jaxpr.eqns:
                if all(adapter.is_literal(v) or id(v) in const for v in eqn.invars) and not (
                        adapter.sub_jaxprs(eqn)):
                    continue
                frontier.extend(v for v in eqn.invars if not adapter.is_literal(v) and id(v) in costly)
            frontier.extend(v for v in jaxpr.outvars if not adapter.is_literal(v) and id(v) in costly)
            for v in frontier:
                size = adapter.nbytes(adapter.aval_of(v))
                made_by = producer.get(id(v))
                if size < limit or made_by is None:
                    continue
                site = ctx.site(made_by, level)
                if site is None or (site.path, site.line) in seen:
                    continue
                seen.add((site.path, site.line))
                aval = adapter.aval_of(v)
                ctx.report(site, f"{adapter.aval_str(aval)} ({human_bytes(size)}) is computed from constants only "
                                f"(`{adapter.primitive_name(made_by)}`): the same array on every call, which XLA may fold "
                                f"into the executable at compile time (`--compile` shows whether it does)",
                          data={"bytes": size, "shape": list(adapter.shape_of(aval)), "dtype": adapter.dtype_name(aval),
                                "primitive": adapter.primitive_name(made_by)},
                          related=[ctx.definition()])
