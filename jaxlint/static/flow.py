"""How a value in traced code is traced: the one answer of the static value model.

``Flow.culprit(expr)`` decides, for an expression read in a traced function, whether it
evaluates to a tracer and how sure that is: ``CERTAIN`` (a traced parameter, a
jax.numpy / lax result, arithmetic on those), ``LIKELY`` (a field of a traced pytree,
which its class may declare static), ``POSSIBLE`` (the result of a call the model cannot
see into), or None (not traced). Every other question is a view of this one:

* ``traced.Tracing`` asks it while it spreads tracing over the call graph: a value is
  traced when its level is not None (any level), with every name the fixpoint has
  marked so far at ``CERTAIN`` (``Flow``'s names: ``FunctionInfo.tainted``). What it
  marks (``FunctionInfo.tainted``, ``traced_params``) is what the rules' ``Taint`` starts from.
* ``taint.Taint`` (the rules' view) is a ``Flow`` whose names carry their levels, so a
  parameter of a helper is as sure as the arguments its traced callers pass.

A fix to one shape of flow here reaches the tracing fixpoint and every rule at once.

What the model knows of values (by shape of expression):

* names: traced when the fixpoint marked them, and only after the statement that makes
  them so; not under an ``isinstance`` test that rules a tracer out; comprehension
  variables are their own (a dict's keys are Python values).
* attributes: ``.shape``/``.ndim``/``.dtype``/``.size`` are static, and so are fields a
  pytree class declares static, ``self.x``/``cls.x`` (the bound instance of a method, not
  a leaf), and the attributes of config-like names; other fields of a traced pytree are
  ``LIKELY``. A parameter annotated with a pytree class of the module (a NamedTuple, a
  registered dataclass or class, a flax struct) has its data fields as traced as it is,
  its static fields static, and other attributes ``LIKELY``.
* instances: a field of an instance the function makes of a class of the module
  (``b = Box(x)``) is what the constructor stores there (``self.a = a`` in ``__init__``,
  a NamedTuple or dataclass field, a property or a method returning ``self.a``), and a
  field the function assigns (``c.w = x + 1``, ``self.v = x``) is what it assigns.
* assignments: ``a, b = x, 2`` binds each target its own value; ``d["k"]`` of a dict
  display bound once in the function is the value stored under ``"k"``, and a dict
  display is as traced as its surest value.
* calls: jax.numpy / lax / nn / scipy / random results are traced in traced code, even
  from constants (not inside ``jax.ensure_compile_time_eval()``), and so is what
  numpy gives when handed a tracer; shape and dtype questions are static. A builtin
  that computes from its arguments (``sum``, ``max``, ``min``, ``abs``, ``round``,
  ``pow``, ``divmod``) is as traced as they are (of static values: static); the
  converters (``int``, ``len``, ``bool``, ...) give Python values. A jax transform
  applied in traced code (``jax.grad(f)(x)``, ``grad_fn(x)``) gives tracers, and so does a
  call of a function of the module decorated with ``jax.jit`` (staged out as one call,
  even given static values: ``staged_call``). A method of a
  traced value gives an array's or a container's result, or what the class's summary
  says; a function of the checked tree gives what its summary says (``values.Summaries``),
  a function of the module that computes its result from some parameters by arithmetic
  and indexing is as traced as the arguments given to them (``computed_from``), and one
  the model cannot see into gives at most ``POSSIBLE``.
* operators, subscripts, tuples and lists: as traced as their surest operand; ``is``,
  ``in``, ``not``, comparisons with strings and with an empty tuple, list or dict
  (``args == ()``: a container's structure) give Python bools; only one arm of a
  conditional expression runs.
"""
from __future__ import annotations

import ast
import itertools
import re
from typing import TYPE_CHECKING

from jaxlint.static.apis import (STATIC_JAX_FUNCS, ARRAY_LEAVES_ONLY_KINDS, ARRAYS_OUT, DIFF_TRANSFORMS, JIT_LIKE, SAMPLE_SITES, STATIC_ATTRS, STATIC_CALLS,
                                 TRACING_HOFS, is_axis_size)
from jaxlint.static.callers import UNREADABLE as _UNREADABLE
from jaxlint.static.callers import argument_for
from jaxlint.static.scopes import Binding, target_names, walk
from jaxlint.static.values import (ARRAY_METHODS, CONTAINER_METHODS, TREE_MAPS, Kind, Summaries,
                                   arithmetic_operands, class_facts, static_field, treedef_call)
from jaxlint.textutil import LazyPattern

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

    from jaxlint.static.scopes import FunctionInfo, Scopes


POSSIBLE, LIKELY, CERTAIN = 0, 1, 2

#: Base names whose attributes are configuration, never traced.
CONFIG_NAME = LazyPattern(r"^_*(config|cfg|conf|hparams|hps|hp|hyperparams|args|opts|options|settings|flags|spec)s?(_.*)?$|.*_(config|cfg)$", re.I)
#: Builtins that turn a value into a Python object: their result is never a tracer.
CONVERTERS = {"builtins.bool", "builtins.int", "builtins.float", "builtins.complex", "builtins.str",
              "builtins.repr", "builtins.len", "builtins.range", "builtins.format"}
#: Builtins that compute from their arguments: as traced as the surest of them (on a
#: tracer, ``abs``, ``round``, ``pow`` and ``divmod`` are its jax.numpy operations, and
#: ``sum``/``max``/``min`` add and compare its elements), and static when they are.
ARITH_BUILTINS = {"builtins.sum", "builtins.max", "builtins.min", "builtins.abs", "builtins.round",
                  "builtins.pow", "builtins.divmod"}
#: Array methods whose result is a Python object.
CONVERTING_METHODS = {"item", "tolist", "__len__", "__bool__", "__int__", "__float__", "__index__"}
#: jax functions that answer questions about dtypes and shapes with Python values.
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_JAX_ARRAY_FUNCS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.", "jax.tree_util.tree_map",
                    "jax.tree.map", "jax.vmap", "jax.grad", "jax.value_and_grad")
