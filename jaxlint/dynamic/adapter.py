"""The one module that touches jax internals. Everything version-dependent lives here.

Only dynamic-phase workers import this module (it imports jax). Rules and the rest of
the worker use the small, stable vocabulary below: ``walk``, ``sub_jaxprs``,
``frames``, ``constants``, ``nbytes``, ``dtype_name``, ``versions``.

Version table (observed on CPU; docs/architecture.md, "Facts about jax"):

| what                         | 0.4.38                          | 0.6.x                 | 0.8.x                      | 0.10.x                  |
|------------------------------|---------------------------------|-----------------------|----------------------------|-------------------------|
| IR classes                   | ``jax.extend.core``             | same                  | same                       | same                    |
| ``source_info_util.user_frames`` (private) | takes ``SourceInfo`` | takes ``SourceInfo`` | takes ``si.traceback``  | takes ``si.traceback``  |
| captured traceback           | includes the caller's frames    | includes callers      | includes callers           | stops at traced fn      |
| const type in ``consts``     | ``numpy.ndarray``               | ndarray               | ``TypedNdArray`` (``.val``) | ndarray subclass        |
| simplified constants mode    | absent                          | absent                | non-scalar ``Literal``s    | same                    |
| jit equation name            | ``pjit``                        | ``pjit``              | ``jit``                    | ``jit``                 |
| ``jax.debug.print`` primitive | ``debug_callback``             | ``debug_callback``    | ``debug_print``?           | ``debug_print``         |
| backend-compile event's name | none (``log_elapsed_time``'s local ``fun_name``) | not read | not read | ``fun_name`` keyword |

Private names used: ``jax._src.source_info_util.user_frames`` (columns of user
frames), the jaxlib ``Traceback.frames`` attribute of ``SourceInfo.traceback``
(the raw stack, to see ``tree_map`` between user frames), ``Jaxpr.debug_info``
(argument names), ``Jaxpr.pretty_print``'s options (``jaxlint inspect``), the C++ jit's
post-call hook (``jax._src.api._post_hook_state``, ``jax_jit.global_state().post_hook`` on
0.4.38: each dispatch outside the jitted functions, :func:`install_dispatch_hook`), and
``jax._src.compiler.compile_or_get_cached`` (wrapped while ``jaxlint record`` runs a
program, to see the executables it compiles; see :func:`capture_compiles`). On jax 0.4.38, the
``fun_name`` local of ``jax._src.dispatch.log_elapsed_time`` (the compiled function's name,
which its backend-compile event does not carry; :func:`compile_event_function`). Each is
wrapped so that a missing attribute degrades to "no column" / "no raw stack" / "no
captured compile", never to a crash.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import gc
import operator
import os
import sysconfig
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import jax
import numpy as np

from jaxlint.dynamic.project import not_the_projects
from jaxlint.process.fdcapture import capture_stderr

try:  # public and present from 0.4.36 on
    from jax.extend.core import ClosedJaxpr, Jaxpr, Literal
except ImportError:  # pragma: no cover - older than supported
    # jax before 0.4.36 kept them in jax.core (its stubs of a newer jax do not)
    from jax.core import ClosedJaxpr, Jaxpr, Literal  # type: ignore[no-redef,attr-defined]

_siu: Any
try:
    from jax._src import source_info_util as _siu
except ImportError:  # pragma: no cover
    _siu = None

#: Primitives that call back into Python on the host, across versions.
CALLBACK_PRIMITIVES = frozenset({
    "pure_callback", "io_callback", "debug_callback", "debug_print", "callback",
    "outside_call", "host_callback_call", "ffi_call_python",
})
#: Primitives whose body runs once per iteration.
LOOP_PRIMITIVES = frozenset({"scan", "while", "fori_loop"})

_JAX_DIR = os.path.dirname(os.path.abspath(jax.__file__)) + os.sep
try:
    import jaxlib as _jaxlib

    _JAXLIB_DIR = os.path.dirname(os.path.abspath(_jaxlib.__file__)) + os.sep
except Exception:  # pragma: no cover
    _JAXLIB_DIR = _JAX_DIR
_STDLIB_DIR = os.path.abspath(sysconfig.get_paths().get("stdlib", "/nonexistent")) + os.sep
_JAXLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@dataclass(frozen=True)
class Frame:
    """One Python frame of an equation's creation stack (1-based line and column)."""

    file: str
    line: int
    column: int  # 1-based; 1 when unknown
    end_line: int
    end_column: int
    function: str


def library_versions() -> dict[str, str]:
    """The versions of jax and jaxlib (what a compiled program's figures depend on)."""
    import jaxlib

    return {"jax": jax.__version__, "jaxlib": getattr(jaxlib, "__version__", "?")}


def versions() -> dict[str, str]:
    """:func:`library_versions` and the default backend."""
    try:
        backend = jax.default_backend()
    except Exception:  # no usable backend: tracing still works
        backend = os.environ.get("JAX_PLATFORMS", "cpu")
    return {**library_versions(), "backend": backend}


# ---------------------------------------------------------------------------- IR walking
def sub_jaxprs(eqn) -> list[tuple[Jaxpr, tuple]]:
    """(jaxpr, consts) of every sub-program in an equation's params, in param order.

    Walks the params generically (never by primitive name): this finds jit, scan,
    cond/switch branches, while cond/body, custom_jvp/vjp and checkpoint bodies.
    """
    out: list[tuple[Jaxpr, tuple]] = []

    def visit(v: Any) -> None:
        if isinstance(v, ClosedJaxpr):
            out.append((v.jaxpr, tuple(v.consts)))
        elif isinstance(v, Jaxpr):
            out.append((v, ()))
        elif isinstance(v, (tuple, list)):
            for x in v:
                visit(x)

    for v in eqn.params.values():
        visit(v)
    return out


