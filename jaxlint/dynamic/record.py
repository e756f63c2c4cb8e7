"""The recorder ``jaxlint record`` injects into the user's Python processes.

``jaxlint record -- CMD`` puts a ``sitecustomize`` shim on ``PYTHONPATH`` that calls
:func:`install`. Installing costs nothing until the program imports jax: a
meta-path hook then wraps ``jax.jit`` (before any user module can bind it), so every
jitted function records, per call, its abstract signature: array leaves as
shape/dtype/weak type, static arguments by value (JSON where possible, else repr),
the pytree structure, and a call count. At exit each process writes its records to
``$JAXLINT_RECORD_DIR/records-<pid>.json``; the command merges them into
``.jaxlint/signatures.json`` (:mod:`jaxlint.dynamic.signatures`).

Functions are keyed ``module:qualname`` with the module named from the file's path
under the project root (:func:`jaxlint.dynamic.project.module_name`), so a script run
as ``__main__`` still matches the static jit map.
"""
from __future__ import annotations

import atexit
import functools
import importlib.abc
import importlib.machinery
import inspect
import json
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

_LOCK = threading.Lock()
#: key -> {"file", "line", "qualname", "static_argnums", "static_argnames", "sigs": {canonical: sig}}
_RECORDS: dict[str, dict] = {}
_INSTALLED = False


# ---------------------------------------------------------------------------- install
class _JaxHook(importlib.abc.MetaPathFinder):
    """Patch ``jax.jit`` right after ``jax`` itself finishes importing."""

    def find_spec(self, name, path, target=None):
        if name != "jax":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_module(module):
            original_exec(module)
            _patch(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    global _INSTALLED
    if _INSTALLED or not os.environ.get("JAXLINT_RECORD_DIR"):
        return
    _INSTALLED = True
    if "jax" in sys.modules:
        _patch(sys.modules["jax"])
    else:
        sys.meta_path.insert(0, _JaxHook())
    atexit.register(flush)


def _patch(jax_module) -> None:
    original = jax_module.jit
    if getattr(original, "_jaxlint_recording", False):
        return

    @functools.wraps(original)
    def jit(fun=None, *args, **kwargs):
        if fun is None:  # @jax.jit(static_argnums=...) in newer versions
            return lambda f: jit(f, *args, **kwargs)
        jitted = original(fun, *args, **kwargs)
        try:
            return _Recorded(jitted, fun, kwargs)
        except Exception:  # never break the user's program
            return jitted

    jit._jaxlint_recording = True  # type: ignore[attr-defined]
    jax_module.jit = jit


class _Recorded:
    """Calls the real jitted function after noting the call's abstract signature."""

    def __init__(self, jitted, fun, kwargs: dict) -> None:
        self._jitted = jitted
        self._fun = fun
        self.__wrapped__ = fun
        functools.update_wrapper(self, fun, updated=())
        self._key, self._meta = _describe(fun, kwargs)

    def __call__(self, *args, **kwargs):
        if self._key is not None:
            try:
                _note(self._key, self._meta, args, kwargs)
            except Exception:  # recording must never change what the program does
                pass
        return self._jitted(*args, **kwargs)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._jitted, name)


# ---------------------------------------------------------------------------- signatures
def _describe(fun, kwargs: dict) -> tuple[str | None, dict]:
    code = getattr(inspect.unwrap(fun), "__code__", None)
    if code is None:
        return None, {}
    from jaxlint.dynamic import project

    path = Path(code.co_filename).resolve()
    name = getattr(fun, "__qualname__", getattr(fun, "__name__", "?"))
    if name.rsplit(".", 1)[-1] == "<lambda>":
        name = f"<lambda>@{code.co_firstlineno}"
    root = Path(os.environ.get("JAXLINT_RECORD_ROOT", os.getcwd()))
    if root != path and root not in path.parents:
        return None, {}  # library code: not the user's to fix
    module, _ = project.module_name(path, root)
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    nums = kwargs.get("static_argnums") or ()
    nums = (nums,) if isinstance(nums, int) else tuple(nums)
    names = kwargs.get("static_argnames") or ()
    names = (names,) if isinstance(names, str) else tuple(names)
    static_names = set(names) | {params[i] for i in nums if -len(params) <= i < len(params)}
    static_nums = set(nums) | {params.index(n) for n in names if n in params}
    meta = {"file": path.relative_to(root).as_posix(), "line": code.co_firstlineno, "qualname": name,
            "params": params, "static_nums": sorted(i % max(len(params), 1) for i in static_nums),
            "static_names": sorted(static_names)}
    return f"{module}:{name}", meta


