"""The libraries' protocols for running user code: which function of the module a
library call runs, and which of its arguments that function receives. A part of the
static model (the tracing fixpoint, ``traced.Tracing``, asks it).

* **flax linen**: ``model.apply(variables, *args, method=..., rngs=..., mutable=...,
  **kwargs)`` runs ``model.__call__`` (or the method named) with ``*args`` and
  ``**kwargs``; ``model.init(rngs, *args, ...)`` and ``init_with_output`` do the same.
  Called in traced code, the method is traced with what it is given; ``jax.jit(model.apply)``
  traces it with every argument. Outside a trace both run eagerly, on concrete values.
* **haiku**: ``net = hk.transform(f)`` makes ``net.init(rng, *args)`` and
  ``net.apply(params, rng, *args)`` run ``f(*args)``; ``hk.transform_with_state`` adds the
  state (``apply(params, state, rng, *args)``); ``hk.without_apply_rng`` drops ``rng`` from
  ``apply``. Like linen: traced in traced code, eager outside it. ``hk.multi_transform(f)``
  (and ``_with_state``): ``f`` returns ``(template, (fn1, fn2))``; ``init`` runs the
  template, ``apply[i]`` (``encode, decode = net.apply``) runs ``fn_i``.

* **flax's TrainState**: ``state.apply_fn(variables, *args)`` runs what the module stores
  with ``apply_fn=model.apply`` (``TrainState.create``): a linen ``apply`` or a haiku
  ``apply``, when every ``apply_fn=`` of the module stores the same one.

* **keras 3 on the jax backend**: ``fit``, ``evaluate``, ``predict`` (and the ``*_on_batch``
  forms) compile the model's step with ``jax.jit``, so ``call`` of a ``keras.Model`` or
  ``keras.layers.Layer`` subclass runs on tracers (its first argument, the inputs; keras
  passes ``training`` and ``mask`` as Python values). Known only where the module shows it
  runs on jax: it imports keras itself (not ``tf.keras``) and imports jax, sets
  ``KERAS_BACKEND`` to ``"jax"``, or uses ``keras.ops`` (keras 3's backend API, whose
  steps every backend but torch compiles); ``keras_traced_calls``.

Only instances the model can name are followed: a name bound once to ``C(...)`` of a linen
class of the module (or ``self.x`` always set to one), ``C(...).apply(...)`` itself, and a
name bound once to ``hk.transform(f)`` with ``f`` a function of the module.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.values import class_facts

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.scopes import FunctionInfo, Scopes

#: linen ``Module`` methods that run one of its methods: how many positional arguments
#: come before the method's own, and the keywords that are theirs (not the method's)
LINEN_RUNNERS: dict[str, tuple[int, frozenset[str]]] = {
    "apply": (1, frozenset({"method", "rngs", "mutable", "capture_intermediates"})),
    "init": (1, frozenset({"method", "mutable", "capture_intermediates"})),
    "init_with_output": (1, frozenset({"method", "mutable", "capture_intermediates"})),
}
#: haiku transforms: (positional arguments before ``f``'s own in ``init``, in ``apply``)
HAIKU_TRANSFORMS: dict[str, tuple[int, int]] = {
    "haiku.transform": (1, 2),
    "haiku.transform_with_state": (1, 3),
}
#: haiku's multi-transforms: ``f`` returns ``(template, fns)``; ``init(rng, *args)`` runs the
#: template, ``apply`` is a tuple of functions, one per element of ``fns``:
#: ``apply[i](params, [state,] [rng,] *args)`` runs ``fns[i](*args)`` (dm-haiku 0.0.17)
HAIKU_MULTI: dict[str, tuple[int, int]] = {
    "haiku.multi_transform": (1, 2),
    "haiku.multi_transform_with_state": (1, 3),
}
#: haiku wrappers that drop ``rng`` from ``apply``
HAIKU_WITHOUT_RNG = frozenset({"haiku.without_apply_rng"})
#: flax's ``TrainState`` keeps the apply function in this field: ``state.apply_fn(v, x)``
#: runs what ``TrainState.create(apply_fn=model.apply, ...)`` stored (any keyword of that
#: name in the module counts, so a subclass's ``create`` and ``replace`` do too)
STORED_RUNNER = "apply_fn"


def runner_target(scopes: "Scopes", func: ast.expr, scope: "FunctionInfo | None") \
        -> tuple["FunctionInfo", int, frozenset[str]] | None:
    """For ``func`` an attribute that runs a function of the module by a library's
    protocol (``model.apply``, ``net.init``): that function, how many leading positional
    arguments the runner takes for itself, and the keywords that are the runner's. The
    function's own parameters are then filled as by an ordinary call of it (a method's
    ``self`` is the instance)."""
    if not isinstance(func, ast.Attribute):
        return _multi_apply(scopes, func, scope)
    linen = LINEN_RUNNERS.get(func.attr)
    if linen is not None:
        cls = _linen_class(scopes, func.value, scope)
        if cls is not None:
            method = _method(scopes, cls, "__call__")
            return (method, linen[0], linen[1]) if method is not None else None
    if func.attr in ("init", "apply"):
        made = _haiku_transformed(scopes, func.value, scope)
        if made is not None:
            fn, init_lead, apply_lead = made
            return fn, init_lead if func.attr == "init" else apply_lead, frozenset()
    if func.attr == "init":
        multi = _haiku_transformed(scopes, func.value, scope, HAIKU_MULTI)
        if multi is not None:
            parts = _multi_parts(scopes, multi[0])
            if parts is not None and parts[0] is not None:
                return parts[0], multi[1], frozenset()
    if func.attr == STORED_RUNNER:
        stored = _stored_runners(scopes)
        if stored and all(s == stored[0] for s in stored[1:]):
            return stored[0]
    return None


def _stored_runners(scopes: "Scopes") -> list[tuple["FunctionInfo", int, frozenset[str]]]:
    """What every ``apply_fn=X.apply`` of the module (``TrainState.create(apply_fn=model.apply,
    ...)``, ``state.replace(apply_fn=...)``) stores, when ``X.apply`` is a runner the
    model can follow; computed once per module."""
    cached = scopes.__dict__.get("_stored_runners")
    if cached is not None:
        return cached
    out: list[tuple["FunctionInfo", int, frozenset[str]]] = []
    for call in scopes.nodes(ast.Call):
        for k in call.keywords:
            if k.arg == STORED_RUNNER:
                value = k.value
                found = runner_target(scopes, value, scopes.function_of(call)) \
                    if isinstance(value, ast.Attribute) and value.attr == "apply" else None
                if found is None:
                    scopes.__dict__["_stored_runners"] = []
                    return []  # another function stored there (or one not followed): not known
                out.append(found)
    scopes.__dict__["_stored_runners"] = out
    return out


def runner_call(scopes: "Scopes", call: ast.Call, scope: "FunctionInfo | None") \
        -> tuple["FunctionInfo", dict[str, ast.expr]] | None:
    """``call`` runs a function of the module by a library's protocol (``model.apply(v, x)``,
    ``net.apply(params, rng, x)``): that function, and the argument each of its parameters
    receives (parameters left to their defaults, and ``self``, are not in it). None when
    ``call`` is no such call, or its arguments cannot be read (a splat)."""
    found = runner_target(scopes, call.func, scope)
    if found is None:
        return None
    fn, lead, own = found
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    method_kw = next((k.value for k in call.keywords if k.arg == "method"), None)
    if method_kw is not None:
        named = _method_argument(scopes, fn, method_kw)
        if named is None:
            return None
        fn = named
    params = [p for p in fn.positional() if not (p.index == 0 and fn.class_name and p.name in ("self", "cls"))]
    passed: dict[str, ast.expr] = {}
    for p, a in zip(params, call.args[lead:]):
        passed[p.name] = a
    for k in call.keywords:
        if k.arg and k.arg not in own and fn.param(k.arg) is not None:
            passed[k.arg] = k.value
    return fn, passed


def _method_argument(scopes: "Scopes", fn: "FunctionInfo", node: ast.expr) -> "FunctionInfo | None":
    """linen's ``method=``: a name (``"encode"``) or an attribute (``Model.encode``,
    ``model.encode``) of the module's class."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        name = node.value
    elif isinstance(node, ast.Attribute):
        name = node.attr
    else:
        return None
    return _method(scopes, fn.class_name, name)


