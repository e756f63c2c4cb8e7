"""What each jit-like transform traces, for tracing a user function with abstract inputs.

``jax.jit`` traces every leaf of its non-static arguments; the worker hands it the
``ShapeDtypeStruct`` inputs directly. ``equinox.filter_jit`` traces only the array
leaves and keeps everything else static; ``flax.nnx.jit`` traces the state of the
graph objects it is given (and every leaf of the other arguments, as ``jax.jit``).
:func:`partitioned` rebuilds those semantics with public APIs around the *original*
Python function, so the jaxpr is the function's own body (one level, as ``jax.jit``
gives it) and its equations keep the user's source lines:

    body(*dynamic) = rebuild the arguments with the dynamic leaves -> call the function
    jax.jit(body).trace(*abstract dynamic leaves)

Only the worker imports this module.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

#: transforms whose traced/static split is not jax.jit's
PARTITIONED_KINDS = frozenset({"filter_jit", "nnx.jit"})


def _is_abstract(x: Any) -> bool:
    return isinstance(x, jax.ShapeDtypeStruct)


def _is_input(x: Any) -> bool:
    """A leaf these transforms trace: an abstract input (the worker's), or a real array
    (a program observed by `jaxlint record` traces with its own arguments)."""
    return isinstance(x, (jax.ShapeDtypeStruct, jax.Array, np.ndarray))


def _arrays(tree: Any) -> list:
    return [x for x in jax.tree_util.tree_leaves(tree) if isinstance(x, jax.Array)]


def _static_split(fn: Callable, args: tuple, kwargs: dict, static_argnums, static_argnames):
    """Move static arguments out of ``(args, kwargs)``: (traced args with ``None`` in
    static places, traced kwargs, a function that puts the statics back)."""
    nums = {int(i) % max(len(args), 1) for i in (static_argnums or ()) if -len(args) <= int(i) < len(args)}
    names = set(static_argnames or ())
    try:  # static_argnames may name a positional parameter
        params = list(inspect.signature(fn).parameters)
        nums |= {params.index(n) for n in names if n in params and params.index(n) < len(args)}
    except (TypeError, ValueError):
        pass
    static_args = {i: args[i] for i in nums}
    static_kwargs = {k: v for k, v in kwargs.items() if k in names}
    dyn_args = tuple(None if i in nums else a for i, a in enumerate(args))
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in names}

    def restore(a: tuple, k: dict) -> tuple[tuple, dict]:
        return tuple(static_args.get(i, x) for i, x in enumerate(a)), {**k, **static_kwargs}

    return dyn_args, dyn_kwargs, restore


def partitioned(kind: str, fn: Callable, args: tuple, kwargs: dict,
                static_argnums=(), static_argnames=()) -> tuple[Callable, list]:
    """(a ``jax.jit`` of a body, its abstract inputs) that trace ``fn(*args, **kwargs)``
    the way ``kind`` would. Raises ``ValueError`` when the transform's library is missing."""
    dyn_args, dyn_kwargs, restore = _static_split(fn, args, kwargs, static_argnums, static_argnames)
    if kind == "nnx.jit":
        return _nnx(fn, dyn_args, dyn_kwargs, restore)
    return _filtered(fn, dyn_args, dyn_kwargs, restore)


def _filtered(fn, args, kwargs, restore):
    """equinox.filter_jit: array leaves traced, every other leaf static."""
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
    where = [i for i, x in enumerate(leaves) if _is_input(x)]

    def body(*dynamic):
        filled = list(leaves)
        for i, x in zip(where, dynamic):
            filled[i] = x
        a, k = restore(*jax.tree_util.tree_unflatten(treedef, filled))
        return _arrays(fn(*a, **k))

    body.__name__ = getattr(fn, "__name__", "body")
    try:  # `model.layers[0].weight` rather than `dynamic[3]` in what the rules say about an input
        paths = _paths((args, kwargs), None)
        body.jaxlint_arg_names = [_arg_name(fn, paths[i][0], dotted=False) for i in where]
        body.jaxlint_leaf_paths = [paths[i][0] for i in where]  # statics kept in place (None)
    except Exception:  # names are a courtesy: the jaxpr's own stand in
        pass
    return jax.jit(body), [leaves[i] for i in where]


def _nnx(fn, args, kwargs, restore):
    """flax.nnx.jit: graph objects are split into a static graph and a traced state and
    merged again inside the trace (so the body may update them, as in a training step);
    the updated state is returned, as nnx.jit does, so no update is dead code. Other
    leaves are traced as jax.jit traces them."""
    try:
        from flax import nnx
    except ImportError as e:  # pragma: no cover - recorded with flax, checked without
        raise ValueError(f"flax is not importable here: {e}") from None
    is_node = nnx.graph.is_graph_node
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_node)
    node_at = [i for i, x in enumerate(leaves) if is_node(x)]
    # one split for all graph objects keeps objects shared between arguments shared
    graphdef, state = nnx.split([leaves[i] for i in node_at])
    state_leaves, state_def = jax.tree_util.tree_flatten(state)
    plain_at = [i for i, x in enumerate(leaves) if i not in set(node_at) and (_is_input(x) or _is_number(x))]
    inputs = [x if _is_input(x) else _weak(x) for x in state_leaves] + \
             [leaves[i] if _is_input(leaves[i]) else _weak(leaves[i]) for i in plain_at]
    n_state = len(state_leaves)

    def body(*dynamic):
        nodes = nnx.merge(graphdef, jax.tree_util.tree_unflatten(state_def, dynamic[:n_state]))
        filled = list(leaves)
        for i, x in zip(node_at, nodes):
            filled[i] = x
        for i, x in zip(plain_at, dynamic[n_state:]):
            filled[i] = x
        a, k = restore(*jax.tree_util.tree_unflatten(treedef, filled))
        out = fn(*a, **k)
        return _arrays(out), _arrays(nnx.split(nodes)[1])

    body.__name__ = getattr(fn, "__name__", "body")
    try:  # `model.fc2.kernel` rather than `dynamic[3]` in what the rules say about an input
        body.jaxlint_arg_names = _nnx_names(fn, args, kwargs, is_node, state) + \
            [_arg_name(fn, p) for i, (p, _) in enumerate(_paths((args, kwargs), is_node)) if i in set(plain_at)]
    except Exception:  # names are a courtesy: the jaxpr's own stand in
        pass
    return jax.jit(body), inputs


