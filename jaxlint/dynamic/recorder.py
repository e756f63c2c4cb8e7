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
"""
from __future__ import annotations

import atexit
import functools
import hashlib
import importlib.abc
import importlib.machinery
import inspect
import itertools
import json
import operator
import os
import re
import sys
import threading
import weakref
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypedDict

from jaxlint.dynamic import callers

if TYPE_CHECKING:
    from jaxlint.dynamic.analysis import Analysers
    from jaxlint.dynamic.signatures import Signature

class Record(TypedDict, total=False):
    """What the recording keeps of one jitted function: its entry of the signatures file
    (:mod:`jaxlint.dynamic.signatures`; ``sigs``, by canonical text, is written as its
    ``signatures`` list, with what the caller did with the arguments as ``reused``)."""

    file: str  # under the project root
    line: int
    qualname: str
    static_argnums: list[int]
    static_argnames: list[str]
    transform: str  # the jit-like transform (:data:`TARGETS`' kinds)
    pmap: dict[str, Any]  # ``axis_name``, ``in_axes`` of a pmap
    sigs: dict[str, Signature]


class Recorder:
    """This process's recording, in one place: what was recorded (the signatures and their
    counters, the saved arguments, the library jits), the observer analysing the calls,
    the watch of what the caller does with the arguments (:class:`~jaxlint.dynamic.callers.Watch`),
    how the program was started, which files are the project's, and the recorder's own
    failures. The one instance, :data:`RECORDER`, is handed to the
    :class:`~jaxlint.dynamic.observer.Observer` (which imports nothing of this module and
    reaches only :meth:`error` and :meth:`in_project`); the module's functions read it.
    Module-level names elsewhere hold only what jax is (types, getters), found once."""

    def __init__(self) -> None:
        #: guards the records, the fast-path tables and the counters below
        self.lock = threading.Lock()
        #: function key -> what is recorded of it
        self.records: dict[str, Record] = {}
        #: (the jitted function object, its fast-path table) of every recorded jitted function
        self.tables: list[tuple[weakref.ref, dict]] = []
        #: sha256 -> pickled arguments (see :mod:`jaxlint.dynamic.abstract`), written at exit
        self.blobs: dict[str, bytes] = {}
        #: "module:qualname" of a library function a library jitted -> how many jits of it were made
        self.library_jits: dict[str, int] = {}
        #: function key -> [(weak reference to an instance, or the instance), its number]
        self.instances: dict[str, list] = {}
        #: function -> the recorded jitted function objects of it (weakly): jax shares one
        #: cache between jits of one function, so their ``_cache_size`` is no one's alone
        self.jits_of: Any = weakref.WeakKeyDictionary()
        #: file -> {qualname: the first line (decorators included) of its last definition}
        self.definitions: dict[str, dict[str, int]] = {}
        #: file -> sha256 of its bytes as the program saw them (:func:`file_digest`)
        self.digests: dict[str, str] = {}
        #: code file -> (notebook path, the line of the notebook's module that its line 1 is), or None
        self.cells: dict[str, tuple[str, int] | None] = {}
        #: (path, notebook) of the notebooks a kernel's cells are looked for in (:func:`_notebooks`)
        self.notebooks: list | None = None
        #: the process's :class:`~jaxlint.dynamic.observer.Observer` (:func:`_observer`), and
        #: whether analysis is off (or could not start) in this process
        self.observer: Any = None
        self.observer_off = False
        #: the analysis levels past the trace, as :func:`install` was given them
        self.analysers: Callable[[], Analysers] | None = None
        #: adapter.COMPILE_COUNT once compiles are counted (a list that never changes before)
        self.compiles = [0]
        #: when the records were last written (:func:`_maybe_flush`)
        self.last_flush = 0.0
        #: how this process was started (:func:`_entry`), taken when the recorder is installed
        self.program: dict | None = None
        self.installed = False
        #: whether this process's compiles are watched (:func:`jaxlint.dynamic.adapter.watch_compiles`)
        self.watching = False
        #: whether writing the records failed (said once)
        self.write_failed = False
        #: the pidfd of ``jaxlint record`` this process's watch waits on (:func:`_watch_record`)
        self.record_pidfd = -1
        #: by what it was doing: {"noting a call": [count, first message]}; the program
        #: goes on (unrecorded where it failed), and ``jaxlint record`` reports them
        self._errors: dict[str, list] = {}
        self._lock = threading.Lock()
        #: file name -> whether it is the project's (:meth:`in_project`)
        self._in_project: dict[str, bool] = {}
        #: what the program does with the arguments after its calls (:mod:`jaxlint.dynamic.callers`)
        self.watch = callers.Watch(self.error)
        #: numbers the recorded jitted function objects (ids are reused once one is collected)
        self.serials = itertools.count(1)

    def forget(self) -> None:
        """A forked child's recording starts empty: the parent's counters are the parent's."""
        for ref, table in self.tables:
            table.clear()
            rec = ref()
            if rec is not None:
                rec._single = None
        self.compiles = [0]
        self.records.clear()
        self.blobs.clear()
        self.definitions.clear()
        self.forget_errors()
        self.watch.forget()
        self.observer = None
        self.last_flush = 0.0

    def error(self, doing: str, e: BaseException) -> None:
        """Count a failure of the recorder while ``doing`` something (the first message
        of each kind is kept); written with the records, reported by ``jaxlint record``."""
        with self._lock:
            entry = self._errors.get(doing)
            if entry is None:
                self._errors[doing] = [1, f"{type(e).__name__}: {str(e)[:200]}"]
            else:
                entry[0] += 1

    def errors(self) -> dict[str, dict]:
        """This process's recorder failures: {doing: {"count": n, "first": message}}."""
        with self._lock:
            return {k: {"count": n, "first": msg} for k, (n, msg) in self._errors.items()}

    def forget_errors(self) -> None:
        with self._lock:
            self._errors.clear()

    def in_project(self, filename: str) -> bool:
        """A file of the project being recorded (a virtualenv inside it does not count),
        or a Jupyter cell of one of its notebooks (:func:`notebook_cell`)."""
        hit = self._in_project.get(filename)
        if hit is None:
            if notebook_cell(filename) is not None:
                hit = True
            elif not filename or filename.startswith("<"):
                hit = False
            else:
                path = Path(filename).resolve()
                root = _root()
                hit = (root == path or root in path.parents) and not (
                    {"site-packages", "dist-packages"} & set(path.relative_to(root).parts))
            self._in_project[filename] = hit
        return hit