def _linen_class(scopes: "Scopes", expr: ast.expr, scope: "FunctionInfo | None") -> str | None:
    """The linen module class of the module that ``expr`` is an instance of."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in scopes.classes:
        cls: str | None = expr.func.id  # `Model(4).apply(...)`
    else:
        cls = scopes.instance_class(expr, scope)
    return cls if cls is not None and _library_of(scopes, cls) == "linen" else None


def _library_of(scopes: "Scopes", cls: str, depth: int = 0) -> str | None:
    """Which library's module class ``cls`` is, through base classes of the module."""
    facts = class_facts(scopes).get(cls)
    if facts is None or depth > 4:
        return None
    if facts.pytree is not None:
        return facts.pytree
    for base in scopes.classes[cls].bases:
        if isinstance(base, ast.Name) and base.id in scopes.classes:
            found = _library_of(scopes, base.id, depth + 1)
            if found is not None:
                return found
    return None


def _method(scopes: "Scopes", cls: str | None, name: str, depth: int = 0) -> "FunctionInfo | None":
    """Method ``name`` of class ``cls``, or of one of its base classes in the module."""
    if cls is None or depth > 4:
        return None
    found = scopes.method_named(cls, name)
    if found is not None or cls not in scopes.classes:
        return found
    for base in scopes.classes[cls].bases:
        if isinstance(base, ast.Name) and base.id in scopes.classes:
            found = _method(scopes, base.id, name, depth + 1)
            if found is not None:
                return found
    return None


