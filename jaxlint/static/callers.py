"""What flows into a function's parameters: the value model's bindings from call sites
(issue 19).

A parameter holds what the function's callers pass it. ``Callers`` finds, once per
module, every place a function of the module is named, and for each function tells its
call sites apart from the places where it escapes (returned, stored, handed to a call
the model does not follow as a call of it). ``param_values(fn, name)`` then gives what
parameter ``name`` of ``fn`` holds: the join over the call sites, as expressions each
read in its own scope (``Bound``):

* positional and keyword arguments; ``functools.partial(fn, a, k=v)`` binds ``a`` and
  ``k`` (the parameters it leaves open are passed where the partial is called: unknown);
* the parameter's default where a call omits it;
* a class's ``__init__`` is called by ``Cls(...)`` (``self`` is not passed).

It is ``None`` (unknown) when the function has no call site in the module, when one is
unreadable (``*args``, ``**kwargs``), when a call site is inside the function itself
(recursion), when the function escapes, or when there are too many call sites to be
worth reading (``MAX_SITES``). Callers in other modules are not seen: a module's own
call sites are its callers as far as the model knows.

``qualname(fn, name)`` is the qualified name every bound value resolves to (``xnp=np``,
or ``np`` passed in: ``"numpy"``), which ``Scopes.resolve`` gives for a parameter;
``values(fn, name)`` follows the bound values through names bound once and through
parameters of the callers in turn (a wrapper passing its own parameter on).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.records import dataclass

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.data import FunctionInfo, Model, Param

#: call sites read per function at most (a bound on the cost)
MAX_SITES = 32
#: how many callers deep ``values`` and ``qualname`` follow a parameter passed on
MAX_DEPTH = 3


@dataclass(frozen=True)
class Bound:
    """One value a parameter may hold: ``value`` read in ``scope`` (None: module level)."""

    value: ast.expr
    scope: "FunctionInfo | None"
    #: the call that passes it (None: a default the call leaves in place is read at the def)
    call: ast.Call | None


@dataclass(frozen=True)
class Site:
    """A call of a function: ``call`` in ``caller``; its first ``implicit`` positional
    parameters are not passed by the call's arguments (``self``, partial-bound ones)."""

    call: ast.Call
    caller: "FunctionInfo | None"
    implicit: int
    #: ``functools.partial(fn, ...)``: only the parameters it binds are known
    partial: bool = False


_ESCAPES = None  # sentinel for "the function escapes": its sites are not all known


