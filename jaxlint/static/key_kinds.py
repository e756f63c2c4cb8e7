"""The finding kinds of JAX114 (prng-key-reuse), from what the two uses of a reused key are
(docs/rules/JAX114.md, "Finding kinds"; each kind's group set by its blind figure,
docs/precision.md, "JAX114's finding kinds")."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxlint.static.keyflow import Reuse
from jaxlint.static.reach import Reach

if TYPE_CHECKING:  # pragma: no cover
    from jaxlint.static.scopes import Scopes

SAME = "same-numbers"
DRAWN_THEN_SPLIT = "drawn-then-split"
SPLIT_THEN_DRAWN = "split-then-drawn"
DIFFERENT = "different-draws"
SPLIT_FIRST = "split-first"
SHAPES_ONLY = "shapes-only"
MODULE_KEY = "module-key"
FIXTURE = "test-or-demo"
ON_PURPOSE = "on-purpose"
FIXED_SEED = "fixed-seed"
_SPLIT = "jax.random.split"
#: The samplers of ``jax.random`` that split their key before reading any bits (jax 0.10.2,
#: ``jax/_src/random/core.py``): ``randint`` (``k1, k2 = _split(key)``), ``permutation``
#: (``_shuffle``: ``key, subkey = _split(key)``), ``gamma``/``loggamma`` (one split per element,
#: then ``_gamma_one`` splits again), ``beta``, ``t``, ``f``, ``wald``, ``double_sided_maxwell``,
#: ``generalized_normal`` and ``ball`` (a split into parts), ``dirichlet`` and ``chisquare``
#: (``loggamma``), ``poisson`` (both algorithms split per round), ``binomial`` (both
#: algorithms), ``multinomial`` (``split(key, n)``), and ``choice`` without ``p`` (``randint``
#: or ``permutation``).
SPLITS_FIRST = frozenset({
    "randint", "permutation", "gamma", "loggamma", "beta", "t", "f", "wald", "double_sided_maxwell",
    "generalized_normal", "ball", "dirichlet", "chisquare", "poisson", "binomial", "multinomial"})
#: The samplers that read the key's own bits: ``uniform`` and what is built on it.
READS_BITS = frozenset({
    "bits", "uniform", "normal", "bernoulli", "exponential", "cauchy", "laplace", "logistic", "gumbel",
    "categorical", "rademacher", "maxwell", "rayleigh", "geometric", "triangular", "lognormal",
    "weibull_min", "pareto", "orthogonal", "truncated_normal", "multivariate_normal"})
_DERIVE = frozenset({"split", "fold_in"})


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
    by its two consumers (:func:`pair_kind`); a ``different-draws`` pair of which one use
    splits the key before drawing and the other reads its bits is ``split-first``."""
    if not r.repeated and not (shapes.read(r.first) and shapes.read(r.call)):
        return SHAPES_ONLY
    kind = pair_kind(r.first_name, r.fn_name, r.repeated)
    if kind == DIFFERENT and {_draw(shapes.model, r.first, r.first_name, r.text),
                              _draw(shapes.model, r.call, r.fn_name, r.text)} == {"split", "bits"}:
        return SPLIT_FIRST
    return kind


def _draw(model: Scopes, call: ast.Call, name: str, key: str) -> str | None:
    """How ``call`` draws from the key named ``key``: "split" when it splits (or folds) the
    key before any bits are read (a sampler of ``SPLITS_FIRST``, ``choice`` without ``p``,
    or a function of the module that only hands the key to those and to ``split``/
    ``fold_in``: ``k1, k2 = split(key)`` and draws from those), "bits" when it reads the
    key's own bits (``READS_BITS``, ``choice`` with ``p``, or a function of the module that
    only hands the key to those), None when unsure."""
    short = name[len("jax.random."):] if name.startswith("jax.random.") else None
    if short == "choice":
        weighted = len(call.args) > 4 or any(k.arg == "p" for k in call.keywords)
        return "bits" if weighted else "split"
    if short is not None:
        return "split" if short in SPLITS_FIRST else "bits" if short in READS_BITS else None
    target, bound = model.callee(call.func, model.function_of(call), follow=False)
    if target is None or isinstance(target.node, ast.Lambda) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    given = [i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == key]
    params = target.positional()
    names = {params[i + bound].name for i in given if i + bound < len(params)}
    names |= {k.arg for k in call.keywords if k.arg and isinstance(k.value, ast.Name) and k.value.id == key}
    if len(names) != 1:
        return None
    param = names.pop()
    if any(b.kind != "param" for b in target.bindings.get(param, ())):
        return None  # bound again in the callee: its draws are of another key
    uses: set[str] = set()
    for node in (n for st in target.node.body for n in ast.walk(st)):  # closures' reads too
        if isinstance(node, ast.Name) and node.id == param:
            use = model.parent(node)
            q = (model.resolve_call(use) or "") if isinstance(use, ast.Call) and use.args and use.args[0] is node else ""
            short = q[len("jax.random."):] if q.startswith("jax.random.") else ""
            if short in SPLITS_FIRST | _DERIVE:
                uses.add("split")
            elif short in READS_BITS:
                uses.add("bits")
            else:
                return None
    return uses.pop() if len(uses) == 1 else None