@dataclass(frozen=True)
class Level:
    """One jaxpr in the nesting tree, with where it sits."""

    jaxpr: Jaxpr
    consts: tuple
    #: primitive names of the enclosing equations, outermost first
    context: tuple[str, ...]
    parent_eqn: Any = None
    parent: "Level | None" = None


def walk(closed) -> Iterator[Level]:
    """Every jaxpr reachable from a ClosedJaxpr, outermost first."""
    stack = [Level(closed.jaxpr, tuple(closed.consts), ())]
    while stack:
        lv = stack.pop()
        yield lv
        subs = []
        for eqn in lv.jaxpr.eqns:
            for j, consts in sub_jaxprs(eqn):
                subs.append(Level(j, consts, lv.context + (eqn.primitive.name,), eqn, lv))
        stack.extend(reversed(subs))


def callback_function(eqn) -> Any:
    """The Python function a host-callback equation calls (through jax's wrappers and
    ``functools.partial``), or None when it cannot be found."""
    fn = eqn.params.get("callback")
    for _ in range(8):
        inner = getattr(fn, "callback_func", None) or getattr(fn, "func", None) or getattr(fn, "__wrapped__", None)
        code = getattr(fn, "__code__", None)
        if inner is None and code is not None and code.co_filename.startswith(_JAX_DIR):
            # jax's own closure around the user's function (debug_callback's `_flat_callback`)
            cells = [c.cell_contents for c in getattr(fn, "__closure__", None) or () if _filled(c)]
            inner = next((c for c in cells if callable(c) and hasattr(c, "__code__")), None)
        if inner is None or inner is fn:
            break
        fn = inner
    return fn if callable(fn) else None


def under_jit(fun: Any, partials: bool = True) -> Any:
    """The Python function a jit-like wrapper (``eqx.filter_jit``, ``jax.jit``, ``jax.pmap``)
    traces: decorators, the jit-like wrappers themselves (jax's have ``lower``) and
    ``functools.partial`` (unless not ``partials``) removed, but not a jax transform it
    applies (``@eqx.filter_jit`` over ``@jax.vmap``, ``jax.pmap(jax.grad(loss))``,
    ``jax.checkpoint``, a ``jax.custom_vjp``/``custom_jvp`` function and its rule): that
    transform is part of the traced program (its wrapper's code is jax's own), where
    ``inspect.unwrap`` would drop it."""
    for _ in range(16):
        if partials and isinstance(fun, functools.partial):
            fun = fun.func
            continue
        if isinstance(fun, _CUSTOM_RULES):  # its __wrapped__ is the primal, without the rule
            break
        inner = getattr(fun, "__wrapped__", None)
        code = getattr(fun, "__code__", None)
        if inner is None or inner is fun or code is not None and code.co_filename.startswith(_JAX_DIR) \
                and not hasattr(fun, "lower"):
            break
        fun = inner
    return fun


#: jax's functions with a differentiation rule of their own (callable objects, not functions)
_CUSTOM_RULES = tuple(t for t in (getattr(jax, "custom_vjp", None), getattr(jax, "custom_jvp", None))
                      if isinstance(t, type))


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return True


def never_returns(fn: Any) -> bool:
    """Whether a Python function can only raise: its code raises and has no ``return``
    (CPython leaves out the implicit one after a final ``raise``), as equinox's error
    checks do inside ``lax.cond``."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    hit = _NEVER_RETURNS.get(code)
    if hit is None:
        import dis

        ops = {i.opname for i in dis.get_instructions(code)}
        hit = _NEVER_RETURNS[code] = "RAISE_VARARGS" in ops and not ops & {"RETURN_VALUE", "RETURN_CONST",
                                                                             "YIELD_VALUE"}
    return hit


_NEVER_RETURNS: dict[Any, bool] = {}


def primitive_name(eqn) -> str:
    return eqn.primitive.name


def is_literal(v) -> bool:
    return isinstance(v, Literal)


def literal_value(v):
    return v.val


def aval_of(v):
    return v.aval


def shape_of(aval) -> tuple:
    return tuple(getattr(aval, "shape", ()) or ())


def dtype_name(aval) -> str:
    return _dtype_name(getattr(aval, "dtype", None))


@functools.lru_cache(maxsize=256)
def _dtype_name(dt) -> str:
    return str(np.dtype(dt)) if dt is not None and _is_numpy_dtype(dt) else str(dt)


def aval_key(aval) -> tuple:
    """A cheap hashable identity of an abstract value (shape, dtype, weak type)."""
    return (shape_of(aval), getattr(aval, "dtype", None), weak_type(aval))


def stack_key(si) -> int | str:
    """An identity of an equation's whole creation stack: equal for the equations one
    source line makes on every iteration of a Python loop. jaxlib's ``Traceback`` hashes
    by its frames (comparing two is slow, so only the 64-bit hash is kept); without
    one, the one-line summary stands in."""
    tb = _traceback(si)
    if tb is not None:
        try:
            return hash(tb)
        except TypeError:
            pass
    return summarize(si)


def _is_numpy_dtype(dt) -> bool:
    try:
        np.dtype(dt)
        return True
    except TypeError:
        return False


def itemsize(aval) -> int:
    dt = getattr(aval, "dtype", None)
    if dt is None:
        return 0
    try:
        return int(np.dtype(dt).itemsize)
    except TypeError:  # extended dtypes (PRNG keys): count their base representation
        return int(getattr(dt, "itemsize", 4) or 4)


def nbytes(aval, symbolic_size: int = 8) -> int:
    """Size in bytes of an abstract value; symbolic dimensions count as ``symbolic_size``."""
    n = 1
    for d in shape_of(aval):
        try:
            n *= int(d)
        except Exception:  # symbolic dimension
            n *= symbolic_size
    return n * itemsize(aval)


def aval_str(aval) -> str:
    """``float32[1024,1024]``: the jaxpr spelling, the same in every version."""
    dims = ",".join(str(d) for d in shape_of(aval))
    return f"{dtype_name(aval)}[{dims}]"


def short_type(aval) -> str:
    """``f32[1024,1024]``, as jax prints a jaxpr's types (``str_short`` of the aval)."""
    try:
        return aval.str_short(short_dtypes=True)
    except (AttributeError, TypeError):
        return aval_str(aval)