#: this process's recorder
RECORDER = Recorder()
recorder_error = RECORDER.error
recorder_errors = RECORDER.errors
in_project = RECORDER.in_project


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
        RECORDER.program = _entry()
    except Exception as e:  # never break the user's program
        recorder_error("reading how the program was started", e)
    _stop_signals_exit()
    _watch_record()
    for name in TARGETS:
        if name in sys.modules:
            _patch(sys.modules[name], name)
    sys.meta_path.insert(0, _ImportHook())
    atexit.register(_at_exit)
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
        jitted = original(fun, *args, **kwargs)
        if mine:
            return _wrap(jitted, fun, kwargs, kind, line, caller.f_code.co_filename)
        # a library that jits the project's own function (a test helper such as chex's
        # variants): the project's function, jitted elsewhere; no jit line of the project
        if _defined_in_project(fun):
            return _wrap(jitted, fun, kwargs, kind, None)
        _library_jit(caller, fun)
        return jitted

    transform._jaxlint_recording = True  # type: ignore[attr-defined]
    return transform


_NOTHING = object()
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
        with RECORDER.lock:
            RECORDER.library_jits[name] = RECORDER.library_jits.get(name, 0) + 1
    except Exception as e:  # never break the program
        recorder_error("counting a library's jit", e)


