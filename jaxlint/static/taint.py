"""How sure the static phase is that an expression in traced code is a tracer: a view of
the model (``Scopes``, ``Tracing``, ``values``) that the rules ask.

``Tracing.is_traced_expr`` answers yes/no and leans towards *traced* for anything
computed from a traced value. Rules whose findings are errors (a failure at trace time,
a leaked tracer) need to know *why* a value is traced and how sure that is, so they can
stay quiet on the idioms that only look traced:

* ``CERTAIN``: a traced parameter, a jax.numpy / lax result, arithmetic on those.
* ``LIKELY``: an attribute of an unannotated traced parameter (``state.step``: usually a
  leaf, but a pytree may declare the field static) or of any traced value that an array
  cannot be (``out.timestep.extras``: a field), or a bare unannotated parameter
  used as a truth value (it may be a dict or tuple pytree, whose truthiness is static).
* ``POSSIBLE``: the result of a call the model cannot see into (``helper(x)``), which
  may return a static value such as ``x.ndim > 1``.

Attributes of config-like names (``config.use_bias``, ``cfg.n_layers``) and of
parameters annotated with a non-array type are not traced here: they are static
configuration in every codebase we checked (flax, optax, equinox, haiku).
"""
from __future__ import annotations

import ast
import re
from typing import Iterator

from jaxlint.diagnostic import Confidence
from jaxlint.static.apis import ARRAYS_OUT, SAMPLE_SITES, STATIC_ATTRS, STATIC_CALLS, is_axis_size
from jaxlint.static.scopes import FunctionInfo, target_names, walk
from jaxlint.static.semantic import ModuleModel
from jaxlint.static.traced import iteration_targets, sampled
from jaxlint.static.values import ARRAY_METHODS, CONTAINER_METHODS, Kind, Summaries, static_field

POSSIBLE, LIKELY, CERTAIN = 0, 1, 2
_CONFIDENCE = (Confidence.POSSIBLE, Confidence.LIKELY, Confidence.CERTAIN)


def confidence(level: int) -> Confidence:
    """The finding's confidence for a taint level (a finding is as sure as its value)."""
    return _CONFIDENCE[level]

#: Base names whose attributes are configuration, never traced.
CONFIG_NAME = re.compile(r"^_*(config|cfg|conf|hparams|hps|hp|hyperparams|args|opts|options|settings|flags|spec)s?(_.*)?$|.*_(config|cfg)$", re.I)
#: Builtins that turn a value into a Python object: their result is never a tracer.
CONVERTERS = {"builtins.bool", "builtins.int", "builtins.float", "builtins.complex", "builtins.str",
              "builtins.repr", "builtins.len", "builtins.range", "builtins.format"}
#: Array methods whose result is a Python object.
CONVERTING_METHODS = {"item", "tolist", "__len__", "__bool__", "__int__", "__float__", "__index__"}
#: jax functions that answer questions about dtypes and shapes with Python values.
STATIC_JAX_FUNCS = {"shape", "ndim", "size", "dtype", "result_type", "issubdtype", "iinfo", "finfo",
                    "promote_types", "can_cast", "isdtype", "iscomplexobj", "isrealobj", "isscalar",
                    "broadcast_shapes", "issubsctype", "tree_structure", "structure", "treedef_is_leaf",
                    "eval_shape", "typeof", "get_aval", "default_backend", "device_count",
                    "local_device_count", "process_index", "process_count", "devices", "local_devices",
                    "axis_size"}
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_JAX_ARRAY_FUNCS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.", "jax.tree_util.tree_map",
                    "jax.tree.map", "jax.vmap", "jax.grad", "jax.value_and_grad")
_EAGER = {"jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"}
_TREE_MAPS = {"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map"}
_ARRAY_ATTRS = {"T", "mT", "real", "imag", "at", "flat"}


