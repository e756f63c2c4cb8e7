"""What a function's own code says a value is, by how it uses it.

A ``jax.Array`` (and a tracer standing for one) has a fixed set of attributes. When a
function reads an attribute that no array has from a name or a field
(``dynamic_scale.value_and_grad(...)``, ``state.dynamic_scale.scale``), that value is an
object: a pytree of the program (a flax struct, a NamedTuple, a dict), not an array. Its
truth value is Python's, static, whatever its leaves are: ``if state.dynamic_scale:`` on a
field that holds ``None`` or a ``DynamicScale`` never touches a tracer.

The answer is per function and per path (``dynamic_scale``, ``state.dynamic_scale``), the
same for every read of the path in the function: a name that holds an object in one
place and an array in another is rare, and then the attribute read on the array would
fail first.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.values import ARRAY_METHODS, SHAPE_ATTRS

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.scopes import FunctionInfo, Scopes

#: Attributes a ``jax.Array`` or a tracer has besides its methods (``ARRAY_METHODS``) and
#: shape queries (``SHAPE_ATTRS``). ``value`` is left out on purpose: an nnx ``Variable``
#: has it and delegates its truth value to the array it holds.
_ARRAY_ONLY = frozenset({
    "T", "mT", "real", "imag", "at", "flat", "item", "tolist", "tobytes", "device", "devices",
    "is_fully_addressable", "is_fully_replicated", "committed", "copy_to_host_async", "delete",
    "is_deleted", "on_device_size_in_bytes", "unsafe_buffer_pointer", "addressable_shards",
    "global_shards", "fill", "byteswap", "value", "primal", "tangent", "val", "aval",
})
#: Attribute names that say nothing about the kind of the value they are read from
#: (a dict's ``items`` or ``keys`` do: a container's truth value is static too).
ARRAY_ATTRIBUTES = ARRAY_METHODS | SHAPE_ATTRS | _ARRAY_ONLY


def path_of(expr: ast.AST) -> str | None:
    """``"a"`` for ``a``, ``"a.b.c"`` for ``a.b.c``; None for anything else."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


def object_paths(model: "Scopes", fn: "FunctionInfo") -> frozenset[str]:
    """The paths ``fn`` reads an attribute from that no array has (computed once per
    function): each of them holds an object, not an array."""
    memo: dict[int, frozenset[str]] = model.__dict__.setdefault("_object_paths", {})
    known = memo.get(id(fn))
    if known is None:
        found = set()
        for node in fn.body_nodes():
            if isinstance(node, ast.Attribute) and not node.attr.startswith("_") \
                    and node.attr not in ARRAY_ATTRIBUTES:
                path = path_of(node.value)
                if path is not None and path not in ("self", "cls"):
                    found.add(path)
        known = memo[id(fn)] = frozenset(found)
    return known


def used_as_object(model: "Scopes", fn: "FunctionInfo", expr: ast.AST) -> bool:
    """Whether ``fn`` reads, somewhere in its body, an attribute no array has from the
    name or field ``expr`` is (``expr`` is then an object, whose truth value is static)."""
    path = path_of(expr)
    return path is not None and path in object_paths(model, fn)
