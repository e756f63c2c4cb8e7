from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Confidence
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.jitcalls import call_arguments, jit_call_sites, named_calls
from jaxlint.static.semantic import ModuleModel, walk
from jaxlint.static.traced import staged_inside
from jaxlint.static.cfg import BLOCK_FIELDS, first_read_after, loop_without_store, metadata_read, stores_name
from jaxlint.static.buffers import buffer_keys, passed_leaves, same_buffer_names

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext


class DonationMisuse(StaticRule):
    """
    ## What it does
    Looks at the calls of functions jitted in the same module with `donate_argnums`
    or `donate_argnames`, and finds:

    * one buffer passed to two donated parameters of a call (`step(x, x)`), also
      through another name bound to it (`opt_state = params`) or twice inside one
      donated tuple, list or dict (`step((params, params))`);
    * one buffer passed to a donated parameter and to one that is not donated
      (`add(x, x)` donating only the first), in the same ways;
    * a donated argument read again after the call, in the same function body, before
      it is reassigned (`new = step(state); log(state)`), also through another name
      bound to the same array before the call (`old = state; new = step(state); old`);
    * a donated field (`step(self.state, batch)`) read by a later statement of the same
      block (`print(self.state)`), when the statements in between neither set it, nor
      rebind its object, nor call anything with the object (a method could set it);
    * a donated argument passed on every iteration of a loop that never reassigns it (a
      warning: a loop that never takes the argument back from the result suggests no output
      is its new version, and without one jax keeps the buffer and the donation does nothing).

    Calls through other modules, through containers, or with `*args` are not checked.
    Reading a donated array's metadata (`.shape`, `.dtype`, `.ndim`, `.size`,
    `.sharding`, `len(x)`) is not a use: a deleted array still answers it.

    Only a donation XLA can alias to an output deletes the argument; this rule cannot see
    that from the source. With the compile tier on (`check --dynamic --compile`, or a
    recording made with `--compile`), JAX302 measures it: a parameter of which no donated
    array could be aliased is kept by jax, and this rule's findings about it are replaced
    by JAX302's "could not be used" finding.

    ## Why is this bad?
    Donation hands the argument's device memory to the computation, which reuses it
    for the outputs. After the call the donated array is deleted (when an output could
    take its buffer; otherwise jax warns "donated buffers were not usable" and keeps it): reading it raises
    `RuntimeError: Array has been deleted`, on CPU too (checked with jax 0.4.38 and
    0.10.2). One buffer cannot be donated twice in the same call, nor donated and
    passed again as another argument of it: jax raises `INVALID_ARGUMENT: Attempt to
    use a buffer that was previously donated in the same call`.

    ## Example
    ```python
    @functools.partial(jax.jit, donate_argnums=0)
    def step(state, batch):
        ...

    new_state = step(state, batch)
    print(state.step)
    ```

    ## Use instead
    ```python
    state = step(state, batch)
    print(state.step)
    ```

    ## Options

    ## References
    * [JAX: buffer donation](https://docs.jax.dev/en/latest/faq.html#buffer-donation)
    * [jax.jit donate_argnums](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)
    """

    code = "JAX113"
    #: off by default by its blind figure: 0 true of 12 blind findings (blind51 took it past
    #: the 10 a figure needs; docs/precision.md, "With `blind51` in `BLIND` too")
    group = "nursery"
    name = "donation-misuse"
    summary = "a donated buffer is donated twice, or used after the call that donated it"
    fix_hint = "reassign the donated name from the call's result, or stop donating it"

    VALID = [
        # a deleted array still answers its shape and dtype
        Valid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, donate_argnums=0)
            def step(state, batch):
                return state + batch

            def train(state, batch):
                new = step(state, batch)
                print(state.shape, state.dtype, len(state))
                return new
            """
        ),
        Valid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, donate_argnums=0)
            def step(state, batch):
                return state + batch

            def train(state, batches):
                for batch in batches:
                    state = step(state, batch)
                print(state)
                return state
            """
        ),
        Valid(
            """
            import jax

            def update(params, grads):
                return params - grads

            fast_update = jax.jit(update, donate_argnums=0)

            def run(params, grads):
                new_params = fast_update(params, grads)
                print(grads)
                params = new_params
                return params
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, donate_argnums=(0, 1))
            def apply_updates(params, ema_params, grads):
                new = jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)
                ema = jax.tree.map(lambda e, p: 0.99 * e + 0.01 * p, ema_params, new)
                return new, ema

            def fit(params, batches, grad_fn):
                ema_params = params  # starts as the same arrays
                for batch in batches:
                    params, ema_params = apply_updates(params, ema_params, grad_fn(params, batch))
                return params, ema_params
            """,
            line=13,
            message="`ema_params` (the same array as `params`) is passed to two donated parameters",
        ),
        Invalid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, donate_argnums=0)
            def sgd(state, grads):
                params, step = state
                return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), step + 1

            def train_step(params, grads, step):
                previous = params
                params, step = sgd((params, step), grads)
                delta = jax.tree.map(lambda a, b: a - b, params, previous)
                return params, step, delta
            """,
            line=12,
            message="`previous` holds the same array as `params`, which was donated to `sgd`",
        ),
        Invalid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, donate_argnums=0)
            def step(state, batch):
                return state + batch

            def train(state, batch):
                new_state = step(state, batch)
                print(state.mean())
                return new_state
            """,
            line=10,
            message="`state` was donated to `step` at line 9",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        calls: list[ast.Call] | None = None
        for entry in model.entries:
            if not (entry.donate_argnums or entry.donate_argnames) or not entry.specs_literal or entry.writes_back:
                continue
            calls = named_calls(model) if calls is None else calls
            _, fn = model.entry_site(entry)
            if not fn.donated_params:
                continue
            for call, offset in jit_call_sites(model, entry, calls):
                if staged_inside(model, call):
                    continue  # called from traced code: staged into that trace, nothing is donated
                passed = call_arguments(call, fn, offset)
                donated = [(p, a) for p, a in passed if p in fn.donated_params]
                callee = ctx.segment(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else fn.name
                if not self._twice(ctx, model, call, donated, callee, fn.name):
                    kept = [(p, a) for p, a in passed if p not in fn.donated_params and p not in fn.static_params]
                    self._also_kept(ctx, model, call, donated, kept, callee, fn.name)
                for param, arg in donated:
                    donor = _donor(fn.name, param)
                    for leaf in (passed_leaves(model, arg) if isinstance(arg, (ast.Tuple, ast.List, ast.Dict)) else [arg]):
                        if isinstance(leaf, ast.Name):
                            self._used_after(ctx, model, call, leaf, callee, donor)
                        elif isinstance(leaf, ast.Attribute) and _path(leaf) is not None:
                            self._field_used_after(ctx, model, call, leaf, callee, donor)

    def _twice(self, ctx, model: ModuleModel, call: ast.Call, donated: list[tuple[str, ast.expr]],
               callee: str, fn_name: str) -> bool:
        """One buffer in two donated places of a call: the same name (or attribute) twice,
        two names bound to the same array (``old = state``), or twice in one donated
        tuple, list or dict (``step((params, params))``)."""
        seen: dict[str, tuple[str, str]] = {}  # buffer key -> (parameter, the text that first passed it)
        for param, arg in donated:
            for leaf in passed_leaves(model, arg):
                keys = buffer_keys(model, leaf)
                text = ctx.segment(leaf)
                hit = next((k for k in sorted(keys) if k in seen), None)
                if hit is None:
                    seen.update((k, (param, text)) for k in keys)
                    continue
                first_param, first_text = seen[hit]
                where = f"two donated parameters (`{first_param}` and `{param}`)" if first_param != param \
                    else f"two places in donated parameter `{param}`"
                same = f"`{text}`" if text == first_text else f"`{text}` (the same array as `{first_text}`)"
                inside = any(a is call for a in model.ancestors(leaf))
                ctx.report(leaf if inside else arg,
                           f"{same} is passed to {where} of `{callee}`: one buffer cannot be donated twice",
                           data={"argument": text, "params": [first_param, param], **_donor(fn_name, first_param)},
                           # the same text is one buffer; two names only may be (an earlier alias)
                           confidence=Confidence.CERTAIN if text == first_text else Confidence.LIKELY)
                return True  # one finding per call
        return False

    def _also_kept(self, ctx, model: ModuleModel, call: ast.Call, donated: list[tuple[str, ast.expr]],
                   kept: list[tuple[str, ast.expr]], callee: str, fn_name: str) -> None:
        """One buffer passed both to a donated parameter and to one that is not
        (``f(x, x)`` donating only the first): the call reads a buffer it has just
        given away, and jax refuses it ("Attempt to use a buffer that was previously
        donated in the same call")."""
        given: dict[str, tuple[str, str]] = {}
        for param, arg in donated:
            for leaf in passed_leaves(model, arg):
                keys = buffer_keys(model, leaf)
                given.update((k, (param, ctx.segment(leaf))) for k in keys)
        for param, arg in kept:
            for leaf in passed_leaves(model, arg):
                keys = buffer_keys(model, leaf)
                hit = next((k for k in sorted(keys) if k in given), None)
                if hit is None:
                    continue
                first_param, first_text = given[hit]
                text = ctx.segment(leaf)
                same = f"`{text}`" if text == first_text else f"`{text}` (the same array as `{first_text}`)"
                inside = any(a is call for a in model.ancestors(leaf))
                ctx.report(leaf if inside else arg,
                           f"{same} is passed to `{param}` of `{callee}` and also donated through `{first_param}`: "
                           f"the call reads a buffer it has given away, and jax refuses it (\"Attempt to use a "
                           f"buffer that was previously donated in the same call\"); pass a copy (`jnp.copy`) or "
                           f"stop donating it",
                           data={"argument": text, "params": [first_param, param], **_donor(fn_name, first_param)},
                           confidence=Confidence.CERTAIN if text == first_text else Confidence.LIKELY)
                return  # one finding per call

    def _field_used_after(self, ctx, model: ModuleModel, call: ast.Call, arg: ast.Attribute, callee: str,
                          donor: dict) -> None:
        """``new = step(self.state, batch)`` then ``self.state`` read by a later statement
        of the same block, before anything could have set it again: the statements in
        between neither store to the field (or rebind its object) nor call anything with
        the object (a method could set it), and are not blocks."""
        stmt = model.statement_of(call, stop_at=(ast.Lambda,))
        path = _path(arg)
        if stmt is None or path is None or isinstance(stmt, (ast.Return, ast.Raise)):
            return
        block = next((seq for f in BLOCK_FIELDS if isinstance(seq := getattr(model.parent(stmt), f, None), list)
                      and stmt in seq), None)
        if block is None or _touches(stmt, path, after_call=True):
            return  # `self.state = step(self.state, ...)`: set again from the result
        root = path.split(".", 1)[0]
        for later in block[block.index(stmt) + 1:]:
            if not isinstance(later, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)):
                return
            use = next((n for n in walk(later) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
                        and _path(n) == path and not metadata_read(model.parent(n), lambda v: v is n)), None)
            if use is not None:
                # likely: another alias of the object may have set it
                _report_read(ctx, use, path, "set", callee, call, arg, Confidence.LIKELY, donor)
                return
            if _touches(later, path) or any(isinstance(n, ast.Call) and any(
                    isinstance(m, ast.Name) and m.id == root for m in walk(n)) for n in walk(later)):
                return

    def _used_after(self, ctx, model: ModuleModel, call: ast.Call, arg: ast.Name, callee: str, donor: dict) -> None:
        stmt = model.statement_of(call, stop_at=(ast.Lambda,))
        if stmt is None or isinstance(stmt, (ast.Return, ast.Raise)):
            return
        name = arg.id
        # another name for the same buffer (`old = state` before `step(state)`) is as dead
        for alias in same_buffer_names(model, arg, call):
            if stores_name(stmt, alias):
                continue
            use = first_read_after(model, stmt, alias)
            if use is not None:
                ctx.report(
                    use,
                    f"`{alias}` holds the same array as `{name}`, which was donated to `{callee}` at line "
                    f"{call.lineno}: its buffer is deleted after the call (RuntimeError: Array has been "
                    f"deleted); copy it before the call (`jnp.copy`) or read what you need first",
                    related=[ctx.related(arg, f"`{name}` is donated here")],
                    data={"argument": name, "alias": alias, "call_line": call.lineno, **donor},
                    confidence=Confidence.LIKELY,  # the alias may have been rebound on another path
                )
        if stores_name(stmt, name):
            return
        use = first_read_after(model, stmt, name)
        if use is not None:
            _report_read(ctx, use, name, "reassign", callee, call, arg, Confidence.CERTAIN, donor)
            return
        loop = loop_without_store(model, stmt, name)
        if loop is not None:
            ctx.report(
                arg,
                f"`{name}` is donated to `{callee}` on every iteration of the loop at line {loop.lineno} but "
                f"never reassigned in it: if an output can take its buffer, from the second iteration on the call "
                f"receives a deleted buffer; if none can, the donation does nothing (\"donated buffers were not "
                f"usable\"); reassign it from the result or stop donating it",
                data={"argument": name, "loop_line": loop.lineno, **donor},
                # likely, not certain: a loop that never takes the argument back from the result suggests no
                # output is its new version, and jax deletes a donated array only when an output can alias it
                confidence=Confidence.LIKELY,
            )


