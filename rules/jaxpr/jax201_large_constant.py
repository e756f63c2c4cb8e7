from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, Option, TraceRule, Valid

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import FunctionAnalysis


class LargeConstant(TraceRule):
    """
    ## What it does
    Finds arrays baked into the traced program as constants: arrays a jitted function
    closes over, reads from a global or binds with `functools.partial` (and, with
    `JAX_USE_SIMPLIFIED_JAXPR_CONSTANTS`, large literals), at every nesting level, that
    are at least `max-bytes` large. It reports where the traced code takes hold of
    the array's name: the outermost line that reads it (a lambda's `foo(y, W)`, not the
    line inside `foo`; `model(x)` in the jitted function when the module-level `model`
    holds the array as `model.w`, not the layer's `__call__` or the method that reads
    `self.w`; the helper's `x + W` when `W` is the helper's own global; `get_batch(key,
    train_data)` when a nested jitted function reads the global as its parameter), or the
    `jax.jit(partial(apply, params))` that binds it, with its variable name
    (`params['w1']`, `model.w`) when it can be recovered, its size, shape and dtype;
    where the name is assigned, where the array is read and the jitted function's line
    that calls the helper are related locations. Splat constants (all elements equal) cost almost nothing and
    are reported as information only.

    This is the measured version of JAX101 (captured-array): where both fire on one
    line only this one is reported.

    ## Why is this bad?
    A captured array is not an input of the compiled program but part of it: it is
    copied into the program, serialized into StableHLO text, and may be
    constant-folded by XLA. A 100 MB closure costs seconds of compile time and
    hundreds of MB of memory; the same array passed as an argument costs nothing extra.
    The program also has to be recompiled whenever the array changes.

    ## Example
    ```python
    W = np.random.randn(1024, 1024).astype(np.float32)

    # jaxlint: args=(f32[8,1024],)
    @jax.jit
    def predict(x):
        return x @ W
    ```

    ## Use instead
    ```python
    # jaxlint: args=(f32[1024,1024], f32[8,1024])
    @jax.jit
    def predict(W, x):
        return x @ W
    ```

    ## Options

    ## References
    * [JAX FAQ: closures and constants](https://docs.jax.dev/en/latest/faq.html)
    * [JAX: stages (trace, lower, compile)](https://docs.jax.dev/en/latest/aot.html)
    """

    code = "JAX201"
    group = "perf"
    name = "large-constant"
    summary = "a large array is baked into the traced program as a constant"
    fix_hint = "pass the array as an argument of the jitted function instead of closing over it"
    supersedes = ("JAX101",)
    # every constant of the program is looked at: a captured array it does not report is
    # not baked in above the threshold (a NumPy slice, a host-side `.sum()`)
    measures_all = True
    constant_finding = True
    trace_fact = "baked"  # a slow compile whose removable cause is these constants joins this finding
    options = {
        "max-bytes": Option(1 << 20, "constants of at least this many bytes are reported", int, 1),
    }

    VALID = [
        Valid(
            """
            import jax
            import numpy as np

            W = np.random.rand(1024, 1024).astype(np.float32)

            @jax.jit  # jaxlint: args=(f32[1024, 1024], f32[8, 1024])
            def predict(w, x):
                return x @ w
            """
        ),
        Valid(
            """
            import jax
            import numpy as np

            SMALL = np.arange(16, dtype=np.float32)

            @jax.jit  # jaxlint: args=(f32[16],)
            def f(x):
                return x * SMALL
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import numpy as np

            W = np.random.rand(1024, 1024).astype(np.float32)

            @jax.jit  # jaxlint: args=(f32[8, 1024],)
            def predict(x):
                return x @ W
            """,
            line=8,
            message="`W` (float32[1024,1024], 4.0 MiB)",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp
            import numpy as np

            TABLE = np.random.rand(512, 1024).astype(np.float32)

            def body(c, _):
                return c + jnp.sum(TABLE * c), None

            @jax.jit  # jaxlint: args=(f32[],)
            def f(c):
                return jax.lax.scan(body, c, None, length=4)[0]
            """,
            line=8,
            message="`TABLE`",
        ),
    ]

    def check(self, ctx: FunctionAnalysis) -> None:
        from jaxlint.dynamic import adapter
        from jaxlint.textutil import human_bytes

        if ctx.jaxpr is None:
            return
        limit = self.opts["max-bytes"]
        seen: set[int] = set()
        for var, value, level in adapter.constant_inputs(ctx.jaxpr):
            aval = adapter.aval_of(var)
            size = adapter.nbytes(aval)
            if size < limit or id(value) in seen:
                continue
            seen.add(id(value))
            consumers = ctx.consumers(var, level.jaxpr)
            sites = ctx.sites(consumers)
            ctx.consumer_frames(consumers)
            name, capture, defined = ctx.capture_of(value, sites)
            if name is not None and capture is None:
                # a nested jit traced on its own reads it as its parameter (`get_batch(key,
                # train_data)`, whose body reads `data`): taken hold of where this level passes it
                ctx.consumer_frames([e for e in level.jaxpr.eqns if any(v is var for v in e.invars)])
                _, capture, passed = ctx.capture_of(value, sites)
                defined = defined or passed
            use = sites[0] if sites else None
            site = capture or use or ctx.def_site()
            arr = adapter.const_array(value)
            splat = bool(arr is not None and arr.size and (arr == arr.flat[0]).all())
            what = f"captured array `{name}`" if name else "a captured constant"
            msg = (f"{what} ({adapter.aval_str(aval)}, {human_bytes(size)}) is baked into the compiled "
                   f"program as a constant; pass it as an argument")
            if splat:
                msg += " (it is a splat of one value, so it costs little)"
            related = []
            if defined is not None and (defined.path, defined.start.line) != (site.path, site.line):
                related.append(defined)
            related += [s.related(f"`{name}` is read here" if name else "the constant is used here")
                        for s in sites[:5] if (s.path, s.line) != (site.path, site.line)]
            own = ctx.own_line_of_consumer() if capture is not None else None
            if own is not None and all((own.path, own.line) != (p, r) for p, r in
                                       [(site.path, site.line), *((x.path, x.start.line) for x in related)]):
                # a helper (or a callee) reads it: the jitted function's line that calls there
                related.append(own.related(f"`{ctx.qualname.rsplit('.', 1)[-1]}` reaches it here"))
            ctx.report(
                site, msg,
                severity=Severity.INFO if splat else None,
                related=related,
                data={"bytes": size, "shape": list(adapter.shape_of(aval)), "dtype": adapter.dtype_name(aval),
                      "name": name, "splat": splat},
            )
