from __future__ import annotations

import os
from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, Valid, same_path
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext, CompileFacts


class MemoryBudget(HloRule):
    """
    ## What it does
    Reads `memory_analysis()` of the compiled function and reports when the temporary
    buffers XLA allocates (`temp_size_in_bytes`) exceed `max-temp-bytes`, or
    `max-temp-ratio` times the function's own arguments and outputs (from
    `min-temp-bytes` on: what grows with the data, such as a gradient that materialises
    an M x N matrix of a few kilobytes of inputs), or the peak (`peak_memory_in_bytes`,
    reported by jax 0.10 and later) exceeds `max-peak-bytes`. On the CPU backend that peak
    can leave out the temporary buffers (seen on jax 0.10.2: a 1.2 MB peak beside 64 MiB
    of temporaries), so budget temporaries there, not the peak.
    It is reported at the source line that computes the largest intermediate array of
    the optimized program (the line to change); the message names the largest ones, and
    their other lines and the function's definition are related locations (at the
    definition when no line of the user's code made them). When the jitted function is a
    library's, made by a factory from a function the program made with it
    (`jit(elasticity.athermal_moduli(energy_fn))`), and the largest intermediate is
    computed inside that function (a dense pair energy over all N² pairs), the finding
    sits where the program made it (`energy_fn = energy.soft_sphere_pair(displacement)`):
    the line to change, since nothing at the call can; the call is then a related
    location. When the jitted function is `jax.vmap` of the program's (`jit(vmap(f))`,
    `@jit @vmap`) and the largest intermediate holds the whole mapped batch (the mapped
    axis's size is one of its dimensions), the finding sits at the `vmap` (its decorator,
    else the line that jits it): how many elements one call maps at once decides the
    size, and `jax.lax.map(f, xs, batch_size=...)` or chunks bound it; the intermediate's
    line is related. It replaces the trace tier's JAX207 on an intermediate it names (at its
    line or a related one): one problem, one finding; and a JAX207 upper bound that no
    buffer of the optimized program made at that line reaches (XLA fused the value
    away; an output buffer confirms only a prediction about that output) is dropped. On a backend that gives no memory statistics the
    rule cannot fire, and the run's summary says so for each function ("memory
    statistics unavailable on this backend: ...").

    ## Why is this bad?
    Temporaries live on the device next to the parameters and the batch: a program
    whose intermediates are several times its inputs fails with an out-of-memory error
    at a batch size that would otherwise fit, or forces a smaller batch.

    ## Example
    ```python
    @jax.jit
    def pairwise(x):  # x: f32[8192, 64]
        d = x[:, None, :] - x[None, :, :]  # 16 GiB
        return jnp.sqrt((d ** 2).sum(-1))
    ```

    ## Use instead
    ```python
    @jax.jit
    def pairwise(x):
        sq = (x ** 2).sum(-1)
        return jnp.sqrt(jnp.maximum(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0))
    ```
    Or process the data in chunks with `lax.map`/`scan`, or rematerialize with
    `jax.checkpoint`.

    ## Options

    ## References
    * [Compiled.memory_analysis](https://docs.jax.dev/en/latest/aot.html)
    * [Gradient checkpointing](https://docs.jax.dev/en/latest/gradient-checkpointing.html)
    """

    code = "JAX304"
    group = "pedantic"  # blind figure 4 of 10 true (fifteenth judgement, issue 37): off by default
    name = "memory-budget"
    summary = "the compiled function needs more temporary or peak memory than the budget"
    fix_hint = "restructure to avoid the large intermediates (chunk, scan, checkpoint)"
    #: the trace tier's upper bound on one intermediate (JAX207), which this measurement
    #: confirms when that intermediate is among the largest it names: one finding
    supersedes = ("JAX207",)
    options = {
        "max-temp-bytes": Option(1 << 30, "report temporary memory above this many bytes", int, 0),
        "max-peak-bytes": Option(0, "report peak memory above this many bytes (0: off)", int, 0),
        "max-temp-ratio": Option(64, "report temporary memory above this many times the function's arguments "
                                     "and outputs (0: off)", int, 0),
        "min-temp-bytes": Option(16 << 20, "the ratio applies from this many bytes of temporary memory on", int, 0),
    }

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[512,64],)
            @jax.jit
            def pairwise(x):
                sq = (x ** 2).sum(-1)
                return jnp.sqrt(jnp.maximum(sq[:, None] + sq[None, :] - 2 * x @ x.T, 0))
            """,
            options={"max-temp-bytes": 4 << 20},
        ),
    ]
    INVALID = [
        # 32 KiB of points, and a gradient that materialises all 1024 x 1024 differences:
        # a temporary that grows with the square of the data, far beyond the inputs
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[1024,8],)
            @jax.jit
            def spread(x):
                def energy(x):
                    d = jnp.sort(x[:, None, :] - x[None, :, :], axis=-1)
                    return jnp.sum(d[..., 0] ** 2)
                return jax.grad(energy)(x)
            """,
            line=8,
            message="times its arguments and outputs",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[512,64],)
            @jax.jit
            def pairwise(x):
                d = jnp.sort(x[:, None, :] - x[None, :, :], axis=-1)
                return jnp.sqrt((d ** 2).sum(-1))
            """,
            options={"max-temp-bytes": 4 << 20},
            line=7,
            message="line 7",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.compile.facts import lines_text

        facts = ctx.facts
        temp = facts.memory.get("temp_size_in_bytes", 0)
        peak = facts.memory.get("peak_memory_in_bytes")
        io = facts.memory.get("argument_size_in_bytes", 0) + facts.memory.get("output_size_in_bytes", 0)
        ratio = self.opts["max-temp-ratio"]
        over = []
        if temp > self.opts["max-temp-bytes"]:
            over.append(f"{human_bytes(temp)} of temporary buffers (budget {human_bytes(self.opts['max-temp-bytes'])})")
        elif ratio and temp >= self.opts["min-temp-bytes"] and temp > ratio * max(io, 1):
            over.append(f"{human_bytes(temp)} of temporary buffers, {temp / max(io, 1):,.0f} times its arguments and "
                        f"outputs ({human_bytes(io)}): an intermediate grows with the data")
        if self.opts["max-peak-bytes"] and peak is not None and peak > self.opts["max-peak-bytes"]:
            over.append(f"a peak of {human_bytes(peak)} (budget {human_bytes(self.opts['max-peak-bytes'])})")
        if not over:
            return
        big = self._largest(facts)
        # kernels of one shape at one line (a gradient's forward and backward halves) are one entry
        seen: dict[str, int] = {}
        for i in big:
            if facts.lines_of(i):
                text = f"{human_bytes(i.shape.bytes)} {i.shape} at {lines_text(facts.lines_of(i), facts)}"
                seen[text] = seen.get(text, 0) + 1
        detail = "; ".join(text if n == 1 else f"{n} x {text}" for text, n in seen.items())
        msg = f"`{facts.function}` needs {' and '.join(over)}"
        if detail:
            msg += f"; largest intermediates: {detail}"
        made = [(facts.lines_of(i)[0], f"{human_bytes(i.shape.bytes)} intermediate") for i in big if facts.lines_of(i)]
        # at the line that makes the largest intermediate (what to change), the others and
        # the function's definition related; at the definition when no line is known
        where = made[0][0] if made else None
        lines = {(where.file, where.line)} if where is not None else set()
        related = []
        for loc, note in made:  # one related place per other line
            if (loc.file, loc.line) not in lines:
                lines.add((loc.file, loc.line))
                related.append(ctx.related(loc, note))
        if where is not None:
            related.append(ctx.related(*facts.definition()))
        given = self._given(facts, big)
        mapped = facts.trace.get("vmapped")
        if given is None and mapped is not None and big and mapped["size"] in big[0].shape.dims:
            # the largest intermediate holds the whole batch `vmap` maps in one call: the
            # line that maps it decides its size
            from jaxlint.compile.hlo import SourceLocation

            msg += (f"; it holds all {mapped['size']} elements of the batch `vmap` maps at once (line "
                    f"{mapped['line']}): map fewer at a time (`jax.lax.map(f, xs, batch_size=...)`, or chunks) "
                    f"to bound it")
            if where is not None:
                related.insert(0, ctx.related(where, "the largest intermediate"))
            where = SourceLocation(mapped["file"], int(mapped["line"]))
        if given is not None:  # a library computes it with a function the caller made: that line
            g, origin = given
            msg += (f"; made inside `{g['function']}` ({_short(g['file'])}), the `{g['name']}` given to "
                    f"`{g['factory']}` at line {facts.line} and made at line {origin.line}: what that line makes "
                    f"decides the intermediate's size")
            if where is not None:
                related.insert(0, ctx.related(where, "the call that traced it"))
            where = origin
        ctx.report(where, msg, related=related, data={"temp_bytes": temp, "peak_bytes": peak, "io_bytes": io},
                   key="memory")

    @classmethod
    def same_problem(cls, mine, other) -> bool:
        """JAX207's intermediate at the line this finding names, or at one of its related
        lines (the other largest intermediates, the call that traced them)."""
        lines = [(mine.path, mine.start.line)] + [(r.path, r.start.line) for r in mine.related]
        return any(other.start.line == n and same_path(other.path, p) for p, n in lines)

    @classmethod
    def refutes(cls, prediction, measured) -> bool:
        """JAX207's upper bound is refuted when no buffer the optimized program writes is
        that large and made at that line (XLA fused the value away); a large buffer
        whose line is unknown refutes nothing. The function's outputs are written whatever
        the program does on the way: a large output buffer made at that line confirms only a
        prediction about the output itself, not an intermediate the output's fusion consumed
        (``cos(x**2 + y**2) / (1 + x**2 + y**2)`` on one line writes the quotient only)."""
        facts = getattr(measured, "compile_facts", None)
        size = (prediction.data or {}).get("bytes")
        if facts is None or not isinstance(size, int):
            return False
        outputs = _output_names(facts.module)
        about_output = bool((prediction.data or {}).get("output"))
        for k in facts.module.kernels():
            if k.shape.bytes < size or (not about_output and (k.is_root or k.name in outputs)):
                continue
            lines = facts.lines_of(k)
            if not lines or any(loc.line == prediction.start.line and same_path(loc.file, prediction.path)
                                for loc in lines):
                return False
        return True

    @staticmethod
    def _given(facts: CompileFacts, big: list):
        """(the given function, where the caller made it) when the largest intermediate is
        computed inside a function the caller gave the library factory that made the jitted
        function (``jit(elasticity.athermal_moduli(energy_fn))``); None otherwise."""
        from jaxlint.compile.hlo import SourceLocation
        from jaxlint.dynamic import origins

        given = facts.trace.get("given") or []
        if not given or not big:
            return None
        for j in [big[0]] + facts.module.fused_instructions(big[0]):
            for loc in j.stack:
                for g in given:
                    if (_same_file(loc.file, g["file"]) and g["first"] <= loc.line <= g["last"]
                            and loc.function in (g["function"], g["function"].rsplit(".", 1)[-1])):
                        found = origins.given_at(facts.file, facts.line, g["factory"], g["index"], g["name"])
                        if found is None:
                            return None
                        return g, SourceLocation(found[0], found[1], "", found[2])
        return None

    @staticmethod
    def _largest(facts: CompileFacts, n: int = 3):
        """The biggest arrays kernels write that are not outputs of the function."""
        m = facts.module
        outs = _output_names(m)
        cands = [k for k in m.kernels() if k.name not in outs and not k.is_root]
        return sorted(cands, key=lambda k: -k.shape.bytes)[:n]


def _output_names(module) -> set[str]:
    """Names of the entry computation's output instructions (a tuple root's operands)."""
    root = module.entry.root
    return set(root.operands if root is not None and root.opcode == "tuple" else [root.name if root else ""])


def _same_file(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _short(path: str) -> str:
    """An installed library's file as its package path (``jax_md/smap.py``)."""
    p = path.replace("\\", "/")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in p:
            return p.rsplit(marker, 1)[1]
    return os.path.basename(p)
