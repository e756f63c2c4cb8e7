"""What the recorder keeps of a jitted function and of each call: the function's key
and description (:func:`describe`: module, qualname, static and donated arguments, where
the project jits a library's function), and a call's abstract signature, counted under
its canonical text (:func:`note_call`: array leaves as shape, dtype, weak type and
placement, static arguments by value, opaque objects by type, leaves and a digest, their
arguments saved abstractly when JSON cannot rebuild them)."""
from __future__ import annotations

import functools
import inspect
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jaxlint.dynamic.record_state import RECORDER, file_digest, in_project, notebook_cell, record_root, recorder_error

if TYPE_CHECKING:
    from jaxlint.dynamic.signatures import Signature


def describe(fun, kwargs: dict, kind: str, jit_line: int | None = None,
              jit_file: str | None = None) -> tuple[str | None, dict]:
    """(the function's key, what the recording keeps of it); a None key leaves it unrecorded.
    ``jit_file``/``jit_line``: the project's ``jax.jit(...)`` call that made it, if any."""
    inner = fun
    bound = 0
    while isinstance(inner, functools.partial):  # jax.jit(partial(apply, params)): apply's
        bound += len(inner.args)
        inner = inner.func
    code = getattr(inspect.unwrap(inner), "__code__", None)
    from jaxlint.dynamic import project

    name = getattr(inner, "__qualname__", getattr(inner, "__name__", None)) or type(inner).__name__
    root = record_root()
    library = code is None or not in_project(code.co_filename)
    if library or code is None:
        # a library's function (haiku's `apply_fn`, `jnp.cumsum`) the project jits itself:
        # keyed and placed at the project's jit call, where the user chooses how to call it
        if jit_file is None or jit_line is None or not in_project(jit_file):
            return None, {}  # a library jitting its own code: not the user's to fix
        code_file, first_line = jit_file, jit_line
        name = ".".join(p for p in str(name).split(".") if p != "<locals>")
    else:
        code_file, first_line = code.co_filename, code.co_firstlineno
    path = Path(code_file).resolve()
    cell = notebook_cell(code_file)
    if cell is not None:  # a notebook's code: keyed and placed in the notebook
        path, first_line = Path(cell[0]), first_line + cell[1]
    suffix = ""
    if library:
        suffix = f"@jit{first_line}"
    elif name.rsplit(".", 1)[-1] == "<lambda>":
        name = f"<lambda>@{first_line}"
    else:
        last = _definitions(str(path)).get(name)
        if last is not None and last != first_line:
            # defined again further down (a notebook's later cell, a factory redefined):
            # a function of its own; the last definition, which the module's name holds
            # after import, keeps the plain key
            suffix = f"@{first_line}"
    module, _ = project.module_name(path, root)
    file_digest(str(path))  # the content the program runs, before anyone edits it
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    nums = kwargs.get("static_argnums" if kind != "pmap" else "static_broadcasted_argnums")
    nums = () if nums is None else (nums,) if isinstance(nums, int) else tuple(nums)  # 0 is an argnum
    names = kwargs.get("static_argnames")
    names = () if names is None else (names,) if isinstance(names, str) else tuple(names)
    # jit names the parameters of the non-negative static_argnums static too; a negative
    # one counts from the end of each call's positional arguments (static_given), which
    # defaults can shorten: it names no parameter
    static_names = set(names) | {params[i] for i in nums if 0 <= i < len(params)}
    static_nums = {i for i in nums if i >= 0} | {params.index(n) for n in names if n in params}
    donate = kwargs.get("donate_argnums")
    donate = () if donate is None else (donate,) if isinstance(donate, int) else tuple(donate)
    donate_names = kwargs.get("donate_argnames")
    donate_names = () if donate_names is None else (donate_names,) if isinstance(donate_names, str) \
        else tuple(donate_names)
    meta = {"file": path.relative_to(root).as_posix(), "line": first_line, "qualname": name,
            "params": params, "static_nums": sorted(static_nums),
            "static_names": sorted(static_names), "kind": kind, "module": module, "jit_line": jit_line,
            "partial_bound": bound,
            "donate_nums": sorted({int(i) for i in donate} | {params.index(n) for n in donate_names if n in params})}
    if any(int(i) < 0 for i in nums):  # counted from the end of each call's arguments, as jax does
        meta["static_given"] = [[int(i) for i in nums], list(names)]
    if cell is not None:  # analysed in the lines of the cell IPython compiled
        meta["code_file"], meta["code_line"] = code_file, first_line - cell[1]
    if library:
        meta["library"] = getattr(inner, "__module__", None) or "?"
    if kind == "pmap":  # the worker binds the axis name to trace collectives (psum ...)
        mapped = {k: kwargs[k] for k in ("axis_name", "in_axes") if k in kwargs}
        try:
            json.dumps(mapped)
            meta["pmap"] = mapped
        except (TypeError, ValueError):
            pass
    return f"{module}:{name}{suffix}", meta


