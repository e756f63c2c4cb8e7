from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from jaxlint.diagnostic import Applicability, Confidence, Fix
from jaxlint.rule import Invalid, Option, StaticRule, Valid
from jaxlint.rules.static._fixplan import free_name, is_statement_list_member
from jaxlint.rules.static._sizes import in_test, is_test_path
from jaxlint.static.runs import made_once
from jaxlint.static.semantic import DIFF_TRANSFORMS, JIT_LIKE, TRACING_HOFS, FunctionInfo, ModuleModel, walk
from jaxlint.textutil import LazyPattern
from jaxlint.static.classes import inherited_method, method_of
from jaxlint.static.loops import (COMPREHENSIONS, calls_of, depends_on, escapes, local_function, loop_bound, loop_of,
                                  repeatedly_called, runs_once)

if TYPE_CHECKING:
    from jaxlint.static.checker import StaticContext

# benchmarks/bench_claims.py (jax 0.10.2, CPU, a tiny elementwise function): a reused
# jitted callable dispatches in about 4 us; jax.jit(f)(x) on a module-level f finds its
# compiled code in jax's cache but takes about 25 us; a lambda, partial, grad, bound
# method or nested def is a new function object, traced and compiled again: about 20 ms.
_RECOMPILES = "each new wrapper of a new function object is traced and compiled again (about 20 ms for a tiny function, against about 4 us to call a reused one)"
_MAYBE = "if it is a new function object each time (a bound method, a closure) it is traced and compiled again (about 20 ms for a tiny function), and even if not, every call re-wraps it (about 25 us against about 4 us for a reused wrapper)"
_REWRAPS = "the compiled code is found in jax's cache, but every call re-wraps it and takes the slow dispatch path (about 25 us against about 4 us for a reused wrapper)"


