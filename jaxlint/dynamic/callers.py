"""What a program does with a jitted function's arguments after the call: whether the
caller uses them again (then donating them would break it) or lets them go.

The recorder (:mod:`jaxlint.dynamic.recorder`) hands its :class:`Watch` (the recording's
``watch``, one per process) the first few calls of each recorded function
(:data:`SAMPLES`, any signature). Of each such call it keeps weak references to the jax
arrays of every argument (not the static ones, and not an array the call returned as it
is: jax forwards an unchanged output, which the caller then holds as the result). At the
*next* recorded jitted call, of any function, it looks which are still alive:

* ``state = step(state, batch)`` drops the old state before the next call: not reused;
* ``pruned = apply_mask(params, m)`` then ``get_updates(pruned, ...)``: ``params`` is
  alive at the next call, so the caller keeps it: reused.

An argument is *reused* when one of its arrays outlived a watched call. A graph object
(a module, an optimizer) given to ``flax.nnx.jit`` gets no verdict: the call updates it in
place, so what it holds afterwards is the new state, and the old arrays are out of sight. The first call
of a function is left out of the verdict when later ones were watched too: a training
loop's first state is often still held by the setup code (``params`` beside
``TrainState(params, ...)``), which later steps no longer do. The verdict per function,
``{argument name: reused}``, goes into the recording (``"reused"`` of the function's
entry, in the signatures file and the observations); a function never watched has
none (unknown). The watch stays on for :data:`WINDOW` calls after a function's first
call, so a long-running program's later calls (the recorder's fast path) pay for one
check only (:attr:`Watch.calls`); when it ends, every function's verdict so far is
final (a function called too rarely to be watched 4 times is not waited for until the
program exits).

The module holds no state of its own: everything the watch keeps is its
:class:`Watch`'s. Never imports jax itself: the arrays are flattened through the version
adapter, loaded by the time a jitted function is called.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable

#: calls of each function whose arguments are watched
SAMPLES = 4
#: recorded calls after a function's first during which calls are watched
WINDOW = 256

#: ``listener(key, verdict, final)``, told each new verdict (the observer); ``final``: every
#: watched call of the function is judged
Listener = Callable[[str, dict[str, bool], bool], None]


class Watch:
    """One recording's watch of what the caller keeps (the recorder's ``watch``)."""

    def __init__(self, error: Callable[[str, BaseException], None]) -> None:
        #: ``error(doing, exception)``: the recorder's failure counter
        self.error = error
        #: recorded calls left to watch: the recorder's fast path reads it (one check)
        self.calls = 0
        #: the listeners told each new verdict (the observer's, once it is made)
        self.listeners: list[Listener] = []
        self._lock = threading.Lock()
        #: function key -> calls of it still to watch
        self._left: dict[str, int] = {}
        #: watched calls not judged yet: (function key, {argument: [weak references to its arrays]})
        self._pending: list[tuple[str, dict[str, list[weakref.ref]]]] = []
        #: function key -> per judged call, {argument: whether one of its arrays was still alive}
        self._judged: dict[str, list[dict[str, bool]]] = {}

    def after(self, rec: Any, args: tuple, kwargs: dict, out: Any) -> None:
        """A recorded call of ``rec`` returned ``out``: judge the calls watched before it, and
        watch this one if its function wants more. Never raises."""
        try:
            self._after(rec, args, kwargs, out)
        except Exception as e:  # never break the user's program
            self.error("watching what the caller keeps", e)

    def _after(self, rec: Any, args: tuple, kwargs: dict, out: Any) -> None:
        key = rec._key
        ended = False
        with self._lock:
            pending = self._pending[:]
            self._pending.clear()
            if self.calls > 0:
                self.calls -= 1
                ended = self.calls == 0
            left = self._left.get(key)
            if left is None:  # the function's first call: watch the calls that follow it
                left = SAMPLES
                self.calls = max(self.calls, WINDOW)
            take = left > 0 and self.calls > 0  # a call watched now is judged before the watch ends
            self._left[key] = left - 1 if take else left
            told = []
            for k, refs in pending:
                judged = self._judged.setdefault(k, [])
                judged.append({name: any(r() is not None for r in rs) for name, rs in refs.items()})
                told.append((k, verdict(judged), len(judged) >= SAMPLES))
            if ended:  # no call is watched any more: what was seen of each function is all there is
                told += [(k, verdict(self._judged.get(k) or []), True) for k in self._left]
        if take:
            watched = _watch(rec, args, kwargs, out)
            if watched:
                with self._lock:
                    self._pending.append((key, watched))
        for k, v, final in told:
            for listener in self.listeners:
                listener(k, v, final)

    def verdicts(self) -> dict[str, dict[str, bool]]:
        """function key -> {argument: reused}, for every function with a judged call."""
        with self._lock:
            return {k: verdict(v) for k, v in self._judged.items() if v}

    def forget(self) -> None:
        """A forked child starts its own watch (the parent's calls are the parent's)."""
        with self._lock:
            self._left.clear()
            self._pending.clear()
            self._judged.clear()
            self.listeners.clear()  # the parent's observer
            self.calls = 0


def _watch(rec: Any, args: tuple, kwargs: dict, out: Any) -> dict[str, list[weakref.ref]]:
    """{argument name: weak references to its jax arrays} of one call (static arguments,
    and arrays the call returned as they are, left out)."""
    from jaxlint.dynamic import adapter
    from jaxlint.dynamic.signatures import static_positions

    meta = rec._meta
    params = meta.get("params") or []
    static_nums = static_positions(meta, len(args))
    static_names = set(meta.get("static_names") or ())
    array = adapter.concrete_array_type()
    returned = {id(x) for x in adapter.flatten(out)[0]}
    named = [(params[i], a) for i, a in enumerate(args) if i < len(params) and i not in static_nums]
    named += [(k, v) for k, v in kwargs.items() if k not in static_names]
    if meta.get("kind") == "nnx.jit":  # graph objects: their state after the call is the call's output
        named = [(k, v) for k, v in named if not _graph_node(v)]
    watched = {}
    for name, tree in named:
        refs = [weakref.ref(x) for x in adapter.flatten(tree)[0] if type(x) is array and id(x) not in returned]
        if refs:
            watched[name] = refs
    return watched


def _graph_node(x: Any) -> bool:
    """Whether ``x`` is a flax nnx graph object (a module, an optimizer): ``nnx.jit`` updates
    it in place, so the arrays it holds after the call are the new state, not the ones the
    call was given; whether the caller still holds those cannot be seen from it. Such an
    argument gets no verdict (unknown)."""
    import sys

    nnx = sys.modules.get("flax.nnx")
    try:
        return bool(nnx is not None and nnx.graph.is_graph_node(x))
    except Exception:  # another flax's layout: unknown is the safe answer
        return True


def verdict(judged: list[dict[str, bool]]) -> dict[str, bool]:
    """{argument: reused} from the judged calls of one function: reused when one of its
    arrays outlived a call, the first call left out when later ones were judged."""
    out: dict[str, bool] = {}
    for seen in judged[1:] if len(judged) > 1 else judged:
        for name, alive in seen.items():
            out[name] = out.get(name, False) or alive
    return out
