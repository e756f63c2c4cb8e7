"""Call arguments saved abstractly: what ``jaxlint record`` keeps of a module argument.

A jitted training step takes models, optimizer states and other objects that a JSON
record cannot rebuild (an ``equinox.Module``, an ``nnx.Module`` and its ``Optimizer``,
a dataclass of arrays). When the recorder meets one it pickles the call's
``(args, kwargs)`` with :class:`AbstractPickler`, which writes

* every traced array (``jax.Array`` leaves, numpy arrays that are pytree leaves of the
  arguments, the state of flax NNX objects) as its shape, dtype and weak type only:
  the worker gets a ``jax.ShapeDtypeStruct`` back, PRNG key arrays included;
* other arrays (a module's static table, a closed-over constant) by value up to
  :data:`MAX_STATIC_BYTES`, larger ones as a stand-in of the same shape and dtype;
* classes and functions by reference (``module:qualname``, a script's ``__main__``
  under its module name), so unpickling imports the user's modules, which the worker
  has imported anyway;
* functions that cannot be referenced (closures such as optax's ``update_fn`` or
  flax's initializers, lambdas) by module, name, first line and a bytecode
  fingerprint, plus their closure cells: the worker compiles the module's source
  again to find the code. One whose code is not there (made at run time, or edited
  since the recording) comes back as an :class:`Unrecorded` stand-in that raises
  :class:`UnrecordedValueError` if the traced code calls it: the function is then
  skipped with that reason, never reported as a trace error.

Everything else pickles as usual; an object that does not pickle (a lock, a local
class) makes the signature unrebuildable, with the reason. Only the recorder (in the
user's process, after it imported jax) and the worker import this module.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import io
import itertools
import pickle
import re
import sys
import types
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxlint.dynamic import adapter

#: numpy arrays that jit does not trace (static fields) are pickled by value up to this size
MAX_STATIC_BYTES = 64 << 10
PROTOCOL = 4
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class UnrecordedValueError(Exception):
    """The traced code used a part of a recorded argument that could not be saved."""


class Unrecorded:
    """Stands in for a function the record could not save (a lambda, a closure)."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __call__(self, *args, **kwargs):
        raise UnrecordedValueError(
            f"the recorded argument holds `{self.what}`, a function whose code is not in its module's "
            "source (made at run time, or edited since the recording: run `jaxlint record` again), "
            "and the traced code calls it")

    def __repr__(self) -> str:
        return f"<unrecorded {self.what}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Unrecorded) and other.what == self.what

    def __hash__(self) -> int:
        return hash(("Unrecorded", self.what))


# ---------------------------------------------------------------------------- rebuilding
def _array(shape, dtype: str, weak: bool) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(tuple(shape), jnp.dtype(dtype), weak_type=bool(weak))


def _mutable_ref(shape, dtype: str, weak: bool) -> jax.ShapeDtypeStruct:
    """A ``jax.ref`` argument as jit traces it: a ref of that shape and dtype."""
    return jax.ShapeDtypeStruct(tuple(shape), jnp.dtype(dtype), weak_type=bool(weak), is_ref=True)


#: jax's mutable array ref (``jax.ref.new_ref``; None before jax has refs); a tracer of
#: a ref is an instance too
REF_TYPE: type | None = getattr(getattr(jax, "ref", None), "Ref", None)


#: the tags jax prints in a key dtype (``key<fry>``) -> implementation names
KEY_TAGS = {"fry": "threefry2x32", "rbg": "rbg", "urbg": "unsafe_rbg"}


def key_array(shape, impl: str) -> jax.ShapeDtypeStruct:
    """Typed PRNG keys of ``impl`` (a name, or the tag of a ``key<fry>`` dtype)."""
    impl = KEY_TAGS.get(impl, impl)
    dtype = jax.eval_shape(lambda: jax.random.key(0, impl=impl)).dtype
    return jax.ShapeDtypeStruct(tuple(shape), dtype)


def _stand_in(shape, dtype: str) -> np.ndarray:
    """Not all one value, so rules that treat splat constants as free still see a cost."""
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n) % 251).astype(jnp.dtype(dtype)).reshape(shape)


