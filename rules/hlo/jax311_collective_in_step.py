from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext

#: the collectives this rule weighs (reshards are JAX312's)
KINDS = ("all-gather", "all-reduce")


class CollectiveInStep(HloRule):
    """
    ## What it does
    Adds up, per source line, the bytes each device sends through all-gathers and
    all-reduces in one call of a partitioned program (the optimized HLO's collectives:
    max(operand, result) bytes, per device), and reports a line above `max-bytes`. A
    collective inside a loop (`scan`, `fori_loop`, `while`) runs once per iteration: its
    bytes times the loop's trip count are held against the stricter `max-loop-bytes`.
    The message names the collective, the bytes per device and the mesh axis.

    ## Why is this bad?
    A collective moves data between devices while they wait for it: an all-gather of
    full weights or an all-reduce of a large activation in every step can cost more than
    the step's arithmetic, and one inside a loop is paid on every iteration. On a CPU
    with forced host devices the bytes are exact, but their time is not measured: see
    docs/multi-device.md.

    ## Example
    ```python
    @partial(shard_map, mesh=mesh, in_specs=P(None, "data"), out_specs=P(None, "data"))
    def smooth(xs):
        def body(c, x):
            return c, jax.lax.psum(x, "data")  # an all-reduce per iteration
        return jax.lax.scan(body, 0.0, xs)[1]
    ```

    ## Use instead
    ```python
    @partial(shard_map, mesh=mesh, in_specs=P(None, "data"), out_specs=P(None, "data"))
    def smooth(xs):
        def body(c, x):
            return c, x
        return jax.lax.psum(jax.lax.scan(body, 0.0, xs)[1], "data")  # once, after the loop
    ```

    ## Options

    ## References
    * [Distributed arrays and automatic parallelization](https://docs.jax.dev/en/latest/notebooks/Distributed_arrays_and_automatic_parallelization.html)
    * [shard_map](https://docs.jax.dev/en/latest/notebooks/shard_map.html)
    """

    code = "JAX311"
    group = "perf"
    name = "collective-in-step"
    summary = "all-gathers or all-reduces move more bytes per call than the budget (stricter inside loops)"
    fix_hint = "shard so the partitioner needs no collective here, or move it out of the loop"
    options = {
        "max-bytes": Option(256 << 20, "report a line whose collectives move more bytes per call, per device",
                            int, 0),
        "max-loop-bytes": Option(32 << 20, "the same inside loops: bytes per iteration times the trip count",
                                 int, 0),
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

            # jaxlint: args=(f32[256,256], f32[64,256])
            @partial(jax.jit, in_shardings=(rep, rows), out_shardings=rep)
            def step(w, x):
                g = jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)
                return w - 0.1 * g
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

            def body(c, x):
                return c + x.T @ x, None  # contracts the sharded axis: an all-reduce per step

            # jaxlint: args=(f32[16,8192,1024],)
            @partial(jax.jit, in_shardings=(NamedSharding(mesh, P(None, "data", None)),))
            def gram(xs):
                return jax.lax.scan(body, jnp.zeros((1024, 1024)), xs)[0]
            """,
            line=11,
            message="inside a loop of 16 iterations",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        facts = ctx.facts
        if facts.devices <= 1:
            return
        lines: dict[tuple, list] = {}
        for c in facts.collectives:
            if c.kind not in KINDS or c.origin_via != "metadata":
                continue
            loc = facts.collective_location(c)
            lines.setdefault((loc, c.in_loop), []).append(c)
        for (loc, in_loop), cs in lines.items():
            payload = sum(c.payload for c in cs)
            limit = self.opts["max-loop-bytes"] if in_loop else self.opts["max-bytes"]
            if payload <= limit:
                continue
            big = max(cs, key=lambda c: c.payload)
            kinds = " and ".join(sorted({c.kind for c in cs}))
            per_call = sum(c.bytes for c in cs)
            text = f"{kinds} of {human_bytes(per_call)} per device {facts.axis_text(big)}"
            if in_loop:
                trips = big.trip_count
                text += (f", inside a loop of {trips} iterations: {human_bytes(payload)} per call"
                         + (" (a loop of unknown length counted once)" if big.unknown_trip_count else ""))
            ctx.report(
                loc, f"{text}, above the {'loop ' if in_loop else ''}budget of {human_bytes(limit)}",
                data={"bytes": payload, "bytes_per_execution": per_call, "kinds": sorted({c.kind for c in cs}),
                      "axes": list(facts.mesh_axes(big) or ()), "in_loop": in_loop,
                      "trip_count": big.trip_count, "devices": facts.devices},
                key=f"collective:{kinds}:{big.inst.metadata.get('op_name', big.inst.opcode)}")
