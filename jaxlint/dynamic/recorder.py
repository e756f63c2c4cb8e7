"""The recorder ``jaxlint record`` injects into the user's Python processes.

``jaxlint record -- CMD`` puts a ``sitecustomize`` shim on ``PYTHONPATH`` that calls
:func:`install`. Installing costs nothing until the program imports jax: a
meta-path hook then wraps the jit-like transforms (:data:`TARGETS`: ``jax.jit``,
``jax.pmap``, ``equinox.filter_jit``, ``flax.nnx.jit``) right after their module
is imported, before any user module can bind them, so every jitted function of the
project records, per call, its abstract signature: array leaves as shape/dtype/weak
type, static arguments by value (JSON where possible, else repr), the pytree
structure, and a call count. Library functions are left unwrapped, unless the project
jits one itself (``jax.jit(model.apply)`` with haiku's ``apply``): that jit is recorded,
keyed and placed at the project's ``jax.jit(...)`` call (``module:apply_fn@jit190``).
A name the module defines again (a notebook's cell per optimizer) is keyed per
definition: earlier ones ``module:qualname@LINE``, the last the plain key.

An argument JSON cannot rebuild (a model, an optimizer state) is described by its
type, array leaves by path and a digest of its static part; the call's arguments are
then also saved abstractly (:mod:`jaxlint.dynamic.abstract`), once per distinct
signature, as a content-addressed pickle. At exit each process writes its records to
``$JAXLINT_RECORD_DIR/records-<pid>.json`` and its pickles to
``$JAXLINT_RECORD_DIR/pickles/``; the command merges them into
``.jaxlint/signatures.json`` (:mod:`jaxlint.dynamic.signatures`).

Functions are keyed ``module:qualname`` with the module named from the file's path
under the project root (:func:`jaxlint.dynamic.project.module_name`), so a script run
as ``__main__`` still matches the static jit map.

Unless ``JAXLINT_OBSERVE`` is empty, the recording is also an analysis: each call goes
through :class:`jaxlint.dynamic.observer.Observer`, which analyses the first call of
every new signature inside the program (``JAXLINT_OBSERVE=trace`` or
``trace,compile``; ``JAXLINT_KEEP_IR=1`` keeps each function's programs for
``jaxlint inspect``). Its results go to ``observed-<pid>.json`` beside the records,
written after every observed call and at exit, so a program that crashes, is
interrupted or leaves through ``os._exit`` keeps what was observed until then.

The recorder is five modules, by responsibility: this one installs it (the import hook,
the wrapping of the transforms, the signals and the watch of ``jaxlint record``);
:mod:`~jaxlint.dynamic.record_state` holds the recording (``RECORDER``) and knows
the project's files and notebook cells; :mod:`~jaxlint.dynamic.record_signature` says
what is kept of a jitted function and of a call's signature;
:mod:`~jaxlint.dynamic.record_calls` runs a recorded function's calls (the fast path,
the observer); :mod:`~jaxlint.dynamic.record_output` writes the parts.
"""
from __future__ import annotations

import atexit
import functools
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable

from jaxlint.dynamic import record_compiles, record_dispatch
from jaxlint.dynamic.record_calls import Recorded
from jaxlint.dynamic.record_output import at_exit, program_entry
from jaxlint.dynamic.record_signature import describe
from jaxlint.dynamic.record_state import RECORDER, Record, Recorder, in_project, recorder_error  # noqa: F401 (the recording)

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import Analysers

# ---------------------------------------------------------------------------- install
#: module -> (attribute, kind) of the jit-like transforms recorded; kinds as the static
#: jit map names them (:data:`jaxlint.static.semantic.JIT_LIKE`)
TARGETS: dict[str, tuple[tuple[str, str], ...]] = {
    "jax": (("jit", "jit"), ("pmap", "pmap")),
    "equinox": (("filter_jit", "filter_jit"),),
    "flax.nnx": (("jit", "nnx.jit"),),
}


class _ImportHook(importlib.abc.MetaPathFinder):
    """Patch the transforms right after their module finishes importing (before any
    user module can bind them)."""

    def find_spec(self, name, path, target=None):
        if name not in TARGETS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_module(module):
            original_exec(module)
            _patch(module, name)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install(analysers: Callable[[], Analysers] | None = None) -> None:
    """Instrument jax in this process. ``analysers()``: the analysis levels past the
    trace (``record``'s shim passes :func:`jaxlint.inspect.levels.analysers`)."""
    if RECORDER.installed or not os.environ.get("JAXLINT_RECORD_DIR"):
        return
    RECORDER.installed = True
    RECORDER.analysers = analysers
    try:
        RECORDER.program = program_entry()
    except Exception as e:  # never break the user's program
        recorder_error("reading how the program was started", e)
    _stop_signals_exit()
    _watch_record()
    for name in TARGETS:
        if name in sys.modules:
            _patch(sys.modules[name], name)
    sys.meta_path.insert(0, _ImportHook())
    atexit.register(at_exit)
    if hasattr(os, "register_at_fork"):
        # a forked child (multiprocessing) starts its own records: the parent's are the
        # parent's to write, and a child that leaves through os._exit writes as it goes
        os.register_at_fork(after_in_child=_forget)