def _defined_in_project(fun) -> bool:
    """Whether ``fun`` (through ``functools.partial``) is a function of the project's own
    code; flax and equinox jit wrappers of the library's, which stay untouched."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    code = getattr(fun, "__code__", None)
    return code is not None and in_project(code.co_filename)


def _wrap(jitted, fun, kwargs: dict, kind: str, jit_line: int | None = None, jit_file: str | None = None):
    try:
        key, meta = _describe(fun, kwargs, kind, jit_line, jit_file)
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
    return _Recorded(jitted, fun, key, meta)



#: how jax's transforms describe the function they return (its docstring's start)
_TRANSFORM_DOCS = (("Value and gradient of", "value_and_grad"), ("Gradient of", "grad"),
                   ("Vectorized version of", "vmap"), ("Jacobian of", "jacobian"))


def _transformed(fun, jit_line: int | None) -> dict | None:
    """``{"transform": "grad", "line": 30}`` when jit wraps a transform of the project's
    function (``jax.jit(jax.grad(loss))``), not the function itself: jit compiles another
    program for it than for ``jax.jit(loss)``, though both are keyed by ``loss``. None for
    the function itself (or a decorator of the project's own)."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    if not hasattr(fun, "__wrapped__"):
        return None
    code = getattr(fun, "__code__", None)
    if code is not None and in_project(code.co_filename):
        return None  # the project's own decorator
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


class _Recorded:
    """Calls the real jitted function after noting the call's abstract signature."""

    def __init__(self, jitted, fun, key: str, meta: dict) -> None:
        self._jitted = jitted
        self._fun = fun
        self.__wrapped__ = fun
        functools.update_wrapper(self, fun, updated=())
        self._key, self._meta = key, meta
        #: which jitted function object this is (ids are reused once one is collected)
        self._serial = next(RECORDER.serials)
        #: fast-path key (:func:`_fast_key`) -> its :class:`_Seen` (see :meth:`_remember`)
        self._fast: dict = {}
        with RECORDER.lock:
            RECORDER.tables.append((weakref.ref(self), self._fast))
        #: the one signature this jitted function object has been called with, while it
        #: is the only one and jax's cache of it can tell a new one (:meth:`_one`)
        self._single: _Seen | None = None
        #: jax's count of the signatures it keeps for this function (its ``_cache_size``),
        #: where that count is this object's alone
        self._size = _cache_counter(jitted, fun, meta, self)
        # a Python number is part of the signature by value where jit makes it static
        self._by_value = bool(meta.get("static_nums") or meta.get("static_names")) or meta.get("kind") == "filter_jit"

    def __call__(self, *args, **kwargs):
        single = self._single
        if single is not None and _TRACING.trace.__class__ is _EVALUATING and not _NO_JIT.value:
            # one signature so far: jax's own cache keys the call; when it kept nothing new
            # and compiled nothing, the call was that signature (no key of ours needed)
            rec, size = RECORDER, self._size
            counter = rec.compiles
            compiled, before = counter[0], size()
            try:
                out = self._jitted(*args, **kwargs)
            except BaseException:
                if size() == before and counter[0] == compiled:
                    next(single.count)
                else:
                    self._late(args, kwargs, compiled)
                raise
            if size() == before and counter[0] == compiled:
                next(single.count)
                if rec.watch.calls:  # the first calls after a function's first: what the caller keeps
                    rec.watch.after(self, args, kwargs, out)
                if _clock() - rec.last_flush >= FLUSH_EVERY:
                    _maybe_flush()
            else:
                self._late(args, kwargs, compiled, out)
            return out
        seen = fast = None
        try:
            fast = _fast_key(args, kwargs, self._by_value)
            if fast is not None:
                seen = self._fast.get(fast[0])
                if seen is not None and seen.placed is not None:  # committed arrays: where they live too
                    seen = seen.placed.get(tuple(map(_SHARDING, _leaves(fast, args, kwargs))))
        except Exception as e:  # recording must never change what the program does
            recorder_error("noting a call", e)
        if seen is not None:  # a signature seen before: count it, nothing else
            next(seen.count)
            if RECORDER.watch.calls:  # the first calls after a function's first: what the caller keeps (one check)
                return _watched(self, args, kwargs, seen)
            if seen.cur is None:
                return self._jitted(*args, **kwargs)
            compiled = RECORDER.compiles[0]
            out = self._jitted(*args, **kwargs)
            if RECORDER.compiles[0] != compiled:  # compiled again for a signature it had compiled
                self._again(seen, compiled)
            if _clock() - RECORDER.last_flush >= FLUSH_EVERY:
                _maybe_flush()
            return out
        try:
            noted = _note(self._key, self._meta, args, kwargs)
            obs = _observer() if noted is not None else None
        except Exception as e:
            recorder_error("noting a call", e)
            noted = obs = None
        if obs is None:
            if noted is not None and fast is not None:
                self._remember(fast, _leaves(fast, args, kwargs), noted, None)
            out = self._jitted(*args, **kwargs)
            if noted is not None and not noted[2]:
                RECORDER.watch.after(self, args, kwargs, out)
            return out
        canon, sig, inlined = noted
        if inlined:
            obs.inlined(self)
            return self._jitted(*args, **kwargs)
        try:
            out = obs.call(self, args, kwargs, canon, sig)
            RECORDER.watch.after(self, args, kwargs, out)
            return out
        finally:
            if fast is not None:
                self._remember(fast, _leaves(fast, args, kwargs), noted, obs)
            _maybe_flush()

    def _late(self, args: tuple, kwargs: dict, compiled: int, out: Any = _NOTHING) -> None:
        """A call of the one-signature path that jax did not answer from its cache (a new
        signature, or its cache was cleared): noted after it ran, and analysed then when
        its signature is new (:meth:`~jaxlint.dynamic.observer.Observer.called`); later
        calls are keyed."""
        self._single = None
        try:
            noted = _note(self._key, self._meta, args, kwargs)
            obs = _observer()
            if obs is not None and not noted[2]:
                from jaxlint.dynamic import adapter

                obs.called(self, args, kwargs, noted[0], noted[1], adapter.compiles_since(compiled))
            if out is not _NOTHING and not noted[2]:
                RECORDER.watch.after(self, args, kwargs, out)
            fast = _fast_key(args, kwargs, self._by_value)
            if fast is not None:
                self._remember(fast, _leaves(fast, args, kwargs), noted, obs)
        except Exception as e:
            recorder_error("noting a call", e)
        _maybe_flush()

    def _one(self, seen: "_Seen") -> None:
        """Call ``seen``'s signature without keying it while it is the only one (with
        committed arrays their placement is keyed too: not here)."""
        global _TRACING, _EVALUATING, _NO_JIT
        if _TRACING is None:
            from jaxlint.dynamic import adapter

            try:
                _TRACING, _EVALUATING, _NO_JIT = adapter.dispatch_state()
                # a signature jax runs outside its cache still compiles at its first call
                if adapter.watch_compiles():
                    RECORDER.compiles = adapter.COMPILE_COUNT
            except Exception as e:
                recorder_error("reading jax's dispatch state", e)
                _TRACING = False
        if _TRACING is not False:
            self._single = seen

    def _again(self, seen: "_Seen", count: int) -> None:
        """A fast-path call compiled: tell the observer which compiles it made (a setting
        such as x64 changed, or jax's cache let the program go), as a full call would."""
        try:
            from jaxlint.dynamic import adapter

            seen.observer._again(seen.state, seen.cur, self, adapter.compiles_since(count))
        except Exception as e:
            recorder_error("noting a call", e)

    def _remember(self, fast: tuple, leaves: Any, noted: tuple, obs: Any) -> None:
        """Take the fast path for later calls with the key ``fast`` (see :func:`_fast_key`;
        ``leaves``: the call's): only for signatures of arrays and Python values, which
        the key pins entirely."""
        canon, _, inlined = noted
        if inlined or '"opaque"' in canon or '"repr"' in canon:
            return
        try:
            state = cur = None
            if obs is not None:
                state, cur = obs.seen(self, canon)
                if cur is None:
                    return
            with RECORDER.lock:
                entry = RECORDER.records[self._key]["sigs"][canon]
        except Exception as e:
            recorder_error("noting a call", e)
            return
        seen = _Seen(entry, obs, state, cur)
        key, _, arrays = fast
        placed = arrays and any(x._committed for x in leaves)
        with RECORDER.lock:
            if len(self._fast) >= _FAST_MAX:
                return
            # the first one stays (threads may have called the signature at once: each
            # counts in the one its call found)
            if not placed:
                seen = self._fast.setdefault(key, seen)
                if len(self._fast) == 1 and self._size is not None:
                    self._one(seen)
            else:  # a committed array's sharding is part of the signature: one more lookup
                holder = self._fast.setdefault(key, _Seen(None, None, None, None))
                if holder.placed is None:
                    holder.placed = {}
                holder.placed.setdefault(tuple(map(_SHARDING, leaves)), seen)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._jitted, name)