def _ref(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


class _EmptyCell:
    pass


def _closure(module: str, qualname: str, line: int, fingerprint: str, defaults, kwdefaults, cells, attrs) -> Any:
    """A function defined inside another one (an optax transformation's ``update_fn``)
    or a lambda: its code is compiled again from the module's source, found by name and
    first line and checked against the recorded bytecode, and its closure is rebuilt
    from the recorded cell values. A function whose code moved or changed since the
    recording becomes an :class:`Unrecorded` stand-in."""
    name = qualname.rsplit(".", 1)[-1]
    code = _codes(module).get((name, line))
    if code is None or _fingerprint(code) != fingerprint or len(code.co_freevars) != len(cells or ()):
        return Unrecorded(qualname)
    closure = tuple(types.CellType() if isinstance(c, _EmptyCell) else types.CellType(c) for c in cells or ())
    fn = types.FunctionType(code, vars(importlib.import_module(module)), name, defaults, closure or None)
    fn.__qualname__ = qualname
    fn.__kwdefaults__ = kwdefaults
    fn.__dict__.update(attrs or {})
    return fn


def _fingerprint(code: types.CodeType) -> str:
    return hashlib.sha256(code.co_code + repr(code.co_names).encode()).hexdigest()[:16]


_CODES: dict[str, dict[tuple[str, int], types.CodeType]] = {}


def _codes(module: str) -> dict[tuple[str, int], types.CodeType]:
    """(name, first line) -> code object of every function and lambda in a module,
    compiled again from its source (the module's own code object is gone after import)."""
    hit = _CODES.get(module)
    if hit is not None:
        return hit
    out: dict[tuple[str, int], types.CodeType] = {}
    mod = importlib.import_module(module)
    try:
        path = inspect.getsourcefile(mod)
        with open(path or "", encoding="utf-8") as f:
            top = compile(f.read(), path or "", "exec", dont_inherit=True)
    except (OSError, TypeError, SyntaxError, ValueError):
        top = None
    stack = [top] if top is not None else []
    while stack:
        code = stack.pop()
        out.setdefault((code.co_name, code.co_firstlineno), code)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    _CODES[module] = out
    return out


_OWN = frozenset({_array, _mutable_ref, key_array, _stand_in, _ref, _closure, _EmptyCell, Unrecorded})


# ---------------------------------------------------------------------------- saving
class AbstractPickler(pickle.Pickler):
    """Pickles arguments with traced arrays reduced to shape/dtype (see the module docstring)."""

    def __init__(self, file, main_module: str | None, traced_ids: set[int]) -> None:
        super().__init__(file, protocol=PROTOCOL)
        self.main_module = main_module
        self.traced_ids = traced_ids
        self._open: set[int] = set()  # closures being written (a recursive one refers to itself)

    def reducer_override(self, obj):
        if isinstance(obj, (type, types.FunctionType)) and obj in _OWN:
            return NotImplemented
        if REF_TYPE is not None and isinstance(obj, REF_TYPE):  # its aval, never its value
            aval = getattr(obj, "aval", None)
            weak = getattr(getattr(aval, "inner_aval", aval), "weak_type", False)
            return _mutable_ref, (tuple(int(d) for d in obj.shape), np.dtype(obj.dtype).name, bool(weak))
        if isinstance(obj, (jax.Array, np.ndarray)) and getattr(obj, "dtype", None) != object:
            return self._array(obj)
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)) or (
                callable(obj) and isinstance(getattr(obj, "__qualname__", None), str)):
            return self._function(obj)
        return NotImplemented

    def _array(self, x):
        traced = id(x) in self.traced_ids
        if isinstance(x, jax.Array) and not traced:
            traced = adapter.is_tracer(x)  # no value to save
        if traced:
            aval = getattr(x, "aval", None)
            shape = tuple(int(d) for d in x.shape)
            if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
                return key_array, (shape, str(jax.random.key_impl(x)))
            return _array, (shape, np.dtype(x.dtype).name, bool(getattr(aval, "weak_type", False)))
        # a static array (a module's table, a closed-over constant): it is a constant of
        # the traced program, so keep it, or one of its size when it is large
        if x.nbytes > MAX_STATIC_BYTES or jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            return _stand_in, (tuple(x.shape), np.dtype(x.dtype).name)
        return NotImplemented if isinstance(x, np.ndarray) else (np.asarray, (np.asarray(x),))

    def _function(self, obj):
        module = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(qualname, str):
            return NotImplemented
        found = None
        if "<" not in qualname:
            try:
                found = _ref(module, qualname) if module in sys.modules else None
            except Exception:
                found = None
        shown = self.main_module if module == "__main__" and self.main_module else module
        if found is obj:
            return _ref, (shown, qualname)
        if isinstance(obj, type):
            raise pickle.PicklingError(f"class `{qualname}` is not importable by name (defined inside a function?)")
        if isinstance(obj, types.FunctionType) and id(obj) not in self._open:
            code = obj.__code__
            cells = []
            for c in obj.__closure__ or ():
                try:
                    cells.append(c.cell_contents)
                except ValueError:
                    cells.append(_EmptyCell())
            self._open.add(id(obj))
            return _closure, (shown, qualname, code.co_firstlineno, _fingerprint(code), obj.__defaults__,
                              obj.__kwdefaults__, tuple(cells),
                              {k: v for k, v in vars(obj).items() if k != "__wrapped__"} or None)
        if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)) or "<" in qualname:
            return Unrecorded, (qualname,)
        return NotImplemented  # a callable object (a module, a partial): pickle its state


