"""What JAX114 (prng-key-reuse) asks the model about the uses of a PRNG key: the state of
the flow walk (which key texts are consumed, and how paths meet), what a statement rebinds
or hands over, and the shapes of code in which two uses of one key draw nothing twice
(complementary slices of one permutation, one seed per alternative model), and where a
module sits in its project (test helpers, demos, benchmarks)."""
from __future__ import annotations

import ast
import re
from typing import Iterable

from jaxlint.static.data import FunctionInfo
from jaxlint.static.keys import field_path
from jaxlint.static.semantic import ModuleModel, target_names, walk
from jaxlint.textutil import LazyPattern

#: key text -> (the call that consumed it, the consumer's display name)
State = dict


def word_pattern(names: Iterable[str]) -> str:
    """A pattern for any of ``names`` (identifiers) where a word starts: what
    ``\\b(?:a|b)`` matches, written with the word-start test after the first letter
    (``a(?<=\\ba)``, names grouped by it), so that every branch opens with a letter and
    ``re`` skips in C the positions no name starts at: the candidate lines of the speed
    corpus are found in about half the time."""
    groups: dict[str, list[str]] = {}
    for n in sorted(names):
        groups.setdefault(n[0], []).append(n[1:])
    return "|".join(f"{c}(?<=\\b{c})(?:{'|'.join(rest)})" for c, rest in groups.items())


#: Folders and files of test helpers, demos and benchmarks (kind ``test-or-demo``: by path,
#: docs/rules/JAX114.md): `tests/`, `testing.py`, `*test_utils.py`, `test_dummies/`, `docs/`
#: (documentation examples), and any folder or file with a word (``_FIXTURE_WORD``)
#: `benchmark(s)`/`benchmarking`, `demo(s)`, `tutorial(s)` or `pedagog...` in its name
#: (`benchmarks/`, `jax_e_benchmark_sweep.py`, `pedagogical_examples/`, `kalman_demo.py`).
#: Not `examples/`: example programs are what users copy, and half their reuses were judged
#: true (docs/precision.md, "JAX114 after blind54").
_FIXTURE_DIRS = {"test", "tests", "testing", "test_dummies", "docs"}
_FIXTURE_FILE = LazyPattern(r"(?:testing|.*test_utils)\.py")
_FIXTURE_WORD = LazyPattern(r"benchmark(?:s|ing)?|demos?|tutorials?|pedagog\w*")


def in_fixture_code(module_name: str) -> bool:
    """A module of test helpers, demos, benchmarks or teaching code, by its place in the
    project (its dotted name from the project's root: see ``_FIXTURE_DIRS``): a word of a
    folder's or the file's name, split at ``_``, ``-`` and case changes, names one."""
    parts = module_name.split(".")
    if _FIXTURE_DIRS.intersection(parts[:-1]) or _FIXTURE_FILE().fullmatch(parts[-1] + ".py"):
        return True
    return any(_FIXTURE_WORD().fullmatch(w.lower()) for part in parts
               for w in re.split(r"[_\-]+|(?<=[a-z])(?=[A-Z])", part))


def key_root(key: str) -> str:
    """The name a key text starts from: ``s`` of ``s.key``, ``keys`` of ``keys[0]``."""
    return re.split(r"[.\[]", key, maxsplit=1)[0]


def forget(state: State, names: set[str]) -> None:
    """Forget the keys a rebinding of ``names`` replaces: names (``s``, which takes
    ``s.key`` with it) and fields (``s.key``)."""
    for k in list(state):
        if key_root(k) in names or any(k == n or k.startswith((n + ".", n + "[")) for n in names if "." in n):
            del state[k]


def stored_paths(target: ast.AST) -> set[str]:
    """The names and fields an assignment target binds (``s.key = ...`` binds ``s.key``)."""
    out = set(target_names(target))
    if isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            out |= stored_paths(e)
    elif isinstance(target, ast.Attribute):
        path = field_path(target)
        if path is not None:
            out.add(path)
    return out


def handed_over(s: ast.stmt) -> set[str]:
    """Names whose fields a statement may change: ``obj.method(...)`` and ``f(obj)``
    (other than a ``jax.random`` call), which may store a new key in ``obj.key``."""
    out: set[str] = set()
    for n in walk(s):
        if not isinstance(n, ast.Call):
            continue
        func = n.func
        if isinstance(func, ast.Attribute):
            root = func.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id not in ("jax", "jnp", "random", "np", "numpy"):
                out.add(root.id)
        out |= {a.id for a in [*n.args, *(k.value for k in n.keywords)] if isinstance(a, ast.Name)}
    return out