def _donor(function: str, parameter: str) -> dict:
    """What a finding's data names of the donation it is about: the jitted function's name
    and its donated parameter (a compile finding that measured the donation useless, JAX302,
    matches it by them: a donation no output can take deletes nothing)."""
    return {"donated_to": function, "donated_parameter": parameter}


def _report_read(ctx, use: ast.AST, shown: str, verb: str, callee: str, call: ast.Call, arg: ast.AST,
                 confidence: Confidence, donor: dict) -> None:
    """A donated ``shown`` (a name or a field) read at ``use`` after ``call`` donated it."""
    ctx.report(
        use,
        f"`{shown}` was donated to `{callee}` at line {call.lineno} and is read here: its buffer is deleted "
        f"after the call (RuntimeError: Array has been deleted); {verb} `{shown}` from the result or stop "
        f"donating it",
        related=[ctx.related(arg, f"`{shown}` is donated here")],
        data={"argument": shown, "call_line": call.lineno, **donor},
        confidence=confidence,
    )


def _path(node: ast.AST) -> str | None:
    """``self.state`` for a chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) and parts else None


def _touches(stmt: ast.stmt, path: str, after_call: bool = False) -> bool:
    """Whether ``stmt`` stores to ``path`` or to an object on its way (``self.state = ...``,
    ``self = ...``, ``del self.state``)."""
    prefixes = {".".join(path.split(".")[:i]) for i in range(1, path.count(".") + 2)}
    for n in walk(stmt):
        if isinstance(n, (ast.Attribute, ast.Name)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            if (n.id if isinstance(n, ast.Name) else _path(n)) in prefixes:
                return True
    return False


