"""Helpers shared by the static rules (no rule logic here)."""
from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING, TypedDict

from jaxlint.static.scopes import FunctionInfo, Scopes
from jaxlint.static.consts import static_count
from jaxlint.rule import is_test_path  # noqa: F401  (the rules import it from here)

NUMPY_CONSTRUCTORS = {
    "zeros", "ones", "empty", "full", "eye", "identity", "arange", "linspace",
    "zeros_like", "ones_like", "full_like", "empty_like", "array", "asarray",
    "random.rand", "random.randn", "random.random", "random.normal", "random.uniform",
    "random.randint", "random.standard_normal", "random.default_rng",
}
#: Calls that load data of a size only known at run time.
LOADERS = {"numpy.load", "numpy.loadtxt", "numpy.fromfile", "numpy.genfromtxt", "numpy.memmap",
           "numpy.lib.format.open_memmap", "jax.numpy.load", "pickle.load", "pickle.loads", "joblib.load",
           "cloudpickle.load", "scipy.io.loadmat"}
#: numpy / jax.numpy functions that repeat or join arrays: their size follows from their inputs.
_COMBINERS = {"repeat", "tile", "concatenate", "stack", "vstack", "hstack", "dstack", "column_stack",
              "broadcast_to", "kron", "outer"}
DTYPE_BYTES = {
    "float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4,
    "int16": 2, "int8": 1, "uint8": 1, "uint32": 4, "uint64": 8, "bool": 1, "bool_": 1,
    "complex64": 8, "complex128": 16, "float8_e4m3fn": 1, "float8_e5m2": 1,
}


# A TypedDict is a dict at run time; made as a class it would compile each of its annotations
# (typing's ForwardRef) when a check starts (docs/performance.md, speed58).
if TYPE_CHECKING:
    class _EstimateKeys(TypedDict):
        bytes: int | None  # None: unknown statically (`np.load(...)`, a shape that is not static)
        shape: tuple[int, ...] | None
        source: str  # what made it, as a message names it (`numpy.zeros`, `eqx.nn.Linear`)
        itemsize: int | None

    class Estimate(_EstimateKeys, total=False):
        """What :func:`array_estimate` knows of an array-producing expression."""
        literal: bool  # a literal display (`np.array([1, 2])`): bytes counts its elements
        pytree: bool  # a dict, list or tuple of arrays: bytes is the sum of its leaves
        module: bool  # the float32 weights of an equinox / flax nnx layer
        splat: bool  # zeros / ones / full / empty: one value everywhere
        unknown_shape: bool  # a known constructor whose shape is not static
else:
    Estimate = dict


def all_known(dims: list[int | None]) -> list[int] | None:
    """``dims`` when every one is known, else None."""
    known = [d for d in dims if d is not None]
    return known if len(known) == len(dims) else None


def static_shape(model: Scopes, expr: ast.AST | None) -> tuple[int, ...] | None:
    if expr is None:
        return None
    v = static_count(model, expr)
    if v is not None:
        return (v,)
    if isinstance(expr, (ast.Tuple, ast.List)):
        dims = [static_count(model, e) for e in expr.elts]
        if all(d is not None for d in dims):
            return tuple(dims)  # type: ignore[arg-type]
    return None


def dtype_bytes(model: Scopes, expr: ast.AST | None) -> int | None:
    if expr is None:
        return None
    name = None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        name = expr.value
    else:
        q = model.resolve(expr)
        if q:
            name = q.rsplit(".", 1)[-1]
        elif isinstance(expr, ast.Name) and expr.id in ("float", "int", "bool", "complex"):
            name = {"float": "float64", "int": "int64", "bool": "bool", "complex": "complex128"}[expr.id]
    return DTYPE_BYTES.get(name) if name else None


#: jax.random functions whose second argument is the shape of the array they draw.
_JAX_SAMPLERS = {"uniform", "normal", "exponential", "gumbel", "laplace", "logistic", "cauchy", "rademacher"}