class JitPerCall(StaticRule):
    """
    ## What it does
    Finds jit wrappers that are created again on every iteration or every call:

    * an immediately-invoked `jax.jit(f)(x)` inside a loop, or in a function that is
      itself called in a loop (in this module, also as `obj.method()` on an instance of
      a class of the module);
    * an immediately-invoked `jax.jit(f)(x)` in any other function body when `f` is a
      new function object that could be made once: a lambda, a `functools.partial` or
      a transform of module-level code, or a bound method (`jax.jit(self.update)`,
      also inherited from a base class of another module);
    * `g = jax.jit(...)`, `f = jax.jit(f)` or a `@jax.jit`-decorated def inside a loop,
      called in that loop (unless the function itself changes per iteration:
      `for f in fns`);
    * `jax.jit` of a lambda, a `functools.partial`, a transform (`jax.grad(f)`), a
      bound method or a nested def, created inside a function that is itself called
      in a loop, and only called there (not returned or stored);
    * `g = jax.jit(lambda ...)` or `jax.jit` of a def nested in the function (also in one
      arm: `g = jit(core) if flag else core`), made by a statement of a function's body
      (so on every call of it) and used there: called,
      or handed to a function of this module that calls it, first outside any loop.
      Every call of the function compiles it again (jax-cosmo's `romb` integrator:
      `vfunc = jit(lambda x: function(x, *args))`). A wrapper made once per call to be
      reused in a loop (`step = jax.jit(...)` then `for b in batches: step(...)` in
      `train()`) shares its compile between the iterations and stays clean.

    Code that runs once stays clean unless it loops: `main()` (and what `app.run` or
    `fire.Fire` starts), set-up and tear-down functions (`__init__`, `setup`, `init_*`,
    `close`, ...), functions called only from those or from module level, and checks
    whose jitted result is only asserted or printed. So does code made once per object
    or per key, however often its function runs: a `functools.cache` / `lru_cache` /
    `cached_property` function, a block guarded by a memo test on what it stores
    (`if self._f is None: self._f = ...`, `if k not in _CACHE: _CACHE[k] = ...`, or
    `if k in _CACHE: return _CACHE[k]` before it), and a wrapper of a function made in
    an enclosing function whose inner function is kept (returned or stored: a factory,
    a property that builds it once), which is the same object on every call. A
    `None` default filled on every call (`if fn is None: fn = ...`) is no memo.
    A re-wrap of a module-level
    function, whose compiled code jax's cache reuses, costs only dispatch time: it is
    reported where the call is seen to repeat (a loop, or a caller in a loop), not in a
    function such as a `from_string()` constructor. So do wrappers that no reuse could
    save: a closure over the call's own arguments (the function differs per call), and
    the "jit the loop" idiom `jax.jit(partial(lax.scan, body))(init, xs)`, which
    compiles a whole loop once per call on purpose. Module-level `step = jax.jit(f)`,
    a jit created once in `main()` and reused, jit factories that return or store the
    wrapper, and jit inside traced code (traced once per compilation of the outer
    function) stay clean. Also `jax.pmap`, `pjit`, `equinox.filter_jit` and
    `flax.nnx.jit`.

    Confidence: a new function object re-wrapped in a loop is certain; a re-wrap per
    call of a function (seen to repeat through its callers, or of a bound method or
    closure, or a lambda or nested def jitted by the function's body), and a re-wrap
    that costs only dispatch, are likely.

    ## Why is this bad?
    jax caches compiled code per jitted *function object*. A lambda, a `partial`,
    `jax.grad(f)`, `obj.method` or a nested def is a new object each time it is
    evaluated, so every new wrapper traces and compiles again: on jax 0.10 (CPU),
    about 20 ms per call for a tiny function instead of about 4 us. Even for a module-level
    function, whose compiled code is reused, re-wrapping costs every call the slow
    dispatch path (about 25 us instead of about 4 us; `benchmarks/bench_claims.py`).

    ## Example
    ```python
    for batch in batches:
        params = jax.jit(update)(params, batch)
        loss = jax.jit(lambda p: loss_fn(p, batch))(params)
    ```

    ## Use instead
    ```python
    update_jit = jax.jit(update)
    loss_jit = jax.jit(loss_fn)

    for batch in batches:
        params = update_jit(params, batch)
        loss = loss_jit(params, batch)
    ```

    ## Fix safety
    For `jax.jit(f)(...)` with literal options (`static_argnums=(1,)`), the fix makes
    the wrapper once and calls it: where `f` is a module-level function, as
    `f_jit = jax.jit(f)` right after `f`'s definition (or an existing module-level
    binding of the same expression); where `f` is defined in the enclosing function,
    before the outermost loop that does not redefine it. It is unsafe: the wrapper is
    now created once, earlier (at import time for a module-level one), so a later
    rebinding of `f` is no longer seen. No import is needed.

    ## Options

    ## References
    * [JAX FAQ: jit caching](https://docs.jax.dev/en/latest/jit-compilation.html#caching)
    * [JAX FAQ: how to use jit](https://docs.jax.dev/en/latest/faq.html#how-to-use-jit-and-pmap)
    """

    code = "JAX103"
    group = "pedantic"
    name = "jit-per-call"
    summary = "a jit wrapper is created again on every iteration or call"
    fix_hint = "create the jitted function once (module level, or before the loop) and reuse it"
    fixable = Applicability.UNSAFE
    options = {
        "check-tests": Option(False, "also check test files (`test_*.py`, `*_test.py`) and test functions "
                                     "and classes, where `jax.jit(f)(x)` is how jit is exercised once", bool),
    }

    VALID = [
        Valid(
            """
            import jax

            def _legal_moves(state):
                return state.board == 0

            def from_fen(fen):
                state = parse(fen)
                # a module-level function: its compiled code is cached; only dispatch is paid
                return state.replace(mask=jax.jit(_legal_moves)(state))
            """
        ),
        Valid(
            """
            import jax

            def update(params, batch):
                return params - 0.1 * batch

            update_jit = jax.jit(update)

            def train(params, batches):
                step = jax.jit(lambda p, b: update(p, b))
                for batch in batches:
                    params = step(params, batch)
                    params = update_jit(params, batch)
                return params
            """
        ),
        Valid(
            """
            from jax import jit

            def init(key):
                return key

            def main(key):
                jinit = jit(init)
                return jinit(key)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import jax

            def evaluate(params, x):
                def forward(v):
                    return params @ v

                def run(v):
                    # `run` is only called here: a new `forward` on every `evaluate`
                    return jax.jit(forward)(v)

                return run(x)
            """,
            line=9,
            message="nested def `forward`",
        ),
        Invalid(
            """
            import jax

            def step(x, fn=None):
                if fn is None:  # a default filled on every call, not a memo
                    fn = jax.jit(lambda v: v + 1)(x)
                return fn
            """,
            line=5,
            message="a lambda every time `step` runs",
        ),
        Invalid(
            """
            import jax

            def step(x):
                return x * 2

            def train(x, n):
                for _ in range(n):
                    x = jax.jit(step)(x)
                return x
            """,
            line=8,
            message="`jax.jit(step)(...)` in a loop",
            expected_fix="""
            import jax

            def step(x):
                return x * 2


            step_jit = jax.jit(step)

            def train(x, n):
                for _ in range(n):
                    x = step_jit(x)
                return x
            """,
        ),
    ]

    def check(self, ctx: StaticContext) -> None:
        model = ctx.model
        if not self.opts["check-tests"] and is_test_path(ctx.path):
            return
        self._skip_tests = not self.opts["check-tests"]
        repeated = _Lazy(lambda: repeatedly_called(model))
        once = _Lazy(lambda: runs_once(model, repeated.value))
        # cheap name test first: resolving every call of a module costs more than the model
        local = {name for name, q in model.aliases.items() if q in JIT_LIKE}
        for node in model.nodes(ast.Call):
            func = node.func
            if not node.args or not ((isinstance(func, ast.Attribute) and func.attr in _JIT_ATTRS)
                                     or (isinstance(func, ast.Name) and func.id in local)):
                continue
            if (model.resolve_call(node) or "") in JIT_LIKE:
                parent = model.parent(node)
                if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in parent.decorator_list:
                    continue
                self._check_call(ctx, repeated, node, parent, once)
        for fn in model.functions:
            made = fn.node
            if fn.parent is None and model.parent(made) is ctx.tree or isinstance(made, ast.Lambda):
                continue  # a top-level def is made once
            dec = next((d for d in made.decorator_list if _is_jit_decorator(model, d)), None)
            if dec is not None:
                self._check_decorated(ctx, repeated, made, dec)

    # ------------------------------------------------------------------ jax.jit(...) calls
    def _check_call(self, ctx, repeated, call: ast.Call, parent, once) -> None:
        model = ctx.model
        scope = model.function_of(call)
        if scope is not None and scope.traced:
            return  # an inner jit is traced once per compilation of the outer function
        if self._skip_tests and in_test(scope):
            return
        loop = loop_of(model, call)
        if loop is None and made_once(model, call, scope):
            return  # memoised: once per object or per key (a cache, a guarded attribute or dict)
        target = call.args[0]
        kind, fresh = _describe_target(model, target, scope, loop)
        # the message text is made only when reporting: source segments cost a file split
        shown = _Lazy(lambda: f"`{_short(ctx, call.func)}({_short(ctx, target)})`")
        if isinstance(parent, ast.Call) and parent.func is call:
            if loop is not None:
                if isinstance(target, ast.Name) and target.id in loop_bound(loop):
                    return  # `for f in fns: jax.jit(f)(x)`: a different function each time
                where = "in a loop"
            elif scope is not None:
                if id(scope) in repeated.value:
                    where = f"every time `{_name(scope)}` runs (it is called in a loop)"
                elif fresh is None or id(scope) in once.value or _one_off(model, call, parent):
                    # `jax.jit(model.init)(rng, x)` in set-up code, in `main()`, or a check whose
                    # result is only asserted: runs once, or too seldom for the wrapper to matter
                    return
                elif fresh is False:
                    # a reused function object: jax's cache has its compiled code, and the
                    # wrapper costs only dispatch time, which matters on a hot path: report it
                    # where the call is seen to repeat (a loop, a caller in a loop), as above
                    return
                elif fresh and (_per_call(model, target, scope) or _runs_a_loop(model, target, scope)):
                    # a closure over the call's own arguments differs per call: no wrapper can
                    # be reused; `jax.jit(partial(lax.scan, body))(init, xs)` compiles a whole
                    # loop, whose one compile per call is the idiom's point (no eager dispatch)
                    return
                else:
                    where = f"every time `{_name(scope)}` runs"
            else:
                return
            why = _RECOMPILES if fresh else _REWRAPS if fresh is False else _MAYBE
            if loop is not None:
                msg = (f"{shown.value[:-1]}(...)` in a loop builds a new jit wrapper of {kind} on every iteration: {why}; "
                       "create the jitted function once, outside the loop")
            else:
                msg = (f"{shown.value[:-1]}(...)` builds a new jit wrapper of {kind} {where}: {why}; "
                       "create the jitted function once and reuse it")
            # certain: a new function object in a loop; likely: a re-wrap that costs dispatch
            # only, or a function seen to run many times only through its callers
            sure = Confidence.CERTAIN if loop is not None and fresh else Confidence.LIKELY
            ctx.report(call, msg, end_node=parent, fix=self._hoist_fix(ctx, call, scope, loop),
                       data={"target": kind, "recompiles": fresh}, confidence=sure)
            return
        parent = model.past_arm(call)  # `step = jit(core) if compile else core`: bound when that arm runs
        bound = _bound_name(parent, call)
        if bound is None:
            return
        made: ast.AST = target
        fdef = _rewrapped_def(model, parent)
        if fdef is not None:
            # `def f(...): ...; f = jax.jit(f)`: the same as `@jax.jit` on the def
            if scope is None and loop is None:
                return
            kind, fresh, made = f"nested def `{fdef.name}`", True, fdef
        self._check_bound(ctx, repeated, call, bound, scope, loop, kind, fresh, shown, made, once)

    def _check_decorated(self, ctx, repeated, node, dec) -> None:
        model = ctx.model
        scope = model.function_of(node)
        if scope is None and loop_of(model, node) is None:
            return
        if scope is not None and scope.traced:
            return
        if self._skip_tests and in_test(scope):
            return
        loop = loop_of(model, node)
        if loop is None and made_once(model, node, scope):
            return
        kind = f"nested def `{node.name}`"
        self._check_bound(ctx, repeated, dec, node.name, scope, loop, kind, True,
                          _Lazy(lambda: f"`@{_short(ctx, dec)}` on `{node.name}`"), node)

    def _check_bound(self, ctx, repeated, site, name, scope, loop, kind, fresh, shown, target, once=None) -> None:
        """A jit wrapper bound to ``name`` in ``scope``: flag when it is rebuilt for each use."""
        model = ctx.model
        if loop is None and scope is not None and fresh is True and once is not None \
                and id(scope) not in repeated.value:  # `g = jax.jit(...)` (not a decorated def) in a function
            self._check_made_per_call(ctx, site, name, scope, target, kind, shown, once)
            return
        uses = calls_of(model, scope, name)
        if uses is None or not uses:
            return  # escapes (returned, stored, passed on) or never called here
        if loop is not None:
            if depends_on(model, target, loop_bound(loop), scope):
                return  # the function changes per iteration (a sweep, a table of functions)
            if not any(model.inside(use, loop) for use in uses):
                return
            why = _RECOMPILES if fresh else _REWRAPS if fresh is False else _MAYBE
            ctx.report(site, f"{shown.value} creates a jit wrapper of {kind} on every iteration of the loop at line "
                             f"{loop.lineno}: {why}; create it once, before the loop",
                       data={"target": kind, "recompiles": fresh},
                       confidence=Confidence.CERTAIN if fresh else Confidence.LIKELY)
            return
        if scope is None or fresh is not True or id(scope) not in repeated.value:
            return
        if any(loop_of(model, use) is not None for use in uses):
            return  # created once per call, reused in a loop
        ctx.report(site, f"{shown.value} creates a jit wrapper of {kind} every time `{_name(scope)}` runs, and "
                         f"`{_name(scope)}` is called in a loop: {_RECOMPILES}; create the jitted function "
                         "once, outside, and pass the changing values as arguments",
                   data={"target": kind, "recompiles": fresh}, confidence=Confidence.LIKELY)

    def _check_made_per_call(self, ctx, site, name, scope, target, kind, shown, once) -> None:
        """``g = jax.jit(lambda ...)`` or ``jax.jit`` of a nested def, made by a statement of
        ``scope``'s body (so on every call of it) and used there, first outside any loop:
        called, or handed to a function of this module that calls it. Each call of
        ``scope`` makes a new function object, which jax traces and compiles again."""
        model = ctx.model
        if id(scope) in once.value or isinstance(scope.node, ast.Lambda) or _SET_UP().search(scope.name) \
                or not local_function(model, target, scope):
            return  # set-up code (`sharded_init`, `model_init`) runs once per model, not per step
        if model.past_arm(site) not in scope.node.body or _runs_a_loop(model, target, scope):
            return  # made only on some calls; or the "jit the loop" idiom, one compile per call on purpose
        uses = calls_of(model, scope, name, handed_on=True)
        if not uses:
            return
        first = min(uses, key=lambda n: (n.lineno, n.col_offset))
        if loop_of(model, first) is not None:
            return  # made once per call to be reused in a loop: the compile is shared by its iterations
        ctx.report(site, f"{shown.value} creates a jit wrapper of {kind} every time `{_name(scope)}` runs, so every "
                         f"call of `{_name(scope)}` traces and compiles it again (about 20 ms for a tiny function); "
                         "create the jitted function once, outside, taking what it closes over as arguments "
                         "(static ones as static arguments)",
                   data={"target": kind, "recompiles": True}, confidence=Confidence.LIKELY)

    # ------------------------------------------------------------------ fix
    def _hoist_fix(self, ctx, call: ast.Call, scope: FunctionInfo | None, loop) -> Fix | None:
        """``jax.jit(f)(...)`` -> ``f_jit(...)``, with ``f_jit = jax.jit(f)`` made once: after
        ``def f`` at module level, or in the enclosing function before the loop."""
        model: ModuleModel = ctx.model
        target = call.args[0]
        if len(call.args) != 1 or not isinstance(target, ast.Name):
            return None
        for k in call.keywords:  # static_argnums=(1,) and the like: the same wrapper each time
            if k.arg is None:
                return None
            try:
                ast.literal_eval(k.value)
            except (ValueError, SyntaxError, TypeError, RecursionError):
                return None
        imported = model.import_bindings(call.func, scope)  # `jax.jit`, `jit` bound by imports only
        if imported is None:
            return None
        r_owner, r_bindings = imported
        owner, bindings = model.lookup(target.id, scope)
        if len(bindings) != 1:
            return None
        if owner is None and r_owner is None and bindings[0].kind == "def":
            return self._module_level(ctx, call, scope, bindings[0].node, r_bindings)
        if scope is None or loop is None or bindings[0].kind not in ("def", "assign", "import"):
            return None
        # a local (or enclosing) function: made once before the outermost loop it is not
        # (re)defined in, in the same function
        anchor = None
        for a in model.ancestors(call):
            if a is scope.node:
                break
            if isinstance(a, (ast.For, ast.AsyncFor, ast.While)) or isinstance(a, COMPREHENSIONS):
                stmt = model.statement_of(a)
                if stmt is None or any(model.inside(b.node, stmt) for b in [*bindings, *r_bindings]):
                    break
                anchor = stmt
        if anchor is None or not is_statement_list_member(model, anchor):
            return None
        # a binding's node is a statement or an arg (typed ast.AST): it has a line
        if any(b.node.lineno > anchor.lineno  # type: ignore[attr-defined]
               for b in [*bindings, *r_bindings] if model.function_of(b.node) is scope):
            return None  # bound after the loop in this function: not yet there before it
        name = free_name(model, f"{target.id}_jit")
        return ctx.codemod(f"Create `{name} = {_short(ctx, call)}` once, before the loop, and call it",
                           Applicability.UNSAFE, call=call, name=name, before=anchor)

    def _module_level(self, ctx, call: ast.Call, scope, fdef, r_bindings) -> Fix | None:
        model: ModuleModel = ctx.model
        tree: ast.Module = ctx.tree
        if model.parent(fdef) is not tree:
            return None
        if any(b.node.lineno > fdef.lineno or model.parent(b.node) is not tree for b in r_bindings):
            return None  # the import must run before the new line does
        dump = ast.dump(call)
        at_module = scope is None
        for stmt in tree.body:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and ast.dump(stmt.value) == dump and len(model.module_bindings.get(stmt.targets[0].id, ())) == 1
                    and (not at_module or stmt.lineno < call.lineno)):
                name = stmt.targets[0].id
                return ctx.codemod(f"Use the module-level `{name}`", Applicability.UNSAFE, call=call, name=name)
        if at_module and fdef.lineno > call.lineno:
            return None
        target = call.args[0]
        if not isinstance(target, ast.Name):
            return None  # never: the caller found a name's binding
        name = free_name(model, f"{target.id}_jit")
        return ctx.codemod(f"Create `{name} = {_short(ctx, call)}` once at module level and call it",
                           Applicability.UNSAFE, call=call, name=name, after=fdef)

    def codemod(self, fx) -> None:
        import libcst as cst

        call = fx.node("call", cst.Call)
        name = fx.arg("name")
        fx.replace(call, cst.Name(name))
        made = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], call)])
        if fx.arg("after") is not None:  # two blank lines around a module-level statement
            fx.insert_after(fx.node("after", cst.FunctionDef),
                            made.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]))
        elif fx.arg("before") is not None:
            fx.insert_before(fx.node("before", cst.BaseStatement), made)


