"""How often code runs, and whether it runs under a trace at all: facts of the model
that rules ask instead of guessing from names.

* ``made_once``: code that runs once per object or per key, though its function may be
  called many times: a ``functools.cache`` / ``lru_cache`` / ``cached_property``
  function, and a block guarded by a memo test on what the block stores
  (``if self._f is None: self._f = ...``, ``if key not in _CACHE: _CACHE[key] = ...``,
  or the early-return form ``if key in _CACHE: return _CACHE[key]``).
* ``eager_block``: a ``with jax.disable_jit():`` or ``with jax.ensure_compile_time_eval():``
  block around a node: jit and the lax loops run their Python there, op by op.
* ``flag_off_when_traced``: jax's ``jax_disable_jit`` flag reads false whenever a function
  runs under a trace (only jits and lax loops trace it): an ``if jax.config.jax_disable_jit:``
  arm there is eager-only (``disable_jit_test`` says whether a test reads the flag).
* ``opaque_decorator``: a decorator imported from a package the model does not know, whose
  object's call may run the body under a tracer of its own, or not at all.
* ``never_given``: the parameters that no call of a transformed callable bound to a name
  (or to ``self.<attribute>``) passes: they keep their defaults under that trace.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.apis import ABSTRACT_EVAL, DIFF_TRANSFORMS, JIT_LIKE, TRACING_HOFS, TRANSPARENT_DECORATOR_PACKAGES
from jaxlint.static.scopes import target_names

if TYPE_CHECKING:  # the model asks these too (the jit map and tracing import this module)
    from typing import Callable

    from jaxlint.static.data import Reason
    from jaxlint.static.scopes import FunctionInfo, Scopes as ModuleModel

#: Decorators that make a function run once per distinct argument (or per object).
MEMO_DECORATORS = ("functools.cache", "functools.lru_cache", "functools.cached_property")
#: Context managers under which jax runs Python eagerly: under ``disable_jit`` jit is off
#: and the lax loops and conditionals run their bodies as Python; under
#: ``ensure_compile_time_eval`` operations on concrete values are computed at once.
EAGER_CONTEXTS = {"jax.disable_jit", "jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"}
#: lax functions that call their bodies with concrete values under ``jax.disable_jit()``.
EAGER_UNDER_DISABLE_JIT = {"jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.cond",
                           "jax.lax.switch", "jax.lax.map"}


def memoised(model: ModuleModel, fn: FunctionInfo | None) -> bool:
    """``fn`` is decorated with a memoising decorator (``functools.cache``, ``lru_cache``,
    ``cached_property``, or any ``*.cached_property``)."""
    if fn is None or isinstance(fn.node, ast.Lambda):
        return False
    for dec in fn.node.decorator_list:
        q = model.resolve(dec.func if isinstance(dec, ast.Call) else dec) or ""
        if q in MEMO_DECORATORS or q.endswith(".cached_property") or q.endswith(".lru_cache") \
                or (isinstance(dec, ast.Name) and dec.id == "cached_property"):
            return True
    return False


def made_once(model: ModuleModel, node: ast.AST, scope: FunctionInfo | None) -> bool:
    """``node`` runs once per object or per key however often ``scope`` is called: ``scope``
    is memoised, or ``node`` sits in a block guarded by a memo test on what it stores."""
    if memoised(model, scope):
        return True
    stop = scope.node if scope is not None else None
    child = node
    for a in model.ancestors(node):
        if a is stop or isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            break
        if isinstance(a, ast.If) and any(child is s for s in a.body):
            keys = {k for k in _memo_keys(a.test, missing=True) if _outlives(k, scope)}
            if keys and keys & _stored(a.body):
                return True
        for field in ("body", "orelse", "finalbody"):
            block = getattr(a, field, None)
            if isinstance(block, list) and any(child is s for s in block):
                if _after_early_return(block[:block.index(child)], scope, model):
                    return True
        child = a
    if scope is not None and stop is not None and child is not stop:
        # the statement of the function body itself: its earlier siblings
        body = getattr(stop, "body", [])
        if isinstance(body, list) and any(child is s for s in body) and _after_early_return(body[:body.index(child)], scope, model):
            return True
    return False


def _after_early_return(before: list[ast.stmt], scope: FunctionInfo | None, model: ModuleModel) -> bool:
    """One of ``before`` is ``if <present>: return ...`` and the function stores that key."""
    if scope is None:
        return False
    for st in before:
        if isinstance(st, ast.If) and st.body and isinstance(st.body[-1], ast.Return):
            keys = {k for k in _memo_keys(st.test, missing=False) if _outlives(k, scope)}
            if keys and keys & _stored(list(scope.node.body) if not isinstance(scope.node, ast.Lambda) else []):
                return True
    return False


def _key(expr: ast.AST) -> str | None:
    """A memo key: an attribute (``self._f``), a name, or the dict of ``_CACHE[key]``;
    a plain name is marked so that ``made_once`` can keep only names that outlive the call."""
    if isinstance(expr, ast.Subscript):
        expr = expr.value  # a memo dict: `_CACHE[key]`
    if isinstance(expr, ast.Name):
        return f"name:{expr.id}"
    if isinstance(expr, ast.Attribute):
        return ast.dump(expr, annotate_fields=False).replace("Store()", "Load()")
    return None


def _outlives(key: str, scope: FunctionInfo | None) -> bool:
    """A key of a value kept between calls: an attribute, or a name that is not a local
    of ``scope`` (module level, enclosing, ``global`` / ``nonlocal``). A local filled when
    it is None (``if fn is None: fn = ...``) is a default, made on every call."""
    if not key.startswith("name:") or scope is None:
        return True
    name = key[5:]
    return name in scope.globals_ or name in scope.nonlocals or name not in scope.bindings


def _memo_keys(test: ast.AST, missing: bool) -> set[str]:
    """What a memo test asks about: ``missing`` for the form true when the value is not
    there yet (``x is None``, ``not x``, ``k not in d``, ``not hasattr(o, "a")``), else
    for the form true when it is (``x is not None``, ``x``, ``k in d``, ``hasattr``)."""
    if isinstance(test, ast.BoolOp):
        out: set[str] = set()
        for v in test.values:
            out |= _memo_keys(v, missing)
        return out
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _memo_keys(test.operand, not missing)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, right = test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
            if isinstance(op, ast.Is) == missing:
                k = _key(_unget(test.left))
                return {k} if k else set()
            return set()
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(op, ast.NotIn) == missing:
            k = _key(right)
            return {k} if k else set()
        return set()
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "hasattr" \
            and len(test.args) == 2 and isinstance(test.args[1], ast.Constant) and isinstance(test.args[1].value, str):
        if missing:
            return set()
        return {_key(ast.Attribute(value=test.args[0], attr=test.args[1].value, ctx=ast.Load())) or ""} - {""}
    if not missing:
        k = _key(_unget(test))
        return {k} if k else set()
    return set()


def _unget(expr: ast.AST) -> ast.AST:
    """``getattr(o, "a", None)`` -> ``o.a``."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "getattr" \
            and len(expr.args) >= 2 and isinstance(expr.args[1], ast.Constant) and isinstance(expr.args[1].value, str):
        return ast.Attribute(value=expr.args[0], attr=expr.args[1].value, ctx=ast.Load())
    return expr