_EAGER = {"jax.ensure_compile_time_eval", "jax.core.ensure_compile_time_eval"}
#: Jit kinds whose calls in traced code stage every result out as a tracer.
_STAGING_JITS = {"jit", "pjit"}
_ARRAY_ATTRS = {"T", "mT", "real", "imag", "at", "flat"}


def iteration_targets(target: ast.AST, it: ast.AST, traced) -> set[str]:
    """The names of a ``for`` target that receive traced values when iterating ``it``
    (``traced(expr)`` says whether an expression is traced). Keys of a pytree dict
    (``for k, v in d.items()``, ``d.keys()``) and ``enumerate`` counters are Python
    values, and so is what ``range`` yields; ``zip`` pairs each target with its own iterable."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
        if it.func.attr == "keys":
            return set()
        if it.func.attr == "items" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
            return set(target_names(target.elts[1])) if traced(it.func.value) else set()
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.args and not it.keywords:
        if it.func.id == "range":
            return set()  # range() takes concrete ints and yields Python ints
        if it.func.id == "enumerate" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
            return iteration_targets(target.elts[1], it.args[0], traced)
        if it.func.id == "zip" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(it.args) \
                and not any(isinstance(a, ast.Starred) for a in it.args):
            out: set[str] = set()
            for t, a in zip(target.elts, it.args):
                out |= iteration_targets(t, a, traced)
            return out
    return set(target_names(target)) if traced(it) else set()


def iterated_source(name: str, target: ast.AST, it: ast.AST) -> ast.AST | None:
    """The iterable whose elements ``name`` (bound by ``for target in it``) receives: ``it``
    itself, or its own argument of a ``zip``, or the sequence of an ``enumerate``; None when
    ``name`` is not bound to an element (an ``enumerate`` counter, a ``range`` value)."""
    if name not in set(target_names(target)):
        return None
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.args and not it.keywords \
            and isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(a, ast.Starred) for a in it.args):
        if it.func.id == "enumerate" and len(target.elts) == 2:
            return iterated_source(name, target.elts[1], it.args[0])
        if it.func.id == "zip" and len(target.elts) == len(it.args):
            return next((src for t, a in zip(target.elts, it.args)
                         if (src := iterated_source(name, t, a)) is not None), None)
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
        return None
    return it if not isinstance(target, (ast.Tuple, ast.List)) else None


def in_trace_failure_handler(model: "Scopes", node: ast.AST) -> bool:
    """``node`` is a statement's part of an ``except`` handler that reports a failed trace:
    its body re-raises (``except TypeError as e: print(..., e); raise``: a diagnostic shown on
    the way out), or it catches only jax's own errors (``except jax.errors.JAXTypeError``,
    ``ConcretizationTypeError``: raised by tracing alone, so the handler runs when a trace
    fails, however the code is called)."""
    child, parent = node, model.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(parent, ast.ExceptHandler) and any(child is s for s in parent.body):
            return any(isinstance(s, ast.Raise) for s in parent.body) or _catches_only_jax_errors(model, parent)
        child, parent = parent, model.parent(parent)
    return False


def _catches_only_jax_errors(model: "Scopes", handler: ast.ExceptHandler) -> bool:
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = [model.resolve(e) if e is not None else None for e in caught]
    return all(q is not None and q.startswith("jax.") and q.endswith("Error") for q in names)


def sampled(call: ast.Call, observed: str) -> bool:
    """A sample site (``numpyro.sample("z", dist)``) in traced code draws a tracer; one
    given a value to observe (``obs=y``, not ``obs=None``) returns that value."""
    value = next((k.value for k in call.keywords if k.arg == observed), None)
    if value is None:
        return not any(k.arg is None for k in call.keywords) and len(call.args) < 3
    return isinstance(value, ast.Constant) and value.value is None


def unpacked(target: ast.AST, value: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """The (target, value) pairs an assignment binds: ``a, b = x, 2`` binds ``a`` to ``x``
    and ``b`` to ``2`` (each its own value); any other target takes the whole value."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts) \
            and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
        return [pair for t, v in zip(target.elts, value.elts) for pair in unpacked(t, v)]
    return [(target, value)]


def transform_of(model: "Scopes", func: ast.AST, fn: "FunctionInfo | None") -> str | None:
    """The jax transform a called expression applies: ``jax.grad(f)`` inline, or a
    name bound once to such a call (``grad_fn = jax.value_and_grad(loss)``); None
    when it is not one."""
    if isinstance(func, ast.Name):
        _, bindings = model.lookup(func.id, fn)
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, ast.Call):
            return None
        func = bindings[0].value
    if not (isinstance(func, ast.Call) and func.args):
        return None
    q = model.resolve_call(func)
    return q if q in DIFF_TRANSFORMS or q in TRACING_HOFS or q in JIT_LIKE else None


def staged_call(model: "Scopes", func: ast.expr, fn: "FunctionInfo | None") -> bool:
    """``func`` names a function of this module decorated with ``jax.jit`` or ``pjit``
    (bare, called, or through ``functools.partial``): called in traced code it is staged
    out as one call, and what it returns is a tracer of the enclosing trace whatever it
    is given. Filtered transforms, which pass Python values through, are not."""
    callee, _ = model.callee(func, fn)
    if callee is None or isinstance(callee.node, ast.Lambda):
        return False
    for dec in callee.node.decorator_list:
        q = model.resolve(dec)
        if isinstance(dec, ast.Call):
            q = model.resolve_call(dec)
            if q == "functools.partial" and dec.args:
                q = model.resolve(dec.args[0])
            elif dec.args:
                continue  # a decorator factory given other arguments
        if q is not None and JIT_LIKE.get(q) in _STAGING_JITS:
            return True
    return False


