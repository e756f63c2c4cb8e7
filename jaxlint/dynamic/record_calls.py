"""A recorded jitted function's calls (:class:`Recorded`): each call is noted under its
abstract signature (:func:`~jaxlint.dynamic.record_signature.note_call`) and, the first
time, analysed by the process's observer (:func:`the_observer`); a signature seen before
takes the fast path, a key of the call's leaves (:func:`_fast_key`) or, while a function
has one signature, jax's own cache count, and only counts the call."""
from __future__ import annotations

import functools
import itertools
import json
import operator
import os
import sys
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable

from jaxlint.dynamic.record_output import FLUSH_EVERY, maybe_flush
from jaxlint.dynamic.record_signature import note_call
from jaxlint.dynamic.record_state import RECORDER, record_root, recorder_error

if TYPE_CHECKING:
    from jaxlint.dynamic.signatures import Signature

#: a call whose output is not at hand (:meth:`Recorded._late`)
_NO_OUTPUT = object()


class Recorded:
    """Calls the real jitted function after noting the call's abstract signature."""

    def __init__(self, jitted, fun, key: str, meta: dict, made: float = 0.0) -> None:
        self._jitted = jitted
        #: the seconds the transform took to make ``jitted`` (what the program pays for it)
        self._made = made
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
        #: whether a call of this object took the full path without its signature being
        #: keyed (:meth:`_remember`): jax's cache then holds a signature the fast path does
        #: not know, and the one-signature path is not taken
        self._unkeyed = False
        #: jax's count of the signatures it keeps for this function (its ``_cache_size``),
        #: where that count is this object's alone
        self._size = _cache_counter(jitted, fun, meta, self)
        # a Python number is part of the signature by value where jit makes it static
        self._by_value = bool(meta.get("static_nums") or meta.get("static_names") or meta.get("static_given")) \
            or meta.get("kind") == "filter_jit"
        #: whether calls are keyed with flax NNX graph objects as leaves (:func:`_graph_key`):
        #: from the start for ``nnx.jit``, for another transform once a call passed one
        self._graph = meta.get("kind") == "nnx.jit"

    def __call__(self, *args, **kwargs):
        step_called = RECORDER.step_called
        if step_called is not None:  # the eager operations between calls (:mod:`jaxlint.dynamic.record_dispatch`)
            step_called(self._key)
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
                    maybe_flush()
            else:
                self._late(args, kwargs, compiled, out)
            return out
        seen = fast = None
        try:
            fast = (_graph_key if self._graph else _fast_key)(args, kwargs, self._by_value)
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
                maybe_flush()
            return out
        try:
            noted = note_call(self._key, self._meta, args, kwargs)
            obs = the_observer() if noted is not None else None
        except Exception as e:
            recorder_error("noting a call", e)
            noted = obs = None
        if obs is None:
            if noted is not None:
                self._remember(fast, args, kwargs, noted, None)
            else:
                self._unkeyed = True
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
            self._remember(fast, args, kwargs, noted, obs)
            maybe_flush()

    def _late(self, args: tuple, kwargs: dict, compiled: int, out: Any = _NO_OUTPUT) -> None:
        """A call of the one-signature path that jax did not answer from its cache (a new
        signature, or its cache was cleared): noted after it ran, and analysed then when
        its signature is new (:meth:`~jaxlint.dynamic.observer.Observer.called`); later
        calls are keyed."""
        self._single = None
        try:
            noted = note_call(self._key, self._meta, args, kwargs)
            obs = the_observer()
            if obs is not None and not noted[2]:
                from jaxlint.dynamic import adapter

                obs.called(self, args, kwargs, noted[0], noted[1], adapter.compiles_since(compiled),
                           None if out is _NO_OUTPUT else out, out is not _NO_OUTPUT)
            if out is not _NO_OUTPUT and not noted[2]:
                RECORDER.watch.after(self, args, kwargs, out)
            self._remember(_fast_key(args, kwargs, self._by_value), args, kwargs, noted, obs)
        except Exception as e:
            self._unkeyed = True
            recorder_error("noting a call", e)
        maybe_flush()

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

    def _remember(self, fast: tuple | None, args: tuple, kwargs: dict, noted: tuple, obs: Any) -> None:
        """Take the fast path for later calls with the key ``fast`` (see :func:`_fast_key`;
        None: the call has none) of ``args`` and ``kwargs``: only for signatures the key
        pins entirely (see :func:`_pinned`). A call that stays unkeyed (not one inside
        another trace) ends the one-signature path for good (:attr:`_unkeyed`)."""
        canon, sig, inlined = noted
        if inlined:
            return
        graph = fast is not None and fast[0][0] is _GRAPH
        if fast is None or not _pinned(canon, sig, args, kwargs, self._meta, graph):
            if fast is not None and not graph and _holds_graph_node(args, kwargs):
                self._graph = True  # later calls are keyed with the graph objects as leaves
            self._unkeyed = True
            return
        try:
            state = cur = None
            if obs is not None:
                state, cur = obs.seen(self, canon)
                if cur is None:
                    self._unkeyed = True
                    return
            with RECORDER.lock:
                entry = RECORDER.records[self._key]["sigs"][canon]
        except Exception as e:
            self._unkeyed = True
            recorder_error("noting a call", e)
            return
        seen = _Seen(entry, obs, state, cur)
        key, _, arrays = fast
        leaves = _leaves(fast, args, kwargs) if arrays else ()
        placed = arrays and any(x._committed for x in leaves)
        with RECORDER.lock:
            if len(self._fast) >= _FAST_MAX:
                self._unkeyed = True
                return
            # the first one stays (threads may have called the signature at once: each
            # counts in the one its call found)
            if not placed:
                seen = self._fast.setdefault(key, seen)
                # jax's cache tells apart what its tree structure and its static arguments'
                # equality do: not an NNX graph's shared variables, nor the type of a
                # static object described by its type
                if len(self._fast) == 1 and self._size is not None and not self._unkeyed and not graph \
                        and '"repr"' not in canon:
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