class Taint:
    """Certainty levels of traced values in one traced function (memoized per name)."""

    def __init__(self, model: ModuleModel, fn: FunctionInfo, _depth: int = 0) -> None:
        self.model = model
        self.fn = fn
        self._depth = _depth
        self.names: dict[str, int] = {}
        self._isinstance_tests: set[str] | None = None  # names the body tests with isinstance
        self._reading: set[int] = set()  # reads whose reaching bindings are being asked about
        #: traced only because a traced function calls it: its parameters are as sure as
        #: the model's argument taint, which is generous (any call of a tracer taints)
        self.indirect = bool(fn.traced_by) and all(r.by_call for r in fn.traced_by)
        self._compute_names()

    # ------------------------------------------------------------------ names
    def _compute_names(self) -> None:
        fn = self.fn
        for name in fn.traced_params:
            p = fn.param(name)
            if self.indirect and p is not None and p.annotation is not None \
                    and not self.model.is_array_annotation(p.annotation):
                continue  # the author declares a Python value (`flag: bool`, `spec: Spec`)
            level = self._call_site_level(p) if self.indirect and p is not None else CERTAIN
            if level is not None:
                self.names[name] = level
        parent = fn.parent
        if parent is not None and parent.traced and self._depth < 8:
            outer = _taint_of(self.model, parent, self._depth + 1)
            for name, level in outer.names.items():
                if name not in fn.bindings:
                    self.names[name] = level
        binders = [n for n in fn.body_nodes() if isinstance(
            n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension))]
        for _ in range(4):
            before = dict(self.names)
            for s in binders:
                if isinstance(s, ast.Assign):
                    targets: list[ast.AST] = list(s.targets)
                    value: ast.AST | None = s.value
                elif isinstance(s, (ast.AnnAssign, ast.NamedExpr)):
                    targets, value = [s.target], s.value
                elif isinstance(s, ast.AugAssign):
                    targets, value = [s.target], ast.BinOp(s.target, s.op, s.value)
                else:
                    traced_targets = iteration_targets(s.target, s.iter, lambda e: self.culprit(e) is not None)
                    targets = [ast.Name(id=n) for n in traced_targets]
                    value = s.iter
                level = self.level(value) if value is not None else None
                if level is None:
                    continue
                for t in targets:
                    for name in target_names(t):
                        # never more than the model: a name it does not taint stays clean
                        if name in fn.tainted and self.names.get(name, -1) < level:
                            self.names[name] = level
            if self.names == before:
                break

    def _call_site_level(self, p) -> int | None:
        """How sure parameter ``p`` of a function traced only because traced code calls
        it holds a tracer: the surest argument the traced callers pass it (``helper(x)``
        with ``x`` a traced array: CERTAIN; ``helper(view.axis)``, a pytree field: LIKELY).
        CERTAIN when a call site cannot be read (a splat, too deep)."""
        best: int | None = None
        sites = [(c, caller, implicit) for c, caller, implicit in self.fn.call_sites.values() if caller.traced]
        if not sites or self._depth >= 4:
            return CERTAIN
        for call, caller, implicit in sites:
            arg = _argument_for(call, self.fn, p, implicit)
            if arg is _UNREADABLE:
                return CERTAIN
            if arg is None:
                continue  # left to its default here
            level = _taint_of(self.model, caller, self._depth + 1).level(arg)
            if level is not None and (best is None or level > best):
                best = level
            if best == CERTAIN:
                break
        return best

    # ------------------------------------------------------------------ expressions
    def level(self, expr: ast.AST | None) -> int | None:
        """CERTAIN / LIKELY / POSSIBLE when ``expr`` is traced, None when it is not."""
        found = self.culprit(expr)
        return found[0] if found else None

    def culprit(self, expr: ast.AST | None) -> tuple[int, ast.AST] | None:
        """(level, the sub-expression that makes ``expr`` traced), or None."""
        if expr is None:
            return None
        m = self.model
        if isinstance(expr, ast.Name):
            gen = self._comprehension_binding(expr)
            if gen is not None:
                if expr.id not in iteration_targets(gen.target, gen.iter, lambda e: self.culprit(e) is not None):
                    return None  # `k` of `for k, v in d.items()`: a pytree key
                found = self.culprit(gen.iter)
                return (found[0], expr) if found else None
            level = self.names.get(expr.id)
            if level is None or expr.id not in self.fn.tainted:
                return None
            if len(self.fn.bindings.get(expr.id, ())) > 1 and self._clean_here(expr):
                return None  # `n = 3` reaches this read; `n = jnp.sum(x)` comes only after it
            if self._narrowed(expr):
                return None  # under `if isinstance(x, (int, float, np.ndarray))`: not a tracer
            return level, expr
        if isinstance(expr, ast.Attribute):
            if expr.attr in STATIC_ATTRS or static_field(m, expr.attr):
                return None  # a shape, or a field a pytree class (of this module or imported) declares static
            base = expr.value
            if isinstance(base, ast.Name):
                if base.id in ("self", "cls") or CONFIG_NAME.match(base.id):
                    return None
                p = self.fn.param(base.id)
                if p is not None and base.id in self.fn.traced_params and expr.attr not in _ARRAY_ATTRS:
                    if m.is_array_annotation(p.annotation):
                        return CERTAIN, expr
                    if p.annotation is not None:
                        return None  # a declared non-array type: a config or module object
                    found = self.culprit(base)
                    cap = POSSIBLE if self.indirect else LIKELY
                    return (min(found[0], cap), expr) if found else None
            found = self.culprit(base)
            if found and expr.attr not in _ARRAY_ATTRS:
                # an array has no such attribute: `base` is a pytree (a loop's carry, a
                # dataclass) and this is one of its fields, which may be static
                return min(found[0], LIKELY), found[1]
            return (found[0], found[1]) if found else None
        if isinstance(expr, (ast.Subscript, ast.Starred)):
            return self.culprit(expr.value)
        if isinstance(expr, ast.Call):
            return self._call(expr)
        if isinstance(expr, ast.BinOp):
            return _best(self.culprit(expr.left), self.culprit(expr.right))
        if isinstance(expr, ast.UnaryOp):
            if isinstance(expr.op, ast.Not):
                return None  # `not x` is a Python bool (the conversion itself is the finding)
            return self.culprit(expr.operand)
        if isinstance(expr, ast.BoolOp):
            return _best(*(self.culprit(v) for v in expr.values))
        if isinstance(expr, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in expr.ops):
                return None
            operands = [expr.left, *expr.comparators]
            if any(isinstance(o, ast.Constant) and isinstance(o.value, (str, bytes, type(None))) for o in operands):
                return None  # arrays are never compared with strings: this is a static option
            if any(self._is_sentinel(o) for o in operands):
                return None  # `state == _sentinel` (an `object()`): an array defers to identity, a bool
            return _best(*(self.culprit(o) for o in operands))
        if isinstance(expr, ast.IfExp):
            return self._one_arm(expr)
        if isinstance(expr, (ast.Tuple, ast.List)):
            return _best(*(self.culprit(e) for e in expr.elts))
        if isinstance(expr, ast.NamedExpr):
            return self.culprit(expr.value)
        if isinstance(expr, ast.JoinedStr):
            return _best(*(self.culprit(v.value) for v in expr.values if isinstance(v, ast.FormattedValue)))
        return None

    def _clean_here(self, name: ast.Name) -> bool:
        """Whether every binding of ``name`` that reaches this read assigns a value that is
        not traced. The names a function taints are one set for its whole body; a name
        bound to a Python value first and to a tracer only later is not traced before."""
        if id(name) in self._reading or id(name) not in self.model.parents:
            return False  # asked again while answering (a loop brings a binding back), or a made-up node
        self._reading.add(id(name))
        try:
            reach = self.model.reaching_bindings(name, self.fn)
            return bool(reach) and all(b.kind == "assign" and b.value is not None and self.level(b.value) is None
                                       for b in reach)
        finally:
            self._reading.discard(id(name))

    def _one_arm(self, expr: ast.IfExp) -> tuple[int, ast.AST] | None:
        """Only one arm of ``a if test else b`` runs. When ``test`` asks whether a traced
        name is a tracer (``isinstance(x, float)``, ``isinstance(x, jax.Array)``), the arm a
        tracer takes is the value; otherwise a value traced in one arm only is possibly
        traced, and one traced in both is as sure as the less sure arm."""
        for name in {n.id for n in walk(expr.test) if isinstance(n, ast.Name)}:
            level = self.names.get(name)
            if level != CERTAIN or name not in self.fn.tainted:
                continue
            if _isinstance_of(self.model, expr.test, name, jax=False):
                return self.culprit(expr.orelse)  # a tracer is no host value: the else arm runs
            if _isinstance_of(self.model, expr.test, name, jax=True):
                return self.culprit(expr.body)
        body, orelse = self.culprit(expr.body), self.culprit(expr.orelse)
        if body is not None and orelse is not None:
            return body if body[0] <= orelse[0] else orelse
        found = body or orelse
        return (POSSIBLE, found[1]) if found is not None else None

    def _narrowed(self, name: ast.Name) -> bool:
        """Whether an ``isinstance`` test around ``name`` rules out a tracer: the body of
        ``if isinstance(x, (int, float, np.ndarray))`` (or of ``isinstance(...) and ...``),
        the ``else`` of ``if isinstance(x, jax.Array)``, and what follows
        ``if isinstance(x, jax.Array): return ...``."""
        if self._isinstance_tests is None:
            self._isinstance_tests = {n.args[0].id for n in self.fn.body_nodes()
                                      if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                      and n.func.id == "isinstance" and n.args and isinstance(n.args[0], ast.Name)}
        if name.id not in self._isinstance_tests:
            return False  # the body never tests this name's type
        child: ast.AST = name
        for a in self.model.ancestors(name):
            if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test:
                in_body = child in a.body if isinstance(a, ast.If) else child is a.body
                if in_body and _isinstance_of(self.model, a.test, name.id, jax=False):
                    return True
                if not in_body and _isinstance_of(self.model, a.test, name.id, jax=True):
                    return True
            body = getattr(a, "body", None)
            if isinstance(body, list) and child in body:
                for stmt in body[:body.index(child)]:
                    if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body \
                            and isinstance(stmt.body[-1], (ast.Return, ast.Raise)) \
                            and _isinstance_of(self.model, stmt.test, name.id, jax=True):
                        return True
            if a is self.fn.node:
                return False
            child = a
        return False

    def _is_sentinel(self, expr: ast.AST) -> bool:
        """A name bound only to ``object()``: comparing anything with it gives a Python bool."""
        if not isinstance(expr, ast.Name):
            return False
        _, bindings = self.model.lookup(expr.id, self.fn)
        return bool(bindings) and all(
            isinstance(b.value, ast.Call) and not b.value.args and self.model.resolve_call(b.value) == "builtins.object"
            for b in bindings)

    def _transform(self, func: ast.AST) -> str | None:
        """The jax transform ``func`` applies (inline, or a name bound once to one), or None."""
        return self.model.tracing.transform_of(func, self.fn)

    def _comprehension_binding(self, name: ast.Name) -> ast.comprehension | None:
        """The generator of an enclosing comprehension that binds ``name`` (comprehension
        variables have their own scope; the model keeps one set of names per function)."""
        child: ast.AST = name
        below: ast.AST = name  # the node under ``child`` on the way up
        for a in self.model.ancestors(name):
            if a is self.fn.node:
                return None
            if isinstance(a, _COMPREHENSIONS):
                for i, g in enumerate(a.generators):
                    if i == 0 and child is g and below is g.iter:
                        break  # inside the first iterable: evaluated in the enclosing scope
                    if name.id in set(target_names(g.target)):
                        return g
            below, child = child, a
        return None

    def _call(self, call: ast.Call) -> tuple[int, ast.AST] | None:
        q = self.model.resolve_call(call)
        if q in CONVERTERS or q in STATIC_CALLS:
            return None
        if q in _TREE_MAPS and call.args:
            if Summaries.of(self.model).callee_returns(call.args[0], self.fn) is Kind.STATIC:
                return None  # every leaf becomes what `f` returns: `jnp.ndim(a) == jnp.ndim(b)`
        args = [*call.args, *(k.value for k in call.keywords)]
        if q in SAMPLE_SITES:
            if sampled(call, SAMPLE_SITES[q]):
                return CERTAIN, call  # a latent site draws a tracer under the kernel's trace
            observed = next((k.value for k in call.keywords if k.arg == SAMPLE_SITES[q]), None)
            return self.culprit(observed if observed is not None else call.args[2] if len(call.args) > 2 else None)
        if q is not None and q.startswith("jax."):
            if q.rsplit(".", 1)[-1] in STATIC_JAX_FUNCS or is_axis_size(call, q):
                return None
            found = _best(*(self.culprit(a) for a in args))
            if found:
                return found
            if q.startswith(_JAX_ARRAY_FUNCS) and not self._eager(call):
                # under jit every jax.numpy result is staged out, even from constants
                return CERTAIN, call
            return None
        if q is not None and q.startswith("numpy.") and q.rsplit(".", 1)[-1] not in STATIC_JAX_FUNCS:
            # numpy on a tracer: wrong (numpy-on-tracer), but the result stands for an array
            found = _best(*(self.culprit(a) for a in args))
            if found:
                return found
        transform = self._transform(call.func)
        if transform is not None:
            # `jax.grad(f)(x)`, `grad_fn(x)` with `grad_fn = jax.value_and_grad(f)`: arrays out
            found = _best(*(self.culprit(a) for a in args))
            if found:
                return found
            if transform in ARRAYS_OUT and self.model.is_traced_expr(call, self.fn):
                # staged out under the trace whatever the inputs: `grad_fn(state.params)`
                # with `state: TrainState` (an annotated pytree hides its leaves above)
                return CERTAIN, call
        if isinstance(call.func, ast.Attribute):
            if call.func.attr in CONVERTING_METHODS:
                return None
            found = self.culprit(call.func.value)
            if found:
                return self._method(call.func.attr, found)
        found = _best(*(self.culprit(a) for a in args))
        if found:
            # a function of this module or, through imports, of another module of the tree
            returns = Summaries.of(self.model).callee_returns(call.func, self.fn)
            if returns is Kind.STATIC:
                return None  # `n_items(x)` returns `len(...)` or a shape: a Python value
            if returns is Kind.TRACED:
                return found  # the helper returns a jax.numpy result
            # a function we cannot see into: it may return a static value
            return POSSIBLE, found[1]
        return None

    def _eager(self, node: ast.AST) -> bool:
        """``node`` runs inside ``with jax.ensure_compile_time_eval():``, where jax
        computes on concrete values eagerly (a constant stays concrete)."""
        for a in self.model.ancestors(node):
            if a is self.fn.node:
                return False
            if isinstance(a, (ast.With, ast.AsyncWith)) and any(
                    isinstance(i.context_expr, ast.Call)
                    and self.model.resolve_call(i.context_expr) in _EAGER for i in a.items):
                return True
        return False

    def _method(self, name: str, base: tuple[int, ast.AST]) -> tuple[int, ast.AST] | None:
        """``base.name(...)`` with ``base`` traced (``base`` is its level and culprit).
        An array's methods give arrays (``x.sum()``), a dict's its leaves; a method of a
        class of this module gives what its summary says (``state.num_items()``
        returning ``len(self.items)`` is a Python int); any other method is unknown:
        ``state.method()`` on a pytree may return a figure computed from static
        fields, so the result is at most POSSIBLE."""
        if name in ARRAY_METHODS or name in CONTAINER_METHODS:
            return base
        returns = Summaries.of(self.model).method_returns(name)
        if returns is Kind.STATIC:
            return None
        if returns is Kind.TRACED:
            return base
        return min(base[0], POSSIBLE), base[1]