def _watched(rec: _Recorded, args: tuple, kwargs: dict, seen: "_Seen") -> Any:
    """A fast-path call while the caller's reuse is watched (:mod:`jaxlint.dynamic.callers`):
    the call as the fast path makes it, then the watch."""
    if seen.cur is None:
        out = rec._jitted(*args, **kwargs)
    else:
        compiled = RECORDER.compiles[0]
        out = rec._jitted(*args, **kwargs)
        if RECORDER.compiles[0] != compiled:
            rec._again(seen, compiled)
    RECORDER.watch.after(rec, args, kwargs, out)
    if _clock() - RECORDER.last_flush >= FLUSH_EVERY:
        _maybe_flush()
    return out


class _Seen:
    """A signature a jitted function object was called with before: the fast path counts
    its calls in ``count`` (atomic under the GIL); :func:`_fold_counts` adds them to the
    records and the observer's counters (``folded``: what was added already)."""

    __slots__ = ("count", "folded", "entry", "observer", "state", "cur", "placed")

    def __init__(self, entry: Signature | None, observer: Any, state: Any, cur: dict | None) -> None:
        self.count = itertools.count()
        self.folded = 0
        self.entry, self.observer, self.state, self.cur = entry, observer, state, cur
        #: committed arrays' shardings -> the signature, for a key whose arrays are committed
        self.placed: dict | None = None


#: jax's tracing context, the class of its trace outside any trace, and the disable_jit
#: setting (:func:`jaxlint.dynamic.adapter.dispatch_state`), once a call takes the
#: one-signature path; False where this jax keeps them elsewhere
_TRACING: Any = None
_EVALUATING: Any = None
_NO_JIT: Any = None


def _cache_counter(jitted: Any, fun: Any, meta: dict, rec: Any) -> Callable[[], int] | None:
    """``jitted._cache_size`` where it counts the signatures of ``rec``'s calls alone: a
    ``jax.jit`` of a function no other recorded jit wraps (a second one turns the first
    one's off too)."""
    size = getattr(jitted, "_cache_size", None)
    if meta.get("kind") != "jit" or not callable(size):
        return None
    try:
        with RECORDER.lock:
            others = [r for r in RECORDER.jits_of.get(fun, ()) if r() is not None]
            RECORDER.jits_of[fun] = [*others, weakref.ref(rec)]
    except TypeError:  # a function that cannot be weakly referenced or hashed
        return None
    if not others:
        return size
    for r in others:
        other = r()
        if other is not None:
            other._size = other._single = None
    return None


def _calls_counted(c: itertools.count) -> int:
    return int(repr(c)[6:-1])  # "count(N)": how many times next() was called


def _fold_counts() -> None:
    """Add the fast path's calls to the signatures' counters (in the records and the
    observer's): before anything reads them. Tables of collected functions are folded
    one last time and dropped."""
    observed = []
    with RECORDER.lock:
        live = []
        for ref, table in RECORDER.tables:
            for seen in list(table.values()):
                for s in [seen, *(seen.placed or {}).values()]:
                    if s.entry is None:
                        continue
                    n = _calls_counted(s.count)
                    more, s.folded = n - s.folded, n
                    if more:
                        s.entry["calls"] += more
                        if s.cur is not None:
                            observed.append((s, more))
            if ref() is not None:
                live.append((ref, table))
        RECORDER.tables[:] = live
    for s, more in observed:  # under the observer's own lock
        s.observer.add_calls(s.state, s.cur, more)


#: a fast-path table's most entries per jitted function (each a distinct signature)
_FAST_MAX = 4096
_SCALARS = frozenset({bool, int, float, complex, str})
_ARRAY_TYPE: Any = None
#: a jax array's abstract value and committed-ness, and its sharding (C-level getters)
_AVAL = operator.attrgetter("aval", "_committed")
_SHARDING = operator.attrgetter("_sharding")
_clock = time.monotonic