# ---------------------------------------------------------------------- helpers
_JIT_ATTRS = {q.rsplit(".", 1)[-1] for q in JIT_LIKE}


class _Lazy:
    """A value computed on first use (the call graph is needed for few files)."""

    def __init__(self, make) -> None:
        self._make = make
        self._value = None

    @property
    def value(self):
        if self._value is None:
            self._value = self._make()
        return self._value


def _is_jit_decorator(model, dec) -> bool:
    if model.resolve(dec) in JIT_LIKE:
        return True
    if isinstance(dec, ast.Call):
        q = model.resolve_call(dec)
        if q in JIT_LIKE:
            return True
        if q == "functools.partial" and dec.args and model.resolve(dec.args[0]) in JIT_LIKE:
            return True
    return False


def _describe_target(model, target, scope, loop) -> tuple[str, bool | None]:
    """What is being jitted, and whether it is a new function object each time
    (None: cannot tell, e.g. a parameter or ``obj.method``)."""
    if isinstance(target, ast.Lambda):
        return "a lambda", True
    if isinstance(target, ast.Call):
        q = model.resolve_call(target) or ""
        if q == "functools.partial":
            return "a `functools.partial`", True
        if q in DIFF_TRANSFORMS or q in TRACING_HOFS:
            return f"`{q.replace('jax.', 'jax.', 1)}(...)`", True
        return "the result of a call", None
    if isinstance(target, ast.Name):
        owner, bindings = model.lookup(target.id, scope)
        bindings = [b for b in bindings if not model.rewraps(b)]  # `f = jax.jit(f)`: still `f`
        if owner is not None and owner is not scope and escapes(model, scope, owner):
            # made in an enclosing function, once per call of that function, and this
            # function outlives it (returned, stored, passed on): the same object each call
            return f"`{target.id}` (made once in the enclosing `{_name(owner)}`)", False
        if len(bindings) == 1 and bindings[0].kind == "def":
            if owner is None:
                return f"module-level function `{target.id}`", False
            if loop is not None and not model.inside(bindings[0].node, loop):
                return f"`{target.id}`", False  # defined once, outside the loop
            return f"nested def `{target.id}`", True
        if len(bindings) == 1 and isinstance(bindings[0].value, (ast.Lambda, ast.Call)) and owner is not None:
            inner, fresh = _describe_target(model, bindings[0].value, scope, None)
            if fresh and (loop is None or model.inside(bindings[0].node, loop)):
                return f"`{target.id}` ({inner})", True
        if owner is None and bindings and all(b.kind in ("import", "def") for b in bindings):
            return f"`{target.id}`", False
        return f"`{target.id}`", None
    if isinstance(target, ast.Attribute):
        if model.resolve(target) is not None:
            return f"`{ast.unparse(target)}`", False
        if isinstance(target.value, ast.Name) and target.value.id in ("self", "cls") and scope is not None:
            cls_scope = scope
            while cls_scope is not None and cls_scope.class_name is None:
                cls_scope = cls_scope.parent
            if cls_scope is not None and (method_of(model, cls_scope.class_name, target.attr) is not None
                                          or inherited_method(model, cls_scope.class_name, target.attr)):
                return f"bound method `{ast.unparse(target)}`", True
        return f"`{ast.unparse(target)}`", None
    return "an expression", None