class Callers:
    """The call sites of the functions of one module (computed once, lazily)."""

    def __init__(self, model: "Model") -> None:
        self.model = model
        self._refs: dict[str, list[ast.expr]] | None = None
        self._sites: dict[int, list[Site] | None] = {}
        self._qualnames: dict[tuple[int, str], str | None] = {}
        self._busy: set[tuple[int, str]] = set()
        #: short names of the functions some call passes an imported name (or an
        #: attribute of one) to: only their parameters can resolve to a qualified name
        self._passes_imports: set[str] | None = None

    @classmethod
    def of(cls, model: "Model") -> "Callers":
        c = model.__dict__.get("_callers")
        if c is None:
            c = model.__dict__["_callers"] = cls(model)
        return c

    def resolving(self) -> bool:
        """Whether a parameter's qualified name is being worked out (``qualname``): a name
        resolved meanwhile may read None where that parameter is asked again (the guard
        against recursion), so its answer holds for this moment only."""
        return bool(self._busy)

    # ------------------------------------------------------------------ references
    def _references(self) -> dict[str, list[ast.expr]]:
        """Every ``Name`` and ``Attribute`` read in the module, by the name it reads."""
        if self._refs is None:
            # only the names of the module's functions and classes are ever asked for
            wanted = {f.name for f in self.model.functions} | set(self.model.classes)
            refs: dict[str, list[ast.expr]] = {}
            Load = ast.Load
            for node in self.model.nodes(ast.Name):
                if node.id in wanted and type(node.ctx) is Load:
                    refs.setdefault(node.id, []).append(node)
            for attr in self.model.nodes(ast.Attribute):
                if attr.attr in wanted and type(attr.ctx) is Load:
                    refs.setdefault(attr.attr, []).append(attr)
            self._refs = refs
        return self._refs

    def sites(self, fn: "FunctionInfo") -> list[Site] | None:
        """Every call of ``fn`` in the module, or None when they are not all known."""
        key = id(fn)
        if key in self._sites:
            return self._sites[key]
        found = self._compute_sites(fn)
        self._sites[key] = found
        return found

    def _compute_sites(self, fn: "FunctionInfo") -> list[Site] | None:
        m = self.model
        node = fn.node
        if isinstance(node, ast.Lambda):
            return None
        is_init = fn.name == "__init__" and fn.class_name is not None
        if fn.name == "__call__" and fn.class_name is not None and not node.decorator_list:
            return self._instance_calls(fn)
        if fn.class_name is not None and not is_init and fn.name.startswith("__"):
            return None  # `__getitem__`: called by syntax, not by name
        if fn.class_name is not None and not is_init and any(
                not (isinstance(d, ast.Name) and d.id == "staticmethod") for d in node.decorator_list):
            return None  # a property, a classmethod, a wrapped method: not called as written
        name = fn.class_name if is_init else fn.name
        if is_init:
            cls_node = m.classes.get(name or "")
            if cls_node is None or m.function_of(cls_node) is not None:
                return None  # a class made inside a function: not followed
            if any(isinstance(b, ast.Name) and b.id == name for c in m.classes.values() for b in c.bases):
                return None  # a subclass calls it through super().__init__
        out: list[Site] = []
        for ref in self._references().get(name or "", ()):
            if len(out) > MAX_SITES:
                return None
            parent = m.parent(ref)
            scope = m.function_of(ref)
            if isinstance(ref, ast.Name):
                if is_init:
                    if m.lookup(ref.id, scope)[0] is not None:
                        continue  # a local of the same name
                    if isinstance(parent, ast.Call) and parent.func is ref:
                        out.append(Site(parent, scope, 1))
                        continue
                    if _type_position(m, ref, parent):
                        continue  # an annotation, isinstance(x, Cls): not a call
                    return _ESCAPES
                if fn.class_name is not None:
                    continue  # a bare name is not a method
                if m.function_named(ref.id, scope) is not fn:
                    continue  # another function of the same name, or a local
                if isinstance(parent, ast.Call) and parent.func is ref:
                    out.append(Site(parent, scope, 0))
                    continue
                if isinstance(parent, ast.Call) and parent.args and parent.args[0] is ref \
                        and m.resolve_call(parent) == "functools.partial":
                    out.append(Site(parent, scope, 0, partial=True))
                    continue
                return _ESCAPES  # returned, stored, passed on: called where the model cannot see
            # an attribute `x.name`: a method call `self.step(...)`, `obj.step(...)`
            if fn.class_name is None or is_init:
                continue  # `mod.f` of another module
            if isinstance(parent, ast.Call) and parent.func is ref:
                callee, implicit = m.callee(ref, scope)
                if callee is fn:
                    out.append(Site(parent, scope, implicit))  # 0 for a staticmethod
                    continue
                if callee is None:
                    return _ESCAPES  # a call of some `.name` the model cannot resolve: maybe this one
                continue
            return _ESCAPES  # `jax.jit(obj.step)`, `cb = self.step`: called elsewhere
        if len(out) > MAX_SITES:
            return None
        return out or None

    def _instance_calls(self, fn: "FunctionInfo") -> list[Site] | None:
        """The calls of ``__call__`` of a module-level class no class of the module derives
        from, when every instance is called where it is made (``Loss(w)(x)``) or bound once
        to a name that is only ever called (``mean = Mean(...)``, then ``mean(c)``); None when
        an instance goes anywhere else (returned, stored, passed on) or the class's own
        methods call ``self(...)``."""
        m = self.model
        cls = fn.class_name or ""
        cls_node = m.classes.get(cls)
        if cls_node is None or m.function_of(cls_node) is not None \
                or any(isinstance(b, ast.Name) and b.id == cls for c in m.classes.values() for b in c.bases):
            return None
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "self"
               for f in m.functions if f.class_name == cls for n in f.body_nodes()):
            return None
        out: list[Site] = []
        for ref in self._references().get(cls, ()):
            scope = m.function_of(ref)
            parent = m.parent(ref)
            if not isinstance(ref, ast.Name) or m.lookup(ref.id, scope)[0] is not None \
                    or _type_position(m, ref, parent):
                continue  # an attribute of another module, a local of the same name, a type
            if not (isinstance(parent, ast.Call) and parent.func is ref):
                return None
            made = m.parent(parent)
            if isinstance(made, ast.Call) and made.func is parent:
                out.append(Site(made, scope, 1))
                continue
            if not (isinstance(made, ast.Assign) and len(made.targets) == 1 and isinstance(made.targets[0], ast.Name)):
                return None
            calls = self._only_called(made.targets[0].id, scope)
            if calls is None:
                return None
            out.extend(Site(c, s, 1) for c, s in calls)
            if len(out) > MAX_SITES:
                return None
        return out or None

    def _only_called(self, name: str, scope: "FunctionInfo | None") -> list[tuple[ast.Call, "FunctionInfo | None"]] | None:
        """The calls of ``name``, bound once in ``scope``, when every read of it (there or in
        a nested function) calls it; None otherwise."""
        m = self.model
        owner, bindings = m.lookup(name, scope)
        if owner is not scope or len(bindings) != 1:
            return None
        out: list[tuple[ast.Call, FunctionInfo | None]] = []
        for node in m.nodes(ast.Name):
            if node.id != name or type(node.ctx) is not ast.Load:
                continue
            where = m.function_of(node)
            if m.lookup(name, where)[0] is not owner:
                continue
            parent = m.parent(node)
            if not (isinstance(parent, ast.Call) and parent.func is node):
                return None
            out.append((parent, where))
        return out

    # ------------------------------------------------------------------ values
    def param_values(self, fn: "FunctionInfo", name: str) -> list[Bound] | None:
        """What parameter ``name`` of ``fn`` is passed at each of its call sites (its
        default where a call omits it), or None when that is not known."""
        p = fn.param(name)
        if p is None or p.kind in ("vararg", "kwarg"):
            return None
        sites = self.sites(fn)
        if sites is None:
            return None
        out: list[Bound] = []
        for site in sites:
            if site.caller is not None and _inside(site.caller, fn):
                return None  # recursion
            arg = _argument(site, fn, p)
            if arg is UNREADABLE:
                return None
            if arg is None:
                if p.default is None:
                    return None  # not passed and no default (an error, or a keyword splat)
                out.append(Bound(p.default, self.model.function_of(p.default), None))
            else:
                out.append(Bound(arg, site.caller, site.call))  # type: ignore[arg-type]
        return out

    def qualname(self, fn: "FunctionInfo", name: str) -> str | None:
        """The qualified name every value bound to parameter ``name`` resolves to (a
        module passed in or given as the default, ``xnp=np``: ``"numpy"``), else None."""
        key = (id(fn), name)
        if key in self._qualnames:
            return self._qualnames[key]
        if key in self._busy or len(self._busy) >= MAX_DEPTH:
            return None
        p = fn.param(name)
        if p is None:
            return None
        if not _names_something(p.default) and fn.name not in self._passing_imports() \
                and fn.class_name not in self._passing_imports():
            self._qualnames[key] = None
            return None
        self._busy.add(key)
        try:
            found: str | None = None
            bound = self.param_values(fn, name)
            for b in bound or ():
                q = self.model.resolve(b.value, b.value) if _names_something(b.value) else None
                if q is None or (found is not None and q != found):
                    found = None
                    break
                found = q
        finally:
            self._busy.discard(key)
        self._qualnames[key] = found
        return found

    def _passing_imports(self) -> set[str]:
        """Short names of the callees of calls that pass an imported name or an attribute
        of one (``to_ndc(o, d, xnp=np)``, ``apply(jnp.sin, x)``, ``partial(f, np)``)."""
        if self._passes_imports is None:
            aliases = self.model.aliases
            out: set[str] = set()
            Name, Attribute = ast.Name, ast.Attribute
            for call in self.model.nodes(ast.Call):
                given = call.args + [k.value for k in call.keywords] if call.keywords else call.args
                for a in given:
                    while type(a) is Attribute:
                        a = a.value  # type: ignore[attr-defined]
                    if type(a) is Name and a.id in aliases:  # type: ignore[attr-defined]
                        break
                else:
                    continue
                for f in (call.func, call.args[0] if call.args else None):
                    if isinstance(f, Name):
                        out.add(f.id)
                    elif isinstance(f, Attribute):
                        out.add(f.attr)
            self._passes_imports = out
        return self._passes_imports

    def values(self, fn: "FunctionInfo", name: str, depth: int = 0) -> list[Bound] | None:
        """``param_values``, with each value that is itself a parameter of its caller
        replaced by what that caller's call sites pass (a wrapper handing its parameter
        on), up to ``MAX_DEPTH`` callers deep; None when any is unknown."""
        bound = self.param_values(fn, name)
        if bound is None or depth >= MAX_DEPTH:
            return bound
        out: list[Bound] = []
        for b in bound:
            v = b.value
            if isinstance(v, ast.Name) and b.scope is not None:
                owner, bindings = self.model.lookup(v.id, b.scope)
                if owner is not None and len(bindings) == 1 and bindings[0].kind == "param":
                    further = self.values(owner, v.id, depth + 1)
                    if further is None:
                        return None
                    out.extend(further)
                    continue
            out.append(b)
        return out

    def held(self, fn: "FunctionInfo", name: str) -> list[tuple[ast.expr, "FunctionInfo | None"]] | None:
        """The expressions parameter ``name`` of ``fn`` holds over its call sites
        (``values``), each with the scope it is read in (None: module level), each name
        among them followed to the one value it is bound to there (``teacher`` for
        ``make_loss(teacher)``: the module's ``{"w": jnp.ones(...)}``); None when any is
        unknown."""
        bound = self.values(fn, name)
        if bound is None:
            return None
        out: list[tuple[ast.expr, FunctionInfo | None]] = []
        for b in bound:
            v: ast.expr = b.value
            scope = b.scope
            for _ in range(4):
                if not isinstance(v, ast.Name):
                    break
                owner, bindings = self.model.lookup(v.id, scope)
                if len(bindings) != 1 or bindings[0].kind != "assign" or bindings[0].value is None:
                    return None
                v, scope = bindings[0].value, owner
            out.append((v, scope))
        return out