def _paths(tree, is_leaf) -> list:
    return jax.tree_util.tree_flatten_with_path(tree, is_leaf=is_leaf)[0]


def _arg_name(fn, path, dotted: bool = True) -> str:
    """A leaf path of ``(args, kwargs)`` as the user's parameter names write it:
    ``(SequenceKey(0), SequenceKey(1), DictKey('w'))`` -> ``params['w']`` (``params.w``
    when ``dotted``, as nnx names its state)."""
    text = jax.tree_util.keystr(tuple(path[2:]))
    head = path[1] if len(path) > 1 else None
    if path and getattr(path[0], "idx", None) == 0 and head is not None and hasattr(head, "idx"):
        try:
            params = list(inspect.signature(fn).parameters)
            name = params[head.idx] if head.idx < len(params) else f"args[{head.idx}]"
        except (TypeError, ValueError):
            name = f"args[{head.idx}]"
    else:
        name = str(getattr(head, "key", head))
    return _dotted(name + text) if dotted else name + text


def _nnx_names(fn, args, kwargs, is_node, state) -> list[str]:
    """One name per state leaf: the graph argument it belongs to and its path in it."""
    owners = [_arg_name(fn, p) for p, x in _paths((args, kwargs), is_node) if is_node(x)]
    out = []
    for path, _ in jax.tree_util.tree_flatten_with_path(state)[0]:
        owner = owners[path[0].key if hasattr(path[0], "key") else path[0].idx]
        out.append(_dotted(owner + jax.tree_util.keystr(tuple(path[1:]))))
    return out


def _dotted(text: str) -> str:
    """``model['fc2']['kernel'].value`` -> ``model.fc2.kernel``."""
    import re

    text = re.sub(r"\['([A-Za-z_][A-Za-z0-9_]*)'\]", r".\1", text)
    return re.sub(r"\.(value|raw_value)$", "", text)