def weak_type(aval) -> bool:
    return bool(getattr(aval, "weak_type", False))


def args_info_leaves(traced) -> list:
    """A traced function's ``args_info`` leaves, one ``ArgInfo`` (shape, dtype, donated)
    per array argument; its nodes are the user's pytree nodes."""
    return jax.tree_util.tree_leaves(traced.args_info, is_leaf=_is_arg_info)


def _is_arg_info(x) -> bool:
    # a user's node may answer a missing attribute with another error than AttributeError
    # (a dict subclass with ``__getattr__ = dict.__getitem__`` raises KeyError)
    try:
        return hasattr(x, "donated")
    except Exception:
        return False


def const_array(value) -> np.ndarray | None:
    """A constant's value as a numpy array (unwrapping 0.8's ``TypedNdArray``)."""
    v = getattr(value, "val", value)
    try:
        return np.asarray(v)
    except Exception:
        return None


# ---------------------------------------------------------------------------- source info
def _traceback(si):
    return getattr(si, "traceback", None)


def raw_frames(si) -> list[tuple[str, int, str]]:
    """(file, line, function) of every frame, innermost first, jax's included."""
    tb = _traceback(si)
    if tb is None:
        return []
    try:
        return [(f.file_name, f.line_num, f.function_name) for f in tb.frames]
    except Exception:
        return []


def _user_frames_private(si) -> list | None:
    if _siu is None or not hasattr(_siu, "user_frames"):
        return None
    for arg in (_traceback(si), si):  # 0.8+ takes the traceback, older the SourceInfo
        if arg is None:
            continue
        try:
            return list(_siu.user_frames(arg))
        except Exception:
            continue
    return None


def is_library_file(path: str) -> bool:
    """Frames we never report at: jax, jaxlib, jaxlint, the standard library, site-packages,
    and any file not the project's where that is known (:func:`jaxlint.dynamic.project.set_project`)."""
    return _installed_file(path) or (not path.startswith("<") and not_the_projects(os.path.abspath(path)))


@functools.lru_cache(maxsize=8192)
def _installed_file(path: str) -> bool:
    p = os.path.abspath(path) if path and not path.startswith("<") else path
    if not p or p.startswith("<"):
        return True
    if p.startswith((_JAX_DIR, _JAXLIB_DIR, _JAXLINT_DIR, _STDLIB_DIR)):
        return True
    return "site-packages" in p or "dist-packages" in p


def frames(si) -> list[Frame]:
    """User frames of an equation, innermost first (jax's own frames removed)."""
    priv = _user_frames_private(si)
    out: list[Frame] = []
    if priv is not None:
        for f in priv:
            line = int(getattr(f, "start_line", getattr(f, "line_num", 0)) or 0)
            col = getattr(f, "start_column", None)
            end_line = getattr(f, "end_line", None) or line
            end_col = getattr(f, "end_column", None)
            out.append(Frame(
                f.file_name, line, (int(col) + 1) if col is not None and col >= 0 else 1,
                int(end_line), (int(end_col) + 1) if end_col is not None and end_col >= 0 else 1,
                getattr(f, "function_name", "?"),
            ))
    else:
        for file, line, fn in raw_frames(si):
            out.append(Frame(file, line, 1, line, 1, fn))
    return [f for f in out if not is_library_file(f.file)]


def output_sources(jaxpr) -> list:
    """Per output of ``jaxpr`` (a ``Jaxpr``), the source info of the equation that made
    it; None for an output that is an input or a literal (one pass, from the end)."""
    wanted: dict[int, list[int]] = {}
    for i, v in enumerate(jaxpr.outvars):
        if not isinstance(v, Literal):
            wanted.setdefault(id(v), []).append(i)  # one variable may be returned at several places
    out: list = [None] * len(jaxpr.outvars)
    for eqn in reversed(jaxpr.eqns):
        if not wanted:
            break
        for v in eqn.outvars:
            for i in wanted.pop(id(v), ()):
                out[i] = eqn.source_info
    return out


def made_in_library(si) -> bool:
    """True when the innermost frame outside jax that made an equation is a library's
    (site-packages, the standard library): code the program calls, not code it wrote."""
    priv = _user_frames_private(si)
    if priv is not None:
        files = [f.file_name for f in priv]
    else:
        files = [file for file, _, _ in raw_frames(si) if not file.startswith((_JAX_DIR, _JAXLIB_DIR))]
    return bool(files) and is_library_file(files[0])


def via_tree_map(si) -> bool:
    """True when the equation was produced by a function that ``tree_map`` called."""
    return any(fn.split(".")[0] in ("tree_map", "tree_map_with_path", "map") and "tree_util" in file
               for file, _, fn in raw_frames(si)) or any(
        "tree_util" in file and "tree_map" in fn for file, _, fn in raw_frames(si))


def summarize(si) -> str:
    try:
        from jax.extend import source_info_util

        return source_info_util.summarize(si)
    except Exception:  # pragma: no cover
        return "?"


def arg_names(closed) -> list[str] | None:
    """Flat argument names jax recorded while tracing (``x``, ``params['w']``), if any.
    ``Jaxpr.debug_info`` is not public API and its shape has changed between versions."""
    try:
        names = closed.jaxpr.debug_info.arg_names
    except AttributeError:
        return None
    return list(names) if names is not None else None