def _on_fields(facts, expr: ast.AST | None, depth: int) -> set[str] | None:
    """The kinds of ``self`` fields ("leaf", "static") that ``expr``, returned by a method,
    computes its value from by arithmetic and indexing alone; None for anything else."""
    if expr is None or depth > 6:
        return None
    if isinstance(expr, ast.Constant):
        return set()
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        kind = facts.field_kind(expr.attr)
        return {kind} if kind is not None else None
    if isinstance(expr, ast.Attribute) and expr.attr in STATIC_ATTRS:
        return set() if _on_fields(facts, expr.value, depth + 1) is not None else None
    operands = arithmetic_operands(expr)
    if isinstance(expr, ast.Subscript):
        operands = [expr.value, expr.slice]
    if operands is None:
        return None
    found = [_on_fields(facts, o, depth + 1) for o in operands]
    return None if any(f is None for f in found) else set().union(*found)  # type: ignore[arg-type]


def _is_property(fn: "FunctionInfo") -> bool:
    return any(isinstance(d, ast.Name) and d.id in ("property", "cached_property")
               for d in getattr(fn.node, "decorator_list", ()))


def _returned_self_field(fn: "FunctionInfo") -> str | None:
    """``f`` when every ``return`` of method ``fn`` (taking only ``self``) is ``self.f``."""
    if isinstance(fn.node, ast.Lambda) or len(fn.params) != 1:
        return None
    found: str | None = None
    for node in fn.body_nodes():
        if isinstance(node, ast.Return):
            v = node.value
            if not (isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self") \
                    or (found is not None and v.attr != found):
                return None
            found = v.attr
    return found


#: public name for the rules (JAX101's `BANK.lookup()`)
returned_self_field = _returned_self_field


class Flow:
    """How values read in traced function ``fn`` are traced (see the module's docstring).

    The names ``fn`` binds are as the tracing fixpoint marks them (``fn.tainted``), each
    ``CERTAIN``; ``taint.Taint`` refines them with levels (``name_level``)."""

    def __init__(self, model: "Scopes", fn: "FunctionInfo") -> None:
        self.model = model
        self.fn = fn
        self._isinstance_tests: set[str] | None = None  # names the body tests with isinstance
        self._reading: set[int] = set()  # reads whose reaching bindings are being asked about
        #: traced only because a traced function calls it (its parameters' fields are
        #: at most POSSIBLE: the callers' arguments may be static)
        self.indirect = bool(fn.traced_by) and all(r.by_call for r in fn.traced_by)
        self._fields_busy: set[tuple[str, str]] = set()  # fields being asked about (`self.n = self.n + 1`)
        self._stores: dict[tuple[str, str], list[ast.AST]] | None = None
        self._answers: dict[tuple[int, tuple[int, ...]], tuple[ast.AST, tuple[int, ast.AST] | None]] = {}  # culprit's, see there
        self._cuts = 0  # how many times a cycle guard has answered instead of the model

    def name_level(self, name: str) -> int | None:
        """The level of a name ``fn`` binds or closes over (None: not traced)."""
        return CERTAIN if name in self.fn.tainted else None

    def traced(self, expr: ast.AST | None) -> bool:
        """Yes/no: ``expr`` is traced at any level."""
        return self.culprit(expr) is not None

    # ------------------------------------------------------------------ expressions
    def level(self, expr: ast.AST | None) -> int | None:
        """CERTAIN / LIKELY / POSSIBLE when ``expr`` is traced, None when it is not."""
        found = self.culprit(expr)
        return found[0] if found else None

    def culprit(self, expr: ast.AST | None) -> tuple[int, ast.AST] | None:
        """(level, the sub-expression that makes ``expr`` traced), or None.

        Answers are remembered per expression: a chain of rebindings (``x = f(x)`` read
        through each binding that reaches it) asks about the same values again along every
        path, exponentially many. An answer is kept only when no cycle guard cut it short
        (``_cuts`` unchanged while it was computed: it does not depend on which reads were
        being answered) and for the names marked so far (``_state``: the fixpoint's marks
        only grow, so their sizes tell the answers from before a mark apart)."""
        if expr is None:
            return None
        key = (id(expr), self._state())
        kept = self._answers.get(key)
        if kept is not None and kept[0] is expr:
            return kept[1]
        cuts = self._cuts
        found = self._culprit(expr)
        if self._cuts == cuts:
            self._answers[key] = (expr, found)  # the node is kept, so its id is not reused
        return found

    def _state(self) -> tuple[int, ...]:
        """What this flow's answers rest on besides the code: the names and parameters the
        tracing fixpoint has marked traced and why (``taint.Taint`` adds its levels)."""
        fn = self.fn
        return len(fn.tainted), len(fn.traced_params), len(fn.traced_by)

    def _culprit(self, expr: ast.AST) -> tuple[int, ast.AST] | None:
        m = self.model
        if isinstance(expr, ast.Name):
            gen = self.comprehension_binding(expr)
            if gen is not None:
                if expr.id not in iteration_targets(gen.target, gen.iter, lambda e: self.culprit(e) is not None):
                    return None  # `k` of `for k, v in d.items()`: a pytree key
                found = self.culprit(gen.iter)
                return (found[0], expr) if found else None
            level = self.name_level(expr.id)
            if level is None:
                return None
            if len(self.fn.bindings.get(expr.id, ())) > 1 and self._clean_here(expr):
                return None  # `n = 3` reaches this read; `n = jnp.sum(x)` comes only after it
            if self._narrowed(expr):
                return None  # under `if isinstance(x, (int, float, np.ndarray))`: not a tracer
            return level, expr
        if isinstance(expr, ast.Attribute):
            base = expr.value
            if (expr.attr in STATIC_ATTRS or static_field(m, expr.attr)) and not self._declared_leaf(expr):
                return None  # a shape, or a field a pytree class (of this module or imported) declares static
            if expr.attr not in _ARRAY_ATTRS and Summaries.of(m).static_property(expr.attr):
                return None  # `gate.is_parametric`: a property of the project's classes that reads Python values
            if isinstance(base, ast.Name):
                stored = self._field(base, expr.attr)
                if stored is not _UNREADABLE:
                    return stored  # type: ignore[return-value]  # `b.a` of `b = Box(x)`, `self.v` after `self.v = x`
                if base.id in ("self", "cls") or CONFIG_NAME().match(base.id):
                    return None
                p = self.fn.param(base.id)
                if p is not None and base.id in self.fn.traced_params and expr.attr not in _ARRAY_ATTRS:
                    if m.is_array_annotation(p.annotation):
                        return CERTAIN, expr
                    field = self._pytree_field(p.annotation, expr.attr)
                    if p.annotation is None:
                        # unannotated: the pytree class of the module every call passes an
                        # instance of (`Scopes.passed_instance`) tells its leaves the same way
                        made = m.passed_instance(base.id, self.fn)
                        field = self._pytree_field(ast.Name(id=made), expr.attr) if made is not None else None
                        field = field if field in ("leaf", "static") else None
                    if field == "static":
                        return None
                    if field == "leaf":
                        return self.culprit(base)  # a leaf of a pytree class of the module: an array
                    if field == "other":
                        found = self.culprit(base)  # a pytree's attribute it does not declare
                        return (min(found[0], POSSIBLE if self.indirect else LIKELY), expr) if found else None
                    if p.annotation is not None:
                        return None  # a declared non-array type: a config or module object
                    found = self.culprit(base)
                    cap = POSSIBLE if self.indirect else LIKELY
                    return (min(found[0], cap), expr) if found else None
                if p is None and self._either_object(base):
                    return None  # `provider = override or self.provider`: a config or module object
            found = self.culprit(base)
            if found and expr.attr not in _ARRAY_ATTRS:
                # an array has no such attribute: `base` is a pytree (a loop's carry, a
                # dataclass) and this is one of its fields, which may be static
                return min(found[0], LIKELY), found[1]
            return (found[0], found[1]) if found else None
        if isinstance(expr, ast.Subscript):
            if treedef_call(m, expr.value) == "second" and isinstance(expr.slice, ast.Constant) \
                    and expr.slice.value == 1:
                return None  # `tree_flatten(x)[1]`: the treedef, a Python object
            if self._static_keyword(expr):
                return None
            entry = self._dict_entry(expr)
            found = self.culprit(entry if entry is not None else expr.value)
            if found is None and entry is None:
                # an element taken at a traced index (`sizes[i]` in a `fori_loop` body, `sizes`
                # closed over): an array gives a tracer, a list or tuple fails on it
                # (TracerIntegerConversionError): the element is never a Python value
                index = self.culprit(expr.slice) if not _has_slice(expr.slice) else None
                if index is None and self._module_array(expr.value):
                    return CERTAIN, expr  # `table[i]` of a module-level jax array: an indexing op,
                    # staged out under the trace like any other (the array itself is a constant)
                return (index[0], expr) if index else None
            return found
        if isinstance(expr, ast.Starred):
            return self.culprit(expr.value)
        if isinstance(expr, ast.Dict):
            return _best(*(self.culprit(v) for v in expr.values))  # a dict of what its values are
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
            if any(isinstance(o, (ast.Tuple, ast.List, ast.Dict)) and not (o.keys if isinstance(o, ast.Dict) else o.elts)
                   for o in operands):
                return None  # `args == ()`: a container's structure test (its length first), a Python bool
            return _best(*(self.culprit(o) for o in operands))
        if isinstance(expr, ast.IfExp):
            return self._one_arm(expr)
        if isinstance(expr, (ast.Tuple, ast.List)):
            return _best(*(self.culprit(e) for e in expr.elts))
        if isinstance(expr, ast.NamedExpr):
            return self.culprit(expr.value)
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.culprit(expr.elt)  # a list of what each element is (its variables are its own)
        if isinstance(expr, ast.DictComp):
            return _best(self.culprit(expr.key), self.culprit(expr.value))
        if isinstance(expr, ast.JoinedStr):
            return _best(*(self.culprit(v.value) for v in expr.values if isinstance(v, ast.FormattedValue)))
        return None

    def _static_keyword(self, expr: ast.Subscript) -> bool:
        """``kwargs["k"]`` of the function's own ``**kwargs``, never rebound, with ``"k"``
        in a jit's ``static_argnames``: jit keeps that keyword a Python value even when it
        reaches the function through the splat."""
        fn = self.fn
        if not (isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Constant)
                and isinstance(expr.slice.value, str) and expr.slice.value in fn.static_params):
            return False
        splat = next((p for p in fn.params if p.kind == "kwarg"), None)
        bindings = fn.bindings.get(expr.value.id, ())
        return splat is not None and splat.name == expr.value.id and fn.param(expr.slice.value) is None \
            and len(bindings) == 1 and bindings[0].kind == "param"

    def _dict_entry(self, expr: ast.Subscript) -> ast.AST | None:
        """``d["k"]`` with ``d`` bound once in the function to a dict display that has the
        key ``"k"``: the value stored there (``d = {"x": x, "n": 3}``: ``d["n"]`` is 3)."""
        if not (isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Constant)):
            return None
        bindings = self.fn.bindings.get(expr.value.id, ())
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, ast.Dict):
            return None
        display = bindings[0].value
        for k, v in zip(display.keys, display.values):
            if isinstance(k, ast.Constant) and k.value == expr.slice.value:
                return v
        return None

    def _field(self, base: ast.Name, attr: str) -> tuple[int, ast.AST] | None | ast.AST:
        """What ``base.attr`` holds when the function itself says: the values it stores
        there (``self.v = x``, ``c.w = x + 1``), and for an instance it makes of a class of
        the module (``b = Box(x)``) what the constructor stores in that field (``self.a =
        a`` in ``__init__``, a dataclass or NamedTuple field, a property returning one).
        ``_UNREADABLE`` when neither says."""
        key = (base.id, attr)
        if key in self._fields_busy:
            self._cuts += 1
            return _UNREADABLE
        self._fields_busy.add(key)
        try:
            values: list[ast.AST | None] = list(self._attr_stores().get(key, ()))
            made = self._constructed(base) if base.id not in ("self", "cls") else None
            if made is not None:
                cls, call = made
                given = self._constructor_field(cls, call, attr, 0)
                if given is _UNREADABLE and not values:
                    return _UNREADABLE
                if given is not _UNREADABLE:
                    values.extend(given)  # type: ignore[arg-type]
            elif not values:
                return _UNREADABLE
            return _best(*(self.culprit(v) for v in values if v is not None))
        finally:
            self._fields_busy.discard(key)

    def _attr_stores(self) -> dict[tuple[str, str], list[ast.AST]]:
        """(name, attribute) -> the values this function assigns to ``name.attribute``."""
        if self._stores is None:
            self._stores = {}
            for node in self.fn.body_nodes():
                if isinstance(node, ast.Assign):
                    pairs = [pair for t in node.targets for pair in unpacked(t, node.value)]
                elif isinstance(node, ast.AugAssign):
                    pairs = [(node.target, ast.BinOp(node.target, node.op, node.value))]
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    pairs = [(node.target, node.value)]
                else:
                    continue
                for t, v in pairs:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
                        self._stores.setdefault((t.value.id, t.attr), []).append(v)
        return self._stores

    def _constructed(self, name: ast.Name) -> tuple[str, ast.Call] | None:
        """(class, call) when ``name`` is bound once in this function to ``C(...)``, a
        class of the module."""
        bindings = self.fn.bindings.get(name.id, ())
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, ast.Call):
            return None
        call = bindings[0].value
        if isinstance(call.func, ast.Name) and call.func.id in self.model.classes \
                and self.model.lookup(call.func.id, self.fn)[0] is None:
            return call.func.id, call
        return None

    def _constructor_field(self, cls: str, call: ast.Call, attr: str, depth: int) -> list[ast.AST | None] | ast.AST:
        """The expressions of ``call`` (``C(...)``) that field ``attr`` of the instance is
        computed from (None: a constant or a default), or ``_UNREADABLE``."""
        if depth > 2:
            return _UNREADABLE
        init = self.model.method_named(cls, "__init__")
        if init is not None:
            out: list[ast.AST | None] = []
            for node in init.body_nodes():
                if not isinstance(node, ast.Assign):
                    continue
                for t, v in (pair for whole in node.targets for pair in unpacked(whole, node.value)):
                    if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                            and t.attr == attr):
                        continue
                    params = Summaries.of(self.model).computed_from_expr(init, v)
                    if params is None:
                        return _UNREADABLE
                    for name in params:
                        p = init.param(name)
                        arg = argument_for(call, init, p, 1) if p is not None else _UNREADABLE
                        if arg is _UNREADABLE:
                            return _UNREADABLE
                        out.append(arg)
                    out.append(None)
            if out:
                return out
        else:
            node = self.model.classes[cls]
            fields = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            if attr in fields and not any(isinstance(a, ast.Starred) for a in call.args) \
                    and not any(k.arg is None for k in call.keywords):
                i = fields.index(attr)
                kw = next((k.value for k in call.keywords if k.arg == attr), None)
                return [kw if kw is not None else call.args[i] if i < len(call.args) else None]
        prop = self.model.method_named(cls, attr)
        returned = _returned_self_field(prop) if prop is not None and _is_property(prop) else None
        if returned is not None and returned != attr:
            return self._constructor_field(cls, call, returned, depth + 1)
        return _UNREADABLE

    def _pytree_method(self, base: ast.Name, name: str) -> tuple[int, ast.AST] | None | ast.AST:
        """``t.m()`` with ``t`` a parameter annotated with a pytree class of the module whose
        method ``m`` returns arithmetic on its fields: as traced as ``t`` when a data field
        takes part (``return self.a * 2``), static when only static fields do (``return
        self.n + 1``); ``_UNREADABLE`` otherwise."""
        p = self.fn.param(base.id)
        if p is None or not isinstance(p.annotation, ast.Name) or self._pytree_field(p.annotation, "") is None:
            return _UNREADABLE
        cls = p.annotation.id
        method = self.model.method_named(cls, name)
        if method is None or isinstance(method.node, ast.Lambda) or len(method.params) != 1:
            return _UNREADABLE
        facts = class_facts(self.model)[cls]
        uses: set[str] = set()
        returns = [n.value for n in method.body_nodes() if isinstance(n, ast.Return)]
        for v in returns:
            found = _on_fields(facts, v, 0)
            if found is None:
                return _UNREADABLE
            uses |= found
        if not returns:
            return _UNREADABLE
        return self.culprit(base) if "leaf" in uses else None

    def _pytree_field(self, annotation: ast.expr | None, attr: str) -> str | None:
        """What ``attr`` is of a parameter annotated with a pytree class of this module
        (a NamedTuple, a registered dataclass or class, a flax struct): "leaf" for a data
        field, "static" for one it declares static, "other" for a name it does not
        declare (a method, a property); None when the annotation is no such class."""
        if not isinstance(annotation, ast.Name):
            return None
        facts = class_facts(self.model).get(annotation.id)
        if facts is None or facts.pytree is None or facts.pytree in ("linen", "nnx", "dataclass"):
            return None  # not a pytree (a plain dataclass is not one), or a module of layers
        kind = facts.field_kind(attr)
        if kind == "leaf" and attr not in facts.array_fields \
                and (facts.pytree == "equinox" or self._array_leaves_only()):
            # a leaf not declared an array: equinox's filtered transforms keep it static when
            # it holds a Python value (`n: int`), and an eqx.Module's fields often hold
            # submodules, callables or lists of layers
            return None
        if kind is None and attr and (facts.pytree == "equinox" or self._array_leaves_only()):
            return None  # a method, a property, an attribute the class does not declare
        return kind if kind is not None else "other"

    def _either_object(self, name: ast.Name) -> bool:
        """``name`` is bound once, here or in an enclosing function, to ``a or b`` (or ``a if
        t else b``) of objects whose attributes the model reads as static: ``self.x``, a
        parameter of that function annotated with a type that is no array (``override:
        Provider | None``), ``None``."""
        owner, bindings = self.model.lookup(name.id, self.fn)
        if owner is None or len(bindings) != 1 or bindings[0].kind != "assign":
            return False
        value = bindings[0].value
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            operands = value.values
        elif isinstance(value, ast.IfExp):
            operands = [value.body, value.orelse]
        else:
            return False
        for o in operands:
            root = o
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(o, ast.Constant) and o.value is None:
                continue
            if isinstance(o, ast.Attribute) and isinstance(root, ast.Name) and root.id in ("self", "cls") \
                    and owner.class_name is not None and owner.param(root.id) is not None:
                continue
            p = owner.param(o.id) if isinstance(o, ast.Name) else None
            if p is None or p.annotation is None or p.kind in ("vararg", "kwarg") \
                    or self.model.is_array_annotation(p.annotation) or len(owner.bindings.get(p.name, ())) != 1 \
                    or any(isinstance(n, ast.Name) and getattr(class_facts(self.model).get(n.id), "pytree", None)
                           for n in ast.walk(p.annotation)):  # a pytree class of the module: its fields are leaves
                return False
        return True

    def _declared_leaf(self, expr: ast.Attribute) -> bool:
        """``g.size`` where ``g`` is a traced parameter annotated with a pytree class of the
        module that declares ``size`` a data field: a leaf named like an array attribute
        (``class Grid(NamedTuple): size: jax.Array``), not the array's static size."""
        base = expr.value
        if not isinstance(base, ast.Name) or base.id not in self.fn.traced_params:
            return False
        p = self.fn.param(base.id)
        return p is not None and p.annotation is not None and self._pytree_field(p.annotation, expr.attr) == "leaf"

    def _array_leaves_only(self) -> bool:
        """``fn`` is traced by equinox's filtered transforms (``eqx.filter_jit``), which trace
        array leaves only."""
        return any(r.kind in ARRAY_LEAVES_ONLY_KINDS for r in self.fn.traced_by)

    def _clean_here(self, name: ast.Name) -> bool:
        """Whether every binding of ``name`` that reaches this read assigns a value that is
        not traced. The names a function taints are one set for its whole body; a name
        bound to a Python value first and to a tracer only later is not traced before."""
        if id(name) in self._reading:
            self._cuts += 1
            return False  # asked again while answering (a loop brings a binding back)
        if name not in self.model.parents:
            return False  # a made-up node
        self._reading.add(id(name))
        try:
            found = False
            loops: list[Binding] = []  # the innermost loop around the read that binds it reaches its body
            for a in self.model.ancestors(name):
                if a is self.fn.node or isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    break
                if isinstance(a, (ast.For, ast.AsyncFor)) and name.id in set(target_names(a.target)) \
                        and not self.model.inside(name, a.iter):
                    loops.append(Binding(name.id, a, None, "for"))
                    break
            # lazily: the first traced one answers (the reaching bindings of a name rebound in
            # each of n loops are n; listing them all for every read was quadratic)
            for b in itertools.chain(loops, self.model.iter_reaching(name, self.fn)):
                if isinstance(b.node, ast.comprehension):
                    comp = self.model.parent(b.node)
                    if comp is None or not self.model.inside(name, comp):
                        continue  # a comprehension's variable lives in the comprehension only
                    return False
                if isinstance(b.node, (ast.For, ast.AsyncFor)) and b.kind == "for":
                    if name.id in iteration_targets(b.node.target, b.node.iter, lambda e: self.level(e) is not None):
                        return False
                elif not (b.kind == "assign" and b.value is not None and self.level(b.value) is None):
                    return False
                found = True
            return found
        finally:
            self._reading.discard(id(name))

    def _one_arm(self, expr: ast.IfExp) -> tuple[int, ast.AST] | None:
        """Only one arm of ``a if test else b`` runs. When ``test`` asks whether a traced
        name is a tracer (``isinstance(x, float)``, ``isinstance(x, jax.Array)``), the arm a
        tracer takes is the value; otherwise a value traced in one arm only is possibly
        traced, and one traced in both is as sure as the less sure arm."""
        for name in {n.id for n in walk(expr.test) if isinstance(n, ast.Name)}:
            if self.name_level(name) != CERTAIN:
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
        the ``else`` of ``if isinstance(x, jax.Array)``, what follows
        ``if isinstance(x, jax.Array): return ...``, and the operands of an ``and`` after
        ``not isinstance(x, jax.core.Tracer)`` (of an ``or`` after ``isinstance(x, Tracer)``).
        A helper whose body returns such a test (``def is_tracer(v): return isinstance(v,
        jax.core.Tracer)``, of this module or imported) is the test. A test of another
        name computed by the same call (``a, b = solve(x)``: ``not isinstance(a, Tracer)``
        guarding ``bool(b)``) counts too: the outputs of one call are tracers together
        (the call ran under the trace, on traced inputs) or concrete together."""
        if self._isinstance_tests is None:
            self._isinstance_tests = {n.args[0].id for n in self.fn.body_nodes()
                                      if isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Name)
                                      and ((isinstance(n.func, ast.Name) and n.func.id == "isinstance")
                                           or (len(n.args) == 1 and self._in_test(n)
                                               and tracer_helper(self.model, n.func, self.fn)))}
        if not self._isinstance_tests:
            return False  # the body never tests a name's type
        same = self._same_source(name)
        if name.id not in self._isinstance_tests and same is None:
            return False  # the body never tests this name's type, nor that of one computed with it
        m, n_ = self.model, name.id

        def says(test: ast.AST, jax: bool) -> bool:
            return _isinstance_of(m, test, n_, jax, self.fn, same)

        child: ast.AST = name
        for a in self.model.ancestors(name):
            if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test:
                in_body = child in a.body if isinstance(a, ast.If) else child is a.body
                if in_body and says(a.test, jax=False):
                    return True
                if not in_body and says(a.test, jax=True):
                    return True
            if isinstance(a, ast.BoolOp) and child in a.values:
                # `not isinstance(x, Tracer) and bool(x)`: the later operands run only when
                # the earlier ones are true (`and`) or false (`or`): never with a tracer
                before = a.values[:a.values.index(child)]
                if any(says(v, jax=not isinstance(a.op, ast.And)) for v in before):
                    return True
            body = getattr(a, "body", None)
            if isinstance(body, list) and child in body:
                for stmt in body[:body.index(child)]:
                    if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body \
                            and isinstance(stmt.body[-1], (ast.Return, ast.Raise)) \
                            and says(stmt.test, jax=True):
                        return True
            if a is self.fn.node:
                return False
            child = a
        return False

    def _outside_trace(self, args: "list[ast.expr]") -> bool:
        """An operand reads a name that is traced whenever ``fn`` is, at a place a tracer
        test rules a tracer out (``not is_tracer(x) and bool(jnp.any(x < 0))``): that code
        runs only when no trace is running, where jax computes at once."""
        return any(isinstance(n, ast.Name) and self.name_level(n.id) == CERTAIN and self._narrowed(n)
                   for a in args for n in walk(a))

    def _in_test(self, call: ast.Call) -> bool:
        """``call`` (under ``not``) is a branch's test or an operand of ``and``/``or``."""
        child: ast.AST = call
        for a in self.model.ancestors(call):
            if isinstance(a, (ast.If, ast.IfExp, ast.While)):
                return child is a.test
            if isinstance(a, ast.BoolOp):
                return True
            if not (isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.Not)):
                return False
            child = a
        return False

    def _same_source(self, name: ast.Name) -> "Callable[[ast.Name], bool] | None":
        """When every binding of ``name`` that reaches this read unpacks the result of one
        call into several names (``g, ok = solve(x)``): a test of whether a read of another
        of those names, reached by the same bindings only, is a tracer."""
        reach = self.model.reaching_bindings(name, self.fn)
        if not reach or not all(isinstance(b.node, ast.Assign) and len(b.node.targets) == 1
                                and isinstance(b.node.targets[0], (ast.Tuple, ast.List))
                                and isinstance(b.node.value, ast.Call) for b in reach):
            return None
        nodes = {id(b.node) for b in reach}
        others = {t for b in reach for t in target_names(b.node.targets[0])} - {name.id}  # type: ignore[attr-defined]

        def same(read: ast.Name) -> bool:
            if read.id not in others:
                return False
            theirs = self.model.reaching_bindings(read, self.fn)
            return bool(theirs) and {id(b.node) for b in theirs} == nodes

        return same

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
        return transform_of(self.model, func, self.fn)

    def comprehension_binding(self, name: ast.Name) -> ast.comprehension | None:
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
        if q in ARITH_BUILTINS:
            return _best(*(self.culprit(v) for v in [*call.args, *(k.value for k in call.keywords if k.arg != "key")]))
        if q in TREE_MAPS and call.args:
            returns = Summaries.of(self.model).callee_returns(call.args[0], self.fn)
            if returns is Kind.STATIC:
                return None  # every leaf becomes what `f` returns: `jnp.ndim(a) == jnp.ndim(b)`
            found = _best(*(self.culprit(a) for a in call.args[1:]), *(self.culprit(k.value) for k in call.keywords))
            if found:
                return found
            # no traced tree: every leaf becomes what `f` makes of a Python value or a host
            # array, a tracer only when `f` stages arrays out (`jax.tree.map(jnp.zeros_like,
            # shapes)`); `saveat = jtu.tree_map(fix, saveat)` of a static argument stays static
            mapped = self.model.resolve(call.args[0])
            if returns is Kind.TRACED or (mapped is not None and mapped.startswith(_JAX_ARRAY_FUNCS)):
                return (CERTAIN, call) if not self._eager(call) else None
            return None
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
            if q.startswith(_JAX_ARRAY_FUNCS) and not self._eager(call) and not self._compiled_nowhere() \
                    and not self._outside_trace(args):
                # under jit every jax.numpy result is staged out, even from constants; under
                # a vmap or grad applied in eager code, one of concrete values is computed at once
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
            if transform in ARRAYS_OUT:
                # staged out under the trace whatever the inputs: `grad_fn(state.params)`
                # with `state: TrainState` (an annotated pytree hides its leaves above)
                return CERTAIN, call
        if staged_call(self.model, call.func, self.fn) and not self._eager(call):
            # a function decorated with `jax.jit`, called in traced code, is staged out as
            # one call: its results are tracers of the enclosing trace even when every
            # argument is static (`jnp.arange(plus_one(k))` with `k` in static_argnums)
            return CERTAIN, call
        if isinstance(call.func, ast.Attribute):
            if call.func.attr in CONVERTING_METHODS:
                return None
            if isinstance(call.func.value, ast.Name) and not call.args and not call.keywords:
                on_leaves = self._pytree_method(call.func.value, call.func.attr)
                if on_leaves is not _UNREADABLE:
                    return on_leaves  # type: ignore[return-value]  # `t.double()` returning `self.a * 2`
                made = self._constructed(call.func.value)
                method = self.model.method_named(made[0], call.func.attr) if made is not None else None
                returned = _returned_self_field(method) if method is not None else None
                if returned is not None:  # `b.get()` returning `self.v` of `b = Box(x)`
                    stored = self._field(call.func.value, returned)
                    if stored is not _UNREADABLE:
                        return stored  # type: ignore[return-value]
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
            through = self._computed_by(call)
            if through is not _UNREADABLE:
                return through  # type: ignore[return-value]  # `double(x)`: `return v * 2`
            # a function we cannot see into: it may return a static value
            return POSSIBLE, found[1]
        return None

    def _computed_by(self, call: ast.Call) -> tuple[int, ast.AST] | None | ast.AST:
        """What a call of a function of this module whose result is arithmetic on some of
        its parameters gives (``Summaries.computed_from``): as traced as the surest
        argument passed to those parameters, not traced when none is (``_UNREADABLE``:
        the callee is not such a function, or its arguments cannot be told)."""
        callee, implicit = self.model.callee(call.func, self.fn)
        if callee is None:
            return _UNREADABLE
        params = Summaries.of(self.model).computed_from(callee)
        if params is None:
            return _UNREADABLE
        found: list[tuple[int, ast.AST] | None] = []
        for name in params:
            p = callee.param(name)
            arg = argument_for(call, callee, p, implicit) if p is not None else _UNREADABLE
            if arg is _UNREADABLE:
                return _UNREADABLE
            found.append(self.culprit(arg) if arg is not None else None)
        return _best(*found)

    def _module_array(self, expr: ast.AST) -> bool:
        """``expr`` names a module-level jax array (``kvals = jnp.cumsum(...)``), read in a
        function a compiling trace runs (not under an eager vmap or grad, not in
        ``ensure_compile_time_eval``)."""
        if not isinstance(expr, ast.Name) or self.model.lookup(expr.id, self.fn)[0] is not None:
            return False
        from jaxlint.static.arrays import is_jax_array

        return is_jax_array(self.model, None, expr) and not self._eager(expr) and not self._compiled_nowhere()

    def _compiled_nowhere(self) -> bool:
        """``fn`` is traced only by a vmap or grad applied in eager code
        (``runs.compiled_nowhere``): an operation none of whose operands is traced (a
        vmap's ``in_axes=None`` argument, a constant) runs at once, on concrete values."""
        from jaxlint.static.runs import compiled_nowhere

        return compiled_nowhere(self.model, self.fn)

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


