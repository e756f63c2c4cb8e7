from __future__ import annotations

import ast

from jaxlint.diagnostic import Applicability, Fix
from jaxlint.rule import Invalid, Option, StaticRule, Valid
from jaxlint.rules.static._fixplan import free_name, is_statement_list_member
from jaxlint.semantic import DIFF_TRANSFORMS, JIT_LIKE, TRACING_HOFS, FunctionInfo, ModuleModel

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# Measured on jax 0.10.2, CPU, a tiny elementwise function: a reused jitted callable
# dispatches in ~6 us; jax.jit(f)(x) on a module-level f finds its compiled code in
# jax's cache but takes ~40 us; a lambda, partial, grad, bound method or nested def
# is a new function object, so it is traced and compiled again: ~30 ms per call.
_RECOMPILES = "each new wrapper of a new function object is traced and compiled again (~30 ms for a tiny function, vs ~6 us to call a reused one)"
_MAYBE = "if it is a new function object each time (a bound method, a closure) it is traced and compiled again (~30 ms for a tiny function), and even if not, every call re-wraps it (~40 us vs ~6 us for a reused wrapper)"
_REWRAPS = "the compiled code is found in jax's cache, but every call re-wraps it and takes the slow dispatch path (~40 us vs ~6 us for a reused wrapper)"