def unread_inputs(traced: Any, static_nums: tuple = (), leaf_paths: list | None = None) -> tuple[list[list], str]:
    """(the leaves of a jit's arguments that its traced program never reads, a digest of
    the program without them). A leaf no equation and no output uses is dropped by jax
    from what it compiles (``keep_unused=False``); each is ``[position, path]``: the
    argument's position among all of the call's (static ones counted) or a keyword's name,
    and the leaf's path below it (``.reward``, ``['w']``). The digest covers the top-level
    equations (primitives, their plain parameters such as axes and shapes, what each reads,
    literal values, output types; a nested program by its outputs' types only), the read
    inputs' types and the outputs: two signatures whose digests match trace the same program but
    for unread leaves. ([], "") when the trace does not say (no ``args_info``).
    ``leaf_paths``: each input's path in the call's ``(args, kwargs)`` where the traced
    program takes them otherwise (``equinox.filter_jit``'s flat array leaves)."""
    import hashlib

    jaxpr = traced.jaxpr.jaxpr
    used = {id(v) for eqn in jaxpr.eqns for v in eqn.invars if not isinstance(v, Literal)}
    used.update(id(v) for v in jaxpr.outvars if not isinstance(v, Literal))
    unread = [n for n, v in enumerate(jaxpr.invars) if id(v) not in used]
    paths = list(leaf_paths) if leaf_paths is not None else \
        [p for p, _ in jax.tree_util.tree_flatten_with_path(traced.args_info)[0]]
    if len(paths) != len(jaxpr.invars) or len(jaxpr.eqns) > _DIGEST_MOST:
        return [], ""
    static = sorted(int(n) for n in static_nums or ())
    out: list[list] = []
    for n in unread:
        where, rest = paths[n][:2], paths[n][2:]
        if len(where) == 2 and getattr(where[0], "idx", None) == 0 and hasattr(where[1], "idx"):
            position = int(where[1].idx)
            for s in static:  # the dynamic arguments' positions skip the static ones
                position += position >= s
            out.append([position, jax.tree_util.keystr(tuple(rest))])
        elif len(where) == 2 and getattr(where[0], "idx", None) == 1 and hasattr(where[1], "key"):
            out.append([str(where[1].key), jax.tree_util.keystr(tuple(rest))])
        else:
            return [], ""
    # the read inputs numbered among themselves, the program's own variables in order of definition
    names: dict[int, Any] = {id(v): k for k, v in enumerate(v for v in jaxpr.invars if id(v) in used)}

    def name(v: Any) -> Any:
        if isinstance(v, Literal):
            if shape_of(v.aval):
                return ("const", _aval_parts(v.aval))
            val = v.val  # a scalar: its value (numpy's repr of one is slow)
            return ("lit", val.item() if hasattr(val, "item") else val, _aval_parts(v.aval))
        return names.get(id(v), "?")

    parts: list = [[_aval_parts(v.aval) for v in jaxpr.invars if id(v) in used]]
    collecting = gc.isenabled()
    gc.disable()  # many small tuples beside a program's large heap: no collection halfway
    try:
        for eqn in jaxpr.eqns:
            for v in eqn.outvars:
                names[id(v)] = -len(names)
            parts.append((eqn.primitive.name, [(k, v) for k, v in eqn.params.items() if _plain(v)],
                          [name(v) for v in eqn.invars],
                          [_aval_parts(getattr(v, "aval", None)) for v in eqn.outvars]))
        parts.append([name(v) for v in jaxpr.outvars])
        text = repr(parts)
    finally:
        if collecting:
            gc.enable()
    return out, hashlib.sha256(text.encode()).hexdigest()[:16]


def _aval_parts(aval: Any) -> tuple:
    """An abstract value as a cheap tuple: its shape, dtype and weak type."""
    dtype = getattr(aval, "dtype", None)
    name = _DTYPE_NAMES.get(dtype)
    if name is None:  # numpy's str of a dtype is slow: once per dtype
        name = _DTYPE_NAMES[dtype] = str(dtype)
    return tuple(getattr(aval, "shape", ())), name, bool(getattr(aval, "weak_type", False))


_DTYPE_NAMES: dict = {}


def _plain(v: Any) -> bool:
    """A parameter said whole by a cheap repr (a number, a name, a short tuple of them: axes,
    shapes, flags); a nested program, a sharding or a function is not."""
    if isinstance(v, tuple):
        return len(v) <= 16 and all(isinstance(x, (bool, int, float, str)) or x is None for x in v)
    return v is None or isinstance(v, (bool, int, float, str))


#: the most top-level equations whose program :func:`unread_inputs` digests (a pass over each)
_DIGEST_MOST = 20_000


# ---------------------------------------------------------------------------- constants
def constant_inputs(closed) -> Iterator[tuple[Any, Any, Level]]:
    """(var-or-literal, value, level) for every baked-in constant at every nesting level.

    Default mode: ``constvars`` of each ClosedJaxpr. Simplified-constants mode
    (``JAX_USE_SIMPLIFIED_JAXPR_CONSTANTS``): non-scalar ``Literal`` inputs.
    """
    for lv in walk(closed):
        for var, value in zip(lv.jaxpr.constvars, lv.consts):
            yield var, value, lv
        for eqn in lv.jaxpr.eqns:
            for v in eqn.invars:
                if isinstance(v, Literal) and shape_of(v.aval):
                    yield v, v.val, lv


# ---------------------------------------------------------------------------- config
def x64_enabled() -> bool:
    try:
        return bool(getattr(jax.config, "jax_enable_x64"))  # a flag's attribute: not in jax's stubs
    except AttributeError:  # pragma: no cover - very old spelling
        return bool(jax.config.read("jax_enable_x64"))


