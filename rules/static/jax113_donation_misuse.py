from __future__ import annotations

import ast
from typing import Iterator

from jaxlint.diagnostic import Severity
from jaxlint.rule import Invalid, StaticRule, Valid
from jaxlint.rules.static._jitcalls import call_arguments, jit_call_sites, named_calls
from jaxlint.semantic import ModuleModel

_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers")
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class DonationMisuse(StaticRule):
    """
    ## What it does
    Looks at the calls of functions jitted in the same module with `donate_argnums`
    or `donate_argnames`, and finds:

    * one buffer passed to two donated parameters of a call (`step(x, x)`);
    * a donated argument read again after the call, in the same function body, before
      it is reassigned (`new = step(state); log(state)`);
    * a donated argument passed on every iteration of a loop that never reassigns it.

    Calls through other modules, through containers, or with `*args` are not checked.

    ## Why is this bad?
    Donation hands the argument's device memory to the computation, which reuses it
    for the outputs. After the call the donated array is deleted: reading it raises
    `RuntimeError: Array has been deleted` on GPU and TPU (on CPU donation is skipped
    with a warning, so the bug hides until the code runs on an accelerator). One
    buffer cannot be donated twice in the same call.

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
    name = "donation-misuse"
    summary = "a donated buffer is donated twice, or used after the call that donated it"
    fix_hint = "reassign the donated name from the call's result, or stop donating it"
    severity = Severity.ERROR

    VALID = [
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
        Valid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, donate_argnums=0)
            def step(state, batch):
                return state + batch

            def run(state, batch, flag):
                if flag:
                    out = step(state, batch)
                else:
                    out = state
                return out
            """
        ),
        Valid(
            """
            import jax

            @jax.jit
            def f(x, y):
                return x + y

            def run(x):
                z = f(x, x)
                return x + z
            """
        ),
    ]
    INVALID = [
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
        Invalid(
            """
            import jax

            def add(a, b):
                return a + b

            add_inplace = jax.jit(add, donate_argnums=(0, 1))

            def run(x):
                return add_inplace(x, x)
            """,
            line=9,
            message="`x` is passed to two donated parameters",
        ),
        Invalid(
            """
            import functools
            import jax

            @functools.partial(jax.jit, donate_argnames=("buf",))
            def accumulate(buf, x):
                return buf + x

            def run(buf, xs):
                out = None
                for x in xs:
                    out = accumulate(buf, x)
                return out
            """,
            line=11,
            message="every iteration",
        ),
        Invalid(
            """
            import jax

            class Trainer:
                def __init__(self, params):
                    self.params = params
                    self._update = jax.jit(self._step, donate_argnums=0)

                def _step(self, opt_state, grads):
                    return opt_state - grads

                def fit(self, opt_state, grads):
                    new = self._update(opt_state, grads)
                    if new.sum() > 0:
                        return opt_state
                    return new
            """,
            line=14,
            message="`opt_state`",
        ),
    ]

    def check(self, ctx) -> None:
        model = ctx.model
        calls: list[ast.Call] | None = None
        for entry in model.entries:
            if not (entry.donate_argnums or entry.donate_argnames) or not entry.specs_literal:
                continue
            calls = named_calls(model) if calls is None else calls
            _, fn = model.entry_site(entry)
            if not fn.donated_params:
                continue
            for call, offset in jit_call_sites(model, entry, calls):
                donated = [(p, a) for p, a in call_arguments(call, fn, offset) if p in fn.donated_params]
                callee = ctx.segment(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else fn.name
                self._twice(ctx, donated, callee)
                for param, arg in donated:
                    if isinstance(arg, ast.Name):
                        self._used_after(ctx, model, call, arg, callee)

    def _twice(self, ctx, donated: list[tuple[str, ast.expr]], callee: str) -> None:
        seen: dict[str, str] = {}
        for param, arg in donated:
            if not isinstance(arg, (ast.Name, ast.Attribute)):
                continue
            key = ast.dump(arg)
            if key in seen:
                text = ctx.segment(arg)
                ctx.report(arg, f"`{text}` is passed to two donated parameters (`{seen[key]}` and `{param}`) "
                                f"of `{callee}`: one buffer cannot be donated twice",
                           data={"argument": text, "params": [seen[key], param]})
            else:
                seen[key] = param

    def _used_after(self, ctx, model: ModuleModel, call: ast.Call, arg: ast.Name, callee: str) -> None:
        stmt = _statement_of(model, call)
        if stmt is None or _stores(stmt, arg.id) or isinstance(stmt, (ast.Return, ast.Raise)):
            return
        name = arg.id
        use = _use_after(model, stmt, name)
        if use is not None:
            ctx.report(
                use,
                f"`{name}` was donated to `{callee}` at line {call.lineno} and is read here: its buffer is "
                f"deleted after the call (RuntimeError on GPU/TPU); reassign `{name}` from the result "
                f"or stop donating it",
                related=[ctx.related(arg, f"`{name}` is donated here")],
                data={"argument": name, "call_line": call.lineno},
            )
            return
        loop = _loop_without_store(model, stmt, name)
        if loop is not None:
            ctx.report(
                arg,
                f"`{name}` is donated to `{callee}` on every iteration of the loop at line {loop.lineno} but "
                f"never reassigned in it: from the second iteration on the call receives a deleted buffer",
                data={"argument": name, "loop_line": loop.lineno},
            )


def _statement_of(model: ModuleModel, node: ast.AST) -> ast.stmt | None:
    cur: ast.AST | None = node
    while cur is not None and not isinstance(cur, ast.stmt):
        if isinstance(cur, ast.Lambda):
            return None
        cur = model.parent(cur)
    return cur  # type: ignore[return-value]


def _loads(node: ast.AST, name: str) -> Iterator[ast.Name]:
    """Reads of ``name`` in an expression or simple statement, not in nested scopes."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
            yield n
        if isinstance(n, ast.Lambda) and n is not node:
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def _binds(target: ast.AST, name: str) -> bool:
    return isinstance(target, ast.Name) and target.id == name or isinstance(target, (ast.Tuple, ast.List)) and any(
        _binds(e.value if isinstance(e, ast.Starred) else e, name) for e in target.elts)


def _stores(stmt: ast.stmt, name: str) -> bool:
    """Whether the statement itself (not its nested blocks) rebinds ``name``."""
    if isinstance(stmt, ast.Assign):
        return any(_binds(t, name) for t in stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return _binds(stmt.target, name)
    return False


def _first(node: ast.AST, name: str) -> tuple[str, ast.AST] | None:
    """The first thing a statement does with ``name``: ("load", node), ("store", node), or None.
    Leaving the block (return, break...) counts as a store: nothing after it is reached.

    Branches: a read on any path is a read; a store on any path ends the search (the
    name may hold a fresh array there, so staying quiet is the safe answer).
    """
    if isinstance(node, list):
        for s in node:
            ev = _first(s, name)
            if ev is not None:
                return ev
        return None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        header = [*node.decorator_list, *getattr(node, "bases", ())]
        if not isinstance(node, ast.ClassDef):
            header += [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
        use = next((u for h in header for u in _loads(h, name)), None)
        if use is not None:
            return "load", use
        return ("store", node) if node.name == name else None
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        if isinstance(node, ast.AugAssign) and _binds(node.target, name):
            return "load", node.target
        value = node.value
        use = next(_loads(value, name), None) if value is not None else None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            use = use or next((u for u in _loads(t, name)), None)
        if use is not None:
            return "load", use
        return ("store", node) if _stores(node, name) else None
    if isinstance(node, ast.Delete):
        if any(_binds(t, name) for t in node.targets):
            return "store", node
    if isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        # the path leaves here: what follows is not "after the call" on this path
        use = next(_loads(node, name), None)
        return ("load", use) if use is not None else ("store", node)
    head: list[ast.AST] = []
    blocks: list[list[ast.stmt]] = []
    if isinstance(node, (ast.For, ast.AsyncFor)):
        head = [node.iter]
        if _binds(node.target, name):
            use = next(_loads(node.iter, name), None)
            return ("load", use) if use is not None else ("store", node)
        blocks = [node.body, node.orelse]
    elif isinstance(node, (ast.While, ast.If)):
        head, blocks = [node.test], [node.body, node.orelse]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            use = next(_loads(item.context_expr, name), None)
            if use is not None:
                return "load", use
            if item.optional_vars is not None and _binds(item.optional_vars, name):
                return "store", node
        blocks = [node.body]
    elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        blocks = [node.body, *[h.body for h in node.handlers], node.orelse, node.finalbody]  # type: ignore[attr-defined]
    elif isinstance(node, ast.Match):
        head, blocks = [node.subject], [c.body for c in node.cases]
    else:
        use = next(_loads(node, name), None)
        return ("load", use) if use is not None else None
    for h in head:
        use = next(_loads(h, name), None)
        if use is not None:
            return "load", use
    events = [ev for b in blocks if (ev := _first(b, name)) is not None]
    load = next((ev for ev in events if ev[0] == "load"), None)
    return load or (events[0] if events else None)


def _use_after(model: ModuleModel, stmt: ast.stmt, name: str) -> ast.AST | None:
    """The first read of ``name`` after ``stmt`` on straight-line paths of its function."""
    cur: ast.AST = stmt
    while True:
        parent = model.parent(cur)
        if parent is None:
            return None
        for field in _BLOCK_FIELDS:
            seq = getattr(parent, field, None)
            if isinstance(seq, list) and cur in seq:
                ev = _first(seq[seq.index(cur) + 1:], name)
                if ev is not None:
                    return ev[1] if ev[0] == "load" else None
                break
        if isinstance(parent, (*_NESTED_SCOPES, ast.Module)):
            return None
        if isinstance(parent, ast.ExceptHandler):
            parent = model.parent(parent)
        cur = parent


def _loop_without_store(model: ModuleModel, stmt: ast.stmt, name: str) -> ast.AST | None:
    """The innermost loop around ``stmt`` (same function) that never rebinds ``name``
    and does not leave right after the call."""
    cur: ast.AST = stmt
    while True:
        parent = model.parent(cur)
        if parent is None:
            return None
        for field in _BLOCK_FIELDS:
            seq = getattr(parent, field, None)
            if isinstance(seq, list) and cur in seq:
                rest = seq[seq.index(cur) + 1:]
                if any(isinstance(s, (ast.Return, ast.Break, ast.Raise)) for s in rest):
                    return None
        if isinstance(parent, (*_NESTED_SCOPES, ast.Module)):
            return None
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and cur in parent.body:
            stored = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
                         for s in parent.body for n in ast.walk(s))
            if isinstance(parent, (ast.For, ast.AsyncFor)) and _binds(parent.target, name):
                stored = True
            return None if stored else parent
        cur = parent