def array_estimate(model: Scopes, expr: ast.AST | None, _depth: int = 0) -> Estimate | None:
    """What an array-producing expression is, statically: ``{"bytes", "shape", "source"}``.

    ``bytes`` is None when the size is unknown (e.g. ``np.load``). Returns None when
    the expression is not recognisably an array.
    """
    if _depth > 8:
        return None
    if isinstance(expr, ast.Name):
        # an array bound once to a name: `W = np.random.randn(...)`, then `W.astype(...)`
        _, bindings = model.lookup(expr.id, model.function_of(expr))
        if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].value is not None:
            return array_estimate(model, bindings[0].value, _depth + 1)
        return None
    if isinstance(expr, (ast.Dict, ast.List, ast.Tuple)) and not _is_literal_display(expr):
        # a pytree of arrays, `params = {"w1": W1, "w2": W2}`: the sum of its leaves
        leaves = expr.values if isinstance(expr, ast.Dict) else expr.elts
        parts = [array_estimate(model, e, _depth + 1) for e in leaves]
        known = [p["bytes"] for p in parts if p is not None and p["bytes"] is not None and not p.get("literal")]
        if not parts or len(known) != len(parts):
            return None
        return {"bytes": sum(known), "shape": None,
                "source": "a dict of arrays" if isinstance(expr, ast.Dict) else "a list of arrays",
                "itemsize": None, "pytree": True}
    if not isinstance(expr, ast.Call):
        # a method chain like np.ones(...).astype(...) or W.T
        if isinstance(expr, ast.Attribute) and expr.attr in ("T", "mT"):
            return array_estimate(model, expr.value, _depth + 1)
        return None
    q = model.resolve_call(expr)
    if q is None:
        if isinstance(expr.func, ast.Attribute) and _is_numpy_rng(model, expr.func.value):
            return _rng_estimate(model, expr)
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("astype", "reshape", "copy", "transpose"):
            inner = array_estimate(model, expr.func.value, _depth + 1)
            if inner and expr.func.attr == "astype" and expr.args:
                b = dtype_bytes(model, expr.args[0])
                size, item = inner["bytes"], inner["itemsize"]
                if b and size is not None and item:
                    inner = {**inner, "bytes": size // item * b, "itemsize": b}
            return inner
        return None
    if q in LOADERS:
        return {"bytes": None, "shape": None, "source": q, "itemsize": None}
    if q == "jax.device_put" and expr.args:
        return array_estimate(model, expr.args[0], _depth + 1)  # moved to a device: the same array
    if q.startswith("jax.random.") and q[len("jax.random."):] in _JAX_SAMPLERS:
        # `jax.random.uniform(key, (n,), dtype)`: the shape is the second argument
        kw = {k.arg: k.value for k in expr.keywords if k.arg}
        sample_shape = static_shape(model, expr.args[1] if len(expr.args) > 1 else kw.get("shape"))
        if sample_shape is None:
            return None
        sample_item = dtype_bytes(model, kw.get("dtype") or (expr.args[2] if len(expr.args) > 2 else None)) or 4
        return {"bytes": math.prod(sample_shape) * sample_item, "shape": sample_shape, "source": q,
                "itemsize": sample_item}
    if q in _LAYERS:
        return _layer_estimate(model, q, expr)
    lib = None
    if q.startswith("numpy."):
        lib, name = "numpy", q[len("numpy."):]
    elif q.startswith("jax.numpy."):
        lib, name = "jax.numpy", q[len("jax.numpy."):]
    else:
        return None
    if name in _COMBINERS:
        return _combined(model, lib, name, expr, _depth + 1)
    if name not in NUMPY_CONSTRUCTORS:
        return None
    kw = {k.arg: k.value for k in expr.keywords if k.arg}
    default_item = 8 if lib == "numpy" else 4
    itemsize = dtype_bytes(model, kw.get("dtype"))
    shape: tuple[int, ...] | None = None
    if name in ("zeros", "ones", "empty", "full"):
        shape = static_shape(model, expr.args[0] if expr.args else kw.get("shape"))
        if itemsize is None and name == "full" and len(expr.args) > 1:
            fill = expr.args[1]
            if isinstance(fill, ast.Constant) and type(fill.value) is int:
                itemsize = 8 if lib == "numpy" else 4
        if itemsize is None and len(expr.args) > (2 if name == "full" else 1):
            itemsize = dtype_bytes(model, expr.args[2 if name == "full" else 1])
    elif name in ("eye", "identity"):
        n = static_count(model, expr.args[0]) if expr.args else None
        m = static_count(model, expr.args[1]) if len(expr.args) > 1 else n
        shape = (n, m) if n is not None and m is not None else None
    elif name == "arange":
        vals = all_known([static_count(model, a) for a in expr.args])
        if vals:
            start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals[0], vals[1], vals[2] if len(vals) > 2 else 1)
            if step:
                shape = (max(0, math.ceil((stop - start) / step)),)
            itemsize = itemsize or (8 if lib == "numpy" else 4)
    elif name == "linspace":
        n = static_count(model, expr.args[2]) if len(expr.args) > 2 else static_count(model, kw.get("num"))
        shape = (n if n is not None else 50,)
    elif name in ("random.rand", "random.randn"):
        dims = all_known([static_count(model, a) for a in expr.args])
        shape = tuple(dims) if dims is not None else None
        itemsize = 8
    elif name in ("random.random", "random.standard_normal"):
        shape = static_shape(model, expr.args[0] if expr.args else kw.get("size"))
        itemsize = 8
    elif name in ("random.normal", "random.uniform", "random.randint"):
        shape = static_shape(model, kw.get("size") or (expr.args[2] if len(expr.args) > 2 else None))
        itemsize = 8
    elif name in ("array", "asarray"):
        src = expr.args[0] if expr.args else None
        if isinstance(src, (ast.List, ast.Tuple)):
            return {"bytes": _literal_bytes(src), "shape": None, "source": q, "itemsize": None, "literal": True}
        inner = array_estimate(model, src, _depth + 1) if src is not None else None
        size = inner["bytes"] if inner is not None else None
        if inner is not None and lib == "jax.numpy" and size and inner["itemsize"] == 8 \
                and dtype_bytes(model, kw.get("dtype")) is None:
            # jnp.array(float64 numpy array) is float32 unless x64 is on
            inner = {**inner, "bytes": size // 2, "itemsize": 4}
        return inner
    else:
        return {"bytes": None, "shape": None, "source": q, "itemsize": None}
    if shape is None:
        return {"bytes": None, "shape": None, "source": q, "itemsize": itemsize, "unknown_shape": True}
    itemsize = itemsize or default_item
    return {"bytes": math.prod(shape) * itemsize, "shape": shape, "source": q, "itemsize": itemsize,
            "splat": name in ("zeros", "ones", "full", "empty")}


def _combined(model: Scopes, lib: str, name: str, call: ast.Call, depth: int) -> Estimate | None:
    """Size of ``np.repeat`` / ``np.tile`` / ``np.concatenate`` / ``np.stack`` ... from their
    inputs: a repeat or tile multiplies, a join adds."""
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    src = call.args[0] if call.args else kw.get("a") or kw.get("arrays")
    q = f"{lib}.{name}"
    if name in ("concatenate", "stack", "vstack", "hstack", "dstack", "column_stack"):
        if not isinstance(src, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred) for e in src.elts):
            return None
        parts = [array_estimate(model, e, depth) for e in src.elts]
        present = [p for p in parts if p is not None]
        known = [p["bytes"] for p in present if p["bytes"] is not None]
        if not parts or len(known) != len(parts):
            return None
        return {"bytes": sum(known), "shape": None, "source": q, "itemsize": present[0]["itemsize"]}
    inner = array_estimate(model, src, depth) if src is not None else None
    size = inner["bytes"] if inner is not None else None
    if inner is None or size is None:
        return None
    item = inner["itemsize"]
    if name in ("repeat", "tile"):
        count = call.args[1] if len(call.args) > 1 else kw.get("repeats" if name == "repeat" else "reps")
        reps = static_shape(model, count)
        if reps is None:
            return None
        return {"bytes": size * math.prod(reps), "shape": None, "source": q, "itemsize": item}
    if name == "broadcast_to":
        shape = static_shape(model, call.args[1] if len(call.args) > 1 else kw.get("shape"))
        if shape is None or not item:
            return None
        return {"bytes": math.prod(shape) * item, "shape": shape, "source": q, "itemsize": item}
    other = array_estimate(model, call.args[1], depth) if len(call.args) > 1 else None
    other_size = other["bytes"] if other is not None else None
    other_item = other["itemsize"] if other is not None else None
    if other_size is None or not item or not other_item:
        return None
    # kron / outer: every element of one times every element of the other
    n = (size // item) * (other_size // other_item)
    return {"bytes": n * max(item, other_item), "shape": None, "source": q, "itemsize": max(item, other_item)}


#: Layers whose parameters are arrays made at construction: (qualified name, the
#: positional/keyword names of the dimensions their weight count is computed from).
_LAYERS = {
    "equinox.nn.Linear": ("in_features", "out_features"),
    "equinox.nn.Embedding": ("num_embeddings", "embedding_size"),
    "equinox.nn.MLP": ("in_size", "out_size", "width_size", "depth"),
    "equinox.nn.Conv2d": ("in_channels", "out_channels", "kernel_size"),
    "flax.nnx.Linear": ("in_features", "out_features"),
    "flax.nnx.Embed": ("num_embeddings", "features"),
    "flax.nnx.Conv": ("in_features", "out_features", "kernel_size"),
}


def _layer_estimate(model: Scopes, q: str, call: ast.Call) -> Estimate | None:
    """float32 weights of an equinox / flax nnx layer from its constructor's sizes."""
    names = _LAYERS[q]
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    dims = all_known([static_count(model, call.args[i] if i < len(call.args) else kw.get(n))
                   for i, n in enumerate(names)])
    if dims is None:
        return None
    short = q.rsplit(".", 1)[-1]
    if short == "MLP":
        i, o, w, depth = dims
        count = (i * o + o) if depth == 0 else (i * w + w) + (depth - 1) * (w * w + w) + (w * o + o)
    elif short in ("Conv2d", "Conv"):
        i, o, k = dims
        count = i * o * k * k + o
    elif short == "Linear":
        count = dims[0] * dims[1] + dims[1]
    else:
        count = dims[0] * dims[1]
    lib = "eqx.nn" if q.startswith("equinox.") else "nnx"
    return {"bytes": count * 4, "shape": None, "source": f"{lib}.{short}", "itemsize": 4, "module": True}


#: numpy random generator objects: ``np.random.default_rng(0)``, ``RandomState(0)``.
_RNG_FACTORIES = {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"}
#: Generator / RandomState sampling methods: position of their ``size`` argument
#: (``None``: the dimensions are the positional arguments, as in ``randn(3, 4)``).
_RNG_METHODS = {
    "normal": 2, "uniform": 2, "integers": 2, "randint": 2, "standard_normal": 0, "random": 0,
    "random_sample": 0, "exponential": 1, "laplace": 2, "rand": None, "randn": None,
}


def _is_numpy_rng(model: Scopes, expr: ast.AST | None, depth: int = 0) -> bool:
    """``expr`` is a numpy random generator: a factory call, or a name bound once to one."""
    if isinstance(expr, ast.Call):
        return model.resolve_call(expr) in _RNG_FACTORIES
    if isinstance(expr, ast.Name) and depth < 4:
        _, bindings = model.lookup(expr.id, model.function_of(expr))
        return (len(bindings) == 1 and bindings[0].kind == "assign"
                and _is_numpy_rng(model, bindings[0].value, depth + 1))
    return False


def _rng_estimate(model: Scopes, call: ast.Call) -> Estimate | None:
    """``rng.normal(size=(784, 2048))`` and the like: numpy's modern random API."""
    method = call.func.attr  # type: ignore[attr-defined]
    if method not in _RNG_METHODS:
        return None
    pos = _RNG_METHODS[method]
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if pos is None:
        dims = all_known([static_count(model, a) for a in call.args])
        shape = tuple(dims) if dims else None
    else:
        size = kw.get("size") or (call.args[pos] if len(call.args) > pos else None)
        shape = static_shape(model, size)
    itemsize = dtype_bytes(model, kw.get("dtype")) or 8  # float64 / int64 unless told
    text = ast.unparse(call.func)
    source = text if len(text) <= 48 else method
    if shape is None:
        return {"bytes": None, "shape": None, "source": source, "itemsize": itemsize, "unknown_shape": True}
    return {"bytes": math.prod(shape) * itemsize, "shape": shape, "source": source, "itemsize": itemsize}


def _is_literal_display(node: ast.AST) -> bool:
    """``[1.0, 2.0]``, ``((0, 1), (2, 3))``: numbers, not arrays made elsewhere."""
    elts = node.values if isinstance(node, ast.Dict) else getattr(node, "elts", [])
    return all(isinstance(e, ast.Constant) or isinstance(e, (ast.List, ast.Tuple)) and _is_literal_display(e)
               or isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant) for e in elts)


def _literal_bytes(node: ast.AST) -> int:
    count = 0
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.List, ast.Tuple)):
            stack.extend(n.elts)
        else:
            count += 1
    return count * 8


