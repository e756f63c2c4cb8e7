"""The dynamic-phase worker: the only process that imports and runs user code.

Started by :mod:`jaxlint.dynamic.pool` with the command it is given (``check`` runs
:mod:`jaxlint.inspect.levels`, which calls :func:`main` with the analysis levels); one
``import jax`` per worker, then any number of files. Protocol: one JSON object per
line, requests on the original stdin, events on the original stdout (both are moved
to private descriptors first, so user ``print``/``input`` cannot corrupt them; user
output goes to stderr, which the parent keeps in a log to explain crashes).

Request (one file)::

    {"id", "path", "root", "module", "sys_path": [...], "x64": null|bool,
     "levels": ["trace"] | ["trace", "compile", ...],
     "rules": [{"code", "options"}],        # selected TraceRule/CompileRule codes
     "dimensions": {"defaults": {...}, "default": 8},
     "functions": [{"qualname", "entry", "spec", "signatures"}]}

``path`` and ``root`` are absolute and resolved: the one form paths cross into a
worker in; the parent makes what it answers root-relative (``driver._from_worker``).

Events: ``ready`` (versions), ``begin`` (``step``: ``import`` | ``trace`` | a later
level, so the parent applies the right timeout), ``function`` (status ``analysed`` |
``skipped`` | ``failed``, reason, diagnostics, timings), ``file_failed`` (import
failed: reason, user line), ``done``.

Analysis levels: after a function is traced, the trace rules run; then, for each
further level the request names (``"compile"``), the analysers ``main`` was given for
it and the rules of that phase, through the functions the recorder's in-process analysis
shares (:func:`jaxlint.dynamic.analysis.run_rules`,
:func:`~jaxlint.dynamic.analysis.run_analysers`). Before each level the worker sends
``{"event": "begin", "step": level}``; the parent then applies the level's timeout
(``compile-timeout`` for ``compile``).
"""
from __future__ import annotations

import contextlib
import faulthandler
import importlib
import importlib.util
import inspect
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from jaxlint.dynamic.project import set_project, under_root

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import Analysers


class _Out:
    def __init__(self, fd: int) -> None:
        self.f = os.fdopen(fd, "w", encoding="utf-8", buffering=1)

    def send(self, obj: dict) -> None:
        self.f.write(json.dumps(obj, default=str, separators=(",", ":")) + "\n")
        self.f.flush()


def isolate_stdio() -> tuple[Any, _Out]:
    """(request stream, event sink) on private descriptors; user code then reads an
    empty stdin and prints to stderr, so it cannot corrupt the protocol."""
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    out = _Out(os.dup(1))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # user prints land in the worker log, not in the protocol
    return proto_in, out


def limit_memory() -> None:
    mb = int(os.environ.get("JAXLINT_MEMORY_LIMIT_MB", "0") or 0)
    if mb <= 0:
        return
    import resource

    limit = mb << 20
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # not permitted here: run without a cap
        pass


# ---------------------------------------------------------------------------- user lines
def user_line(tb, path: str, roots: list[str], error: BaseException | None = None) -> tuple[str, int] | None:
    """The innermost traceback frame in the checked file, else in the project. A
    module that does not compile has no frame of its own (the error is raised in
    ``<frozen importlib._bootstrap>``): the error's own file and line stand in."""
    frames = [(fr.filename, fr.lineno) for fr in traceback.extract_tb(tb)] if tb is not None else []
    if isinstance(error, SyntaxError) and error.filename and error.lineno:
        frames.append((error.filename, error.lineno))  # the innermost place
    # only real files: `<frozen ...>`, `<string>` would become bogus paths in every report
    frames = [(f, ln) for f, ln in frames if f and not f.startswith("<") and os.path.isfile(f)]
    apath = os.path.abspath(path)
    for f, ln in reversed(frames):
        if os.path.abspath(f) == apath:
            return apath, ln or 1
    from jaxlint.dynamic.adapter import is_library_file

    for f, ln in reversed(frames):
        f = os.path.abspath(f)
        if any(f.startswith(r + os.sep) for r in roots) and not is_library_file(f):
            return f, ln or 1
    return None


