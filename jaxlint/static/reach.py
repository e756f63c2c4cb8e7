"""Where a value goes: does any number it holds reach something that reads numbers?

A random draw only matters through what is done with its result. ``Reach`` follows one
expression's value forward through its function: up through the expressions around it
(arithmetic, a call given it, a container holding it), into the names an assignment
binds and on to the reads that binding reaches (``cfg.ControlFlow.reads_after``: a name
rebound on every loop pass is a new value from there on, not the first pass's). A path
ends:

* **read** where the value leaves what the model follows: returned, stored in a field
  or an index, handed to a call whose result nobody reads, read by a nested function,
  a condition, anything unknown;
* **not read** where only its structure is used: a template whose leaves are replaced
  before any number is read (``eqx.tree_deserialise_leaves(path, like)``, flax's
  ``serialization.from_bytes(target, data)`` / ``from_state_dict``), an argument
  of ``jax.eval_shape`` / ``eqx.filter_eval_shape`` / ``nnx.eval_shape`` (traced
  abstractly), an array's metadata (``x.shape``, ``x.dtype``), or a name nobody reads.

Asked with ``shapes=True``, a path also ends **not read** where a traced program is only
made from the value (its shape and dtype give the program, its numbers are never computed
from): an argument of ``jax.make_jaxpr(f)(...)`` (or equinox's), of ``.lower(...)``, of
``jit(f).trace(...)``, or a sample input of a model's ``init`` after its key (``model.init(key,
x)``, whose parameters come from the key; a data-dependent initialiser would read ``x``:
JAX114 gives such reuses a kind of their own, not silence).

``read(expr)`` says whether any path is read. For a ``jax.random.split`` unpacked into
names (``a, b = split(key)``), ``read_outputs`` answers per output: two splits of one key
give the same keys index by index, so they only share numbers when some index is read
after both. ``Summary.labels`` are the select alternatives every read path passes
through (``selects``): two values whose every read path crosses one select in different
alternatives never meet in an element of its result.

The model says "read" whenever unsure (a global, a name a nested function reads, a
statement the flow graph does not hold, more than ``_BUDGET`` steps).
"""
from __future__ import annotations

import ast
import re

from jaxlint.records import dataclass
from jaxlint.static.apis import JIT_LIKE
from jaxlint.static.cfg import METADATA, ControlFlow
from jaxlint.static.scopes import FunctionInfo, Scopes
from jaxlint.static.selects import branch_slot, result_of, slot
from jaxlint.textutil import LazyPattern

#: calls whose arguments only give a structure: {qualified name: (positions, keywords)};
#: ``None`` positions: every argument
TEMPLATES: dict[str, tuple[frozenset[int] | None, frozenset[str]]] = {
    "equinox.tree_deserialise_leaves": (frozenset({1}), frozenset({"like"})),
    "flax.serialization.from_bytes": (frozenset({0}), frozenset({"target"})),
    "flax.serialization.from_state_dict": (frozenset({0}), frozenset({"target"})),
    "jax.eval_shape": (None, frozenset()),
    "equinox.filter_eval_shape": (None, frozenset()),
    "flax.nnx.eval_shape": (None, frozenset()),
}
#: abstract evaluations called on the function they are given (``make_jaxpr(f)(x)``)
_TRACERS = frozenset({"jax.make_jaxpr", "equinox.filter_make_jaxpr"})
#: a name or field that holds a key (``model.init(rng, x)``), or a dict of them (``{"params": k}``)
_KEY_TEXT = LazyPattern(r"key|rng|seed", re.IGNORECASE)
#: how many expressions one question may visit
_BUDGET = 400


@dataclass(frozen=True)
class Summary:
    """What becomes of a value: whether some path reads it, and the select alternatives
    (select id, alternative) that every reading path passes (None when none reads)."""

    read: bool
    labels: frozenset[tuple[int, int]] | None


_UNREAD = Summary(False, None)
_READ = Summary(True, frozenset())


def _join(parts: list[Summary]) -> Summary:
    reading = [p.labels for p in parts if p.read and p.labels is not None]
    if not reading:
        return _UNREAD
    labels = reading[0]
    for more in reading[1:]:
        labels = labels & more
    return Summary(True, labels)


def _by_select(labels: frozenset[tuple[int, int]]) -> dict[int, int | None]:
    """{select: the alternative}, None where a path set passes one select in two."""
    out: dict[int, int | None] = {}
    for select, alternative in labels:
        out[select] = alternative if out.get(select, alternative) == alternative else None
    return out