def _multi_apply(scopes: "Scopes", func: ast.expr, scope: "FunctionInfo | None") \
        -> tuple["FunctionInfo", int, frozenset[str]] | None:
    """``func`` is one of a haiku multi-transform's apply functions: ``net.apply[1]``, or a
    name unpacked once from ``net.apply`` (``encode, decode = net.apply``)."""
    index: int | None = None
    if isinstance(func, ast.Name):
        _, bindings = scopes.lookup(func.id, scope)
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].node, ast.Assign):
            return None
        assign = bindings[0].node
        if len(assign.targets) != 1 or not isinstance(assign.targets[0], (ast.Tuple, ast.List)):
            return None
        names = [e.id if isinstance(e, ast.Name) else None for e in assign.targets[0].elts]
        if func.id not in names or any(isinstance(e, ast.Starred) for e in assign.targets[0].elts):
            return None
        index, func = names.index(func.id), assign.value
        scope = scopes.function_of(assign)
    elif isinstance(func, ast.Subscript) and isinstance(func.slice, ast.Constant) and type(func.slice.value) is int:
        index, func = func.slice.value, func.value
    if index is None or not (isinstance(func, ast.Attribute) and func.attr == "apply"):
        return None
    multi = _haiku_transformed(scopes, func.value, scope, HAIKU_MULTI)
    parts = _multi_parts(scopes, multi[0]) if multi is not None else None
    if multi is None or parts is None or not -len(parts[1]) <= index < len(parts[1]):
        return None
    fn = parts[1][index]
    return (fn, multi[2], frozenset()) if fn is not None else None


def _multi_parts(scopes: "Scopes", f: "FunctionInfo") \
        -> tuple["FunctionInfo | None", list["FunctionInfo | None"]] | None:
    """What a multi-transformed ``f`` returns, as functions of the module: its one
    ``return template, (fn, ...)`` (nested defs, lambdas, module instances, whose
    ``__call__`` runs)."""
    if isinstance(f.node, ast.Lambda):
        return None
    returns = [n for n in f.body_nodes() if isinstance(n, ast.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Tuple) or len(returns[0].value.elts) != 2:
        return None
    template, fns = returns[0].value.elts
    elts = fns.elts if isinstance(fns, (ast.Tuple, ast.List)) else [fns]

    def resolved(e: ast.expr) -> "FunctionInfo | None":
        fn, implicit = scopes.callee(e, f)
        if fn is None or implicit > (1 if fn.class_name else 0):
            return None  # not a function of the module, or one with arguments bound
        return fn

    return resolved(template), [resolved(e) for e in elts]


def _haiku_transformed(scopes: "Scopes", expr: ast.expr, scope: "FunctionInfo | None",
                       transforms: dict[str, tuple[int, int]] = HAIKU_TRANSFORMS) \
        -> tuple["FunctionInfo", int, int] | None:
    """``expr`` is ``hk.transform(f)`` (possibly wrapped in ``hk.without_apply_rng``), or a
    name bound once to one: ``f`` and the leading positional arguments of ``init`` and
    ``apply``."""
    if isinstance(expr, ast.Name):
        _, bindings = scopes.lookup(expr.id, scope)
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, ast.Call):
            return None
        expr = bindings[0].value
    drop = 0
    for _ in range(3):
        if not (isinstance(expr, ast.Call) and expr.args):
            return None
        q = scopes.resolve_call(expr)
        if q in HAIKU_WITHOUT_RNG:
            drop = 1
            expr = expr.args[0]
            continue
        if q in transforms:
            fn, bound = scopes.unwrap_target(expr.args[0], expr)
            if fn is None or bound:
                return None
            init_lead, apply_lead = transforms[q]
            return fn, init_lead, apply_lead - drop
        return None
    return None