def _stop_signals_exit() -> None:
    """SIGTERM and SIGHUP, where the program leaves them at their default (the process
    dies on the spot), end it through ``SystemExit`` instead, so that what it recorded
    is written at exit (``jaxlint record`` forwards them to every process it started).
    A program's own handlers are left alone; a second signal kills as before."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _stop)


def _stop(signum, frame) -> None:
    import signal

    signal.signal(signum, signal.SIG_DFL)
    raise SystemExit(128 + signum)


def _forget() -> None:
    RECORDER.forget()
    _watch_record()  # the parent's watch is a thread: it is not in the forked child


def _watch_record() -> None:
    """Stop this process, as ``record``'s forwarded SIGTERM would, when ``jaxlint record``
    is gone without forwarding one (killed by SIGKILL): no part of the program runs on
    unsupervised. The process ``record`` started gets the kernel's parent-death signal
    instead (``procs.die_with_parent``); this is for the processes it starts in turn
    (pytest-xdist's workers, a script's ``subprocess``), each of which waits on
    ``record``'s pidfd in a thread (Linux 5.3+; nothing elsewhere)."""
    import signal

    from jaxlint.process.procs import start_time

    pid, started = os.environ.get("JAXLINT_RECORD_PID", ""), os.environ.get("JAXLINT_RECORD_STARTED")
    if not pid.isdigit() or not hasattr(os, "pidfd_open") or os.getppid() == int(pid):
        return
    if RECORDER.record_pidfd >= 0:  # a forked child's copy of its parent's
        os.close(RECORDER.record_pidfd)
        RECORDER.record_pidfd = -1
    try:
        fd = os.pidfd_open(int(pid))
    except OSError:
        fd = -1
    if fd < 0 or start_time(int(pid)) != started:  # gone before this process began
        if fd >= 0:
            os.close(fd)
        os._exit(128 + signal.SIGTERM)
    RECORDER.record_pidfd = fd

    def wait() -> None:
        import select

        try:
            select.select([fd], [], [])
        except (OSError, ValueError):
            return
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=wait, name="jaxlint-record-watch", daemon=True).start()


def _patch(module, name: str) -> None:
    if name == "jax" and os.environ.get("JAXLINT_OBSERVE"):
        record_compiles.listen()  # the compiles outside the project's jitted functions
        record_dispatch.listen()  # the eager operations between the jitted calls
    for attr, kind in TARGETS.get(name, ()):
        original = getattr(module, attr, None)
        if original is None or getattr(original, "_jaxlint_recording", False):
            continue
        setattr(module, attr, _recording(original, kind))


def _recording(original, kind: str):
    @functools.wraps(original)
    def transform(fun=_NOTHING, *args, **kwargs):
        # only transforms the project applies are recorded: flax and equinox call
        # jax.jit on wrappers of the user's function, which must stay untouched
        caller = sys._getframe(1)
        mine = in_project(caller.f_code.co_filename)
        line = caller.f_lineno
        if fun is _NOTHING or not callable(fun):
            # the decorator-factory form, `@jax.jit(static_argnums=...)` (`fun` may be
            # the library's own "missing" marker)
            inner = original(*args, **kwargs) if fun is _NOTHING else original(fun, *args, **kwargs)
            if not mine or not callable(inner):
                return inner
            return lambda f: _wrap(inner(f), f, kwargs, kind, line, caller.f_code.co_filename)
        t0 = _cpu_clock()
        jitted = original(fun, *args, **kwargs)
        made = _cpu_clock() - t0  # what making it cost the program (a jit made per call pays it each time)
        if mine:
            return _wrap(jitted, fun, kwargs, kind, line, caller.f_code.co_filename, made)
        # a library that jits the project's own function (a test helper such as chex's
        # variants): the project's function, jitted elsewhere; no jit line of the project
        if _defined_in_project(fun):
            return _wrap(jitted, fun, kwargs, kind, None)
        _library_jit(caller, fun)
        return jitted

    transform._jaxlint_recording = True  # type: ignore[attr-defined]
    return transform


_NOTHING = object()
#: the calling thread's CPU time: what making a jit and its first call cost the program
#: itself; the wall clock also counts the time other processes held the cores, so a
#: finding measured with it came and went with the machine's load
_cpu_clock = time.thread_time
#: top-level packages whose own jits wrap the project's functions (recorded through their
#: transforms), are jax's internals, or are jaxlint's own (the observer traces an
#: ``equinox.filter_jit`` function again through a jit of its own): not counted as library jits
_TRANSFORM_PACKAGES = frozenset({"jax", "jaxlib", "equinox", "flax", "jaxlint"})