def _definitions(path: str) -> dict[str, int]:
    """Where each function of the file (by qualname) is defined last: a name defined
    more than once in a module holds its last definition after import."""
    hit = RECORDER.definitions.get(path)
    if hit is not None:
        return hit
    import ast

    out: dict[str, int] = {}
    try:
        if path.endswith(".ipynb"):
            from jaxlint.files.notebook import read_module_text

            text = read_module_text(path)
        else:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except Exception:  # unreadable, or not Python: every function keeps its plain key
        tree = None

    def visit(body: list, prefix: str) -> None:
        for n in body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[prefix + n.name] = min([n.lineno] + [d.lineno for d in n.decorator_list])
                visit(n.body, f"{prefix}{n.name}.<locals>.")
            elif isinstance(n, ast.ClassDef):
                visit(n.body, f"{prefix}{n.name}.")
            else:  # a definition under if/for/with/try is in the same scope
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    inner = getattr(n, field, None)
                    if isinstance(inner, list):
                        visit([c for c in inner if isinstance(c, ast.AST)], prefix)

    if tree is not None:
        visit(tree.body, "")
    RECORDER.definitions[path] = out
    return out


def call_arguments(meta: dict, args: tuple, kwargs: dict) -> Signature:
    """A call's arguments as its signature writes them (``args``, ``kwargs``): static
    arguments by value (or text), the others as abstract trees."""
    from jaxlint.dynamic.signatures import static_positions

    static_nums = static_positions(meta, len(args))
    static_names = set(meta["static_names"])
    # equinox.filter_jit traces array leaves only: a Python number is a static value there
    numbers_static = meta["kind"] == "filter_jit"
    return {
        "args": [_value(a) if i in static_nums else _tree(a, numbers_static) for i, a in enumerate(args)],
        "kwargs": {k: (_value(v) if k in static_names else _tree(v, numbers_static))
                   for k, v in sorted(kwargs.items())},
    }


def note_call(key: str, meta: dict, args: tuple, kwargs: dict) -> tuple[str, Signature, bool]:
    """Count the call under its abstract signature; returns (the signature's canonical
    text, the signature, whether the call runs inside another function's trace)."""
    sig = call_arguments(meta, args, kwargs)
    if "bound" in meta:
        sig["bound"] = meta["bound"]
    from jaxlint.dynamic import adapter

    mesh = adapter.context_mesh()
    if mesh is not None:  # called under `with mesh:` / `jax.set_mesh`: a worker traces it there too
        sig["mesh"] = mesh

    inlined = adapter.has_tracer((args, kwargs))
    under = adapter.eager_transform() if inlined else None
    if under is not None:  # under jax.vmap/grad outside any jit: a program of its own, analysed per example
        inlined = False
        sig["under"] = under
    if inlined:  # called inside another trace: inlined there, not a compile of its own
        sig["inlined"] = True
    canon = json.dumps(sig, sort_keys=True)
    with RECORDER.lock:
        entry = RECORDER.records.get(key)
        if entry is None:
            from jaxlint.dynamic.signatures import jit_static_argnums

            entry = RECORDER.records[key] = {
                "file": meta["file"], "line": meta["line"], "qualname": meta["qualname"],
                "static_argnums": jit_static_argnums(meta), "transform": meta["kind"],
                "static_argnames": meta["static_names"], "sigs": {}}
            if "pmap" in meta:
                entry["pmap"] = meta["pmap"]
        cur = entry["sigs"].get(canon)
        if cur is not None:
            cur["calls"] += 1
            return canon, cur, inlined
    from jaxlint.dynamic import signatures

    if signatures.rebuildable(sig) is not None:
        # JSON cannot rebuild an argument (a model, an optimizer state): keep the call's
        # arguments abstractly too, once per distinct signature
        _save_abstract(sig, args, kwargs, meta["module"])
    with RECORDER.lock:
        cur = entry["sigs"].get(canon)
        if cur is None:
            cur = entry["sigs"][canon] = {**sig, "calls": 1}
        else:
            cur["calls"] += 1
    return canon, sig, inlined