class JitPerCall(StaticRule):
    """
    ## What it does
    Finds jit wrappers that are created again on every iteration or every call:

    * an immediately-invoked `jax.jit(f)(x)` inside a loop or a function body (when
      what is jitted cannot be told, e.g. `jax.jit(model.init)(rng, x)`, only in a
      function that is itself called in a loop: set-up code runs once);
    * `g = jax.jit(...)` or a `@jax.jit`-decorated def inside a loop, called in that
      loop (unless the function itself changes per iteration: `for f in fns`);
    * `jax.jit` of a lambda, a `functools.partial`, a transform (`jax.grad(f)`), a
      bound method or a nested def, created inside a function that is itself called
      in a loop, and only called there (not returned or stored).

    Module-level `step = jax.jit(f)`, a jit created once in `main()` and reused, jit
    factories that return or store the wrapper, and jit inside traced code (traced
    once per compilation of the outer function) stay clean. Also `jax.pmap`, `pjit`,
    `equinox.filter_jit` and `flax.nnx.jit`.

    ## Why is this bad?
    jax caches compiled code per jitted *function object*. A lambda, a `partial`,
    `jax.grad(f)`, `obj.method` or a nested def is a new object each time it is
    evaluated, so every new wrapper traces and compiles again: on jax 0.10 (CPU),
    ~30 ms per call for a tiny function instead of ~6 us. Even for a module-level
    function, whose compiled code is reused, re-wrapping costs every call the slow
    dispatch path (~40 us instead of ~6 us).

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
        Valid(
            """
            import functools
            import jax

            def make_step(lr):
                def step(p, g):
                    return p - lr * g
                return jax.jit(step)

            def sweep(fns, x):
                jitted = [jax.jit(f) for f in fns]
                for f in fns:
                    print(jax.jit(f)(x))
                for lr in (0.1, 0.01):
                    step = jax.jit(functools.partial(make_step, lr))
                    step(x)
                return jitted
            """
        ),
        Valid(
            """
            import jax

            @jax.jit
            def outer(x):
                for i in range(3):
                    x = jax.jit(lambda y: y * 2)(x)
                return x
            """
        ),
        Valid(
            """
            import jax

            class Model:
                def __init__(self, fn):
                    self.fwd = jax.jit(lambda x: fn(x))

                def __call__(self, x):
                    return self.fwd(x)

            def lowered(f, x):
                return jax.jit(f).lower(x).compile()
            """
        ),
    ]
    INVALID = [
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
        Invalid(
            """
            import jax

            def loss(p, x):
                return ((p * x) ** 2).sum()

            def train(params, batches):
                for batch in batches:
                    grads = jax.jit(jax.grad(loss))(params, batch)
                    params = params - 0.1 * grads
                return params
            """,
            line=8,
            message="traced and compiled again",
        ),
        Invalid(
            """
            import jax

            def predict(params, x):
                return jax.jit(lambda p, v: p @ v)(params, x)
            """,
            line=4,
            message="every time `predict` runs",
        ),
        Invalid(
            """
            import jax

            def evaluate(params, x):
                @jax.jit
                def forward(v):
                    return params @ v
                return forward(x)

            def main(params, data):
                for x in data:
                    evaluate(params, x)
            """,
            line=4,
            message="nested def `forward`",
        ),
        Invalid(
            """
            import functools
            import jax

            def update(p, g, lr):
                return p - lr * g

            def run(p, grads):
                for g in grads:
                    step = jax.jit(functools.partial(update, lr=0.1))
                    p = step(p, g)
                return p
            """,
            line=9,
            message="every iteration",
        ),
        Invalid(
            """
            import jax
            import jax.numpy as jnp

            def f(x):
                return jnp.sin(x)

            def g(x):
                return jax.jit(f, static_argnums=())(x) + jax.jit(f, static_argnums=())(x)

            for i in range(3):
                print(jax.jit(f)(i))
            """,
            count=3,
            expected_fix="""
            import jax
            import jax.numpy as jnp

            def f(x):
                return jnp.sin(x)


            f_jit_2 = jax.jit(f)


            f_jit = jax.jit(f, static_argnums=())

            def g(x):
                return f_jit(x) + f_jit(x)

            for i in range(3):
                print(f_jit_2(i))
            """,
        ),
        Invalid(
            """
            import jax


            def train(params, batches):
                def update(p, b):
                    return p - 0.1 * b

                # one step per batch
                for batch in batches:   # the loop
                    params = jax.jit(update)( params,batch )  # odd spacing
                return params
            """,
            line=10,
            message="in a loop",
            expected_fix="""
            import jax


            def train(params, batches):
                def update(p, b):
                    return p - 0.1 * b

                # one step per batch
                update_jit = jax.jit(update)
                for batch in batches:   # the loop
                    params = update_jit( params,batch )  # odd spacing
                return params
            """,
        ),
    ]

    def check(self, ctx) -> None:
        model = ctx.model
        if not self.opts["check-tests"] and _is_test_path(ctx.path):
            return
        self._skip_tests = not self.opts["check-tests"]
        repeated = _Lazy(lambda: _repeatedly_called(model))
        # cheap name test first: resolving every call of a module costs more than the model
        local = {name for name, q in model.aliases.items() if q in JIT_LIKE}
        for node in model.nodes(ast.Call):
            func = node.func
            if not node.args or not ((isinstance(func, ast.Attribute) and func.attr in _JIT_ATTRS)
                                     or (isinstance(func, ast.Name) and func.id in local)):
                continue
            if model.resolve_call(node) in JIT_LIKE:
                parent = model.parent(node)
                if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in parent.decorator_list:
                    continue
                self._check_call(ctx, repeated, node, parent)
        for fn in model.functions:
            node = fn.node
            if fn.parent is None and model.parent(node) is ctx.tree or isinstance(node, ast.Lambda):
                continue  # a top-level def is made once
            dec = next((d for d in node.decorator_list if _is_jit_decorator(model, d)), None)
            if dec is not None:
                self._check_decorated(ctx, repeated, node, dec)

    # ------------------------------------------------------------------ jax.jit(...) calls
    def _check_call(self, ctx, repeated, call: ast.Call, parent) -> None:
        model = ctx.model
        scope = model.function_of(call)
        if scope is not None and scope.traced:
            return  # an inner jit is traced once per compilation of the outer function
        if self._skip_tests and _in_test(scope):
            return
        loop = _loop_of(model, call)
        target = call.args[0]
        kind, fresh = _describe_target(model, target, scope, loop)
        # the message text is made only when reporting: source segments cost a file split
        shown = _Lazy(lambda: f"`{_short(ctx, call.func)}({_short(ctx, target)})`")
        if isinstance(parent, ast.Call) and parent.func is call:
            if loop is not None:
                if isinstance(target, ast.Name) and target.id in _loop_bound(loop):
                    return  # `for f in fns: jax.jit(f)(x)`: a different function each time
                where = "in a loop"
            elif scope is not None:
                if fresh is None and id(scope) not in repeated.value:
                    return  # `jax.jit(model.init)(rng, x)` in a set-up function: runs once
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
            ctx.report(call, msg, end_node=parent, fix=self._hoist_fix(ctx, call, scope, loop),
                       data={"target": kind, "recompiles": fresh})
            return
        bound = _bound_name(parent, call)
        if bound is None:
            return
        self._check_bound(ctx, repeated, call, bound, scope, loop, kind, fresh, shown, target)

    def _check_decorated(self, ctx, repeated, node, dec) -> None:
        model = ctx.model
        scope = model.function_of(node)
        if scope is None and _loop_of(model, node) is None:
            return
        if scope is not None and scope.traced:
            return
        if self._skip_tests and _in_test(scope):
            return
        loop = _loop_of(model, node)
        kind = f"nested def `{node.name}`"
        self._check_bound(ctx, repeated, dec, node.name, scope, loop, kind, True,
                          _Lazy(lambda: f"`@{_short(ctx, dec)}` on `{node.name}`"), node)

    def _check_bound(self, ctx, repeated, site, name, scope, loop, kind, fresh, shown, target) -> None:
        """A jit wrapper bound to ``name`` in ``scope``: flag when it is rebuilt for each use."""
        model = ctx.model
        uses = _uses(model, scope, name)
        if uses is None or not uses:
            return  # escapes (returned, stored, passed on) or never called here
        if loop is not None:
            if _depends_on(target, _loop_bound(loop)):
                return  # the function changes per iteration (a sweep, a table of functions)
            if not any(_inside(model, use, loop) for use in uses):
                return
            why = _RECOMPILES if fresh else _REWRAPS if fresh is False else _MAYBE
            ctx.report(site, f"{shown.value} creates a jit wrapper of {kind} on every iteration of the loop at line "
                             f"{loop.lineno}: {why}; create it once, before the loop",
                       data={"target": kind, "recompiles": fresh})
            return
        if scope is None or fresh is not True or id(scope) not in repeated.value:
            return
        if any(_loop_of(model, use) is not None for use in uses):
            return  # created once per call, reused in a loop
        ctx.report(site, f"{shown.value} creates a jit wrapper of {kind} every time `{_name(scope)}` runs, and "
                         f"`{_name(scope)}` is called in a loop: {_RECOMPILES}; create the jitted function "
                         "once, outside, and pass the changing values as arguments",
                   data={"target": kind, "recompiles": fresh})

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
        root = call.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return None
        r_owner, r_bindings = model.lookup(root.id, scope)
        if not r_bindings or any(b.kind != "import" for b in r_bindings):
            return None
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
            if isinstance(a, (ast.For, ast.AsyncFor, ast.While)) or isinstance(a, _COMPREHENSIONS):
                stmt = a if isinstance(a, ast.stmt) else _statement_of(model, a)
                if stmt is None or any(_inside(model, b.node, stmt) for b in [*bindings, *r_bindings]):
                    break
                anchor = stmt
        if anchor is None or not is_statement_list_member(model, anchor):
            return None
        if any(b.node.lineno > anchor.lineno for b in [*bindings, *r_bindings] if model.function_of(b.node) is scope):
            return None  # bound after the loop in this function: not yet there before it
        name = free_name(model, f"{target.id}_jit")
        return ctx.codemod(f"Create `{name} = {_short(ctx, call)}` once, before the loop, and call it",
                           Applicability.UNSAFE, call=call, name=name, before=anchor)

    def _module_level(self, ctx, call: ast.Call, scope, fdef, r_bindings) -> Fix | None:
        model: ModuleModel = ctx.model
        if model.parent(fdef) is not ctx.tree:
            return None
        if any(b.node.lineno > fdef.lineno or model.parent(b.node) is not ctx.tree for b in r_bindings):
            return None  # the import must run before the new line does
        dump = ast.dump(call)
        at_module = scope is None
        for stmt in ctx.tree.body:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and ast.dump(stmt.value) == dump and len(model.module_bindings.get(stmt.targets[0].id, ())) == 1
                    and (not at_module or stmt.lineno < call.lineno)):
                name = stmt.targets[0].id
                return ctx.codemod(f"Use the module-level `{name}`", Applicability.UNSAFE, call=call, name=name)
        if at_module and fdef.lineno > call.lineno:
            return None
        name = free_name(model, f"{call.args[0].id}_jit")
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
        if len(bindings) == 1 and bindings[0].kind == "def":
            if owner is None:
                return f"module-level function `{target.id}`", False
            if loop is not None and not _inside(model, bindings[0].node, loop):
                return f"`{target.id}`", False  # defined once, outside the loop
            return f"nested def `{target.id}`", True
        if len(bindings) == 1 and isinstance(bindings[0].value, (ast.Lambda, ast.Call)) and owner is not None:
            inner, fresh = _describe_target(model, bindings[0].value, scope, None)
            if fresh and (loop is None or _inside(model, bindings[0].node, loop)):
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
            if cls_scope is not None and model.method_named(cls_scope.class_name, target.attr) is not None:
                return f"bound method `{ast.unparse(target)}`", True
        return f"`{ast.unparse(target)}`", None
    return "an expression", None


def _loop_of(model, node) -> ast.AST | None:
    """The innermost loop of ``node``'s own scope whose body runs ``node`` repeatedly."""
    child = node
    for a in model.ancestors(node):
        if isinstance(a, _SCOPES):
            return None
        if isinstance(a, (ast.For, ast.AsyncFor)) and any(child is s for s in a.body):
            return a
        if isinstance(a, ast.While) and (child is a.test or any(child is s for s in a.body)):
            return a
        if isinstance(a, _COMPREHENSIONS) and not (a.generators and child is a.generators[0]):
            return a
        if isinstance(a, ast.comprehension) and child is a.iter:
            # the first generator's iterable runs once; later ones once per outer item
            comp = model.parent(a)
            if isinstance(comp, _COMPREHENSIONS) and comp.generators and comp.generators[0] is a:
                child = comp
                continue
            return comp
        child = a
    return None