def join(ends: list[tuple[State, set[str]]]) -> State:
    """Paths meet: a key is consumed when some path consumed it and no path left it
    freshly reassigned (``ends``: each path's final state and the names it assigned)."""
    merged: State = {}
    for end, _ in ends:
        for k, v in end.items():
            merged.setdefault(k, v)
    for end, assigned in ends:
        for k in list(merged):
            if (key_root(k) in assigned or any(k == a or k.startswith(a + ".") for a in assigned if "." in a)) \
                    and k not in end:
                del merged[k]
    return merged


def arguments(call: ast.Call) -> dict[int | str, ast.AST]:
    out: dict[int | str, ast.AST] = dict(enumerate(call.args))
    out.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    return out


def bound_in(comp: ast.AST, name: str) -> bool:
    return any(name in set(target_names(g.target)) for g in comp.generators)  # type: ignore[attr-defined]


def complementary_slices(model: ModuleModel, first: ast.Call, call: ast.Call) -> bool:
    """Two identical draws, each read only through one of two complementary slices
    (``permutation(key, n)[:m]`` and ``permutation(key, n)[m:]``): one permutation split
    into disjoint parts, which a second key would make overlap."""
    if ast.dump(first) != ast.dump(call):
        return False
    a, b = model.parent(first), model.parent(call)
    if not (isinstance(a, ast.Subscript) and isinstance(b, ast.Subscript) and a.value is first
            and b.value is call and isinstance(a.slice, ast.Slice) and isinstance(b.slice, ast.Slice)):
        return False
    x, y = a.slice, b.slice
    if x.step is not None or y.step is not None:
        return False
    for lo, hi in ((x, y), (y, x)):
        if lo.lower is None and hi.upper is None and lo.upper is not None and hi.lower is not None \
                and ast.dump(lo.upper) == ast.dump(hi.lower):
            return True
    return False


def builds_alternatives(model: ModuleModel, call: ast.Call, comp: ast.AST) -> bool:
    """A comprehension that builds one model per alternative (``{name: Model(make=fn,
    key=key) for name, fn in makers.items()}``, or ``makers[name]``): an argument of the
    hand-off is a function chosen per element from a local table of functions (a dict
    or list of lambdas, functions or classes), so every element is another architecture,
    seeded alike on purpose (a fair comparison), and nothing is drawn twice for one model."""
    if not isinstance(comp, (ast.ListComp, ast.DictComp)) or call.func is None:
        return False
    if (model.resolve_call(call) or "").startswith("jax.random."):
        return False
    gens = comp.generators  # type: ignore[attr-defined]
    bound = {n for g in gens for n in target_names(g.target)}
    fn = model.function_of(call)
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        table = None
        if isinstance(arg, ast.Name) and arg.id in bound:
            gen = next(g for g in gens if arg.id in set(target_names(g.target)))
            it = gen.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in (
                    "items", "values") and not it.args:
                it = it.func.value
            table = it
        elif isinstance(arg, ast.Subscript) and isinstance(arg.slice, ast.Name) and arg.slice.id in bound:
            table = arg.value
        if isinstance(table, ast.Name) and _function_table(model, table.id, fn):
            return True
    return False


def _function_table(model: ModuleModel, name: str, fn: FunctionInfo | None) -> bool:
    """``name`` is bound once, in this function, to a dict or list literal of functions."""
    owner, bindings = model.lookup(name, fn)
    if len(bindings) != 1 or not isinstance(bindings[0].value, (ast.Dict, ast.List, ast.Tuple)):
        return False
    value = bindings[0].value
    items = value.values if isinstance(value, ast.Dict) else value.elts
    return len(items) > 1 and all(v is not None and _a_function(model, v, fn) for v in items)


def _a_function(model: ModuleModel, v: ast.expr, fn: FunctionInfo | None) -> bool:
    """A lambda, or a name bound to a function or class (defined or imported)."""
    if isinstance(v, ast.Lambda):
        return True
    if not isinstance(v, ast.Name):
        return False
    _, bindings = model.lookup(v.id, fn)
    return bool(bindings) and all(b.kind in ("def", "class", "import") for b in bindings)