def _fast_key(args: tuple, kwargs: dict, by_value: bool) -> tuple | None:
    """(a key that pins a call's signature cheaply, the arguments' leaves, whether they
    are all jax arrays: where one is committed, its sharding is looked up too), or None
    when a leaf is anything else than below (a tracer, an object): those calls take the
    full path every time.

    The mesh context of the call, and per leaf: a concrete jax array's abstract value
    (shape, dtype, weak type) and committed-ness; a numpy array's shape and dtype and a Python number's type (its value
    where ``by_value``: static arguments and filter_jit), with the x64 setting, which
    decides the dtype jax makes of them. Plain jax arrays, the common case, are keyed
    with C-level getters only; without keywords their tree structure is their count;
    in dicts, lists and tuples (:func:`_walk`), without flattening them through jax
    (the leaves are then None: :func:`_leaves` gives them where needed)."""
    array = _ARRAY_TYPE
    if array is None:
        return _first_key(args, kwargs, by_value)
    # the mesh context the call runs in (`with mesh:`, `jax.set_mesh`) is in its signature
    env, abstract = _RESOURCES.env, _ABSTRACT_MESH()
    mesh = None if env is _MESH0[0] and abstract is _MESH0[1] else (env, abstract)
    if not kwargs:
        for x in args:
            if type(x) is not array:
                break
        else:
            return (len(args), mesh, *map(_AVAL, args)), args, True
    parts: list = [mesh]
    if _walk(args, parts, 0) and (not kwargs or _walk(kwargs, parts, 0)):
        return tuple(parts), None, True
    leaves, treedef = _flatten((args, kwargs))
    if list(map(type, leaves)).count(array) == len(leaves):
        return (treedef, mesh, *map(_AVAL, leaves)), leaves, True
    parts = [treedef, mesh, _x64()]
    for x in leaves:
        t = type(x)
        if t is array:  # where it lives is part of what jit keys on (a reshard compiles again)
            parts.append((x.aval, x._sharding, True) if x._committed else (x.aval, False))
        elif t in _SCALARS:
            parts.append((t, x) if by_value or t is str else t)
        elif t.__name__ == "ndarray" and t.__module__ == "numpy":
            parts.append((t, x.shape, x.dtype))
        else:
            return None
    return tuple(parts), leaves, False


def _walk(x: Any, parts: list, depth: int) -> bool:
    """Add to ``parts`` a description of ``x``, a tree of plain dicts, lists and tuples
    of concrete jax arrays: each container as its type and keys (or length), before its
    children, each array as :data:`_AVAL` gets it (so no two trees share one). False for
    anything else (None, a namedtuple, another pytree node, a number): jax flattens it.
    (Walking namedtuples here too was measured slower than jax's flatten for optax's
    nested states: 15 against 7 µs for sam's, at load 12.)"""
    array = _ARRAY_TYPE
    t = type(x)
    if t is dict:
        values = x.values()
        parts.append((dict, tuple(x)))
    elif t is tuple or t is list:
        values = x
        parts.append((t, len(x)))
    else:
        return False
    if list(map(type, values)).count(array) == len(values):  # arrays only: no Python loop
        parts.extend(map(_AVAL, values))
        return True
    if depth > 32:
        return False
    for v in values:
        if type(v) is array:
            parts.append(_AVAL(v))
        elif not _walk(v, parts, depth + 1):
            return False
    return True


def _leaves(fast: tuple, args: tuple, kwargs: dict) -> Any:
    """The leaves of a call that :func:`_fast_key` keyed (in jax's order)."""
    return fast[1] if fast[1] is not None else _flatten((args, kwargs))[0]


def _first_key(args: tuple, kwargs: dict, by_value: bool) -> tuple | None:
    global _ARRAY_TYPE, _flatten, _x64, _RESOURCES, _ABSTRACT_MESH, _MESH0
    from jaxlint.dynamic import adapter

    _flatten, _x64 = adapter.flatten, adapter.x64_enabled
    _RESOURCES, _ABSTRACT_MESH = adapter.mesh_state()
    _MESH0 = (_RESOURCES.env, _ABSTRACT_MESH())  # the context most calls run in: keyed as None
    _ARRAY_TYPE = adapter.concrete_array_type()
    return _fast_key(args, kwargs, by_value)


_flatten: Any = None
_x64: Any = None
_RESOURCES: Any = None
_ABSTRACT_MESH: Any = None
_MESH0: tuple = (None, None)




def _root() -> Path:
    return Path(os.environ.get("JAXLINT_RECORD_ROOT", os.getcwd()))



def file_digest(path: str) -> str:
    """sha256 of a file's bytes as the program saw it (read once per process); of a
    notebook, of its code (``jaxlint.files.notebook.code_digest``)."""
    hit = RECORDER.digests.get(path)
    if hit is None:
        try:
            with open(path, "rb") as f:
                data = f.read()
            if path.endswith(".ipynb"):
                from jaxlint.files.notebook import code_digest

                hit = code_digest(data)
            else:
                hit = hashlib.sha256(data).hexdigest()
        except OSError:
            hit = "missing"
        RECORDER.digests[path] = hit
    return hit


