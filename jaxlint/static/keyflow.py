"""JAX114's model of how PRNG keys flow through one body (issue 39): ``KeyFlow`` walks
statements in order, tracking which key texts (``key``, ``keys[0]``, ``s.key``) a
``jax.random`` consumer or a callee that draws (``KeyCallees``) has consumed, through
branches (an ``if``, and the branch functions of a ``lax.cond``/``lax.switch``, of which one
runs), loops (two passes: a key consumed on every iteration) and comprehensions, and
records each second use of a consumed key whose numbers may meet the first's as a
``Reuse``. What is not a reuse is decided here too: a first use read nowhere, splits whose
read outputs differ, the two alternatives of a select, one draw applied to aligned data on
purpose (``choice(key, x)``, ``choice(key, y)``), complementary slices of one permutation.
``taken_one_at_a_time`` tells whether the keys of a ``split(key, n)`` in a loop body may differ
per iteration. The rule (rules/static/jax114_prng_key_reuse.py) words each reuse, its kind and fix.
"""
from __future__ import annotations

import ast
from typing import Iterator, NamedTuple

from jaxlint.static.arrays import data_params
from jaxlint.static.data import FunctionInfo
from jaxlint.static.jitcalls import call_arguments
from jaxlint.static.key_uses import (State, arguments, bound_in, builds_alternatives, complementary_slices, forget,
                                     handed_over, join, key_root, stored_paths)
from jaxlint.static.keys import CONSUMERS, KeyCallees, assigned_paths, draws, key_text, one_value_draw
from jaxlint.static.one_leaf import one_array
from jaxlint.static.reach import Reach
from jaxlint.static.selects import alternatives
from jaxlint.static.semantic import ModuleModel, children, target_names, walk

#: Nodes whose bodies run later than the code around them (nested functions, lambdas).
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
#: Samplers of continuous noise (the shape given is the noise's shape).
_NOISE = {"normal", "uniform", "truncated_normal", "laplace", "logistic", "gumbel", "cauchy", "t", "gamma",
          "beta", "exponential", "generalized_normal", "double_sided_maxwell", "maxwell", "pareto", "loggamma",
          "chisquare", "rayleigh", "wald", "lognormal", "weibull_min", "rademacher"}
#: Functions that call a function once per leaf of a pytree.
_TREE_MAPS = {"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map", "jax.tree_util.tree_map_with_path",
              "jax.tree.map_with_path"}
_TREE_MAP_NAMES = {q.rsplit(".", 1)[-1] for q in _TREE_MAPS}
#: How many calls below a function mapped over a pytree's leaves its draws are followed.
_LEAF_DEPTH = 3
#: Functions that run one of several branch functions, with the index of the first branch
#: argument (``lax.switch`` takes a list of them there): exactly one branch runs, right there.
_BRANCHING = {"jax.lax.cond": 1, "jax.lax.switch": 1, "flax.nnx.cond": 1, "flax.nnx.switch": 1}
_BRANCHING_NAMES = {q.rsplit(".", 1)[-1] for q in _BRANCHING}


class Reuse(NamedTuple):
    """A key consumed again: ``key`` (the expression of the second use, where it is
    reported, text ``text``) by ``call`` (``fn_name``), after ``first`` (``first_name``);
    ``repeated``: one call consuming it again on every iteration of a loop, or on every
    element of the comprehension ``comp`` (then ``first`` is ``call``)."""
    key: ast.expr
    text: str
    first: ast.Call
    first_name: str
    call: ast.Call
    fn_name: str
    repeated: bool
    comp: ast.expr | None


def calls_in(node: ast.AST) -> Iterator[tuple[ast.Call, ast.expr | None]]:
    """Calls in evaluation order (approximately: source order), with the innermost
    comprehension around each; nested functions and lambdas run later and are skipped."""
    found: list[tuple[ast.Call, ast.expr | None]] = []
    stack: list[tuple[ast.AST, ast.expr | None]] = [(node, None)]
    while stack:
        n, comp = stack.pop()
        if isinstance(n, SCOPES):
            continue
        if isinstance(n, COMPREHENSIONS):
            # the first iterable is evaluated once, outside the per-element loop
            first = n.generators[0]
            stack.append((first.iter, comp))
            stack.extend((c, n) for c in children(n) if c is not first)
            stack.extend((c, n) for c in [first.target, *first.ifs])
            continue
        if isinstance(n, ast.Call):
            found.append((n, comp))
        stack.extend((c, comp) for c in children(n))
    found.sort(key=lambda fc: (fc[0].lineno, fc[0].col_offset))
    return iter(found)


