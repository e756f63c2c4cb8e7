"""The finding kinds of JAX114 (prng-key-reuse), from what the two uses of a reused key are
(docs/rules/JAX114.md, "Finding kinds"; each kind's group set by its blind figure,
docs/precision.md, "JAX114's finding kinds")."""
from __future__ import annotations

from jaxlint.static.keyflow import Reuse
from jaxlint.static.reach import Reach

SAME = "same-numbers"
DRAWN_THEN_SPLIT = "drawn-then-split"
SPLIT_THEN_DRAWN = "split-then-drawn"
DIFFERENT = "different-draws"
SHAPES_ONLY = "shapes-only"
MODULE_KEY = "module-key"
FIXTURE = "test-or-demo"
ON_PURPOSE = "on-purpose"
_SPLIT = "jax.random.split"


def pair_kind(first_name: str, fn_name: str, repeated: bool = False) -> str:
    """The kind of a reuse from the names of its two consumers (``repeated``: one call
    consuming the key again on every iteration, element or leaf)."""
    if repeated or first_name == fn_name:
        return SAME  # one sampler twice, two splits, one callee twice
    first_split, split = first_name == _SPLIT, fn_name == _SPLIT
    if split:
        return DRAWN_THEN_SPLIT
    if first_split:
        return SPLIT_THEN_DRAWN
    if not first_name.startswith("jax.random.") and not fn_name.startswith("jax.random."):
        return SAME  # handed whole to two callees that draw: initialisers seeded alike
    return DIFFERENT


def reuse_kind(r: Reuse, shapes: Reach) -> str:
    """The kind of a reuse ``KeyFlow`` found: ``shapes-only`` where the numbers of one use
    only give a traced program its shapes (``Reach(model, shapes=True)``: a sample input of
    ``model.init(key, x)``, an argument of ``make_jaxpr(f)(...)`` or ``.lower(...)``), else
    by its two consumers (:func:`pair_kind`)."""
    if not r.repeated and not (shapes.read(r.first) and shapes.read(r.call)):
        return SHAPES_ONLY
    return pair_kind(r.first_name, r.fn_name, r.repeated)