_UNREADABLE = ast.Pass()  # a call whose argument for a parameter cannot be told (a splat)


def _argument_for(call: ast.Call, target: FunctionInfo, p, implicit: int) -> ast.AST | None:
    """The expression ``call`` passes to parameter ``p`` of ``target`` (None: its default)."""
    for k in call.keywords:
        if k.arg is None:
            return _UNREADABLE
        if k.arg == p.name:
            return k.value
    positional = target.positional()
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return _UNREADABLE
        j = i + implicit
        if j < len(positional) and positional[j] is p:
            return a
        if j >= len(positional) and p.kind == "vararg":
            return a
    return None


def taint_of(model: ModuleModel, fn: FunctionInfo) -> "Taint":
    """The value model's view of traced function ``fn``, made once per module and function."""
    return _taint_of(model, fn, 0)


def _taint_of(model: ModuleModel, fn: FunctionInfo, depth: int) -> "Taint":
    """One Taint per traced function of a module (callers are asked about many callees)."""
    cache = model.__dict__.setdefault("_taint_by_function", {})
    t = cache.get(id(fn))
    if t is None:
        t = cache[id(fn)] = Taint(model, fn, depth)
    return t


#: Types whose instances are never tracers, and those a tracer is an instance of.
_HOST_TYPES = ("builtins.", "numpy.", "numbers.", "typing.")
_JAX_TYPES = {"jax.Array", "jax.numpy.ndarray", "jax.core.Tracer", "jax.interpreters.partial_eval.DynamicJaxprTracer"}