def _stored(stmts: list[ast.stmt]) -> set[str]:
    """Keys that ``stmts`` store to: assignment targets, ``setattr(o, "a", v)``,
    ``d.setdefault(k, v)``; not descending into nested scopes."""
    out: set[str] = set()
    stack: list[ast.AST] = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Assign):
            targets = list(n.targets)
        elif isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets = [n.target]
        else:
            targets = []
        for t in targets:
            for e in ([*t.elts] if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                k = _key(e)
                if k:
                    out.add(k)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr" and len(n.args) == 3 \
                and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            k = _key(ast.Attribute(value=n.args[0], attr=n.args[1].value, ctx=ast.Load()))
            if k:
                out.add(k)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "setdefault":
            k = _key(n.func.value)
            if k:
                out.add(k)
        stack.extend(ast.iter_child_nodes(n))
    return out


def eager_block(model: ModuleModel, node: ast.AST) -> str | None:
    """The context manager (``jax.disable_jit``, ``jax.ensure_compile_time_eval``) of a
    ``with`` block around ``node`` in its own scope, under which jax runs Python eagerly."""
    for a in model.ancestors(node):
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None
        if isinstance(a, (ast.With, ast.AsyncWith)):
            for item in a.items:
                e = item.context_expr
                q = model.resolve(e.func if isinstance(e, ast.Call) else e)
                if q in EAGER_CONTEXTS:
                    return q
    return None


#: jax's flag that turns jit off (``jax.config.update("jax_disable_jit", True)``, set
#: inside ``with jax.disable_jit():``), read as an attribute of the config.
DISABLE_JIT_FLAG = "jax.config.jax_disable_jit"
#: The reasons a function is traced by a trace that ``jax_disable_jit`` turns off: a jit
#: (equinox's and nnx's too) runs its function as plain Python with the flag on, and the lax
#: loops and conditionals call their bodies with concrete values (``EAGER_UNDER_DISABLE_JIT``).
#: Not here: ``pmap``, ``checkpoint``, ``vmap`` and the differentiation transforms, which
#: still trace under ``disable_jit`` (jax 0.10.2: a tracer reaches their function's
#: ``if jax.config.jax_disable_jit:`` arm; tests/rules/static/test_jax105.py).
_OFF_UNDER_DISABLE_JIT = frozenset({"jit", "pjit", "filter_jit", "nnx.jit"})
#: ... and the loops and conditionals that call their bodies with concrete values then (jax
#: 0.10.2, flax 0.12.8: not `flax.nnx.fori_loop`, which traces its body with the flag on).
_EAGER_LOOPS = EAGER_UNDER_DISABLE_JIT | {"flax.nnx.scan", "flax.nnx.cond"}
_EAGER_LOOPS_UNDER_DISABLE_JIT = frozenset(q.rsplit(".", 1)[-1] for q in _EAGER_LOOPS)


def disable_jit_test(model: ModuleModel, test: ast.AST) -> bool:
    """``test`` reads jax's disable-jit flag: ``jax.config.jax_disable_jit`` (or
    ``config.jax_disable_jit`` after ``from jax import config``), or
    ``jax.config.read("jax_disable_jit")`` (older jax; 0.10.2 raises there)."""
    if isinstance(test, ast.Attribute):
        return model.resolve(test) == DISABLE_JIT_FLAG
    return isinstance(test, ast.Call) and len(test.args) == 1 and not test.keywords \
        and isinstance(test.args[0], ast.Constant) and test.args[0].value == "jax_disable_jit" \
        and model.resolve_call(test) == "jax.config.read"


def reads_disable_jit(model: ModuleModel) -> bool:
    """The module names ``jax_disable_jit`` anywhere (kept: asked once per traced function)."""
    known = model.__dict__.get("_reads_disable_jit")
    if known is None:
        known = model.__dict__["_reads_disable_jit"] = any(
            a.attr == "jax_disable_jit" for a in model.nodes(ast.Attribute)) or any(
            c.value == "jax_disable_jit" for c in model.nodes(ast.Constant))
    return known


def flag_off_when_traced(model: ModuleModel, fn: FunctionInfo) -> bool:
    """``jax_disable_jit`` is false whenever ``fn`` runs under a trace: every way it is
    traced is a jit or a lax loop or conditional (``_OFF_UNDER_DISABLE_JIT``), applied in
    eager code or in a function of which this holds too, or a call from such a function.
    With the flag on none of these traces: ``fn`` then runs as Python on concrete values.
    So an arm under ``if jax.config.jax_disable_jit:`` (a debug mode's asserts on values)
    never runs traced; a ``vmap``, ``grad`` or ``pmap`` on the way makes it False (they
    trace with the flag on)."""
    memo: dict[int, bool] = model.__dict__.setdefault("_flag_off_when_traced", {})
    known = memo.get(id(fn))
    if known is None:
        known = memo[id(fn)] = _flag_off(model, fn, set())
    return known


#: Transforms that trace what they are given with ``jax_disable_jit`` on too.
_TRACE_UNDER_DISABLE_JIT = frozenset(
    q for q in {*TRACING_HOFS, *DIFF_TRANSFORMS, *ABSTRACT_EVAL, *JIT_LIKE}
    if q not in EAGER_UNDER_DISABLE_JIT and JIT_LIKE.get(q) not in _OFF_UNDER_DISABLE_JIT)


def _transformed_again(model: ModuleModel, fn: FunctionInfo) -> bool:
    """A jitted ``fn`` is also given to a transform that traces with ``jax_disable_jit`` on
    (``_TRACE_UNDER_DISABLE_JIT``): a decorator of it (``@jax.vmap`` over ``@jax.jit``,
    ``@partial(jax.vmap, ...)``), or a call of one around its jit (``jax.vmap(jax.jit(f))``)
    or on a name the jit is bound to (``g = jax.jit(f)`` ... ``jax.vmap(g)``)."""
    def transform(expr: ast.expr) -> bool:
        if isinstance(expr, ast.Call):
            q = model.resolve(expr.func)
            if q == "functools.partial" and expr.args:
                return transform(expr.args[0])
            return q in _TRACE_UNDER_DISABLE_JIT
        return model.resolve(expr) in _TRACE_UNDER_DISABLE_JIT

    if isinstance(fn.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            transform(d) for d in fn.node.decorator_list):
        return True
    names = {fn.name}
    for call in model.nodes(ast.Call):
        if model.resolve_call(call) in JIT_LIKE and call.args and isinstance(call.args[0], ast.Name) \
                and call.args[0].id == fn.name:
            parent = model.parent(call)
            if isinstance(parent, ast.Call) and call in parent.args and transform(parent):
                return True
            if isinstance(parent, ast.Assign):
                names |= set(target_names(parent.targets[0]))
    return any(isinstance(a, ast.Name) and a.id in names - {fn.name} and transform(call)
               for call in model.nodes(ast.Call) for a in call.args)


def _flag_off(model: ModuleModel, fn: FunctionInfo, path: set[int]) -> bool:
    if id(fn) in path:
        return True  # a cycle of calls: decided by the other reasons on the way
    if not fn.traced_by:
        return False
    path.add(id(fn))
    try:
        for r in fn.traced_by:
            if r.kind in _OFF_UNDER_DISABLE_JIT:
                if _transformed_again(model, fn):
                    return False  # `@jax.vmap @jax.jit def f`: the vmap traces it with the flag on
                continue
            if not (r.by_call or r.kind in _EAGER_LOOPS_UNDER_DISABLE_JIT):
                return False
            if not r.by_call:
                loops = [c for c in model.nodes(ast.Call) if c.lineno == r.line
                         and (model.resolve_call(c) or "").rsplit(".", 1)[-1] == r.kind]
                if not loops or any(model.resolve_call(c) not in _EAGER_LOOPS for c in loops):
                    return False  # `nnx.fori_loop` of the same short name, or a loop not found
            if r.caller is None and not r.by_call:
                continue  # a lax loop applied in eager code
            callers = [c for c in model.functions if c.qualname == r.caller]
            if not callers or not all(_flag_off(model, c, path) for c in callers):
                return False
        return True
    finally:
        path.discard(id(fn))


#: The reason kinds of differentiation transforms (``jax.grad`` is ``grad``).
DIFF_KINDS = frozenset(q.rsplit(".", 1)[-1] for q in DIFF_TRANSFORMS)
#: The reason kinds of transforms that build no program of their own: applied where no
#: compiling trace is on (``jax.vmap(f)(xs)`` or ``jax.grad(f)(w)`` in eager code), they run
#: ``f`` once, op by op, each operation dispatched as it is reached (batched or with its
#: tangents); nothing is compiled as a whole (checked with real jax in
#: ``tests/rules/static/test_jax102.py``).
EAGER_KINDS = DIFF_KINDS | {"vmap", "filter_vmap"}


def compiled_nowhere(scopes: "ModuleModel", fn: FunctionInfo) -> bool:
    """``fn`` is traced only by transforms that build no program (``EAGER_KINDS``: a
    ``vmap``, a ``grad``) applied where nothing compiles (module level, an untraced
    function, or a function of which this holds too), or called only from such
    functions: its Python loops run once, eagerly, never unrolled into a compiled
    program. A ``jit``, ``pmap``, a lax loop or ``cond`` on the path, or a reason the
    model cannot place, makes it False."""
    memo: dict[int, bool] = scopes.__dict__.setdefault("_compiled_nowhere", {})
    known = memo.get(id(fn))
    if known is not None:
        return known
    named: dict[str, list[FunctionInfo]] | None = scopes.__dict__.get("_by_qualname")
    if named is None:
        named = scopes.__dict__["_by_qualname"] = {}
        if any(r.kind in EAGER_KINDS for f in scopes.functions for r in f.traced_by if not r.by_call):
            for f in scopes.functions:
                named.setdefault(f.qualname, []).append(f)
    if not named:
        return False  # no vmap or grad traces a function of the module: every trace is a compiling one's
    path: set[int] = set()

    def eager(r: Reason) -> bool:
        if r.kind not in EAGER_KINDS and not r.by_call:
            return False
        if r.caller is not None:  # called, or applied, in traced code: each function of that name must hold
            sites = named.get(r.caller, [])
        elif r.line is not None:
            calls = [c for c in scopes.nodes(ast.Call) if c.lineno == r.line
                     and (scopes.resolve_call(c) or "").rsplit(".", 1)[-1] == r.kind]
            site = scopes.function_of(calls[0]) if len(calls) == 1 else None
            if len(calls) == 1 and (site is None or not site.traced):
                return True  # applied in eager code
            sites = [site] if site is not None else []
        else:
            return False
        return bool(sites) and all(_only_by(s, eager, path, set()) for s in sites)

    memo[id(fn)] = found = _only_by(fn, eager, path, set())
    return found


def _only_by(fn: FunctionInfo, direct: "Callable[[Reason], bool]", path: set[int], settled: set[int]) -> bool:
    """Every reason ``fn`` is traced is ``direct``, or a call from a function of which that
    holds too (a caller met again on the way up counts as one that does).

    ``settled`` holds the functions found not to be such (one question each, ``direct``
    the same): the answer "no" stands while reasons are added (each adds a condition) and
    whichever callers were being asked about (meeting one again answers "yes"), so the
    walk up a chain of N callers stops at the first settled one, not at its root: asking
    about every function of the chain was N**2 steps (issue 38)."""
    if not fn.traced_by or id(fn) in settled:
        return False
    if id(fn) in path:
        return True
    path.add(id(fn))
    try:
        for r in fn.traced_by:
            if direct(r):
                continue
            if r.by_call and r.caller is not None:
                caller = next((c for _, c, _ in fn.call_sites.values() if c.qualname == r.caller), None)
                if caller is not None and _only_by(caller, direct, path, settled):
                    continue
            settled.add(id(fn))
            return False
        return True
    finally:
        path.discard(id(fn))


def opaque_decorator(model: ModuleModel, fn: FunctionInfo) -> ast.expr | None:
    """The first decorator of ``fn`` whose object's call the model cannot see: a name
    bound by imports (``from pyptx import kernel``; ``@kernel(...)`` or ``@kernel``) from a
    package that is not one of ``TRANSPARENT_DECORATOR_PACKAGES``. Calling that object
    from traced code says nothing of how ``fn``'s body runs: a DSL may trace it with its
    own tracer (pyptx's ``@kernel`` emits PTX, and JAX sees one ``ffi_call``), a cache
    may not run it, a remote call runs it elsewhere. None when every decorator is known
    or defined in the module (a user's own ``functools.wraps`` wrapper calls the body), or
    when the decorator is a function of another module of the checked tree that says it
    calls the body: a wrapper made with ``functools.wraps``, or one that returns the
    function it is given (a registration)."""
    if isinstance(fn.node, ast.Lambda):
        return None
    for dec in fn.node.decorator_list:
        head = dec.func if isinstance(dec, ast.Call) else dec
        if not model.imported(head, fn.parent):
            continue
        q = model.resolve(head) or ""
        if q.split(".", 1)[0] not in TRANSPARENT_DECORATOR_PACKAGES and not _calls_its_function(model, head, fn.parent):
            return dec
    return None


def _calls_its_function(model: ModuleModel, head: ast.expr, scope: FunctionInfo | None) -> bool:
    """``head``, a decorator (or decorator factory) imported from another module of the
    tree, is a function with a nested ``@functools.wraps(...)`` wrapper, or returns its
    first parameter."""
    if model.link is None:
        return False
    deps: set = set()
    found = model.link.function(model, head, scope, deps)
    model.link.use(deps)
    if found is None or isinstance(found[1].node, ast.Lambda):
        return False
    node = found[1].node
    first = node.args.args[0].arg if node.args.args else None
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not node \
                and any(_last_name(d.func if isinstance(d, ast.Call) else d) == "wraps" for d in n.decorator_list):
            return True
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id == first:
            return True
    return False


def _last_name(expr: ast.expr) -> str | None:
    """``wraps`` of ``functools.wraps`` and of ``wraps``."""
    return expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else None


def unused_wrapper(model: ModuleModel, call: ast.Call, target: FunctionInfo) -> bool:
    """``call`` makes a transformed function nobody runs, so it traces nothing: a transform
    traces ``target`` only when its result is called (or handed on). Its result, alone or
    inside other function transforms (``jax.jit(jax.vmap(f))``), is assigned to

    * a local name of a function that the function never reads (``g = jax.vmap(f)`` and
      no ``g`` after it, nor ``locals()``): nothing else can reach a local;
    * a name at module level that the module never reads, its ``__all__`` does not list
      and no other module of the checked tree names (the search below), while the module
      runs ``target`` itself (a call ``f(...)``, not through ``g``): the module's own
      calls say how ``f`` runs;
    * an attribute (``self.vec = jax.vmap(f)``) that no code of the module reads (no
      ``.vec`` read, no string ``"vec"``) and no other module of the checked tree names
      (``tree.Link.mentioned_elsewhere``: every module file searched), while the module
      runs ``target`` itself, as above.

    A wrapper with no direct call of ``target`` beside it stays a trace: a user of the
    package may call it, and ``target`` is written to run under it. (``jax.jit``'s wrappers
    are not asked: the jit map keeps them, the dynamic phase's entry points.)"""
    node: ast.AST = call
    stmt = model.parent(node)
    while isinstance(stmt, ast.Call) and stmt.args and stmt.args[0] is node \
            and model.resolve_call(stmt) in _FUNCTION_WRAPPERS:
        node, stmt = stmt, model.parent(stmt)
    if not (isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1):
        return False
    where = stmt.targets[0]
    if isinstance(where, ast.Name) and model.parent(stmt) is not model.tree:
        return _unread_local(model, stmt, where.id)
    if isinstance(where, ast.Name):
        if model.module_reads is None:
            model.module_reads = _module_reads(model)
        if where.id in model.module_reads or _named_elsewhere(model, where.id):
            return False
    elif not (isinstance(where, ast.Attribute) and _unread_attribute(model, where.attr)):
        return False
    if model.called_directly is None:
        model.called_directly = {
            id(model.callee(c.func, model.function_of(c), follow=False)[0]) for c in model.nodes(ast.Call)}
    return id(target) in model.called_directly


def _unread_local(model: ModuleModel, stmt: ast.Assign, name: str) -> bool:
    """``name``, bound by ``stmt`` in a function, is local there and read nowhere in it (its
    nested functions included), and the function does not hand out its namespace
    (``locals()``, ``vars()``, ``eval``, ``exec``)."""
    scope = model.function_of(stmt)
    if scope is None or isinstance(scope.node, ast.Lambda) or name in scope.globals_ or name in scope.nonlocals:
        return False
    for n in ast.walk(scope.node):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store):
            return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("locals", "vars", "eval", "exec"):
            return False
    return True