def essence(e: BaseException) -> str:
    """``TypeError: first line of the message``: an exception as one line of a finding."""
    msg = str(e).strip().splitlines()
    first = msg[0] if msg else ""
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


# ---------------------------------------------------------------------------- import
def add_sys_path(entries: list[str]) -> list[str]:
    """Put the project's import roots first on ``sys.path``; returns them, absolute."""
    roots = [os.path.abspath(p) for p in entries]
    for p in reversed(roots):
        if p not in sys.path:
            sys.path.insert(0, p)
    return roots


def _same(a: str | None, b: str) -> bool:
    if not a:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def import_user_module(name: str, path: str):
    """Import by dotted name (relative imports work); fall back to the file itself when
    the name is taken by another module or not importable."""
    importlib.invalidate_caches()
    mod = sys.modules.get(name)
    if mod is not None and _same(getattr(mod, "__file__", None), path):
        return mod
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if not (e.name and (name == e.name or name.startswith(e.name + "."))):
            raise
        mod = None
    if mod is not None and _same(getattr(mod, "__file__", None), path):
        return mod
    is_pkg = os.path.basename(path) == "__init__.py"
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[os.path.dirname(path)] if is_pkg else None)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return mod


@contextlib.contextmanager
def as_recorded(program: dict | None):
    """Import a script the way `jaxlint record` ran it: its argv, working directory and
    allow-listed environment variables (a configuration that reads ``sys.argv``);
    everything is put back afterwards."""
    if not program:
        yield
        return
    argv, cwd = list(sys.argv), os.getcwd()
    env = {k: os.environ.get(k) for k in program.get("env") or {}}
    try:
        sys.argv = [str(a) for a in program.get("argv") or sys.argv]
        if program.get("cwd") and os.path.isdir(program["cwd"]):
            os.chdir(program["cwd"])
        os.environ.update({k: str(v) for k, v in (program.get("env") or {}).items()})
        yield
    finally:
        sys.argv = argv
        try:
            os.chdir(cwd)
        except OSError:
            pass
        for k, v in env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def program_x64_policy(req: dict) -> str | None:
    """Where the checked program made float64 its policy (see
    :func:`jaxlint.static.project.program_x64`): its module, the main script it was
    recorded running, its project's package and configuration files, its environment."""
    from jaxlint.static.project import program_x64

    root = Path(req["root"]) if req.get("root") else None
    main = (req.get("program") or {}).get("main")
    script = None
    if root is not None and isinstance(main, str) and main:
        script = root.joinpath(*main.split(".")).with_suffix(".py")
    return program_x64(req["path"], root, dict(os.environ), script if script and script.is_file() else None)


# ---------------------------------------------------------------------------- inputs
class InputError(Exception):
    """The input spec cannot be turned into trace arguments (a skip, not a finding)."""


