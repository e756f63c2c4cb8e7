from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext


class CallbackInPartitioned(HloRule):
    """
    ## What it does
    Finds host callbacks (`jax.pure_callback`, `io_callback`, `jax.debug.print`) in a
    program partitioned over several devices, and reports them at their line with the
    collectives the partitioner added around them: the all-gather that brings the
    operands to one device and the collective that sends the result back, their bytes
    per device and the mesh axis.

    This is the measured, multi-device form of JAX203 (host-callback-traced); where both
    fire on one line only this one is reported.

    ## Why is this bad?
    A callback runs on one host device: the partitioner gathers its sharded operands
    onto that device (the whole array, not a shard), every other device waits, and the
    result is broadcast back. A callback left in a sharded training step serialises the
    step and moves the full batch through one device.

    ## Example
    ```python
    @partial(jax.jit, in_shardings=rows)
    def step(x):
        y = jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        return y + 1
    ```

    ## Use instead
    ```python
    @partial(jax.jit, in_shardings=rows)
    def step(x):
        return jnp.sin(x) + 1
    ```

    ## Options

    ## References
    * [JAX: external callbacks](https://docs.jax.dev/en/latest/external-callbacks.html)
    """

    code = "JAX313"
    group = "perf"
    name = "callback-in-partitioned"
    summary = "a host callback in a program partitioned over several devices gathers its operands to one device"
    fix_hint = "compute it in jax, or call back outside the sharded step"
    supersedes = ("JAX109", "JAX203")

    VALID = [
        Valid(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp
            import numpy as np
            from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

            mesh = Mesh(np.array(jax.devices()), ("data",))

            # jaxlint: args=(f32[64,256],)
            @partial(jax.jit, in_shardings=NamedSharding(mesh, P("data")))
            def step(x):
                return jnp.sin(x) + 1
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

            # jaxlint: args=(f32[64,256],)
            @partial(jax.jit, in_shardings=NamedSharding(mesh, P("data")))
            def step(x):
                y = jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
                return y + 1
            """,
            line=13,
            message="8 devices",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.compile.facts import loc_text
        from jaxlint.compile.hlo import host_calls

        facts = ctx.facts
        if facts.devices <= 1:
            return
        m = facts.module
        for call in host_calls(m):  # a callback custom call, or the TPU's host transfers
            k = call.inst
            loc = facts.user_location(k)
            near = [c for c in facts.collectives
                    if self._feeds(m, c.inst, k) or any(self._feeds(m, r, c.inst) for r in call.results)
                    or (loc is not None and facts.collective_location(c) == loc)]
            moved = sum(c.payload for c in near)
            around = "; ".join(f"{c.kind} of {human_bytes(c.bytes)} {facts.axis_text(c)}"
                               + (f" at {loc_text(facts.collective_location(c), facts)}"
                                  if facts.collective_location(c) not in (None, loc) else "")
                               for c in near[:3])
            ctx.report(
                loc,
                f"host callback in a program partitioned over {facts.devices} devices: it runs on one device, "
                + (f"the partitioner gathers its data there and sends the result back ({around})"
                   if near else "which every other device waits for"),
                data={"bytes": moved, "devices": facts.devices, "collectives": [c.kind for c in near],
                      "target": call.target},
                key=f"callback:{k.metadata.get('op_name', k.name)}")

    @staticmethod
    def _feeds(m, a, b, depth: int = 4) -> bool:
        """Whether ``a``'s result reaches ``b`` within a few plumbing or fusion steps."""
        todo, seen = [(a, 0)], set()
        while todo:
            cur, d = todo.pop()
            if cur.name == b.name:
                return True
            if cur.name in seen or d >= depth:
                continue
            seen.add(cur.name)
            todo.extend((u, d + 1) for u in m.users.get(cur.name, ()))
        return False