def _library_jit(caller, fun) -> None:
    """Count a jit a library made of its own function (numpyro's SVI step): not analysed,
    and said so in the summary."""
    try:
        package = str(caller.f_globals.get("__name__", "")).split(".", 1)[0]
        if package in _TRANSFORM_PACKAGES:
            return
        while isinstance(fun, functools.partial):
            fun = fun.func
        name = f"{getattr(fun, '__module__', None) or package}:{getattr(fun, '__qualname__', type(fun).__name__)}"
        site = _project_call(caller)
        with RECORDER.lock:
            RECORDER.library_jits[name] = RECORDER.library_jits.get(name, 0) + 1
            if site is not None:
                sites = RECORDER.library_sites.setdefault(name, {})
                sites[site] = sites.get(site, 0) + 1
    except Exception as e:  # never break the program
        recorder_error("counting a library's jit", e)


def _project_call(frame, depth: int = 64) -> str | None:
    """``"file:line"`` of the innermost call in the project's own code on ``frame``'s
    stack (the line that built jaxopt's solver, whose ``__post_init__`` jits its step), the
    file relative to the recorded project; None when none is within ``depth`` frames."""
    from jaxlint.dynamic.record_state import where

    while frame is not None and depth > 0:
        name = frame.f_code.co_filename
        if in_project(name):
            return "%s:%d" % where(name, frame.f_lineno)  # a notebook's cell: in the notebook
        frame, depth = frame.f_back, depth - 1
    return None


def _defined_in_project(fun) -> bool:
    """Whether ``fun`` (through ``functools.partial``) is a function of the project's own
    code; flax and equinox jit wrappers of the library's, which stay untouched."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    code = getattr(fun, "__code__", None)
    return code is not None and in_project(code.co_filename)


def _wrap(jitted, fun, kwargs: dict, kind: str, jit_line: int | None = None, jit_file: str | None = None,
          made: float = 0.0):
    try:
        key, meta = describe(fun, kwargs, kind, jit_line, jit_file)
    except Exception as e:  # never break the user's program: it runs unrecorded
        recorder_error("describing a jitted function", e)
        return jitted
    if key is None:  # library code (flax and equinox jit their own helpers): left alone
        return jitted
    if not RECORDER.watching and "compile" in os.environ.get("JAXLINT_OBSERVE", ""):
        RECORDER.watching = True
        try:  # from the first recorded jit on: a compile ahead of its first call is timed too
            from jaxlint.dynamic import adapter

            adapter.watch_compiles()
        except Exception as e:
            recorder_error("watching the compiles", e)
    try:
        owner = _bound_to(fun)
        if owner is not None:  # `jax.jit(env.step)`: each instance's method is a program of its own
            meta = dict(meta, bound=_instance(key, owner))
        via = None if meta.get("library") else _transformed(fun, jit_line)
        if via is not None:  # `jax.jit(jax.grad(loss))` beside `jax.jit(loss)`: another program
            meta = dict(meta, bound=dict(meta.get("bound") or {}, **via))
    except Exception as e:
        recorder_error("describing a jitted method's instance", e)
    return Recorded(jitted, fun, key, meta, made)


#: how jax's transforms describe the function they return (its docstring's start)
_TRANSFORM_DOCS = (("Value and gradient of", "value_and_grad"), ("Gradient of", "grad"),
                   ("Vectorized version of", "vmap"), ("Jacobian of", "jacobian"))


def _transformed(fun, jit_line: int | None) -> dict | None:
    """``{"transform": "grad", "line": 30}`` when jit wraps a transform of the project's
    function (``jax.jit(jax.grad(loss))``), not the function itself: jit compiles another
    program for it than for ``jax.jit(loss)``, though both are keyed by ``loss``; through
    the project's own decorators (``jax.jit(logged(jax.grad(loss)))``). None for the
    function itself (or the project's own decorators of it)."""
    for _ in range(16):
        while isinstance(fun, functools.partial):
            fun = fun.func
        inner = getattr(fun, "__wrapped__", None)
        if inner is None or inner is fun:
            return None
        code = getattr(fun, "__code__", None)
        if code is None or not in_project(code.co_filename):
            break
        fun = inner  # the project's own decorator: what it wraps may be a transform (`logged(jax.grad(f))`)
    else:
        return None
    doc = (getattr(fun, "__doc__", None) or "").lstrip()
    name = next((n for prefix, n in _TRANSFORM_DOCS if doc.startswith(prefix)), "transform")
    return {"transform": name, "line": jit_line}


def _bound_to(fun) -> Any:
    """The object a jitted bound method (through ``functools.partial``) belongs to, or None."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    return fun.__self__ if inspect.ismethod(fun) else None


def _instance(key: str, owner: Any) -> dict:
    """Which instance a jitted bound method is bound to, numbered per function: jax
    jits ``a.step`` and ``b.step`` as two programs (their ``self`` is baked in), so the
    recording tells their calls apart (their signatures, analyses and compiles)."""
    with RECORDER.lock:
        seen = RECORDER.instances.setdefault(key, [])
        for ref, n in seen:
            if (ref() if isinstance(ref, weakref.ref) else ref) is owner:
                break
        else:
            try:
                ref = weakref.ref(owner)
            except TypeError:  # no weak references (__slots__): kept alive, as its jitted method keeps it
                ref = owner
            n = len(seen) + 1
            seen.append((ref, n))
    t = owner if isinstance(owner, type) else type(owner)
    return {"opaque": f"{t.__module__}.{t.__qualname__}", "instance": n}
