"""Python containers in the model (issue 39), beside ``values.python_container``: a value
that is a container display or made by a container builtin (``container_value``, a
``jax.tree`` result included), a parameter that holds one (``*args``, a display default,
an annotation that names no array or number: ``container_param``), the carry of a lax
loop started as one (``container_carry``): their truth value is static. And the mutable
ones (a list, dict or set: ``mutable_container``), which a traced function can fill with
tracers that outlive the trace: names bound only to one, and ``self.<attr>`` set to one
in a class (``container_attribute``).
"""
from __future__ import annotations

import ast

from jaxlint.static.apis import literal_strs
from jaxlint.static.scopes import Binding, FunctionInfo, Param, Scopes


def container_param(model: Scopes, p: Param | None) -> bool:
    return p is not None and (p.kind in ("vararg", "kwarg") or isinstance(p.default, (ast.Tuple, ast.List, ast.Dict))
                              or (p.annotation is not None and not scalar_or_array_annotation(model, p.annotation)))


def scalar_or_array_annotation(model: Scopes, ann: ast.expr) -> bool:
    """An annotation whose values are arrays or numbers (``jax.Array``, ``Float[Array, ...]``,
    ``bool``, ``float``, ``Optional[Array]``): their truth value needs a concrete value.
    Tuples, lists, dicts, pytrees and classes have a static one."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return True
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # `Array | None`
        return scalar_or_array_annotation(model, ann.left) or scalar_or_array_annotation(model, ann.right)
    if isinstance(ann, ast.Subscript) and (model.resolve(ann.value) or "") in ("typing.Optional", "typing.Union"):
        inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        return any(scalar_or_array_annotation(model, a) for a in inner)
    if isinstance(ann, ast.Name) and ann.id in ("bool", "int", "float", "complex"):
        return True
    if model.is_array_annotation(ann):
        return True
    q = model.resolve(ann.value if isinstance(ann, ast.Subscript) else ann) or ""
    return q in ("typing.Any", "numpy.ndarray", "numpy.number", "numpy.floating", "numpy.integer")


#: lax loops: (index of the initial carry among the call's arguments, its keyword,
#: index of the carry among the traced function's parameters)
_LOOP_CARRY = {"scan": (1, "init", 0), "while_loop": (2, "init_val", 0), "fori_loop": (3, "init_val", 1)}


def container_carry(model: Scopes, fn: FunctionInfo, p: Param | None) -> bool:
    """``p`` is the carry of a lax loop body (``scan``, ``while_loop``, ``fori_loop``) whose
    every loop starts it as a container display (``lax.scan(body, {"n": 0}, xs)``): the
    carry keeps its structure, so its truth value is static."""
    loops = [r for r in fn.traced_by if r.kind in _LOOP_CARRY and r.line is not None]
    if not loops or len(loops) != len(fn.traced_by):
        return False
    for r in loops:
        arg_index, keyword, param_index = _LOOP_CARRY[r.kind]
        positional = fn.positional()
        if param_index >= len(positional) or positional[param_index] is not p:
            return False
        calls = [c for c in model.nodes(ast.Call) if c.lineno == r.line
                 and (model.resolve_call(c) or "").rsplit(".", 1)[-1] == r.kind]
        if len(calls) != 1:
            return False
        call = calls[0]
        init = next((k.value for k in call.keywords if k.arg == keyword), None)
        if init is None and len(call.args) > arg_index:
            init = call.args[arg_index]
        if isinstance(init, ast.Name):
            bindings = model.reaching_bindings(init, model.function_of(call))
            if not bindings or not all(container_value(model, b.value) for b in bindings):
                return False
        elif not container_value(model, init):
            return False
    return True


def container_value(model: Scopes, value: ast.AST | None) -> bool:
    if isinstance(value, (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        q = model.resolve_call(value) or ""
        # `jax.tree_map`, `jax.tree_flatten` ...: the older names of the same functions
        return q.startswith(("jax.tree.", "jax.tree_")) or q in ("builtins.list", "builtins.tuple",
                                                                      "builtins.dict", "builtins.set")
    return False


_CONTAINER_CALLS = {"builtins.list", "builtins.dict", "builtins.set", "collections.defaultdict",
                    "collections.deque", "collections.OrderedDict", "collections.Counter"}


def mutable_container(model: Scopes, value: ast.AST | None) -> bool:
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    return isinstance(value, ast.Call) and model.resolve_call(value) in _CONTAINER_CALLS


def mutable_containers_only(model: Scopes, bindings: list[Binding]) -> bool:
    return bool(bindings) and all(b.kind == "assign" and mutable_container(model, b.value) for b in bindings)


def container_attribute(model: Scopes, class_name: str | None, attr: str) -> bool:
    """``self.<attr>`` is set to a list/dict/set somewhere in the class."""
    if class_name is None:
        return False
    for other in model.functions:
        if other.class_name != class_name:
            continue
        for n in other.body_nodes():
            if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None and mutable_container(model, n.value):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                if any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                       and t.value.id == "self" for t in targets):
                    return True
    return False


def dict_entry(model: Scopes, fn: FunctionInfo, expr: ast.Subscript) -> ast.expr | None:
    """The value ``d["k"]`` reads when ``d`` is a local bound (where it is read) only to a
    dict display with that constant key."""
    if not (isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Constant)):
        return None
    reach = model.reaching_bindings(expr.value, fn)
    if len(reach) != 1 or reach[0].kind != "assign" or not isinstance(reach[0].value, ast.Dict):
        return None
    display = reach[0].value
    return next((v for k, v in zip(display.keys, display.values)
                 if isinstance(k, ast.Constant) and k.value == expr.slice.value), None)


#: what a dict's methods change in place: a dict one of them is called on is not read
_DICT_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"})


def _changed_in_place(model: Scopes) -> dict[str, list[ast.AST]]:
    """The names something changes in place anywhere in the module (``d[k] = v``,
    ``del d[k]``, ``d.update(...)``), each with the places that do: a dict bound to one of
    them holds more than its display says. Computed once per module."""
    memo = model.__dict__.get("_changed_in_place")
    if memo is None:
        out: dict[str, list[ast.AST]] = {}
        for sub in model.nodes(ast.Subscript):
            if not isinstance(sub.ctx, ast.Load) and isinstance(sub.value, ast.Name):
                out.setdefault(sub.value.id, []).append(sub)  # an augmented one too: its target
        for attr in model.nodes(ast.Attribute):
            if attr.attr in _DICT_MUTATORS and isinstance(attr.value, ast.Name):
                out.setdefault(attr.value.id, []).append(attr)
        memo = model.__dict__["_changed_in_place"] = out
    return memo


def _entry_stores(model: Scopes, name: str, owner: FunctionInfo | None) -> list[tuple[dict[str, ast.expr], FunctionInfo | None]] | None:
    """What the places that change the dict ``name`` of ``owner`` in place store in it, one
    entry each (``d["k"] = v``: ``{"k": v}``, read where it is stored); the places of other
    variables of the same name do not count. None when one does anything else (``del``,
    ``d[k] += v``, a computed key, ``d.update(...)``)."""
    out: list[tuple[dict[str, ast.expr], FunctionInfo | None]] = []
    for node in _changed_in_place(model).get(name, ()):
        scope = model.function_of(node)
        if model.lookup(name, scope)[0] is not owner:
            continue  # another variable of that name
        parent = model.parent(node)
        key = node.slice if isinstance(node, ast.Subscript) else None
        if not (isinstance(parent, ast.Assign) and parent.targets == [node] and isinstance(key, ast.Constant)
                and isinstance(key.value, str)):
            return None
        out.append(({key.value: parent.value}, scope))
    return out


def _arms(expr: ast.expr) -> list[ast.expr]:
    """The values a conditional expression may give (each arm's, nested ones too)."""
    if isinstance(expr, ast.IfExp):
        return [*_arms(expr.body), *_arms(expr.orelse)]
    return [expr]


def _string_keys(model: Scopes, fn: FunctionInfo | None, it: ast.expr) -> tuple[str, ...] | None:
    """The strings a comprehension over ``it`` yields: a tuple or list display of constant
    strings, or a name bound once (where it is read) to a tuple of them."""
    if isinstance(it, ast.Name):
        _, bindings = model.lookup(it.id, fn)
        if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, ast.Tuple):
            return None
        it = bindings[0].value
    return literal_strs(it) if isinstance(it, (ast.Tuple, ast.List)) else None