def taken_one_at_a_time(model: ModuleModel, split: ast.Call, fn: FunctionInfo) -> bool:
    """Whether the keys of ``split(key, n)`` in an iterated body are taken one at a time
    (``split(key, n)[i]``, or ``keys = split(key, n)`` then ``keys[i]`` or a call given ``keys``
    with another argument, such as ``dynamic_index_in_dim(keys, i)``): each iteration may take
    another key. Handed whole to a draw (``vmap(sample)(split(key, n), xs)``), they are the
    same keys on every iteration."""
    parent = model.parent(split)
    if isinstance(parent, ast.Subscript) and parent.value is split:
        return True
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name = parent.targets[0].id
    for n in walk(fn.node):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name:
            return True
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in n.args) \
                and not _draws_from(model, n):
            return True  # handed to something that may pick one key
    return False


def _draws_from(model: ModuleModel, call: ast.Call) -> bool:
    """``vmap(f)(keys, ...)``: a mapped call, given every key at once."""
    func = call.func
    return isinstance(func, ast.Call) and (model.resolve_call(func) or "") in ("jax.vmap", "jax.pmap", "flax.nnx.vmap",
                                                                              "equinox.filter_vmap")


def leaf_noise(model: ModuleModel) -> Iterator[tuple[ast.Call, ast.Call, ast.Name, str, FunctionInfo | None]]:
    """Noise drawn once per leaf of a pytree from a key the same for every leaf: (the
    ``tree_map`` call, the draw, its key, the sampler, the function below the mapped one
    that draws, or None). The mapped function must be made right there (a lambda, a nested
    def: it closes over the caller's names); the draw is in it or in a function it calls
    (``tree_map(lambda a, b: vary(a, b), x1, x2)``, ``vary`` drawing ``normal(k, a.shape)``),
    up to ``_LEAF_DEPTH`` calls below, given a leaf. A key is the same for every leaf when
    it is bound outside the mapped function and the functions between (closed over, or
    handed down as an argument); the noise is shaped like each leaf when its shape reads a
    parameter given a leaf. Permutations, choices and masks are left alone: augmentations
    draw one for every leaf (an image and its mask) on purpose, to keep them aligned."""
    for call in model.nodes(ast.Call):
        func = call.func
        short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if not call.args or short not in _TREE_MAP_NAMES or model.resolve_call(call) not in _TREE_MAPS:
            continue
        fn, _ = model.callee(call.args[0], model.function_of(call), follow=False, instances=False)
        if fn is None or fn.parent is not model.function_of(call):
            continue  # a function made right there (a lambda, a nested def): it closes over the caller's names
        if one_array(model, call.args[1] if len(call.args) > 1 else call, model.function_of(call)):
            continue  # a tree that is one array (`tree_map(f, ravel_pytree(t)[0])`): one leaf, one call
        for use, key, q, helper in _leaf_draws(model, fn, {p.name for p in fn.params}, set(), [fn]):
            yield call, use, key, q, helper


def _leaf_draws(model: ModuleModel, g: FunctionInfo, leaves: set[str], keys: set[str],
                chain: list[FunctionInfo]) -> Iterator[tuple[ast.Call, ast.Name, str, FunctionInfo | None]]:
    """The draws of ``_leaf_noise`` in ``g`` (``chain``: the mapped function down to ``g``),
    whose parameters ``leaves`` are given a leaf and ``keys`` a key the same for every leaf."""

    def same_key(name: str) -> bool:
        if name in keys:
            return len(g.bindings.get(name, ())) <= 1  # (not rebound in ``g``)
        if name in g.bindings:
            return False  # a key of its own (a parameter, split inside)
        if g is chain[0]:
            return True
        owner, bindings = model.lookup(name, g)
        return bool(bindings) and owner not in chain

    for part in [g.node.body] if isinstance(g.node, ast.Lambda) else g.node.body:
        for use, _ in calls_in(part):
            q = model.resolve_call(use) or ""
            if not (q.startswith("jax.random.") and q[len("jax.random."):] in _NOISE):
                if len(chain) > _LEAF_DEPTH:
                    continue
                h, bound = model.callee(use.func, g, follow=False, instances=False)
                if h is None or isinstance(h.node, ast.Lambda) or h in chain:
                    continue
                args = call_arguments(use, h, bound)
                given = {p for p, a in args if any(isinstance(n, ast.Name) and n.id in leaves for n in walk(a))}
                if given:
                    handed = {p for p, a in args if isinstance(a, ast.Name) and same_key(a.id)}
                    for use2, key, q2, below in _leaf_draws(model, h, given, handed, [*chain, h]):
                        yield use2, key, q2, below or h
                continue  # indices, permutations, masks: often one draw for aligned leaves, on purpose
            given_key = use.args[0] if use.args else next((k.value for k in use.keywords if k.arg == "key"), None)
            if not isinstance(given_key, ast.Name) or not same_key(given_key.id):
                continue
            key = given_key
            shape = next((k.value for k in use.keywords if k.arg == "shape"), None) or (
                use.args[1] if len(use.args) > 1 else None)
            if shape is None or not any(isinstance(n, ast.Name) and n.id in leaves for n in walk(shape)):
                continue  # not noise shaped like each leaf
            yield use, key, q, None


