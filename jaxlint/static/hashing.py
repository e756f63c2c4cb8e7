"""What unhashable thing a value is (issue 39), for the arguments jit hashes (its static
arguments): a list, dict or set display or constructor, a NumPy or JAX array, an
instance of a plain ``@dataclass``, and a tuple, named tuple or field-hashing dataclass
that holds one of these (``unhashable_value``); an annotation that admits only such
values (``unhashable_annotation``). How a class of the module hashes is ``classes``'s.
"""
from __future__ import annotations

import ast

from jaxlint.static.arrays import is_jax_array
from jaxlint.static.classes import (annotation_options, class_hashing, field_arguments, hashes_fields, is_namedtuple,
                                    module_class, namedtuple_fields)
from jaxlint.static.scopes import FunctionInfo
from jaxlint.static.semantic import ModuleModel


#: Annotations (qualified names) of unhashable values, and what to call them.
UNHASHABLE_TYPES = {
    "builtins.list": "a list", "builtins.dict": "a dict", "builtins.set": "a set",
    "typing.List": "a list", "typing.Dict": "a dict", "typing.Set": "a set",
    "typing.MutableMapping": "a dict", "typing.MutableSequence": "a list", "typing.MutableSet": "a set",
    "collections.abc.MutableMapping": "a dict", "collections.abc.MutableSequence": "a list",
    "numpy.ndarray": "an array", "jax.Array": "an array", "jax.numpy.ndarray": "an array",
    "jax.numpy.array": "an array", "jaxtyping.Array": "an array", "chex.Array": "an array",
}


_ARRAY_MAKERS = ("numpy.", "jax.numpy.", "jax.random.")


_LITERALS = {ast.List: "a list", ast.Dict: "a dict", ast.Set: "a set", ast.ListComp: "a list",
             ast.DictComp: "a dict", ast.SetComp: "a set"}


_CONSTRUCTORS = {"builtins.list": "a list", "builtins.dict": "a dict", "builtins.set": "a set"}


def unhashable_annotation(model: ModuleModel, ann: ast.expr | None) -> str | None:
    options = annotation_options(model, ann)
    kinds = []
    for a in options:
        base = a.value if isinstance(a, ast.Subscript) else a
        q = model.resolve(base)
        if q is None or not (q in UNHASHABLE_TYPES or q.startswith("jaxtyping.")):
            return None  # one hashable (or unknown) alternative: not sure
        kinds.append(UNHASHABLE_TYPES.get(q, "an array"))
    return kinds[0] if kinds else None


def annotation_compare_raises(model: ModuleModel, ann: ast.expr | None) -> bool:
    """Whether every value ``ann`` admits raises when compared by ``==`` with an equal one, as
    jit's check of a pytree's static metadata compares (``compare_raises``): an array type, or
    a list, tuple, set or dict whose element (a dict's value) types are all such. A bare
    ``list`` or ``dict``, or one of Python values (``dict[str, int]``), compares fine."""
    options = annotation_options(model, ann)
    for a in options:
        base = a.value if isinstance(a, ast.Subscript) else a
        q = model.resolve(base) or ""
        if UNHASHABLE_TYPES.get(q) == "an array" or q.startswith("jaxtyping."):
            continue
        if not isinstance(a, ast.Subscript) or (q not in UNHASHABLE_TYPES and q not in ("builtins.tuple", "typing.Tuple")):
            return False
        elts = [e for e in (a.slice.elts if isinstance(a.slice, ast.Tuple) else [a.slice])
                if not (isinstance(e, ast.Constant) and e.value is Ellipsis)]
        if UNHASHABLE_TYPES.get(q) == "a dict":
            elts = elts[-1:]
        if not elts or not all(annotation_compare_raises(model, e) for e in elts):
            return False
    return bool(options)