def _dict_display(model: Scopes, value: ast.AST, scope: FunctionInfo | None = None) -> dict[str, ast.expr] | None:
    """The entries of ``{"a": x, "b": 1}``, ``dict(a=x, b=1)`` or ``{k: f(k) for k in KEYS}``
    (``KEYS`` a tuple of constant strings: each key's value is the comprehension's, read in
    ``scope``) by key; None for any other value, or a display with a key that is not a
    constant string or with a splat in it."""
    if isinstance(value, ast.DictComp) and len(value.generators) == 1:
        gen = value.generators[0]
        if isinstance(gen.target, ast.Name) and isinstance(value.key, ast.Name) and value.key.id == gen.target.id \
                and not gen.ifs and not gen.is_async:
            keys = _string_keys(model, scope, gen.iter)
            return None if keys is None else {k: value.value for k in keys}
        return None
    if isinstance(value, ast.Dict):
        pairs: list[tuple[str | None, ast.expr]] = []
        for k, v in zip(value.keys, value.values):
            if k is not None and not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                return None  # a computed key
            pairs.append((None if k is None else str(k.value), v))
        return _merged(model, pairs, scope)
    if isinstance(value, ast.Call) and not value.args and model.resolve_call(value) == "builtins.dict":
        return _merged(model, [(k.arg, k.value) for k in value.keywords], scope)
    return None