def _loop_bound(loop) -> set[str]:
    """Names that can change from one iteration to the next."""
    names: set[str] = set()
    if isinstance(loop, _COMPREHENSIONS):
        for g in loop.generators:
            names.update(n.id for n in ast.walk(g.target) if isinstance(n, ast.Name))
        return names
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        names.update(n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name))
    for stmt in loop.body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
    return names


def _depends_on(expr, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(expr))


def _inside(model, node, container) -> bool:
    return node is container or any(a is container for a in model.ancestors(node))


def _bound_name(parent, call) -> str | None:
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return parent.targets[0].id
    if isinstance(parent, (ast.AnnAssign, ast.NamedExpr)) and isinstance(parent.target, ast.Name):
        return parent.target.id
    return None


def _uses(model, scope, name: str) -> list[ast.Call] | None:
    """The calls ``name(...)`` in ``scope``; None when the name is used any other way
    (returned, stored, passed, closed over) or bound more than once."""
    bindings = model.module_bindings.get(name, []) if scope is None else scope.bindings.get(name, [])
    if len(bindings) != 1:
        return None
    calls = []
    root = model.tree if scope is None else scope.node
    for n in model.nodes(ast.Name):
        if n.id != name or not isinstance(n.ctx, ast.Load) or not _inside(model, n, root):
            continue
        if model.function_of(n) is not scope:
            if scope is None:
                continue  # module-level name read inside a function: another scope's business
            return None  # closed over by a nested function: it escapes
        parent = model.parent(n)
        if not (isinstance(parent, ast.Call) and parent.func is n):
            return None
        calls.append(parent)
    return calls


