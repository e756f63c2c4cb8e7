"""The program's eager jax operations between the calls of its jitted functions, as
``jaxlint record`` sees them.

A jax operation applied outside any jit (``x * 2``, ``jnp.sum``, ``jax.random.normal``,
an optax update, a model's forward called without jit) is a dispatch of its own: a small
compiled program run by jax's C++ jit from its cache. jax calls a hook after each such
call (the one ``jax_debug_nans`` uses; :func:`jaxlint.dynamic.adapter.install_dispatch_hook`),
and the listener here counts it at the line of the project that issued it: the innermost
frame of the project's code on the stack, or, where a library called that code back (a
model's ``__call__`` that flax's ``apply`` runs), the project's call into the library. A
dispatch under jaxlint's own code (a recorded jitted function's call, the observer) is
not counted; it ends the run of eager operations before it.

What is kept per line: the operations, the gaps between consecutive operations of one
call of one function (each gap is one operation's dispatch and the Python around it: the
time it costs; the first 256 are kept, and their mean without those over 20 times the
median is the line's time per operation, so a gap that holds a compile or a data loader's
work does not count), and, per recorded jitted function (the project's step,
:func:`step` is told of each call at the top level), the calls between which the line
ran and its operations there. Per jitted function: its calls, the mean time from one
call to the next (every interval but the first, less the compiles in it) and the project's
functions on the stack at its first calls (where its loop is: a line of a function the
loop calls is placed at the loop's call of it, :func:`part`). A line that ran only before
the first call of a step or after its last (set-up, a final evaluation) is never between
two of its calls.

Nothing in the program's own calls changes: the hook runs after the operation, reads the
stack and a clock, and adds to counters (a few microseconds per operation).
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any

from jaxlint.dynamic.record_state import RECORDER, recorder_error

#: jaxlint's own files: a dispatch under one of them is a recorded call's or the observer's
_OWN = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
#: the file of the hook jax calls, when it calls this listener on (:func:`adapter.install_dispatch_hook`)
_ADAPTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "adapter.py")
#: how many gaps per line (and per step, the times between its calls) are kept
_KEEP = 256
#: how far up the stack the listener looks
_DEPTH = 128
#: at how many of a step's first calls the project's functions on the stack are noted
_LOOKED = 32
_clock = time.perf_counter


class _Line:
    """One line of the project that issued eager operations."""

    __slots__ = ("code", "line", "ops", "gaps", "stamp", "snaps", "steps", "chain", "settled")

    def __init__(self, code: Any, line: int, chain: list) -> None:
        #: the project's frames further out, (code, line), innermost first: at its first
        #: operation, and again at its first once a step was called (set-up may call it elsewhere)
        self.code, self.line, self.chain = code, line, chain
        self.settled = False
        self.ops = 0
        self.gaps: list[float] = []
        self.stamp = -1
        #: step -> this line's ``ops`` at the step's latest call
        self.snaps: dict[str, int] = {}
        #: step -> [the intervals between its calls this line ran in, its operations there]
        self.steps: dict[str, list[int]] = {}


class _Step:
    """One recorded jitted function, as the eager operations between its calls see it."""

    __slots__ = ("calls", "last", "periods", "dirty", "codes", "compiled")

    def __init__(self) -> None:
        self.calls = 0
        self.last = 0.0
        #: the time from each call to the next, less the compiles in it
        self.periods: list[float] = []
        #: ``RECORDER.compile_seconds`` at its latest call
        self.compiled = 0.0
        #: the project's functions (code objects) on the stack at its first calls: where its loop is
        self.codes: set[Any] = set()
        #: the lines that issued operations since its latest call
        self.dirty: set[_Line] = set()


class Dispatches:
    """What this process counted (``RECORDER.dispatch``, made by :func:`listen`)."""

    def __init__(self) -> None:
        #: id of a code object -> (the code, 0 a library's, 1 the project's, 2 jaxlint's)
        self.kinds: dict[int, tuple[Any, int]] = {}
        self.lines: dict[tuple[int, int], _Line] = {}
        self.steps: dict[str, _Step] = {}
        #: one more at every call of a recorded jitted function
        self.epoch = 0
        #: (the clock, the frame's id) of the latest dispatch of the project's, or of a recorded call
        self.last_t = 0.0
        self.last_frame = 0
        #: (jax's tracing context, the class of its trace outside any trace)
        self.tracing: tuple[Any, Any] = (None, None)
        #: the code of a recorded jitted function's call (``record_calls.Recorded.__call__``)
        self.recorded_code: Any = None

    def forget(self) -> None:
        """A forked child counts its own operations."""
        self.lines.clear()
        self.steps.clear()


def listen() -> None:
    """Install the dispatch hook (once per process), and tell the recorded jitted
    functions to report their calls (:func:`step`)."""
    if RECORDER.dispatch is not None:
        return
    try:
        from jaxlint.dynamic import adapter

        counts = Dispatches()
        counts.tracing = adapter.dispatch_state()[:2]
        RECORDER.dispatch = counts
        if adapter.install_dispatch_hook(_on_dispatch):
            RECORDER.step_called = step
    except Exception as e:  # another jax: nothing is counted
        recorder_error("listening to jax's dispatches", e)


def _kind(code: Any) -> int:
    kinds = RECORDER.dispatch.kinds
    hit = kinds.get(id(code))
    if hit is not None and hit[0] is code:
        return hit[1]
    name = code.co_filename
    kind = 2 if name.startswith(_OWN) else 1 if RECORDER.in_project(name) else 0
    kinds[id(code)] = (code, kind)
    return kind


def _on_dispatch(fun: Any, args: Any, kwargs: Any, output: Any) -> None:
    """jax's post-call hook: one dispatch. The hot path (a few microseconds): the stack's
    code objects are classified once each, and nothing is locked (the GIL is held here;
    a count two threads raise at once may lose one)."""
    try:
        t = _clock()
        state = RECORDER.dispatch
        frame: Any = sys._getframe(1)
        code = frame.f_code
        if code is state.recorded_code:  # a recorded jitted function's own call (JAX208's)
            return
        if code.co_filename == _ADAPTER:  # called on by jax's NaN check (``jax_debug_nans``)
            frame = frame.f_back
        kinds = state.kinds
        depth = kind = 0
        while frame is not None and depth < _DEPTH:
            code = frame.f_code
            hit = kinds.get(id(code))
            kind = hit[1] if hit is not None and hit[0] is code else _kind(code)
            if kind:
                break
            frame, depth = frame.f_back, depth + 1
        if not kind or frame is None:
            return  # a library's own work (at import), or too deep to tell
        if kind == 2:  # jaxlint's own work (the observer): the eager run before it ends
            state.last_frame = 0
            return
        back = frame.f_back
        if back is not None:
            hit = kinds.get(id(back.f_code))
            if hit is None or hit[0] is not back.f_code or hit[1] != 1:  # not called by the project's own code
                frame = _users_call(frame)
                if frame is None:
                    state.last_frame = 0
                    return
                code = frame.f_code
        key = (id(code), frame.f_lineno)
        line = state.lines.get(key)
        if line is None or line.code is not code:
            line = state.lines[key] = _Line(code, frame.f_lineno, _chain(frame.f_back))
        line.ops += 1
        fid = id(frame)
        if state.last_frame == fid and len(line.gaps) < _KEEP:
            line.gaps.append(t - state.last_t)
        state.last_t, state.last_frame = t, fid
        if line.stamp != state.epoch:
            line.stamp = state.epoch
            if not line.settled and state.steps:
                line.chain, line.settled = _chain(frame.f_back), True
            for st in tuple(state.steps.values()):
                st.dirty.add(line)
    except Exception as e:  # never break the program
        recorder_error("counting an eager operation", e)


def _users_call(frame: Any) -> Any:
    """The project's frame to count at: ``frame``, or, where a library called it back,
    the project's call into that library further out; None under jaxlint's own code."""
    depth = 0
    while frame.f_code.co_name != "<module>" and depth < _DEPTH:
        back, inner = frame.f_back, frame
        while back is not None and depth < _DEPTH:
            kind = _kind(back.f_code)
            if kind == 2:
                return None
            if kind == 1:
                break
            inner, back, depth = back, back.f_back, depth + 1
        if back is None or inner is frame:  # called by the project's own code (or by nothing)
            return frame
        frame = back
    return frame


def _chain(frame: Any) -> list[tuple[Any, int]]:
    """The project's frames from ``frame`` outwards, (code, line) each, up to jaxlint's own
    (the runner) or the top: the calls that led to a line (done once per line)."""
    out: list[tuple[Any, int]] = []
    depth = 0
    while frame is not None and depth < _DEPTH:
        kind = _kind(frame.f_code)
        if kind == 2:
            break
        if kind == 1:
            out.append((frame.f_code, frame.f_lineno))
        frame, depth = frame.f_back, depth + 1
    return out


def step(key: str) -> None:
    """A recorded jitted function ``key`` is called at the top level (outside any trace):
    the lines that ran since its previous call ran between two of its calls. Called at the
    start of every recorded call: a dictionary lookup and a clock unless eager operations
    ran since."""
    try:
        state = RECORDER.dispatch
        ctx, evaluating = state.tracing
        if ctx is not None and ctx.trace.__class__ is not evaluating:
            return  # called inside another function's trace: inlined there, no call of its own
        t = _clock()
        st = state.steps.get(key)
        if st is None:  # what ran before its first call is set-up, not between calls
            st = state.steps[key] = _Step()
            for line in list(state.lines.values()):
                line.snaps[key] = line.ops
            state.recorded_code = sys._getframe(1).f_code  # the recorded call's, whose dispatch is not eager
        elif len(st.periods) < 16 * _KEEP:
            st.periods.append(max(0.0, t - st.last - (RECORDER.compile_seconds - st.compiled)))
        if st.calls < _LOOKED:
            st.codes.update(code for code, _ in _chain(sys._getframe(2)))
        st.calls += 1
        st.last = t
        st.compiled = RECORDER.compile_seconds
        if st.dirty:
            for line in tuple(st.dirty):
                ran = line.ops - line.snaps.get(key, 0)
                line.snaps[key] = line.ops
                if ran and st.calls > 1:
                    have = line.steps.setdefault(key, [0, 0])
                    have[0] += 1
                    have[1] += ran
            st.dirty = set()
        state.epoch += 1
        state.last_frame = 0
    except Exception as e:
        recorder_error("noting a jitted call between eager operations", e)


def _typical(gaps: list[float]) -> float:
    """What one operation takes: the mean gap, without those over 20 times the median (a
    gap that holds a compile, or other work of the program between two operations)."""
    cap = 20 * statistics.median(gaps)
    kept = [g for g in gaps if g <= cap]
    return round(sum(kept) / len(kept), 7)


def _period(periods: list[float]) -> float | None:
    """The mean time from one call to the next, without the first (its trace, and the
    eager operations' first compiles) and without the compiles in the others: every other
    interval counts, the long ones too (a loop that draws a frame or waits for the device
    every few steps spends that time between its calls, and eager work done only there is
    a share of all of it)."""
    rest = periods[1:]
    if not rest:
        return None
    return sum(rest) / len(rest)


def part(where: Any) -> dict | None:
    """This process's eager operations: ``{"steps": {key: {"calls", "period"}}, "op_seconds",
    "sites": [{"file", "line", "scope", "caller", "dispatch": {key: {"intervals", "ops"}},
    "op_seconds", "inner"?, "callee"?}]}`` (``where``: a code file and line -> the file under
    the root and the line, as the compiles are placed); None when nothing ran between two
    calls of a step.

    A line is placed where the user changes the code: at itself when it is in a function
    the step is called from (the loop's body), or else at the outermost call in such a
    function that led to it (the loop's ``train_step(...)`` whose whole body runs eagerly),
    whose ``inner`` then counts the lines under it (``"file:line"`` -> operations) and
    ``callee`` names the function it called."""
    state = RECORDER.dispatch
    if state is None or RECORDER.step_called is None:
        return None
    lines = [(ln.code, ln.line, list(ln.chain), dict(ln.steps), list(ln.gaps)) for ln in list(state.lines.values())
             if ln.steps]
    steps = {k: (st.calls, _period(list(st.periods)), set(st.codes)) for k, st in list(state.steps.items())}
    if not lines:
        return None
    every = [g for _, _, _, _, gaps in lines for g in gaps]
    fallback = _typical(every) if every else None
    merged: dict[tuple, dict] = {}
    for code, n, chain, by_step, gaps in lines:
        own = _typical(gaps) if len(gaps) >= 3 else fallback
        loops = steps.get(max(by_step, key=lambda k: by_step[k][1]), (0, None, set()))[2]
        at = None if code in loops else next((i for i, (c, _) in enumerate(chain) if c in loops), None)
        file, line = where(code.co_filename, n)
        place, ln = (code, n) if at is None else chain[at]
        key = (*where(place.co_filename, ln), getattr(place, "co_qualname", place.co_name))
        site = merged.get(key)
        if site is None:
            caller = chain[0] if at is None and chain else None
            site = merged[key] = {"file": key[0], "line": key[1], "scope": key[2], "dispatch": {},
                                  "caller": None if caller is None else "%s:%d" % where(caller[0].co_filename, caller[1]),
                                  "_cost": 0.0, "_ops": 0}
        ops = 0
        for k, (intervals, count) in by_step.items():
            have = site["dispatch"].setdefault(k, {"intervals": 0, "ops": 0})
            have["intervals"] = max(have["intervals"], intervals)  # lines under one call run in the same intervals
            have["ops"] += count
            ops += count
        if own is not None:
            site["_cost"] += ops * own
            site["_ops"] += ops
        if at is not None:
            inner = site.setdefault("inner", {})
            inner[f"{file}:{line}"] = inner.get(f"{file}:{line}", 0) + ops
            if inner[f"{file}:{line}"] == max(inner.values()):
                callee = chain[at - 1][0] if at else code
                site["callee"] = getattr(callee, "co_qualname", callee.co_name)
    sites = []
    for site in merged.values():
        cost, counted = site.pop("_cost"), site.pop("_ops")
        site["op_seconds"] = round(cost / counted, 7) if counted else None
        sites.append(site)
    return {"steps": {k: {"calls": c, "period": None if p is None else round(p, 7)} for k, (c, p, _) in steps.items()
                      if any(k in s["dispatch"] for s in sites)},
            "op_seconds": fallback, "sites": sites}