def build_value(node: dict, dims: dict, symbolic: bool, scope: Any = None):
    import jax
    import jax.numpy as jnp

    if "array" in node:
        shape_spec = node["array"]
        dtype = jnp.dtype(node["dtype"]) if node["dtype"] != "bfloat16" else jnp.bfloat16
        if any(isinstance(d, str) for d in shape_spec):
            if symbolic and scope is not None:
                from jax import export

                text = ", ".join(str(d) if not (isinstance(d, str) and d == "_") else str(_dim(d, dims))
                                 for d in shape_spec)
                shape = export.symbolic_shape(text, scope=scope)
            else:
                shape = tuple(_dim(d, dims) for d in shape_spec)
        else:
            shape = tuple(shape_spec)
        sharding = recorded_sharding(node.get("sharding"), tuple(shape))
        if sharding is not None:  # compiled as the program placed it: the mesh and partition spec
            return jax.ShapeDtypeStruct(shape, dtype, weak_type=bool(node.get("weak")), sharding=sharding)
        return jax.ShapeDtypeStruct(shape, dtype, weak_type=bool(node.get("weak")))
    if "key" in node:  # a typed PRNG key array
        from jaxlint.dynamic.abstract import key_array

        try:
            return key_array(tuple(node["key"]), node["impl"])
        except Exception as e:
            raise InputError(f"PRNG key implementation `{node['impl']}` is unknown here ({essence(e)}): "
                             "run `jaxlint record` again") from None
    if "value" in node:
        return node["value"]
    if "tuple" in node:
        return tuple(build_value(n, dims, symbolic, scope) for n in node["tuple"])
    if "list" in node:
        return [build_value(n, dims, symbolic, scope) for n in node["list"]]
    if "dict" in node:
        return {k: build_value(n, dims, symbolic, scope) for k, n in node["dict"].items()}
    if "namedtuple" in node:
        mod, _, qual = node["namedtuple"].partition(":")
        try:
            cls: Any = importlib.import_module(mod)
            for part in qual.split("."):
                cls = getattr(cls, part)
        except (ImportError, AttributeError):
            raise InputError(f"cannot rebuild {node['namedtuple']}: type not importable") from None
        return cls(**{k: build_value(n, dims, symbolic, scope) for k, n in node["fields"].items()})
    if "repr" in node:
        raise InputError(f"argument `{node['repr'][:60]}` was recorded by its repr only and cannot be rebuilt")
    if "opaque" in node:
        raise InputError(f"argument of type `{node['opaque']}` cannot be rebuilt from the record")
    raise InputError(f"unknown input node {node!r}")


def recorded_sharding(node: dict | None, shape: tuple = ()):
    """The sharding a recording saw on an array (``jaxlint record``'s ``sharding`` node),
    on the target's mesh where a target is set (:mod:`jaxlint.dynamic.placement`), else
    on this worker's devices: a ``NamedSharding`` over a mesh of the recorded axis names
    and sizes (the first devices, row-major, as ``Mesh(np.array(jax.devices()).reshape(...))``
    builds it), or a committed device; None when there are too few devices (a CPU worker
    gets more with ``devices = N``) or the placement is of another kind."""
    import jax
    import numpy as np

    from jaxlint.dynamic import placement

    if placement.active() is not None:
        return placement.sharding_for(node if isinstance(node, dict) else None, shape)
    if not isinstance(node, dict):
        return None
    if "mesh" not in node and any(node.get("spec") or ()):
        raise InputError("the input spec splits an array over mesh axes (`@ P(...)`), which needs a target with a "
                         "mesh: `--target NAME` of a [tool.jaxlint.targets.NAME] that has `mesh`")
    devices = jax.devices()
    mesh = node.get("mesh")
    if isinstance(mesh, dict) and mesh.get("axes") and mesh.get("sizes"):
        sizes = [int(n) for n in mesh["sizes"]]
        if int(np.prod(sizes)) > len(devices):
            return None
        from jax.sharding import Mesh, NamedSharding, PartitionSpec

        spec = [tuple(e) if isinstance(e, list) and len(e) > 1 else (e[0] if isinstance(e, list) and e else e)
                for e in node.get("spec") or ()]
        return NamedSharding(Mesh(np.array(devices[:int(np.prod(sizes))]).reshape(sizes), tuple(mesh["axes"])),
                             PartitionSpec(*spec))
    dev = node.get("device")
    if isinstance(dev, str) and ":" in dev:
        dev = dev.rsplit(":", 1)[1]
    if dev is not None and str(dev).isdigit() and int(dev) < len(devices):
        from jax.sharding import SingleDeviceSharding

        return SingleDeviceSharding(devices[int(dev)])
    return None


def _dim(d, dims: dict) -> int:
    if isinstance(d, int):
        return d
    return int(dims.get("defaults", {}).get(d, dims.get("default", 8)))


def has_symbolic(spec: dict) -> bool:
    def visit(n: Any) -> bool:
        if isinstance(n, dict):
            if "array" in n:
                return any(isinstance(d, str) and d != "_" for d in n["array"])
            return any(visit(v) for v in n.values())
        if isinstance(n, list):
            return any(visit(v) for v in n)
        return False

    return visit(spec.get("args")) or visit(spec.get("kwargs"))