#: Types whose instances are never tracers, and those a tracer is an instance of.
_HOST_TYPES = ("builtins.", "numpy.", "numbers.", "typing.")
_TRACER_TYPES = {"jax.core.Tracer", "jax._src.core.Tracer", "jax.interpreters.partial_eval.DynamicJaxprTracer"}
_JAX_TYPES = {"jax.Array", "jax.numpy.ndarray"} | _TRACER_TYPES


def _isinstance_of(model: "Scopes", test: ast.AST, name: str, jax: bool, scope: "FunctionInfo | None" = None,
                   same: "Callable[[ast.Name], bool] | None" = None) -> bool:
    """``test`` (or a conjunct of an ``and``) is ``isinstance(name, T)`` with every type in
    ``T`` a host type (``jax=False``: int, float, np.ndarray, ...) or a JAX array type
    (``jax=True``), or ``not isinstance(...)`` of the other kind. A call of a helper that
    returns ``isinstance(v, Tracer)`` (``tracer_helper``, read in ``scope``) is that test;
    ``same`` accepts a read of another name that is a tracer exactly when ``name`` is."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_isinstance_of(model, v, name, jax, scope, same) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _isinstance_of(model, test.operand, name, not jax, scope, same)
    if not (isinstance(test, ast.Call) and test.args and isinstance(test.args[0], ast.Name)
            and (test.args[0].id == name or (same is not None and same(test.args[0])))):
        return False
    if len(test.args) == 1 and not test.keywords:
        return jax and tracer_helper(model, test.func, scope)
    if not (model.resolve_call(test) == "builtins.isinstance" and len(test.args) == 2):
        return False
    types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    quals = [model.resolve(t) or "" for t in types]
    if jax:
        return all(q in _JAX_TYPES for q in quals)
    return all(q.startswith(_HOST_TYPES) for q in quals)


def tracer_helper(model: "Scopes", func: ast.expr, scope: "FunctionInfo | None") -> bool:
    """``func`` is a function (of this module, or imported from another module of the
    tree) whose body returns ``isinstance(v, T)`` of its one parameter ``v`` with every
    type in ``T`` a tracer type (``def is_tracer(v): return isinstance(v,
    jax.core.Tracer)``): its call is that test."""
    if not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    memo: dict[object, bool] = model.__dict__.setdefault("_tracer_helpers", {})
    key = (id(scope), model.resolve(func) or id(func))
    known = memo.get(key)
    if known is None:
        known = memo[key] = _tracer_helper(model, func, scope)
    return known


def _tracer_helper(model: "Scopes", func: "ast.Name | ast.Attribute", scope: "FunctionInfo | None") -> bool:
    callee, implicit = model.callee(func, scope)
    home = model
    if callee is None:
        link = model.link
        if link is None:
            return False
        deps: set = set()
        found = link.function(model, func, scope, deps)
        if found is None:
            return False
        mod, callee = found
        home = mod.scopes()  # type: ignore[assignment]
        implicit = 0
        if deps and model.link is not None:
            model.link.use(deps)
    node = callee.node
    if implicit or isinstance(node, ast.Lambda) or len(callee.params) != 1:
        return False
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            and not isinstance(s, (ast.Import, ast.ImportFrom))]  # a docstring, `import jax` in the body
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    test = body[0].value
    return (isinstance(test, ast.Call) and home.resolve_call(test) == "builtins.isinstance" and len(test.args) == 2
            and isinstance(test.args[0], ast.Name) and test.args[0].id == callee.params[0].name
            and all((home.resolve(t) or "") in _TRACER_TYPES
                    for t in (test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]])))


def _has_slice(index: ast.expr) -> bool:
    """``a[i:j]``, ``a[:, i]``: a slice, whose traced bounds are an error of their own."""
    return isinstance(index, ast.Slice) or (isinstance(index, ast.Tuple)
                                           and any(isinstance(e, ast.Slice) for e in index.elts))


def _best(*found: tuple[int, ast.AST] | None) -> tuple[int, ast.AST] | None:
    best = None
    for f in found:
        if f is not None and (best is None or f[0] > best[0]):
            best = f
    return best