def drawn_key(model: ModuleModel, callees: KeyCallees, use: ast.Call) -> tuple[ast.expr, str] | None:
    """The key ``use`` draws from or splits, with what consumes it (``jax.random.normal``, or a
    callee of the module that draws from the key it is handed, ``KeyCallees.key_argument``);
    None when ``use`` consumes no key (or one of another module's callee)."""
    func = use.func
    short = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    q = (model.resolve_call(use) or "") if short in CONSUMERS else ""
    if q.startswith("jax.random.") and q[len("jax.random."):] in CONSUMERS:
        key = use.args[0] if use.args else next((k.value for k in use.keywords if k.arg == "key"), None)
        return (key, q) if key is not None and not one_value_draw(model, use) else None
    handoff = callees.key_argument(use)
    if handoff is None or id(use) in callees.imported:
        return None
    return handoff


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: the calls that make a key from a seed
_SEEDED = frozenset({"jax.random.key", "jax.random.PRNGKey"})


def literal_keys_per_loop(model: ModuleModel, callees: KeyCallees) -> Iterator[
        tuple[ast.Call, ast.expr, str, ast.stmt, ast.Call]]:
    """A key made from a literal seed inside the body of a Python loop and drawn from in that
    body, directly (``train_epoch(state, batches, random.key(1))``) or through a name bound
    there (``k = random.PRNGKey(0)`` then ``normal(k, s)``), by a ``jax.random`` draw or a
    callee that draws (``drawn_key``): made anew from the same seed on every pass, it is the
    same key on every pass, so every pass draws the same numbers (the same shuffle each
    epoch). Each: the draw, the key expression it is handed, what draws, the loop, the call
    that makes the key."""
    for loop in model.nodes(ast.For, ast.AsyncFor, ast.While):
        assert isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
        for part in loop.body:
            for use, _ in calls_in(part):
                found = drawn_key(model, callees, use)
                if found is None:
                    continue
                key, fn_name = found
                made = _literal_key(model, key, loop)
                if made is not None:
                    yield use, key, fn_name, loop, made


def _literal_key(model: ModuleModel, key: ast.expr, loop: ast.stmt) -> ast.Call | None:
    """The ``jax.random.key(<literal>)`` call ``key`` is, or that every binding of ``key`` (a
    name) reaching it makes inside ``loop``'s body; None otherwise."""
    if isinstance(key, ast.Call):
        seed = key.args[0] if len(key.args) == 1 and not key.keywords else None
        literal = isinstance(seed, ast.Constant) and isinstance(seed.value, int) and not isinstance(seed.value, bool)
        return key if literal and model.resolve_call(key) in _SEEDED else None
    if not isinstance(key, ast.Name):
        return None
    reaching = model.reaching_bindings(key, model.function_of(key))
    made = [_literal_key(model, b.value, loop) if b.kind == "assign" and b.value is not None
            and isinstance(b.node, ast.Assign) and len(b.node.targets) == 1 and isinstance(b.node.targets[0], ast.Name)
            and any(a is loop for a in model.ancestors(b.node)) else None for b in reaching]
    return made[0] if made and all(m is not None for m in made) else None