# ---------------------------------------------------------------------------- targets
def resolve_target(module, entry: dict, spec: dict | None = None) -> tuple[Any, Any]:
    """(the object to trace, the original Python function); raises InputError to skip.
    A method is taken from its class; its instance comes with the saved arguments."""
    if entry.get("is_method") and not (spec or {}).get("pickle_data"):
        raise InputError("a jitted method needs an instance to trace; jaxlint cannot build `self`")
    form = entry.get("form")
    name = entry["qualname"] if form in ("decorator", "partial-decorator") else (entry.get("bound_name") or entry["qualname"])
    if "<locals>" in name or name.startswith("<lambda>"):
        raise InputError("defined inside a function, so it is not reachable from the module after import")
    obj: Any = module
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise InputError(f"`{name}` is not a module-level name after import")
    original = inspect.unwrap(obj) if hasattr(obj, "__wrapped__") else obj
    code = getattr(original, "__code__", None)
    if code is not None:
        lo = min(int(entry.get("line") or 0), int(entry.get("def_line") or 0))
        if not lo - 1 <= code.co_firstlineno <= int(entry.get("def_line") or 0) + 1 and form != "call":
            raise InputError(f"`{name}` at import is not the function defined at line {entry.get('def_line')}")
    if form == "call" and entry.get("qualname") != name:
        # ``f = jax.jit(g)``: check the bound object wraps the expected function
        if code is not None and not abs(code.co_firstlineno - int(entry.get("def_line") or 0)) <= 1 \
                and not entry["qualname"].startswith("<lambda>"):
            raise InputError(f"`{name}` does not wrap `{entry['qualname']}` after import")
    return obj, original


def jitted_for(obj, original, entry: dict, static_names: set[str], spec: dict | None = None):
    """The user's own jitted object when it has ``.trace``; for ``filter_jit`` and
    ``nnx.jit`` a jit that splits traced from static inputs as they do
    (:mod:`jaxlint.dynamic.transforms`); otherwise jit the original function with the
    entry's static arguments (plus every argument given a real value)."""
    import jax

    from jaxlint.dynamic.adapter import under_jit
    from jaxlint.dynamic.transforms import PARTITIONED_KINDS, MappedJit, PartitionedJit

    if entry.get("kind") in PARTITIONED_KINDS:
        target = under_jit(obj, partials=False) if hasattr(obj, "__wrapped__") else original
        return PartitionedJit(entry["kind"], target, entry.get("static_argnums") or (),
                              entry.get("static_argnames") or ())
    if entry.get("kind") == "pmap":  # what pmap maps, with the jax transforms it maps (a grad, a vmap)
        target = under_jit(obj, partials=False) if hasattr(obj, "__wrapped__") else original
        mapped = (spec or {}).get("pmap") or {}
        return MappedJit(target, entry.get("static_argnums") or (), mapped.get("axis_name"),
                         mapped.get("in_axes", 0), entry.get("donate_argnums") or ())
    if hasattr(obj, "trace") and entry.get("kind") in ("jit", "pjit") and entry.get("form") != "immediate" \
            and entry.get("partial_bound", 0) == 0:
        return obj
    # decorators and the jit off, not a jax transform under it (`@logged @jax.jit @jax.vmap`)
    target = under_jit(obj, partials=False) if callable(obj) and hasattr(obj, "__wrapped__") else original
    nums = tuple(entry.get("static_argnums") or ())
    names = tuple(sorted(set(entry.get("static_argnames") or ()) | static_names))
    return jax.jit(target, static_argnums=nums, static_argnames=names)


def trace_args(original, spec: dict, dims: dict, symbolic: bool, scope=None) -> tuple[list, dict]:
    if spec.get("pickle_data"):
        args, kwargs = saved_arguments(spec)
    else:
        args = [build_value(n, dims, symbolic, scope) for n in spec.get("args", [])]
        kwargs = {k: build_value(n, dims, symbolic, scope) for k, n in (spec.get("kwargs") or {}).items()}
    try:
        sig = inspect.signature(original)
    except (TypeError, ValueError):
        return args, kwargs
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise InputError(f"inputs from {spec.get('source', '?')} do not match the signature: {e}") from None
    return list(bound.args), dict(bound.kwargs)