def _pinned(canon: str, sig: Signature, args: tuple, kwargs: dict, meta: dict, graph: bool = False) -> bool:
    """Whether a signature is the same for every call with its fast key (one
    :func:`_fast_key` or :func:`_graph_key` gave): arrays, Python and numpy values and typed
    keys, which the key holds; the instance of a jitted bound method (``bound``: the jitted
    object's own); pytree nodes the recording describes as opaque (a flax
    ``struct.dataclass``, a ``TrainState``), whose static part is the text of their tree
    structure, which the key holds too, as jax's own cache does; functions and objects of
    a class without a ``__repr__`` of its own, whose text is their qualname or their type
    (:func:`_kind_of`), as leaves or as a whole static argument (a ``self`` passed static);
    flax NNX objects where :func:`_graph_key` keyed them (their structure, as ``nnx.split``
    finds it). Not: another static argument described by its text (``repr``, a dataclass
    config), which the key does not hold, nor NNX objects under :func:`_fast_key`."""
    if '"opaque"' not in canon and '"repr"' not in canon:
        return True
    called = json.dumps([sig["args"], sig["kwargs"]], sort_keys=True)
    if '"repr"' in called and not _static_texts_keyed(sig, args, kwargs, meta):
        return False
    if '"opaque"' not in called or graph:
        return True
    return not _holds_graph_node(args, kwargs)


def _static_texts_keyed(sig: Signature, args: tuple, kwargs: dict, meta: dict) -> bool:
    """Whether every static argument written as its text is one whose text the fast key
    holds: a function (its qualname) or an object of a class without a ``__repr__`` of
    its own (its type); other leaves written so are keyed by :func:`_kind_of` too."""
    from jaxlint.dynamic.signatures import static_positions

    texts = [args[i] for i in static_positions(meta, len(args)) if i < len(args) and "repr" in sig["args"][i]]
    texts += [kwargs[k] for k in meta.get("static_names", ()) if k in kwargs and "repr" in sig["kwargs"][k]]
    return all(_KINDS.get(type(v)) in (_PLAIN, _FUNCTION) for v in texts)


def _holds_graph_node(args: tuple, kwargs: dict) -> bool:
    from jaxlint.dynamic import abstract

    return abstract.holds_graph_node((args, kwargs))


def _watched(rec: Recorded, args: tuple, kwargs: dict, seen: "_Seen") -> Any:
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
        maybe_flush()
    return out


