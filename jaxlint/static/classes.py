"""The classes of a module as the model knows them (issue 39): which class a call makes,
how its instances hash (object identity, a plain ``@dataclass`` that cannot, a generated
hash of every field), the fields a constructor call fills, named tuples, and where an
attribute of an instance is written again after the object is built. Rules ask these
questions; none of them evaluates a class itself.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.flow import returned_self_field
from jaxlint.static.scopes import FunctionInfo, Scopes
from jaxlint.static.values import class_facts

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.semantic import ModuleModel

#: the statements that assign (to a name or an attribute)
ASSIGNMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign)


#: dataclass() keywords that do not change hashing by themselves.
_DATACLASS_FLAGS = {"frozen", "unsafe_hash", "eq", "repr", "order", "init", "slots", "kw_only", "match_args"}


#: Methods that set up an object before it is first used.
_SETUP_METHODS = {"__init__", "__post_init__", "setup", "__new__", "__setstate__"}


def field_arguments(cls: ast.ClassDef, call: ast.Call) -> list[tuple[str, ast.expr]]:
    """(field, argument) for a call of a dataclass-like class: keywords by name, and
    positional arguments in the order of the annotated fields when the class defines
    no ``__init__`` of its own."""
    out = [(k.arg, k.value) for k in call.keywords if k.arg]
    if defines(cls, "__init__") or any(isinstance(a, ast.Starred) for a in call.args):
        return out
    fields = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
              and not (isinstance(s.annotation, ast.Subscript) and isinstance(s.annotation.value, ast.Name)
                       and s.annotation.value.id == "ClassVar")]
    return out + list(zip(fields, call.args))


def annotation_options(model: Scopes, ann: ast.expr | None) -> list[ast.expr]:
    """The alternatives an annotation allows, None left out (``int | None``, ``Optional[X]``,
    ``Union[A, B]``)."""
    if ann is None:
        return []
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return annotation_options(model, ann.left) + annotation_options(model, ann.right)
    if isinstance(ann, ast.Subscript) and model.resolve(ann.value) in ("typing.Optional", "typing.Union"):
        inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        return [x for i in inner for x in annotation_options(model, i)]
    if isinstance(ann, ast.Constant) and ann.value is None:
        return []
    return [ann]


def namedtuple_fields(model: Scopes, scope: FunctionInfo | None, func: ast.expr) -> list[str] | None:
    """The fields of the class ``func`` names when it is bound once to
    ``collections.namedtuple("P", ["a", "b"])`` (or ``"a b"``, ``"a, b"``) or
    ``typing.NamedTuple("P", [("a", int), ...])``."""
    if not isinstance(func, ast.Name):
        return None
    _, bindings = model.lookup(func.id, scope)
    if len(bindings) != 1 or bindings[0].kind != "assign" or not isinstance(bindings[0].value, ast.Call):
        return None
    made = bindings[0].value
    q = model.resolve_call(made)
    if q not in ("collections.namedtuple", "typing.NamedTuple") or len(made.args) != 2:
        return None
    spec = made.args[1]
    if isinstance(spec, ast.Constant) and isinstance(spec.value, str) and q == "collections.namedtuple":
        return spec.value.replace(",", " ").split()
    if not isinstance(spec, (ast.List, ast.Tuple)):
        return None
    names = [e.value if isinstance(e, ast.Constant) else e.elts[0].value
             if isinstance(e, ast.Tuple) and e.elts and isinstance(e.elts[0], ast.Constant) else None
             for e in spec.elts]
    return [n for n in names if isinstance(n, str)] if all(isinstance(n, str) for n in names) else None


def is_namedtuple(model: Scopes, cls: ast.ClassDef) -> bool:
    """A ``typing.NamedTuple`` class without a ``__hash__`` of its own."""
    return not defines(cls, "__hash__") and any(model.resolve(b) == "typing.NamedTuple" for b in cls.bases)


def module_class(model: Scopes, scope: FunctionInfo | None, func: ast.expr) -> ast.ClassDef | None:
    """The module-level class a call makes (``Config(...)``), when the name is not shadowed."""
    if not isinstance(func, ast.Name) or func.id not in model.classes:
        return None
    owner, bindings = model.lookup(func.id, scope)
    return model.classes[func.id] if owner is None and len(bindings) == 1 and bindings[0].kind == "class" else None


def class_hashing(model: Scopes, cls: ast.ClassDef, depth: int = 0) -> str:
    """"identity" (object's default hash), "unhashable" (plain @dataclass), or "custom"
    (a __hash__/__eq__, a frozen dataclass, an unknown base or decorator)."""
    if depth > 4:
        return "custom"
    for d in cls.decorator_list:
        q = model.resolve(d.func if isinstance(d, ast.Call) else d)
        if q != "dataclasses.dataclass":
            return "custom"
        kw = {k.arg: k.value for k in d.keywords} if isinstance(d, ast.Call) else {}
        flags = {k: v.value for k, v in kw.items() if isinstance(v, ast.Constant)}
        if set(kw) - _DATACLASS_FLAGS or len(flags) != len(kw):
            return "custom"
        if any(flags[k] for k in ("frozen", "unsafe_hash") if k in flags) or ("eq" in flags and not flags["eq"]):
            return "custom"
        if not defines(cls, "__hash__"):
            return "unhashable"
    if defines(cls, "__hash__") or defines(cls, "__eq__") or cls.keywords:
        return "custom"
    for b in cls.bases:
        if isinstance(b, ast.Name) and b.id in model.classes and model.classes[b.id] is not cls:
            if class_hashing(model, model.classes[b.id], depth + 1) != "identity":
                return "custom"
        elif model.resolve(b) != "builtins.object" and not (isinstance(b, ast.Name) and b.id == "object"):
            return "custom"
    return "identity"


def hashes_fields(model: Scopes, cls: ast.ClassDef) -> bool:
    """A ``@dataclass(frozen=True)`` or ``@dataclass(unsafe_hash=True)`` of plain bases,
    without a ``__hash__`` of its own: its generated hash hashes every field."""
    if len(cls.decorator_list) != 1 or defines(cls, "__hash__") or cls.bases or cls.keywords:
        return False
    d = cls.decorator_list[0]
    if not isinstance(d, ast.Call) or model.resolve(d.func) != "dataclasses.dataclass":
        return False
    flags = {k.arg: k.value.value for k in d.keywords if isinstance(k.value, ast.Constant)}
    if len(flags) != len(d.keywords) or flags.get("eq") is False:
        return False
    if any(isinstance(st, ast.AnnAssign) and isinstance(st.value, ast.Call) and any(
            k.arg in ("hash", "compare") for k in st.value.keywords) for st in cls.body):
        return False  # a field left out of the hash
    return bool(flags.get("frozen") or flags.get("unsafe_hash"))


def defines(cls: ast.ClassDef, name: str) -> bool:
    for s in cls.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name:
            return True
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets):
            return True
    return False


def stale_attribute(model: Scopes, cls: ast.ClassDef, traced: FunctionInfo) -> tuple[ast.Attribute, ast.stmt] | None:
    """The first ``self.<attr>`` that ``traced`` (a method of ``cls`` whose ``self`` a
    trace bakes in) reads and that ``later_write`` finds reassigned, with that write."""
    reads = {n.attr: n for n in traced.body_nodes() if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
             and isinstance(n.value, ast.Name) and n.value.id == "self"}
    for attr, read in sorted(reads.items(), key=lambda kv: (kv[1].lineno, kv[1].col_offset)):
        write = later_write(model, cls, traced, attr)
        if write is not None:
            return read, write
    return None


def later_write(model: Scopes, cls: ast.ClassDef, traced: FunctionInfo,
                 attr: str) -> ast.Assign | ast.AugAssign | ast.AnnAssign | None:
    """An assignment to ``self.<attr>`` in a method of ``cls`` other than setup methods,
    or to ``obj.<attr>`` where ``obj = Cls(...)`` in the same scope."""
    for info in model.functions:
        if info is traced:
            continue
        in_class = info.class_name == cls.name and model.parent(info.node) is cls
        for n in info.body_nodes() if not isinstance(info.node, ast.Lambda) else ():
            if not isinstance(n, ASSIGNMENTS):
                continue
            target = assigned_attr(n, attr)
            if target is None:
                continue
            if in_class and target.id == "self" and not setup_only(model, cls, info):
                return n
            if is_instance_of(model, info, target.id, cls.name):
                return n
    for n in model.nodes(*ASSIGNMENTS):
        if not isinstance(n, ASSIGNMENTS):
            continue  # model.nodes gives only these (its type does not say which)
        target = assigned_attr(n, attr)
        if target is not None and model.function_of(n) is None and is_instance_of(model, None, target.id, cls.name):
            return n
    return None


def setup_only(model: Scopes, cls: ast.ClassDef, info: FunctionInfo, depth: int = 0) -> bool:
    """A setup method, or a method the class only calls from setup methods
    (``__init__`` -> ``self._precompute(...)``): it runs while the object is built."""
    if info.name in _SETUP_METHODS:
        return True
    if depth > 4:
        return False
    callers = []
    for other in model.functions:
        if other.class_name != cls.name or model.parent(other.node) is not cls:
            continue
        for n in other.body_nodes() if not isinstance(other.node, ast.Lambda) else ():
            if isinstance(n, ast.Attribute) and n.attr == info.name and isinstance(n.value, ast.Name) \
                    and n.value.id == "self":
                parent = model.parent(n)
                if not (isinstance(parent, ast.Call) and parent.func is n):
                    return False  # handed around (a callback): it may run at any time
                callers.append(other)
    return bool(callers) and all(c is not info and setup_only(model, cls, c, depth + 1) for c in callers)


def assigned_attr(n: ast.AST, attr: str) -> ast.Name | None:
    targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
    for t in targets:
        if isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name):
            return t.value
    return None


def is_instance_of(model: Scopes, scope: FunctionInfo | None, name: str, class_name: str) -> bool:
    _, bindings = model.lookup(name, scope)
    return bool(bindings) and all(
        b.kind == "assign" and isinstance(b.value, ast.Call) and isinstance(b.value.func, ast.Name)
        and b.value.func.id == class_name for b in bindings)


def instance_field(model: Scopes, made: ast.expr, attr: str) -> ast.expr | None:
    """What field ``attr`` of the instance ``made`` (a call of a class of the module)
    holds: the one value its methods assign to ``self.attr``, or, when ``__init__``
    assigns a parameter, the argument this call passes for it."""
    if not (isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and made.func.id in model.classes):
        return None
    cls = made.func.id
    values = [(fn, n.value) for fn in model.functions if fn.class_name == cls for n in fn.body_nodes()
              if isinstance(n, ast.Assign) and any(
                  isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                  and t.value.id == "self" for t in n.targets)]
    if len(values) != 1:
        return None
    fn, value = values[0]
    p = fn.param(value.id) if isinstance(value, ast.Name) and fn.name == "__init__" else None
    if p is not None:
        given = next((k.value for k in made.keywords if k.arg == p.name), None)
        if given is None and p.index is not None and 0 < p.index <= len(made.args) \
                and not any(isinstance(a, ast.Starred) for a in made.args):
            given = made.args[p.index - 1]
        return given
    return value


def method_field(model: Scopes, made: ast.expr, attr: ast.Attribute) -> ast.expr | None:
    """``BANK.lookup()``: what the field a method without arguments returns (every
    ``return self.table``) holds in the instance ``made``."""
    call = model.parent(attr)
    if not (isinstance(call, ast.Call) and call.func is attr and not call.args and not call.keywords
            and isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and made.func.id in model.classes):
        return None
    methods = [fn for fn in model.functions if fn.class_name == made.func.id and fn.name == attr.attr]
    returned = returned_self_field(methods[0]) if len(methods) == 1 else None
    return instance_field(model, made, returned) if returned is not None else None


def class_attr_value(model: Scopes, cls_name: str, attr: str) -> ast.expr | None:
    """What ``attr`` of the module class ``cls_name`` holds when its body binds it once
    (``TABLE = np.ones(...)``) and nothing in the module stores an attribute of that name
    (``Tables.TABLE = ...``, ``self.TABLE = ...``): read through the class or ``self``."""
    cls = model.classes.get(cls_name)
    if cls is None:
        return None
    values = [st.value for st in cls.body
              if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in st.targets)
              or isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == attr]
    if len(values) != 1 or values[0] is None:
        return None
    if any(isinstance(a.ctx, (ast.Store, ast.Del)) and a.attr == attr for a in model.nodes(ast.Attribute)):
        return None
    return values[0]


def method_of(model: Scopes, class_name: str | None, name: str) -> FunctionInfo | None:
    """``name`` defined in the module class ``class_name`` or in one of its module bases."""
    seen: set[str] = set()
    while class_name is not None and class_name not in seen:
        seen.add(class_name)
        found = model.method_named(class_name, name)
        if found is not None:
            return found
        cls = model.classes.get(class_name)
        bases = [b.id for b in cls.bases if isinstance(b, ast.Name) and b.id in model.classes] if cls else []
        class_name = bases[0] if len(bases) == 1 else None
    return None


def inherited_method(model: Scopes, class_name: str | None, name: str) -> bool:
    """``self.name`` is a method inherited from a base class the module does not define:
    the class has a base, and nothing in the module assigns ``self.name = ...``."""
    cls = model.classes.get(class_name or "")
    if cls is None or not any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
        return False
    for n in model.nodes(ast.Attribute):
        if n.attr == name and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) \
                and n.value.id in ("self", "cls"):
            return False
    return not any(isinstance(st, (ast.Assign, ast.AnnAssign)) and name in {
        t.id for t in (st.targets if isinstance(st, ast.Assign) else [st.target]) if isinstance(t, ast.Name)}
        for st in cls.body)


#: Bases whose objects are designed to be mutated, or built, inside traced code.
_STATEFUL_BASES = ("flax.nnx.", "flax.linen.", "equinox.", "haiku.", "flax.struct.")


def built_in_trace(model: "ModuleModel", class_name: str | None) -> bool:
    """Traced code of this module calls the class (``Game(state)``), or a method of such
    a class does (``self.ball = Particle(p)`` in what ``Game.__init__`` runs)."""
    if class_name is None or class_name not in model.classes:
        return False
    built: set[str] | None = model.__dict__.get("_built_in_trace")
    if built is None:
        built = set()
        model.__dict__["_built_in_trace"] = built
        makers = list(model.traced_functions())
        seen: set[int] = set()
        while makers:
            f = makers.pop()
            if id(f) in seen:
                continue
            seen.add(id(f))
            for n in f.body_nodes():
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in model.classes \
                        and n.func.id not in built and model.lookup(n.func.id, f)[0] is None:
                    built.add(n.func.id)
                    # what its methods build is built in the trace too (`__init__` -> `reset`
                    # -> `self.ball = Particle(...)`)
                    makers += [g for g in model.functions if g.class_name == n.func.id]
    return class_name in built


def stateful_class(model: Scopes, class_name: str | None, depth: int = 0) -> bool:
    """The class derives (through this module's classes) from a flax/equinox/haiku base."""
    cls = model.classes.get(class_name or "")
    if cls is None or depth > 8:
        return False
    for base in cls.bases:
        q = model.resolve(base) or ""
        if q.startswith(_STATEFUL_BASES):
            return True
        if isinstance(base, ast.Name) and stateful_class(model, base.id, depth + 1):
            return True
    return False


def leaf_field(model: Scopes, owner: FunctionInfo, param: str, attr: str) -> bool:
    """Whether ``attr`` of parameter ``param`` of ``owner`` is a leaf of its pytree: the
    class its annotation names declares it a leaf, or (unannotated) some pytree class of
    the module declares a field of that name a leaf and none declares it static."""
    facts = class_facts(model)
    p = owner.param(param)
    ann = p.annotation if p is not None else None
    if ann is not None:
        named = ann.id if isinstance(ann, ast.Name) else ann.value if isinstance(ann, ast.Constant) else None
        cls = facts.get(named) if isinstance(named, str) else None
        return cls is not None and cls.pytree is not None and cls.field_kind(attr) == "leaf"
    kinds = {c.field_kind(attr) for c in facts.values() if c.pytree is not None and c.pytree != "linen"}
    return "leaf" in kinds and "static" not in kinds