def saved_arguments(spec: dict) -> tuple[list, dict]:
    """The arguments ``jaxlint record`` saved abstractly (models, optimizer states);
    unpickling imports the user's modules that define their types."""
    import base64

    from jaxlint.dynamic.abstract import loads

    try:
        args, kwargs = loads(base64.b64decode(spec["pickle_data"]))
    except (MemoryError, SystemExit, KeyboardInterrupt):
        raise
    except Exception as e:
        raise InputError(f"the recorded arguments cannot be rebuilt: {essence(e)}") from None
    return list(args), dict(kwargs)


def static_value_names(spec: dict, original) -> set[str]:
    """Parameters given a real Python value (not an array spec): they must be static."""
    out: set[str] = set()
    try:
        params = list(inspect.signature(original).parameters.values())
    except (TypeError, ValueError):
        return out
    for i, n in enumerate(spec.get("args", [])):
        if "repr" in n and i < len(params):  # rebuilt from the saved arguments
            out.add(params[i].name)
        if "value" in n and i < len(params) and params[i].kind in (
                inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            if not isinstance(n["value"], (int, float, complex)) or isinstance(n["value"], bool):
                out.add(params[i].name)
    for k, n in (spec.get("kwargs") or {}).items():
        if "repr" in n:
            out.add(k)
        if "value" in n and not (isinstance(n["value"], (int, float, complex)) and not isinstance(n["value"], bool)):
            out.add(k)
    return out


def _unrecorded(e: BaseException) -> BaseException | None:
    from jaxlint.dynamic.abstract import UnrecordedValueError

    seen = 0
    cur: BaseException | None = e
    while cur is not None and seen < 8:
        if isinstance(cur, UnrecordedValueError):
            return cur
        cur = cur.__cause__ or cur.__context__
        seen += 1
    return None


def _recorded(spec: dict | None, job: dict) -> bool:
    """Whether the inputs are arguments the recorded program called it with, and the
    recording traced it there without an error."""
    return isinstance(spec, dict) and spec.get("source") == "recorded" and bool(job.get("observed_clean"))


def _out_of_date(e: BaseException) -> dict:
    from jaxlint.dynamic.observed import OUT_OF_DATE

    return {"status": "skipped", "reason": f"{OUT_OF_DATE}: tracing it again outside the recorded program, with the "
                                           f"arguments the program called it with, raised {essence(e)}",
            "diagnostics": []}


# ---------------------------------------------------------------------------- the worker
class Worker:
    def __init__(self, out: _Out, analysers: Callable[[], Analysers]) -> None:
        self.out = out
        #: the levels past the trace, loaded when a request first names one
        self._load_analysers = analysers
        self._analysers: Analysers | None = None
        import gc

        import jax  # noqa: F401  (the one import per worker)
        from jaxlint.dynamic import adapter
        from jaxlint.registry import all_rules

        all_rules()
        # jax and jaxlint stay loaded for the worker's life: keep their ~10^6 objects out
        # of the garbage collector's full passes, which otherwise land in the middle of
        # traces and rules (measured: tens of ms per function)
        gc.freeze()

        self.adapter = adapter
        self.versions = adapter.versions()
        self.default_x64 = adapter.x64_enabled()
        #: where the file being checked made float64 its policy (set per file)
        self.x64_policy: str | None = None
        self._rules: dict[str, Any] = {}

    def rules_for(self, req: dict) -> dict[str, list]:
        from jaxlint.registry import rules_by_code

        by_code = rules_by_code()
        out: dict[str, list] = {}
        for r in req.get("rules", []):
            cls = by_code.get(r["code"])
            if cls is None:
                continue
            key = json.dumps(r, sort_keys=True, default=str)
            inst = self._rules.get(key)
            if inst is None:
                inst = self._rules[key] = cls(r.get("options") or {})
            out.setdefault(cls.phase.value, []).append(inst)
        return out

    def handle(self, req: dict) -> None:
        with as_recorded(req.get("program")):
            self._handle(req)

    def _handle(self, req: dict) -> None:
        rid = req["id"]
        path = req["path"]
        roots = add_sys_path(req.get("sys_path", []))
        set_project(under_root(req.get("root")))  # frames outside its root are libraries', wherever installed
        x64 = req.get("x64")
        self.adapter.set_x64(self.default_x64 if x64 is None else bool(x64))
        self.out.send({"event": "begin", "id": rid, "step": "import"})
        t0 = time.perf_counter()
        try:
            module = import_user_module(req["module"], path)
        except SystemExit as e:
            self._file_failed(rid, f"the module called sys.exit({e.code!r}) while being imported", e, path, roots)
            return
        except MemoryError as e:
            self._file_failed(rid, "the module ran out of memory while being imported "
                                   f"(memory limit {os.environ.get('JAXLINT_MEMORY_LIMIT_MB', '?')} MiB)", e, path, roots)
            return
        except BaseException as e:  # user code may raise anything, KeyboardInterrupt included
            self._file_failed(rid, f"importing the module raised {essence(e)}", e, path, roots)
            return
        import_s = time.perf_counter() - t0
        import gc

        gc.freeze()  # the user's modules live as long as the worker too
        x64_after = self.adapter.x64_enabled() if x64 is None else bool(x64)
        # on without jaxlint's own setting: the program (its code or its environment) chose it
        self.x64_policy = program_x64_policy(req) if x64 is None and x64_after else None
        rules = self.rules_for(req)
        for job in req.get("functions", []):
            self.adapter.set_x64(x64_after)
            self.out.send({"event": "begin", "id": rid, "step": "trace", "function": job["qualname"]})
            ev = self.analyse(module, job, req, rules, roots)
            ev.update({"event": "function", "id": rid, "function": job["qualname"]})
            self.out.send(ev)
        self.out.send({"event": "done", "id": rid, "import_seconds": import_s, "x64": x64_after})

    def _file_failed(self, rid, reason: str, e: BaseException, path: str, roots: list[str]) -> None:
        where = user_line(e.__traceback__, path, roots, e)
        self.out.send({"event": "file_failed", "id": rid, "reason": reason,
                       "path": where[0] if where else path, "line": where[1] if where else None})

    def analyse(self, module, job: dict, req: dict, rules: dict[str, list], roots: list[str]) -> dict:
        from jaxlint.dynamic import placement

        spec = job.get("spec")
        node = spec.get("mesh") if isinstance(spec, dict) else None
        # the mesh the recorded program called it under (its trace and compile read it), on
        # the target's devices where a target is set
        short = self.adapter.mesh_shortfall(node) if placement.active() is None else None
        if short is not None:
            return {"status": "skipped", "reason": short, "diagnostics": []}
        try:
            ctx = placement.within(node) if placement.active() is not None else self.adapter.within_mesh(node)
            with ctx:
                return self._analyse(module, job, req, rules, roots)
        except placement.PlacementError as e:
            return {"status": "skipped", "reason": str(e), "diagnostics": []}

    def _analyse(self, module, job: dict, req: dict, rules: dict[str, list], roots: list[str]) -> dict:
        from jaxlint.dynamic.analysis import (FunctionAnalysis, called_once, drop_repeated_calls_only,
                                              recorded_calls, run_analysers, run_rules, unbind)

        entry = job["entry"]
        spec = job.get("spec")
        fa = FunctionAnalysis(path=os.path.abspath(req["path"]), module=req["module"], qualname=job["qualname"],
                              entry=entry, spec=spec, versions=self.versions,
                              signatures=job.get("signatures") or (), reused=job.get("reused") or {},
                              x64_policy=self.x64_policy)
        timings: dict[str, float] = {}
        status, reason = "analysed", None
        try:
            obj, original = resolve_target(module, entry, spec)
            fa.function, fa.bound = unbind(original)
            fa.wrapped = original
            if spec is None:
                raise InputError("no inputs")
            static_names = static_value_names(spec, original)
            fa.jitted = jitted_for(obj, original, entry, static_names, spec)
            t0 = time.perf_counter()
            self._trace(fa, original, spec, req.get("dimensions") or {})
            timings["trace"] = time.perf_counter() - t0
        except InputError as e:
            if spec is None and fa.signatures and "no inputs" in str(e):
                status, reason = "analysed", None  # signatures alone (recompilation rule)
            else:
                return {"status": "skipped", "reason": str(e), "diagnostics": []}
        except SystemExit as e:
            return self._failed(fa, f"tracing called sys.exit({e.code!r})", e, roots)
        except MemoryError as e:
            return self._failed(fa, "ran out of memory while tracing (memory limit "
                                    f"{os.environ.get('JAXLINT_MEMORY_LIMIT_MB', '?')} MiB)", e, roots)
        except BaseException as e:
            if _recorded(spec, job):
                return _out_of_date(e)
            return self._failed(fa, f"could not get the function: {essence(e)}", e, roots)
        if fa.error is not None and _recorded(spec, job):
            # the program ran it with these arguments: what fails here is the context the
            # recording had and this import has not (a global set under __main__, devices,
            # a mesh), or an edit since; a finding would blame the code for either
            return _out_of_date(fa.error)
        t0 = time.perf_counter()
        errors = run_rules(fa, rules.get("trace", []))
        once = called_once(recorded_calls(fa.signatures))  # the recording saw one call: an init
        if once:
            fa.diagnostics[:] = drop_repeated_calls_only(fa.diagnostics, fa.rules_run.get)
        timings["rules"] = time.perf_counter() - t0
        for level in req.get("levels", ["trace"])[1:]:
            if fa.jaxpr is None:
                break
            self.out.send({"event": "partial", "id": req["id"], "function": job["qualname"],
                           "diagnostics": [d.to_dict() for d in fa.diagnostics]})
            self.out.send({"event": "begin", "id": req["id"], "step": level, "function": job["qualname"]})
            t0 = time.perf_counter()
            try:
                if fa.symbolic and not fa.concrete_retrace and spec is not None:  # (traced from a spec)
                    # XLA compiles concrete shapes only: trace once more with the default sizes
                    args, kwargs = trace_args(original, spec, req.get("dimensions") or {}, False)
                    fa.traced = fa.jitted.trace(*args, **kwargs)
                    fa.concrete_retrace = True
                if self._analysers is None:
                    self._analysers = self._load_analysers()
                run_analysers(fa, level, self._analysers)
            except MemoryError as e:
                return self._failed(fa, f"ran out of memory in the {level} step", e, roots, keep=True)
            except BaseException as e:
                from jaxlint.dynamic import placement

                target = placement.active()
                if target is not None and level == "compile":  # the program cannot run on that chip
                    return self._failed(fa, f"XLA cannot compile it for the target `{target.label()}`: {essence(e)}",
                                        e, roots, keep=True)
                return self._failed(fa, f"the {level} step failed: {essence(e)}", e, roots, keep=True)
            errors += run_rules(fa, rules.get(level, []))
            if once:
                fa.diagnostics[:] = drop_repeated_calls_only(fa.diagnostics, fa.rules_run.get)
            timings[level] = time.perf_counter() - t0
        return {"status": status, "reason": reason, "timings": timings, "rule_errors": errors,
                "symbolic": bool(fa.symbolic), "rule_seconds": fa.rule_seconds,
                "report": fa.compile_report,
                "diagnostics": [d.to_dict() for d in fa.diagnostics]}

    def _trace(self, fa, original, spec: dict, dims: dict) -> None:
        from jaxlint.dynamic import placement

        target = placement.active()
        if target is not None and fa.entry.get("kind") == "pmap":
            raise InputError(f"a pmap is not compiled for the target `{target.label()}`: a target compiles jit "
                             "programs with their shardings (pmap runs on the backend's own devices)")
        symbolic = has_symbolic(spec) and target is None  # a target compiles concrete shapes
        scope = None
        if symbolic:
            try:
                from jax import export

                scope = export.SymbolicScope()
            except Exception:  # jax.export missing a dependency (0.4.38 without absl)
                symbolic = False
                fa.symbolic = False
        if symbolic:
            try:
                args, kwargs = trace_args(original, spec, dims, True, scope)
                fa.traced = fa.jitted.trace(*args, **kwargs)
                fa.jaxpr = fa.traced.jaxpr
                fa.symbolic = True
                return
            except InputError:
                raise
            except Exception:  # inconclusive with symbolic shapes: use concrete sizes
                fa.symbolic = False
        try:
            args, kwargs = placement.place(trace_args(original, spec, dims, False))
        except placement.PlacementError as e:
            raise InputError(str(e)) from None
        try:
            fa.traced = fa.jitted.trace(*args, **kwargs)
            fa.jaxpr = fa.traced.jaxpr
        except (MemoryError, SystemExit, KeyboardInterrupt):
            raise
        except Exception as e:
            unsaved = _unrecorded(e)
            if unsaved is not None:  # our stand-in was called: a gap in the record, not a user error
                raise InputError(str(unsaved)) from None
            from jaxlint.dynamic.transforms import NotTraceable

            if isinstance(e, NotTraceable):  # not traceable with the transform's semantics here: skipped
                raise InputError(str(e)) from None
            if fa.entry.get("kind") == "pmap" and not (spec.get("pmap") or {}).get("axis_name") \
                    and "unbound axis name" in str(e):
                raise InputError("the pmap's axis name is unknown without a recording (`jaxlint record`)") from None
            fa.error = e

    def _failed(self, fa, reason: str, e: BaseException, roots: list[str], keep: bool = False) -> dict:
        where = user_line(e.__traceback__, fa.path, roots, e)
        return {"status": "failed", "reason": reason,
                "path": where[0] if where else None, "line": where[1] if where else None,
                "diagnostics": [d.to_dict() for d in fa.diagnostics] if keep else []}


def backend_unavailable() -> str:
    """One line when the configured backend (``JAX_PLATFORMS``, from ``backend`` in
    [tool.jaxlint.dynamic]) has no device here, else ""."""
    import jax

    from jaxlint.dynamic import placement

    wanted = os.environ.get("JAX_PLATFORMS") or ""
    if placement.active() is not None:
        return placement.unavailable()
    try:
        jax.devices()
    except Exception as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        return (f"the `{wanted or 'default'}` backend is not available here ({first}): set `backend` in "
                f"[tool.jaxlint.dynamic] to one this machine has (cpu), or run where it is")
    return ""


def main(analysers: Callable[[], Analysers]) -> int:
    """Serve requests until stdin ends. ``analysers()``: the levels past the trace
    (:mod:`jaxlint.inspect.levels` runs this worker with every level)."""
    proto_in, out = isolate_stdio()
    limit_memory()
    faulthandler.enable(file=sys.stderr, all_threads=False)
    if hasattr(signal, "SIGUSR1"):
        # the parent asks for the stack of a hung worker before killing it
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=False)
    try:
        worker = Worker(out, analysers)
    except BaseException as e:
        # only jax itself missing is an install problem; a broken dependency says what broke
        missing = isinstance(e, ModuleNotFoundError) and (e.name or "").split(".")[0] in ("jax", "jaxlib")
        if missing:
            from jaxlint.install import missing_extra

            reason = missing_extra("dynamic", "the dynamic phase")
        else:
            reason = f"cannot start the dynamic phase: {essence(e)}"
        out.send({"event": "fatal", "reason": reason, "missing": bool(missing)})
        return 3
    # tracing needs no device; the pool stops at once if the compile tier needs one
    out.send({"event": "ready", "versions": worker.versions, "pid": os.getpid(),
              "unavailable": backend_unavailable()})
    for line in proto_in:
        if not line.strip():
            continue
        req = json.loads(line)
        if req.get("op") == "exit":
            break
        worker.handle(req)
        sys.stderr.flush()
    return 0