def traced_ids(args: tuple, kwargs: dict) -> set[int]:
    """ids of the arrays the transforms trace: pytree leaves of the arguments and the
    state of flax NNX graph objects among them."""
    out: set[int] = set()
    try:
        nnx = _nnx()
        is_node = nnx.graph.is_graph_node if nnx is not None else None
        leaves = jax.tree_util.tree_leaves((args, kwargs), is_leaf=is_node)
        nodes = [x for x in leaves if is_node is not None and is_node(x)]
        if nodes:
            leaves = leaves + jax.tree_util.tree_leaves(nnx.split(nodes)[1])
    except Exception:
        return out
    return {id(x) for x in leaves if isinstance(x, (jax.Array, np.ndarray))}


def dumps(args: tuple, kwargs: dict, main_module: str | None) -> bytes:
    """The call's arguments, abstractly; raises ``pickle.PicklingError`` (or whatever a
    user object's pickling raises) when an argument cannot be saved."""
    buf = io.BytesIO()
    AbstractPickler(buf, main_module, traced_ids(args, kwargs)).dump((tuple(args), dict(kwargs)))
    return buf.getvalue()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def loads(data: bytes) -> tuple[tuple, dict]:
    args, kwargs = pickle.loads(data)
    return tuple(args), dict(kwargs)


# ---------------------------------------------------------------------------- describing
def structure(x: Any) -> tuple[list[tuple[str, Any]], str | None, Any, dict[str, int]]:
    """(path, leaf) pairs, a printable static part, a hashable identity of an object
    that is not a plain container, and its static attributes that compare by identity
    (:func:`_objects`: name -> the object's number). flax NNX graph objects are read
    through ``nnx.split`` (their state holds the arrays); everything else through jax's
    pytree registry. The identity is ``None`` when it cannot be hashed (then every call
    is pickled)."""
    nnx = _nnx_if_graph(x)
    objects: dict[str, int] = {}
    if nnx is not None:
        graphdef, state = nnx.split(x)
        pairs = jax.tree_util.tree_flatten_with_path(state)[0]
        static = graphdef
        text, objects = _graph_text(graphdef)
    else:
        pairs, static = jax.tree_util.tree_flatten_with_path(x)
        if len(pairs) == 1 and pairs[0][1] is x:
            pairs = []
        text = _ADDRESS.sub("", str(static))
    leaves = [(jax.tree_util.keystr(p), v) for p, v in pairs]
    try:
        ident = hash(static)
    except Exception:
        ident = None
    return leaves, text, ident, objects


#: a flax NNX graph's structure (with the types of its static attributes) -> its text
_GRAPH_TEXTS: dict = {}
_GRAPH_TEXTS_MAX = 1024


def graph_key(x: Any) -> tuple[list, list] | None:
    """([the type, a hashable key of the structure] of a flax NNX graph object, its leaves
    in ``nnx.graph.flatten``'s order), or None where flax cannot flatten it so or the
    structure cannot be hashed. Two objects with equal keys and leaves of one abstract
    value each are described alike by :func:`structure` (the same ``GraphDef``, so the
    same text and the same paths to the same leaves): the recorder's fast path keys
    ``nnx.jit`` calls by it, without the ``State`` that ``nnx.split`` builds."""
    nnx = _nnx()
    try:
        graphdef, leaves = nnx.graph.flatten(x, with_paths=False)
        key = _Hashed((graphdef, _static_types(graphdef)))
    except Exception:  # another flax's flatten, or a structure that cannot be hashed
        return None
    return [type(x), key], leaves


class _Hashed:
    """A key whose hash is computed once (a ``GraphDef`` hashes all its nodes each time)."""

    __slots__ = ("key", "hash")

    def __init__(self, key: Any) -> None:
        self.key, self.hash = key, hash(key)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Hashed) and self.hash == other.hash and self.key == other.key


def flatten_graphs(tree: Any) -> tuple[list, Any]:
    """(leaves, treedef) of a pytree with flax NNX graph objects as leaves."""
    return jax.tree_util.tree_flatten(tree, is_leaf=is_graph_node)


def is_graph_node(x: Any) -> bool:
    return _nnx_if_graph(x) is not None


