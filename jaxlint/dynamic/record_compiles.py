"""The program's compiles outside its own jitted functions, as ``jaxlint record`` sees them.

Work that runs eagerly between jitted calls compiles programs of its own: every jax
operation applied outside a jit compiles a small program (once per shape), and an eager
``lax.while_loop``/``lax.scan`` over a fresh closure, or a library's ``jax.jit`` made
anew on each call, compiles again every time (optax's L-BFGS line search run eagerly:
``jit(while)`` compiled once per step). No jitted function of the project is there to
record, so the recorder listens to jax itself: ``jax.monitoring`` reports every backend
compile (``/jax/core/compile/backend_compile_duration``, with the compiled function's
name) in the thread that compiles, so the listener finds, on that thread's stack, the
innermost frame of the project's own code, the line that caused the compile, and counts
the compile and its seconds there, per compiled function. Nothing runs per operation,
only per compile.

A compile under a recorded jitted call (the project's own ``jax.jit`` functions, whose
compiles the recorder already counts per signature for JAX208) or under jaxlint's own
code (the observer) has a frame of jaxlint on the stack before any of the project's: it
is left out. What is kept, in the :class:`~jaxlint.dynamic.record_state.Recorder`
(``eager_sites``), and written as ``compiles-<pid>.json`` beside the records (:func:`part`),
merged by ``jaxlint record`` into the ``eager`` part of ``observed.json``
(:mod:`jaxlint.dynamic.eager`): per line of the project, its scope's qualified name, the
compiled functions with their counts, seconds and the number of calls of the line that
compiled each (a call of the line is known by a mark on the frame it called, :class:`_Call`),
and the first call that led there.
"""
from __future__ import annotations

import os
import sys
from types import FrameType

from jaxlint.dynamic.record_state import RECORDER, in_project, recorder_error, where

#: jax's event for one XLA compile (``jax._src.dispatch.BACKEND_COMPILE_EVENT``)
BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
#: how far up the compiling thread's stack the listener looks for the project's line
_DEPTH = 256
#: jaxlint's own files: a compile under one of them is a recorded call's or the observer's
_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def listen() -> None:
    """Register the listener with ``jax.monitoring`` (once per process)."""
    if RECORDER.eager_listening:
        return
    RECORDER.eager_listening = True
    try:
        from jax import monitoring

        monitoring.register_event_duration_secs_listener(_on_event)
    except Exception as e:  # an older jax without the event: nothing is counted
        recorder_error("listening to jax's compiles", e)


def _on_event(event: str, duration_secs: float, **kwargs: str | int) -> None:
    if event != BACKEND_COMPILE:
        return
    try:
        RECORDER.compile_seconds += float(duration_secs)
        name = kwargs.get("fun_name")
        if not name:  # jax 0.4.38 sends the event without the function's name
            from jaxlint.dynamic import adapter

            name = adapter.compile_event_function(sys._getframe(1))
        _count(str(name or "?"), float(duration_secs))
    except Exception as e:  # never break the program
        recorder_error("counting a compile outside the jitted functions", e)


class _Call:
    """The mark of one call (set as ``f_trace`` of the frame of the project's function the
    line is in, or at a module's top level of the frame the line called: a frame lives as
    long as its call, and a later call is a new frame). Inert: Python calls a frame's ``f_trace`` only while a
    tracer (``sys.settrace``) runs, and then this one asks for nothing more."""

    __slots__ = ("number",)

    def __init__(self, number: int) -> None:
        self.number = number

    def __call__(self, frame, event, arg) -> None:
        return None


def _count(name: str, seconds: float) -> None:
    frame: FrameType | None = sys._getframe(2)
    callee = None
    depth = 0
    while frame is not None and depth < _DEPTH:
        filename = frame.f_code.co_filename
        if filename.startswith(_OWN):
            return  # a recorded jitted call (JAX208 counts its compiles) or the observer's own work
        if in_project(filename):
            break
        frame, callee, depth = frame.f_back, frame, depth + 1
    else:
        return  # no line of the project's within reach
    if frame is None:
        return  # none at all: a library's work at import, or jax's own
    frame, callee = _users_call(frame, callee)
    if frame is None:
        return
    file, line = where(frame.f_code.co_filename, frame.f_lineno)
    scope = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
    key = (file, line, scope)
    with RECORDER.eager_lock:
        site = RECORDER.eager_sites.get(key)
        if site is None:
            site = RECORDER.eager_sites[key] = {"functions": {}, "caller": _caller(frame.f_back)}
        # which call this is: of the function the line is in (a new frame per call), or,
        # at a module's top level, of what the line called. One call that compiles an
        # operation per shape (an eager model's first call over its layers, a library's
        # set-up) is one call, however many compiles; a frame another tracer marks
        # counts each compile as a call
        marked = frame if frame.f_code.co_name != "<module>" else callee
        mark = getattr(marked, "f_trace", None)
        if isinstance(mark, _Call):
            call = mark.number
        else:
            RECORDER.eager_calls += 1  # one count for all lines: a frame may compile at several
            call = RECORDER.eager_calls
            if marked is not None and mark is None:
                marked.f_trace = _Call(call)
        counts = site["functions"].setdefault(name, [0, 0.0, 0, 0])
        counts[0] += 1
        counts[1] += seconds
        if counts[3] != call:  # compiled in another call of the line than before
            counts[2] += 1
            counts[3] = call


def _users_call(frame, callee):
    """The project's frame to count a compile at, and the frame it called: ``frame``
    itself, unless a library called it back (a kernel's ``evaluate`` that tinygp applies,
    a value function optax's line search calls): then the project's call into that
    library further out, whose calls decide how often the library calls back. (None,
    None) under jaxlint's own code."""
    depth = 0
    while frame.f_code.co_name != "<module>" and depth < _DEPTH:
        back, inner = frame.f_back, frame
        while back is not None and not in_project(back.f_code.co_filename) and depth < _DEPTH:
            if back.f_code.co_filename.startswith(_OWN):
                return None, None
            inner, back, depth = back, back.f_back, depth + 1
        if back is None or inner is frame:  # called by the project's own code (or by nothing)
            return frame, callee
        frame, callee = back, inner
    return frame, callee


def _caller(frame) -> str | None:
    """``file:line`` of the next line of the project's further out (the loop's call of the
    function that compiled), or None."""
    depth = 0
    while frame is not None and depth < _DEPTH:
        if frame.f_code.co_filename.startswith(_OWN):
            return None
        if in_project(frame.f_code.co_filename):
            file, line = where(frame.f_code.co_filename, frame.f_lineno)
            return f"{file}:{line}"
        frame, depth = frame.f_back, depth + 1
    return None


def part() -> dict | None:
    """This process's part (``compiles-<pid>.json``): which program ran (``main``: its
    earlier sites are replaced by a complete run) and one table per line, ``{"file",
    "line", "scope", "functions": {name: {"compiles", "seconds"}}, "caller"}``; None
    when the process does not listen."""
    if not RECORDER.eager_listening:
        return None
    with RECORDER.eager_lock:
        sites = [{"file": f, "line": n, "scope": s, "caller": site["caller"],
                  "functions": {name: {"compiles": c, "seconds": round(t, 4), "calls": calls}
                                for name, (c, t, calls, _) in site["functions"].items()}}
                 for (f, n, s), site in RECORDER.eager_sites.items()]
    from jaxlint.dynamic import record_dispatch

    out = {"main": (RECORDER.program or {}).get("main"), "sites": sites}
    dispatch = record_dispatch.part(where)
    if dispatch is not None:  # the eager operations between the jitted calls
        out["dispatch"] = dispatch
    return out