def _unread_attribute(model: ModuleModel, attr: str) -> bool:
    """No code of the module reads an attribute ``attr`` (``obj.attr`` other than as an
    assignment's target, or the string ``"attr"``, as ``getattr`` takes it), and no other
    module of the checked tree names it; False without a tree to search."""
    for n in model.nodes(ast.Attribute):
        if n.attr == attr and not isinstance(n.ctx, ast.Store):
            return False
    if any(isinstance(n.value, str) and n.value == attr for n in model.nodes(ast.Constant)):
        return False
    return model.link is not None and not _named_elsewhere(model, attr)


def _named_elsewhere(model: ModuleModel, word: str) -> bool:
    """Another module of the checked tree may name ``word``; False without a tree (a file
    checked alone), the modules searched added to the file's dependencies."""
    if model.link is None:
        return False
    deps: set = set()
    found = model.link.mentioned_elsewhere(word, deps)
    model.link.use(deps)
    return found


def _module_reads(model: ModuleModel) -> set[str]:
    """The names the module reads anywhere, and those its ``__all__`` lists."""
    read = {n.id for n in model.nodes(ast.Name) if not isinstance(n.ctx, ast.Store)}
    for stmt in model.tree.body:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            read |= {c.value for c in ast.walk(value) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return read


#: transforms whose result is a function that hands its arguments on to the wrapped one
#: (its parameters stay those of the wrapped function)
_FUNCTION_WRAPPERS = frozenset({*JIT_LIKE, "jax.vmap", "jax.pmap", "jax.shard_map",
                                "jax.experimental.shard_map.shard_map", "jax.checkpoint", "jax.remat"})


def wrapper_name(scopes: "ModuleModel", call: ast.Call) -> str | None:
    """The name the callable that ``call`` (a function transform) makes is bound to, through
    the transforms around it: ``self.grad = jit(shard_map(self._stencil, ...))`` ->
    ``self.grad`` for the ``shard_map`` call and for the ``jit`` call; None when the result
    is not bound to one name (or a transform of another kind stands around it)."""
    if scopes.resolve_call(call) not in _FUNCTION_WRAPPERS:
        return None
    node: ast.AST = call
    parent = scopes.parent(node)
    while isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
        if scopes.resolve_call(parent) not in _FUNCTION_WRAPPERS:
            return None
        node, parent = parent, scopes.parent(parent)
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1:
        t = parent.targets[0]
        if isinstance(t, ast.Name):
            return t.id
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
            return f"self.{t.attr}"
    return None


def never_given(scopes: "ModuleModel", fn: "FunctionInfo", bound_name: str | None, offset: int) -> set[str]:
    """The parameters of ``fn`` that no call of the transformed callable ``bound_name``
    (a name, or ``self.<attribute>``) in the module passes: ``self.grad =
    jit(self._stencil)`` called only as ``self.grad(psi)`` never gives ``_stencil`` its
    ``weights``, which keeps its default. Empty when the module never calls it, a call
    spreads ``*args`` / ``**kwargs``, or the name is bound more than once."""
    given = given_by_calls(scopes, fn, bound_name, offset)
    return set() if given is None else {p.name for p in fn.params if p.name not in given}


def given_by_calls(scopes: "ModuleModel", fn: "FunctionInfo", bound_name: str | None, offset: int) -> set[str] | None:
    """The parameters of ``fn`` that some call of the transformed callable ``bound_name``
    passes (``never_given``'s complement); None when the module never calls it, a call
    spreads ``*args`` / ``**kwargs``, or the name is bound more than once."""
    if not bound_name:
        return None
    owner, _, attr = bound_name.rpartition(".")
    if owner not in ("", "self") or not attr.isidentifier():
        return None
    memo = scopes.never_given_memo
    key = (id(fn), bound_name, offset)
    if key in memo:
        return memo[key]
    params = fn.positional()[offset:]
    given: set[str] = set()
    calls = 0
    for call in scopes.nodes(ast.Call):
        func = call.func
        if owner:
            if not (isinstance(func, ast.Attribute) and func.attr == attr
                    and isinstance(func.value, ast.Name) and func.value.id == "self"):
                continue
        elif not (isinstance(func, ast.Name) and func.id == attr):
            continue
        elif len(scopes.lookup(attr, scopes.function_of(call))[1]) != 1:
            calls = 0  # another name of the same spelling, or the name bound again
            break
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            calls = 0
            break
        calls += 1
        given |= {params[i].name for i in range(min(len(call.args), len(params)))}
        given |= {k.arg for k in call.keywords if k.arg}
    memo[key] = out = given if calls else None
    return out
