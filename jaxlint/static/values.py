"""The static phase's model of values: what kind of thing an expression evaluates to.

The first parts of one value model (issue 19). ``Scopes`` (``scopes``) knows names
and scopes, ``Tracing`` (``traced``) which functions are traced; ``Taint`` (``taint``)
says how sure a value in traced code is a tracer. This module adds what neither knew:

* **Kinds of value.** ``Kind`` names them: a host array, a traced array, a static
  Python value (numbers, strings, what ``.shape``, ``.ndim``, ``.dtype``, ``.size``
  and ``len()`` give), a container (dict, list, tuple), a PRNG key, an instance of a
  project class, a callable, and ``UNKNOWN``, which is never traced.
* **Fields.** ``ClassFacts`` says, for each class of the module, whether it is a
  pytree and which of its fields are static metadata and which are leaves, as the
  libraries declare them: ``dataclasses.field(metadata=dict(static=True))`` (or
  ``metadata={"pytree_node": False}``, which penzai's and flax's decorators read),
  ``flax.struct.field(pytree_node=False)``, ``eqx.field(static=True)``,
  ``jax.tree_util.register_dataclass(meta_fields=...)``, nnx attributes that are not
  Variables, modules or arrays, and linen module attributes (hyperparameters).
* **Function summaries.** ``Summaries.returns`` says what a function or method of the
  module returns whatever it is passed, ``self`` included: ``STATIC`` when every
  ``return`` gives a static value (``len(self.items)``, ``x.shape[0] * 2``, a static
  field, a constant), ``TRACED`` when one gives an array computed from its inputs,
  ``UNKNOWN`` otherwise. Each summary is computed once; recursion and calls the model
  cannot see into give ``UNKNOWN``.

Imports of other files of the checked tree are followed (``tree``): a call of a
function imported from one gets that module's summary (``Summaries.callee_returns``),
and a class imported from one declares its static fields (``static_field``). Each
summary keeps the modules it read, and the checked file's ``Link`` records them: the
static cache keeps a file's entry only while they are unchanged.

What is not here yet (see the issue): the values of names flowing through
assignments are still ``Taint``'s. Methods of classes imported from other modules of
the tree are read by name (``method_returns``), as the module's own are.
"""
from __future__ import annotations

import ast
import enum
import re
from collections import Counter
from dataclasses import field
from typing import TYPE_CHECKING, Callable

from jaxlint.records import dataclass
from jaxlint.static.apis import STATIC_JAX_FUNCS
from jaxlint.static.pyvalues import dtype_annotation
from jaxlint.textutil import LazyPattern

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from jaxlint.static.scopes import Binding, FunctionInfo, Scopes
    from jaxlint.static.tree import Dep


class Kind(str, enum.Enum):
    HOST_ARRAY = "host array"
    TRACED = "traced array"
    STATIC = "static value"
    CONTAINER = "container"
    KEY = "PRNG key"
    INSTANCE = "instance"
    CALLABLE = "callable"
    UNKNOWN = "unknown"