def _isinstance_of(model: ModuleModel, test: ast.AST, name: str, jax: bool) -> bool:
    """``test`` (or a conjunct of an ``and``) is ``isinstance(name, T)`` with every type in
    ``T`` a host type (``jax=False``: int, float, np.ndarray, ...) or a JAX array type
    (``jax=True``), or ``not isinstance(...)`` of the other kind."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_isinstance_of(model, v, name, jax) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _isinstance_of(model, test.operand, name, not jax)
    if not (isinstance(test, ast.Call) and model.resolve_call(test) == "builtins.isinstance" and len(test.args) == 2
            and isinstance(test.args[0], ast.Name) and test.args[0].id == name):
        return False
    types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    quals = [model.resolve(t) or "" for t in types]
    if jax:
        return all(q in _JAX_TYPES for q in quals)
    return all(q.startswith(_HOST_TYPES) for q in quals)


def _best(*found: tuple[int, ast.AST] | None) -> tuple[int, ast.AST] | None:
    best = None
    for f in found:
        if f is not None and (best is None or f[0] > best[0]):
            best = f
    return best


def describe(node: ast.AST) -> str:
    """Short source text for messages."""
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover - exotic nodes
        return type(node).__name__
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


def traced_functions(model: ModuleModel) -> Iterator[tuple[FunctionInfo, Taint]]:
    for fn in model.traced_functions():
        yield fn, _taint_of(model, fn, 0)


def traced_how(fn: FunctionInfo) -> str:
    """``jitted `step``` / ```body`` (traced by scan at line 12)`` for messages."""
    name = "lambda" if isinstance(fn.node, ast.Lambda) else fn.qualname.replace(".<locals>.", ".")
    reasons = fn.traced_by
    for r in reasons:
        if r.kind in _JIT_KINDS or r.kind == "filter_pmap":
            return f"{'pmapped' if 'pmap' in r.kind else 'jitted'} `{name}`"
    for r in reasons:
        if r.line is not None:
            return f"`{name}` (traced by {r.kind} at line {r.line})"
    if reasons:
        r = reasons[0]
        if r.by_call:
            return f"`{name}` (called from traced `{(r.caller or '').replace('.<locals>.', '.')}`)"
        return f"`{name}` (traced: {r})"
    return f"`{name}`"


def is_jit_entry(fn: FunctionInfo) -> bool:
    return any(r.kind in _JIT_KINDS for r in fn.traced_by)


#: the entry kinds that messages call jitted (xmap and filter_pmap are left out)
_JIT_KINDS = frozenset({"jit", "pjit", "pmap", "filter_jit", "nnx.jit", "linen.jit"})
