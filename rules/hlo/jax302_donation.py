from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING, Sequence

from jaxlint.rule import Invalid, Option, Valid
from jaxlint.rules.hlo._base import HloRule
from jaxlint.textutil import human_bytes

if TYPE_CHECKING:  # the compile tier's model loads in the worker only: every static run imports all rules
    from jaxlint.diagnostic import Diagnostic
    from jaxlint.compile.facts import ArgFact, CompileContext, CompileFacts


class Donation(HloRule):
    """
    ## What it does
    Finds update steps that do not donate their state, and donations XLA could not
    use. An *update step* takes a large argument (a pytree of several arrays, or one
    named like `state`, `params`, `opt_state`) and returns arrays of the same shapes
    and dtypes computed directly from it (`new = old - lr * g`). When that argument is
    not donated, the function is reported at its definition, or, when a call made it
    jitted (`learn = jax.pmap(learn, axis_name="i")`, `step = jax.jit(train_step)`), at
    that call, where `donate_argnums` goes, with the definition related. A state whose arrays are
    nearly all (90 % of its bytes) updates of themselves counts: a key replaced by
    `jax.random.split` or a new counter beside the parameters and moments (haiku's
    `TrainingState`) is named as a new value, and the arrays that can reuse their
    buffers are listed. An update of itself may read the rest in another layout: an adam
    moment of a convolution or attention kernel, `0.9 * m + 0.1 * g`, whose gradient XLA
    computes transposed, is one. Several undonated states of one step (an equinox `make_step`'s
    model and optimizer state) are one finding. Steps under `jax.pmap`, sharded `jax.jit`,
    `equinox.filter_jit` and `flax.nnx.jit` (a step that updates its model and optimizer
    in place, in whatever order it takes them beside the batch: `train_step(model, data,
    rngs, optimizer)` names `model` and the optimizer's moments both) are read the same way; the advice names the transform's own way to donate
    (pmap's `donate_argnums`, equinox's `donate='all'`).
    Only functions that look
    like update steps are considered: the argument is named like state, or the function
    like an update (`step`, `update`, `sgd`, `train...`); when several arguments could be
    the state (`p - lr * g` reads both `p` and `g`), the one named like state is meant;
    arguments that each come back as outputs of their own (`p`, `m`, `v` of an Adam step)
    are all named. Each output
    buffer can be given by one argument only: when several arguments update the same
    outputs (`ema(params, avg_params)` returns one tree), only as many are named as the
    outputs can take, and the others are mentioned as the alternative.

    Under `jaxlint record` the rule knows what the program did with each argument after
    the first few calls (an argument still alive at the next jitted call is *reused*:
    `pruned = apply_mask(params, m)` keeps `params`; `state = step(state)` lets the old
    state go; a name still bound to it counts, read again or not; a graph object given to
    `nnx.jit` is updated in place, so what the caller keeps of its old state is unknown).
    A pytree state updated by several operations in a row (an epoch's minibatch loop
    calling `state.apply_gradients` four times, so the returned state is computed from the
    last update, not from the argument) counts too when the recording shows the caller
    let the old state go and the outputs hold a tree of the same structure, shapes and
    dtypes, each array at its own place: the bytes it names are what donation aliases.
    An argument the caller
    reused is never advised for donation (when that
    leaves none, there is no finding), one it let go is preferred, and the advice drops
    its "if the caller does not reuse it" hedge. Without a recording the hedge stays.
    An argument a recorded call gave one array at two places (`Params(online=p,
    target=p)`) is not advised either: jax refuses to donate the same buffer twice.
    Arrays of a state that are not updates are named as returned unchanged, new values,
    or not returned. A donated argument that
    the compiled program does not alias to any output (missing from the HLO module's
    `input_output_alias`, the "donated buffers were not usable" warning) is reported
    too, at the `donate_argnums`/`donate_argnames` keyword that donates it (the
    decorator or the `jax.jit(...)` call), with the definition as a related location.

    ## Why is this bad?
    Without donation XLA must allocate fresh output buffers while the inputs stay
    alive: an update step needs twice the memory of its state, and a model that
    would fit does not. A donation that cannot be used gives nothing: jax keeps the
    argument (jax 0.10.2: `is_deleted()` is False after the call), so the static
    JAX113's claims that it is deleted (read after the call, passed again in a loop or in
    the same call) are false for the parameters this finding names whole, and it
    replaces them.

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
    group = "perf"
    name = "donation"
    reads_callers = True
    summary = "an updated state is not donated, or a donation cannot be used"
    fix_hint = "donate the state argument (donate_argnums/donate_argnames) or drop the unusable donation"
    # a donation measured useless deletes nothing: the static guesses that its arguments
    # are read, or passed again, after they were deleted (JAX113), and a recorded call
    # that passed one of them twice (JAX210), are the same problem
    supersedes = ("JAX210", "JAX113")
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
        # one output tree, two inputs it is computed from elementwise: one buffer each to
        # give, so one argument is named; without a recording, the other is the alternative
        Invalid(
            """
            import jax

            # jaxlint: args=({"w": f32[512,512], "b": f32[512,512]}, {"w": f32[512,512], "b": f32[512,512]})
            @jax.jit
            def ema_update(params, avg_params):
                return jax.tree.map(lambda p, a: 0.999 * a + 0.001 * p, params, avg_params)
            """,
            line=5,
            message="add donate_argnames='params' (or its donate_argnums) if the caller does not reuse it "
                    "(or donate `avg_params` instead, if that is the one it does not reuse)",
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

    @classmethod
    def same_problem(cls, mine: Diagnostic, other: Diagnostic) -> bool:
        """A JAX113 finding about a parameter this finding measured as kept whole (no
        donated array of it aliased to an output) of the same function, by name; a JAX210
        finding all of whose donated arguments belong to such parameters."""
        kept = (mine.data or {}).get("kept_parameters") or ()
        about = other.data or {}
        if other.code == "JAX210":  # the same function's trace finding: its donated arguments
            pairs = about.get("pairs") or ()
            return bool(pairs) and all(re.split(r"[\[.]", str(p[0]), maxsplit=1)[0] in kept for p in pairs)
        function = str((mine.data or {}).get("function") or "").rsplit(".", 1)[-1]
        return (other.code == "JAX113" and about.get("donated_parameter") in kept
                and about.get("donated_to") == function)

    def check(self, ctx: CompileContext) -> None:
        self._unusable(ctx)
        self._not_donated(ctx)

    def _unusable(self, ctx: CompileContext) -> None:
        facts = ctx.facts
        aliased = {a.parameter for a in facts.module.aliases}
        # whatever its size: the caller gives up the buffer and gets nothing for it
        bad = [a for a in facts.args if a.donated and a.parameter is not None and a.parameter not in aliased]
        if not bad:
            return
        names = ", ".join(f"`{a.path}` ({a.dtype}{list(a.shape)})" for a in bad)
        # parameters none of whose donated arrays is aliased: the call deletes none of them
        # (jax 0.10.2: `is_deleted()` is False after it), so reading them again is no error
        whole = sorted({a.top for a in bad} - {a.top for a in facts.args if a.donated and a not in bad})
        warned = any("donated buffers were not usable" in w for w in facts.warnings)
        # at the `donate_argnums` that asks for it (what to change), the definition related
        where = facts.site("donate")
        ctx.report(
            where,
            f"donated {names} could not be used: no output of the compiled program has its shape and dtype, "
            f"so XLA allocates the outputs anyway"
            + (" (jax warned: donated buffers were not usable)" if warned else ""),
            related=[ctx.related(*facts.definition())] if where is not None else [],
            data={"arguments": [a.path for a in bad], "bytes": sum(a.bytes for a in bad), "warned": warned,
                  "kept_parameters": whole},
            key="unusable:" + ",".join(a.path for a in bad))

    def _not_donated(self, ctx: CompileContext) -> None:
        from jaxlint.compile.facts import looks_like_state, looks_like_update

        facts = ctx.facts
        m = facts.module
        if facts.kind in ("filter_jit", "nnx.jit") and facts.site("donate") is not None and not m.aliases:
            return  # compiled here without the transform's own donation (equinox's `donate=` mode)
        by_top: dict[str, list[ArgFact]] = defaultdict(list)
        for a in facts.args:
            by_top[a.top].append(a)
        aliased_out = {a.output_index for a in m.aliases}
        free_outputs = [o for o in facts.outputs if o.index not in aliased_out]
        root = m.entry.root
        tops = []
        for top, leaves in by_top.items():
            if any(a.donated for a in leaves) or any(a.parameter is None for a in leaves):
                continue
            total = sum(a.bytes for a in leaves)
            if total < self.opts["min-bytes"] or not (looks_like_state(top) or looks_like_update(facts.function)):
                continue
            tops.append((top, leaves))
        # each output buffer can be given by one argument only: the arguments share the
        # outputs, those the caller was seen to let go first, then those named like state
        # (`p - lr * g` reads both `p` and `g`: the state is meant)
        order = {top: i for i, (top, _) in enumerate(tops)}
        tops.sort(key=lambda t: (facts.reused.get(t[0]) is not False, not looks_like_state(t[0]), order[t[0]]))
        alone = [(top, leaves, self._matched(facts, top, leaves, free_outputs, root, set())) for top, leaves in tops]
        alone = [c for c in alone if self._enough(c[1], c[2])]
        outputs = [{o.index for _, o in c[2]} for c in alone]
        if len(alone) > 1 and sum(map(len, outputs)) == len(set().union(*outputs)):
            pass  # each updates outputs of its own (`p`, `m`, `v` of an Adam step): every one is state
        elif len(alone) > 1 and any(looks_like_state(c[0]) for c in alone):
            alone = [c for c in alone if looks_like_state(c[0])]
        elif len(alone) > 1:
            return  # names do not tell which is the state (or several do not): quiet rather than guess
        reused = [c[0] for c in alone if facts.reused.get(c[0])]
        # one buffer twice in the call (`Params(online=p, target=p)`): jax refuses to donate it
        # (nnx.jit and filter_jit pass a graph object, or an array, shared between arguments once)
        twice = [c[0] for c in alone if c[0] in facts.sharing and not facts.reused.get(c[0])
                 and facts.kind in ("jit", "pjit", "pmap")]
        used: set[tuple[int, ...]] = set()
        candidates, rivals = [], []
        for top, leaves, _ in alone:
            if facts.reused.get(top) or top in twice:
                continue  # the program used it again after the call: donating it would break the caller
            matched = self._matched(facts, top, leaves, free_outputs, root, used)
            if self._enough(leaves, matched):
                used.update(o.index for _, o in matched)
                candidates.append((top, leaves, matched))
            else:  # as large an update, but the outputs it would give its buffers to are taken
                rivals.append(top)
        if candidates:
            self._undonated(ctx, candidates, root, reused, rivals, twice)

    def _matched(self, facts: CompileFacts, top: str, leaves: list, free_outputs: list, root, used: set) -> list:
        """The leaves' updates (:meth:`_match`); failing that, for a pytree the recorded
        program let go after the call, the outputs that replace it leaf for leaf
        (:meth:`_replacement`)."""
        matched = self._match(facts, leaves, free_outputs, root, used)
        if self._enough(leaves, matched) or facts.reused.get(top) is not False:
            return matched
        return self._replacement(leaves, free_outputs, used) or matched

    @staticmethod
    def _replacement(leaves: list, free_outputs: list, used: set) -> list:
        """(leaf, output) for every leaf of a pytree argument (two arrays or more) when
        the outputs hold a tree of the same structure, shapes and dtypes: each leaf's
        output sits at the leaf's own place (``state.params['w']`` ->
        ``[0].params['w']``). A state updated by several operations in a row (a
        minibatch loop's ``state.apply_gradients`` four times) is computed from the
        last update, not from the argument, but it replaces the argument all the same;
        the caller letting the old one go (the recording) makes it an update step's
        state. Empty when any leaf has no such output."""
        if len(leaves) < 2:
            return []
        taken = set(used)
        matched = []
        for a in leaves:
            own = a.path[len(a.top):]
            hit = next((o for o in free_outputs if o.index not in taken and o.shape == a.shape
                        and o.dtype == a.dtype and own and o.path.endswith(own)), None)
            if hit is None:
                return []
            taken.add(hit.index)
            matched.append((a, hit))
        return matched

    def _match(self, facts: CompileFacts, leaves: list, free_outputs: list, root, used: set) -> list:
        """(leaf, output) of the leaves an output not in ``used`` updates (same shape and dtype,
        an elementwise kernel that reads the leaf); ``used`` is not changed. The output that
        reads the leaf most directly comes first, then the one at the leaf's own place in the
        tree (``opt['m']['w']`` -> ``[1]['m']['w']``): a parameter's update reads the old
        moments too where XLA fuses it with theirs (the TPU does)."""
        taken = set(used)
        matched = []
        for a in leaves:
            own = a.path[len(a.top):]
            # the most direct update first, then the output at the leaf's own place
            found = [(depth, not (own and o.path.endswith(own)), k, o) for k, o in enumerate(free_outputs)
                     if o.index not in taken and o.shape == a.shape and o.dtype == a.dtype
                     and (depth := self._updates(facts, a, o.index, root)) is not None]
            hit = min(found, key=lambda f: f[:3])[3] if found else None
            if hit is not None:
                taken.add(hit.index)
                matched.append((a, hit))
        return matched

    def _enough(self, leaves: list, matched: list) -> bool:
        """A state whose every array, or nearly every byte, comes back as an update of
        itself: a key replaced by `random.split` or a new counter does not stop the
        donation of the parameters and moments beside it."""
        updated = sum(a.bytes for a, _ in matched)
        total = sum(a.bytes for a in leaves)
        return bool(matched) and updated >= self.opts["min-bytes"] and (len(matched) == len(leaves)
                                                                       or updated >= 0.9 * total)

    def _undonated(self, ctx: CompileContext, candidates: list, root, reused: Sequence[str] = (),
                   rivals: Sequence[str] = (), twice: Sequence[str] = ()) -> None:
        """One finding for the function's undonated states (one fix: donate them all)."""
        from jaxlint.compile.facts import lines_text

        facts = ctx.facts
        tops, parts, producer_lines, donatable, fresh = [], [], [], [], []
        total = updated = arrays = 0
        passed = self._passed_through(facts, root)
        for top, leaves, matched in candidates:
            for _, o in matched:
                inst, element = facts.output_value(o.index)
                if inst is not None:  # of a multi-output fusion: the update, not the matmul beside it
                    producer_lines.extend(facts.result_lines(inst, element))
            n = len(leaves)
            size = sum(a.bytes for a in leaves)
            what = f"{n} arrays" if n > 1 else f"{leaves[0].dtype}{list(leaves[0].shape)}"
            tops.append(top)
            parts.append(f"`{top}` ({what}, {human_bytes(size)})")
            total, updated, arrays = total + size, updated + sum(a.bytes for a, _ in matched), arrays + n
            donatable += [a.path for a, _ in matched]
            fresh += [a for a in leaves if all(a is not b for b, _ in matched)]
        names = repr(tops[0]) if len(tops) == 1 else "(" + ", ".join(map(repr, tops)) + ")"
        how = {"pmap": "add donate_argnums with its position (pmap has no donate_argnames)",
               "filter_jit": "give equinox.filter_jit donate='all' (or 'all-except-first'; it donates no "
                             "single argument)"}.get(facts.kind, f"add donate_argnames={names} (or its donate_argnums)")
        rest = ""
        if fresh:
            taken = {o.index for _, _, matched in candidates for _, o in matched}
            others = [o for o in facts.outputs if o.index not in taken]
            same = [a.path for a in fresh if a.parameter in passed]
            new = [a.path for a in fresh if a.parameter not in passed
                   and any(o.shape == a.shape and o.dtype == a.dtype for o in others)]
            gone = [a.path for a in fresh if a.parameter not in passed and a.path not in new]
            told = []
            for paths, one, many in ((same, "is returned unchanged", "are returned unchanged"),
                                     (new, "is a new value", "are new values"),
                                     (gone, "is not returned as an array of its shape",
                                      "are not returned as arrays of their shapes")):
                if paths:
                    shown = ", ".join(f"`{p}`" for p in paths[:3]) + (f" and {len(paths) - 3} more"
                                                                    if len(paths) > 3 else "")
                    told.append(f"{shown} {one if len(paths) == 1 else many}")
            rest = (f"; {len(donatable)} of its {arrays} arrays ({human_bytes(updated)}) are updates of themselves "
                    f"and can reuse their buffers, " + "; ".join(told))
        head = (f"argument {parts[0]} is" if len(parts) == 1
                else "arguments " + ", ".join(parts[:-1]) + f" and {parts[-1]} are")
        it = "it" if len(parts) == 1 else "them"
        seen_free = all(facts.reused.get(t) is False for t in tops)
        notes = ""
        if reused:
            single = len(reused) == 1
            notes += (f"; {' and '.join(f'`{t}`' for t in reused)} could give {'its' if single else 'their'} "
                      f"buffers too, but the program still held {'it' if single else 'them'} at its next jitted "
                      f"call (to use again, or not yet released): not named")
        if twice:
            notes += (f"; {' and '.join(f'`{t}`' for t in twice)} could give {'its' if len(twice) == 1 else 'their'} "
                      f"buffers too, but the recorded call passed one array in {'it' if len(twice) == 1 else 'them'} "
                      f"twice (one buffer at two places), and jax refuses to donate the same buffer twice: not "
                      f"named (copy one of them, `jax.tree.map(jnp.copy, ...)`, to make it donatable)")
        if rivals:
            notes += (f"; {' and '.join(f'`{t}`' for t in rivals)} could give the same outputs their buffers, "
                      f"but each output takes one argument's buffer only")
        when = ("(the program had let " + it + " go by its next jitted call, in the calls `jaxlint record` "
                "watched)" if seen_free
                else f"if the caller does not reuse {it}"
                + (" (or donate " + " or ".join(f"`{t}`" for t in rivals) + " instead, if that is the one it "
                   "does not reuse)" if rivals else ""))
        # at the `jax.jit(f)`/`jax.pmap(f)` call that made it, where donate_argnums goes
        # (the definition related); at the definition when a decorator made it
        made = facts.site("jit")
        ctx.report(
            made,
            f"{head} updated and returned ({lines_text(producer_lines, facts)}) but not donated: XLA keeps the "
            f"old and the new state alive together{rest}{notes}; {how} {when}",
            related=([ctx.related(*facts.definition())] if made is not None else [])
            + [ctx.related(loc, "the updated value") for loc in dict.fromkeys(producer_lines)][:3],
            data={"argument": tops[0], "arguments": tops, "bytes": total, "arrays": arrays, "donatable": donatable,
                  "donatable_bytes": updated, "not_updated": [a.path for a in fresh], "reused_by_caller": list(reused),
                  "rivals": list(rivals), "caller_seen": seen_free,
                  "buffer_twice": list(twice)}, key="not-donated:" + ",".join(tops))

    @staticmethod
    def _passed_through(facts: CompileFacts, root) -> set[int]:
        """The entry parameters the compiled program returns as they are (or a copy of)."""
        m = facts.module
        if root is None:
            return set()
        outs = root.operands if root.opcode == "tuple" else [root.name]
        found = set()
        for op in outs:
            src = m.producer(op)
            if src is not None and src.opcode == "copy" and len(src.operands) == 1:
                src = m.producer(src.operands[0])
            if src is not None and src.opcode == "parameter" and src.computation == m.entry.name:
                try:
                    found.add(int(src.literal or -1))
                except ValueError:
                    pass
        return found

    def _updates(self, facts: CompileFacts, arg: ArgFact, index: tuple[int, ...], root) -> int | None:
        """The output is computed by an elementwise kernel that reads the argument itself:
        an update (``p - lr * g``), not a new value of the same shape (a gradient). The
        kernel may move what else it reads (an adam moment of a convolution or attention
        kernel adds a transposed gradient to itself: an update all the same). How directly
        (the elementwise ops between the output and the argument: 1 for ``p - lr * g``),
        or None when it is no update: an Adam step fused into one kernel computes the new
        ``p`` from the new moments, so it reads the old moments too, further down."""
        m = facts.module
        inst, element = facts.output_value(index)
        if inst is None:
            return None
        whole = m.is_elementwise(inst) and element is None  # (one result of a multi-output one: its own part)
        depths = m.elementwise_depths(inst, element)
        for op in (inst.operands if whole else m.elementwise_operands(inst, element)):
            src = m.producer(op)
            if src is not None and src.opcode == "parameter" and src.computation == m.entry.name \
                    and int(src.literal or -1) == arg.parameter:
                return depths.get(op, 1)
        return None