def _merged(model: Scopes, pairs: list[tuple[str | None, ast.expr]], scope: FunctionInfo | None) -> dict[str, ast.expr] | None:
    """The entries of a display's ``(key, value)`` pairs in order, a pair without a key
    (``**{"b": y}``) giving the entries of the display it splats; None when one is not a
    display."""
    out: dict[str, ast.expr] = {}
    for key, v in pairs:
        if key is not None:
            out[key] = v
            continue
        inner = _dict_display(model, v, scope) if isinstance(v, (ast.Dict, ast.DictComp, ast.Call)) else None
        if inner is None:
            return None  # `**other`: not known
        out.update(inner)
    return out


def splat_entries(model: Scopes, fn: FunctionInfo, expr: ast.expr) -> list[tuple[dict[str, ast.expr], FunctionInfo | None]] | None:
    """What the keyword splat ``f(**expr)`` read in ``fn`` passes, entry by entry: each dict
    display ``expr`` may hold (``dict(a=x, b=1.0)`` bound once to a name, or passed to a
    parameter on every call site, ``callers.Callers.held``), with the scope its values
    are read in. None when one is not known, or when a name on the way is changed in
    place other than by storing a constant key (``kw["b"] = x``: then ``{"b": x}`` is one
    more entry, read where it is stored)."""
    held: list[tuple[ast.expr, FunctionInfo | None]] | None
    out: list[tuple[dict[str, ast.expr], FunctionInfo | None]] = []
    if isinstance(expr, ast.Name):
        owner, bindings = model.lookup(expr.id, fn)
        stored = _entry_stores(model, expr.id, owner)
        if len(bindings) != 1 or owner is None or stored is None:
            return None
        out += stored
        b = bindings[0]
        if b.kind == "assign" and b.value is not None:
            held = [(b.value, owner)]
        elif b.kind == "param":
            from jaxlint.static.callers import Callers
            held = Callers.of(model).held(owner, expr.id)
        else:
            return None
    else:
        held = [(expr, fn)]
    # `**(dict(a=x) if flag else {})`: either arm's entries
    held = [(arm, scope) for value, scope in held or () for arm in _arms(value)]
    for value, scope in held:
        entries = _dict_display(model, value, scope)
        if entries is None:
            return None
        out.append((entries, scope))
        bound = model.parent(value)
        while isinstance(bound, ast.IfExp):
            bound = model.parent(bound)
        for t in bound.targets if isinstance(bound, ast.Assign) else ():
            # `kw = dict(a=1)` and later `kw["b"] = x`: what is stored there too
            stored = _entry_stores(model, t.id, scope) if isinstance(t, ast.Name) else []
            if stored is None:
                return None
            out += stored
    return out if held else None
