from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import Buffer, CompileContext, CompileFacts


class ChipMemory(Option):
    """``hbm-gib``: a number (every chip) or a table of numbers by chip generation."""

    def validate(self, key: str, value: Any) -> Any:
        from jaxlint.targets import CHIPS, chip_by_name

        value = super().validate(key, value)
        entries = value.items() if isinstance(value, dict) else [("", value)]
        for name, gib in entries:
            if name and chip_by_name(str(name)) is None:
                raise ValueError(f"option {key!r}: unknown chip generation {name!r} (known: "
                                 f"{', '.join(c.name for c in CHIPS)})")
            if isinstance(gib, bool) or not isinstance(gib, (int, float)) or not gib > 0:
                raise ValueError(f"option {key!r}{f' [{name}]' if name else ''} must be a positive number of GiB, "
                                 f"got {gib!r}")
        return value


class HbmFit(HloRule):
    """
    ## What it does
    Compares the peak memory of the compiled program on one chip
    (`memory_analysis().peak_memory_in_bytes`, per device for a sharded program) with
    the high-bandwidth memory (HBM) of the TPU it is compiled for: a TPU v5e has 16 GiB,
    a v4 and a v6e 32, a v5p 95 (`hbm-gib` overrides the table, for every chip or by
    generation; so does a target's own `hbm-gib`, `[tool.jaxlint.targets.NAME]`). It is reported when the program needs more, or when XLA itself refused
    to compile it for the chip's memory (its "Ran out of memory on HBM" error; jaxlint
    then compiles it again told not to stop there, so that the figures say how far over
    it is). The message says by how much it does not fit and which buffers hold the
    memory: the largest arguments, the outputs (those not donated), and the largest
    temporaries with the lines that make them.

    It reads the program a target compiles for a TPU (`--target v5e:1x1`, a
    `[tool.jaxlint.targets]` table, or a TPU host): checked from any machine, before a
    launch. On the CPU, and on chips not in the table without an `hbm-gib` number, it
    is quiet.

    ## Why is this bad?
    The program fails on the chip with `RESOURCE_EXHAUSTED` when it is first called,
    after the job has been scheduled, the data loaded and the model initialised.

    ## Example
    ```python
    # 6 GiB of weights, their 6 GiB update and the gradient on one 16 GiB v5e chip
    @jax.jit
    def step(params, x):
        g = jax.grad(loss)(params, x)
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, g)
    ```

    ## Use instead
    Donate the state (`donate_argnames="params"`: its buffers hold the update), shard
    the parameters over more chips (`--target v5e:2x4` with a mesh), rematerialise
    activations (`jax.checkpoint`), or use a smaller batch or a bf16 copy of the weights.

    ## Options

    ## References
    * [Compiled.memory_analysis](https://docs.jax.dev/en/latest/aot.html)
    * [Cloud TPU: system architecture, HBM per chip](https://cloud.google.com/tpu/docs/system-architecture-tpu-vm)
    * [Buffer donation](https://docs.jax.dev/en/latest/faq.html#buffer-donation)
    """

    code = "JAX315"
    group = "correctness"
    name = "hbm-fit"
    summary = "the compiled program needs more memory on one chip than the TPU has"
    fix_hint = "donate the state, shard over more chips, rematerialise, or shrink the batch"
    severity = Severity.ERROR
    options = {
        "hbm-gib": ChipMemory({}, "the HBM of one chip in GiB, instead of jaxlint's table (v5e 16, v4 32, "
                                  "v5p 95, v6e 32): a number for every chip, or a table by generation, e.g. "
                                  "{v5e = 15.75}", (int, float, dict)),
        "buffers": Option(3, "how many of the largest arguments, outputs and temporaries the message names", int, 1),
    }
    VALID = [
        Valid(
            """
            import jax

            # jaxlint: args=(f32[16384,16384],)
            @jax.jit
            def gram(x):
                return x @ x.T + x
            """,
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def loss(params, x):
                return jnp.mean(jnp.tanh(x @ params["w1"]) @ params["w2"])

            # jaxlint: args=({"w1": f32[49152,32768], "w2": f32[32768,16384]}, f32[64,49152])
            @jax.jit
            def step(params, x):
                g = jax.grad(loss)(params, x)
                return jax.tree.map(lambda p, g: p - 0.1 * g, params, g)
            """,
            line=9,
            message="does not fit the 15.8 GiB",
        ),
        # the same chip told to keep all but 1.5 GiB for something else
        Invalid(
            """
            import jax

            # jaxlint: args=(f32[16384,16384],)
            @jax.jit
            def gram(x):
                return x @ x.T + x
            """,
            options={"hbm-gib": {"v5e": 1.5}},
            line=5,
            message="does not fit the 1.5 GiB configured for a TPU v5 lite: it needs 2.0 GiB per chip",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.targets import chip_by_kind

        facts = ctx.facts
        if not facts.on_accelerator:
            return
        chip = chip_by_kind(facts.device_kind)
        oom = facts.out_of_memory or {}
        limit, source = self._limit(facts, chip)
        if limit is None and not oom:
            return  # a chip not in the table, and no figure for it
        peak = self._peak(facts)
        if not oom and (limit is None or peak is None or peak <= limit):
            return
        what = f"a {facts.device_kind}" if facts.device_kind else "the chip"
        head = (f"does not fit the {human_bytes(limit)} {source} {what}" if limit is not None
                else f"does not fit the memory of {what}")  # XLA refused, and said nothing of what it has
        if limit is not None and peak is not None and peak > limit:
            head += f": it needs {human_bytes(peak)} per chip at its peak, {human_bytes(peak - limit)} more"
        said = f" (XLA refused to compile it for the chip: {oom['message']})" if oom.get("message") else ""
        parts, related = self._holders(ctx, facts)
        ctx.report(
            None,
            f"`{facts.function.rsplit('.', 1)[-1]}` {head}{said}; " + "; ".join(parts),
            data={"peak_bytes": peak, "hbm_bytes": limit, "over_bytes": (peak or 0) - limit if limit else None,
                  "device_kind": facts.device_kind, "xla_refused": bool(oom),
                  "argument_bytes": facts.memory.get("argument_size_in_bytes"),
                  "output_bytes": facts.memory.get("output_size_in_bytes"),
                  "temp_bytes": facts.memory.get("temp_size_in_bytes")},
            related=related,
            key="hbm-fit")

    def _limit(self, facts: CompileFacts, chip) -> tuple[int | None, str]:
        """(the bytes one chip has for the program, how that figure is known)."""
        option = self.opts["hbm-gib"]
        if isinstance(option, dict):
            option = next((v for k, v in option.items() if chip is not None and _same_chip(k, chip)), None)
        if option:
            return int(float(option) * (1 << 30)), "configured for"
        if facts.hbm_bytes:  # the target's `hbm-gib`
            return int(facts.hbm_bytes), "configured for"
        available = (facts.out_of_memory or {}).get("available_bytes")
        if available:  # what XLA has for programs on this chip (the runtime keeps the rest)
            return int(available), "XLA has on"
        return (chip.hbm_bytes, "of") if chip is not None else (None, "")

    @staticmethod
    def _peak(facts: CompileFacts) -> int | None:
        """The peak per chip: ``memory_analysis``'s (jax >= 0.10), else its arguments,
        outputs and temporaries less what outputs reuse of donated arguments."""
        mem = facts.memory
        if "peak_memory_in_bytes" in mem:
            return mem["peak_memory_in_bytes"]
        if "argument_size_in_bytes" not in mem:
            return None
        return (mem["argument_size_in_bytes"] + mem.get("output_size_in_bytes", 0) + mem.get("temp_size_in_bytes", 0)
                - mem.get("alias_size_in_bytes", 0))

    def _holders(self, ctx: CompileContext, facts: CompileFacts) -> tuple[list[str], list]:
        """What holds the memory: each kind's total and its largest buffers (with the
        lines that make them, where known), and those lines as related locations."""
        from jaxlint.compile.facts import lines_text

        n = self.opts["buffers"]
        mem = facts.memory
        groups: list[tuple[str, int | None, list[Buffer]]] = [
            ("arguments", mem.get("argument_size_in_bytes"), sorted(facts.argument_buffers(), key=lambda b: -b.bytes)),
            ("outputs" + ("" if facts.module.aliases else " (none reuses a donated argument)"),
             mem.get("output_size_in_bytes"), sorted(facts.output_buffers(), key=lambda b: -b.bytes)),
            ("temporaries", mem.get("temp_size_in_bytes"), facts.temporary_buffers()),
        ]
        parts, related, seen = [], [], set()
        for label, total, bufs in groups:
            if not total and not bufs:
                continue
            shown = []
            for b in bufs[:n]:
                name = b.name if b.kind == "temporary" else f"`{b.name or 'the result'}` {b.shape}"
                at = f" at {lines_text(b.lines, facts)}" if b.lines else ""
                shown.append(f"{name} {human_bytes(b.bytes)}{at}")
                for loc in b.lines[:1]:
                    if (loc.file, loc.line) not in seen:
                        seen.add((loc.file, loc.line))
                        related.append(ctx.related(loc, f"makes a {human_bytes(b.bytes)} {b.kind}"))
            size = human_bytes(total) if total is not None else "?"
            parts.append(f"{label} {size}" + (f" (largest: {', '.join(shown)})" if shown else ""))
        return parts, related[:6]


def _same_chip(name: str, chip) -> bool:
    from jaxlint.targets import chip_by_name

    return chip_by_name(str(name)) == chip