def closures_called_per_loop(model: ModuleModel, callees: KeyCallees) -> Iterator[
        tuple[ast.Call, ast.expr, str, FunctionInfo, ast.Call]]:
    """(draw, key, consumer, nested function, the call of it in a loop) for a nested function
    that draws from (or splits) a key of an enclosing scope it is not given (``key``, or an
    attribute of one, ``state.rng``) and that a Python loop calls on every pass, directly or
    through what holds it (a parameter every caller fills with it, a factory's returned
    function: ``Scopes.callee``): every call consumes the same key, so every pass draws the
    same numbers. Only where the key is bound once there, rebound by no function
    (``nonlocal``, ``global``) and, for an attribute, assigned nowhere in the module."""
    rebound = {n for f in model.functions for n in (*f.nonlocals, *f.globals_)}
    stored = {(a.value.id, a.attr) for a in model.nodes(ast.Attribute)
              if isinstance(a.ctx, ast.Store) and isinstance(a.value, ast.Name)}
    checked: dict[int, list[tuple[ast.Call, ast.expr, str]]] = {}
    for call in model.nodes(ast.Call):
        if not isinstance(call.func, ast.Name):
            continue
        scope = model.function_of(call)
        loop = next((a for a in model.ancestors(call) if isinstance(a, _LOOPS + SCOPES)), None)
        if not isinstance(loop, _LOOPS) or model.function_of(loop) is not scope:
            continue
        target, _ = model.callee(call.func, scope)
        if target is None or target.parent is None or isinstance(target.node, ast.Lambda) or target is scope:
            continue
        if id(target) not in checked:
            checked[id(target)] = list(_closed_key_draws(model, callees, target, rebound, stored))
        for use, key, consumer in checked[id(target)]:
            yield use, key, consumer, target, call


def _closed_key_draws(model: ModuleModel, callees: KeyCallees, fn: FunctionInfo, rebound: set[str],
                      stored: set[tuple[str, str]]) -> Iterator[tuple[ast.Call, ast.expr, str]]:
    for stmt in fn.node.body:  # type: ignore[union-attr]
        for use, comp in calls_in(stmt):
            found = drawn_key(model, callees, use)
            if found is None or comp is not None:
                continue
            key, consumer = found
            root = key.value if isinstance(key, ast.Attribute) else key
            if not isinstance(root, ast.Name) or root.id in fn.bindings or root.id in rebound \
                    or isinstance(key, ast.Attribute) and (root.id, key.attr) in stored:
                continue
            if consumer == "jax.random.split" and (len(use.args) > 1 or any(k.arg == "num" for k in use.keywords)) \
                    and taken_one_at_a_time(model, use, fn):
                continue
            owner, bindings = model.lookup(root.id, fn)
            if owner is not None and len(bindings) == 1 and bindings[0].kind in ("param", "assign"):
                yield use, key, consumer


