"""What a program does with a jitted function's arguments after the call: whether the
caller uses them again (then donating them would break it) or lets them go.

The recorder (:mod:`jaxlint.dynamic.recorder`) hands this module the first few calls
of each recorded function (:data:`SAMPLES`, any signature). Of each such call it keeps
weak references to the jax arrays of every argument (not the static ones, and not an
array the call returned as it is: jax forwards an unchanged output, which the caller
then holds as the result). At the *next* recorded jitted call, of any function, it looks
which are still alive:

* ``state = step(state, batch)`` drops the old state before the next call: not reused;
* ``pruned = apply_mask(params, m)`` then ``get_updates(pruned, ...)``: ``params`` is
  alive at the next call, so the caller keeps it: reused.

An argument is *reused* when one of its arrays outlived a watched call. The first call
of a function is left out of the verdict when later ones were watched too: a training
loop's first state is often still held by the setup code (``params`` beside
``TrainState(params, ...)``), which later steps no longer do. The verdict per function,
``{argument name: reused}``, goes into the recording (``"reused"`` of the function's
entry, in the signatures file and the observations); a function never watched has
none (unknown). The watch stays on for :data:`WINDOW` calls after a function's first
call, so a long-running program's later calls (the recorder's fast path) pay for one
check only; when it ends, every function's verdict so far is final (a function called
too rarely to be watched 4 times is not waited for until the program exits).

Never imports jax itself: the arrays are flattened through the version adapter, loaded
by the time a jitted function is called.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable

#: calls of each function whose arguments are watched
SAMPLES = 4
#: recorded calls after a function's first during which calls are watched
WINDOW = 256
#: calls left to watch: the recorder's fast path reads ``WATCH[0]`` (one check)
WATCH = [0]

_LOCK = threading.Lock()
#: function key -> calls of it still to watch
_LEFT: dict[str, int] = {}
#: watched calls not judged yet: (function key, {argument: [weak references to its arrays]})
_PENDING: list[tuple[str, dict[str, list]]] = []
#: function key -> per judged call, {argument: whether one of its arrays was still alive}
_JUDGED: dict[str, list[dict[str, bool]]] = {}
#: ``listener(key, verdict, final)``, told each new verdict (the observer); ``final``: every
#: watched call of the function is judged
LISTENERS: list[Callable[[str, dict[str, bool], bool], None]] = []
#: ``error(doing, exception)``: the recorder's failure counter
ERROR: list[Callable[[str, BaseException], None]] = []


def after(rec: Any, args: tuple, kwargs: dict, out: Any) -> None:
    """A recorded call of ``rec`` returned ``out``: judge the calls watched before it, and
    watch this one if its function wants more. Never raises."""
    try:
        _after(rec, args, kwargs, out)
    except Exception as e:  # never break the user's program
        for error in ERROR:
            error("watching what the caller keeps", e)


def _after(rec: Any, args: tuple, kwargs: dict, out: Any) -> None:
    key = rec._key
    ended = False
    with _LOCK:
        pending = _PENDING[:]
        _PENDING.clear()
        if WATCH[0] > 0:
            WATCH[0] -= 1
            ended = WATCH[0] == 0
        left = _LEFT.get(key)
        if left is None:  # the function's first call: watch the calls that follow it
            left = SAMPLES
            WATCH[0] = max(WATCH[0], WINDOW)
        take = left > 0 and WATCH[0] > 0  # a call watched now is judged before the watch ends
        _LEFT[key] = left - 1 if take else left
        told = []
        for k, refs in pending:
            judged = _JUDGED.setdefault(k, [])
            judged.append({name: any(r() is not None for r in rs) for name, rs in refs.items()})
            told.append((k, verdict(judged), len(judged) >= SAMPLES))
        if ended:  # no call is watched any more: what was seen of each function is all there is
            told += [(k, verdict(_JUDGED.get(k) or []), True) for k in _LEFT]
    if take:
        watched = _watch(rec, args, kwargs, out)
        if watched:
            with _LOCK:
                _PENDING.append((key, watched))
    for k, v, final in told:
        for listener in LISTENERS:
            listener(k, v, final)


def _watch(rec: Any, args: tuple, kwargs: dict, out: Any) -> dict[str, list]:
    """{argument name: weak references to its jax arrays} of one call (static arguments,
    and arrays the call returned as they are, left out)."""
    from jaxlint.dynamic import adapter

    meta = rec._meta
    params = meta.get("params") or []
    static_nums = set(meta.get("static_nums") or ())
    static_names = set(meta.get("static_names") or ())
    array = adapter.concrete_array_type()
    returned = {id(x) for x in adapter.flatten(out)[0]}
    named = [(params[i], a) for i, a in enumerate(args) if i < len(params) and i not in static_nums]
    named += [(k, v) for k, v in kwargs.items() if k not in static_names]
    watched = {}
    for name, tree in named:
        refs = [weakref.ref(x) for x in adapter.flatten(tree)[0] if type(x) is array and id(x) not in returned]
        if refs:
            watched[name] = refs
    return watched


def verdict(judged: list[dict[str, bool]]) -> dict[str, bool]:
    """{argument: reused} from the judged calls of one function: reused when one of its
    arrays outlived a call, the first call left out when later ones were judged."""
    out: dict[str, bool] = {}
    for seen in judged[1:] if len(judged) > 1 else judged:
        for name, alive in seen.items():
            out[name] = out.get(name, False) or alive
    return out


def verdicts() -> dict[str, dict[str, bool]]:
    """function key -> {argument: reused}, for every function with a judged call."""
    with _LOCK:
        return {k: verdict(v) for k, v in _JUDGED.items() if v}


def forget() -> None:
    """A forked child starts its own watch (the parent's calls are the parent's)."""
    with _LOCK:
        _LEFT.clear()
        _PENDING.clear()
        _JUDGED.clear()
        LISTENERS.clear()  # the parent's observer
        WATCH[0] = 0
