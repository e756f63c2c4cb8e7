"""PRNG keys as the model knows them (issue 39): jax.random's functions by what they do
to their key (``SAMPLERS`` draw from it, ``CONSUMERS`` spend it, ``KEY_MAKERS`` make one),
the text by which a key held in a name, an element or a field is followed (``key_text``),
and ``KeyCallees``: which functions of the module draw from a key they are given (through
``jax.random`` samplers, splits of it, or other such functions), and which calls hand a
key to one, a function of another module given a key included.
"""
from __future__ import annotations

import ast
import re
from typing import Iterator

from jaxlint.static.apis import KEYED_DRAWS, Arg, KeyedDraw
from jaxlint.static.consts import UNKNOWN, static_value
from jaxlint.static.data import Binding, Param
from jaxlint.static.scopes import FunctionInfo, Scopes, target_names, walk


#: jax.random functions that draw random bits from their key argument.
SAMPLERS = {
    "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare", "choice",
    "dirichlet", "double_sided_maxwell", "exponential", "f", "gamma", "generalized_normal", "geometric",
    "gumbel", "laplace", "loggamma", "logistic", "lognormal", "maxwell", "multinomial",
    "multivariate_normal", "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher",
    "randint", "rayleigh", "shuffle", "t", "triangular", "truncated_normal", "uniform", "wald",
    "weibull_min",
}


#: `split` consumes its key too: its outputs are bits of that key, like a sample's.
CONSUMERS = SAMPLERS | {"split"}


def randint_bounds(call: ast.Call) -> tuple[ast.expr | None, ast.expr | None]:
    """``minval`` and ``maxval`` of a ``jax.random.randint(key, shape, minval, maxval)``
    call, by position or keyword (None where not given)."""
    low, high = (call.args[i] if len(call.args) > i else next((k.value for k in call.keywords if k.arg == name), None)
                 for i, name in ((2, "minval"), (3, "maxval")))
    return low, high


def one_value_draw(model: Scopes, call: ast.Call) -> bool:
    """``jax.random.randint(key, shape, lo, lo + 1)``: a draw whose range holds one value
    (``maxval`` is exclusive), the same whatever the key, so it spends no randomness and
    reusing its key with it changes nothing. Both bounds static with ``maxval - minval ==
    1`` (``randint(k, (), 1, 2)``), or written as one plain name or attribute and that plus 1
    (``randint(k, (), n, n + 1)``)."""
    low, high = bounds = randint_bounds(call)
    if low is None or high is None or model.resolve_call(call) != "jax.random.randint":
        return False
    values = [static_value(model, b) for b in bounds]
    if all(type(v) is int for v in values):
        return values[1] - values[0] == 1  # type: ignore[operator]
    return isinstance(high, ast.BinOp) and isinstance(high.op, ast.Add) and isinstance(high.right, ast.Constant) \
        and type(high.right.value) is int and high.right.value == 1 and _plain(low) \
        and ast.dump(high.left) == ast.dump(low)


def _plain(expr: ast.expr) -> bool:
    """A name, or attributes of one: read twice, the same value."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name)


#: Calls that make a key (for module-level keys read in traced code).
KEY_MAKERS = {"jax.random.PRNGKey", "jax.random.key", "jax.random.split", "jax.random.fold_in",
              "jax.random.wrap_key_data", "jax.random.clone"}


#: The keywords by which a call may hand a callee a key it draws from: ``key=`` (equinox
#: layers, same-module helpers) and those of ``apis.KEYED_DRAWS`` (``rng=``).
HANDOFF_KEYWORDS = frozenset({"key", *(d.key[1] for d in KEYED_DRAWS.values())})


#: How deep a chain of same-module helpers is followed to find who samples a key.
_MAX_DEPTH = 3


def key_text(expr: ast.AST | None) -> str | None:
    """A trackable key expression: a name, a name indexed by a constant (``keys[0]``), or
    a field of a name (``s.key``, ``self.rng``, ``state.keys.init``)."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Constant):
        return f"{expr.value.id}[{expr.slice.value!r}]"
    if isinstance(expr, ast.Attribute):
        return field_path(expr)
    return None


