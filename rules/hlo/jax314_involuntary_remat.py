from __future__ import annotations

from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Valid
from jaxlint.rules.hlo._base import HloRule

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext, CompileFacts
    from jaxlint.compile.hlo import SourceLocation
    from jaxlint.compile.xla_log import Remat


class InvoluntaryRemat(HloRule):
    """
    ## What it does
    Reports XLA's "Involuntary full rematerialization" warning at your line. The SPMD
    partitioner prints it to the C++ log on stderr when it cannot reshard a value from
    one sharding to another and instead rebuilds the whole array on every device; the
    warning names an HLO instruction, not a source line. jaxlint captures it while
    compiling, places it through the HLO metadata and its stack-frame table (an argument
    by its name), and keeps it in its own cache: a hit in jax's persistent compilation
    cache does not print the warning again, but the finding stays.

    ## Why is this bad?
    A full rematerialization gathers the complete array onto every device and
    partitions it again: the communication and memory of the whole tensor, on every
    call, where the shardings asked for a cheap reshard. It usually means two shardings
    that cannot be converted into each other (a reshape across a sharded dimension, a
    callback that needs the whole value on one device).

    ## Example
    ```python
    @partial(jax.jit, in_shardings=NamedSharding(mesh, P("model", None, "data")))
    def regroup(x):
        y = jnp.tanh(x)
        return jax.lax.with_sharding_constraint(y, NamedSharding(mesh, P(None, ("data", "model"), None)))
    ```

    ## Use instead
    ```python
    @partial(jax.jit, in_shardings=NamedSharding(mesh, P(None, ("data", "model"), None)))
    def regroup(x):
        return jnp.tanh(x)  # arrives in the sharding it is wanted in
    ```

    ## Options

    ## References
    * [Distributed arrays and automatic parallelization](https://docs.jax.dev/en/latest/notebooks/Distributed_arrays_and_automatic_parallelization.html)
    """

    code = "JAX314"
    group = "perf"
    name = "involuntary-remat"
    summary = "XLA's SPMD partitioner fully rematerializes a value it cannot reshard"
    fix_hint = "make the two shardings compatible (annotate the value, or shard the dimension the op keeps)"

    VALID = [
        Valid(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp
            import numpy as np
            from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

            mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))

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

            mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))

            # jaxlint: args=(f32[16,16,16],)
            @partial(jax.jit, in_shardings=NamedSharding(mesh, P("model", None, "data")))
            def regroup(x):
                y = jnp.tanh(x)
                y = jax.lax.with_sharding_constraint(y, NamedSharding(mesh, P(None, ("data", "model"), None)))
                return y * 3
            """,
            line=13,
            message="argument `x`",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.compile.xla_log import parse_remat

        facts = ctx.facts
        seen = set()
        for line in facts.compiler_log:
            r = parse_remat(line)
            if r is None:
                continue
            where, what = self._place(facts, r)
            key = (where, r.source, r.target, what)
            if key in seen:
                continue
            seen.add(key)
            ctx.report(
                where,
                f"XLA's SPMD partitioner cannot reshard {what} ({r.shape} per device) from {{{r.source}}} to "
                f"{{{r.target}}}: it rebuilds the whole array on every device (\"Involuntary full "
                f"rematerialization\" in XLA's log)",
                data={"from": r.source, "to": r.target, "shape": r.shape, "op_name": r.op_name,
                      "devices": facts.devices},
                key=f"remat:{r.op_name}:{r.target}")

    @staticmethod
    def _place(facts: CompileFacts, r: Remat) -> tuple[SourceLocation | None, str]:
        """(the user's line, what is resharded) of a warning."""
        from jaxlint.compile.facts import is_library_path
        from jaxlint.compile.hlo import SourceLocation

        m = facts.module
        what = f"`{r.op_name}`" if r.op_name else "a value"
        if r.source_file and r.source_line and not is_library_path(r.source_file):
            return SourceLocation(r.source_file, r.source_line), what
        arg = next((a for a in facts.args if a.path == r.op_name and a.parameter is not None), None)
        if arg is not None:
            # an argument: placed where the partitioner needed it in the other sharding
            param = next((p for p in m.entry_parameters() if int(p.literal or 0) == arg.parameter), None)
            return (_first_use(facts, param) if param is not None else None), f"argument `{arg.path}`"
        if r.stack_frame_id:
            for loc in m.frame_stack(r.stack_frame_id):
                if not is_library_path(loc.file):
                    return loc, what
        for inst in m.instructions.values():
            if r.op_name and inst.metadata.get("op_name") == r.op_name:
                user = facts.user_location(inst)
                if user is not None:
                    return user, what
        return None, what


def _first_use(facts: CompileFacts, param) -> SourceLocation | None:
    """The user's line of the first instruction downstream of an argument that has one
    (the copies and reshards XLA put right after a parameter carry its name only)."""
    m = facts.module
    todo, seen = [param], {param.name}
    while todo and len(seen) < 256:
        cur = todo.pop(0)
        for u in m.users.get(cur.name, ()):
            if u.name in seen:
                continue
            seen.add(u.name)
            loc = facts.user_location(u)
            if loc is not None:
                return loc
            todo.append(u)
    return None