def set_x64(on: bool) -> None:
    if x64_enabled() != on:
        jax.config.update("jax_enable_x64", on)


# ---------------------------------------------------------------------------- shardings
#: what the recorder tells apart per array leaf: a tracer (no placement yet) and the
#: default placement's class (uncommitted, one device)
PLACEMENT_TYPES = (jax.core.Tracer, jax.sharding.SingleDeviceSharding)


def sharding_node(sharding: Any, committed: bool) -> dict | None:
    """What jit keys its cache on in an array's placement, as JSON: ``None`` for the
    default (an uncommitted array on one device, which jit moves where it runs); the
    mesh (axis names and sizes, in order) and the partition spec, one entry per
    dimension up to the last sharded one (``None``: replicated; else a list of axis
    names); the device of a committed single-device array; else the sharding's text and
    device count. ``committed`` is kept with it."""
    devices: Any = getattr(sharding, "device_set", None) or ()
    if len(devices) == 1 and type(sharding).__name__ == "SingleDeviceSharding":
        if not committed:
            return None
        (dev,) = devices
        return {"device": int(dev.id), "platform": str(dev.platform), "committed": True}
    mesh, spec = getattr(sharding, "mesh", None), getattr(sharding, "spec", None)
    if mesh is not None and spec is not None and hasattr(mesh, "shape"):
        shape = dict(mesh.shape)
        node: dict = {"mesh": {"axes": [str(a) for a in shape], "sizes": [int(v) for v in shape.values()]},
                      "spec": [_spec_entry(p) for p in tuple(spec)]}
        while node["spec"] and node["spec"][-1] is None:  # P(None, None) is P(): one placement to jit
            node["spec"].pop()
    else:
        node = {"repr": " ".join(str(sharding).split())[:200], "devices": len(devices)}
    memory = getattr(sharding, "memory_kind", None)
    if memory is not None and memory != _default_memory(devices):
        node["memory"] = str(memory)
    node["committed"] = bool(committed)
    return node


def _spec_entry(p: Any) -> list[str] | None:
    if isinstance(p, (tuple, list)):
        return [str(a) for a in p] or None
    return None if p is None else [str(p)]


def _default_memory(devices) -> str | None:
    """The memory kind arrays of these devices get by default (``device`` on 0.10's CPU,
    ``unpinned_host`` on 0.4.38's)."""
    try:
        return next(iter(devices)).default_memory().kind
    except Exception:  # a jax without memories: every array is in the default one
        return None


# ---------------------------------------------------------------------------- the context mesh
# A jitted function may read the mesh it is called under (`with_sharding_constraint(x,
# P("data"))` with a bare spec, `shard_map` without a mesh): `with mesh:` sets the
# "physical" mesh (jax 0.4.38 and later), `jax.set_mesh(mesh)` the abstract and concrete
# ones (jax 0.5 and later; `jax._src.mesh` in both: private, read only here).

def context_mesh() -> dict | None:
    """The mesh the caller runs under, as JSON (``{"axes", "sizes", "context"}``, and
    ``"types"`` for a ``jax.set_mesh`` mesh's axis types); None outside any mesh."""
    from jax._src import mesh as mesh_lib

    env = getattr(getattr(mesh_lib, "thread_resources", None), "env", None)
    physical = getattr(env, "physical_mesh", None)
    if physical is not None and not physical.empty:
        shape = dict(physical.shape)
        return {"axes": [str(a) for a in shape], "sizes": [int(v) for v in shape.values()], "context": "with"}
    get_abstract = getattr(mesh_lib, "get_abstract_mesh", None)
    abstract = get_abstract() if get_abstract is not None else None
    if abstract is None or getattr(abstract, "empty", True) or not hasattr(jax, "set_mesh"):
        return None
    node = {"axes": [str(a) for a in abstract.axis_names], "sizes": [int(v) for v in abstract.axis_sizes],
            "context": "set_mesh"}
    types = getattr(abstract, "axis_types", None)
    if isinstance(types, tuple):
        node["types"] = [getattr(t, "name", str(t)) for t in types]
    return node


def dispatch_state() -> tuple[Any, type, Any]:
    """(jax's per-thread tracing context, the class its ``trace`` is outside any trace or
    transform, the ``jax_disable_jit`` setting): a call made with that trace and jit on
    is one jax's cache of the jitted function answers (a tracer or ``disable_jit`` takes
    jax's Python path, which adds nothing to that cache). Raises where this jax keeps
    them elsewhere (the recorder then keys every call)."""
    from jax._src import config, core

    ctx, evaluating, no_jit = core.trace_ctx, core.EvalTrace, config.disable_jit
    if ctx.trace.__class__ is not evaluating or not isinstance(no_jit.value, bool):
        raise RuntimeError("jax's tracing context is not where the recorder reads it")
    return ctx, evaluating, no_jit


