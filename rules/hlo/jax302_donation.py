from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Iterable

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.compile.facts import ArgFact, CompileFacts, Finding


class Donation(HloRule):
    """
    ## What it does
    Finds update steps that do not donate their state, and donations XLA could not
    use. An *update step* takes a large argument (a pytree of several arrays, or one
    named like `state`, `params`, `opt_state`) and returns arrays of the same shapes
    and dtypes computed directly from it (`new = old - lr * g`). When that argument is
    not donated, the function is reported at its definition. A state whose arrays are
    nearly all (90 % of its bytes) updates of themselves counts: a key replaced by
    `jax.random.split` or a new counter beside the parameters and moments (haiku's
    `TrainingState`) is named as a new value, and the arrays that can reuse their
    buffers are listed. Several undonated states of one step (an equinox `make_step`'s
    model and optimizer state) are one finding. Steps under `jax.pmap`, sharded `jax.jit`
    and `equinox.filter_jit` are read the same way; the advice names the transform's
    own way to donate (pmap's `donate_argnums`, equinox's `donate='all'`).
    Only functions that look
    like update steps are considered: the argument is named like state, or the function
    like an update (`step`, `update`, `sgd`, `train...`); when several arguments could be
    the state (`p - lr * g` reads both `p` and `g`), the one named like state is meant. A donated argument that
    the compiled program does not alias to any output (missing from the HLO module's
    `input_output_alias`, the "donated buffers were not usable" warning) is reported
    too, at the `donate_argnums`/`donate_argnames` keyword that donates it (the
    decorator or the `jax.jit(...)` call), with the definition as a related location.

    ## Why is this bad?
    Without donation XLA must allocate fresh output buffers while the inputs stay
    alive: an update step needs twice the memory of its state, and a model that
    would fit does not. A donation that cannot be used gives nothing and the caller
    still loses the argument.

    ## Example
    ```python
    @jax.jit
    def sgd(params, grads):
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    ```

    ## Use instead
    ```python
    @functools.partial(jax.jit, donate_argnums=0)
    def sgd(params, grads):
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    ```
    Donate only what the caller does not use again after the call.

    ## Options

    ## References
    * [Buffer donation](https://docs.jax.dev/en/latest/faq.html#buffer-donation)
    """

    code = "JAX302"
    name = "donation"
    summary = "an updated state is not donated, or a donation cannot be used"
    fix_hint = "donate the state argument (donate_argnums/donate_argnames) or drop the unusable donation"
    options = {
        "min-bytes": Option(1 << 20, "report an undonated state of at least this many bytes (all its arrays)",
                            int, 0),
    }

    VALID = [
        Valid(
            """
            import jax

            # jaxlint: args=({"w": f32[512,512], "b": f32[512,512]}, {"w": f32[512,512], "b": f32[512,512]})
            @jax.jit
            def difference(x, y):
                return jax.tree.map(lambda a, b: a - b, x, y)
            """
        ),
        Valid(
            """
            import functools
            import jax

            # jaxlint: args=({"w": f32[512,512], "b": f32[512,512]}, {"w": f32[512,512], "b": f32[512,512]})
            @functools.partial(jax.jit, donate_argnums=0)
            def sgd(params, grads):
                return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=({"w": f32[512,512], "b": f32[512,512]}, f32[8,512])
            @jax.jit
            def grads(params, x):
                return jax.grad(lambda p: jnp.sum(jnp.tanh(x @ p["w"] @ p["b"])))(params)
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[1024,1024],)
            @jax.jit
            def normalize(x):
                return x / jnp.linalg.norm(x)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            # jaxlint: args=({"w": f32[512,512], "b": f32[512,512]}, {"w": f32[512,512], "b": f32[512,512]})
            @jax.jit
            def sgd(params, grads):
                return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
            """,
            line=5,
            message="`params`",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[1024,512], f32[1024,512])
            @jax.jit
            def step(state, g):
                return state - 0.1 * g, jnp.sum(g * g)
            """,
            line=6,
            message="donate_argnames='state'",
        ),
        Invalid(
            """
            import functools
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[1024,512], f32[8])
            @functools.partial(jax.jit, donate_argnums=(0, 1))
            def summarize(table, v):
                return jnp.sum(table, axis=0) + v.sum()
            """,
            options={"min-bytes": 0},
            line=6,
            message="could not be used",
        ),
        # a state whose key is split, not updated: still a state, and the key is named
        Invalid(
            """
            import jax

            # jaxlint: args=({"w": f32[512,512], "m": f32[512,512], "key": u32[2]}, f32[512,512])
            @jax.jit
            def step(state, g):
                m = 0.9 * state["m"] + g
                key, _ = jax.random.split(state["key"])
                return {"w": state["w"] - 0.1 * m, "m": m, "key": key}
            """,
            line=5,
            message="2 of its 3 arrays (2.0 MiB) are updates of themselves and can reuse their buffers, "
                    "`state['key']` is a new value",
        ),
        # a small donated batch that no output matches: reported whatever its size
        Invalid(
            """
            import functools
            import jax
            import jax.numpy as jnp

            # jaxlint: args=(f32[256], f32[32,784])
            @functools.partial(jax.jit, donate_argnums=(0, 1))
            def step(w, batch):
                return w - 0.01 * jnp.mean(batch) * w
            """,
            line=6,
            message="donated `batch` (float32[32, 784]) could not be used",
        ),
    ]

    def findings(self, facts: CompileFacts) -> Iterable[Finding]:
        yield from self._unusable(facts)
        yield from self._not_donated(facts)

    def _unusable(self, facts: CompileFacts) -> Iterable[Finding]:
        from jaxlint.compile.facts import Finding

        aliased = {a.parameter for a in facts.module.aliases}
        # whatever its size: the caller gives up the buffer and gets nothing for it
        bad = [a for a in facts.args if a.donated and a.parameter is not None and a.parameter not in aliased]
        if not bad:
            return
        names = ", ".join(f"`{a.path}` ({a.dtype}{list(a.shape)})" for a in bad)
        warned = any("donated buffers were not usable" in w for w in facts.warnings)
        # at the `donate_argnums` that asks for it (what to change), the definition related
        where = facts.site("donate")
        yield Finding(
            f"donated {names} could not be used: no output of the compiled program has its shape and dtype, "
            f"so XLA allocates the outputs anyway"
            + (" (jax warned: donated buffers were not usable)" if warned else ""),
            where, (facts.definition(),) if where is not None else (),
            {"arguments": [a.path for a in bad], "bytes": sum(a.bytes for a in bad), "warned": warned},
            key="unusable:" + ",".join(a.path for a in bad))

    def _not_donated(self, facts: CompileFacts) -> Iterable[Finding]:
        from jaxlint.compile.facts import looks_like_state, looks_like_update

        m = facts.module
        if facts.kind in ("filter_jit", "nnx.jit") and facts.site("donate") is not None and not m.aliases:
            return  # compiled here without the transform's own donation (equinox's `donate=` mode)
        by_top: dict[str, list[ArgFact]] = defaultdict(list)
        for a in facts.args:
            by_top[a.top].append(a)
        aliased_out = {a.output_index for a in m.aliases}
        free_outputs = [o for o in facts.outputs if o.index not in aliased_out]
        root = m.entry.root
        candidates = []
        for top, leaves in by_top.items():
            if any(a.donated for a in leaves) or any(a.parameter is None for a in leaves):
                continue
            total = sum(a.bytes for a in leaves)
            if total < self.opts["min-bytes"] or not (looks_like_state(top) or looks_like_update(facts.function)):
                continue
            matched = []
            used: set[tuple[int, ...]] = set()
            for a in leaves:
                hit = next((o for o in free_outputs if o.index not in used and o.shape == a.shape
                            and o.dtype == a.dtype and self._updates(facts, a, o.index, root)), None)
                if hit is not None:
                    used.add(hit.index)
                    matched.append((a, hit))
            # a state whose every array, or nearly every byte, comes back as an update of
            # itself: a key replaced by `random.split` or a new counter does not stop the
            # donation of the parameters and moments beside it
            updated = sum(a.bytes for a, _ in matched)
            if not matched or updated < self.opts["min-bytes"] or (len(matched) != len(leaves)
                                                                    and updated < 0.9 * total):
                continue
            candidates.append((top, leaves, matched))
        if len(candidates) > 1:
            # `p - lr * g` reads both arrays: the state is the one named like state; when
            # names do not tell (or several do not), stay quiet rather than guess
            candidates = [c for c in candidates if looks_like_state(c[0])]
        if candidates:
            yield self._undonated(facts, candidates, root)

    def _undonated(self, facts: CompileFacts, candidates: list, root) -> Finding:
        """One finding for the function's undonated states (one fix: donate them all)."""
        from jaxlint.compile.facts import Finding, lines_text

        tops, parts, producer_lines, donatable, fresh = [], [], [], [], []
        total = updated = arrays = 0
        for top, leaves, matched in candidates:
            for _, o in matched:
                inst = self._output_inst(facts, o.index, root)
                if inst is not None:
                    producer_lines.extend(facts.lines_of(inst))
            n = len(leaves)
            size = sum(a.bytes for a in leaves)
            what = f"{n} arrays" if n > 1 else f"{leaves[0].dtype}{list(leaves[0].shape)}"
            tops.append(top)
            parts.append(f"`{top}` ({what}, {human_bytes(size)})")
            total, updated, arrays = total + size, updated + sum(a.bytes for a, _ in matched), arrays + n
            donatable += [a.path for a, _ in matched]
            fresh += [a.path for a in leaves if all(a is not b for b, _ in matched)]
        names = repr(tops[0]) if len(tops) == 1 else "(" + ", ".join(map(repr, tops)) + ")"
        how = {"pmap": "add donate_argnums with its position (pmap has no donate_argnames)",
               "filter_jit": "give equinox.filter_jit donate='all' (or 'all-except-first'; it donates no "
                             "single argument)"}.get(facts.kind, f"add donate_argnames={names} (or its donate_argnums)")
        rest = ""
        if fresh:
            shown = ", ".join(f"`{p}`" for p in fresh[:3]) + (f" and {len(fresh) - 3} more" if len(fresh) > 3 else "")
            rest = (f"; {len(donatable)} of its {arrays} arrays ({human_bytes(updated)}) are updates of themselves "
                    f"and can reuse their buffers, {shown} {'is a new value' if len(fresh) == 1 else 'are new values'}")
        head = (f"argument {parts[0]} is" if len(parts) == 1
                else "arguments " + ", ".join(parts[:-1]) + f" and {parts[-1]} are")
        return Finding(
            f"{head} updated and returned ({lines_text(producer_lines, facts)}) but not donated: XLA keeps the "
            f"old and the new state alive together{rest}; {how} if the caller does not reuse "
            + ("it" if len(parts) == 1 else "them"),
            None, tuple([(loc, "the updated value") for loc in dict.fromkeys(producer_lines)][:3]),
            {"argument": tops[0], "arguments": tops, "bytes": total, "arrays": arrays, "donatable": donatable,
             "donatable_bytes": updated, "not_updated": fresh}, key="not-donated:" + ",".join(tops))

    @staticmethod
    def _output_inst(facts: CompileFacts, index: tuple[int, ...], root):
        m = facts.module
        if root is None:
            return None
        if not index:
            return m.producer(root.name)
        if root.opcode == "tuple" and len(index) == 1 and index[0] < len(root.operands):
            return m.producer(root.operands[index[0]])
        return None

    def _updates(self, facts: CompileFacts, arg: ArgFact, index: tuple[int, ...], root) -> bool:
        """The output is computed by an elementwise kernel that reads the argument itself:
        an update (``p - lr * g``), not a new value of the same shape (a gradient)."""
        m = facts.module
        inst = self._output_inst(facts, index, root)
        if inst is None or not m.is_elementwise(inst):
            return False
        for op in inst.operands:
            src = m.producer(op)
            if src is not None and src.opcode == "parameter" and src.computation == m.entry.name \
                    and int(src.literal or -1) == arg.parameter:
                return True
        return False