def _rewrapped_def(model, parent) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def that ``f = jax.jit(f)`` (the statement ``parent``) wraps, in its own scope."""
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return None
    name = parent.targets[0].id
    _, bindings = model.lookup(name, model.function_of(parent))
    b = next((b for b in bindings if b.node is parent), None)
    if b is None or not model.rewraps(b):
        return None
    fn = model.function_named(name, model.function_of(parent))
    return fn.node if fn is not None and not isinstance(fn.node, ast.Lambda) else None


def _bound_name(parent, call) -> str | None:
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return parent.targets[0].id
    if isinstance(parent, (ast.AnnAssign, ast.NamedExpr)) and isinstance(parent.target, ast.Name):
        return parent.target.id
    return None


#: Names of set-up functions, anywhere in the name (`sharded_init`, `init_model`, `initialize`).
_SET_UP = LazyPattern(r"(^|_)(init|initiali[sz]e)(_|$)", re.I)


def _one_off(model, call: ast.Call, outer: ast.Call) -> bool:
    """Whether the result of the jitted call ``outer`` is only checked (asserted), printed
    or dropped: a diagnostic or a synchronisation, not a step of a computation."""
    for a in model.ancestors(outer):
        if isinstance(a, ast.stmt):
            stmt = a
            break
        if isinstance(a, ast.Call) and (model.resolve_call(a) in _CHECKS or (
                isinstance(a.func, ast.Attribute) and a.func.attr.startswith("assert"))):
            return True  # print(...), logging.info(...), self.assertEqual(...), np.testing.assert_*
    else:
        return False
    if isinstance(stmt, ast.Assert):
        return True
    if isinstance(stmt, ast.Expr):
        # `jax.jit(f)(x)` or `jax.jit(f)(x).block_until_ready()` on its own line
        return stmt.value is outer or (isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute)
                                       and stmt.value.func.value is outer)
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        names = {t.id for t in stmt.targets}  # type: ignore[attr-defined]
        scope = model.function_of(stmt)
        reads = [n for n in (scope.body_nodes() if scope is not None else model.nodes(ast.Name))
                 if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)
                 and not model.inside(n, stmt)]
        return bool(reads) and all(any(isinstance(a, ast.Assert) for a in model.ancestors(n)) for n in reads)
    return False


#: Calls whose argument is only looked at (and ``*.assert*(...)``).
_CHECKS = {"builtins.print", "logging.info", "logging.debug", "logging.warning", "absl.logging.info"}


def _per_call(model, target: ast.AST, scope: FunctionInfo) -> bool:
    """Whether the jitted callable depends on values that change from one call of
    ``scope`` to the next: its parameters (not ``self``) or locals computed from them,
    read directly, through a nested def, a lambda or a ``functools.partial``."""
    seen: set[int] = set()
    stack: list[ast.AST] = [target]
    while stack:
        expr = stack.pop()
        for n in walk(expr):
            if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)) or n.id in ("self", "cls"):
                continue
            owner, bindings = model.lookup(n.id, model.function_of(n))
            if owner is not scope:
                continue  # module level, an enclosing factory, or the callable's own local
            for b in bindings:
                if id(b.node) in seen:
                    continue
                seen.add(id(b.node))
                if b.kind == "def":
                    stack.append(b.node)
                elif b.kind == "assign" and b.value is not None:
                    if not model.rewraps(b):
                        stack.append(b.value)
                elif b.kind in ("param", "for", "with", "assign", "other"):
                    return True
    return False


#: Transforms that run a whole loop: jitting one compiles the loop once per call.
_LOOPS = {"jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.map", "flax.nnx.scan",
          "flax.nnx.fori_loop", "flax.nnx.while_loop", "equinox.internal.scan", "equinox.internal.while_loop"}


def _runs_a_loop(model, target: ast.AST, scope: FunctionInfo) -> bool:
    """Whether the jitted callable is a loop transform (``partial(lax.scan, body)``) or a
    nested def or lambda whose own body runs one."""
    for _ in range(4):
        if isinstance(target, ast.Call) and target.args and model.resolve_call(target) == "functools.partial":
            target = target.args[0]
            continue
        break
    if model.resolve(target) in _LOOPS:
        return True
    if isinstance(target, ast.Name):
        fn = model.function_named(target.id, scope)
        if fn is None:
            return False
        target = fn.node
    if isinstance(target, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
        fn = model.function_info(target)
        return fn is not None and any(isinstance(n, ast.Call) and model.resolve_call(n) in _LOOPS
                                      for n in fn.body_nodes())
    return False


def _name(fn: FunctionInfo) -> str:
    return "lambda" if isinstance(fn.node, ast.Lambda) else fn.qualname.replace(".<locals>.", ".")


def _short(ctx, node) -> str:
    text = " ".join(ctx.segment(node).split())
    return text if len(text) <= 40 else text[:37] + "..."