def in_test(fn: FunctionInfo | None) -> bool:
    """Inside a test function or a method of a test class (pytest / unittest naming)."""
    while fn is not None:
        if fn.name.startswith("test") or (fn.class_name or "").startswith("Test") \
                or (fn.class_name or "").endswith(("Test", "Tests", "TestCase")):
            return True
        fn = fn.parent
    return False


def host_slice(model: Scopes, est: Estimate, sub: ast.Subscript) -> tuple[Estimate, bool] | None:
    """What ``ARRAY[...]`` of a NumPy array bakes in: the slice (NumPy slices on the host
    before jax sees it), and whether its size is exact: the slice's estimate where every
    bound is static; the array's, not exact, where a bound is not (``[: x.shape[0]]``: at
    most the array); None where this is no plain slicing of a NumPy array of known size
    (a jax array is baked in whole and sliced in the program)."""
    shape, size = list(est.get("shape") or ()), est.get("bytes")
    if not shape or not size or est.get("pytree") or est.get("module") or est.get("unknown_shape") \
            or not str(est.get("source", "")).startswith(("numpy.", "np.")):
        return None
    items = list(sub.slice.elts) if isinstance(sub.slice, ast.Tuple) else [sub.slice]
    if len(items) > len(shape) or any(isinstance(i, ast.Starred) or (isinstance(i, ast.Constant) and i.value is
                                                                     Ellipsis) for i in items):
        return None
    count = 1
    for n in shape:
        count *= n
    out: list[int] = []
    known = True
    for i, n in enumerate(shape):
        item = items[i] if i < len(items) else ast.Slice()
        if isinstance(item, ast.Slice):
            bounds = [static_count(model, b) if b is not None else d
                      for b, d in ((item.lower, None), (item.upper, None), (item.step, None))]
            if any(b is None and e is not None for b, e in zip(bounds, (item.lower, item.upper, item.step))):
                known = False
                continue
            lo, hi, step = bounds
            out.append(len(range(n)[slice(lo, hi, step or None)]))
        elif static_count(model, item) is None:
            return None  # an array index (gathered on the host too) or an unknown: as before, the array
    if not known:
        return est, False
    elems = 1
    for n in out:
        elems *= n
    return Estimate(bytes=size // count * elems, shape=tuple(out), source=est["source"],
                    itemsize=est.get("itemsize")), True
