from __future__ import annotations

import os
from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import CompileContext, CompileFacts, TraceLine
    from jaxlint.compile.hlo import Collective
    from jaxlint.diagnostic import Related

#: jax primitives whose collective the user wrote (shard_map, pmap): not a reshard
EXPLICIT = ("psum", "pmax", "pmin", "pmean", "all_gather", "all_to_all", "ppermute", "psum_scatter",
            "reduce_scatter", "pbroadcast", "psum_invariant", "pshuffle", "pswapaxes")


class OutputReshard(HloRule):
    """
    ## What it does
    Finds collectives that only move data to another layout: the reshard XLA inserts when
    `out_shardings` asks for a result sharded differently from how it was computed, or
    when a `with_sharding_constraint` disagrees with the sharding the value already has
    (in the optimized HLO: a collective without source metadata, or an all-to-all or
    collective-permute no collective of the user's code asked for). It is reported at
    the line that produced the value, with the bytes per device, the mesh axis and the
    constraint's line.

    ## Why is this bad?
    A reshard computes nothing: every call pays a round of communication (an all-gather
    or all-to-all of the whole value) and the memory of the gathered copy, only because
    two shardings disagree. Computing the value in the layout it is wanted in, or asking
    for the layout it has, removes it.

    ## Example
    ```python
    @partial(jax.jit, in_shardings=rows, out_shardings=cols)
    def scale(x):
        return jnp.tanh(x) * 2  # computed row-sharded, returned column-sharded
    ```

    ## Use instead
    ```python
    @partial(jax.jit, in_shardings=rows, out_shardings=rows)
    def scale(x):
        return jnp.tanh(x) * 2
    ```

    ## Options

    ## References
    * [Distributed arrays and automatic parallelization](https://docs.jax.dev/en/latest/notebooks/Distributed_arrays_and_automatic_parallelization.html)
    """

    code = "JAX312"
    group = "perf"
    name = "output-reshard"
    summary = "a collective only reshards a value (out_shardings or a with_sharding_constraint mismatch)"
    fix_hint = "ask for the sharding the value is computed with, or compute it in the one you want"
    options = {
        "min-bytes": Option(1 << 20, "report reshards moving at least this many bytes per device", int, 0),
    }

    VALID = [
        Valid(
            """
            from functools import partial

            import jax
            import jax.numpy as jnp
            import numpy as np
            from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

            mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
            rows = NamedSharding(mesh, P("data", None))

            # jaxlint: args=(f32[1024,1024],)
            @partial(jax.jit, in_shardings=rows, out_shardings=rows)
            def scale(x):
                return jnp.tanh(x) * 2
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
            rows, cols = NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P(None, "model"))

            # jaxlint: args=(f32[1024,1024],)
            @partial(jax.jit, in_shardings=rows, out_shardings=cols)
            def scale(x):
                return jnp.tanh(x) * 2
            """,
            line=14,
            message="out_shardings",
        ),
    ]

    def check(self, ctx: CompileContext) -> None:
        from jaxlint.compile.facts import loc_text

        facts = ctx.facts
        if facts.devices <= 1:
            return
        constraints = [c for c in facts.trace.get("sharding_constraints", ())
                       if os.path.normpath(str(c.get("file", ""))) == os.path.normpath(facts.file)]
        for c in facts.collectives:
            if not self._is_reshard(c) or c.bytes < self.opts["min-bytes"]:
                continue
            loc = facts.collective_location(c)
            to_output = self._reaches_output(facts, c)
            if c.origin_via != "metadata" and to_output:
                cause = "for `out_shardings`: the result is computed in another sharding"
                related: list[Related] = []
            elif constraints:
                cause = "for a `with_sharding_constraint` that disagrees with the value's sharding"
                related = [ctx.related(_loc(facts, k), "the sharding constraint") for k in constraints[:2]]
            elif c.argument is not None:
                cause = "of an argument that arrives in another sharding than the one it is used in"
                related = []
            else:
                cause = "between two operations that use different shardings"
                related = []
            of = f"the value made at {loc_text(loc, facts)}" if loc is not None else "a value"
            ctx.report(
                loc,
                f"{c.kind} of {human_bytes(c.bytes)} per device {facts.axis_text(c)} reshards {of} {cause}"
                + (f", {c.trip_count} times per call" if c.trip_count > 1 else ""),
                related=related,
                data={"bytes": c.payload, "bytes_per_execution": c.bytes, "kind": c.kind, "axes": list(facts.mesh_axes(c) or ()),
                 "cause": "out_shardings" if to_output and c.origin_via != "metadata" else
                 ("sharding_constraint" if constraints else "reshard"), "devices": facts.devices},
                key=f"reshard:{c.kind}:{c.result_shape}")

    @staticmethod
    def _is_reshard(c: Collective) -> bool:
        if c.origin_via == "operand":  # no metadata of its own: the partitioner made it
            return c.kind in ("all-gather", "all-to-all", "collective-permute", "all-reduce")
        op = c.inst.metadata.get("op_name", "")
        last = op.rsplit("/", 1)[-1]
        if any(last == e or last.startswith(e + "[") for e in EXPLICIT):
            return False
        return c.kind in ("all-to-all", "collective-permute")

    @staticmethod
    def _reaches_output(facts: CompileFacts, c: Collective) -> bool:
        """Whether the collective's result flows to the program's result unchanged
        (through tuples, copies and bitcasts only)."""
        m = facts.module
        root = m.entry.root
        todo, seen = [c.inst], set()
        while todo:
            cur = todo.pop()
            if cur.name in seen:
                continue
            seen.add(cur.name)
            if cur is root:
                return True
            for u in m.users.get(cur.name, ()):
                if u.opcode in ("tuple", "copy", "bitcast", "get-tuple-element", "reshape", "transpose") \
                        or u.opcode.endswith("-done"):
                    todo.append(u)
                elif u.opcode == "fusion" and all(j.opcode in ("parameter", "copy", "bitcast", "reshape",
                                                               "transpose", "dynamic-slice", "slice", "tuple")
                                                  for j in m.fused_instructions(u)):
                    todo.append(u)
        return False


def _loc(facts, c: TraceLine):
    from jaxlint.compile.hlo import SourceLocation

    return SourceLocation(str(c["file"]), int(c["line"]))