def install_dispatch_hook(hook: Callable[[Any, Any, Any, Any], None]) -> bool:
    """Call ``hook(fun, args, kwargs, output)`` after every call jax's C++ jit runs from its
    cache, outside any trace: each is one dispatch of a compiled program, and every eager
    jax operation is one (a ``lax`` primitive applied eagerly runs as a jitted program of
    its own, and ``jax.numpy``'s and ``jax.random``'s functions are jitted). A call that
    traces or compiles takes jax's Python path and is not one of them. The hook is the C++
    jit's post-call hook, the one ``jax_debug_nans`` uses (private:
    ``jax._src.api._post_hook_state`` on 0.10, ``jax_jit.global_state().post_hook`` on
    0.4.38); while ``jax_debug_nans`` or ``jax_debug_infs`` is on, jax's NaN check runs after
    ``hook``, and turning them on or off later keeps ``hook``. False where this jax has no
    such hook (nothing is counted)."""
    from jax._src import api, config

    nan_check = getattr(api, "_nan_check_posthook", None)

    def checking(fun: Any, args: Any, kwargs: Any, output: Any) -> None:
        hook(fun, args, kwargs, output)
        if nan_check is not None:
            nan_check(fun, args, kwargs, output)

    def current() -> Callable:
        on = config._read("jax_debug_nans") or config._read("jax_debug_infs")
        return checking if on else hook

    state = getattr(api, "_post_hook_state", None)
    if state is not None and callable(getattr(state, "set_global", None)):  # jax 0.10
        def put_global(_: Any = None) -> None:
            state.set_global(current())

        # a thread's own None would hide the global hook: the thread's value is unset instead
        unset = getattr(getattr(config, "config_ext", None), "unset", None)

        def put_local(_: Any = None) -> None:  # a thread's `with jax.debug_nans(...)`, also jax's own
            on = config.debug_nans.get_local() is True or config.debug_infs.get_local() is True
            state.set_local(checking if on else unset)
    else:  # jax 0.4.38: the C++ jit's state itself
        try:
            from jax._src.lib import jax_jit
        except ImportError:
            return False
        if not hasattr(jax_jit.global_state(), "post_hook"):
            return False

        def put_global(_: Any = None) -> None:
            jax_jit.global_state().post_hook = current()

        def put_local(_: Any = None) -> None:
            on = config.debug_nans.get_local() is True or config.debug_infs.get_local() is True
            jax_jit.thread_local_state().post_hook = checking if on else None
    put_global()
    for option in (config.debug_nans, config.debug_infs):  # jax's own hooks would set its check instead
        if hasattr(option, "_add_hooks"):
            option._add_hooks(put_global, put_local)
    return True


def mesh_state() -> tuple[Any, Callable[[], Any]]:
    """(an object whose ``env`` is another one under ``with mesh:``, a function that
    returns the mesh ``jax.set_mesh`` entered): the recorder's fast path compares what
    they return, by identity first, to know that a call runs in the mesh context of the
    signature it was seen with (:func:`context_mesh` describes it, at a higher cost)."""
    from jax._src import mesh as mesh_lib

    resources = getattr(mesh_lib, "thread_resources", None)
    if not hasattr(resources, "env"):
        resources = _NoResources()
    get = getattr(mesh_lib, "get_abstract_mesh", None) or (lambda: None)
    # jax 0.5+: get_abstract_mesh() reads this state (None outside `jax.set_mesh`); read it
    # without a Python frame on every call (the recorder compares it by identity)
    state = getattr(getattr(mesh_lib, "jax_config", None), "abstract_mesh_context_manager", None)
    if state is not None and hasattr(type(state), "value"):
        value = functools.partial(operator.attrgetter("value"), state)
        try:
            if value() in (None, get()):
                return resources, value
        except Exception:  # another jax: keep its function
            pass
    return resources, get


class _NoResources:
    env = None


def mesh_shortfall(node: dict | None) -> str | None:
    """Why the recorded ``node``'s mesh cannot be made on this process's devices (it
    needs more than there are), or None."""
    sizes, have = _mesh_sizes(node), jax.devices()
    if sizes is None or node is None or int(np.prod(sizes)) <= len(have):
        return None
    shape = ", ".join(f"{a}={n}" for a, n in zip(node["axes"], sizes))
    return (f"the program called it under a mesh of {int(np.prod(sizes))} devices ({shape}), and this "
            f"worker has {len(have)} {have[0].platform} device{'s' if len(have) != 1 else ''}: "
            f"`devices = {int(np.prod(sizes))}` in [tool.jaxlint.dynamic] gives the CPU workers as many")


@contextlib.contextmanager
def within_mesh(node: dict | None) -> Iterator[None]:
    """Run the block under a mesh like the recorded ``node`` (see :func:`context_mesh`) on
    this process's first devices, entered as the program entered it; nothing when there is
    no node or too few devices (:func:`mesh_shortfall` says why first)."""
    mesh = _mesh_of(node)
    if mesh is None or node is None:
        yield
        return
    if node.get("context") == "set_mesh" and hasattr(jax, "set_mesh"):
        with jax.set_mesh(mesh):
            yield
    else:
        with mesh:
            yield


def _mesh_sizes(node: dict | None) -> list[int] | None:
    """The sizes of a mesh as a recording writes it, or None for anything else."""
    if not isinstance(node, dict):
        return None  # no mesh
    axes, sizes = node.get("axes"), node.get("sizes")
    if not isinstance(axes, list) or not isinstance(sizes, list) or not axes or len(axes) != len(sizes) \
            or not all(isinstance(a, str) for a in axes) or not all(type(n) is int and n > 0 for n in sizes):
        return None  # not a mesh a recording writes
    return sizes


def _mesh_of(node: dict | None) -> Any:
    sizes = _mesh_sizes(node)
    if sizes is None or node is None:
        return None
    axes = node["axes"]
    devices = jax.devices()
    if int(np.prod(sizes)) > len(devices):
        return None
    grid = np.array(devices[:int(np.prod(sizes))]).reshape(sizes)
    axes = tuple(axes)
    kinds = getattr(jax.sharding, "AxisType", None)
    types = node.get("types")
    if kinds is not None and isinstance(types, list) and len(types) == len(axes):
        try:
            return jax.sharding.Mesh(grid, axes, axis_types=tuple(getattr(kinds, t) for t in types))
        except (AttributeError, TypeError):  # an axis type this jax does not have: its default types
            pass
    return jax.sharding.Mesh(grid, axes)