class _Seen:
    """A signature a jitted function object was called with before: the fast path counts
    its calls in ``count`` (atomic under the GIL); ``record_output.fold_counts`` adds them to the
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
        part = _leaf_part(x, by_value)
        if part is None:
            return None
        parts.append(part)
    return tuple(parts), leaves, False


def _leaf_part(x: Any, by_value: bool) -> Any:
    """What :func:`_fast_key` keys of a leaf that is not a plain jax array's only: None
    for a leaf it cannot key."""
    t = type(x)
    if t is _ARRAY_TYPE:  # where it lives is part of what jit keys on (a reshard compiles again)
        return (x.aval, x._sharding, True) if x._committed else (x.aval, False)
    if t in _SCALARS:
        return (t, x) if by_value or t is str else t
    if t.__name__ == "ndarray" and t.__module__ == "numpy":
        return (t, x.shape, x.dtype)
    kind = _KINDS.get(t) or _kind_of(t, x)
    if kind is _NUMBER:  # a subclass of a Python number (an IntEnum), a numpy float64
        return (t, x) if by_value else t
    if kind is _NUMPY:  # a numpy scalar: its dtype
        return (t, x.dtype)
    if kind is _KEY and type(_KEY_DATA(x)) is _ARRAY_TYPE:  # a concrete typed PRNG key
        return (t, x.shape, x.dtype)
    if kind is _FUNCTION or kind is _PLAIN:  # written as its text: `<function qualname>`, `<module.T object>`
        if getattr(x, "shape", None) is not None and getattr(x, "dtype", None) is not None:
            return None  # written as an array
        return (t, x.__qualname__) if kind is _FUNCTION else t
    return None


#: the first element of a key :func:`_graph_key` makes (no other key has it)
_GRAPH = object()


def _graph_key(args: tuple, kwargs: dict, by_value: bool) -> tuple | None:
    """:func:`_fast_key` for calls that pass flax NNX graph objects (an ``nnx.Module``, its
    view, an ``nnx.Optimizer``, ``nnx.Rngs``): the arguments flattened with those objects
    as leaves, each keyed by its structure and its leaves as ``nnx.graph.flatten`` finds
    them (:func:`jaxlint.dynamic.abstract.graph_key`: shared variables and views' static
    attributes included, what the recording reads through ``nnx.split``), every other
    leaf as :func:`_fast_key` keys it. None where a leaf cannot be keyed."""
    if _ARRAY_TYPE is None:
        _first_key(args, kwargs, by_value)
    from jaxlint.dynamic import abstract

    env, mesh_now = _RESOURCES.env, _ABSTRACT_MESH()
    mesh = None if env is _MESH0[0] and mesh_now is _MESH0[1] else (env, mesh_now)
    leaves, treedef = abstract.flatten_graphs((args, kwargs))
    parts = [_GRAPH, treedef, mesh, _x64()]
    for x in leaves:
        part = _leaf_part(x, by_value)
        if part is None:
            if _KINDS.get(type(x)) is not _NODE:
                return None
            found = abstract.graph_key(x)
            if found is None:
                return None
            part, inner = found
            for leaf in inner:
                leaf_part = _leaf_part(leaf, by_value)
                if leaf_part is None:
                    return None
                part.append(leaf_part)
            part = tuple(part)
        parts.append(part)
    return tuple(parts), None, False


#: what the recorder writes of a leaf of these types is the same for every leaf of the
#: type (of the type and value, for a number where ``by_value``; of the type and
#: qualname, for a function): see :func:`_kind_of`
_NUMBER, _NUMPY, _KEY, _FUNCTION, _PLAIN, _NODE, _OTHER = "number", "numpy", "key", "function", "plain", "node", "other"
_KINDS: dict[type, str] = {}
_KEY_DATA: Any = None


def _kind_of(t: type, x: Any) -> str:
    """How :func:`_fast_key` keys a leaf ``x`` of type ``t`` that is none of the common
    ones, as the signature describes it (``record_signature._tree``): a Python number's
    subclass (an ``IntEnum`` such as dm_env's ``StepType``, numpy's ``float64``) by its
    type, or by its value where numbers are static (only for types that compare and hash
    as the number they are, or numpy's); another numpy scalar by its type and dtype; a
    typed PRNG key by its shape and dtype (which holds its implementation); a Python
    function (an equinox module's activation) by its qualname, which is all its text
    holds (``<function qualname>``), and an object of a class without a ``__repr__`` of
    its own (``jax.nn.relu``'s ``custom_jvp``, a ``self`` passed static) by its type,
    likewise; a flax NNX graph object as one for :func:`_graph_key`; anything else not at
    all (the full path)."""
    global _KEY_DATA
    kind = _OTHER
    numpy = t.__module__ == "numpy"
    if issubclass(t, (int, float, complex)) and not issubclass(t, bool):
        if numpy or any(t.__eq__ is b.__eq__ and t.__hash__ is b.__hash__ for b in (int, float, complex)):
            kind = _NUMBER
    elif numpy and any(c.__name__ == "generic" and c.__module__ == "numpy" for c in t.__mro__):
        kind = _NUMPY
    elif t is _FUNCTION_TYPE:
        kind = _FUNCTION
    else:
        from jaxlint.dynamic import abstract, adapter

        key_type, _KEY_DATA = adapter.key_array_type()
        if t is key_type:
            kind = _KEY
        elif abstract.is_graph_node(x):
            kind = _NODE
        elif t.__repr__ is object.__repr__:
            kind = _PLAIN
    _KINDS[t] = kind
    return kind


_FUNCTION_TYPE = type(_kind_of)


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


def the_observer():
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

                RECORDER.observer = Observer(record_root(), levels, os.environ.get("JAXLINT_KEEP_IR") == "1",
                                             RECORDER.analysers, RECORDER)
                RECORDER.watch.listeners.append(RECORDER.observer.callers)
                from jaxlint.dynamic import adapter

                RECORDER.compiles = adapter.COMPILE_COUNT  # the fast path sees a call that compiled
            except Exception as e:  # e.g. jaxlint's dependencies missing in this interpreter
                RECORDER.observer_off = True
                sys.stderr.write(f"jaxlint record: not analysing in this process: {type(e).__name__}: {e}\n")
    return RECORDER.observer