class PartitionedJit:
    """``jax.jit``-like object for a ``kind`` in :data:`PARTITIONED_KINDS`:
    ``.trace(*args, **kwargs)`` takes the abstract arguments as the user's function
    does and returns jax's ``Traced`` of the function's body."""

    def __init__(self, kind: str, fn: Callable, static_argnums=(), static_argnames=()) -> None:
        self.kind = kind
        self.fn = fn
        self.static_argnums = tuple(static_argnums or ())
        self.static_argnames = tuple(static_argnames or ())

    def trace(self, *args, **kwargs):
        jitted, inputs = partitioned(self.kind, self.fn, args, kwargs, self.static_argnums, self.static_argnames)
        traced = jitted.trace(*inputs)
        body = getattr(jitted, "__wrapped__", None)
        names = getattr(body, "jaxlint_arg_names", None)
        paths = getattr(body, "jaxlint_leaf_paths", None)
        if not names or len(names) != len(inputs):
            return traced
        return NamedTraced(traced, names, paths if paths is not None and len(paths) == len(inputs) else None)


class NamedTraced:
    """A ``Traced`` whose inputs have the user's names (``jaxlint_arg_names``) and, for
    ``filter_jit``'s flat leaves, their paths in the call's ``(args, kwargs)``
    (``jaxlint_leaf_paths``)."""

    def __init__(self, traced, names: list[str], paths: list | None = None) -> None:
        self._traced = traced
        self.jaxlint_arg_names = names
        self.jaxlint_leaf_paths = paths

    def __getattr__(self, name: str):
        return getattr(self._traced, name)


#: the mesh axis of the shard_map that stands in for a pmap without ``axis_name``
_PRIVATE_AXIS = "_jaxlint_pmap_axis"


class MappedJit:
    """``jax.pmap`` without the devices: ``jax.jit(jax.vmap(fn, axis_name=...))``, so
    the body's collectives (``psum`` over the axis name) trace, with the mapped axis
    as a batch axis. ``.trace`` takes the arguments with their leading (device) axis."""

    def __init__(self, fn: Callable, static_argnums=(), axis_name=None, in_axes=0, donate_argnums=()) -> None:
        self.fn = fn
        self.static_argnums = tuple(static_argnums or ())
        self.axis_name = axis_name
        self.in_axes = in_axes
        self.donate_argnums = tuple(int(i) for i in donate_argnums or ())

    def trace(self, *args, **kwargs):
        dyn_args, dyn_kwargs, restore = _static_split(self.fn, args, kwargs, self.static_argnums, ())
        where = [i for i, a in enumerate(dyn_args) if i not in set(self.static_argnums)]
        axes = self.in_axes
        if isinstance(axes, (list, tuple)):
            axes = tuple(axes[i] for i in where)

        def body(*mapped, **kw):
            full = list(dyn_args)
            for i, x in zip(where, mapped):
                full[i] = x
            a, k = restore(tuple(full), kw)
            return self.fn(*a, **k)

        body.__name__ = getattr(self.fn, "__name__", "body")
        mapped = jax.vmap(body, in_axes=axes, axis_name=self.axis_name)
        # the pmap's donations, by their place among the mapped arguments
        donate = tuple(k for k, i in enumerate(where) if i in self.donate_argnums)
        inputs = [dyn_args[i] for i in where]
        try:
            traced = jax.jit(mapped, donate_argnums=donate).trace(*inputs, **dyn_kwargs)
        except Exception as e:
            # vmap refuses what pmap runs (a ppermute that not every device sends from):
            # trace it as jax 0.10 compiles a pmap, the jit of a shard_map over the devices
            traced = self._as_shard_map(body, axes, donate, inputs, dyn_kwargs, e)
        out = MappedTraced(traced, self, args, kwargs)
        # the inputs named as the user's function names them (`params['w']`), not the
        # vmapped body's `mapped[0]['w']`
        names = [_arg_name(self.fn, p, dotted=False) for p, _ in _paths((dyn_args, dyn_kwargs), None)]
        from jaxlint.dynamic import adapter

        if len(names) == len(adapter.args_info_leaves(traced)):
            out.jaxlint_arg_names = names
        return out

    def _as_shard_map(self, body: Callable, axes, donate: tuple, inputs: list, kwargs: dict, error: Exception):
        """The jit of a shard_map of ``body`` over a 1-D mesh of as many devices as the
        mapped axis is long (each device its slice, the axis squeezed as pmap does).
        Raises :class:`NotTraceable` when that cannot be built here (too few devices,
        keyword arguments, a mapped axis other than 0), ``error`` being vmap's refusal."""
        from jax.sharding import Mesh, PartitionSpec

        per_arg = axes if isinstance(axes, tuple) else (axes,) * len(inputs)
        sizes = {int(leaf.shape[0]) for x, a in zip(inputs, per_arg) if a == 0
                 for leaf in jax.tree_util.tree_leaves(x) if len(getattr(leaf, "shape", ())) > 0}
        why = None
        if kwargs or any(a not in (0, None) for a in per_arg) or len(sizes) != 1:
            why = "jaxlint rebuilds a pmap as a shard_map only for leading mapped axes and no keyword arguments"
        elif next(iter(sizes)) > jax.device_count():
            why = (f"traced as pmap runs it, it needs a device per mapped element: {next(iter(sizes))}, and there are "
                   f"{jax.device_count()} here (set `devices` in [tool.jaxlint.dynamic])")
        if why is not None:
            raise NotTraceable(f"vmap cannot trace this pmap ({str(error).splitlines()[0][:120]}); {why}") from None
        n = next(iter(sizes))
        # a pmap without an axis name: the mesh axis takes a private name of jaxlint's own
        # (the body names no axis, so no collective can see it)
        axis = self.axis_name if self.axis_name is not None else _PRIVATE_AXIS
        try:
            mesh = Mesh(np.array(jax.devices()[:n]), (axis,))
        except Exception as e:  # jaxlint's own emulation fails here, not the user's function
            raise NotTraceable(f"vmap cannot trace this pmap ({str(error).splitlines()[0][:120]}); jaxlint could "
                               f"not build its shard_map stand-in ({str(e).splitlines()[0][:120]})") from None
        specs = tuple(PartitionSpec(axis) if a == 0 else PartitionSpec() for a in per_arg)

        def per_device(*blocks):
            # each device's block of a mapped argument (an array or a pytree of them), squeezed
            out = body(*[jax.tree.map(lambda leaf: leaf[0], b) if a == 0 else b for b, a in zip(blocks, per_arg)])
            return jax.tree.map(lambda o: jnp.expand_dims(o, 0), out)

        per_device.__name__ = getattr(body, "__name__", "body")
        smap = getattr(jax, "shard_map", None)
        if smap is None:
            raise NotTraceable(f"vmap cannot trace this pmap ({str(error).splitlines()[0][:120]}); tracing it as "
                               "pmap runs it needs jax.shard_map (jax 0.6 or later)") from None
        sharded = smap(per_device, mesh=mesh, in_specs=specs, out_specs=PartitionSpec(axis))
        return jax.jit(sharded, donate_argnums=donate).trace(*inputs)