# ---------------------------------------------------------------------------- a running program's compiles
# `jaxlint record` analyses the program's own compiles instead of compiling again: while a
# recorded call runs, every executable XLA builds for it (or jax's persistent cache
# returns) is captured from ``jax._src.compiler.compile_or_get_cached``, the one function
# every jit/pmap compile goes through in 0.4.38 ... 0.10.x (private: wrapped here only).
# Its result is the jaxlib ``LoadedExecutable`` the program then runs, which has what a
# ``Compiled`` reads: the optimized HLO text, ``cost_analysis()`` and memory statistics.

@dataclass
class CapturedCompile:
    """One XLA compile seen while a recorded call ran."""

    module_name: str  # "jit_train_step"
    executable: Any
    seconds: float
    #: what XLA's C++ log printed during the compile (stderr)
    log: tuple[str, ...] = ()
    #: the process's CPU time during the compile (less sensitive to load than ``seconds``)
    cpu_seconds: float = 0.0

    def as_text(self) -> str:
        exe = self.executable
        if hasattr(exe, "get_hlo_text"):
            return exe.get_hlo_text()
        return "\n\n".join(m.to_string() for m in exe.hlo_modules())

    def cost_analysis(self) -> Any:
        return self.executable.cost_analysis()

    def memory_analysis(self) -> Any:
        return self.executable.get_compiled_memory_stats()

    def platform(self) -> tuple[str, str]:
        try:
            d = self.executable.local_devices()[0]
        except Exception:
            d = jax.devices()[0]
        return str(getattr(d, "platform", "cpu")), str(getattr(d, "device_kind", ""))


_CAPTURE = threading.local()
_CAPTURE_INSTALLED: bool | None = None
#: how many compiles this process has done since the capture was installed (read before
#: and after a call, it tells cheaply whether the call compiled: the recorder's fast path)
COMPILE_COUNT = [0]
#: the latest compiles made outside a capture block: (their number in COMPILE_COUNT, the
#: thread that made them, the compile without its executable)
UNCAPTURED: collections.deque = collections.deque(maxlen=64)


def compiles_since(count: int) -> list[CapturedCompile]:
    """The compiles this thread made outside a capture block since ``COMPILE_COUNT`` was
    ``count`` (the latest 64 at most); the thread's latest one with its executable (a
    call the recorder learns was new only after it ran reads it as a captured compile)."""
    me = threading.get_ident()
    last = getattr(_LAST_UNCAPTURED, "exe", None)
    return [dataclasses.replace(c, executable=last[1]) if last is not None and last[0] == n else c
            for n, thread, c in list(UNCAPTURED) if n > count and thread == me]


#: per thread, (its number in COMPILE_COUNT, the executable) of its latest compile made
#: outside a capture block: one executable kept, which jax keeps anyway
_LAST_UNCAPTURED = threading.local()


def compile_event_function(frame: Any, depth: int = 8) -> str | None:
    """The name of the function a backend-compile event (``jax.monitoring``) is about,
    where the event does not say it: jax 0.10 passes it as the event's ``fun_name``; jax
    0.4.38 sends the event with no name from ``jax._src.dispatch.log_elapsed_time``, whose
    ``fun_name`` local names the function compiled. ``frame``: the listener's caller; the
    stack above it is searched ``depth`` frames up. None where no such frame is found."""
    while frame is not None and depth > 0:
        if frame.f_code.co_name == "log_elapsed_time":
            name = frame.f_locals.get("fun_name")
            return str(name) if name else None
        frame, depth = frame.f_back, depth - 1
    return None


def watch_compiles() -> bool:
    """Start seeing (and timing) this process's compiles, before any recorded call: a
    program that compiles a function ahead of time (``.lower(...).compile()``) and then
    calls it makes its real compile there. False when this jax offers no way to."""
    return _install_capture()


def _install_capture() -> bool:
    global _CAPTURE_INSTALLED
    if _CAPTURE_INSTALLED is not None:
        return _CAPTURE_INSTALLED
    try:
        from jax._src import compiler
    except ImportError:
        _CAPTURE_INSTALLED = False
        return False
    original = getattr(compiler, "compile_or_get_cached", None)
    if original is None:
        _CAPTURE_INSTALLED = False
        return False

    @functools.wraps(original)
    def compile_or_get_cached(*args, **kwargs):
        COMPILE_COUNT[0] += 1
        stack = getattr(_CAPTURE, "stack", None)
        if not stack:  # timed too: a program's ahead-of-time `.lower().compile()` is its real compile
            t0, c0 = time.perf_counter(), time.process_time()
            exe = original(*args, **kwargs)
            note = CapturedCompile(_module_name(args, kwargs), None, time.perf_counter() - t0, (),
                                   time.process_time() - c0)
            UNCAPTURED.append((COMPILE_COUNT[0], threading.get_ident(), note))
            _LAST_UNCAPTURED.exe = (COMPILE_COUNT[0], exe)
            return exe
        t0, c0 = time.perf_counter(), time.process_time()
        log: list[str] = []
        with capture_stderr(log):  # the SPMD partitioner warns only in XLA's C++ log
            exe = original(*args, **kwargs)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        stack[-1].append(CapturedCompile(_module_name(args, kwargs), exe, seconds, tuple(log), cpu))
        return exe

    compiler.compile_or_get_cached = compile_or_get_cached
    _CAPTURE_INSTALLED = True
    return True


def _module_name(args: tuple, kwargs: dict) -> str:
    """The name of the module ``compile_or_get_cached`` compiles (``jit_train_step``)."""
    try:
        computation = args[1] if len(args) > 1 else kwargs["computation"]
        return str(computation.operation.attributes["sym_name"]).strip('"')
    except Exception:
        return "?"


@contextlib.contextmanager
def capture_compiles() -> Iterator[list[CapturedCompile] | None]:
    """Collect the compiles done in this thread inside the block (``None`` when this jax
    offers no way to see them). Nested blocks each see only their own compiles."""
    if not _install_capture():
        yield None
        return
    stack = getattr(_CAPTURE, "stack", None)
    if stack is None:
        stack = _CAPTURE.stack = []
    mine: list[CapturedCompile] = []
    stack.append(mine)
    try:
        yield mine
    finally:
        stack.pop()


