from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Valid
from jaxlint.rules.hlo._base import HloRule

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext
    from jaxlint.compile.hlo import Instruction

#: the operand precisions that give a float32 product on a TPU its float32 accuracy
#: (3 or 6 bfloat16 passes); DEFAULT (printed as nothing) is one bfloat16 pass
_FULL = ("high", "highest")


class TpuMatmulPrecision(HloRule):
    """
    ## What it does
    Finds float32 matrix products (`@`, `jnp.dot`, `einsum`, `lax.dot_general`, and
    convolutions) that a TPU computes in a single bfloat16 pass: under the default
    precision the chip rounds a float32 product's operands to bfloat16 (8 bits of
    mantissa) and accumulates in float32, where the CPU and most GPUs compute in float32.
    It reads the program compiled for a TPU (a target, `--target v5e:1x1`, or a TPU
    host): a `dot` or `convolution` with float32 operands and no `operand_precision`
    of `high` or `highest` (operands that are float32 arguments the compiler rounded to
    bfloat16 first, as a TPU does to the weights an FSDP step gathers, count too), one
    finding per line, with the products at it and their shapes. Off by default: for
    training a network the bfloat16 pass is what makes a TPU fast, and intended; select it where the results must match the CPU's (simulations,
    solvers, statistics, evaluation, tests that compare with NumPy).

    ## Why is this bad?
    The same function gives other numbers on the TPU than on the CPU, with relative
    errors of about 1e-3 instead of 1e-7: "TPU cannot do simple arithmetic!"
    (jax-ml/jax#9973), a concatenated `dot_general` that differs from the whole one
    (jax-ml/jax#16349), models whose TPU results do not match their GPU ones
    (jax-ml/jax#10413). Nothing warns: the program is compiled as asked.

    ## Example
    ```python
    @jax.jit
    def covariance(x):  # x: f32[4096, 512]
        xc = x - x.mean(0)
        return xc.T @ xc / x.shape[0]  # one bfloat16 pass on a TPU
    ```

    ## Use instead
    ```python
    @jax.jit
    def covariance(x):
        xc = x - x.mean(0)
        return jnp.matmul(xc.T, xc, precision="highest") / x.shape[0]
    ```
    Or `precision="high"` (3 passes, about float32's accuracy for most data), or for a
    whole program `with jax.default_matmul_precision("float32"):` (or the
    `JAX_DEFAULT_MATMUL_PRECISION` environment variable); or cast the operands to
    bfloat16 yourself where one pass is what you want, so the code says so.

    ## Options

    ## References
    * [jax.lax.Precision](https://docs.jax.dev/en/latest/_autosummary/jax.lax.Precision.html)
    * [jax.default_matmul_precision](https://docs.jax.dev/en/latest/_autosummary/jax.default_matmul_precision.html)
    * [jax-ml/jax#2161: default matmul precision on TPU](https://github.com/jax-ml/jax/issues/2161)
    """

    code = "JAX317"
    group = "pedantic"
    name = "tpu-matmul-precision"
    summary = "a float32 matrix product runs in one bfloat16 pass on the TPU (default precision)"
    fix_hint = "pass precision='highest' (or 'high'), or use jax.default_matmul_precision('float32')"
    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[4096,512],)
            @jax.jit
            def covariance(x):
                xc = x - x.mean(0)
                return jnp.matmul(xc.T, xc, precision="highest") / x.shape[0]
            """,
        ),
        # bfloat16 operands: the one pass is what the code asks for
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(bf16[4096,512],)
            @jax.jit
            def covariance(x):
                xc = x - x.mean(0)
                return jnp.matmul(xc.T, xc, preferred_element_type=jnp.float32) / x.shape[0]
            """,
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[4096,512],)
            @jax.jit
            def covariance(x):
                xc = x - x.mean(0)
                return xc.T @ xc / x.shape[0]
            """,
            line=8,
            message="float32 matrix product f32[4096,512] x f32[4096,512] runs in one bfloat16 pass on the TPU",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        facts = ctx.facts
        if facts.platform != "tpu":
            return
        m = facts.module
        by_line: dict[tuple, list[Instruction]] = {}
        for c in m.computations.values():
            for inst in c.instructions:
                if inst.opcode in ("dot", "convolution") and self._one_bf16_pass(m, inst):
                    loc = facts.user_location(inst)
                    by_line.setdefault((loc.file, loc.line) if loc else ("", 0), []).append(inst)
        for products in by_line.values():
            first = products[0]
            where = facts.user_location(first)
            # (an operand the compiler already rounded shows as bf16 in the program: the code's is float32)
            shapes = " x ".join(f"f32[{','.join(map(str, m.instructions[o].shape.dims))}]"
                                for o in first.operands[:2] if o in m.instructions)
            more = f" (and {len(products) - 1} more product{'s' if len(products) > 2 else ''} of this line)" \
                if len(products) > 1 else ""
            ctx.report(
                where,
                f"float32 matrix product {shapes} runs in one bfloat16 pass on the TPU{more}: under the default "
                f"precision its operands are rounded to bfloat16 (relative errors near 1e-3; the CPU computes in "
                f"float32); pass precision='highest' (or 'high'), or set jax.default_matmul_precision('float32'), "
                f"if the result must be float32's",
                data={"products": len(products), "shapes": shapes},
                key=f"precision:{first.metadata.get('op_name', first.name)}")

    @classmethod
    def _one_bf16_pass(cls, m, inst: Instruction) -> bool:
        """Float32 operands under the default precision (no ``operand_precision``, or
        ``default`` for one of them): as the program was written, or float32 arguments
        the compiler already rounded to bfloat16 (a ``convert`` of an argument with no
        metadata of its own: the user's ``astype`` carries its ``convert_element_type``),
        which the TPU does to a weight before it gathers it (FSDP)."""
        if inst.shape.dtype != "f32" or len(inst.operands) < 2:
            return False
        if not all(cls._float32_operand(m, o) for o in inst.operands[:2]):
            return False
        given = [p.strip() for p in inst.attrs.get("operand_precision", "").strip("{}").split(",") if p.strip()]
        return not given or any(p not in _FULL for p in given)

    @staticmethod
    def _float32_operand(m, name: str) -> bool:
        """A float32 value, or one the compiler rounded to bfloat16 on its way here
        (through fused parameters, bitcasts, copies, memory moves and collectives)."""
        inst = m.instructions.get(name)
        for _ in range(32):
            if inst is None:
                return False
            if inst.shape.dtype == "f32":
                return True
            if inst.opcode == "convert":  # the compiler's rounding of a float32 argument
                src = m.producer(inst.operands[0]) if inst.operands else None
                return (src is not None and src.shape.dtype == "f32" and "op_name" not in inst.metadata
                        and src.opcode == "parameter" and src.computation == m.entry.name)
            if inst.opcode == "parameter":  # of a fusion: the fusion's operand
                caller = m.caller_of.get(inst.computation)
                if caller is None or caller.opcode != "fusion" or not (inst.literal or "").isdigit() \
                        or int(inst.literal or 0) >= len(caller.operands):
                    return False
                inst = m.instructions.get(caller.operands[int(inst.literal or 0)])
            elif inst.opcode == "fusion" and inst.called and inst.called[0] in m.computations:
                inst = m.computations[inst.called[0]].root
            elif inst.opcode in _CARRIES and inst.operands:
                inst = m.instructions.get(inst.operands[0])
            else:
                produced = m.producer(inst.name)
                if produced is None or produced is inst:
                    return False
                inst = produced
        return False


#: ops that hand a value on unchanged in its values (moved, regrouped or gathered)
_CARRIES = frozenset({"bitcast", "copy", "reshape", "transpose", "all-gather", "all-to-all", "collective-permute",
                      "copy-done", "dynamic-slice", "slice"})