#: an argument that cannot be told (a splat), or a parameter a partial leaves open
#: what a call passes for a parameter when it cannot be told (a splat, or a parameter a
#: ``functools.partial`` leaves open, passed where the partial is called)
UNREADABLE = ast.Pass()


def argument_for(call: ast.Call, target: "FunctionInfo", p: "Param", implicit: int,
                 skip: int = 0) -> ast.AST | None:
    """The expression ``call`` passes to parameter ``p`` of ``target`` (None: its default;
    ``UNREADABLE``: it cannot be told, a splat). The first ``implicit`` positional
    parameters are not filled by the call's arguments (``self``); the call's first ``skip``
    arguments are not ``target``'s (``functools.partial(target, ...)`` names it first)."""
    for k in call.keywords:
        if k.arg is None:
            return UNREADABLE
        if k.arg == p.name:
            return k.value
    positional = target.positional()
    for i, a in enumerate(call.args[skip:]):
        if isinstance(a, ast.Starred):
            return UNREADABLE
        j = i + implicit
        if j < len(positional) and positional[j] is p:
            return a
        if j >= len(positional) and p.kind == "vararg":
            return a
    return None


def _argument(site: Site, fn: "FunctionInfo", p: "Param") -> ast.AST | None:
    """What ``site`` passes for ``p`` (None: the default; ``UNREADABLE``: not known)."""
    arg = argument_for(site.call, fn, p, site.implicit, skip=1 if site.partial else 0)
    if arg is None and site.partial:
        return UNREADABLE  # passed where the partial is called
    return arg