def field_path(expr: ast.AST) -> str | None:
    """``a.b.c`` for a chain of at most three attributes of a name, else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute) and len(parts) < 3:
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name) or not parts:
        return None
    return ".".join([expr.id, *reversed(parts)])


class KeyCallees:
    """Which calls hand a key to a callee known to draw random numbers from it."""

    def __init__(self, model: Scopes) -> None:
        self.model = model
        self._sampled: dict[int, set[str]] = {}  # id(FunctionInfo) -> params it samples from
        #: ids of calls that hand a key to a function of another module: its body is not
        #: seen, so such a use only counts next to a `jax.random` draw from the same key
        self.imported: set[int] = set()
        self._fresh: dict[tuple[str, str], bool] = {}  # (class, attribute) -> fresh_per_read
        #: id(FunctionInfo) -> {key parameter: the parameters every draw from it waits on
        #: being None (``if assets is None: assets = make(key)``)}
        self._unless: dict[int, dict[str, set[str]]] = {}
        #: class -> {attribute: (the library class its instances are, the call that makes them)}
        self._layers: dict[str, dict[str, tuple[str, ast.Call | None] | None]] = {}

    def sampling_names(self) -> set[str]:
        """Module-level functions and classes (through ``__init__``) that sample a parameter,
        and the attributes a class stores such a function in."""
        out = {f.name for f in self.model.functions if f.parent is None and f.class_name is None
               and not isinstance(f.node, ast.Lambda) and self.sampled_params(f)}
        for name in self.model.classes:
            init = self.model.method_named(name, "__init__")
            if init is not None and self.sampled_params(init):
                out.add(name)
        # `self.kernel_initializer(shape, key)`: an attribute a class stores such a function in
        out |= {attr for (_, attr), f in self.model.stored_functions().items()
                if f is not None and not isinstance(f.node, ast.Lambda) and self.sampled_params(f)}
        return out

    def sampled_params(self, fn: FunctionInfo, depth: int = 0) -> set[str]:
        """Parameters of ``fn`` its own body draws from: given to a `jax.random` sampler
        (not `split`/`fold_in`, which only derive keys) or handed on to another known
        consumer, while still bound to the argument (never reassigned in ``fn``)."""
        if id(fn) in self._sampled:
            return self._sampled[id(fn)]
        self._sampled[id(fn)] = set()  # recursion guard: a cycle samples nothing
        params = {p.name for p in fn.params}
        derived, rederived = self._derived_keys(fn, params)
        # a parameter still holds the argument, or a key split from it (`key, sub = split(key)`)
        names = {p for p in params if all(b.kind == "param" or id(b.node) in rederived
                                          for b in fn.bindings.get(p, []))}
        derived = {k: v for k, v in derived.items() if v in names}
        found: set[str] = set()
        unless: dict[str, set[str]] = {}
        for node, seen in self._calls_seeing(fn, names):
            if not seen:
                continue
            q = self.model.resolve_call(node) or ""
            if q.startswith("jax.random.") and q[len("jax.random."):] in SAMPLERS:
                key = None if one_value_draw(self.model, node) else \
                    node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "key"), None)
            elif depth < _MAX_DEPTH:
                handoff = self.key_argument(node, depth + 1)
                key = handoff[0] if handoff else None
            else:
                key = None
            for _ in range(3):
                if isinstance(key, ast.Subscript):
                    key = key.value  # `keys[0]` of `keys = split(key, 3)`, `split(key)[0]`
                elif isinstance(key, ast.Call) and key.args and self.model.resolve_call(key) == "jax.random.split":
                    key = key.args[0]  # `normal(split(key)[0], ...)`; `fold_in(key, i)` is a fresh stream
            drawn = None
            if isinstance(key, ast.Name) and key.id in seen:
                drawn = key.id
            elif isinstance(key, ast.Name) and key.id in derived and seen is names:
                drawn = derived[key.id]  # split, then sampled from a part: the argument is spent
            if drawn is not None:
                guards = self._none_guards(fn, node)
                unless[drawn] = guards if drawn not in found else unless[drawn] & guards
                found.add(drawn)
        self._sampled[id(fn)] = found
        self._unless[id(fn)] = {k: v for k, v in unless.items() if v}
        return found

    def _calls_seeing(self, fn: FunctionInfo, names: set[str]) -> Iterator[tuple[ast.Call, set[str]]]:
        """The calls of ``fn``'s body, each with the key parameters it sees (``names``), and
        the calls of the functions ``fn`` defines and uses (``loss_fn`` given to
        ``jax.grad`` in a train step), with those of ``names`` they do not bind again:
        a key a closure hands to a consumer is drawn from by ``fn``."""
        used = {n.id for n in fn.body_nodes() if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for node in fn.body_nodes():
            if isinstance(node, ast.Call):
                yield node, names
        for inner in self.model.functions:
            if inner.parent is not fn or inner.class_name is not None \
                    or not isinstance(inner.node, ast.Lambda) and inner.name not in used:
                continue
            closed = names - inner.bindings.keys()
            if closed:
                for node in inner.body_nodes():
                    if isinstance(node, ast.Call):
                        yield node, closed

    def _none_guards(self, fn: FunctionInfo, node: ast.AST) -> set[str]:
        """The parameters of ``fn`` whose being None ``node`` waits on:
        it lies in the body of an ``if p is None:`` of ``fn``, and ``p`` is bound nowhere
        else than as the parameter and inside that ``if``."""
        out: set[str] = set()
        child, parent = node, self.model.parent(node)
        while parent is not None and parent is not fn.node:
            if isinstance(parent, ast.If) and any(child is s for s in parent.body):
                test = parent.test
                if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) \
                        and _is_none_test(test, test.left.id):
                    owner = self.model.function_of(parent) or fn
                    p = owner.param(test.left.id)  # (`refs=None`, or `refs: Optional[Array]` without a default)
                    inside = {id(n) for n in walk(parent)}
                    if p is not None and p.kind in ("positional", "keyword") and all(
                            b.kind == "param" or id(b.node) in inside for b in owner.bindings.get(p.name, [])):
                        # a closure's parameter (`def one(x, mask): if mask is None: ...` mapped
                        # over by `jax.vmap(one)(xs, masks)`): the parameter of ``fn`` that
                        # every use of the closure passes there
                        name = p.name if owner is fn else _fed_by(self.model, fn, owner, p)
                        if name is not None:
                            out.add(name)
            child, parent = parent, self.model.parent(parent)
        return out

    def _given(self, call: ast.Call, target: FunctionInfo, bound: int, param: str) -> bool:
        """``call`` gives ``target``'s parameter ``param`` a value that is not None: an
        expression other than ``None``, or a name the caller binds only to such values
        (not a parameter of its own, which may be None)."""
        p = target.param(param)
        arg = next((k.value for k in call.keywords if k.arg == param), None)
        if arg is None and p is not None and p.kind == "positional" and p.index is not None \
                and 0 <= p.index - bound < len(call.args):
            arg = call.args[p.index - bound]
        if arg is None or isinstance(arg, ast.Constant) and arg.value is None:
            return False
        if isinstance(arg, ast.Name):
            scope = self.model.function_of(call)
            _, bindings = self.model.lookup(arg.id, scope)
            if bool(bindings) and all(_not_none(b) for b in bindings):
                return True
            # `if refs is None: refs = make(key)` before the call: the caller filled it in;
            # or every binding that reaches the call is a value (`masks = None`, then
            # `out, masks = paste(..., masks)`: the second call gets the first one's masks)
            reach = self.model.reaching_bindings(arg, scope)
            if reach and all(_not_none(b) or _unpacked_from_call(b) for b in reach):
                return True
            return any(_not_none(b) and self._fills_in(b, arg.id) for b in reach) and all(
                b.kind == "param" or _not_none(b) for b in reach)
        return isinstance(arg, (ast.Call, ast.Tuple, ast.List, ast.Dict, ast.BinOp, ast.Attribute, ast.Subscript))

    def _fills_in(self, binding: Binding, name: str) -> bool:
        """``binding`` lies in the body of an ``if name is None`` (or ``if name is None and
        ...``): the default filled in."""
        child, parent = binding.node, self.model.parent(binding.node)
        while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(parent, ast.If) and any(child is s for s in parent.body):
                tests = parent.test.values if isinstance(parent.test, ast.BoolOp) and isinstance(
                    parent.test.op, ast.And) else [parent.test]
                if any(_is_none_test(t, name) for t in tests):
                    return True
            child, parent = parent, self.model.parent(parent)
        return False

    def _spared(self, call: ast.Call, target: FunctionInfo, bound: int, param: str) -> bool:
        """``target`` draws from ``param`` only when an argument is None, and ``call``
        gives that argument (``prepare(key, assets=assets)``): this call draws nothing."""
        return any(self._given(call, target, bound, g) for g in self._unless.get(id(target), {}).get(param, ()))

    def _derived_keys(self, fn: FunctionInfo, params: set[str]) -> tuple[dict[str, str], set[int]]:
        """Locals made from a key parameter by ``jax.random.split`` (``k1, k2 = split(key)``,
        ``keys = split(key, 3)``, ``sub = keys[0]``) -> that parameter; and the ids of the
        statements that rebind a parameter to a key split from itself
        (``key, sub = split(key)``). ``fold_in(key, i)`` makes an independent stream: it
        leaves the key unspent."""
        out: dict[str, str] = {}
        rebinds: set[int] = set()
        for _ in range(3):
            before = len(out)
            for node in fn.body_nodes():
                if not isinstance(node, ast.Assign) or not isinstance(node.value, (ast.Call, ast.Subscript, ast.Name)):
                    continue
                value = node.value
                src: ast.AST | None = None
                if isinstance(value, ast.Call) and self.model.resolve_call(value) == "jax.random.split" and value.args:
                    src = value.args[0]
                elif isinstance(value, (ast.Subscript, ast.Name)):
                    src = value.value if isinstance(value, ast.Subscript) else value
                if isinstance(src, ast.Subscript):
                    src = src.value
                if not isinstance(src, ast.Name):
                    continue
                root = src.id if src.id in params else out.get(src.id)
                if root is None or (isinstance(value, ast.Name) and src.id in params):
                    continue  # a plain copy of the parameter is the parameter itself
                for t in node.targets:
                    for n in target_names(t):
                        if n not in params:
                            out.setdefault(n, root)
                        elif n == root and isinstance(value, ast.Call):
                            rebinds.add(id(node))
            if len(out) == before:
                break
        return out, rebinds

    def key_argument(self, call: ast.Call, depth: int = 0) -> tuple[ast.expr, str] | None:
        """(the key expression, the callee's name) when ``call`` gives a key to a callee
        that draws from it; None when unsure."""
        model = self.model
        func = call.func
        library = self.library_key(call)
        if library is not None:
            return None if library[0] is None else (library[0], library[1])
        q = model.resolve_call(call) or ""
        if q.startswith("equinox.nn."):
            # equinox layers take their initialisation key as the keyword `key`
            key = next((k.value for k in call.keywords if k.arg == "key"), None)
            return (key, q) if key is not None else None
        if isinstance(func, ast.Attribute) and func.attr in ("init", "init_with_output", "apply"):
            key = self._framework_key(call, func)
            if key is not None:
                return key, f"{ast.unparse(func.value)}.{func.attr}"
        scope = model.function_of(call)
        target, bound = model.callee(func, scope, follow=False)
        if target is None and isinstance(func, ast.Name):
            # `step_fn(params, state, rng, x)` of a parameter: the one def of the module every
            # call of its function hands in (``Scopes.passed_function``) is what draws, or not
            target = model.passed_function(func.id, scope)
        if target is None and isinstance(func, ast.Name) and func.id in model.classes:
            _, bindings = model.lookup(func.id, scope)
            if len(bindings) == 1 and bindings[0].kind == "class":
                target, bound = model.method_named(func.id, "__init__"), 1
        if target is None and depth == 0 and _imported_function(model, func, scope):
            found = self._imported_key(call, scope)
            if found is not None and model.link is not None:
                deps: set = set()
                seen = model.link.function(model, func, scope, deps)
                threads = seen is not None and not _may_draw(seen[0].scopes(), seen[1],
                                                             _receiving(seen[1], call, found[0]), 0, deps)
                model.link.use(deps)
                if threads:
                    return None  # the body of the callee, read in its module, only threads the key
            if found is not None:
                self.imported.add(id(call))
            return found
        if target is None or isinstance(target.node, ast.Lambda):
            return None
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None  # *args / **kwargs: which parameter gets what is unknown
        sampled = self.sampled_params(target, depth)
        if not sampled:
            return None
        for i, arg in enumerate(call.args):
            param = next((p for p in target.params if p.index == i + bound), None)
            if param is not None and param.kind == "positional" and param.name in sampled \
                    and not self._spared(call, target, bound, param.name):
                return arg, getattr(func, "id", None) or ast.unparse(func)
        for k in call.keywords:
            if k.arg in sampled and not self._spared(call, target, bound, k.arg):
                return k.value, getattr(func, "id", None) or ast.unparse(func)
        return None

    def library_key(self, call: ast.Call) -> tuple[ast.expr | None, str] | None:
        """For a call of a library layer or function that draws from a key given at the call
        (``apis.KEYED_DRAWS``: ``self.dropout(x, key=k)`` of an ``eqx.nn.Dropout``,
        ``nn.Dropout(rate)(x, rng=k)``, ``hk.dropout(k, rate, x)``): the key it draws from and
        the library's name; the key None when this call cannot draw (no key given, a flag
        ``inference=True`` / ``deterministic=True`` at the call or, when the call gives none,
        where the instance is made, or a rate of 0). None for any other call."""
        model = self.model
        q = model.resolve_call(call) or ""
        spec = KEYED_DRAWS.get(q)
        made: ast.Call | None = None
        if spec is not None and spec.instance:
            return None  # the layer made, not called
        if spec is None:
            found = self._keyed_instance(call.func, model.function_of(call))
            if found is None:
                return None
            q, made = found
            spec = KEYED_DRAWS[q]
        key = _argument(call, spec.key)
        if key is None or isinstance(key, ast.Constant) or not _may_draw_here(model, call, made, spec):
            return None, q
        return key, q

    def _keyed_instance(self, func: ast.expr, scope: FunctionInfo | None) -> tuple[str, ast.Call | None] | None:
        """The library class of ``KEYED_DRAWS`` whose instance ``func`` is, with the call that
        made it where one is known: made right there (``nn.Dropout(rate)(x, ...)``), a name
        bound once to one, or ``self.attr`` that its class sets only to one (or annotates so,
        ``dropout: eqx.nn.Dropout``)."""
        model = self.model
        made: ast.AST | None = func
        if isinstance(func, ast.Name):
            _, bindings = model.lookup(func.id, scope)
            made = bindings[0].value if len(bindings) == 1 and bindings[0].kind == "assign" else None
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            owner = scope
            while owner is not None and owner.class_name is None:
                owner = owner.parent
            return None if owner is None or owner.class_name is None else \
                self._layer_fields(owner.class_name).get(func.attr)
        if isinstance(made, ast.Call):
            q = model.resolve_call(made) or ""
            if q in KEYED_DRAWS and KEYED_DRAWS[q].instance:
                return q, made
        return None

    def _layer_fields(self, cls: str) -> dict[str, tuple[str, ast.Call | None] | None]:
        """``cls``'s attributes that hold a library layer of ``KEYED_DRAWS``: set on ``self``
        (in ``__init__``, ``setup`` or any method) only to instances of one such class, or,
        never set there, annotated with it in the class body (an equinox field)."""
        if cls in self._layers:
            return self._layers[cls]
        model = self.model
        out: dict[str, tuple[str, ast.Call | None] | None] = {}
        stored: dict[str, list[ast.expr | None]] = {}
        stores: list[ast.Assign | ast.AnnAssign] = [*model.nodes(ast.Assign), *model.nodes(ast.AnnAssign)]
        for node in stores:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for a in walk(t):
                    if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "self" \
                            and isinstance(a.ctx, ast.Store):
                        owner = model.function_of(node)
                        while owner is not None and owner.class_name is None:
                            owner = owner.parent
                        if owner is not None and owner.class_name == cls:
                            stored.setdefault(a.attr, []).append(node.value if a is t else None)
        for attr, values in stored.items():
            made = {(model.resolve_call(v) or "") if isinstance(v, ast.Call) else "" for v in values}
            q = made.pop() if len(made) == 1 else ""
            if q in KEYED_DRAWS and KEYED_DRAWS[q].instance:
                out[attr] = (q, values[0] if len(values) == 1 and isinstance(values[0], ast.Call) else None)
            else:
                out[attr] = None
        node_cls = model.classes.get(cls)
        for s in node_cls.body if node_cls is not None else []:
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id not in stored:
                q = model.resolve(s.annotation) or "" if isinstance(s.annotation, (ast.Name, ast.Attribute)) else ""
                if q in KEYED_DRAWS and KEYED_DRAWS[q].instance:
                    out[s.target.id] = (q, None)
        self._layers[cls] = out
        return out

    def fresh_per_read(self, expr: ast.expr) -> bool:
        """``gen.rng`` reads a property of a key generator that advances it: the class of
        ``gen`` (bound only to calls of one class of the module, or of a class another
        module of the tree defines, found through the imports) has a ``@property`` ``rng``
        whose body splits a key field of ``self`` and stores a part back in that field
        (``self._key, sub = jax.random.split(self._key)``), itself or through a method it
        calls (``next(self)``, ``self()``, ``self.next_key()``). Each read then gives a
        fresh key, not one key read twice."""
        if rng_stream(self.model, expr):
            return True  # an `nnx.Rngs`: each `rngs.params()` / `rngs()` a module takes is a fresh key
        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)):
            return False
        model = self.model
        _, bindings = model.lookup(expr.value.id, model.function_of(expr))
        made = {b.value.func.id if b.kind == "assign" and isinstance(b.value, ast.Call)
                and isinstance(b.value.func, ast.Name) else "" for b in bindings}
        if len(made) != 1 or "" in made:
            return False  # not bound only to calls of one class
        (cls,) = made
        memo = self._fresh.get((cls, expr.attr))
        if memo is None:
            func = bindings[0].value.func  # type: ignore[union-attr]
            unseen = model.imported(func, model.function_of(bindings[0].node))
            memo = self._fresh[(cls, expr.attr)] = self._advancing_property(cls, expr.attr, unseen)
        return memo

    def _advancing_property(self, cls: str, attr: str, imported: bool) -> bool:
        """``attr`` of ``cls`` is a property that advances a key generator; also (``may
        be``) when ``cls`` is imported from a module the tree does not hold: its attribute
        may be such a property (easydel's ``GenerateRNG().rng``), so two reads are not
        surely one key."""
        model: Scopes = self.model
        if cls not in model.classes:
            if model.link is None:
                return imported
            word = re.compile(rb"def\s+%s\b" % re.escape(attr).encode())
            deps: set = set()
            found = model.link.class_(model, cls, deps, lambda text: word.search(text) is not None)
            if found is None and imported:
                imported = model.link.class_(model, cls, deps) is None  # not in the tree at all: unseen
            model.link.use(deps)
            if found is None:
                return imported
            model, cls = found
        prop = model.method_named(cls, attr)
        if prop is None or isinstance(prop.node, ast.Lambda) or not any(
                model.resolve(d) == "builtins.property" or isinstance(d, ast.Name) and d.id == "property"
                for d in prop.node.decorator_list):
            return False
        return _advances(model, cls, prop, 0)

    def _imported_key(self, call: ast.Call, scope: FunctionInfo | None) -> tuple[ast.expr, str] | None:
        """A function of another module given a PRNG key: ``key=k`` / ``rng=k``, or a
        name this function made with ``jax.random.split`` / ``PRNGKey`` / ``fold_in``.
        A function that takes a key draws from it (that is what keys are for), as the
        helpers of this module do when the linter can read them."""
        name = ast.unparse(call.func)
        for k in call.keywords:
            if k.arg in _KEY_KEYWORDS and key_text(k.value) is not None:
                return k.value, name
        for a in call.args:
            base = a.value if isinstance(a, ast.Subscript) else a
            if isinstance(base, ast.Name) and self._made_as_key(base.id, scope):
                return a, name
        return None

    def _made_as_key(self, name: str, scope: FunctionInfo | None) -> bool:
        owner, bindings = self.model.lookup(name, scope)
        if owner is not scope or not bindings:
            return False
        for b in bindings:
            value = b.node.value if isinstance(b.node, ast.Assign) else None
            if not (isinstance(value, ast.Call) and self.model.resolve_call(value) in KEY_MAKERS):
                return False
        return True

    def _framework_key(self, call: ast.Call, func: ast.Attribute) -> ast.expr | None:
        """The key a framework's ``init`` / ``apply`` draws from: a flax linen module's
        ``init(key, ...)`` (or ``init(rngs={...: key})``) and ``apply(..., rngs={"dropout":
        key})``; a haiku transform's ``init(key, ...)`` and ``apply(params, key, ...)``
        (``apply(params, state, key, ...)`` of ``transform_with_state``). A ``rngs`` dict
        gives its key when it holds one (or the same one under every name)."""
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        made = self._made(func.value, call)
        if made is None:
            return None
        q = self.model.resolve_call(made) or ""
        if q in _HAIKU_TRANSFORMS:
            at = 0 if func.attr != "apply" else 2 if q.endswith("_with_state") else 1
            key = call.args[at] if len(call.args) > at else keywords.get("rng")
            return None if isinstance(key, ast.Constant) else key  # `apply(params, None, x)`
        if not self._is_linen_call(made):
            return None
        if func.attr != "apply" and call.args:
            return call.args[0]
        rngs = keywords.get("rngs")
        if isinstance(rngs, ast.Dict):
            texts = {key_text(v) for v in rngs.values}
            return rngs.values[0] if len(texts) == 1 and None not in texts else None
        return rngs if func.attr != "apply" else None

    def _made(self, receiver: ast.expr, at: ast.AST) -> ast.Call | None:
        """The call that made ``receiver``: itself (``Critic().init(...)``), or the value of
        the one binding of its name."""
        if isinstance(receiver, ast.Call):
            return receiver
        if not isinstance(receiver, ast.Name):
            return None
        _, bindings = self.model.lookup(receiver.id, self.model.function_of(at))
        if len(bindings) != 1 or not isinstance(bindings[0].value, ast.Call):
            return None
        return bindings[0].value

    def _is_linen_call(self, made: ast.Call) -> bool:
        """``made`` makes a flax linen module instance."""
        if (self.model.resolve_call(made) or "").startswith("flax.linen."):
            return True
        cls = self.model.classes.get(made.func.id) if isinstance(made.func, ast.Name) else None
        return cls is not None and any((self.model.resolve(b, cls) or "").startswith("flax.linen.") for b in cls.bases)


#: haiku's transforms: ``init(rng, ...)`` and ``apply(params, [state,] rng, ...)`` draw from rng
_HAIKU_TRANSFORMS = frozenset({"haiku.transform", "haiku.transform_with_state"})

#: flax NNX's stateful key stream: every key taken from it (``rngs.params()``, ``rngs()``,
#: a module given ``rngs=rngs``) advances its counter, so none is taken twice
_STREAMS = frozenset({"flax.nnx.Rngs", "flax.nnx.rnglib.Rngs"})


def rng_stream(model: Scopes, expr: ast.AST) -> bool:
    """``expr`` holds an ``nnx.Rngs``, not a key: a name bound only to ``nnx.Rngs(...)`` or
    a parameter annotated ``nnx.Rngs`` (``rngs: nnx.Rngs | None``), or a field
    (``params.rngs``, ``self.rngs``) that a class of the module annotates so."""
    if isinstance(expr, ast.Name):
        _, bindings = model.lookup(expr.id, model.function_of(expr))
        return bool(bindings) and all(
            b.kind == "assign" and isinstance(b.value, ast.Call) and model.resolve_call(b.value) in _STREAMS
            or b.kind == "param" and isinstance(b.node, ast.arg) and _stream_annotation(model, b.node.annotation)
            for b in bindings)
    if isinstance(expr, ast.Attribute):
        fields = [s for c in model.classes.values() for s in c.body
                  if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == expr.attr]
        return bool(fields) and all(_stream_annotation(model, f.annotation) for f in fields)
    return False


def _stream_annotation(model: Scopes, ann: ast.expr | None) -> bool:
    """``nnx.Rngs``, ``nnx.Rngs | None``, ``Optional[nnx.Rngs]``, or the same as a string."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return False
        return isinstance(ann, ast.Attribute) and ann.attr == "Rngs" or isinstance(ann, ast.Name) and ann.id == "Rngs"
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        sides = [a for a in (ann.left, ann.right) if not (isinstance(a, ast.Constant) and a.value is None)]
        return len(sides) == 1 and _stream_annotation(model, sides[0])
    if isinstance(ann, ast.Subscript) and (model.resolve(ann.value) or "") == "typing.Optional":
        return _stream_annotation(model, ann.slice)
    return ann is not None and model.resolve(ann) in _STREAMS


def _argument(call: ast.Call, arg: Arg) -> ast.expr | None:
    """The argument ``call`` gives at ``arg`` (a position, or ``None`` for keyword only, and a
    keyword); None when not given (or when ``*args`` / ``**kwargs`` may give it)."""
    position, keyword = arg
    found = next((k.value for k in call.keywords if k.arg == keyword), None)
    if found is None and position is not None and position < len(call.args) \
            and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        found = call.args[position]
    return found


def _may_draw_here(model: Scopes, call: ast.Call, made: ast.Call | None, spec: KeyedDraw) -> bool:
    """A call of ``spec``'s layer (made by ``made``, where known) or function may draw: no
    flag of ``spec.off`` given a true static value at the call (nor, when the call gives none
    of them, where the instance is made), and the rate not a static 0."""
    flags = [static_value(model, v) for v in (_argument(call, a) for a in spec.off) if v is not None]
    if not flags and made is not None:
        flags = [static_value(model, v) for v in (_argument(made, a) for a in spec.made_off) if v is not None]
    if any(f is not UNKNOWN and f for f in flags):
        return False
    at = call if not spec.instance else made
    rate = _argument(at, spec.rate) if at is not None and spec.rate is not None else None
    value = static_value(model, rate) if rate is not None else UNKNOWN
    return value is UNKNOWN or not (type(value) in (int, float) and value == 0)


def _not_none(b: Binding) -> bool:
    """An assignment of a value other than ``None``."""
    return b.kind == "assign" and b.value is not None and not (
        isinstance(b.value, ast.Constant) and b.value.value is None)


#: transforms whose result, called, hands each argument to the function as it is or
#: mapped leaf by leaf: None stays None (an empty pytree), anything else stays not None
_PASSING_NONE = frozenset({"jax.vmap", "jax.jit", "jax.checkpoint", "jax.remat"})


def _fed_by(model: Scopes, fn: FunctionInfo, inner: FunctionInfo, p: Param) -> str | None:
    """The parameter of ``fn`` that every use of its closure ``inner`` passes to ``inner``'s
    parameter ``p``: each use a call ``inner(...)`` or ``jax.vmap(inner, ...)(...)`` in
    ``fn``'s body giving there a parameter of ``fn`` that ``fn`` binds again to values only
    (``masks = resize(masks, ...)``: given a value, it stays one); None when a use is
    anything else (handed on, stored) or the uses disagree."""
    if inner.parent is not fn or isinstance(inner.node, ast.Lambda) or inner.class_name is not None:
        return None
    found: set[str] = set()
    for node in fn.body_nodes():
        if not (isinstance(node, ast.Name) and node.id == inner.name and isinstance(node.ctx, ast.Load)):
            continue
        call = model.parent(node)
        if not isinstance(call, ast.Call):
            return None
        if call.func is not node:
            if not (call.args and call.args[0] is node and model.resolve_call(call) in _PASSING_NONE):
                return None
            call = model.parent(call)
            if not isinstance(call, ast.Call) or call.func is not model.parent(node):
                return None
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        arg = next((k.value for k in call.keywords if k.arg == p.name), None)
        if arg is None and p.index is not None and p.index < len(call.args):
            arg = call.args[p.index]
        outer = fn.param(arg.id) if isinstance(arg, ast.Name) else None
        if outer is None or outer.kind not in ("positional", "keyword") \
                or any(b.kind != "param" and not _not_none(b) for b in fn.bindings.get(outer.name, [])):
            return None
        found.add(outer.name)
    return found.pop() if len(found) == 1 else None


def _unpacked_from_call(b: Binding) -> bool:
    """A name unpacked from what a call returns (``out, masks = paste(...)``): a value, as
    ``x = f()`` is taken to be one."""
    return b.kind == "assign" and isinstance(b.node, ast.Assign) and isinstance(b.node.value, ast.Call) \
        and not any(isinstance(t, ast.Name) and t.id == b.name for t in b.node.targets)


def _is_none_test(test: ast.expr, name: str) -> bool:
    """``name is None``."""
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name \
        and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None


def _receiving(fn: FunctionInfo, call: ast.Call, arg: ast.expr) -> str | None:
    """The parameter of ``fn`` that ``arg`` of ``call`` binds (None when unknown)."""
    for k in call.keywords:
        if k.value is arg:
            return k.arg if fn.param(k.arg or "") is not None else None
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    for i, a in enumerate(call.args):
        if a is arg:
            p = next((p for p in fn.params if p.index == i and p.kind == "positional"), None)
            return p.name if p is not None else None
    return None


#: how many calls deep (across modules too) ``_may_draw`` follows a key
_MAX_FORWARDS = 4


def _may_draw(model: "Scopes | None", fn: FunctionInfo, param: str | None, depth: int, deps: set) -> bool:
    """Whether ``fn`` (read in ``model``) may draw random numbers from the key its
    parameter ``param`` receives: False only when every call the key is handed to is
    seen and none of them may draw (``module.variable(v, key=k)`` that tags ``v`` and
    drops the key: the key is threaded, not spent). A `jax.random` call given it, a
    callee that cannot be read (a function of a module outside the tree, a ``*args`` or
    ``**kwargs`` hand-off), or a chain deeper than ``_MAX_FORWARDS`` may draw: a function
    that takes a key is assumed to draw from it."""
    if model is None or param is None or depth > _MAX_FORWARDS or isinstance(fn.node, ast.Lambda):
        return True
    if fn.param(param) is None or any(b.kind != "param" for b in fn.bindings.get(param, [])):
        return True  # rebound in the body: not followed
    for node in fn.body_nodes():
        if not isinstance(node, ast.Call):
            continue
        given = [a for a in [*node.args, *(k.value for k in node.keywords)] if isinstance(a, ast.Name) and a.id == param]
        if not given and not any(isinstance(a, ast.Name) and a.id == param for a in walk(node)
                                 if a is not node.func and not isinstance(a, ast.Call)):
            continue
        if not given:
            return True  # inside an expression handed on (`split(key)[0]`, `(key, x)`): not followed
        if (model.resolve_call(node) or "").startswith("jax."):
            return True
        target, bound = model.callee(node.func, fn, follow=False)
        theirs = model
        if target is None and model.link is not None:
            found = model.link.function(model, node.func, fn, deps)
            if found is not None:
                theirs, target, bound = found[0].scopes(), found[1], 0
        if target is None or bound:
            return True
        if _may_draw(theirs, target, _receiving(target, node, given[0]), depth + 1, deps):
            return True
    return False


#: the methods that ``next(self)`` and ``self()`` run
_PROTOCOL_METHODS = {"next": "__next__", "builtins.next": "__next__"}


def _advances(model: Scopes, cls: str, method: FunctionInfo, depth: int) -> bool:
    """``method`` of ``cls`` splits a key field of ``self`` and stores a part of it back in
    that field (``self.key, sub = jax.random.split(self.key)``), or calls a method of the
    class that does (``next(self)``, ``self()``, ``self.advance()``; two calls deep)."""
    for node in method.body_nodes():
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Call, ast.Subscript)):
            value = node.value.value if isinstance(node.value, ast.Subscript) else node.value
            if not (isinstance(value, ast.Call) and value.args
                    and model.resolve_call(value) in ("jax.random.split", "jax.random.fold_in")):
                continue
            split = field_path(value.args[0])
            stored = {field_path(n) for t in node.targets for n in walk(t) if isinstance(n, ast.Attribute)}
            if split is not None and split.startswith("self.") and split in stored:
                return True
        elif isinstance(node, ast.Call) and depth < 2:
            func = node.func
            name = None
            if isinstance(func, ast.Name) and func.id == "self":
                name = "__call__"
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                name = func.attr
            elif node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "self" \
                    and isinstance(func, ast.Name):
                name = _PROTOCOL_METHODS.get(model.resolve(func) or func.id)
            called = model.method_named(cls, name) if name else None
            if called is not None and called is not method and _advances(model, cls, called, depth + 1):
                return True
    return False


def draws(fn_name: str) -> bool:
    """A `jax.random` sampler (not `split`): it surely draws from its key."""
    return fn_name.startswith("jax.random.") and fn_name[len("jax.random."):] in SAMPLERS


#: Keywords that pass a PRNG key by convention (jax, flax, equinox, haiku, optax).
_KEY_KEYWORDS = {"key", "rng", "rng_key", "prng_key", "rngs"}


def _imported_function(model: Scopes, func: ast.expr, scope: FunctionInfo | None) -> bool:
    """``func`` names a function of another module (``utils.sample(...)``, an imported
    ``sample(...)``), not jax's, not a local object's method."""
    q = model.resolve(func, func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    if q is None or q.startswith(("jax.", "numpy.", "builtins.", "functools.", "flax.", "equinox.", "optax.")):
        return False
    return model.imported(func, scope)


def assigned_paths(stmts: list[ast.stmt]) -> set[str]:
    """The names and fields (``key_text``'s ``s.key``) the statements assign or delete:
    a key held there is replaced."""
    out: set[str] = set()
    for s in stmts:
        for n in walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
                path = field_path(n)
                if path is not None:
                    out.add(path)
    return out