class NotTraceable(Exception):
    """A function jaxlint cannot trace with its transform's semantics here: the worker
    skips it with this reason, never reports a trace error for it."""


class MappedTraced:
    """The trace of a ``MappedJit`` (``jax.jit(jax.vmap)``: its jaxpr, arguments and
    outputs), lowered as ``jax.pmap`` lowers it when there are devices enough for the
    mapped axis: one program per device, with the real collectives, as jax compiles it
    (``replica_count`` on jax 0.4, ``num_partitions`` later); else as the jit of the vmap."""

    def __init__(self, traced, mapped: MappedJit, args: tuple, kwargs: dict) -> None:
        self._traced = traced
        self._mapped = mapped
        self._args = args
        self._kwargs = kwargs

    def __getattr__(self, name: str):
        return getattr(self._traced, name)

    def lower(self, *a, **kw):
        m = self._mapped
        sizes = {int(x.shape[0]) for i, x in enumerate(self._args)
                 if i not in m.static_argnums and hasattr(x, "shape") and len(getattr(x, "shape", ())) > 0
                 and (m.in_axes == 0 or (isinstance(m.in_axes, (list, tuple)) and i < len(m.in_axes)
                                         and m.in_axes[i] == 0))}
        if len(sizes) == 1 and 1 < next(iter(sizes)) <= jax.local_device_count():
            try:
                pm = jax.pmap(m.fn, axis_name=m.axis_name, in_axes=m.in_axes,
                              static_broadcasted_argnums=m.static_argnums, donate_argnums=m.donate_argnums)
                return pm.lower(*self._args, **self._kwargs)
            except Exception:  # a mapping pmap refuses here: the jit of the vmap stands in
                pass
        return self._traced.lower(*a, **kw)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, complex)) and not isinstance(x, bool)


def _weak(x) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct((), jnp.asarray(x).dtype, weak_type=True)