def constant_value(model: ModuleModel, scope: FunctionInfo | None, node: ast.expr | None) -> bool:
    """``node`` is a Python value the code writes out, the same at every run: a constant, a
    list, tuple, set or dict display of such, or a name bound once to one (what a static field
    holds, known without its annotation: equal on every call, so jit neither raises nor
    compiles again on it)."""
    if isinstance(node, ast.Name):
        _, bindings = model.lookup(node.id, scope)
        return len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None \
            and not isinstance(bindings[0].value, ast.Name) and constant_value(model, scope, bindings[0].value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(constant_value(model, scope, e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and constant_value(model, scope, k) for k in node.keys) \
            and all(constant_value(model, scope, v) for v in node.values)
    return isinstance(node, ast.Constant)


def unhashable_value(model: ModuleModel, scope: FunctionInfo | None, node: ast.AST | None,
                      at: ast.AST | None, depth: int = 0) -> str | None:
    """What unhashable thing ``node`` evaluates to (a literal, an array constructor, or a
    name bound once to one), else None."""
    if node is None or depth > 3:
        return None
    for t, what in _LITERALS.items():
        if isinstance(node, t):
            return what
    if isinstance(node, ast.Call):
        q = model.resolve_call(node) or ""
        if q in _CONSTRUCTORS:
            return _CONSTRUCTORS[q]
        if q.startswith(_ARRAY_MAKERS) and q.rsplit(".", 1)[-1] in _ARRAY_FUNCS:
            return "an array"
        cls = module_class(model, scope, node.func)
        if cls is not None and class_hashing(model, cls) == "unhashable":
            return f"an instance of `{cls.name}`, a @dataclass without frozen=True"
        hashed_by = (None if cls is None else "its generated `__hash__` hashes every field"
                     if hashes_fields(model, cls) else "a NamedTuple hashes like a tuple: by hashing every field"
                     if is_namedtuple(model, cls) else None)
        if cls is not None and hashed_by is not None:
            for field_name, arg in field_arguments(cls, node):
                inner = unhashable_value(model, scope, arg, at, depth + 1)
                if inner is not None:
                    return f"an instance of `{cls.name}` holding {inner} in field `{field_name}` ({hashed_by})"
        fields = namedtuple_fields(model, scope, node.func)
        if fields is not None:
            given = list(zip(fields, node.args)) + [(k.arg, k.value) for k in node.keywords if k.arg]
            for field_name, arg in given:
                inner = unhashable_value(model, scope, arg, at, depth + 1)
                if inner is not None:
                    return (f"a `{ast.unparse(node.func)}` namedtuple holding {inner} in field `{field_name}` (a "
                            f"namedtuple hashes like a tuple: by hashing every field)")
        if q == "builtins.tuple" and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], (ast.List, ast.Tuple)):
            return _unhashable_element(model, scope, node.args[0].elts, at, depth)
        if q.startswith(("jax.numpy.", "jax.random.", "jax.nn.")) and is_jax_array(model, scope, node):
            # every jax.numpy / jax.random function that returns one array returns an
            # unhashable jax.Array, a 0-d result (`jnp.add(4, 1)`) and a PRNG key included
            return "an array"
        return None
    if isinstance(node, ast.Tuple):
        return _unhashable_element(model, scope, node.elts, at, depth)
    if isinstance(node, ast.Name) and at is not None:
        _, bindings = model.lookup(node.id, scope)
        if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None:
            return unhashable_value(model, scope, bindings[0].value, at, depth + 1)
    return None


def compare_raises(model: ModuleModel, scope: FunctionInfo | None, node: ast.AST | None,
                   at: ast.AST | None, depth: int = 0) -> bool:
    """Whether comparing ``node``'s value with an equal one by ``==`` raises, as jit's check of
    a pytree's static metadata does (checked with jax 0.10.2): an array does (elementwise, its
    truth ambiguous), and so does a list, tuple, set or dict holding one; a list or dict of
    Python values compares as Python does, however unhashable. A container whose elements
    the code does not show (``list(xs)``, a comprehension) is not claimed."""
    if node is None or depth > 3:
        return False
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return any(compare_raises(model, scope, e, at, depth + 1) for e in node.elts if not isinstance(e, ast.Starred))
    if isinstance(node, ast.Dict):
        return any(compare_raises(model, scope, v, at, depth + 1) for v in node.values)
    if isinstance(node, ast.Name) and at is not None:
        _, bindings = model.lookup(node.id, scope)
        if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None:
            return compare_raises(model, scope, bindings[0].value, at, depth + 1)
        return False
    return unhashable_value(model, scope, node, at, depth) == "an array"


def _unhashable_element(model: ModuleModel, scope: FunctionInfo | None, elts: list[ast.expr],
                        at: ast.AST | None, depth: int) -> str | None:
    """A tuple's hash hashes its elements: what unhashable thing one of ``elts`` is."""
    for i, e in enumerate(elts):
        if isinstance(e, ast.Starred):
            continue
        inner = unhashable_value(model, scope, e, at, depth + 1)
        if inner is not None:
            return f"a tuple holding {inner} at index {i} (a tuple hashes by hashing every element)"
    return None


#: Constructors that certainly return an array (not a scalar or dtype).
_ARRAY_FUNCS = {"array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
                "identity", "zeros_like", "ones_like", "full_like", "stack", "concatenate",
                "normal", "uniform", "randn", "rand", "randint", "load"}