def _save_abstract(sig: Signature, args: tuple, kwargs: dict, module: str) -> None:
    from jaxlint.dynamic import abstract

    try:
        data = abstract.dumps(args, kwargs, module)
    except RecursionError:
        sig["unsaved"] = "the arguments are nested too deeply to save"
        return
    except Exception as e:  # any user object may refuse to pickle
        sig["unsaved"] = f"the arguments cannot be saved: {type(e).__name__}: {str(e)[:160]}"
        return
    sha = abstract.digest(data)
    RECORDER.blobs[sha] = data
    sig["pickle"] = sha


def _value(v: Any) -> dict:
    try:
        json.dumps(v)
        if isinstance(v, (str, int, float, bool, type(None), list, dict)):
            return {"value": v}
    except (TypeError, ValueError):
        pass
    # default reprs carry a memory address: drop it so records are stable across runs
    return {"repr": re.sub(r" at 0x[0-9a-fA-F]+", "", repr(v))[:200]}


def _python_number(x: Any) -> bool:
    """A Python number, which jit makes a weak scalar; not a NumPy scalar (``np.float64``
    is a ``float`` too), which jit takes as an array of its dtype, not weak."""
    return isinstance(x, (bool, int, float, complex)) and type(x).__module__ != "numpy"


def _tree(x: Any, numbers_static: bool = False) -> dict:
    if x is None:
        return {"value": None}
    if isinstance(x, (bool, int, float, complex)) and numbers_static:
        return _value(x)
    if isinstance(x, bool):
        return {"array": [], "dtype": "bool", "weak": False}
    if _python_number(x):
        import numpy as np

        # what jit makes of a Python number: a weak scalar of the x64 setting's width
        return {"array": [], "dtype": _canonical_dtype(np.dtype(type(x))), "weak": True}
    array = _array_node(x)
    if array is not None:
        return array
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        t = type(x)
        return {"namedtuple": f"{t.__module__}:{t.__qualname__}",
                "fields": {f: _tree(getattr(x, f), numbers_static) for f in x._fields}}
    if isinstance(x, tuple):
        return {"tuple": [_tree(v, numbers_static) for v in x]}
    if isinstance(x, list):
        return {"list": [_tree(v, numbers_static) for v in x]}
    if isinstance(x, dict) and all(isinstance(k, str) for k in x):
        node: dict = {"dict": {k: _tree(x[k], numbers_static) for k in sorted(x)}}
        if type(x) is not dict:  # a pytree class of its own (an OrderedDict, a `dot_dict`): jit keys on it
            node["class"] = f"{type(x).__module__}:{type(x).__qualname__}"
        return node
    return _opaque(x, numbers_static)


def _attr(x: Any, name: str) -> Any:
    """``getattr(x, name, None)`` for any user object: a class whose ``__getattr__`` raises
    something else than AttributeError for a missing name (``__getattr__ =
    dict.__getitem__`` raises KeyError) has no such attribute either."""
    try:
        return getattr(x, name, None)
    except Exception:
        return None