def _repeatedly_called(model) -> set[int]:
    """ids of functions called inside a loop, or from a function that is."""
    calls_in: dict[int, list[FunctionInfo]] = {}
    seeds: set[int] = set()
    for node in model.nodes(ast.Call):
        scope = model.function_of(node)
        target, _ = model.callee(node.func, scope)
        if target is None:
            continue
        calls_in.setdefault(id(scope), []).append(target)
        if _loop_of(model, node) is not None:
            seeds.add(id(target))
    by_id = {id(f): f for f in model.functions}
    out = set()
    stack = list(seeds)
    while stack:
        i = stack.pop()
        if i in out:
            continue
        out.add(i)
        if i in by_id:
            stack.extend(id(t) for t in calls_in.get(i, ()))
    return out


def _is_test_path(path: str) -> bool:
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"


def _in_test(fn: FunctionInfo | None) -> bool:
    """Inside a test function or a method of a test class (pytest / unittest naming)."""
    while fn is not None:
        if fn.name.startswith("test") or (fn.class_name or "").startswith("Test") \
                or (fn.class_name or "").endswith(("Test", "Tests", "TestCase")):
            return True
        fn = fn.parent
    return False


def _statement_of(model, node) -> ast.stmt | None:
    for a in [node, *model.ancestors(node)]:
        if isinstance(a, ast.stmt):
            return a
    return None


def _name(fn: FunctionInfo) -> str:
    return "lambda" if isinstance(fn.node, ast.Lambda) else fn.qualname.replace(".<locals>.", ".")


def _short(ctx, node) -> str:
    text = " ".join(ctx.segment(node).split())
    return text if len(text) <= 40 else text[:37] + "..."