# ---------------------------------------------------------------------------- notebooks


def notebook_cell(filename: str) -> tuple[str, int] | None:
    """Where code that a Jupyter kernel ran is in the project: (the notebook's path, the
    line of its virtual module (``jaxlint.files.notebook``) that the code's line 1 is).

    IPython compiles each cell under a name that is no file on disk
    (``/tmp/ipykernel_<pid>/<hash>.py``; ``<ipython-input-N-...>`` before ipykernel 6)
    and keeps its text in ``linecache``; that text is matched to a code cell of the
    notebooks the recorded command names (``JAXLINT_RECORD_NOTEBOOKS``), else of those
    in the kernel's working directory (``jupyter execute``, ``nbclient``, ``papermill``
    and ``pytest --nbmake`` start it in the notebook's folder)."""
    if filename in RECORDER.cells:
        return RECORDER.cells[filename]
    hit = None
    if filename and "IPython" in sys.modules and not os.path.exists(filename):
        try:
            hit = _match_cell(filename)
        except Exception as e:  # never break the user's program
            recorder_error("matching a notebook cell", e)
            hit = None
    RECORDER.cells[filename] = hit
    return hit


def _match_cell(filename: str) -> tuple[str, int] | None:
    import linecache

    name = os.path.basename(filename) if os.path.basename(filename).startswith("<") else filename
    lines = linecache.getlines(name)
    if not lines:
        return None
    from jaxlint.files import notebook

    for path, nb in _notebooks():
        found = notebook.match_cell(nb, lines)
        if found is not None:
            number, lead = found
            first = nb.module().map.line_of(number, 1 + lead)
            return (path, first - 1) if first is not None else None
    return None


def _notebooks() -> list:
    """(path, notebook) of the notebooks a kernel's cells are looked for in, read once."""
    if RECORDER.notebooks is None:
        from jaxlint.files import notebook

        named = [p for p in os.environ.get("JAXLINT_RECORD_NOTEBOOKS", "").split(os.pathsep) if p]
        paths = named or sorted(str(p) for p in Path.cwd().glob("*.ipynb"))
        root = _root().resolve()
        RECORDER.notebooks = []
        for p in paths:
            path = Path(p).resolve()
            if root != path and root not in path.parents:
                continue
            try:
                RECORDER.notebooks.append((str(path), notebook.load(path.read_bytes())))
            except (OSError, notebook.NotebookError):
                continue
            file_digest(str(path))  # the code the kernel runs, before anyone edits it
    return RECORDER.notebooks


def place(filename: str, line: int) -> tuple[str, int] | None:
    """(the notebook's path relative to the root, its module line) of ``line`` of a
    kernel's cell file; None for any other file."""
    cell = notebook_cell(filename)
    if cell is None:
        return None
    return Path(cell[0]).relative_to(_root().resolve()).as_posix(), line + cell[1]


def _placed_in_notebooks(functions: dict) -> dict:
    """Observations of notebook code moved from the kernel's cell files into the
    notebook (path under the root, lines of its module, its code digest)."""
    root = _root().resolve()

    def move(d: dict) -> None:
        if not isinstance(d.get("filename"), str):
            return
        at = place(d["filename"], 0)
        if at is None:
            return
        d["filename"] = at[0]
        for key in ("location", "end_location"):
            if isinstance(d.get(key), dict):
                d[key] = dict(d[key], row=d[key]["row"] + at[1])
        if isinstance(d.get("noqa_row"), int):
            d["noqa_row"] += at[1]

    def notebook_scope(f: str) -> dict:  # a notebook is one scope: its code
        return {"<notebook>": {"line": 1, "end": 1, "digest": file_digest(str(root / f))}}

    for e in functions.values():
        code = e.pop("_code_file", None)
        if code is not None:
            at = place(code, int(e.get("line") or 1))
            if at is not None:
                e["line"] = at[1]
        if str(e.get("file") or "").endswith(".ipynb") and not os.path.isabs(e["file"]):
            e.setdefault("code", {}).setdefault(e["file"], notebook_scope(e["file"]))
        for d in e.get("diagnostics") or []:
            move(d)
            for r in d.get("related") or []:
                move(r)
            for f in [d["filename"], *(r["filename"] for r in d.get("related") or [])]:
                if f.endswith(".ipynb") and not os.path.isabs(f):
                    e.setdefault("code", {}).setdefault(f, notebook_scope(f))
        first = e.get("first_call")
        if isinstance(first, str) and ":" in first:
            f, _, line = first.rpartition(":")
            at = place(f, int(line)) if line.isdigit() else None
            if at is not None:
                e["first_call"] = f"{at[0]}:{at[1]}"
        for sig in e.get("signatures") or []:
            for key in ("first_call", "again_at"):
                call = sig.get(key)
                if isinstance(call, dict):
                    at = place(str(call.get("file")), int(call.get("line") or 0))
                    if at is not None:
                        sig[key] = dict(call, file=at[0], line=at[1])
    return functions