def flatten(tree: Any) -> tuple[list, Any]:
    """(leaves, treedef) of a pytree, as jit flattens its arguments."""
    return jax.tree_util.tree_flatten(tree)


@functools.lru_cache(maxsize=None)
def concrete_array_type() -> type:
    """The type of a concrete jax array (a tracer is not one): its ``aval`` (shape,
    dtype, weak type) is what jit keys its cache on. Made outside any trace: the first
    recorded call may come from inside one (a jitted body of a `lax.while_loop` at the top
    level), where a new array is a tracer. A NumPy array put on the device: no operation
    runs, so nothing is compiled (`jnp.zeros(())` compiled a `convert_element_type` in the
    program, a compile of jaxlint's own that `benchmarks/bench_record.py` counted)."""
    with jax.ensure_compile_time_eval():
        return type(jax.device_put(np.zeros((), np.float32)))


@functools.lru_cache(maxsize=None)
def key_array_type() -> tuple[type, Callable[[Any], Any]]:
    """(the type of a typed PRNG key array, ``jax.random.key``'s, a getter of the array of
    its key data): a key whose data is a concrete array (:func:`concrete_array_type`) is
    concrete too; one whose data is a tracer is traced. Made outside any trace, by wrapping
    key data put on the device: `jax.random.key(0)` would compile the seeding in the program."""
    with jax.ensure_compile_time_eval():
        return type(jax.random.wrap_key_data(jax.device_put(np.zeros((2,), np.uint32)))), \
            operator.attrgetter("_base_array")


def has_tracer(tree: Any) -> bool:
    """Whether a pytree holds a tracer: a jitted function called with it runs inside
    another function's trace (it is inlined there, not compiled on its own)."""
    try:
        leaves = jax.tree_util.tree_leaves(tree)
    except Exception:
        return False
    return any(is_tracer(x) for x in leaves)


def is_tracer(x: Any) -> bool:
    return isinstance(x, jax.core.Tracer)


def eager_transform() -> str | None:
    """The transform a call with tracers runs under when no program is being traced
    (``jax.vmap(solve)(ys)`` outside any jit: a jitted ``solve`` then compiles a program
    of its own, batched): ``"vmap"``, ``"grad"`` or the trace's name; None when a jit,
    scan or other staged trace is under way (the call is inlined there) or when this jax
    does not tell (``jax._src.core.trace_ctx``, private: read only here)."""
    from jax._src import core

    trace = getattr(getattr(core, "trace_ctx", None), "trace", None)
    names: list[str] = []
    while trace is not None and len(names) < 64:
        names.append(type(trace).__name__)
        trace = getattr(trace, "parent_trace", None)
    if not names or any("Jaxpr" in n and n != "JaxprTrace" for n in names) or names[-1] != "EvalTrace":
        return None
    outer = names[0]
    return {"BatchTrace": "vmap", "JVPTrace": "grad", "LinearizeTrace": "grad"}.get(outer, outer)


def abstract_tracers(tree: Any) -> Any:
    """``tree`` with each tracer replaced by a ``ShapeDtypeStruct`` of its aval (under
    ``vmap``: one example's shape)."""
    def leaf(x: Any) -> Any:
        if not is_tracer(x):
            return x
        aval = x.aval
        return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=bool(getattr(aval, "weak_type", False)))

    return jax.tree_util.tree_map(leaf, tree)


# ---------------------------------------------------------------------------- shardings
def sharding_facts(shardings, ndims) -> tuple[dict, list]:
    """(mesh, per-leaf partition specs) of a sequence of ``jax.sharding.Sharding``s, one
    per argument leaf of rank ``ndims[i]``. The mesh is the first ``NamedSharding``'s
    ({"axes", "sizes"}; empty without one); a spec is a tuple with one entry per
    dimension (None, or a tuple of axis names), or None for a sharding without names."""
    mesh: dict = {}
    specs: list = []
    for i, s in enumerate(shardings):
        m = getattr(s, "mesh", None)
        spec = getattr(s, "spec", None)
        if m is None or spec is None or not hasattr(m, "axis_names"):
            specs.append(None)
            continue
        try:
            shape = dict(m.shape)
            names = [str(a) for a in m.axis_names]
        except Exception:  # an abstract mesh without sizes, or a new kind of mesh
            specs.append(None)
            continue
        if not mesh:
            mesh = {"axes": names, "sizes": [int(shape[a]) for a in m.axis_names]}
        entries: list[tuple[str, ...] | None] = []
        for e in tuple(spec):
            if e is None:
                entries.append(None)
            elif isinstance(e, (tuple, list)):
                entries.append(tuple(str(a) for a in e) or None)
            else:
                entries.append((str(e),))
        n = ndims[i] if i < len(ndims) else len(entries)
        entries = (entries + [None] * n)[:n]
        specs.append(tuple(entries))
    return mesh, specs


def array_shardings(tree) -> list:
    """The ``.sharding`` of each ``jax.Array`` leaf of a pytree of real values; a flax NNX
    object (not a pytree before flax 0.11) by its state, as ``nnx.jit`` passes it."""
    import sys

    graph = getattr(sys.modules.get("flax.nnx"), "graph", None)
    is_node = getattr(graph, "is_graph_node", None)
    out = []
    for x in jax.tree_util.tree_leaves(tree):
        if is_node is not None and not isinstance(x, jax.Array) and is_node(x):
            out.extend(array_shardings(sys.modules["flax.nnx"].state(x)))
        elif isinstance(x, jax.Array) and not is_tracer(x):  # a tracer (an eager vmap's) has no placement
            out.append(x.sharding)
    return out