def _inside(scope: "FunctionInfo", fn: "FunctionInfo") -> bool:
    s: FunctionInfo | None = scope
    while s is not None:
        if s is fn:
            return True
        s = s.parent
    return False


def _names_something(expr: ast.AST | None) -> bool:
    """A name or a dotted attribute of one (``np``, ``jnp.linalg``)."""
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name)


_TYPE_CALLS = frozenset({"builtins.isinstance", "builtins.issubclass", "builtins.type"})


def _type_position(model: "Model", ref: ast.Name, parent: ast.AST | None) -> bool:
    """``ref`` used as a type (an annotation, ``isinstance(x, Cls)``), not as a value."""
    node: ast.AST | None = ref
    while isinstance(parent, (ast.Tuple, ast.Subscript, ast.BinOp, ast.Attribute)):
        node, parent = parent, model.parent(parent)
    if isinstance(parent, ast.Call):
        return node in parent.args[1:2] and model.resolve_call(parent) in _TYPE_CALLS
    if isinstance(parent, (ast.arg, ast.AnnAssign)):
        return getattr(parent, "annotation", None) is node
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return parent.returns is node
    return False


def param_values(model: "Model", fn: "FunctionInfo", name: str) -> list[Bound] | None:
    """What parameter ``name`` of ``fn`` holds at each of its call sites (``Callers``)."""
    return Callers.of(model).param_values(fn, name)