# ---------------------------------------------------------------------------- signatures
def _describe(fun, kwargs: dict, kind: str, jit_line: int | None = None,
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
    root = _root()
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
    static_names = set(names) | {params[i] for i in nums if -len(params) <= i < len(params)}
    static_nums = set(nums) | {params.index(n) for n in names if n in params}
    donate = kwargs.get("donate_argnums")
    donate = () if donate is None else (donate,) if isinstance(donate, int) else tuple(donate)
    donate_names = kwargs.get("donate_argnames")
    donate_names = () if donate_names is None else (donate_names,) if isinstance(donate_names, str) \
        else tuple(donate_names)
    meta = {"file": path.relative_to(root).as_posix(), "line": first_line, "qualname": name,
            "params": params, "static_nums": sorted(i % max(len(params), 1) for i in static_nums),
            "static_names": sorted(static_names), "kind": kind, "module": module, "jit_line": jit_line,
            "partial_bound": bound,
            "donate_nums": sorted({int(i) for i in donate} | {params.index(n) for n in donate_names if n in params})}
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


def _note(key: str, meta: dict, args: tuple, kwargs: dict) -> tuple[str, Signature, bool]:
    """Count the call under its abstract signature; returns (the signature's canonical
    text, the signature, whether the call runs inside another function's trace)."""
    static_nums = set(meta["static_nums"])
    static_names = set(meta["static_names"])
    # equinox.filter_jit traces array leaves only: a Python number is a static value there
    numbers_static = meta["kind"] == "filter_jit"
    sig: Signature = {
        "args": [_value(a) if i in static_nums else _tree(a, numbers_static) for i, a in enumerate(args)],
        "kwargs": {k: (_value(v) if k in static_names else _tree(v, numbers_static))
                   for k, v in sorted(kwargs.items())},
    }
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
            entry = RECORDER.records[key] = {
                "file": meta["file"], "line": meta["line"], "qualname": meta["qualname"],
                "static_argnums": meta["static_nums"], "transform": meta["kind"],
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


def _tree(x: Any, numbers_static: bool = False) -> dict:
    if x is None:
        return {"value": None}
    if isinstance(x, (bool, int, float, complex)) and numbers_static:
        return _value(x)
    if isinstance(x, bool):
        return {"array": [], "dtype": "bool", "weak": False}
    if isinstance(x, (int, float, complex)):
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
        return {"dict": {k: _tree(x[k], numbers_static) for k in sorted(x)}}
    return _opaque(x, numbers_static)


def _array_node(x: Any) -> dict | None:
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is None or dtype is None or isinstance(x, (tuple, list, dict)) or isinstance(shape, property):
        return None
    aval = getattr(x, "aval", None)
    weak = bool(getattr(aval, "weak_type", getattr(x, "weak_type", False)))
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

        leaves, static, _ = abstract.structure(x)
    except Exception as e:  # the argument is recorded by its type alone
        recorder_error("describing an argument's leaves", e)
        return node
    if leaves:
        node["leaves"] = {path or ".": (_tree(v, numbers_static) if isinstance(v, (bool, int, float, complex))
                                        else _array_node(v) or _value(v)) for path, v in leaves}
    if static:
        node["static"] = abstract.short_digest(static)
    return node


# ---------------------------------------------------------------------------- observing
#: seconds between writes of the records while the program runs (a forked child that
#: leaves through os._exit, or a killed program, keeps what was written)
FLUSH_EVERY = 5.0


def _observer():
    """The process's :class:`~jaxlint.dynamic.observer.Observer`, made at the first call of
    a jitted function (jax is loaded by then); ``None`` when analysis is off or cannot run."""
    if RECORDER.observer is not None or RECORDER.observer_off:
        return RECORDER.observer
    with RECORDER.lock:
        if RECORDER.observer is None and not RECORDER.observer_off:
            levels = [x for x in os.environ.get("JAXLINT_OBSERVE", "").split(",") if x]
            if not levels:
                RECORDER.observer_off = True
                return None
            try:
                from jaxlint.dynamic.observer import Observer

                RECORDER.observer = Observer(_root(), levels, os.environ.get("JAXLINT_KEEP_IR") == "1",
                                             RECORDER.analysers, RECORDER)
                RECORDER.watch.listeners.append(RECORDER.observer.callers)
                from jaxlint.dynamic import adapter

                RECORDER.compiles = adapter.COMPILE_COUNT  # the fast path sees a call that compiled
            except Exception as e:  # e.g. jaxlint's dependencies missing in this interpreter
                RECORDER.observer_off = True
                sys.stderr.write(f"jaxlint record: not analysing in this process: {type(e).__name__}: {e}\n")
    return RECORDER.observer


def _maybe_flush() -> None:
    now = time.monotonic()
    obs = RECORDER.observer
    if now - RECORDER.last_flush >= FLUSH_EVERY or (obs is not None and obs.dirty):
        RECORDER.last_flush = now
        if obs is not None:
            obs.dirty = False
        flush()


def _at_exit() -> None:
    obs = RECORDER.observer
    try:
        _fold_counts()
    except Exception as e:
        recorder_error("counting the calls", e)
    if obs is not None:
        try:
            obs.finish()
        except Exception as e:
            recorder_error("finishing the analysis", e)
    flush()


#: environment variables a re-import of a recorded script gets back (``check --dynamic``)
ENV_KEEP = re.compile(r"^(JAX_|XLA_|TF_CPP_|CUDA_VISIBLE_DEVICES$|TPU_|PYTHONHASHSEED$)")


#: the interpreter's options that take a separate argument
_OPTION_ARGS = {"-W", "-X", "--check-hash-based-pycs"}


def _entry() -> dict:
    """How this process was started, read before the program runs (at exit CPython has
    already cleared ``__main__``): the project module it runs as its main (a script's
    path, or ``-m``'s module), its argv as the program sees it, its working directory
    and the allowed environment (:data:`ENV_KEEP`)."""
    args = list(getattr(sys, "orig_argv", None) or [])[1:]
    argv = list(sys.argv)
    main = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-m" or (a.startswith("-m") and len(a) > 2):
            main = args[i + 1] if a == "-m" and i + 1 < len(args) else a[2:] if a != "-m" else None
            if argv and argv[0] == "-m":  # what __main__ will see: the module, not `-m`
                argv[0] = main or argv[0]
            break
        if a in _OPTION_ARGS:
            i += 2
            continue
        if a == "-" or a.startswith("-c") or not a.startswith("-"):
            if not a.startswith("-") and a.endswith(".py") and in_project(os.path.abspath(a)):
                from jaxlint.dynamic import project

                main = project.module_name(Path(a).resolve(), _root())[0]
            break
        i += 1
    return {"main": main, "argv": argv, "cwd": os.getcwd(),
            "env": {k: v for k, v in os.environ.items() if ENV_KEEP.match(k)}}


def _program() -> dict:
    """How this process was started: what a re-import of its main script needs."""
    if RECORDER.program is not None:
        return dict(RECORDER.program)
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    name = None
    if spec is not None and getattr(spec, "name", None):
        name = spec.name
    else:
        f = getattr(main, "__file__", None)
        if f and in_project(f):
            from jaxlint.dynamic import project

            name = project.module_name(Path(f).resolve(), _root())[0]
    out = {"main": name, "argv": list(sys.argv), "cwd": os.getcwd(),
           "env": {k: v for k, v in os.environ.items() if ENV_KEEP.match(k)}}
    devices = _devices()
    if devices is not None:
        out["devices"] = devices
    return out


def _devices() -> dict | None:
    """The devices the program ran on (count and platform: a worker that traces its
    functions again forces as many host devices), once a jitted call has run."""
    if RECORDER.observer is None or "jax" not in sys.modules:
        return None
    try:
        import jax

        return {"count": jax.device_count(), "platform": jax.default_backend()}
    except Exception as e:
        recorder_error("counting the devices", e)
        return None


def flush() -> None:
    out = os.environ.get("JAXLINT_RECORD_DIR")
    if out and RECORDER.library_jits:
        try:
            with RECORDER.lock:
                library = json.dumps(dict(RECORDER.library_jits)).encode("utf-8")
            _write(os.path.join(out, f"library-{os.getpid()}.json"), library)
        except OSError as e:
            recorder_error("writing the library jits", e)
    if not out or not RECORDER.records:
        return
    try:
        _fold_counts()
    except Exception as e:
        recorder_error("counting the calls", e)
    reused = RECORDER.watch.verdicts()
    with RECORDER.lock:
        data = {}
        for key, entry in RECORDER.records.items():
            data[key] = {k: v for k, v in entry.items() if k != "sigs"}
            data[key]["signatures"] = list(entry["sigs"].values())
            if reused.get(key):  # what the caller did with the arguments after the calls watched
                data[key]["reused"] = reused[key]
        blobs = dict(RECORDER.blobs)
    observed = None
    if RECORDER.observer is not None:
        try:
            observed = {"program": _program(), "functions": _placed_in_notebooks(RECORDER.observer.to_json())}
        except Exception as e:
            recorder_error("writing the observations", e)
            observed = {"program": _program(), "functions": {}}
    errors = recorder_errors()
    if observed is not None and errors:
        observed["program"]["recorder_errors"] = errors
    try:
        os.makedirs(os.path.join(out, "pickles"), exist_ok=True)
        for sha, blob in blobs.items():
            dest = os.path.join(out, "pickles", f"{sha}.pickle")
            if not os.path.exists(dest):
                _write(dest, blob)
        _write(os.path.join(out, f"records-{os.getpid()}.json"), json.dumps(data).encode("utf-8"))
        if observed is not None:
            _write(os.path.join(out, f"observed-{os.getpid()}.json"),
                   json.dumps(observed, default=str).encode("utf-8"))
        if errors:
            _write(os.path.join(out, f"errors-{os.getpid()}.json"), json.dumps(errors).encode("utf-8"))
    except OSError as e:  # nowhere to write to: say so (once) where the user sees it
        if not RECORDER.write_failed:
            RECORDER.write_failed = True
            sys.stderr.write(f"jaxlint record: cannot write what this process recorded: {e}\n")




def _write(path: str, data: bytes) -> None:
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