class Reach:
    """Forward flow of values in one module (answers are memoised per expression)."""

    def __init__(self, model: Scopes, shapes: bool = False) -> None:
        self.model = model
        self.shapes = shapes
        self._memo: dict[tuple[int, bool], Summary] = {}
        self._via_memo: dict[tuple[int, bool], Summary] = {}
        self._via: ast.stmt | None = None
        self._busy: set[tuple[int, bool]] = set()
        self._flows: dict[int, ControlFlow] = {}
        self._steps = 0
        self._inside: dict[tuple[int, str], bool] = {}

    # ------------------------------------------------------------------ questions
    def summary(self, expr: ast.AST) -> Summary:
        self._steps = 0
        return self._follow(expr, True)

    def read(self, expr: ast.AST) -> bool:
        """Some number of ``expr``'s value may be read."""
        return self.summary(expr).read

    def read_outputs(self, call: ast.Call) -> set[int] | None:
        """The indices of ``call``'s outputs that may be read, where ``call`` is unpacked
        into a tuple of names (``a, b = split(key)``); None when not unpacked (then its
        outputs are read or not as a whole: see ``read``)."""
        stmt = self.model.parent(call)
        if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], (ast.Tuple, ast.List))
                and not any(isinstance(e, ast.Starred) for e in stmt.targets[0].elts)):
            return None
        out = set()
        for i, target in enumerate(stmt.targets[0].elts):
            self._steps = 0
            if self._into(stmt, target, True).read:
                out.add(i)
        return out

    def alternatives(self, a: ast.AST, b: ast.AST) -> bool:
        """``a`` and ``b`` (two expressions of one function, ``b`` later) reach different
        alternatives of one select on every run that evaluates ``b``: every read path of
        ``b`` passes the select in one alternative, and every read path of ``a`` on the
        runs through ``b``'s statement passes it in another (paths of ``a`` that cannot
        run with ``b``, an ``if`` arm without it, do not count). Names rebound on the way
        are followed (``x = x + noise`` ... ``where(c, other, x)``)."""
        model = self.model
        fn, via = model.function_of(b), model.statement_of(b)
        if fn is None or fn is not model.function_of(a) or via is None or isinstance(fn.node, ast.Lambda):
            return False
        later = self.summary(b)
        if not later.read or not later.labels:
            return False
        first = self._follow_via(a, via)
        if not first.read or not first.labels:
            return False
        mine, theirs = _by_select(first.labels), _by_select(later.labels)
        return any(s in theirs and k is not None and theirs[s] is not None and k != theirs[s]
                   for s, k in mine.items())

    def read_with(self, a: ast.AST, b: ast.AST) -> bool:
        """Some number of ``a``'s value may be read on a run that also evaluates ``b``
        (two expressions of one function, ``b`` later): a read of ``a`` that can only
        happen on runs that leave before ``b`` or go round it (``x = uniform(key)``, then
        ``if n == 1: return uniform(key)``, then ``x`` read below the ``if``) does not
        count. True when unsure (another function, one statement holding both)."""
        model = self.model
        fn, via = model.function_of(b), model.statement_of(b)
        if fn is None or fn is not model.function_of(a) or via is None or isinstance(fn.node, ast.Lambda) \
                or model.statement_of(a) is via:
            return True
        return self._follow_via(a, via).read

    # ------------------------------------------------------------------ the walk
    def _follow_via(self, a: ast.AST, via: ast.stmt) -> Summary:
        """What becomes of ``a``'s value on the runs through the statement ``via``."""
        self._via, self._via_memo, self._steps = via, {}, 0
        try:
            return self._follow(a, False)
        finally:
            self._via = None

    def _follow(self, node: ast.AST, passed: bool) -> Summary:
        """``passed``: the path has run the statement ``_via`` (always, outside
        ``alternatives``)."""
        key = (id(node), passed)
        memo = self._memo if self._via is None else self._via_memo
        done = memo.get(key)
        if done is not None:
            return done
        if key in self._busy:
            return _READ  # round a loop: whatever it meets there, the first visit answers
        self._steps += 1
        if self._steps > _BUDGET:
            return _READ
        self._busy.add(key)
        try:
            result = self._step(node, passed)
        finally:
            self._busy.discard(key)
        memo[key] = result
        return result

    def _end(self, node: ast.AST, passed: bool) -> Summary:
        """A path that leaves what the model follows at ``node``: read, unless
        ``alternatives`` asks only of the runs through ``_via`` and this one cannot be."""
        if passed or self._via is None:
            return _READ
        stmt = self.model.statement_of(node)
        fn = self.model.function_of(node)
        if stmt is None or fn is None or isinstance(fn.node, ast.Lambda):
            return _READ
        return _READ if self._flow(fn).reaches(stmt, self._via) else _UNREAD

    def _step(self, node: ast.AST, passed: bool) -> Summary:
        model = self.model
        parent = model.parent(node)
        if parent is None:
            return _READ
        where = slot(model, node, parent)
        if where is not None:
            select = result_of(model, parent)
            onward = self._follow(select, passed) if select is not None else _READ
            if not onward.read or onward.labels is None:
                return onward
            return Summary(True, onward.labels | {where})
        if isinstance(parent, ast.keyword):
            call = model.parent(parent)
            if isinstance(call, ast.Call) and (self._template(call, parent.arg, None)
                                               or self.shapes and self._shapes_only(call, None, parent.arg)):
                return _UNREAD
            return self._follow(parent, passed)
        if isinstance(parent, ast.Call):
            if node is parent.func:  # a method of the value (`x.astype(t)`) gives a value made from it
                return self._follow(parent, passed) if isinstance(node, ast.Attribute) else self._end(node, passed)
            index = next((i for i, a in enumerate(parent.args) if a is node), None)
            if index is not None and (self._template(parent, None, index)
                                      or self.shapes and self._shapes_only(parent, index, None)):
                return _UNREAD
            return self._follow(parent, passed)
        if isinstance(parent, ast.Attribute):
            return _UNREAD if parent.attr in METADATA else self._follow(parent, passed)
        if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Store):
            return self._end(node, passed)
        if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Subscript, ast.Starred,
                               ast.Tuple, ast.List, ast.Set, ast.Dict, ast.IfExp, ast.Slice)):
            return self._follow(parent, passed)
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node is parent.value:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return _join([self._into(parent, t, passed) for t in targets])
        if isinstance(parent, ast.Lambda) and node is parent.body:
            branch = branch_slot(model, parent)
            if branch is not None:  # one branch of a `lax.cond` / `lax.switch`: its result, on the runs taking it
                onward = self._follow(branch[0], passed)
                return onward if not onward.read or onward.labels is None else \
                    Summary(True, onward.labels | {(id(branch[0]), branch[1])})
            return _UNREAD if self._template_function(parent) else _READ
        return self._end(node, passed)

    def _into(self, stmt: ast.stmt, target: ast.AST, passed: bool) -> Summary:
        """The value bound to ``target`` by ``stmt``."""
        if isinstance(target, ast.Name):
            return self._name(stmt, target.id, passed)
        if isinstance(target, (ast.Tuple, ast.List)):
            return _join([self._into(stmt, e.value if isinstance(e, ast.Starred) else e, passed)
                          for e in target.elts])
        return self._end(stmt, passed)  # a field or an index: stored where the model does not follow

    def _name(self, stmt: ast.stmt, name: str, passed: bool) -> Summary:
        fn = self.model.function_of(stmt)
        if fn is None or isinstance(fn.node, ast.Lambda) or name in fn.globals_ or name in fn.nonlocals:
            return _READ
        if self._read_inside(fn, name):
            return _READ
        flow = self._flow(fn)
        if id(stmt) not in flow.where:
            return _READ
        if self._via is None:
            return _join([self._follow(n, True) for n in flow.reads_after(stmt, name)])
        return _join([self._follow(n, now or passed) for n, now in flow.reads_after_via(stmt, name, self._via)])

    # ------------------------------------------------------------------ helpers
    def _flow(self, fn: FunctionInfo) -> ControlFlow:
        flow = self._flows.get(id(fn))
        if flow is None:
            flow = self._flows[id(fn)] = ControlFlow(fn.node.body)  # type: ignore[arg-type]
        return flow

    def _read_inside(self, fn: FunctionInfo, name: str) -> bool:
        """A function nested in ``fn`` (at any depth) reads ``fn``'s ``name`` (other than
        a lambda given to an abstract evaluation, which draws no numbers)."""
        memo = self._inside.get((id(fn), name))
        if memo is not None:
            return memo
        found = False
        for g in self.model.functions:
            outer = g.parent
            while outer is not None and outer is not fn:
                outer = outer.parent
            if outer is None or g is fn:
                continue
            if isinstance(g.node, ast.Lambda) and (self._template_function(g.node)
                                                   or branch_slot(self.model, g.node) is not None):
                continue  # (a branch's reads are the enclosing statement's: followed from there)
            if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in g.body_nodes()) \
                    and self.model.lookup(name, g)[0] is fn:
                found = True
                break
        self._inside[(id(fn), name)] = found
        return found

    def _template(self, call: ast.Call, keyword: str | None, index: int | None) -> bool:
        spec = TEMPLATES.get(self.model.resolve_call(call) or "")
        if spec is None:
            return False
        positions, keywords = spec
        if keyword is not None:
            return positions is None or keyword in keywords
        return index is not None and (positions is None or index in positions)

    def _shapes_only(self, call: ast.Call, index: int | None, keyword: str | None) -> bool:
        """The argument at ``index`` (or ``keyword``) of ``call`` only gives a traced program
        its shapes (``shapes=True``: see the module's docstring)."""
        func, model = call.func, self.model
        if isinstance(func, ast.Call):  # `make_jaxpr(f)(x)`
            return model.resolve_call(func) in _TRACERS
        if not isinstance(func, ast.Attribute):
            return False
        if func.attr == "lower" or func.attr == "trace" and isinstance(func.value, ast.Call) \
                and model.resolve_call(func.value) in JIT_LIKE:
            return True
        first = call.args[0] if call.args else None
        return func.attr == "init" and keyword != "rngs" and (index is None or index >= 1) and first is not None \
            and (isinstance(first, ast.Dict) or bool(_KEY_TEXT().search(ast.unparse(first))))

    def _template_function(self, lam: ast.Lambda) -> bool:
        """``lam`` is an argument of an abstract evaluation (``jax.eval_shape(lambda: ...)``)."""
        call = self.model.parent(lam)
        if isinstance(call, ast.keyword):
            call = self.model.parent(call)
        return isinstance(call, ast.Call) and TEMPLATES.get(self.model.resolve_call(call) or "", (0,))[0] is None