def _static_types(graphdef: Any) -> tuple:
    """The types of a ``GraphDef``'s static attribute values: ``1``, ``True`` and ``1.0``
    compare and hash alike but are written differently."""
    return tuple(type(a[1].value) for a in graphdef.attributes if hasattr(a[1], "value"))


def _graph_text(graphdef: Any) -> tuple[str, dict[str, int]]:
    """The text of an NNX ``GraphDef`` (:func:`structure`'s static part) and its static
    attributes that compare by identity (:func:`_objects`), made once per structure:
    writing it out (flax's ``repr`` of every node) cost ~4 ms a call of an ``nnx.jit``
    step (issue 37). Two structures that compare equal have the same text and the same
    objects (equality of such a value is its identity), except where a static
    attribute's value equals another's of another type (``1`` and ``True``): their types
    are part of the key. A structure that cannot be hashed is written out every time."""
    try:
        key = (graphdef, _static_types(graphdef))
        hit = _GRAPH_TEXTS.get(key)
    except Exception:
        return _with_objects(graphdef)
    if hit is None:
        hit = _with_objects(graphdef)
        if len(_GRAPH_TEXTS) < _GRAPH_TEXTS_MAX:
            _GRAPH_TEXTS[key] = hit
    return hit


def _with_objects(graphdef: Any) -> tuple[str, dict[str, int]]:
    text = _ADDRESS.sub("", str(graphdef))
    objects = _objects(graphdef)
    if objects:  # each new object is a new structure to nnx.jit's cache: to the record too
        text += "".join(f"\n{name}: object #{n}" for name, n in objects.items())
    return text, objects


#: id -> (the object, its number): static values that compare by identity, kept alive so
#: that an id is never another object's
_OBJECTS: dict[tuple, tuple[tuple, int]] = {}
_OBJECTS_MAX = 1 << 16
_SERIAL = itertools.count(1)


def _objects(graphdef: Any) -> dict[str, int]:
    """The static attributes of an NNX ``GraphDef`` whose value compares by identity (its
    class defines no ``__eq__``) and is made at run time (a closure, an instance, a
    ``functools.partial``; not a class or a module-level function, the same object all
    along), or holds one in a tuple (optax's ``GradientTransformation``: a namedtuple of
    closures, made anew by each ``optax.adam(...)``), each numbered by the object: jax
    keys ``nnx.jit``'s cache on the ``GraphDef``, which compares them so. The attribute's
    name (``tx``), with ``#2``... where several nodes have one of that name."""
    out: dict[str, int] = {}
    for attr in getattr(graphdef, "attributes", ()):
        try:
            name, value = attr[0], attr[1].value
        except (AttributeError, IndexError, TypeError):
            continue
        made = _made_objects(value, 0)
        if made:
            n = _number(made)
            label, i = str(name), 2
            while label in out:
                label, i = f"{name}#{i}", i + 1
            out[label] = n
    return out


def _made_objects(value: Any, depth: int) -> tuple:
    """The objects in ``value`` that compare by identity and are made at run time."""
    t = type(value)
    if isinstance(value, tuple) and depth < 3:
        if t.__eq__ is not tuple.__eq__:
            return ()
        return tuple(o for v in value for o in _made_objects(v, depth + 1))
    if value is None or isinstance(value, (type, types.ModuleType, str, bytes, int, float, complex)):
        return ()
    if t.__eq__ is not object.__eq__:
        return ()
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return (value,) if "<" in getattr(value, "__qualname__", "<") else ()
    return (value,)


def _number(made: tuple) -> int:
    """One number for a tuple of objects (they compare together), the same while the
    objects are kept (:data:`_OBJECTS_MAX` of them), a new one for new objects."""
    key = tuple(map(id, made))
    hit = _OBJECTS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], made)):
        return hit[1]
    n = next(_SERIAL)
    if len(_OBJECTS) < _OBJECTS_MAX:
        _OBJECTS[key] = (made, n)
    return n


def _nnx():
    """flax.nnx when the program imported it (never imported here otherwise)."""
    return sys.modules.get("flax.nnx")


def _nnx_if_graph(x: Any):
    mod = _nnx()
    if mod is None:
        return None
    try:
        return mod if mod.graph.is_graph_node(x) else None
    except Exception:
        return None


def holds_graph_node(tree: Any) -> bool:
    """Whether a pytree holds a flax NNX graph object (:func:`structure` reads those
    through ``nnx.split``, not through jax's tree structure)."""
    if _nnx() is None:
        return False
    return any(map(is_graph_node, jax.tree_util.tree_leaves(tree, is_leaf=is_graph_node)))


def short_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]