#: Attributes of an array whose values are static under tracing.
SHAPE_ATTRS = frozenset({"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "sharding", "weak_type", "aval"})
#: Methods of ``jax.Array``: on a traced array, their results are traced (``item`` and
#: the conversions are the findings of the rules, not values).
ARRAY_METHODS = frozenset({
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "choose", "clip", "compress",
    "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot", "flatten", "max", "mean", "min",
    "nonzero", "prod", "ptp", "ravel", "repeat", "reshape", "round", "searchsorted", "sort", "squeeze", "std",
    "sum", "swapaxes", "take", "trace", "transpose", "var", "view", "block_until_ready", "addressable_data",
    "to_device", "__getitem__", "__array__", "__jax_array__", "get", "set", "add", "multiply", "divide", "power",
    "apply", "min", "max", "at",
})
#: Methods of dicts and lists: on a traced container their results hold its leaves.
CONTAINER_METHODS = frozenset({"get", "items", "values", "keys", "pop", "copy", "setdefault"})
#: Builtins whose result is a static Python value whatever they are given.
STATIC_BUILTINS = frozenset({"len", "isinstance", "type", "hasattr", "id", "callable", "str", "repr", "format"})

#: Class decorators and bases that make a class a pytree (or a module whose attributes
#: are static), by qualified name, with the library's name for it.
_PYTREE_DECORATORS = {
    "flax.struct.dataclass": "flax.struct",
    "chex.dataclass": "chex",
    "jax.tree_util.register_dataclass": "register_dataclass",
    "jax.tree_util.register_pytree_node_class": "registered",
    "jax.tree_util.register_pytree_with_keys_class": "registered",
    "jax.tree_util.register_static": "static",
    "dataclasses.dataclass": "dataclass",
}
_PYTREE_BASES = {
    "flax.struct.PyTreeNode": "flax.struct",
    "equinox.Module": "equinox",
    "flax.nnx.Module": "nnx",
    "flax.nnx.Object": "nnx",
    "flax.linen.Module": "linen",
    "typing.NamedTuple": "namedtuple",
}
#: Calls that declare a field, with the keyword and value that make it static.
_FIELD_CALLS = {
    "flax.struct.field": ("pytree_node", False),
    "equinox.field": ("static", True),
    "equinox.static_field": (None, True),
    "dataclasses.field": ("metadata", True),
    "chex.field": ("metadata", True),
}
#: nnx calls whose result is a leaf (a Variable, a submodule of arrays) of an nnx module.
_NNX_LEAF_PREFIXES = ("flax.nnx.", "jax.numpy.", "jax.random.", "numpy.")


@dataclass
class ClassFacts:
    """What the model knows of one class of the module."""

    name: str
    #: which library makes it a pytree or module ("flax.struct", "equinox", "nnx",
    #: "linen", "namedtuple", "dataclass", "registered", ...), or None
    pytree: str | None = None
    static_fields: set[str] = field(default_factory=set)
    leaf_fields: set[str] = field(default_factory=set)
    #: of ``leaf_fields``, those annotated as arrays (``a: jax.Array``): leaves that equinox's
    #: filtered transforms trace (they keep a leaf annotated ``int`` static)
    array_fields: set[str] = field(default_factory=set)
    #: fields annotated as a Python container (``ids: tuple[int, ...] | None``,
    #: ``Sequence[int]``, ``dict[str, Array]``): a pytree keeps the container around its
    #: leaves under a trace, so the field's truth value and ``len`` are its structure
    container_fields: set[str] = field(default_factory=set)

    def field_kind(self, name: str) -> str | None:
        """"static", "leaf" or None (the class declares no such field)."""
        if name in self.static_fields:
            return "static"
        if name in self.leaf_fields:
            return "leaf"
        return None


def _is_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _metadata_static(node: ast.AST | None) -> bool:
    """``dict(static=True)`` or ``{"static": True}`` (jax's ``register_dataclass``, chex),
    or ``{"pytree_node": False}`` (what ``flax.struct.field`` writes, and penzai's
    ``pytree_dataclass`` and flax's struct read)."""
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and _static_entry(k.value, v) for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return any(_static_entry(k.arg, k.value) for k in node.keywords)
    return False


def _static_entry(key: object, value: ast.AST | None) -> bool:
    if key == "static":
        return _is_true(value)
    return key == "pytree_node" and isinstance(value, ast.Constant) and value.value is False


def _declared_static(model: "Scopes", value: ast.AST | None) -> bool | None:
    """Whether a field's default declares it static (True), a leaf (False), or says
    nothing (None: not a field call)."""
    if not isinstance(value, ast.Call):
        return None
    q = model.resolve_call(value)
    spec = _FIELD_CALLS.get(q or "")
    if spec is None:
        return None
    key, static_value = spec
    if key is None:
        return True
    for k in value.keywords:
        if k.arg == key:
            if key == "metadata":
                return _metadata_static(k.value)
            return isinstance(k.value, ast.Constant) and k.value.value is static_value
    return False


def _static_marker(model: "Scopes", ann: ast.expr | None) -> bool:
    """``Annotated[T, M, ...]`` with a metadata ``M`` that names a static marker: a
    constant or class whose name says static (torax's ``Annotated[bool,
    torax_pydantic.JAX_STATIC]``, read by its pydantic base's ``tree_flatten`` into the
    static aux data; a ``Static`` marker class)."""
    if not (isinstance(ann, ast.Subscript) and isinstance(ann.slice, ast.Tuple) and len(ann.slice.elts) > 1):
        return False
    if (model.resolve(ann.value) or "") not in ("typing.Annotated", "typing_extensions.Annotated"):
        return False
    for meta in ann.slice.elts[1:]:
        if isinstance(meta, ast.Call):
            meta = meta.func
        last = meta.attr if isinstance(meta, ast.Attribute) else meta.id if isinstance(meta, ast.Name) else ""
        if re.fullmatch(r"(?i)(jax_|pytree_)?static(_field|_marker)?", last):
            return True
    return False


#: annotations of Python containers (what a subscript of them, ``tuple[int, ...]``, names too)
_CONTAINER_TYPES = frozenset({
    "builtins.tuple", "builtins.list", "builtins.dict", "builtins.set", "builtins.frozenset",
    "typing.Tuple", "typing.List", "typing.Dict", "typing.Set", "typing.FrozenSet", "typing.Sequence",
    "typing.MutableSequence", "typing.Mapping", "typing.MutableMapping", "typing.Collection",
    "collections.abc.Sequence", "collections.abc.MutableSequence", "collections.abc.Mapping",
    "collections.abc.MutableMapping", "collections.abc.Collection", "collections.abc.Set",
})


def container_annotation(model: "Scopes", ann: ast.expr | None, depth: int = 0) -> bool:
    """``ann`` allows only Python containers, and perhaps None: ``tuple[int, ...] | None``,
    ``Optional[Sequence[int]]``, ``Annotated[list[str], ...]``, ``Dict[str, Array]``.
    Whatever their elements are (arrays, tracers), the truth value of such a value is
    its structure. A string annotation is read as the expression it holds."""
    if ann is None or depth > 8:
        return False
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        try:
            ann = ast.parse(ann.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):  # `tuple[int, ...] | None`
        options = [o for o in (ann.left, ann.right) if not _is_none(o)]
        return bool(options) and all(container_annotation(model, o, depth + 1) for o in options)
    head = model.resolve(ann.value if isinstance(ann, ast.Subscript) else ann) or ""
    if isinstance(ann, ast.Subscript):
        inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if head in ("typing.Optional", "typing.Union"):
            options = [o for o in inner if not _is_none(o)]
            return bool(options) and all(container_annotation(model, o, depth + 1) for o in options)
        if head in ("typing.Annotated", "typing_extensions.Annotated"):
            return container_annotation(model, inner[0], depth + 1)
    return head in _CONTAINER_TYPES


def _is_none(ann: ast.expr) -> bool:
    return isinstance(ann, ast.Constant) and ann.value is None


def _strs(node: ast.AST | None) -> set[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def class_facts(model: "Scopes") -> dict[str, ClassFacts]:
    """Facts of every module-level class (computed once per module)."""
    cached = model.__dict__.get("_class_facts")
    if cached is not None:
        return cached
    out: dict[str, ClassFacts] = {}
    for name, cls in model.classes.items():
        out[name] = _facts_of(model, cls)
    # `register_dataclass(C, data_fields=[...], meta_fields=[...])` called at module level
    for call in model.nodes(ast.Call):
        if model.resolve_call(call) == "jax.tree_util.register_dataclass" and call.args \
                and isinstance(call.args[0], ast.Name) and call.args[0].id in out:
            facts = out[call.args[0].id]
            facts.pytree = "register_dataclass"
            for k in call.keywords:
                if k.arg == "meta_fields":
                    facts.static_fields |= _strs(k.value)
                    facts.leaf_fields -= _strs(k.value)
                elif k.arg == "data_fields":
                    facts.leaf_fields |= _strs(k.value)
    for call in model.nodes(ast.Call):
        _registered_node(model, call, out)
        if model.resolve_call(call) == "jax.tree_util.register_static" and call.args \
                and isinstance(call.args[0], ast.Name) and call.args[0].id in out \
                and out[call.args[0].id].pytree in (None, "dataclass"):
            out[call.args[0].id] = _facts_of(model, model.classes[call.args[0].id], "static")
    model.__dict__["_class_facts"] = out
    return out


def _facts_of(model: "Scopes", cls: ast.ClassDef, pytree: str | None = None) -> ClassFacts:
    facts = ClassFacts(cls.name, pytree)
    for dec in cls.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        q = model.resolve(target)
        if q == "functools.partial" and isinstance(dec, ast.Call) and dec.args:
            q = model.resolve(dec.args[0])
            for k in dec.keywords:
                if k.arg == "meta_fields":
                    facts.static_fields |= _strs(k.value)
        if q in _PYTREE_DECORATORS:
            facts.pytree = facts.pytree or _PYTREE_DECORATORS[q]
            if q == "jax.tree_util.register_static" and facts.pytree == "dataclass":
                facts.pytree = "static"  # `@register_static` with `@dataclass` under or over it
    for base in cls.bases:
        q = model.resolve(base)
        if q in _PYTREE_BASES:
            facts.pytree = _PYTREE_BASES[q]
    annotated = [s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    for s in annotated:
        name = s.target.id  # type: ignore[union-attr]
        if container_annotation(model, s.annotation):
            facts.container_fields.add(name)
        if name in facts.static_fields:
            continue
        declared = _declared_static(model, s.value)
        if declared is None and _static_marker(model, s.annotation):
            # `Annotated[bool, JAX_STATIC]`: the class's own flattening keeps it in the aux data
            declared = True
            facts.pytree = facts.pytree or "annotated"
        if declared is True and facts.pytree is None:
            # `dataclasses.field(metadata={"pytree_node": False})` under a library's own
            # decorator (penzai's `pytree_dataclass`): a pytree whose flattening reads it
            facts.pytree = "declared"
        if declared is True or facts.pytree in ("linen", "static"):
            # linen: module attributes are hyperparameters; `register_static`: a pytree with
            # no leaves, the whole object is its treedef's aux data
            facts.static_fields.add(name)
        elif facts.pytree == "nnx":
            continue  # nnx declares by value, in __init__
        elif facts.pytree == "registered":
            continue  # its own tree_flatten decides what is a leaf, not its annotations
            # (jax's BCOO annotates `shape`, and flattens it into the aux data)
        else:
            facts.leaf_fields.add(name)
            if model.is_array_annotation(s.annotation):
                facts.array_fields.add(name)
    if facts.pytree == "nnx":
        _nnx_attributes(model, cls, facts)
    elif facts.pytree == "registered":
        _flatten_aux(model, cls, facts)
    return facts


def _nnx_attributes(model: "Scopes", cls: ast.ClassDef, facts: ClassFacts) -> None:
    """An nnx module's attributes set in ``__init__``: Variables, submodules and arrays
    are its state (leaves); anything else (a number, a string, a flag) is static."""
    for stmt in cls.body:
        if not (isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__"):
            continue
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            t = node.targets[0]
            if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
                continue
            v = node.value
            if isinstance(v, ast.Constant) or (isinstance(v, ast.Name) and v.id in _param_names(stmt)
                                               and _annotated_static(model, stmt, v.id)):
                if t.attr not in facts.leaf_fields:
                    facts.static_fields.add(t.attr)
                continue
            if isinstance(v, ast.Call):
                q = model.resolve_call(v) or ""
                if q.startswith(_NNX_LEAF_PREFIXES) or (isinstance(v.func, ast.Name) and v.func.id in model.classes):
                    facts.leaf_fields.add(t.attr)
                    facts.static_fields.discard(t.attr)


def _param_names(fn: ast.FunctionDef) -> set[str]:
    return {a.arg for a in fn.args.args + fn.args.kwonlyargs}


def _annotated_static(model: "Scopes", fn: ast.FunctionDef, name: str) -> bool:
    """A parameter annotated ``int``, ``float``, ``bool`` or ``str``."""
    for a in fn.args.args + fn.args.kwonlyargs:
        if a.arg == name:
            return isinstance(a.annotation, ast.Name) and a.annotation.id in ("int", "float", "bool", "str")
    return False


#: module-level calls that register a class as a pytree node with its own flattening:
#: qualified name -> position of the flatten function among the arguments
_REGISTER_NODE = {
    "jax.tree_util.register_pytree_node": 1,
    "jax.tree_util.register_pytree_with_keys": 3,
}


def _registered_node(model: "Scopes", call: ast.Call, out: dict[str, ClassFacts]) -> None:
    """``register_pytree_node(C, flatten, unflatten)`` at module level, with ``C`` a class
    of the module and ``flatten`` its method (``C._tree_flatten``, or a lambda that calls it:
    ``lambda obj: obj._tree_flatten()``) or a function of the module: what ``flatten`` puts
    in the aux data is static (``_flatten_aux``)."""
    at = _REGISTER_NODE.get(model.resolve_call(call) or "")
    if at is None or not call.args or not isinstance(call.args[0], ast.Name) or call.args[0].id not in out:
        return
    cls = model.classes[call.args[0].id]
    flatten = call.args[at] if len(call.args) > at else next(
        (k.value for k in call.keywords if k.arg in ("flatten_func", "flatten_with_keys")), None)
    if at == 3 and flatten is None:
        flatten = call.args[1] if len(call.args) > 1 else None  # with keys: `(key, leaf)` pairs, the same aux
    fn: ast.FunctionDef | None = None
    if isinstance(flatten, ast.Attribute) and isinstance(flatten.value, ast.Name) and flatten.value.id == cls.name:
        fn = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == flatten.attr), None)
    elif isinstance(flatten, ast.Name):
        fn = next((s for s in model.tree.body if isinstance(s, ast.FunctionDef) and s.name == flatten.id), None)
    elif isinstance(flatten, ast.Lambda):
        fn = _delegated_method(cls, flatten)
    if fn is None:
        return
    facts = out[cls.name]
    if facts.pytree != "registered":  # its own flattening decides what is a leaf, not its annotations
        facts.pytree = "registered"
        facts.leaf_fields, facts.array_fields = set(), set()
    _flatten_aux(model, cls, facts, fn)


def _delegated_method(cls: ast.ClassDef, fn: ast.Lambda) -> ast.FunctionDef | None:
    """The method of ``cls`` a one-parameter lambda hands its work to: ``lambda o:
    o._tree_flatten()`` or ``lambda o: C._tree_flatten(o)``."""
    body = fn.body
    if len(fn.args.args) != 1 or not isinstance(body, ast.Call) or not isinstance(body.func, ast.Attribute) \
            or not isinstance(body.func.value, ast.Name) or body.keywords:
        return None
    me, receiver = fn.args.args[0].arg, body.func.value.id
    if not ((receiver == me and not body.args) or (
            receiver == cls.name and len(body.args) == 1 and isinstance(body.args[0], ast.Name)
            and body.args[0].id == me)):
        return None
    return next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == body.func.attr), None)


def _flatten_aux(model: "Scopes", cls: ast.ClassDef, facts: ClassFacts,
                 flatten: ast.FunctionDef | None = None) -> None:
    """``tree_flatten`` returning ``(children, aux)``: the ``self.x`` in ``aux`` are static
    (also through a local name, ``aux = {"shape": self.shape}; return children, aux``), and
    so is a field the class sets to a ``len(...)`` (``self.num = len(self.offsets)``): a
    Python int whatever it counts."""
    funcs = [flatten] if flatten is not None else [
        s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "tree_flatten"]
    for stmt in funcs:
        me = stmt.args.args[0].arg if stmt.args.args else "self"
        local = {n.targets[0].id: n.value for n in ast.walk(stmt) if isinstance(n, ast.Assign)
                 and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
        for node in ast.walk(stmt):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
                children, aux = (local.get(e.id, e) if isinstance(e, ast.Name) else e for e in node.value.elts)
                facts.leaf_fields |= _self_attrs_in(children, me)
                facts.static_fields |= _self_attrs_in(aux, me) - facts.leaf_fields
    if not funcs:
        return
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                and node.value.func.id == "len" and model.resolve(node.value.func) == "builtins.len":
            facts.static_fields |= {t.attr for t in node.targets if isinstance(t, ast.Attribute)} - facts.leaf_fields


def _self_attrs_in(node: ast.AST, me: str = "self") -> set[str]:
    return {n.attr for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me}


def static_field_names(model: "Scopes") -> frozenset[str]:
    """Field names that some pytree class of the module declares static and none declares
    a leaf: ``x.name`` with ``x`` any traced pytree of the module reads static metadata."""
    return _field_names(model)[0]


def _field_names(model: "Scopes") -> tuple[frozenset[str], frozenset[str]]:
    """(fields only declared static, fields some pytree class declares a leaf)."""
    cached = model.__dict__.get("_field_names")
    if cached is None:
        static: set[str] = set()
        leaves: set[str] = set()
        for facts in class_facts(model).values():
            if facts.pytree is None:
                continue
            static |= facts.static_fields
            leaves |= facts.leaf_fields
        cached = model.__dict__["_field_names"] = (frozenset(static - leaves), frozenset(leaves))
    return cached


#: What the text of a module that declares a static field contains (the declarations
#: ``_facts_of`` reads): modules without it are not parsed for their classes.
_DECLARES_STATIC = LazyPattern(rb"static|STATIC|Static|pytree_node|meta_fields|linen|nn\.Module|nnx|tree_flatten|register_pytree")


def static_field(model: "Scopes", name: str) -> bool:
    """Whether ``x.name``, with ``x`` a traced pytree, reads static metadata: a pytree
    class of the module declares the field static (``static_field_names``), or one
    imported from another module of the tree does (``from .types import State``), and
    no class of either declares it a leaf."""
    static, leaves = _field_names(model)
    if name in static:
        return True
    if name in leaves or model.link is None:
        return False
    memo: dict[str, tuple[bool, frozenset[Dep]]] = model.__dict__.setdefault("_imported_static", {})
    known = memo.get(name)
    if known is None:
        deps: set[Dep] = set()
        kinds = set()
        word = re.compile(rb"\b%s\b" % name.encode())

        def mentions(text: bytes) -> bool:  # a module that may declare the field static
            return word.search(text) is not None and _DECLARES_STATIC().search(text) is not None

        for local, bindings in model.module_bindings.items():
            if len(bindings) != 1 or not isinstance(bindings[0].node, ast.ImportFrom):
                continue
            found = model.link.class_(model, local, deps, mentions)
            if found is None:
                continue
            theirs, cls = found
            facts = class_facts(theirs).get(cls)
            if facts is not None and facts.pytree is not None:
                kinds.add(facts.field_kind(name))
        known = memo[name] = ("static" in kinds and "leaf" not in kinds, frozenset(deps))
    model.link.use(known[1])
    return known[0]


@dataclass(frozen=True)
class ImportedConstant:
    """A module-level value of another module of the tree, as a module that imports it
    sees it: ``value`` is read in ``model`` (that module's, for its own constants and
    calls), ``path`` is its file and ``start`` / ``end`` its 1-based (line, column)
    positions there, columns counted in code points. ``read``: the expression of the
    importing module that names it (``data.TABLE`` of ``data.TABLE.T``)."""

    read: ast.expr
    model: "Scopes"
    value: ast.expr
    path: "Path"
    start: tuple[int, int]
    end: tuple[int, int]


def imported_constant(model: "Scopes", expr: ast.expr, scope: "FunctionInfo | None",
                      mentions: "Callable[[bytes], bool] | None" = None) -> ImportedConstant | None:
    """What ``expr`` read in ``scope`` of ``model`` is when it names a module-level
    constant of another module of the tree through an import: ``TABLE`` after ``from
    .data import TABLE``, ``data.TABLE`` after ``from . import data`` or ``import
    pkg.data as data``, also re-exported by a package's ``__init__``. The other module
    binds the name once, by a plain assignment (``Link.constant``). Of a dotted read the
    longest prefix that names one counts (``data.TABLE`` of ``data.TABLE.T``). The
    module read is recorded as a dependency of the checked file's findings.
    ``mentions``: what the text assigned must match for the module to be parsed (a
    rule that wants arrays asks for a NumPy or jax call: most modules are then not read)."""
    link = model.link
    if link is None:
        return None
    found = None
    deps: set[Dep] = set()
    read: ast.expr = expr
    while isinstance(read, (ast.Name, ast.Attribute)):  # `pkg.data.TABLE.T`, `pkg.data.TABLE`, ...
        found = link.constant(model, read, scope, deps, mentions)
        if found is not None or not isinstance(read, ast.Attribute):
            break
        read = read.value
    link.use(deps)
    if found is None:
        return None
    mod, theirs, value = found
    lines = mod.data.splitlines()

    def column(line: int, byte_col: int) -> int:
        text = lines[line - 1] if 0 < line <= len(lines) else b""
        return len(text[:byte_col].decode("utf-8", "replace")) + 1

    end_line = value.end_lineno or value.lineno
    return ImportedConstant(read, theirs, value, mod.path, (value.lineno, column(value.lineno, value.col_offset)),
                            (end_line, column(end_line, value.end_col_offset or value.col_offset)))


#: statements after which the next one surely runs (when none of them raises)
_STRAIGHT = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Pass, ast.Assert)


@dataclass(frozen=True)
class HostCall:
    """A call of a NumPy function (``q``, qualified) that a function makes on one of its
    parameters as passed, in its own module (``model``), at ``line`` there."""

    q: str
    line: int
    model: "Scopes"


def host_params(model: "Scopes", fn: "FunctionInfo") -> dict[str, HostCall]:
    """The parameters of ``fn`` that every call of it hands, as they are, to a NumPy
    function (``np.asarray(x)``, ``np.sum(x, 0)``): an argument of a ``numpy.*`` call in
    a statement of ``fn``'s own body that surely runs (a plain statement, with only plain
    statements before it: no branch, loop, ``try`` or ``with`` around or ahead of it,
    outside any conditional expression, ``and`` / ``or``, lambda or comprehension), and
    never rebound. A caller whose argument for such a parameter is traced has NumPy
    applied to a tracer. Methods and generators have none. Computed once per function."""
    memo: dict[int, dict[str, HostCall]] = model.__dict__.setdefault("_host_params", {})
    known = memo.get(id(fn))
    if known is not None:
        return known
    out: dict[str, HostCall] = {}
    node = fn.node
    params = {p.name for p in fn.params if len(fn.bindings.get(p.name, ())) == 1}
    if fn.class_name is None and not isinstance(node, ast.Lambda) and params:
        for stmt in node.body:
            if not isinstance(stmt, _STRAIGHT):
                break
            stack: list[ast.AST] = [stmt]
            while stack:
                sub = stack.pop()
                if isinstance(sub, (ast.IfExp, ast.BoolOp, ast.Lambda, ast.comprehension, ast.Yield, ast.YieldFrom,
                                    ast.Await, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                    continue
                if isinstance(sub, ast.Call):
                    q = model.resolve_call(sub) or ""
                    if q.startswith("numpy."):
                        for arg in [*sub.args, *(k.value for k in sub.keywords if k.arg is not None)]:
                            if isinstance(arg, ast.Name) and arg.id in params and arg.id not in out:
                                out[arg.id] = HostCall(q, sub.lineno, model)
                stack.extend(ast.iter_child_nodes(sub))
            if isinstance(stmt, ast.Return):
                break
        if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in fn.body_nodes()):
            out = {}
    memo[id(fn)] = out
    return out


def imported_host_params(model: "Scopes", call: ast.Call,
                         scope: "FunctionInfo | None") -> "tuple[FunctionInfo, Path, dict[str, HostCall]] | None":
    """For a call of a function of another module of the tree (through imports, as
    ``Summaries.callee_returns`` finds it): that function, its file and its
    ``host_params``. None for anything else, or when it has none. The module read is a
    dependency of the checked file's findings."""
    link = model.link
    if link is None or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    deps: set[Dep] = set()
    found = link.function(model, call.func, scope, deps)
    link.use(deps)
    if found is None:
        return None
    mod, fn = found
    theirs = mod.scopes()
    if theirs is None:
        return None
    params = host_params(theirs, fn)
    return (fn, mod.path, params) if params else None


def _held_params(fn: "FunctionInfo", expr: ast.AST | None, depth: int) -> Counter[str]:
    """Parameters of ``fn`` that ``expr`` holds as they are (itself, or leaves of a tuple,
    list or dict display, also through a local name bound once to one), each with how
    many places hold it (``{"y": y, "resid": y}``: ``y`` twice)."""
    if expr is None or depth > 4:
        return Counter()
    if isinstance(expr, ast.Name):
        bindings = fn.bindings.get(expr.id, [])
        if fn.param(expr.id) is not None:
            return Counter([expr.id]) if all(b.kind == "param" for b in bindings) else Counter()
        if len(bindings) == 1 and bindings[0].kind == "assign":
            return _held_params(fn, bindings[0].value, depth + 1)
        return Counter()
    out: Counter[str] = Counter()
    if isinstance(expr, (ast.Tuple, ast.List)):
        for e in expr.elts:
            out += _held_params(fn, e.value if isinstance(e, ast.Starred) else e, depth + 1)
    elif isinstance(expr, ast.Dict):
        for v in expr.values:
            out += _held_params(fn, v, depth + 1)
    return out


def arithmetic_operands(expr: ast.AST) -> list[ast.expr] | None:
    """The operands of an arithmetic operator (``a * b``, ``-a``; not ``not a``), whose
    result a tracer among them makes a tracer; None for anything else."""
    if isinstance(expr, ast.BinOp):
        return [expr.left, expr.right]
    if isinstance(expr, ast.UnaryOp) and not isinstance(expr.op, ast.Not):
        return [expr.operand]
    return None


def _computed_from(fn: "FunctionInfo", expr: ast.AST | None, depth: int) -> set[str] | None:
    """The parameters of ``fn`` that ``expr`` computes its value from by arithmetic,
    indexing, array attributes and methods and jax.numpy calls alone, as a tracer would
    flow (``v * 2``, ``x[0] - 1``, ``a.sum() + b``); None when it is anything else."""
    if expr is None or depth > 6:
        return None
    if isinstance(expr, ast.Constant):
        return set()
    if isinstance(expr, ast.Name):
        bindings = fn.bindings.get(expr.id, [])
        if fn.param(expr.id) is not None:
            return {expr.id} if all(b.kind == "param" for b in bindings) else None
        if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None:
            return _computed_from(fn, bindings[0].value, depth + 1)
        return None
    operands = arithmetic_operands(expr)
    if operands is not None:
        found = [_computed_from(fn, o, depth + 1) for o in operands]
        return None if any(f is None for f in found) else set().union(*found)  # type: ignore[arg-type]
    if isinstance(expr, ast.Subscript):
        base, index = _computed_from(fn, expr.value, depth + 1), _computed_from(fn, expr.slice, depth + 1)
        return None if base is None else base | (index or set())
    if isinstance(expr, ast.Slice):
        parts = [_computed_from(fn, p, depth + 1) for p in (expr.lower, expr.upper, expr.step) if p is not None]
        return None if any(p is None for p in parts) else set().union(*parts)  # type: ignore[arg-type]
    if isinstance(expr, ast.Attribute) and expr.attr in ("T", "mT", "real", "imag"):
        return _computed_from(fn, expr.value, depth + 1)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ARRAY_METHODS \
            and not expr.keywords and all(isinstance(a, ast.Constant) for a in expr.args):
        return _computed_from(fn, expr.func.value, depth + 1)  # `v.sum()`, `v.reshape(-1)`
    return None


#: the functions that map a function over the leaves of pytrees
TREE_MAPS = frozenset({"jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map"})


def _jax_function_kind(q: str) -> Kind | None:
    """What a function of jax's array namespaces returns: STATIC for the shape and dtype
    queries (``jnp.shape``, ``jnp.result_type``), TRACED for the rest; None for others."""
    last = q.rsplit(".", 1)[-1]
    if q.startswith(("numpy.", "jax.dtypes.")) and last in STATIC_JAX_FUNCS:
        return Kind.STATIC  # `np.result_type(x)`, `np.dtype(name)`: a dtype
    if not q.startswith(("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.")):
        return None
    return Kind.STATIC if last in STATIC_JAX_FUNCS else Kind.TRACED


def _property(fn: "FunctionInfo") -> bool:
    """``fn`` is decorated ``@property`` (or ``@functools.cached_property``)."""
    return any((isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
               or (isinstance(d, ast.Attribute) and d.attr == "cached_property")
               for d in getattr(fn.node, "decorator_list", ()))


class Summaries:
    """What functions and methods of one module return, whatever they are passed."""

    #: how many nested summaries one question may ask for (a bound on the cost)
    MAX_DEPTH = 6

    def __init__(self, model: "Scopes") -> None:
        self.model = model
        self._returns: dict[int, Kind] = {}
        self._busy: set[int] = set()
        #: the modules of the tree (``tree.Dep``) each summary read, by function id
        self._deps: dict[int, frozenset[Dep]] = {}
        #: the modules read by each summary being computed (innermost last)
        self._reading: list[set[Dep]] = []
        #: functions summarised TRACED with another kind of return too
        self._mixed: set[int] = set()

    @classmethod
    def of(cls, model: "Scopes") -> "Summaries":
        s = model.__dict__.get("_summaries")
        if s is None:
            s = model.__dict__["_summaries"] = cls(model)
        return s

    def returns(self, fn: "FunctionInfo", depth: int = 0) -> Kind:
        """``STATIC``, ``TRACED`` or ``UNKNOWN``: what ``fn`` returns."""
        key = id(fn)
        known = self._returns.get(key)
        if known is not None:
            self._read(self._deps.get(key, frozenset()))
            return known
        if key in self._busy or depth > self.MAX_DEPTH:
            return Kind.UNKNOWN  # recursion, or too deep to be worth it
        self._busy.add(key)
        self._reading.append(set())
        try:
            kind = self._compute(fn, depth)
        finally:
            self._busy.discard(key)
            deps = frozenset(self._reading.pop())
        self._returns[key] = kind
        if deps:
            self._deps[key] = deps
            self._read(deps)
        return kind

    def _read(self, deps: "set[Dep] | frozenset[Dep]") -> None:
        """Other modules of the tree that the answer being given depends on: the
        summary being computed keeps them, the checked file's ``Link`` records them."""
        if not deps:
            return
        if self._reading:
            self._reading[-1] |= deps
        elif self.model.link is not None:
            self.model.link.use(deps)

    def callee_returns(self, func: ast.expr, scope: "FunctionInfo | None", depth: int = 0) -> Kind:
        """What the function ``func`` refers to returns (``func(...)``): a function of
        this module, or through imports one of another module of the tree (``UNKNOWN``
        when it is neither)."""
        callee, _ = self.model.callee(func, scope)
        if callee is not None:
            return self.returns(callee, depth)
        known = _jax_function_kind(self.model.resolve(func) or "")
        if known is not None:
            return known  # `jax.tree.map(jnp.shape, t)`: a tree of shapes
        link = self.model.link
        if link is None or not isinstance(func, (ast.Name, ast.Attribute)):
            return Kind.UNKNOWN
        deps: set[Dep] = set()
        found = link.function(self.model, func, scope, deps)
        if found is not None:
            mod, other = found
            theirs = Summaries.of(mod.scopes())  # type: ignore[arg-type]
            kind = theirs.returns(other, depth)
            deps |= theirs._deps.get(id(other), frozenset())
            if id(other) in theirs._mixed:
                # a tracer on one path only (numpyro's `while_loop`: `lax.while_loop(...)`,
                # or the value itself when control flow is off): from another module,
                # whose callers' context is not seen here, that is not known
                kind = Kind.UNKNOWN
        else:
            kind = Kind.UNKNOWN
        self._read(deps)
        return kind

    def computed_from(self, fn: "FunctionInfo") -> frozenset[str] | None:
        """The parameters ``fn``'s result is computed from by arithmetic, indexing and
        array methods alone, on every path (``return v * 2``: ``{"v"}``): the result is as
        traced as the arguments given to them, and static when they are. None when a
        return is anything else (or there is none, or the function yields)."""
        memo: dict[int, frozenset[str] | None] = self.__dict__.setdefault("_computed", {})
        if id(fn) in memo:
            return memo[id(fn)]
        node = fn.node
        values: list[ast.expr | None]
        if isinstance(node, ast.Lambda):
            values = [node.body]
        elif any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in fn.body_nodes()):
            values = []
        else:
            values = [n.value for n in fn.body_nodes() if isinstance(n, ast.Return)]
        out: set[str] | None = set() if values else None
        for v in values:
            # a path that returns a constant (`return None`) is static while another is not
            found = None if v is None or isinstance(v, ast.Constant) else _computed_from(fn, v, 0)
            if found is None or out is None:
                out = None
                break
            out |= found
        memo[id(fn)] = frozenset(out) if out is not None else None
        return memo[id(fn)]

    def computed_from_expr(self, fn: "FunctionInfo", expr: ast.AST) -> frozenset[str] | None:
        """The parameters of ``fn`` that ``expr`` (read in ``fn``) is computed from, as
        ``computed_from`` says of a return (a constant: none)."""
        found = _computed_from(fn, expr, 0)
        return frozenset(found) if found is not None else None

    def aliased_params(self, fn: "FunctionInfo") -> frozenset[str]:
        """The parameters whose value ``fn``'s result holds as it is: returned, or a leaf
        of a returned tuple, list or dict display (``return {"z": params, "count": 0}``).
        The caller's argument and the result then share those buffers. Empty when a
        return is anything else too (a parameter may be rebound: only parameters never
        rebound in the body count)."""
        return frozenset(self.aliased_counts(fn))

    def aliased_counts(self, fn: "FunctionInfo") -> dict[str, int]:
        """``aliased_params`` with how many places of the result hold each, the most over
        the returns (``return {"y": y, "resid": y}``: ``{"y": 2}``): a result holding one
        argument twice holds one buffer twice."""
        memo: dict[int, dict[str, int]] = self.__dict__.setdefault("_aliased", {})
        known = memo.get(id(fn))
        if known is not None:
            return known
        node = fn.node
        values: list[ast.expr | None]
        if isinstance(node, ast.Lambda):
            values = [node.body]
        else:
            values = [n.value for n in fn.body_nodes() if isinstance(n, ast.Return)]
        out: Counter[str] = Counter()
        for v in values:
            out |= _held_params(fn, v, 0)  # the most over the returns
        memo[id(fn)] = dict(out)
        return memo[id(fn)]

    def method_returns(self, name: str, depth: int = 0) -> Kind:
        """What a method of that name returns, over every class of the module that
        defines one and every class it imports from another module of the tree
        (``UNKNOWN`` when none does or they disagree)."""
        kinds = {kind for kind, _ in self._methods(name, depth)}
        return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN

    def static_property(self, name: str) -> bool:
        """``obj.name`` reads a Python value whatever ``obj`` is: every class of the module
        (and every class it imports from the tree) that defines ``name`` defines it as a
        property whose body reads Python values only (``return isinstance(self.param,
        str)``, ``return False``), and none declares a field of that name. Such a property
        is not traced even on an object taken from traced code (horqrux's
        ``gate.is_parametric``, blind48)."""
        memo: dict[str, bool] = self.__dict__.setdefault("_static_properties", {})
        known = memo.get(name)
        if known is None:
            found = self._methods(name, 0)
            known = memo[name] = bool(found) and all(kind is Kind.STATIC and prop for kind, prop in found) \
                and not any(isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == name
                            for c in self.model.classes.values() for s in c.body)
        return known

    def _methods(self, name: str, depth: int) -> set[tuple[Kind, bool]]:
        """(what it returns, whether it is a property) of each method called ``name``."""
        found = {(self.returns(fn, depth), _property(fn)) for fn in self.model.functions
                 if fn.class_name is not None and fn.name == name and not isinstance(fn.node, ast.Lambda)}
        return found | self._imported_method_returns(name, depth)

    def _imported_method_returns(self, name: str, depth: int) -> set[tuple[Kind, bool]]:
        """What the methods called ``name`` of the classes this module imports from other
        modules of the tree return, and whether each is a property (each module is parsed
        only when its text names the method; computed once per name)."""
        link = self.model.link
        if link is None:
            return set()
        memo: dict[str, tuple[frozenset[tuple[Kind, bool]], frozenset[Dep]]] = \
            self.__dict__.setdefault("_imported_methods", {})
        known = memo.get(name)
        if known is None:
            deps: set[Dep] = set()
            kinds: set[tuple[Kind, bool]] = set()
            word = re.compile(rb"\bdef\s+%s\b" % re.escape(name).encode())

            def mentions(text: bytes) -> bool:
                return word.search(text) is not None

            for local, bindings in self.model.module_bindings.items():
                if len(bindings) != 1 or not isinstance(bindings[0].node, ast.ImportFrom) or not local[:1].isupper():
                    continue  # classes only (by convention, capitalised)
                found = link.class_(self.model, local, deps, mentions)
                if found is None:
                    continue
                theirs, cls = found
                summaries = Summaries.of(theirs)
                for fn in theirs.functions:
                    if fn.class_name == cls and fn.name == name and not isinstance(fn.node, ast.Lambda):
                        kind = summaries.returns(fn, depth + 1)
                        deps |= summaries._deps.get(id(fn), frozenset())
                        kinds.add((Kind.UNKNOWN if id(fn) in summaries._mixed else kind, _property(fn)))
            known = memo[name] = (frozenset(kinds), frozenset(deps))
        self._read(known[1])
        return set(known[0])

    def _compute(self, fn: "FunctionInfo", depth: int) -> Kind:
        node = fn.node
        if isinstance(node, ast.Lambda):
            values: list[ast.expr | None] = [node.body]
        else:
            if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in fn.body_nodes()):
                return Kind.UNKNOWN
            if dtype_annotation(self.model, node.returns):
                return Kind.STATIC  # `def real_dtype(x) -> np.dtype`: a dtype is a Python object
            values = [n.value for n in fn.body_nodes() if isinstance(n, ast.Return)]
            if not values:
                return Kind.STATIC  # returns None
        kinds = {self.kind(v, fn, depth) if v is not None else Kind.STATIC for v in values}
        if kinds == {Kind.STATIC}:
            return Kind.STATIC
        if Kind.TRACED in kinds:
            if len(kinds) > 1:
                self._mixed.add(id(fn))
            return Kind.TRACED
        return Kind.UNKNOWN

    def kind(self, expr: ast.AST, fn: "FunctionInfo", depth: int) -> Kind:
        """What ``expr`` (read in ``fn``, every parameter possibly a traced array)
        evaluates to: ``STATIC``, ``TRACED`` (an array from jax.numpy, or arithmetic
        on the parameters) or ``UNKNOWN``."""
        m = self.model
        if isinstance(expr, ast.Constant):
            return Kind.STATIC
        if isinstance(expr, ast.Attribute):
            if expr.attr in SHAPE_ATTRS:
                return Kind.STATIC
            if isinstance(expr.value, ast.Name) and expr.value.id == "self" and fn.class_name is not None:
                facts = class_facts(m).get(fn.class_name)
                if facts is not None and facts.field_kind(expr.attr) == "static":
                    return Kind.STATIC
            return Kind.UNKNOWN
        if isinstance(expr, ast.Subscript):
            base = self.kind(expr.value, fn, depth)
            return Kind.STATIC if base is Kind.STATIC else (Kind.TRACED if base is Kind.TRACED else Kind.UNKNOWN)
        if isinstance(expr, (ast.BinOp, ast.BoolOp, ast.Compare, ast.UnaryOp, ast.IfExp, ast.Tuple, ast.List)):
            if isinstance(expr, ast.Compare) and any(isinstance(o, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                                                     for o in expr.ops):
                return Kind.STATIC
            if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
                return Kind.STATIC
            parts = [c for c in ast.iter_child_nodes(expr) if isinstance(c, ast.expr)]
            kinds = {self.kind(p, fn, depth) for p in parts}
            if kinds <= {Kind.STATIC}:
                return Kind.STATIC
            if Kind.TRACED in kinds and not isinstance(expr, (ast.Tuple, ast.List)):
                return Kind.TRACED
            return Kind.UNKNOWN
        if isinstance(expr, ast.Name):
            p = fn.param(expr.id)
            if p is not None:
                return Kind.UNKNOWN  # what the caller passes
            bindings = fn.bindings.get(expr.id)
            if bindings and len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None:
                return self.kind(bindings[0].value, fn, depth)
            return Kind.UNKNOWN
        if isinstance(expr, ast.Call):
            q = m.resolve_call(expr) or ""
            if q.startswith("builtins.") and q[len("builtins."):] in STATIC_BUILTINS:
                return Kind.STATIC
            if q in TREE_MAPS and expr.args:
                # every leaf becomes what the mapped function returns: a tree of shapes
                # (`jax.tree.map(lambda x: x.shape, xs)`) is static, a tree of jnp results traced
                return self.callee_returns(expr.args[0], fn, depth + 1)
            known = _jax_function_kind(q)
            if known is not None:
                return known
            if isinstance(expr.func, ast.Attribute) and isinstance(expr.func.value, ast.Name) \
                    and expr.func.value.id == "self" and m.callee(expr.func, fn)[0] is None:
                return self.method_returns(expr.func.attr, depth + 1)
            return self.callee_returns(expr.func, fn, depth + 1)
        return Kind.UNKNOWN


#: jax tree functions whose result is a Python list of the leaves (``tree_leaves``), and
#: those whose result is a tuple ``(leaves list, treedef)`` (``tree_flatten``).
TREE_LISTS = frozenset({
    "jax.tree_util.tree_leaves", "jax.tree.leaves", "jax.tree_leaves",
    "jax.tree_util.tree_leaves_with_path", "jax.tree.leaves_with_path",
    "jax.tree_util.tree_flatten_with_path", "jax.tree.flatten_with_path",
})
TREE_FLATTENS = frozenset({
    "jax.tree_util.tree_flatten", "jax.tree.flatten", "jax.tree_flatten",
    "jax.tree_util.tree_flatten_with_path", "jax.tree.flatten_with_path",
})
#: jax tree functions whose result is a treedef: a Python object, never traced
TREE_STRUCTURES = frozenset({"jax.tree_util.tree_structure", "jax.tree.structure", "jax.tree_structure"})


def treedef_call(model: "Scopes", value: ast.AST) -> str | None:
    """"whole" for a call whose result is a treedef (``jax.tree.structure(x)``), "second"
    for one whose result is a pair ``(leaves, treedef)`` (``tree_flatten(x)``), else None."""
    if not isinstance(value, ast.Call):
        return None
    q = model.resolve_call(value) or ""
    return "whole" if q in TREE_STRUCTURES else "second" if q in TREE_FLATTENS else None


def treedef_targets(model: "Scopes", target: ast.AST, value: ast.AST) -> set[str]:
    """The names an assignment binds to a treedef (a static Python object, whatever the
    tree's leaves are): the second of ``leaves, treedef = jax.tree_util.tree_flatten(x)``,
    or the whole target of ``td = jax.tree.structure(x)``. Comparing two is a Python bool."""
    how = treedef_call(model, value)
    if how == "whole" and isinstance(target, ast.Name):
        return {target.id}
    if how == "second" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 \
            and isinstance(target.elts[1], ast.Name):
        return {target.elts[1].id}
    return set()


#: builtins whose result is a Python container whatever they are given (a traced array
#: too: ``list(x)`` is a list of its rows, as long as its static first axis)
_CONTAINER_BUILTINS = frozenset({"builtins.list", "builtins.tuple", "builtins.dict", "builtins.set",
                                 "builtins.sorted", "builtins.zip", "builtins.enumerate"})
#: methods of a dict whose result is a view (its truth value is the dict's)
_DICT_VIEWS = frozenset({"keys", "values", "items"})
_DISPLAYS = (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
_SEQUENCES = (ast.Tuple, ast.List, ast.ListComp)
_SEQUENCE_BUILTINS = frozenset({"builtins.list", "builtins.tuple", "builtins.sorted"})


def python_container(model: "Scopes", expr: ast.AST | None, fn: "FunctionInfo | None" = None, depth: int = 0,
                     sequence: bool = False) -> bool:
    """``expr`` evaluates to a Python container (a list, tuple, dict or set), never an
    array, whatever its elements are: its truth value and ``len`` are its structure, known
    while tracing even when every element is a tracer. Displays and comprehensions; what
    ``list``/``tuple``/``dict``/``sorted`` make; the leaves list of a pytree
    (``jax.tree_util.tree_leaves(x)``, ``jax.tree.leaves(x)``, ``tree_flatten(x)[0]``);
    a name every binding of which that reaches the read is one of those (``leaves, treedef
    = jax.tree_util.tree_flatten(x)`` binds ``leaves`` to the list). An element of a
    container (``tree_leaves(x)[0]``) is not. ``sequence``: a list or tuple only, which a
    traced index cannot index (``xs[i]`` raises TracerIntegerConversionError)."""
    if expr is None or depth > 4:
        return False
    if isinstance(expr, _SEQUENCES if sequence else _DISPLAYS):
        return True
    if isinstance(expr, ast.Call):
        q = model.resolve_call(expr) or ""
        if q in TREE_LISTS or q in (_SEQUENCE_BUILTINS if sequence else _CONTAINER_BUILTINS):
            return True
        if sequence:
            return False
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _DICT_VIEWS and not expr.args:
            return python_container(model, expr.func.value, fn, depth + 1)
        return False
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Call):
        # `tree_flatten(x)[0]`: the leaves list of the (leaves, treedef) pair
        index = expr.slice
        return isinstance(index, ast.Constant) and index.value == 0 \
            and (model.resolve_call(expr.value) or "") in TREE_FLATTENS
    if isinstance(expr, ast.Name):
        scope = fn if fn is not None else model.function_of(expr)
        if not sequence and _declared_container(model, expr.id, scope):
            return True
        bindings = model.reaching_bindings(expr, scope)
        return bool(bindings) and all(_binds_container(model, b, scope, depth, sequence) for b in bindings)
    if isinstance(expr, ast.Attribute) and not sequence:
        return container_field(model, expr, fn)
    return False


def _declared_container(model: "Scopes", name: str, scope: "FunctionInfo | None") -> bool:
    """``name`` is declared a container where it is bound (``gammas: List[Array] = []``,
    ``extra: Optional[dict] = None``): the declared type holds for each of its bindings, as
    a type checker holds it, also those the model cannot follow (an element of a tuple a
    function of another module returns)."""
    _, bindings = model.lookup(name, scope)
    return any(isinstance(b.node, ast.AnnAssign) and b.node.simple and container_annotation(model, b.node.annotation)
               for b in bindings)


def _containers_passed(model: "Scopes", fn: "FunctionInfo", name: str, depth: int) -> bool:
    """Parameter ``name`` of ``fn`` holds a Python container (or None) at each call site of
    the module (``combine(x, [y])``, a comprehension, a name bound to a list the caller
    fills with ``append``; the default where a call leaves it out), and ``fn`` is traced
    only as those callers call it (no transform applies to it itself, which could pass it
    an array)."""
    from jaxlint.static.callers import Callers

    if not fn.traced_by or not all(r.by_call for r in fn.traced_by) or depth > 2:
        return False
    bound = Callers.of(model).param_values(fn, name)  # type: ignore[arg-type]  # Scopes is a Model
    return bool(bound) and all(_is_none(b.value) or python_container(model, b.value, b.scope, depth + 2)
                               for b in bound)  # type: ignore[union-attr]


def truth_is_structure(model: "Scopes", operand: ast.AST, fn: "FunctionInfo | None" = None) -> bool:
    """The truth value of ``operand`` is the structure of a Python container, known while
    tracing: it is one (``python_container``), or it is tested by an ``or`` whose last
    alternative is one (``params or {}``, ``extra or []``), or by a conditional that gives
    it back or one (``params if params else {}``): the code falls back to a container, so
    the operand holds one (or None): an array there would make no sense."""
    if python_container(model, operand, fn):
        return True
    parent = model.parent(operand)
    if isinstance(parent, ast.IfExp) and operand is parent.test:
        return ast.dump(parent.body) == ast.dump(operand) and python_container(model, parent.orelse, fn)
    return isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.Or) and operand is not parent.values[-1] \
        and python_container(model, parent.values[-1], fn)


def container_field(model: "Scopes", expr: ast.Attribute, fn: "FunctionInfo | None" = None) -> bool:
    """``state.ids`` where ``state`` is a parameter annotated with a class of the module
    (a flax struct, a chex or registered dataclass, a NamedTuple, an equinox module) that
    declares ``ids`` with a container annotation (``container_annotation``). A pytree
    flattens the container into its leaves and rebuilds it around them, so under a trace
    it is still a tuple, list or dict (of tracers). An unannotated parameter says nothing."""
    base = expr.value
    if not isinstance(base, ast.Name):
        return False
    scope = fn if fn is not None else model.function_of(expr)
    p = scope.param(base.id) if scope is not None else None
    if p is None or len(scope.bindings.get(base.id, ())) != 1:  # type: ignore[union-attr]
        return False
    ann = p.annotation
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        ann = ast.Name(id=ann.value) if ann.value.isidentifier() else None
    if not isinstance(ann, ast.Name):
        return False
    facts = class_facts(model).get(ann.id)
    return facts is not None and expr.attr in facts.container_fields


def _binds_container(model: "Scopes", b: "Binding", scope: "FunctionInfo | None", depth: int,
                     sequence: bool = False) -> bool:
    """The binding ``b`` gives its name a Python container (``python_container``)."""
    if b.kind == "param" and scope is not None and not sequence:
        return _containers_passed(model, scope, b.name, depth)
    if b.kind != "assign":
        return False
    if b.value is not None:
        return python_container(model, b.value, scope, depth + 1, sequence)
    stmt = b.node
    # `s, v, *rest = parts`: a starred target is always a list, of what is left over
    if isinstance(stmt, ast.Assign) and any(
            isinstance(t, (ast.Tuple, ast.List)) and any(isinstance(e, ast.Starred) and isinstance(e.value, ast.Name)
                                                         and e.value.id == b.name for e in t.elts)
            for t in stmt.targets):
        return True
    # `leaves, treedef = jax.tree_util.tree_flatten(x)`: the first name gets the list
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
            and (model.resolve_call(stmt.value) or "") in TREE_FLATTENS:
        return any(isinstance(t, (ast.Tuple, ast.List)) and t.elts and isinstance(t.elts[0], ast.Name)
                   and t.elts[0].id == b.name for t in stmt.targets)
    return False