def _note(key: str, meta: dict, args: tuple, kwargs: dict) -> None:
    static_nums = set(meta["static_nums"])
    static_names = set(meta["static_names"])
    sig = {
        "args": [_value(a) if i in static_nums else _tree(a) for i, a in enumerate(args)],
        "kwargs": {k: (_value(v) if k in static_names else _tree(v)) for k, v in sorted(kwargs.items())},
    }
    canon = json.dumps(sig, sort_keys=True)
    with _LOCK:
        entry = _RECORDS.get(key)
        if entry is None:
            entry = _RECORDS[key] = {"file": meta["file"], "line": meta["line"], "qualname": meta["qualname"],
                                     "static_argnums": meta["static_nums"],
                                     "static_argnames": meta["static_names"], "sigs": {}}
        cur = entry["sigs"].get(canon)
        if cur is None:
            entry["sigs"][canon] = dict(sig, calls=1)
        else:
            cur["calls"] += 1


def _value(v: Any) -> dict:
    try:
        json.dumps(v)
        if isinstance(v, (str, int, float, bool, type(None), list, dict)):
            return {"value": v}
    except (TypeError, ValueError):
        pass
    # default reprs carry a memory address: drop it so records are stable across runs
    return {"repr": re.sub(r" at 0x[0-9a-fA-F]+", "", repr(v))[:200]}


def _tree(x: Any) -> dict:
    if x is None:
        return {"value": None}
    if isinstance(x, bool):
        return {"array": [], "dtype": "bool", "weak": False}
    if isinstance(x, (int, float, complex)):
        import jax.numpy as jnp
        from jax import dtypes

        return {"array": [], "dtype": str(dtypes.canonicalize_dtype(jnp.asarray(x).dtype)), "weak": True}
    aval = getattr(x, "aval", None)
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is not None and dtype is not None and not isinstance(x, (tuple, list, dict)):
        weak = bool(getattr(aval, "weak_type", getattr(x, "weak_type", False)))
        import numpy as np

        try:
            dt = str(np.dtype(dtype))
        except TypeError:
            dt = str(dtype)
        return {"array": [int(d) for d in shape], "dtype": dt, "weak": weak}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        t = type(x)
        return {"namedtuple": f"{t.__module__}:{t.__qualname__}", "fields": {f: _tree(getattr(x, f)) for f in x._fields}}
    if isinstance(x, tuple):
        return {"tuple": [_tree(v) for v in x]}
    if isinstance(x, list):
        return {"list": [_tree(v) for v in x]}
    if isinstance(x, dict) and all(isinstance(k, str) for k in x):
        return {"dict": {k: _tree(x[k]) for k in sorted(x)}}
    t = type(x)
    node: dict = {"opaque": f"{t.__module__}.{t.__qualname__}"}
    try:
        import jax

        leaves, treedef = jax.tree_util.tree_flatten(x)
        if not (len(leaves) == 1 and leaves[0] is x):
            node["leaves"] = [_tree(v) for v in leaves]
            node["treedef"] = str(treedef)[:300]
    except Exception:
        pass
    return node


def flush() -> None:
    out = os.environ.get("JAXLINT_RECORD_DIR")
    if not out or not _RECORDS:
        return
    with _LOCK:
        data = {}
        for key, e in _RECORDS.items():
            data[key] = {k: v for k, v in e.items() if k != "sigs"}
            data[key]["signatures"] = list(e["sigs"].values())
    try:
        os.makedirs(out, exist_ok=True)
        tmp = os.path.join(out, f".records-{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, os.path.join(out, f"records-{os.getpid()}.json"))
    except OSError:
        pass