#: keras 3's base classes whose ``call`` the model's compiled steps run (keras 3.x, and the
#: keras_core preview); ``tf.keras`` resolves to ``tensorflow.keras.*`` and is not one
KERAS_BASES = frozenset({
    "keras.Model", "keras.models.Model", "keras.Layer", "keras.layers.Layer",
    "keras_core.Model", "keras_core.models.Model", "keras_core.Layer", "keras_core.layers.Layer",
})
_KERAS_MODULES = ("keras", "keras_core")


def keras_traced_calls(scopes: "Scopes") -> list[tuple["FunctionInfo", int]]:
    """The ``call`` methods of the module's keras model and layer classes, each with the line
    of its class, when the module runs keras on jax (see the module's docstring); computed
    once per module."""
    cached = scopes.__dict__.get("_keras_traced_calls")
    if cached is not None:
        return cached
    out: list[tuple["FunctionInfo", int]] = []
    if _keras_on_jax(scopes):
        for name, cls in scopes.classes.items():
            if _keras_class(scopes, name, 0):
                method = scopes.method_named(name, "call")
                if method is not None and not isinstance(method.node, ast.Lambda):
                    out.append((method, cls.lineno))
    scopes.__dict__["_keras_traced_calls"] = out
    return out


def _keras_class(scopes: "Scopes", name: str, depth: int) -> bool:
    if depth > 4 or name not in scopes.classes:
        return False
    for base in scopes.classes[name].bases:
        if scopes.resolve(base) in KERAS_BASES:
            return True
        if isinstance(base, ast.Name) and base.id in scopes.classes and _keras_class(scopes, base.id, depth + 1):
            return True
    return False


def _keras_on_jax(scopes: "Scopes") -> bool:
    """The module imports keras (3) itself, and shows it runs it on jax: it imports jax, sets
    ``KERAS_BACKEND`` to ``"jax"``, or uses ``keras.ops``."""
    modules: set[str] = set()
    for imported in scopes.nodes(ast.Import):
        modules |= {a.name for a in imported.names}
    for frm in scopes.nodes(ast.ImportFrom):
        if frm.module and not frm.level:
            modules |= {frm.module} | {f"{frm.module}.{a.name}" for a in frm.names}
    tops = {m.split(".")[0] for m in modules}
    if not tops & set(_KERAS_MODULES):
        return False
    if "jax" in tops or any(m.split(".")[:2] in ([k, "ops"] for k in _KERAS_MODULES) for m in modules):
        return True
    if any(node.attr == "ops" and scopes.resolve(node.value) in _KERAS_MODULES for node in scopes.nodes(ast.Attribute)):
        return True  # `keras.ops.sum(x)`
    for const in scopes.nodes(ast.Constant):
        if const.value == "KERAS_BACKEND":
            parent = scopes.parent(const)
            around = scopes.parent(parent) if isinstance(parent, ast.Subscript) else parent
            value = around.value if isinstance(around, ast.Assign) else (
                around.args[1] if isinstance(around, ast.Call) and len(around.args) == 2 else None)
            if isinstance(value, ast.Constant) and value.value == "jax":
                return True
    return False