class KeyFlow:
    """Straight-line walk of one body, tracking which keys have been consumed; each reuse
    found is appended to ``found``."""

    def __init__(self, model: ModuleModel, callees: KeyCallees, found: list[Reuse]) -> None:
        self.model = model
        self.found = found
        self.callees = callees
        self.reach = Reach(model)
        self.loop_pass = False
        self.depth = 0
        self.loops: list[ast.For | ast.AsyncFor | ast.While] = []  # the loops around the statement being walked
        self.branch: tuple[ast.AST, ast.AST] | None = None  # (the caller's node, the `lax.cond` branch walked)

    # ------------------------------------------------------------------ statements
    def block(self, stmts: list[ast.stmt], state: State | None) -> State | None:
        """The state after ``stmts``, or None when every path leaves (return, raise, break)."""
        for s in stmts:
            if state is None:
                return None
            state = self.stmt(s, state)
        return state

    def stmt(self, s: ast.stmt, state: State) -> State | None:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            forget(state, {s.name})
            return state
        if isinstance(s, (ast.Return, ast.Raise, ast.Break)):
            for child in children(s):
                self.expr(child, state)
            return None
        if isinstance(s, ast.If):
            self.expr(s.test, state)
            return self.merge(state, [s.body, s.orelse])
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            return self.loop(s, state)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.expr(item.context_expr, state)
                if item.optional_vars is not None:
                    forget(state, set(target_names(item.optional_vars)))
            return self.block(s.body, state)
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            after = self.merge(state, [s.body + s.orelse, *[h.body for h in s.handlers]])  # type: ignore[attr-defined]
            return self.block(s.finalbody, after) if after is not None else None  # type: ignore[attr-defined]
        if isinstance(s, ast.Match):
            self.expr(s.subject, state)
            return self.merge(state, [c.body for c in s.cases] + [[]])
        # simple statements: the right-hand side runs before the targets are bound
        for field in ("value", "test", "msg", "exc"):
            part = getattr(s, field, None)
            if isinstance(part, ast.AST):
                self.expr(part, state)
        if isinstance(s, ast.AugAssign):
            self.expr(s.target, state)
        targets = s.targets if isinstance(s, (ast.Assign, ast.Delete)) else (
            [s.target] if isinstance(s, (ast.AnnAssign, ast.AugAssign)) else [])
        for t in targets:
            forget(state, stored_paths(t))
        fields = {k for k in state if "." in k}
        if fields:
            changed = handed_over(s)
            for k in fields:
                if key_root(k) in changed and k in state and state[k][0] not in set(walk(s)):
                    del state[k]  # a method of the object may have stored a new key in the field
        return state

    def merge(self, state: State, branches: list[list[ast.stmt]]) -> State | None:
        """Run each branch from a copy of ``state``; a key stays consumed after them when
        some surviving branch consumed it and none left it freshly reassigned."""
        ends = []
        for b in branches:
            end = self.block(b, dict(state))
            if end is not None:
                ends.append((end, assigned_paths(b)))
        if not ends:
            return None
        return join(ends)

    def loop(self, s: ast.For | ast.AsyncFor | ast.While, state: State) -> State | None:
        header = s.iter if isinstance(s, (ast.For, ast.AsyncFor)) else s.test
        self.expr(header, state)
        start = dict(state)
        # two passes over the body: a key consumed in the first and again in the second is
        # consumed on every iteration (one pass in deeply nested loops, which would
        # otherwise cost 2**depth walks)
        current: State | None = dict(state)
        was = self.loop_pass
        self.depth += 1
        self.loops.append(s)
        for i in range(2 if self.depth <= 3 else 1):
            if current is None:
                break
            if isinstance(s, (ast.For, ast.AsyncFor)):
                forget(current, set(target_names(s.target)))
            self.loop_pass = i == 1
            current = self.block(s.body, current)
        self.loops.pop()
        self.loop_pass = was
        self.depth -= 1
        # the body may run zero times
        after = join([(start, set())] + ([(current, assigned_paths(s.body))] if current is not None else []))
        return self.block(s.orelse, after)

    # ------------------------------------------------------------------ expressions
    def expr(self, node: ast.AST, state: State) -> None:
        branching: list[ast.Call] = []
        for call, comp in calls_in(node):
            func = call.func
            short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if comp is None and short in _BRANCHING_NAMES and self.model.resolve_call(call) in _BRANCHING:
                branching.append(call)  # its branches run after its arguments are evaluated
            q = (self.model.resolve_call(call) or "") if short in CONSUMERS else ""  # cheap test before resolving
            if q.startswith("jax.random.") and q[len("jax.random."):] in CONSUMERS:
                if one_value_draw(self.model, call):
                    continue  # `randint(key, (), 1, 2)`: always 1, whatever the key
                key = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "key"), None)
                fn_name = q
            else:
                # a call handing the key to a callee known to draw from it (an equinox
                # layer, a linen `init`, a same-module function or class that samples)
                handoff = self.callees.key_argument(call)
                if handoff is None:
                    continue
                key, fn_name = handoff
            text = key_text(key)
            if text is None or key is None or self.callees.fresh_per_read(key):
                continue  # (`gen.rng`: a generator's property that advances it gives a fresh key per read)
            if comp is not None and bound_in(comp, key_root(text)):
                continue  # a fresh key per element, e.g. `for k in keys`
            if comp is not None and self._aligned_elements(call, fn_name, comp):
                continue  # `[permutation(key, a) for a in arrays]`: one shuffle for every array, on purpose
            if comp is not None and builds_alternatives(self.model, call, comp):
                continue  # `{name: Model(make=fn, key=key) for name, fn in makers.items()}`: one seed per alternative
            if comp is not None:
                self.found.append(Reuse(key, text, call, fn_name, call, fn_name, True, comp))
            elif text in state and not (fn_name == "jax.random.split" and not state[text][1].startswith("jax.random.")):
                # splitting after a hand-off (`model.init(key, x)` then `split(key)`) is
                # the common flax idiom and the split itself draws nothing: stay quiet
                first, first_name = state[text]
                if (id(call) in self.callees.imported and not draws(first_name)) or (
                        id(first) in self.callees.imported and not draws(fn_name)):
                    continue  # an unseen helper and a split or another helper: too unsure
                if first_name == fn_name and self._aligned(first, call, fn_name):
                    continue  # the same draw applied to other data on purpose: `choice(key, x)`, `choice(key, y)`
                if first_name == fn_name and complementary_slices(self.model, first, call):
                    continue  # `permutation(key, n)[:m]`, `permutation(key, n)[m:]`: one shuffle, split in two parts
                if not self._shared(first, call):
                    if not self.reach.read(first):
                        state[text] = (call, fn_name)  # the first use's numbers went nowhere: this one counts
                    continue  # `like = Model(key)` as a template, or splits whose read outputs differ
                if self.branch is not None and not self._read_with_branch(first):
                    continue  # `u = uniform(key)` read only by the other branches: no run reads both
                if alternatives(self.model, first, call) or self.reach.alternatives(first, call):
                    continue  # `where(c, normal(key, s), uniform(key, s))`: only one draw survives, element by element
                self.found.append(Reuse(key, text, first, first_name, call, fn_name, self.loop_pass and first is call,
                                        None))
            state.setdefault(text, (call, fn_name))
        for call in branching:
            self._branches(call, state)

    def _branches(self, call: ast.Call, state: State) -> None:
        """``lax.cond(p, lambda: normal(key), g)`` / ``lax.switch(i, [f, g])``: the branch
        functions made right there (lambdas, nested defs of the caller) run at the call, and
        exactly one of them: a draw in a branch is a use of the key it closes over, and two
        branches drawing from one key are one use (walked like the arms of an ``if``)."""
        start = _BRANCHING[self.model.resolve_call(call) or ""]
        args = list(call.args[start:])
        if args and isinstance(args[0], (ast.List, ast.Tuple)) and "switch" in (self.model.resolve_call(call) or ""):
            args = list(args[0].elts)
        else:
            args = args[:2]
        owner = self.model.function_of(call)
        ends: list[tuple[State, set[str]]] = []
        local: set[str] = set()
        for arg in args:
            fn, _ = self.model.callee(arg, owner, follow=False, instances=False)
            if fn is None or fn.parent is not owner:
                continue  # a function of elsewhere: it closes over no name of this body
            names = {p.name for p in fn.params} | set(fn.bindings)
            local |= names
            branch = dict(state)
            forget(branch, names)
            was, self.branch = self.branch, (owner.node, fn.node) if owner is not None else None
            if isinstance(fn.node, ast.Lambda):
                self.expr(fn.node.body, branch)
            else:
                self.block(fn.node.body, branch)  # (the walk marks `branch` as it goes, up to a `return`)
            self.branch = was
            ends.append((branch, set()))
        if not ends:
            return
        merged = join(ends)
        for k in list(merged):
            if key_root(k) in local:
                del merged[k]  # a key of a branch's own (a parameter, a local name)
        state.update(merged)

    def _read_with_branch(self, first: ast.Call) -> bool:
        """Whether the numbers of ``first`` (a use before the ``lax.cond`` whose branch is
        being walked) may be read on a run of that branch: bound to names, they are read in
        the branch or in the caller's own body (not only in its other branches or functions)."""
        caller, branch = self.branch  # type: ignore[misc]
        parent = self.model.parent(first)
        if not (isinstance(parent, ast.Assign) and all(isinstance(t, ast.Name) for t in parent.targets)):
            return True
        names = {t.id for t in parent.targets}  # type: ignore[attr-defined]
        if any(isinstance(n, ast.Name) and n.id in names for n in walk(branch)):
            return True
        stack = [c for c in children(caller) if c is not parent]
        while stack:
            n = stack.pop()
            if isinstance(n, SCOPES) or n is parent:
                continue
            if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load):
                return True
            stack.extend(children(n))
        return False

    def _shared(self, first: ast.Call, call: ast.Call) -> bool:
        """Some number both uses of one key produce may be read: each use's result
        reaches a read (not only a template, an abstract evaluation or nothing), and two
        splits unpacked into names have an output index read after both (the same key
        split twice gives the same keys index by index), on a run that makes both."""
        if not (self.reach.read(first) and self.reach.read(call)):
            return False
        if first is call:
            return True
        a, b = self.reach.read_outputs(first), self.reach.read_outputs(call)
        if self._same_split(first, call):
            # `split(key)[0]` and `split(key)[1]`: one split, of which each takes another key
            a = a if a is not None else self._taken_index(first)
            b = b if b is not None else self._taken_index(call)
        return (a is None or b is None or bool(a & b)) and self.reach.read_with(first, call)

    def _same_split(self, first: ast.Call, call: ast.Call) -> bool:
        """``first`` and ``call`` are ``jax.random.split`` with the same arguments: the
        same keys, index by index."""
        return all(self.model.resolve_call(c) == "jax.random.split" for c in (first, call)) \
            and ast.dump(ast.Tuple(elts=first.args, ctx=ast.Load())) == ast.dump(ast.Tuple(elts=call.args, ctx=ast.Load())) \
            and [(k.arg, ast.dump(k.value)) for k in first.keywords] == [(k.arg, ast.dump(k.value)) for k in call.keywords]

    def _taken_index(self, call: ast.Call) -> set[int] | None:
        """``{i}`` where only the output ``call[i]`` (a constant, not negative) is taken."""
        parent = self.model.parent(call)
        if isinstance(parent, ast.Subscript) and parent.value is call and isinstance(parent.slice, ast.Constant) \
                and type(parent.slice.value) is int and parent.slice.value >= 0:
            return {parent.slice.value}
        return None

    def _aligned(self, first: ast.Call, call: ast.Call, fn_name: str) -> bool:
        """Whether two uses of one key by the same function differ only in the data they
        are applied to: ``choice(key, x, (n,))`` and ``choice(key, y, (n,))``, or a helper
        that crops each view with one key. The same key then draws the same indices or
        offsets for every array on purpose, so the arrays stay aligned; splitting it would
        break them. The same call in a loop counts when its data comes from the loop."""
        data = self._data_positions(call, fn_name)
        if not data:
            return False
        varying: set[str] = set()
        if first is call:
            if not self.loops:
                return False
            loop = self.loops[-1]
            varying = assigned_paths(loop.body) | (set(target_names(loop.target)) if isinstance(
                loop, (ast.For, ast.AsyncFor)) else set())
        a, b = arguments(first), arguments(call)
        if a.keys() != b.keys():
            return False
        differs = False
        for pos in a:
            if first is call:
                moves = any(isinstance(n, ast.Name) and n.id in varying for n in walk(a[pos]))
            else:
                moves = ast.dump(a[pos]) != ast.dump(b[pos])
            if moves:
                if pos not in data:
                    return False
                differs = True
        return differs

    def _aligned_elements(self, call: ast.Call, fn_name: str, comp: ast.AST) -> bool:
        """A comprehension applies one key to each element's data and nothing else varies
        (``[permutation(key, a) for a in arrays]``): the elements stay aligned, as for
        ``_aligned``."""
        data = self._data_positions(call, fn_name)
        if not data:
            return False
        bound = {name for g in comp.generators for name in target_names(g.target)}  # type: ignore[attr-defined]
        moving = {pos for pos, arg in arguments(call).items()
                  if any(isinstance(n, ast.Name) and n.id in bound for n in walk(arg))}
        return bool(moving) and moving <= data

    def _data_positions(self, call: ast.Call, fn_name: str) -> set[int | str]:
        """The argument positions (index or keyword) of ``call`` that hold the data a
        random draw is applied to, rather than a shape or a distribution parameter."""
        short = fn_name[len("jax.random."):] if fn_name.startswith("jax.random.") else None
        if short is not None:
            if short in ("choice", "permutation", "shuffle"):
                name = "a" if short == "choice" else "x"
                arg = call.args[1] if len(call.args) > 1 else next(
                    (k.value for k in call.keywords if k.arg == name), None)
                # `permutation(key, n)` with an int draws a fresh permutation: not data
                if arg is None or isinstance(arg, ast.Constant):
                    return set()
                return {1, name}
            return set()
        target, bound = self.model.callee(call.func, self.model.function_of(call), follow=False)
        if target is None or isinstance(target.node, ast.Lambda):
            return set()
        used = data_params(self.model, target)
        out: set[int | str] = set()
        for p in target.params:
            if p.name in used:
                if p.index is not None and p.index >= bound:
                    out.add(p.index - bound)
                out.add(p.name)
        return out
