from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import ArgFact, CompileContext


class ReplicatedArgument(HloRule):
    """
    ## What it does
    In a program partitioned over several devices, finds an argument leaf that is fully
    replicated (every device holds all of it) while the other large leaves of the same
    argument (the rest of `params`, the other layers of the model) are sharded. It is
    reported at the line that uses it (the layer that lacks its annotation), with the
    bytes each device holds and the mesh axis its siblings are sharded over.

    A data-parallel step, whose parameters are all replicated on purpose, is not
    reported: only a leaf whose siblings are sharded is.

    ## Why is this bad?
    A replicated array costs its full size on every device: an embedding table of 1 GiB
    left out of an FSDP sharding takes 1 GiB of each device's memory instead of 1/N of
    it, and its gradient is all-reduced in full every step. It is usually a parameter
    whose partitioning annotation was forgotten (a layer built without
    `nnx.with_partitioning`, a key missing from the sharding tree).

    ## Example
    ```python
    mesh = Mesh(np.array(jax.devices()), ("data",))
    shard, rep = NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P())

    @partial(jax.jit, in_shardings=({"embed": rep, "w": shard}, shard))
    def forward(params, ids):
        return params["embed"][ids] @ params["w"]
    ```

    ## Use instead
    ```python
    @partial(jax.jit, in_shardings=({"embed": shard, "w": shard}, shard))
    def forward(params, ids):
        return params["embed"][ids] @ params["w"]
    ```

    ## Options

    ## References
    * [Distributed arrays and automatic parallelization](https://docs.jax.dev/en/latest/notebooks/Distributed_arrays_and_automatic_parallelization.html)
    * [flax.nnx: scale up with sharding](https://flax.readthedocs.io/en/latest/guides/flax_gspmd.html)
    """

    code = "JAX310"
    group = "perf"
    name = "replicated-argument"
    summary = "an argument is fully replicated on every device while its siblings are sharded"
    fix_hint = "give it a PartitionSpec over the mesh axis its siblings use"
    options = {
        "min-bytes": Option(1 << 20, "report replicated leaves of at least this many bytes", int, 0),
    }

    VALID = [
        Valid(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp
            import numpy as np
            from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

            mesh = Mesh(np.array(jax.devices()), ("data",))
            rep, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P("data", None))

            # data parallel: every parameter replicated on purpose, the batch sharded
            # jaxlint: args=({"w1": f32[512,1024], "w2": f32[1024,512]}, f32[64,512])
            @partial(jax.jit, in_shardings=({"w1": rep, "w2": rep}, rows))
            def forward(params, x):
                return jnp.tanh(x @ params["w1"]) @ params["w2"]
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp
            import numpy as np
            from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

            mesh = Mesh(np.array(jax.devices()), ("data",))
            rep, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P("data", None))

            # jaxlint: args=({"embed": f32[8192,256], "w": f32[256,2048]}, i32[64])
            @partial(jax.jit, in_shardings=({"embed": rep, "w": rows}, NamedSharding(mesh, P("data"))))
            def forward(params, ids):
                h = params["embed"][ids]
                return h @ params["w"]
            """,
            line=14,
            message="8.0 MiB",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.compile.facts import HLO_DTYPES, lines_text

        facts = ctx.facts
        if facts.devices <= 1:
            return
        m = facts.module
        params = {int(p.literal or 0): p for p in m.entry_parameters()}
        tops: dict[str, list[ArgFact]] = {}
        for a in facts.args:
            if a.parameter is not None and a.parameter in params and a.bytes >= self.opts["min-bytes"]:
                tops.setdefault(a.top, []).append(a)
        for top, leaves in tops.items():
            # (every leaf kept above has a parameter)
            state = {a.path: self._layout(a, params[a.parameter]) for a in leaves}  # type: ignore[index]
            sharded = [a for a in leaves if state[a.path] == "sharded"]
            if not sharded:
                continue
            axes = sorted({ax for a in sharded for e in (a.spec or ()) if e for ax in e})
            over = (f"mesh axis {', '.join(repr(x) for x in axes)}" if axes else "the mesh")
            for a in leaves:
                if state[a.path] != "replicated":
                    continue
                param = params[a.parameter]  # type: ignore[index]
                # the layer: where the weight is used as one (a dot, a convolution, a lookup)
                # comes before its elementwise uses (the optimizer's update)
                users = sorted(m.consumers(param), key=lambda u: not self._uses_as_weight(m, u))
                uses = [loc for u in users for loc in facts.lines_of(u)]
                where = uses[0] if uses else None
                shown = ", ".join(f"`{s.path}`" for s in sharded[:2]) + (" ..." if len(sharded) > 2 else "")
                ctx.report(
                    where,
                    f"`{a.path}` ({HLO_DTYPES.get(a.dtype, a.dtype)}[{','.join(map(str, a.shape))}], {human_bytes(a.bytes)}) "
                    f"is replicated on all "
                    f"{facts.devices} devices while {shown} {'is' if len(sharded) == 1 else 'are'} sharded over "
                    f"{over}: each device holds all {human_bytes(a.bytes)} of it"
                    + (f" (used at {lines_text(uses[:3], facts)})" if uses else ""),
                    data={"bytes": a.bytes, "bytes_per_device": param.shape.bytes, "argument": a.path,
                          "devices": facts.devices, "axes": axes},
                    key=f"replicated:{a.path}")

    @staticmethod
    def _uses_as_weight(m, inst) -> bool:
        ops = {inst.opcode} | {j.opcode for j in m.fused_instructions(inst)}
        return bool(ops & {"dot", "convolution", "gather", "dynamic-slice", "custom-call"})

    @staticmethod
    def _layout(a: ArgFact, param) -> str:
        """``replicated``, ``sharded`` or ``other`` (one device, unknown), from the HLO
        parameter's sharding, else from its per-device shape against the global one."""
        s = param.attrs.get("sharding", "")
        if s:
            if "replicated" in s and "devices=" not in s:
                return "replicated"
            if "maximal" in s or "manual" in s:
                return "other"
        if tuple(param.shape.dims) == tuple(a.shape):
            return "replicated"
        return "sharded"
