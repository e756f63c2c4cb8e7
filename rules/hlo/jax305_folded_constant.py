from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext


class FoldedConstant(HloRule):
    """
    ## What it does
    Finds large constants in the optimized HLO, including the ones XLA produced by
    constant folding (e.g. `jnp.zeros(big).at[i].set(v)`, or `jnp.asarray(W) * 2 + 1`
    of a captured array), and reports them at the operation that builds them (a folded
    constant keeps its operation's source line), else at the line that uses them; the
    uses and the function's definition are related locations.
    Constants the trace tier already reported as captured arrays (JAX201) are not
    reported again.

    ## Why is this bad?
    A constant is stored in the executable and folded at compile time: XLA evaluates
    the expression on the host, one element at a time, which can take seconds and a
    GiB of memory for a 100 MB array, and the result is recompiled into every new
    executable.

    ## Example
    ```python
    W = np.random.randn(1024, 1024).astype(np.float32)

    @jax.jit
    def f(x):
        return x @ (jnp.asarray(W) * 2 + 1)
    ```

    ## Use instead
    ```python
    @jax.jit
    def f(x, W):
        return x @ (W * 2 + 1)
    ```

    ## Options

    ## References
    * [JAX sharp bits](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions)
    """

    code = "JAX305"
    group = "perf"
    name = "folded-constant"
    supersedes = ("JAX209",)  # the trace tier's prediction of this fold (same shape and dtype)
    summary = "a large constant is embedded in the optimized program"
    fix_hint = "pass the array (or what it is computed from) as an argument"
    options = {
        "max-bytes": Option(1 << 20, "report constants of at least this many bytes", int, 0),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[256,1024], f32[1024,1024])
            @jax.jit
            def f(x, w):
                return x @ (w * 2 + 1)
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[256,1024],)
            @jax.jit
            def f(x):
                return x @ jnp.ones((1024, 1024))
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[256,1024],)
            @jax.jit
            def f(x):
                mask = jnp.zeros((1024, 1024)).at[0, 0].set(1.0)
                return x @ mask
            """,
            line=7,
            message="4.0 MiB constant (f32[1024,1024]) built at line 7 and used at line 8",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.compile.facts import lines_text, loc_text

        facts = ctx.facts
        m = facts.module
        known = {(tuple(c.get("shape", ())), str(c.get("dtype", ""))) for c in facts.trace.get("constants", ())}
        for c in m.constants():
            size = c.shape.bytes
            if size < self.opts["max-bytes"] or c.shape.is_tuple:
                continue
            if self._known(c, known):
                continue
            users = m.consumers(c)
            locs = list(dict.fromkeys(loc for u in users for loc in facts.lines_of(u)))
            # at the operation that builds it (a folded constant keeps that operation's
            # metadata), else at its first use; its uses and the definition related
            made = facts.user_location(c)
            where = made or (locs[0] if locs else None)
            related = [ctx.related(loc, "used here") for loc in locs
                       if (loc.file, loc.line) != (where.file, where.line)][:3] if where is not None else []
            if where is not None:
                related.append(ctx.related(*facts.definition()))
            ctx.report(
                where,
                f"the optimized program embeds a {human_bytes(size)} constant ({c.shape})"
                + (f" built at {loc_text(made, facts)} and" if made is not None else "")
                + f" used at {lines_text(locs, facts)}; XLA computes it at compile time and stores it in "
                f"the executable",
                related=related,
                data={"bytes": size, "shape": list(c.shape.dims), "dtype": c.shape.dtype}, key=f"constant:{c.shape}")

    @classmethod
    def same_problem(cls, mine, other) -> bool:
        """The fold the trace tier predicted: the same shape and dtype, wherever the
        prediction points (it names the computation, this finding the use)."""
        from jaxlint.compile.facts import HLO_DTYPES

        data = other.data or {}
        return (list(data.get("shape") or ()) == list((mine.data or {}).get("shape", ()))
                and _same_dtype(HLO_DTYPES.get(str(data.get("dtype")), data.get("dtype")), (mine.data or {}).get("dtype")))

    @classmethod
    def refutes(cls, prediction, measured) -> bool:
        """The trace tier's predicted fold is refuted when the optimized program holds no
        constant of its shape and dtype at all (XLA does not fold a broadcast, and keeps
        some big folds as computations): the compiled program shows no fold."""
        from jaxlint.compile.facts import HLO_DTYPES

        facts = getattr(measured, "compile_facts", None)
        data = prediction.data or {}
        if facts is None or "shape" not in data:
            return False
        shape = tuple(data.get("shape") or ())
        dtype = HLO_DTYPES.get(str(data.get("dtype")), data.get("dtype"))
        return not any(tuple(c.shape.dims) == shape and _same_dtype(dtype, c.shape.dtype)
                       for c in facts.module.constants() if not c.shape.is_tuple)

    @staticmethod
    def _known(c, known: set) -> bool:
        from jaxlint.compile.facts import HLO_DTYPES

        return any(shape == c.shape.dims and _same_dtype(HLO_DTYPES.get(dtype, dtype), c.shape.dtype)
                   for shape, dtype in known)


def _same_dtype(traced, compiled) -> bool:
    """The trace's dtype of a constant and the program's: the same, or the TPU's bf16 of
    a float32 constant (it folds the conversion of a matrix product's operand under the
    default precision into the constant)."""
    return traced == compiled or (traced == "f32" and compiled == "bf16")
