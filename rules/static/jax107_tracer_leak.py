from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.static.taint import LIKELY, taint_of, confidence, describe, traced_how
from jaxlint.static.containers import container_attribute, mutable_containers_only
from jaxlint.static.classes import built_in_trace, stateful_class
from jaxlint.static.apis import HOST_CALLBACKS

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

_MUTATORS = {"append": 0, "extend": 0, "insert": 1, "add": 0, "update": None, "setdefault": 1,
             "appendleft": 0, "extendleft": 0}
_CONSTRUCTORS = {"__init__", "__post_init__", "__new__", "setup", "__setattr__", "__setstate__"}


class TracerLeak(StaticRule):
    """
    ## What it does
    Finds traced code that stores a traced value somewhere that outlives the trace:
    a `global` or `nonlocal` assignment, appending to (or setting an item of) a list
    or dict defined outside, an attribute of `self`, or an attribute of a module-level
    object. A container of an enclosing function counts when the inner function is
    traced separately (a `lax.scan` / `fori_loop` / `vmap` / `grad` body); a helper
    called directly from the same jitted function shares its trace and is fine.

    Classes built to be used inside traced code are left alone: flax (`nnx`, `linen`,
    `struct`), equinox and haiku modules, and constructors (`__init__`, `setup`). So are
    methods, called from traced code, of a class that traced code itself instantiates
    (`game = Game(state); game.step()` in the jitted function): such an object is made
    and dropped within one trace, and its attributes die with it. So are functions
    traced only abstractly (`jax.eval_shape`, `jax.make_jaxpr`): a closure store is how
    code takes a structure (a treedef, a string) out of an abstract evaluation.

    Also finds a host callback (`jax.debug.callback`, `jax.pure_callback`, `io_callback`)
    handed a function that holds a traced value: bound by `functools.partial`
    (`jax.debug.callback(partial(log, step), loss)`) or closed over by a lambda or a nested
    def. The callback runs on the host after the trace, and what its function holds is the
    tracer, not its value: only the callback's operands are passed as arrays (jax 0.10.2:
    the host function prints `JitTracer(float32[3])`, `np.asarray` of it raises inside the
    callback, and `jax.check_tracer_leaks()` reports the leak). A Python value bound or
    closed over (`partial(log, x.shape)`, a name bound to `x.shape[0]`) is fine.

    Confidence: **certain** when the stored value is certainly a tracer, **likely** when
    it only likely is (an attribute of a parameter, the result of a function call). The
    rule is in the nursery group (off by default; its blind figure, below), so its
    findings are warnings.

    ## Why is this bad?
    A tracer is only valid during the trace that made it. Stored outside, it holds no
    value; using it later raises `UnexpectedTracerError`, or silently returns a stale
    object from the first call (the Python body runs once per compilation, so the
    list gets one entry, not one per call).

    ## Example
    ```python
    losses = []

    @jax.jit
    def step(params, batch):
        loss = loss_fn(params, batch)
        losses.append(loss)
        return params
    ```

    ## Use instead
    ```python
    @jax.jit
    def step(params, batch):
        loss = loss_fn(params, batch)
        return params, loss

    params, loss = step(params, batch)
    losses.append(loss)
    ```
    In a `lax.scan` body, return per-step values as the scan's `ys`; to observe
    values while debugging, use `jax.debug.print` or `jax.debug.callback`.

    ## Options

    ## References
    * [JAX errors: UnexpectedTracerError](https://docs.jax.dev/en/latest/errors.html#jax.errors.UnexpectedTracerError)
    * [JAX sharp bits: pure functions](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions)
    """

    code = "JAX107"
    traced_code = True  # about code under a trace: an eager-only branch is none of its business
    group = "nursery"
    name = "tracer-leak"
    summary = "traced code stores a traced value outside the function, where it outlives the trace"
    fix_hint = "return the value from the traced function (scan ys, has_aux) instead of storing it"

    VALID = [
        Valid(
            """
            import jax
            import jax.numpy as jnp

            class Ball:
                def __init__(self, x, v):
                    self.x, self.v = x, v

                def move(self, dt):
                    self.x = self.x + self.v * dt  # scratch state of one trace

            class Game:
                def __init__(self, state):
                    self.reset(state)

                def reset(self, state):
                    self.ball = Ball(state[0], state[1])

                def step(self):
                    self.ball.move(0.1)
                    return jnp.stack([self.ball.x, self.ball.v])

            @jax.jit
            def update(state):
                game = Game(state)  # made and dropped within the trace
                return game.step()
            """
        ),
        Valid(
            """
            import jax
            import jax.numpy as jnp

            _TRACES = 0

            @jax.jit
            def f(x):
                global _TRACES
                _TRACES += 1
                outs = []
                for i in range(3):
                    outs.append(x * i)
                return jnp.stack(outs)
            """
        ),
        Valid(
            """
            import jax

            @jax.jit
            def f(x):
                seen = []
                def record(v):
                    seen.append(v)
                record(x * 2)
                return seen[0]
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            losses = []

            @jax.jit
            def step(x):
                loss = (x ** 2).sum()
                losses.append(loss)
                return x - 0.1 * loss
            """,
            line=8,
            message="appends traced value `loss` to `losses`",
        ),
        Invalid(
            """
            import jax

            LAST = None

            @jax.jit
            def f(x):
                global LAST
                LAST = x * 2
                return x
            """,
            line=8,
            message="global `LAST`",
        ),
        Invalid(
            """
            import jax

            @jax.jit
            def f(xs):
                hidden = []
                def body(h, x):
                    h = h + x
                    hidden.append(h)
                    return h, None
                jax.lax.scan(body, 0.0, xs)
                return hidden[-1]
            """,
            line=8,
            message="traced by scan",
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        # not the functions traced only abstractly (`jax.eval_shape`, `make_jaxpr`): a closure
        # store is how a structure (a treedef, a string) is taken out of an abstract evaluation
        for fn in model.traced_functions(differentiated=True, abstract=False):
            taint = None
            for node in fn.body_nodes():
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    if node.value is None:
                        continue
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    value = node.value
                    taint = taint or taint_of(model, fn)
                    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript) \
                            and taint.culprit(value) is None:
                        # `acc[0] += 1` stores `acc[0] + 1`: computed in this trace from what the
                        # item held (a tracer of an enclosing trace makes one of this trace)
                        value = ast.BinOp(node.target, node.op, node.value)
                    for t in targets:
                        taint = taint or taint_of(model, fn)
                        self._store(ctx, taint, fn, node, t, value)
                elif isinstance(node, ast.Call) and model.resolve_call(node) in HOST_CALLBACKS:
                    taint = taint or taint_of(model, fn)
                    self._bound_into_callback(ctx, taint, fn, node)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in _MUTATORS:
                    i = _MUTATORS[node.func.attr]
                    values = list(node.args) if i is None else node.args[i:i + 1]
                    values += [k.value for k in node.keywords] if i is None else []
                    for v in values:
                        taint = taint or taint_of(model, fn)
                        if taint.level(v) is not None:
                            self._store(ctx, taint, fn, node, node.func.value, v, verb=node.func.attr)
                            break

    def _bound_into_callback(self, ctx, taint, fn, call: ast.Call) -> None:
        """A host callback's function that holds a traced value of ``fn``: bound by
        ``functools.partial`` or closed over by a lambda or a nested def. It runs on the host
        after the trace, with the tracer instead of the value (jax 0.10.2 prints
        ``JitTracer(float32[3])``; ``np.asarray`` of it raises there, and
        ``jax.check_tracer_leaks`` reports the leak); only the operands are passed as values."""
        model = ctx.model
        spec = HOST_CALLBACKS[model.resolve_call(call)]
        if spec is None:
            return
        host = call.args[spec[0]] if len(call.args) > spec[0] else \
            next((k.value for k in call.keywords if k.arg == spec[1]), None)
        if isinstance(host, ast.Call) and model.resolve_call(host) == "functools.partial" and host.args:
            held, how = [*host.args[1:], *(k.value for k in host.keywords)], "binds"
        else:
            inner = model.callee(host, fn)[0] if isinstance(host, (ast.Name, ast.Lambda)) else None
            if inner is None or inner.parent is not fn:
                return
            held, how = [_read_whole(model, n) for n in inner.body_nodes() if isinstance(n, ast.Name)
                         and isinstance(n.ctx, ast.Load) and n.id not in inner.bindings and n.id in fn.bindings], \
                "closes over"
        found = next((f for f in map(taint.culprit, held) if f is not None), None)
        if found is None:
            return
        level, culprit = found
        q = model.resolve_call(call)
        ctx.report(call, f"{traced_how(fn)} hands `{q}` a function that {how} traced value `{describe(culprit)}`: "
                         "the callback runs on the host after the trace and gets the tracer, not its value (printing "
                         "it shows the tracer, converting it raises); pass the value as an operand of the callback",
                   confidence=confidence(level), data={"value": describe(culprit), "target": q})

    def _store(self, ctx, taint, fn, node, target, value, verb: str | None = None) -> None:
        """``value`` is written into ``target`` (assignment) or added to it (``verb``)."""
        found = taint.culprit(value)
        if found is None:
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._store(ctx, taint, fn, node, t, value, verb)
            return
        where = self._outside(ctx.model, fn, target, plain_assign=verb is None)
        if where is None:
            return
        level, culprit = found
        if verb is None and isinstance(target, ast.Subscript):
            action = f"stores traced value `{describe(culprit)}` in {where}"
        elif verb is None:
            action = f"assigns traced value `{describe(culprit)}` to {where}"
        elif verb in ("append", "appendleft", "insert", "add"):
            action = f"{'appends' if verb.startswith('append') else 'adds'} traced value `{describe(culprit)}` to {where}"
        else:
            action = f"stores traced value `{describe(culprit)}` in {where} (`.{verb}`)"
        ctx.report(
            node,
            f"{traced_how(fn)} {action}: the tracer outlives its trace, holds no value, and using it later "
            "raises UnexpectedTracerError; return the value instead",
            # what a call computes from a tracer and code keeps past the trace is a tracer
            # but for a rare helper returning a Python value: likely, not only possible
            confidence=confidence(max(level, LIKELY)),
            data={"value": describe(culprit), "target": describe(target)},
        )

    def _outside(self, model, fn, target, plain_assign: bool) -> str | None:
        """How ``target`` lives outside ``fn``'s trace, for the message; None if it does not.

        ``plain_assign``: ``target = value``; otherwise the value goes *into* ``target``
        (``target.append(value)``), or ``target`` is ``c[k]`` and the value goes into ``c``.
        """
        if not plain_assign or isinstance(target, ast.Subscript):
            container = target.value if isinstance(target, ast.Subscript) else target
            return _outside_container(model, fn, container)
        if isinstance(target, ast.Name):
            if target.id in fn.globals_:
                return f"global `{target.id}`"
            if target.id in fn.nonlocals:
                owner, _ = model.lookup(target.id, fn.parent)
                if _crosses_trace(fn, owner):
                    return f"nonlocal `{target.id}`{_of(owner)}"
            return None
        root = target
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root is target:
            return None
        shown = f"`{_target_text(target)}`"
        if root.id == _self_param(fn):
            return None if _object_exempt(model, fn) else f"{shown}, which lives on the object"
        if root.id in fn.bindings:
            return None
        owner, bindings = model.lookup(root.id, fn.parent)
        if owner is None and bindings and all(b.kind in ("import", "assign") for b in bindings):
            return f"{shown}, module state"
        return None


def _outside_container(model, fn, container) -> str | None:
    """A list/dict/set that outlives the trace, only when it is known to be one (so a
    method that happens to be called ``update``, like optax's, is not a dict update)."""
    shown = f"`{_target_text(container)}`"
    if isinstance(container, ast.Attribute) and isinstance(container.value, ast.Name) \
            and container.value.id == _self_param(fn):
        if _object_exempt(model, fn) or not container_attribute(model, fn.class_name, container.attr):
            return None
        return f"{shown}, which lives on the object"
    if not isinstance(container, ast.Name):
        return None
    if container.id in fn.globals_:
        return f"{shown}, a global" if mutable_containers_only(model, model.module_bindings.get(container.id, [])) else None
    if container.id in fn.bindings:
        return None
    owner, bindings = model.lookup(container.id, fn.parent)
    if not mutable_containers_only(model, bindings) or not _crosses_trace(fn, owner):
        return None
    return f"{shown}, defined {f'in `{_qual(owner)}`' if owner is not None else 'at module level'}"


def _read_whole(model, name: ast.Name) -> ast.expr:
    """The attribute chain a name is read through (`x.shape[0]`): what the closure uses."""
    node: ast.expr = name
    parent = model.parent(node)
    while isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node:
        node, parent = parent, model.parent(parent)
    return node


def _self_param(fn) -> str | None:
    return fn.params[0].name if fn.params and fn.class_name and fn.params[0].index == 0 else None


def _object_exempt(model, fn) -> bool:
    """Objects built, or mutated by design, in traced code: constructors, flax/equinox/haiku,
    and objects of a class that traced code builds (``game = Game(state); game.step()``
    inside the jitted function): made and dropped within one trace, nothing outlives it."""
    if fn.name in _CONSTRUCTORS or stateful_class(model, fn.class_name):
        return True
    if any(r.kind in ("nnx.jit", "linen.jit") for r in fn.traced_by):
        return True
    return all(r.by_call for r in fn.traced_by) and built_in_trace(model, fn.class_name)


def _crosses_trace(fn, owner) -> bool:
    """True when a value made in ``fn`` reaches ``owner``'s scope across a trace
    boundary: ``owner`` is not traced, or a function on the way is traced on its own
    (a scan/vmap/grad body) rather than called directly."""
    f = fn
    while f is not None and f is not owner:
        if any(not r.by_call for r in f.traced_by):
            return True
        f = f.parent
    return owner is None or not owner.traced


def _of(owner) -> str:
    return "" if owner is None else f" of `{_qual(owner)}`"


def _qual(fn) -> str:
    return fn.qualname.replace(".<locals>.", ".")


def _target_text(target: ast.AST) -> str:
    if isinstance(target, ast.Subscript):
        return f"{_target_text(target.value)}[...]"
    if isinstance(target, ast.Attribute):
        return f"{_target_text(target.value)}.{target.attr}"
    return describe(target)


