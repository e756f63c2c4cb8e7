"""Which functions of a module are traced, and why, as data: a part of the static model.

``Tracing`` marks each function that runs under a trace with one ``Reason`` per way it
gets there: a jit-like entry point (found by the jit map, ``jitmap.EntryFinder``), a
transform or lax higher-order function that traces it (``scan`` at line 30, ``grad``
applied in ``step``), or a call from traced code (called from ``step``). It spreads
tracing over the call graph to a fixpoint, marks the parameters that carry traced
values, and the names of each traced function that hold them (``FunctionInfo.tainted``;
``is_traced_expr`` asks it of an expression).

A ``Reason`` is data: rules read its fields (``kind``, ``line``, ``caller``), never its
text. ``str(reason)`` is the text the jit map stores and messages show.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable

from jaxlint.static.apis import (ABSTRACT_EVAL, ARRAY_LEAVES_ONLY_ABSTRACT, ARRAY_LEAVES_ONLY_DIFF,
                                 ARRAY_LEAVES_ONLY_HOFS, CUSTOM_RULES, DIFF_TRANSFORMS,
                                 EQX_RULE_TRACED, INJECTED_HYPERPARAMS, JIT_LIKE, LIBRARY_TRACERS, LINEN_LIFTED,
                                 PASS_ARGUMENTS,
                                 PRIMAL_TRANSFORMS, TRACING_HOFS,
                                 literal_int, literal_ints, literal_strs)
from jaxlint.static.flow import CERTAIN, Flow, iteration_targets, sampled, transform_of, unpacked  # noqa: F401
from jaxlint.static.protocols import LINEN_RUNNERS, keras_traced_calls, runner_call, runner_target
from jaxlint.static.runs import (DIFF_KINDS, EAGER_KINDS, EAGER_UNDER_DISABLE_JIT, _only_by,  # noqa: F401
                                 compiled_nowhere, disable_jit_test, eager_block, flag_off_when_traced, reads_disable_jit,
                                 given_by_calls, never_given, opaque_decorator, unused_wrapper,
                                 wrapper_name)
from jaxlint.static.cfg import eager_after_conversion
from jaxlint.static.containers import splat_entries
from jaxlint.static.data import CALL, ENTRY_KINDS, Reason  # noqa: F401 (named here by the rules)
from jaxlint.static.scopes import target_names
from jaxlint.static.values import treedef_targets

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.scopes import FunctionInfo, Scopes

#: Transforms that trace the function they decorate whenever it is called.
_CHECKPOINTS = ("jax.checkpoint", "jax.remat", "jax.ad_checkpoint.checkpoint", "flax.nnx.remat")
#: flax linen's lifts of a module class that trace its ``__call__`` with every argument
#: but ``None`` and the static ones, counted with ``self`` as 0 (flax 0.12.8, checked in
#: ``test_jax105``): ``nn.jit`` also has ``static_argnames``
_LINEN_TRACING_LIFTS = ("flax.linen.remat", "flax.linen.checkpoint", "flax.linen.jit")


def _after_splat(args: list[ast.expr], call: ast.Call, target: FunctionInfo, implicit: int) -> int | None:
    """Where the arguments after a call's one splat start among ``target``'s positional
    parameters (``f(*head, a, b)``: ``a`` and ``b`` fill its last two), when that is sure:
    ``target`` takes no ``*args``, no positional parameter has a default, and the call
    passes no keyword; ``None`` otherwise (a traced splat may fill any parameter)."""
    stars = [i for i, a in enumerate(args) if isinstance(a, ast.Starred)]
    positional = target.positional()
    if len(stars) != 1 or call.keywords or any(p.kind == "vararg" for p in target.params) \
            or any(p.default is not None for p in positional):
        return None
    tail = len(positional) - (len(args) - stars[0] - 1)
    return tail if tail >= implicit + stars[0] else None


def only_differentiated(fn: FunctionInfo, settled: set[int] | None = None) -> bool:
    """``fn`` is traced only by a differentiation transform applied outside any trace
    (``jax.grad(loss)(w)`` in a training loop, ``g = jax.grad(f)`` at module level), or
    called only from such functions. It runs on JVP tracers whose primal values are
    concrete: Python control flow on them works (``if w > 0:``), and nothing is
    compiled, while numpy on them, ``float()``, printing them and storing them outside
    still fail or leak. ``ModuleModel.traced_functions`` leaves them out unless asked.
    ``settled``: see ``_only_by``."""
    return _only_by(fn, _by_eager_grad, set(), settled if settled is not None else set())


def only_abstract(fn: FunctionInfo, settled: set[int] | None = None) -> bool:
    """``fn`` is traced only by an abstract evaluation (``jax.eval_shape(f, x)``,
    ``jax.make_jaxpr(f)(x)``), or called only from such functions: its values are tracers
    (control flow on them, numpy on them and shapes from them fail), but nothing is
    compiled and it runs once per evaluation. ``ModuleModel.traced_functions`` leaves
    them out unless asked (``apis.ABSTRACT_EVAL`` says which rules ask). ``settled``:
    see ``_only_by``."""
    return _only_by(fn, _by_abstract_eval, set(), settled if settled is not None else set())


def _by_eager_grad(r: Reason) -> bool:
    return r.kind in DIFF_KINDS and r.line is not None and r.caller is None


def _by_abstract_eval(r: Reason) -> bool:
    return r.kind in ABSTRACT_KINDS


def staged_inside(scopes: "Scopes", node: ast.AST) -> bool:
    """``node`` runs inside a trace: its function is traced (by a jit, a transform, a lax
    loop, or a call from traced code), so a jitted function it calls is staged into the
    outer program as one call on tracers. What that jit does at a call from Python, it
    does not do there: donated arguments are not donated (no buffer is deleted; jax
    applies donation to the arrays of a call from eager code), nothing is dispatched or
    compiled on its own."""
    fn = scopes.function_of(node)
    return fn is not None and fn.traced


#: the staged conditionals whose first argument is the predicate they branch on
_STAGED_CONDS = frozenset({"jax.lax.cond"})


def python_twin_of_cond(scopes: "Scopes", test: ast.AST) -> ast.Call | None:
    """The ``lax.cond`` of which ``test`` is the Python twin: ``test`` (an ``if``'s or a
    conditional expression's) lies in one arm of an ``if flag:`` of its function, and the
    other arm hands the same expression to ``lax.cond`` as its predicate (``if scheduled:
    lax.cond(steps == 1, f, g) else: if steps == 1: ...``). The function says that the
    flag decides how the value comes: traced on the cond's path, a Python value on the
    other, where the Python ``if`` runs. None when there is no such cond."""
    want = ast.dump(test, annotate_fields=False)
    child: ast.AST = test
    for a in scopes.ancestors(test):
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None
        if isinstance(a, ast.If) and a.test is not child:
            other = a.orelse if any(child is s for s in a.body) else a.body if any(
                child is s for s in a.orelse) else None
            for st in other or ():
                for node in ast.walk(st):
                    if isinstance(node, ast.Call) and node.args and scopes.resolve_call(node) in _STAGED_CONDS \
                            and ast.dump(node.args[0], annotate_fields=False) == want:
                        return node
        child = a
    return None


#: What a trace knows of a name: ``("truth", b)``, its truth value is ``b``;
#: ``("none", b)``, ``name is None`` is ``b``.
Fact = tuple[str, bool]


def _implied(test: ast.AST, holds: bool) -> dict[str, Fact]:
    """The facts on names that ``test`` evaluating to ``holds`` implies: ``use_jit``
    true, ``not state`` false, ``state is not None`` true, each operand of a true
    ``and`` (of a false ``or``)."""
    if isinstance(test, ast.Name):
        return {test.id: ("truth", holds)}
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _implied(test.operand, not holds)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if holds else ast.Or):
        out: dict[str, Fact] = {}
        for v in test.values:
            for name, fact in _implied(v, holds).items():
                if out.setdefault(name, fact) != fact:
                    return {}
        return out
    named = _none_test(test)
    if named is not None:
        return {named[0]: ("none", holds == named[1])}
    return {}


def _none_test(test: ast.AST) -> tuple[str, bool] | None:
    """``(name, True)`` for ``name is None``, ``(name, False)`` for ``name is not None``."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return test.left.id, isinstance(test.ops[0], ast.Is)
    return None


def _decide(test: ast.AST, known: dict[str, Fact], readable: "Callable[[ast.Name], bool]",
            flag: "Callable[[ast.AST], bool]" = lambda _: False) -> bool | None:
    """What ``test`` evaluates to given the facts ``known`` (None: not decided); a name
    counts only where ``readable`` says its value there is the one the fact is about.
    A part of which ``flag`` holds is false (a read of ``jax_disable_jit`` under a jit)."""
    if flag(test):
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decide(test.operand, known, readable, flag)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        parts = [_decide(v, known, readable, flag) for v in test.values]
        stop = isinstance(test.op, ast.Or)  # the value that decides the whole
        return stop if stop in parts else (not stop if all(p is not None for p in parts) else None)
    named = _none_test(test)
    name = test if isinstance(test, ast.Name) else test.left if named is not None else None  # type: ignore[attr-defined]
    fact = known.get(name.id) if isinstance(name, ast.Name) else None
    if fact is None or not readable(name):  # type: ignore[arg-type]
        return None
    if named is None:  # the name's truth
        return fact[1] if fact[0] == "truth" else (False if fact[1] else None)
    if fact[0] == "none":
        return fact[1] == named[1]
    return (not named[1]) if fact[1] else None  # a true value is not None


def _arm_facts(scopes: "Scopes", node: ast.AST, stop: ast.AST | None) -> dict[str, Fact]:
    """The facts that hold where ``node`` runs, from the ``if``/conditional expression
    arms around it below ``stop`` (``if use_jit:`` ... , ``g if state is None else
    g_jit``); a name two arms say different things of is left out."""
    out: dict[str, Fact] = {}
    child: ast.AST = node
    for a in scopes.ancestors(node):
        if a is stop:
            break
        if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test:
            in_body = child is a.body or (isinstance(a.body, list) and child in a.body)
            for name, fact in _implied(a.test, in_body).items():
                if out.setdefault(name, fact) != fact:
                    out[name] = ("conflict", False)
        child = a
    return {n: f for n, f in out.items() if f[0] != "conflict"}


def _twin_calls(scopes: "Scopes", ref: ast.Name, where: "FunctionInfo") -> list[ast.Call] | None:
    """The calls that run the function ``ref`` names: ``ref(...)`` itself, or the calls
    of a local bound once to it or to a conditional expression with it in an arm
    (``kernel = f if state is None else f_jit`` ... ``kernel(...)``). None when ``ref``
    is used any other way (passed on, stored, returned)."""
    node: ast.AST = ref
    parent = scopes.parent(node)
    if isinstance(parent, ast.Call) and parent.func is node:
        return [parent]
    while isinstance(parent, ast.IfExp) and node is not parent.test:
        node, parent = parent, scopes.parent(parent)
    if not (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        return None
    local = parent.targets[0].id
    if len(where.bindings.get(local, ())) != 1:
        return None
    uses = [n for n in where.body_nodes() if isinstance(n, ast.Name) and n.id == local and isinstance(n.ctx, ast.Load)]
    calls = [u for u in (scopes.parent(n) for n in uses) if isinstance(u, ast.Call) and any(u.func is n for n in uses)]
    return calls if calls and len(calls) == len(uses) else None


def _twin_facts(scopes: "Scopes", fn: "FunctionInfo", twin: str) -> dict[str, Fact]:
    """The facts on ``fn``'s parameters whenever its jitted twin runs: ``twin = jax.jit(fn)``
    bound once at module level, every use of ``twin`` a call (or a local that holds it,
    ``kernel = fn if state is None else twin``) under arms that say something of a name
    the call passes on as a parameter of ``fn`` (``kernel(x, state=state)``): traced,
    ``fn`` sees ``state`` not None; the dispatcher runs ``fn`` eagerly otherwise."""
    out: dict[str, Fact] | None = None
    for ref in scopes.nodes(ast.Name):
        if ref.id != twin or not isinstance(ref.ctx, ast.Load):
            continue
        where = scopes.function_of(ref)
        if where is None or where is fn or scopes.lookup(twin, where)[0] is not None:
            return {}  # used at module level, or in fn itself; a local of that name is another value
        calls = _twin_calls(scopes, ref, where)
        if calls is None:
            return {}
        for call in calls:
            gates = {**_arm_facts(scopes, ref, where.node), **_arm_facts(scopes, call, where.node)}
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return {}
            passed = {p.name: a for p, a in zip(fn.positional(), call.args)}
            passed.update({k.arg: k.value for k in call.keywords if k.arg})
            facts = {p: gates[a.id] for p, a in passed.items() if isinstance(a, ast.Name) and a.id in gates
                     and len(where.bindings.get(a.id, ())) == 1}
            out = facts if out is None else {p: f for p, f in out.items() if facts.get(p) == f}
            if not out:
                return {}
    return out or {}


def known_when_traced(scopes: "Scopes", fn: "FunctionInfo") -> dict[str, Fact]:
    """Facts on names that hold whenever ``fn`` runs under a trace (``Fact``):

    * a name of an enclosing function (``fn`` does not bind it) that gates every jit of
      ``fn`` (``jax.jit(g)(x) if use_jit else g(x)``, ``f = jax.jit(g) if use_jit else
      g``, a jit in ``if use_jit:``): traced, ``fn`` sees it true;
    * a parameter of ``fn`` that a dispatcher passes to ``fn``'s jitted twin only under
      a test of it (``_twin_facts``: ``f_jit = jax.jit(f)`` at module level, ``f if
      state is None else f_jit``): traced, ``fn`` sees ``state`` not None.

    Run as plain Python otherwise. Empty when ``fn`` is traced any other way too (a call
    from traced code, a transform, a decorator)."""
    memo: dict[int, dict[str, Fact]] = scopes.__dict__.setdefault("_known_when_traced", {})
    known = memo.get(id(fn))
    if known is not None:
        return known
    facts: dict[str, Fact] | None = None
    for r in fn.traced_by:
        found: dict[str, Fact] = {}
        if r.is_entry and r.line is not None:
            for call in scopes.nodes(ast.Call):
                if call.lineno == r.line and call.args and scopes.resolve_call(call) in JIT_LIKE \
                        and scopes.unwrap_target(call.args[0], call)[0] is fn:
                    found = _entry_facts(scopes, fn, call)
                    break
        elif r.line is not None and not r.by_call:
            for call in scopes.nodes(ast.Call):
                q = (scopes.resolve_call(call) or "") if call.lineno == r.line else ""
                if q.rsplit(".", 1)[-1] == r.kind and any(
                        scopes.unwrap_target(call.args[i], call)[0] is fn
                        for i in TRACING_HOFS.get(q, ()) if i < len(call.args)):
                    found = _loop_facts(scopes, fn, call, q)
                    break
        facts = found if facts is None else {n: f for n, f in facts.items() if found.get(n) == f}
        if not facts:
            break
    memo[id(fn)] = known = facts or {}
    return known


def _entry_facts(scopes: "Scopes", fn: "FunctionInfo", call: ast.Call) -> dict[str, Fact]:
    """What holds of names whenever the jit ``call`` of ``fn`` runs it (``known_when_traced``)."""
    where, outer = scopes.function_of(call), fn.parent
    if where is not None and where is outer:
        return {n: f for n, f in _arm_facts(scopes, call, outer.node).items()
                if n not in fn.bindings and len(outer.bindings.get(n, ())) == 1}  # bound once
    parent = scopes.parent(call)
    if where is None and isinstance(parent, ast.Assign) and parent.value is call and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name) and len(scopes.lookup(parent.targets[0].id, None)[1]) == 1:
        return _twin_facts(scopes, fn, parent.targets[0].id)
    return {}


#: lax loops, with how many positional arguments they pass their functions
_LOOP_ARITY = {"jax.lax.while_loop": 1, "jax.lax.fori_loop": 2, "jax.lax.scan": 2, "jax.lax.map": 1}


def _loop_facts(scopes: "Scopes", fn: "FunctionInfo", call: ast.Call, q: str) -> dict[str, Fact]:
    """What holds of names whenever the lax loop ``call`` traces ``fn``: a name of the
    enclosing function that the arms around the call decide (``else: while_loop(cond,
    step, init)`` under ``if verbose:``), and a parameter the loop does not pass, which
    keeps its constant default (``def step(carry, verbose=False)``)."""
    found: dict[str, Fact] = {}
    outer = fn.parent
    if outer is not None and scopes.function_of(call) is outer:
        found = {n: f for n, f in _arm_facts(scopes, call, outer.node).items()
                 if n not in fn.bindings and len(outer.bindings.get(n, ())) == 1}
    arity = _LOOP_ARITY.get(q)
    if arity is not None:
        for p in fn.params:
            if (p.index is None or p.index >= arity) and isinstance(p.default, ast.Constant) \
                    and (p.default.value is None or isinstance(p.default.value, bool)):
                found[p.name] = ("none", True) if p.default.value is None else ("truth", p.default.value)
    return found


def dead_when_traced(scopes: "Scopes", fn: "FunctionInfo") -> frozenset[int]:
    """The nodes of ``fn``'s body (by id) that never run under a trace: the arm of an
    ``if``/conditional expression whose test ``known_when_traced`` decides that the
    trace does not take (``if not use_jit: print(float(y))`` in a function jitted only
    when ``use_jit``; ``if state is None: np.asarray(x)`` in a function whose jitted twin
    runs only with a state): the eager-only branch. A name counts where it still holds
    what the trace knows of it: a name ``fn`` does not bind, or a parameter not yet
    bound again. A test of jax's disable-jit flag (``if jax.config.jax_disable_jit:``, a
    debug mode) is false under the trace when only jits and lax loops trace ``fn``
    (``runs.flag_off_when_traced``), except in a ``with jax.disable_jit():`` block of
    ``fn``, where a trace already running reads the flag on. And what runs only after a
    ``try:`` converted a tracer to a Python value (``Tracing.eager_after_conversion``:
    ``try: r = float(residual) except TypeError: ... else: report(r)``). A call there
    spreads no tracing to its callee (``Tracing._spread_from``)."""
    memo: dict[int, frozenset[int]] = scopes.__dict__.setdefault("_dead_when_traced", {})
    dead = memo.get(id(fn))
    if dead is not None:
        return dead
    known = known_when_traced(scopes, fn)
    tracing: Tracing | None = getattr(scopes, "tracing", None)
    out: set[int] = set(tracing.eager_after_conversion(fn)) if tracing is not None and fn.traced else set()

    def readable(name: ast.Name) -> bool:
        if name.id not in fn.bindings:
            return True
        bindings = scopes.reaching_bindings(name, fn)
        return bool(bindings) and all(b.kind == "param" for b in bindings)

    flag_off = reads_disable_jit(scopes) and flag_off_when_traced(scopes, fn)

    def flag(test: ast.AST) -> bool:
        return flag_off and disable_jit_test(scopes, test) and eager_block(scopes, test) != "jax.disable_jit"

    if known or flag_off:
        for node in fn.body_nodes():
            if not isinstance(node, (ast.If, ast.IfExp)):
                continue
            taken = _decide(node.test, known, readable, flag)
            if taken is None:
                continue
            arm = (node.orelse if taken else node.body)
            dead_parts = list(arm) if isinstance(arm, list) else [arm]
            went = (node.body if taken else node.orelse) if isinstance(node, ast.If) else []
            if went and isinstance(went[-1], (ast.Return, ast.Raise)):
                # `if use_jit: return ...`: under the trace, nothing after the `if` runs either
                parent = scopes.parent(node)
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(parent, field, None)
                    if isinstance(block, list) and node in block:
                        dead_parts += block[block.index(node) + 1:]
                        break
            for part in dead_parts:
                out.update(id(n) for n in ast.walk(part))
    memo[id(fn)] = dead = frozenset(out)
    return dead


def runs_traced(scopes: "Scopes", node: ast.AST) -> bool:
    """``node`` may run under a trace: its function (or one around it) is traced, and it
    is not in an arm of a branch that the trace never takes (``dead_when_traced``)."""
    fn = scopes.function_of(node)
    inner = fn
    while inner is not None:
        if inner.traced and id(node) in dead_when_traced(scopes, inner):
            return False
        inner = inner.parent
    return fn is not None and fn.traced


#: The reason kinds of abstract evaluation (``jax.eval_shape``, ``jax.make_jaxpr``).
ABSTRACT_KINDS = frozenset(ABSTRACT_EVAL.values())


class Tracing:
    """Which functions of a module's ``Scopes`` are traced, why, and which of their
    names hold traced values. The jit map's entries are the seeds (``EntryFinder`` has
    marked them); ``propagate`` does the rest."""

    def __init__(self, scopes: "Scopes") -> None:
        self.scopes = scopes
        self._flows: dict[int, Flow] = {}
        self._not_abstract: set[int] = set()  # functions found traced not only abstractly

    def propagate(self) -> None:
        """Mark functions traced through entry points and compute tainted names."""
        changed = True
        rounds = 0
        while changed and rounds < 20:
            changed = False
            rounds += 1
            self._not_abstract.clear()  # settled anew each round (`_only_by`)
            self._forget_arms()
            for fn in list(self.scopes.functions):
                self._compute_taint(fn)
            for fn in list(self.scopes.functions):
                if fn.traced:
                    changed |= self._spread_from(fn)
            # traced-through lax bodies etc. anywhere (they are always traced)
            if rounds == 1:
                changed |= self._mark_hof_bodies_everywhere()
                changed |= self._mark_keras_calls()
            changed |= self._mark_custom_rules()
        self._forget_arms()

    def _forget_arms(self) -> None:
        """Which arms never run under a trace (``dead_when_traced``) follows the reasons a
        function is traced for and its traced names, which grow round by round: asked anew
        each round (a call there spreads no tracing), and once more by the rules after."""
        for memo in ("_known_when_traced", "_dead_when_traced", "_flag_off_when_traced"):
            self.scopes.__dict__.pop(memo, None)

    def _mark(self, fn: FunctionInfo, reason: Reason, params: set[str] | None) -> bool:
        changed = False
        if not fn.traced_by:
            changed = True
        if reason not in fn.traced_by:
            fn.traced_by.append(reason)
        new = (params if params is not None else {p.name for p in fn.params}) - fn.static_params - fn.partial_bound
        if not new <= fn.traced_params:
            fn.traced_params |= new
            changed = True
        return changed

    @staticmethod
    def callable_params(target: FunctionInfo, bound: int) -> set[str]:
        """Parameters a caller supplies: not partial-bound, not the ``self`` of a method."""
        params = {p.name for p in target.positional()[bound:]} | {p.name for p in target.params if p.index is None}
        if target.class_name and target.params and target.params[0].name in ("self", "cls"):
            params.discard(target.params[0].name)
        return params

    def _kept_none(self, call: ast.Call, target: FunctionInfo, bound: int) -> set[str]:
        """The ``None``-default parameters of ``target`` that no call of the callable ``call``
        makes passes (``runs.never_given``): they hold None under this trace."""
        never = never_given(self.scopes, target, wrapper_name(self.scopes, call), bound)
        return {p.name for p in target.params if p.name in never
                and isinstance(p.default, ast.Constant) and p.default.value is None}

    def _passthrough_params(self, call: ast.Call, q: str, target: FunctionInfo, bound: int) -> set[str]:
        """Parameters a transform passes through as given (vmap ``in_axes`` None,
        checkpoint ``static_argnums``, or a spec that is not a literal): they often hold
        Python constants, so they are not marked traced."""
        params = _supplied(target, bound)
        # as for jit: a parameter with a Python default (``first=False``) that the
        # transform does not pass (scan passes exactly carry and x) keeps its default
        defaulted = {p.name for p in target.params if p.default is not None
                     and not (isinstance(p.default, ast.Constant) and p.default.value is None)
                     and (isinstance(p.default, ast.Constant) or not self.scopes.is_array_annotation(p.annotation))}
        if q in PASS_ARGUMENTS:
            return {p.name for p in params}
        library = LIBRARY_TRACERS.get(q)
        if library is not None and library[2] is not None:
            return defaulted | {p.name for p in params[library[2]:]}  # `fun(x, *args)`: `args` as given
        if library is not None or q == INJECTED_HYPERPARAMS:
            return defaulted
        if q in _CHECKPOINTS:
            spec = next((k.value for k in call.keywords if k.arg == "static_argnums"), None)
            nums = () if spec is None else literal_ints(spec)
            if nums is None:
                return {p.name for p in params}
            # a checkpoint traces every argument it is given: a parameter with a Python
            # default keeps it only where no call of the wrapper passes it
            return (defaulted - self._wrapper_given(call, target, params, bound)) \
                | {params[n].name for n in nums if -len(params) <= n < len(params)}
        if q in ARRAY_LEAVES_ONLY_HOFS and q != "equinox.filter_vmap":
            return {p.name for p in params if not self.scopes.is_array_annotation(p.annotation)}
        if q not in ("jax.vmap", "flax.nnx.vmap", "equinox.filter_vmap"):
            return defaulted
        spec = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "in_axes"), None)
        if spec is None:
            # filter_vmap batches array leaves only; jax.vmap batches everything
            if q == "equinox.filter_vmap":
                return {p.name for p in params if not self.scopes.is_array_annotation(p.annotation)}
            return defaulted
        if literal_int(spec) is not None:
            return defaulted
        if isinstance(spec, (ast.Tuple, ast.List)):
            return defaulted | {p.name for p, e in zip(params, spec.elts)
                                if isinstance(e, ast.Constant) and e.value is None}
        return {p.name for p in params}

    def _wrapper_given(self, call: ast.Call, target: FunctionInfo, params: list, bound: int) -> set[str]:
        """The parameters of ``target`` that the calls of the callable the transform
        ``call`` makes fill: of the call made at once (``jax.checkpoint(f)(x, m, False)``),
        or of every call of the one name it is bound to (``runs.given_by_calls``); none
        when they are not known."""
        parent = self.scopes.parent(call)
        if isinstance(parent, ast.Call) and parent.func is call:
            return self._given(target, params, parent.args, parent.keywords)
        return given_by_calls(self.scopes, target, wrapper_name(self.scopes, call), bound) or set()

    def _differentiated_params(self, call: ast.Call, q: str, target: FunctionInfo, bound: int) -> set[str]:
        """Parameters a differentiation transform traces: those at ``argnums`` (default
        0). The other arguments pass through as given (see ``callee`` for calls made
        where the transform is applied)."""
        if q in PRIMAL_TRANSFORMS:  # run at once on every primal (equinox's: on the array leaves)
            given = self.callable_params(target, bound)
            count = _primal_count(call, q)
            if count is not None:  # `jax.vjp(f, params)`: the parameters after the primals keep their defaults
                given &= {p.name for p in _supplied(target, bound)[:count]}
            if q in ARRAY_LEAVES_ONLY_DIFF:
                return {p.name for p in target.params if p.name in given and self.scopes.is_array_annotation(p.annotation)}
            return given
        spec = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "argnums"), None)
        nums = (0,) if spec is None or q.startswith("equinox.") else literal_ints(spec)
        params = _supplied(target, bound)
        return {params[n].name for n in nums or () if -len(params) <= n < len(params)}

    def _hof_callables(self, call: ast.Call, q: str) -> list[ast.expr]:
        if q == INJECTED_HYPERPARAMS:  # `inject_hyperparams(optax.adam)(learning_rate=sched)`
            return [*call.args, *(k.value for k in call.keywords if k.arg)]
        library = LIBRARY_TRACERS.get(q)
        if library is not None:
            positions, keywords, _, eager_flag = library
            if any(k.arg == eager_flag and isinstance(k.value, ast.Constant) and k.value.value is False
                   for k in call.keywords):
                return []  # `jaxopt.LBFGS(fun=f, jit=False)`: run eagerly
            return [*(call.args[i] for i in positions if i < len(call.args)),
                    *(k.value for k in call.keywords if k.arg in keywords)]
        idxs = TRACING_HOFS.get(q)
        if idxs is None:
            return []
        out: list[ast.expr] = []
        for i in idxs:
            if i < len(call.args):
                a = call.args[i]
                if q == "jax.lax.switch" and isinstance(a, (ast.List, ast.Tuple)):
                    out.extend(a.elts)
                else:
                    out.append(a)
        for k in call.keywords:
            if k.arg in ("f", "body_fun", "cond_fun", "true_fun", "false_fun", "fun", "branches"):
                out.append(k.value)
        return out

    def _mark_hof_bodies_everywhere(self) -> bool:
        changed = self._mark_checkpoint_decorated()
        lifts: list[ast.Call] = []
        for node in self.scopes.nodes(ast.Call):
            q = self.scopes.resolve_call(node)
            if q in LINEN_LIFTED and q != "flax.linen.remat_scan" and node.args:
                lifts.append(node)
            if q in JIT_LIKE and node.args:
                changed |= self._mark_jitted_runner(node, JIT_LIKE[q])
                continue
            if q in ABSTRACT_EVAL and node.args:
                changed |= self._mark_abstract(node, q)
                continue
            if q in DIFF_TRANSFORMS and node.args:
                # `jax.grad(loss)` outside traced code: `loss` runs on JVP tracers (see
                # `only_differentiated`); applied in traced code, `_spread_from` marks it
                where = self.scopes.function_of(node)
                if where is not None and where.traced:
                    continue
                target, bound = self.scopes.unwrap_target(node.args[0], node)
                if target is not None and not unused_wrapper(self.scopes, node, target):
                    changed |= self._mark(target, Reason(q.rsplit('.', 1)[-1], node.lineno),
                                          self._differentiated_params(node, q, target, bound))
                continue
            if q not in TRACING_HOFS and q not in LIBRARY_TRACERS and isinstance(node.func, ast.Call) \
                    and self.scopes.resolve_call(node.func) == INJECTED_HYPERPARAMS:
                q = INJECTED_HYPERPARAMS
            if q in TRACING_HOFS or q in LIBRARY_TRACERS or q == INJECTED_HYPERPARAMS:
                if q in EAGER_UNDER_DISABLE_JIT and eager_block(self.scopes, node) == "jax.disable_jit":
                    continue  # `with jax.disable_jit():` runs the body as Python, with values
                for arg in self._hof_callables(node, q):
                    target, bound = self.scopes.unwrap_target(arg, node)
                    if target is not None and not unused_wrapper(self.scopes, node, target):
                        changed |= self._mark(target, Reason(q.rsplit('.', 1)[-1], node.lineno),
                                              self.callable_params(target, bound)
                                              - self._passthrough_params(node, q, target, bound)
                                              - self.scopes.partial_keywords(arg, node, target)
                                              - self._kept_none(node, target, bound))
        return changed | (self._mark_rematted(lifts) if lifts else False)

    def _mark_keras_calls(self) -> bool:
        """``call`` of a keras model or layer class in a module that runs keras on jax: the
        compiled steps of ``fit`` / ``predict`` trace its inputs (``protocols.keras_traced_calls``);
        its other parameters (``training``, ``mask``) keras passes as Python values."""
        changed = False
        for fn, line in keras_traced_calls(self.scopes):
            inputs = [p for p in fn.positional() if not (p.index == 0 and p.name in ("self", "cls"))][:1]
            changed |= self._mark(fn, Reason("keras", line), {p.name for p in inputs})
        return changed

    def _custom_rules(self) -> list[tuple[FunctionInfo, FunctionInfo, Reason, int]]:
        """(primal function, rule, why it is traced (``defvjp@12``), leading parameters of the rule that are not
        traced) for each ``f.defvjp(fwd, bwd)`` / ``f.defjvp(rule)`` / ``@f.defjvp`` with ``f``
        a ``@jax.custom_vjp`` / ``@jax.custom_jvp`` function of the module (bare, or through
        ``functools.partial`` with ``nondiff_argnums``). ``fwd`` takes ``f``'s parameters
        (those at ``nondiff_argnums`` are Python values); ``bwd`` and a jvp rule take the
        ``nondiff_argnums`` values first."""
        cached = self.__dict__.get("_rules")
        if cached is not None:
            return cached
        out: list[tuple[FunctionInfo, FunctionInfo, Reason, int]] = []
        primal: dict[str, tuple[FunctionInfo, tuple[str, ...], tuple[int, ...]]] = {}
        for fn in self.scopes.functions:
            if isinstance(fn.node, ast.Lambda) or fn.parent is not None or fn.class_name:
                continue
            for dec in fn.node.decorator_list:
                q, nondiff, names = self.scopes.resolve(dec), None, None
                if isinstance(dec, ast.Call):
                    q = self.scopes.resolve_call(dec)
                    if q == "functools.partial" and dec.args:
                        q = self.scopes.resolve(dec.args[0])
                    nondiff = next((k.value for k in dec.keywords if k.arg == "nondiff_argnums"), None)
                    names = next((k.value for k in dec.keywords if k.arg == "nondiff_argnames"), None)
                if q in CUSTOM_RULES:
                    nums = literal_ints(nondiff) if nondiff is not None else ()
                    by_name = literal_strs(names) if names is not None else ()
                    params = fn.positional()
                    named = {i for i, p in enumerate(params) if by_name and p.name in by_name}
                    if nums is not None and by_name is not None and len(named) == len(set(by_name)):
                        # nondiff_argnames as positions of f (the rules take them first, in order);
                        # a spec that is not a literal, or names no positional parameter: not read
                        primal[fn.name] = (fn, CUSTOM_RULES[q], tuple(sorted(set(nums) | named)))
        if primal:
            for fn in self.scopes.functions:  # `@f.defjvp` on the rule
                for dec in getattr(fn.node, "decorator_list", ()):
                    if isinstance(dec, ast.Attribute) and isinstance(dec.value, ast.Name) and dec.value.id in primal \
                            and dec.attr in primal[dec.value.id][1]:
                        out.append((primal[dec.value.id][0], fn, Reason(dec.attr, dec.lineno),
                                    len(primal[dec.value.id][2])))
            for call in self.scopes.nodes(ast.Call):
                func = call.func
                if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                        and func.value.id in primal and func.attr in primal[func.value.id][1]):
                    continue
                f, _, nums = primal[func.value.id]
                for i, arg in enumerate(call.args):
                    rule, bound = self.scopes.unwrap_target(arg, call)
                    if rule is not None and not bound:
                        # fwd (first of defvjp) gets f's arguments; bwd and jvp rules the
                        # nondiff values first
                        lead = 0 if func.attr == "defvjp" and i == 0 else len(nums)
                        out.append((f, rule, Reason(func.attr, call.lineno), lead))
        self.__dict__["_rules"] = out
        self.__dict__["_nondiff"] = {f.name: nums for f, _, nums in primal.values()}
        return out

    def _mark_custom_rules(self) -> bool:
        """The rules of a custom-derivative function run where it is differentiated: traced
        when the function is traced (not only by an eager ``jax.grad``, whose primal
        values are concrete there too)."""
        changed = False
        for f, rule, reason, lead in self._custom_rules():
            if not f.traced or only_differentiated(f) or reason in rule.traced_by:
                continue
            params = [p for p in rule.positional()]
            if reason.kind in EQX_RULE_TRACED:  # equinox's: array leaves, and the cotangent-side arguments
                traced = {params[i].name for i in EQX_RULE_TRACED[reason.kind] if i < len(params)}
                traced |= {p.name for p in rule.params if self.scopes.is_array_annotation(p.annotation)}
                changed |= self._mark(rule, reason, traced)
                continue
            nondiff = self.__dict__["_nondiff"].get(f.name, ())
            if lead:
                skip = {p.name for p in params[:lead]}
            else:  # fwd: f's own nondiff_argnums
                skip = {params[n].name for n in nondiff if -len(params) <= n < len(params)}
            changed |= self._mark(rule, reason, self.callable_params(rule, 0) - skip)
        return changed

    def _mark_jitted_runner(self, call: ast.Call, kind: str) -> bool:
        """``jax.jit(model.apply)`` (a linen module's, a haiku transform's ``init`` or
        ``apply``): the function it runs is traced, with every parameter the runner passes
        on, except those with a Python default (see ``jitmap``) and any a static spec may
        name (it counts the runner's own arguments: left alone, none is marked)."""
        found = runner_target(self.scopes, call.args[0], self.scopes.function_of(call))
        if found is None:
            return False
        target = found[0]
        specs = {"static_argnums", "static_argnames", "static_broadcasted_argnums"}
        if any(k.arg is None or k.arg in specs for k in call.keywords):
            params: set[str] = set()
        else:
            params = {p.name for p in target.params
                      if p.default is None or (isinstance(p.default, ast.Constant) and p.default.value is None)
                      or self.scopes.is_array_annotation(p.annotation)}
            params &= self.callable_params(target, 0)
        return self._mark(target, Reason(kind, call.lineno), params)

    def _mark_abstract(self, call: ast.Call, q: str) -> bool:
        """``jax.eval_shape(f, *args)`` / ``jax.make_jaxpr(f, static_argnums=...)(*args)``
        (or a linen / haiku runner, ``jax.eval_shape(model.init, key, x)``): ``f`` is traced
        abstractly with the parameters given (all but the static ones and those with a
        Python default when ``make_jaxpr``'s result is not called at once; equinox's: the
        array-annotated ones)."""
        scope = self.scopes.function_of(call)
        target, bound = self.scopes.unwrap_target(call.args[0], call)
        own: frozenset[str] = frozenset()
        if target is None:
            found = runner_target(self.scopes, call.args[0], scope)
            if found is None:
                return False
            target, bound, own = found[0], found[1], found[2]
            lead = bound
            bound = 0
        else:
            lead = 0
        params = _supplied(target, bound)
        if q.endswith("eval_shape"):
            given = self._given(target, params, call.args[1 + lead:], [k for k in call.keywords if k.arg not in own])
        else:
            parent = self.scopes.parent(call)
            if isinstance(parent, ast.Call) and parent.func is call:
                given = self._given(target, params, parent.args[lead:], parent.keywords)
            else:  # called later, with what is not known: like jit, the parameters without a Python default
                given = {p.name for p in params if p.default is None}
        spec = next((k.value for k in call.keywords if k.arg == "static_argnums"), None)
        if spec is not None:
            nums = literal_ints(spec)
            if nums is None:
                return False  # which are static is not known
            given -= {params[n].name for n in nums if -len(params) <= n < len(params)}
        if q in ARRAY_LEAVES_ONLY_ABSTRACT:
            given = {p.name for p in target.params if p.name in given and self.scopes.is_array_annotation(p.annotation)}
        given -= self.scopes.partial_keywords(call.args[0], call, target)
        return self._mark(target, Reason(ABSTRACT_EVAL[q], call.lineno), given & {p.name for p in target.params})

    @staticmethod
    def _given(target: FunctionInfo, params: list, args: list[ast.expr], keywords: list[ast.keyword]) -> set[str]:
        """The parameters of ``target`` (``params``: its positional ones a caller fills) that
        ``args`` and ``keywords`` fill; every one on a splat."""
        varargs = {p.name for p in target.params if p.kind == "vararg"}
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
            return {p.name for p in params} | varargs
        given = {p.name for p in params[:len(args)]} | {k.arg for k in keywords if k.arg}
        return given | varargs if len(args) > len(params) else given

    def _mark_checkpoint_decorated(self) -> bool:
        """``@jax.checkpoint`` / ``@jax.remat`` (bare, or through ``functools.partial``
        with its keywords) as a decorator: every call of the function traces it, like
        ``jax.checkpoint(f)`` does, passing ``static_argnums`` through as given."""
        changed = False
        for fn in self.scopes.functions:
            if isinstance(fn.node, ast.Lambda):
                continue
            for dec in fn.node.decorator_list:
                q = self.scopes.resolve(dec)
                call = ast.Call(func=dec, args=[], keywords=[])
                if isinstance(dec, ast.Call) and self.scopes.resolve_call(dec) == "functools.partial" and dec.args:
                    q, call = self.scopes.resolve(dec.args[0]), dec
                if q in _CHECKPOINTS:
                    changed |= self._mark(fn, Reason(q.rsplit('.', 1)[-1], dec.lineno),
                                          self.callable_params(fn, 0) - self._passthrough_params(call, q, fn, 0))
        return changed

    def _spread_from(self, fn: FunctionInfo) -> bool:
        changed = False
        if only_abstract(fn, self._not_abstract):
            # traced only abstractly (`jax.eval_shape`, `make_jaxpr`): such bodies often
            # extract structure through helpers that take Python objects (haiku's dot graph,
            # quax's branches); what they call is not assumed traced (another reason spreads it)
            return False
        dead = dead_when_traced(self.scopes, fn)
        for node in fn.body_nodes():
            if isinstance(node, ast.Call) and id(node) not in dead:
                q = self.scopes.resolve_call(node)
                if q in DIFF_TRANSFORMS and node.args:
                    target, bound = self.scopes.unwrap_target(node.args[0], node)
                    if target is not None:
                        changed |= self._mark(target, Reason(q.rsplit('.', 1)[-1], caller=fn.qualname),
                                              self._differentiated_params(node, q, target, bound))
                    continue
                if q in TRACING_HOFS:
                    changed |= self._mark_partial_keywords(node, q, fn)
                    continue
                if q in JIT_LIKE:
                    continue
                ran = runner_call(self.scopes, node, fn)
                if ran is not None:
                    # `model.apply(variables, x)` in traced code: linen's / haiku's protocol
                    # runs a function of the module with some of the arguments
                    target, passed = ran
                    changed |= self._mark(target, Reason(CALL, caller=fn.qualname),
                                          {name for name, a in passed.items() if self.is_traced_expr(a, fn)})
                    continue
                target, implicit = self.scopes.callee(node.func, fn)
                if target is None:
                    # `Spec(n)` of a class of the module runs its `__init__` here, with the
                    # call's arguments after `self`, and a dataclass's `__post_init__` after
                    # it: a check there on what jax.numpy makes of them runs on tracers
                    # (recall round 12: jit_env's `DiscreteSpec`)
                    cls = self._class_called(node, fn)
                    post = self.scopes.method_named(cls, "__post_init__")
                    if post is not None and post is not fn:
                        changed |= self._mark(post, Reason(CALL, caller=fn.qualname), set())
                    target, implicit = self.scopes.method_named(cls, "__init__"), 1
                if target is None or target is fn or opaque_decorator(self.scopes, target) is not None:
                    continue  # (a decorator the model does not know: how its object runs the body is unknown)
                if any(rule is fn and f is target for f, rule, _, _ in self._custom_rules()):
                    continue  # a jvp rule's `f(*primals)`: f gets what its own callers pass it
                tainted_params: set[str] = set()
                positional = target.positional()
                # a wrapper's own leading arguments (`Predictive(model)(key, *args)`) are not the target's
                args = node.args[self.scopes.leading_arguments(node):]
                tail = _after_splat(args, node, target, implicit)
                splat_at = next((i for i, a in enumerate(args) if isinstance(a, ast.Starred)), len(args))
                for i, a in enumerate(args):
                    if isinstance(a, ast.Starred):
                        if self.is_traced_expr(a.value, fn):
                            tainted_params |= {p.name for p in target.params if p.kind in ("positional", "vararg")} \
                                if tail is None else {p.name for p in positional[implicit + i:tail]}
                        continue
                    # after the one splat, the arguments fill the last parameters
                    j = i + implicit if tail is None or i < splat_at else len(positional) - (len(args) - i)
                    if j < len(positional):
                        if self.is_traced_expr(a, fn):
                            tainted_params.add(positional[j].name)
                    else:
                        va = [p for p in target.params if p.kind == "vararg"]
                        if va and self.is_traced_expr(a, fn):
                            tainted_params.add(va[0].name)
                rest = next((p for p in target.params if p.kind == "kwarg"), None)
                for k in node.keywords:
                    if k.arg and target.param(k.arg) and self.is_traced_expr(k.value, fn):
                        tainted_params.add(k.arg)
                    elif k.arg and rest is not None and target.param(k.arg) is None \
                            and k.arg not in target.traced_keywords and self.is_traced_expr(k.value, fn):
                        target.traced_keywords.add(k.arg)  # into `**kwargs`, under its key
                        changed = True
                    elif k.arg is None and self.is_traced_expr(k.value, fn):
                        tainted_params |= self._splat_params(k.value, fn, target)
                    elif k.arg is None:
                        # `f(**kwargs)` of this function's own `**kwargs`: the keys its traced
                        # callers filled with traced values
                        tainted_params |= self._forwarded_keywords(k.value, fn, target)
                # `self` and partial-bound leading parameters are never filled by a splat
                tainted_params -= {p.name for p in positional[:implicit]}
                target.call_sites[id(node)] = (node, fn, implicit)
                changed |= self._mark(target, Reason(CALL, caller=fn.qualname), tainted_params)
        # nested defs that close over traced names are traced when called; their
        # free names referring to tainted outer names are tainted (handled in taint)
        return changed

    def _mark_rematted(self, lifts: list[ast.Call]) -> bool:
        """A call of an instance of a linen module class lifted by a transform
        (``nn.remat(Block, static_argnums=(4,))()(x, m, None, mask, False)``, also through
        names bound once, at module level too), or its ``init`` / ``apply`` /
        ``init_with_output`` (``Remat().init(key, x, True)``): the lift traces the class's
        ``__call__`` wherever it runs, with the arguments ``_lift_traces`` names; nothing
        for ``apply(..., method=...)`` (the lift wraps ``__call__`` only)."""
        changed = False
        made = {id(lift) for lift in lifts}
        for call in self.scopes.nodes(ast.Call):
            found = self._lifted_run(call)
            if found is None or id(found[0]) not in made:
                continue
            lift, target, args, keywords = found
            given = self._lift_traces(lift, target, args, keywords)
            if given:
                kind = (self.scopes.resolve_call(lift) or "remat").rsplit(".", 1)[-1]
                changed |= self._mark(target, Reason(kind, lift.lineno), given)
        return changed

    def _lift_traces(self, lift: ast.Call, target: FunctionInfo, args: list[ast.expr],
                     keywords: list[ast.keyword]) -> set[str]:
        """The parameters of the lifted ``__call__`` ``target`` that ``lift`` traces when
        its instance is run with ``args`` and ``keywords`` (flax 0.12.8, checked in
        ``test_jax105``): ``nn.remat`` / ``nn.checkpoint`` / ``nn.jit`` every argument but
        ``None`` and those ``static_argnums`` (``static_argnames``) names, counted with
        ``self`` as 0 (flax passes the method's arguments after it); ``nn.vmap`` the
        positional ones whose ``in_axes`` entry is not ``None`` (default 0: all), ``nn.scan``
        the carry and the positional ones whose entry is not ``nn.broadcast`` (both drop
        keyword arguments: the parameter keeps its default). None of them when a spec is
        not a literal."""
        q = self.scopes.resolve_call(lift)
        positional = target.positional()
        filled = dict(zip((p.name for p in positional[1:]), args)) | {k.arg: k.value for k in keywords if k.arg}
        skip = {name for name, a in filled.items() if isinstance(a, ast.Constant) and a.value is None}
        spec = {k.arg: k.value for k in lift.keywords if k.arg}
        if q in _LINEN_TRACING_LIFTS:
            nums = literal_ints(spec.get("static_argnums", ast.Tuple([])))
            names = literal_strs(spec.get("static_argnames", ast.Tuple([])))
            if nums is None or names is None:
                return set()
            skip |= {positional[n].name for n in nums if 0 < n < len(positional)} | set(names)
            return self._given(target, positional[1:], args, keywords) - skip
        if any(isinstance(a, ast.Starred) for a in args):
            return set()
        lead = 1 if q == "flax.linen.scan" else 0  # the carry, always traced
        axes: ast.expr = spec.get("in_axes", ast.Constant(0))
        rest = args[lead:]
        kept: list[bool | None]
        if literal_int(axes) is not None:
            kept = [False] * len(rest)
        elif isinstance(axes, (ast.Tuple, ast.List)) and len(axes.elts) == len(rest):
            kept = [self._kept_axis(e, q) for e in axes.elts]
        else:
            return set()
        if any(k is None for k in kept):
            return set()
        traced = [True] * lead + [not k for k in kept]
        return {p.name for p, t in zip(positional[1:], traced) if t} - skip

    def _kept_axis(self, entry: ast.expr, q: str | None) -> bool | None:
        """Whether an ``in_axes`` entry of ``nn.vmap`` / ``nn.scan`` hands the argument over
        as it is (``None`` / ``nn.broadcast``); None when the entry is not known."""
        if literal_int(entry) is not None:
            return False
        if q == "flax.linen.vmap":
            return True if isinstance(entry, ast.Constant) and entry.value is None else None
        return True if self.scopes.resolve(entry) == "flax.linen.broadcast" else None

    def _lifted_run(self, call: ast.Call) -> tuple[ast.Call, FunctionInfo, list[ast.expr], list[ast.keyword]] | None:
        """For ``call`` running a linen module class lifted by a transform: the lift, the
        ``__call__`` it runs, and the arguments that ``__call__`` receives after ``self``:
        those of a call of an instance (``block(x, flag)``), or of its ``init`` / ``apply``
        after the runner's own (``Remat().apply(variables, x, flag)``)."""
        fn = self.scopes.function_of(call)
        func = call.func
        if isinstance(func, (ast.Name, ast.Call)):
            lift = self.scopes.lift_of(func, fn)
            target, implicit = self.scopes.callee(func, fn) if lift is not None else (None, 0)
            if lift is None or target is None or implicit != 1 or target.name != "__call__":
                return None
            return lift, target, call.args, call.keywords
        if not isinstance(func, ast.Attribute) or func.attr not in LINEN_RUNNERS:
            return None
        lead, own = LINEN_RUNNERS[func.attr]
        lift = self.scopes.lift_of(func.value, fn)
        found = runner_target(self.scopes, func, fn) if lift is not None else None
        if lift is None or found is None or found[0].name != "__call__" or any(k.arg == "method" for k in call.keywords):
            return None
        return lift, found[0], call.args[lead:], [k for k in call.keywords if k.arg not in own]

    def _forwarded_keywords(self, splat: ast.expr, fn: FunctionInfo, target: FunctionInfo) -> set[str]:
        """The parameters of ``target`` that ``**splat`` fills with a traced value when
        ``splat`` is ``fn``'s own ``**kwargs`` parameter: the keys of it that ``fn``'s
        traced call sites fill with traced values (``FunctionInfo.traced_keywords``), and
        ``target``'s own ``**kwargs`` when some such key names no parameter of it."""
        if not isinstance(splat, ast.Name) or not fn.traced_keywords:
            return set()
        rest = next((p for p in fn.params if p.kind == "kwarg"), None)
        owner, bindings = self.scopes.lookup(splat.id, fn)
        if rest is None or rest.name != splat.id or owner is not fn or len(bindings) != 1 \
                or bindings[0].kind != "param":
            return set()  # rebound, or another function's: not followed
        out = {k for k in fn.traced_keywords if target.param(k) is not None}
        if fn.traced_keywords - out:
            target_rest = next((p for p in target.params if p.kind == "kwarg"), None)
            if target_rest is not None:
                target.traced_keywords |= fn.traced_keywords - out
        return out

    def _partial_keywords(self, expr: ast.expr, at: ast.AST) -> tuple[FunctionInfo | None, list[ast.keyword]]:
        """The function a ``functools.partial`` chain around a callable wraps (``partial(f,
        k=v)``, also through one name bound to such a call) and the keywords it binds,
        each read in the scope of ``at``; (None, []) when it is not one."""
        where = self.scopes.function_of(at)
        if isinstance(expr, ast.Name):
            owner, bindings = self.scopes.lookup(expr.id, where)
            if owner is not where or len(bindings) != 1 or bindings[0].kind != "assign" \
                    or not isinstance(bindings[0].value, ast.Call):
                return None, []
            expr = bindings[0].value
        keywords: list[ast.keyword] = []
        inner = expr
        for _ in range(8):
            if isinstance(inner, ast.Call) and inner.args and self.scopes.resolve_call(inner) == "functools.partial":
                keywords += inner.keywords
                inner = inner.args[0]
                continue
            break
        if not keywords:
            return None, []
        target, _ = self.scopes.unwrap_target(expr, at)
        return target, keywords

    def _mark_partial_keywords(self, call: ast.Call, q: str, fn: FunctionInfo) -> bool:
        """A lax function in traced ``fn`` given ``functools.partial(f, k=v)``
        (``lax.cond(pred, partial(update, sync=flag), ...)``): the partial hands ``v`` to
        ``f`` as it is, so ``k`` is traced in ``f`` when ``v`` is traced here, and so is
        each key of ``fn``'s own ``**kwargs`` splatted there that a traced caller filled
        with a traced value (``_forwarded_keywords``)."""
        changed = False
        for arg in self._hof_callables(call, q):
            target, keywords = self._partial_keywords(arg, call)
            if target is None:
                continue
            traced: set[str] = set()
            for k in keywords:
                if k.arg is not None:
                    if target.param(k.arg) is not None and self.is_traced_expr(k.value, fn):
                        traced.add(k.arg)
                else:
                    traced |= self._forwarded_keywords(k.value, fn, target)
            traced -= target.static_params
            if traced - target.traced_params:
                changed |= self._mark(target, Reason(q.rsplit('.', 1)[-1], call.lineno), traced)
        return changed

    def _class_called(self, call: ast.Call, fn: FunctionInfo) -> str | None:
        """The class of the module ``call`` constructs (``Spec(n)``), or None."""
        func = call.func
        if not isinstance(func, ast.Name) or func.id not in self.scopes.classes \
                or self.scopes.lookup(func.id, fn)[0] is not None:
            return None
        return func.id

    def _splat_params(self, splat: ast.expr, fn: FunctionInfo, target: FunctionInfo) -> set[str]:
        """The parameters of ``target`` that the traced keyword splat ``target(**splat)``
        in ``fn`` may fill with a traced value: where every dict it may hold is known
        (``containers.splat_entries``), those whose entry is traced where the dict is
        made (``dict(g=g, dpai=1.0)``: ``g`` only, when ``g`` is); every one otherwise."""
        every = {p.name for p in target.params}
        found = splat_entries(self.scopes, fn, splat)
        if found is None:
            return every
        rest = next((p.name for p in target.params if p.kind == "kwarg"), None)
        out: set[str] = set()
        for entries, scope in found:
            for key, value in entries.items():
                name = key if target.param(key) is not None else rest
                if name is None or name in out:
                    continue
                # a value made outside any trace is concrete where the trace reads it
                if scope is not None and scope.traced and self.is_traced_expr(value, scope):
                    out.add(name)
        return out

    def _compute_taint(self, fn: FunctionInfo) -> None:
        if not fn.traced:
            return
        tainted = set(fn.traced_params)
        # closed-over traced names from a traced enclosing function
        parent = fn.parent
        while parent is not None:
            if parent.traced:
                for name in parent.tainted:
                    if name not in fn.bindings:
                        tainted.add(name)
            parent = parent.parent
        fn.tainted = tainted
        stmts = [n for n in fn.body_nodes() if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.NamedExpr, ast.comprehension))]
        for _ in range(4):
            before = len(tainted)
            for s in stmts:
                if isinstance(s, ast.Assign):
                    for whole in s.targets:
                        for t, v in unpacked(whole, s.value):
                            if self.is_traced_expr(v, fn):
                                tainted.update(set(target_names(t)) - treedef_targets(self.scopes, t, v))
                elif isinstance(s, (ast.AnnAssign, ast.NamedExpr)):
                    if s.value is not None and self.is_traced_expr(s.value, fn) and isinstance(s.target, ast.Name):
                        tainted.add(s.target.id)
                elif isinstance(s, ast.AugAssign):
                    if self.is_traced_expr(s.value, fn) and isinstance(s.target, ast.Name):
                        tainted.add(s.target.id)
                elif isinstance(s, (ast.For, ast.AsyncFor, ast.comprehension)):
                    tainted.update(iteration_targets(s.target, s.iter, lambda e: self.is_traced_expr(e, fn)))
                elif isinstance(s, ast.With):
                    pass
            if len(tainted) == before:
                break

    def transform_of(self, func: ast.AST, fn: FunctionInfo | None) -> str | None:
        """The jax transform a called expression applies (``flow.transform_of``)."""
        return transform_of(self.scopes, func, fn)

    def flow(self, fn: FunctionInfo) -> Flow:
        """The value model's flow of traced function ``fn`` (one per function; it reads
        the names the fixpoint has marked so far, ``fn.tainted``)."""
        flow = self._flows.get(id(fn))
        if flow is None:
            flow = self._flows[id(fn)] = Flow(self.scopes, fn)
        return flow

    def eager_after_conversion(self, fn: FunctionInfo) -> frozenset[int]:
        """The nodes of traced ``fn`` that run only after a ``try:`` converted a tracer
        (``cfg.eager_after_conversion``, with the value model's certain answers as the
        fixpoint has marked them so far): never under a trace, so what they call is not
        traced from here."""
        flow = self.flow(fn)

        def certain(expr: ast.expr) -> bool:
            found = flow.culprit(expr)
            return found is not None and found[0] == CERTAIN

        return eager_after_conversion(self.scopes, fn, certain, lambda: only_differentiated(fn))

    def is_traced_expr(self, expr: ast.AST | None, fn: FunctionInfo | None = None) -> bool:
        """Whether ``expr`` (inside traced function ``fn``) evaluates to a traced value:
        the value model's answer (``flow.Flow.culprit``) at any level of certainty.

        Conservative in the direction of *not traced*: rules stay quiet when unsure.
        """
        if expr is None:
            return False
        if fn is None:
            fn = self.scopes.traced_function_of(expr)
            if fn is None:
                return False
        return self.flow(fn).culprit(expr) is not None


def _supplied(target: FunctionInfo, bound: int) -> list:
    """``target``'s positional parameters a caller fills, in order: past the ``bound`` a
    partial binds, less the ``self``/``cls`` of a method."""
    return [p for p in target.positional()[bound:]
            if not (p.index == 0 and target.class_name and p.name in ("self", "cls"))]


def _primal_count(call: ast.Call, q: str) -> int | None:
    """How many primals a transform that runs its function at once passes it: the
    arguments after the function of ``jax.vjp(f, *primals)`` / ``jax.linearize``, the
    elements of ``jax.jvp(f, primals, tangents)``'s literal tuple; None when not written
    out (a starred argument, a tuple built elsewhere)."""
    if q.endswith("jvp"):
        primals = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords
                                                               if k.arg == "primals"), None)
        if not isinstance(primals, (ast.Tuple, ast.List)):
            return None
        elts = primals.elts
    else:
        elts = call.args[1:]
    return None if any(isinstance(e, ast.Starred) for e in elts) else len(elts)