def _array_node(x: Any) -> dict | None:
    if isinstance(x, (tuple, list, dict)):
        return None
    shape = _attr(x, "shape")
    dtype = _attr(x, "dtype")
    if shape is None or dtype is None or isinstance(shape, property):
        return None
    aval = _attr(x, "aval")
    weak = bool(getattr(aval, "weak_type", False) if hasattr(aval, "weak_type") else _attr(x, "weak_type"))
    import numpy as np

    try:
        dims = [int(d) for d in shape]
    except (TypeError, ValueError):
        return None
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = str(dtype)
        if dt.startswith("key<"):  # a typed PRNG key array (jax.random.key)
            import jax

            return {"key": dims, "impl": str(jax.random.key_impl(x))}
        return {"array": dims, "dtype": dt, "weak": weak}
    if isinstance(x, (np.ndarray, np.generic)):
        # jit converts a numpy value to the dtype jax canonicalises it to under this
        # run's x64 setting (float64 -> float32 when x64 is off): what it compiles
        return {"array": dims, "dtype": _canonical_dtype(dt), "weak": False}
    node = {"array": dims, "dtype": str(dt), "weak": weak}
    sharding = _sharding_of(x)
    if sharding is not None:
        node["sharding"] = sharding
    from jaxlint.dynamic.abstract import REF_TYPE

    if REF_TYPE is not None and isinstance(x, REF_TYPE):
        # a mutable array ref (jax.ref.new_ref): jit traces its aval, a ref of this shape,
        # dtype and placement; its arguments are saved to rebuild it (signatures.rebuildable)
        node["ref"] = True
    return node


#: (numpy dtype, x64) -> the dtype name jax canonicalises it to
_CANONICAL: dict[tuple, str] = {}


def _canonical_dtype(dt: Any) -> str:
    import numpy as np

    from jaxlint.dynamic import adapter

    key = (dt, adapter.x64_enabled())
    hit = _CANONICAL.get(key)
    if hit is None:
        from jax import dtypes

        hit = _CANONICAL[key] = str(np.dtype(dtypes.canonicalize_dtype(dt)))
    return hit


#: (sharding, committed) -> its description (None: the default placement); shardings
#: are hashable, so a placement seen before costs a lookup
_SHARDINGS: dict[tuple, dict | None] = {}


def _sharding_of(x: Any) -> dict | None:
    """How a jax array is placed, as jit keys its cache on it (None: the default, an
    uncommitted single-device array; also for a tracer, which has no placement yet)."""
    global _JAX_TYPES
    if _JAX_TYPES is None:
        from jaxlint.dynamic import adapter

        _JAX_TYPES = adapter.PLACEMENT_TYPES
    tracer, _ = _JAX_TYPES
    if isinstance(x, tracer):
        return None
    try:
        sharding = x.sharding
        committed = bool(x._committed)
    except Exception:  # an array-like without a placement
        return None
    if not committed:  # the default: jit places an uncommitted argument itself (one device)
        return None
    key = (sharding, committed)
    try:
        return _SHARDINGS[key]
    except KeyError:
        from jaxlint.dynamic import adapter

        hit = _SHARDINGS[key] = adapter.sharding_node(sharding, committed)
        return hit


#: (the tracer class, the single-device sharding class), once jax is loaded
_JAX_TYPES: tuple | None = None


def _opaque(x: Any, numbers_static: bool = False) -> dict:
    """A model, an optimizer state, any object JSON cannot rebuild: its type, its array
    leaves by path (what a reviewer and the recompilation rule read) and a digest of
    its static part (module hyperparameters, activation functions ...). A Python number
    leaf is written as ``_tree`` writes it (a weak scalar under jit, its value under
    filter_jit), so two records differ only where jit tells them apart."""
    t = type(x)
    node: dict = {"opaque": f"{t.__module__}.{t.__qualname__}"}
    try:
        from jaxlint.dynamic import abstract

        leaves, static, _, objects = abstract.structure(x)
    except Exception as e:  # the argument is recorded by its type alone
        recorder_error("describing an argument's leaves", e)
        return node
    if leaves:
        node["leaves"] = {path or ".": (_tree(v, numbers_static) if _python_number(v)
                                        else _array_node(v) or _value(v)) for path, v in leaves}
    if static:
        node["static"] = abstract.short_digest(static)
    if objects:  # static values that compare by identity: which one each is
        node["objects"] = objects
    return node
