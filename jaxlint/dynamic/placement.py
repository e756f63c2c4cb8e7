"""The target inside a worker: its devices, its mesh, and the arguments placed on them.

The parent names the target in ``JAXLINT_TARGET`` (:meth:`jaxlint.targets.Target.to_json`).
For a TPU target the worker runs jax on the CPU and takes the slice's devices from
libtpu's topology description (``jax.experimental.topologies``): nothing opens a chip,
so any number of workers compile side by side, on a machine with or without TPUs, and
the arguments placed on those devices make ``lower(lowering_platforms=("tpu",))`` build
the chip's program. A recording made elsewhere (a laptop's CPU, one device or eight
forced host devices) is carried onto the target's mesh by axis name.

Imported by the worker only (it imports jax).
"""
from __future__ import annotations

import contextlib
import functools
import json
import math
import os
from typing import Any, Iterator

import jax
import numpy as np

from jaxlint.dynamic import adapter
from jaxlint.targets import Target

#: what the worker needs to compile for a TPU target without a TPU
TPU_EXTRA = 'pip install "jaxlint[tpu]"'


class PlacementError(Exception):
    """An argument or mesh that does not fit the target (a skip with the reason)."""


@functools.lru_cache(maxsize=1)
def active() -> Target | None:
    text = os.environ.get("JAXLINT_TARGET")
    return Target.from_json(text) if text else None


def target_node() -> dict | None:
    """The active target as a recording keeps it (JSON)."""
    t = active()
    return json.loads(t.to_json()) if t is not None else None


def platforms() -> tuple[str, ...] | None:
    """What to lower for: ``("tpu",)`` for a TPU target, None for the backend's own."""
    t = active()
    return ("tpu",) if t is not None and t.deviceless else None


@functools.lru_cache(maxsize=1)
def devices() -> tuple:
    """The target's devices: a TPU slice's from its topology (no chip opened), else this
    process's own."""
    t = active()
    if t is None or not t.deviceless:
        return tuple(jax.devices())
    top = t.parsed()
    assert top is not None
    from jax.experimental import topologies

    with _signals_kept():
        desc = topologies.get_topology_desc(top.name, "tpu", chips_per_host_bounds=top.host_bounds())
    return tuple(desc.devices)


@contextlib.contextmanager
def _signals_kept() -> Iterator[None]:
    """Keep this process's SIGHUP and SIGTERM as they were across loading libtpu, which
    sets SIGHUP to be ignored (and catches SIGTERM) behind Python's back: under `record
    --target` that is the user's program, whose child processes would inherit it."""
    import signal

    kept = {s: signal.getsignal(s) for s in (getattr(signal, "SIGHUP", None), signal.SIGTERM) if s is not None}
    try:
        yield
    finally:
        for sig, handler in kept.items():
            if handler is not None:
                try:
                    signal.signal(sig, handler)
                except (ValueError, OSError):  # not the main thread: leave it
                    pass


def unavailable() -> str:
    """One line when the target cannot be compiled for here (libtpu missing), else ""."""
    t = active()
    if t is None or not t.deviceless:
        return ""
    import importlib.util

    if importlib.util.find_spec("libtpu") is None:  # jax finds its TPU plugin through it
        return (f"compiling for the TPU target `{t.label()}` needs libtpu, which is not installed in this "
                f"environment: {TPU_EXTRA} (or `pip install \"jax[tpu]\"`), then run again")
    try:
        n = len(devices())
    except Exception as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        if isinstance(e, ImportError) or "not installed" in first:  # a libtpu that does not load
            return (f"libtpu cannot be loaded here ({type(e).__name__}: {first}); {TPU_EXTRA} installs the one "
                    f"that matches this jax")
        return f"libtpu cannot describe the TPU target `{t.label()}` here: {type(e).__name__}: {first}"
    if n != t.device_count():
        return f"libtpu describes {n} devices for `{t.topology}`, not {t.device_count()}"
    return ""


@functools.lru_cache(maxsize=1)
def mesh() -> Any:
    """The target's configured mesh over its devices, or None."""
    t = active()
    if t is None or not t.mesh:
        return None
    return _make_mesh(tuple(a for a, _ in t.mesh), tuple(n for _, n in t.mesh))


def _make_mesh(axes: tuple[str, ...], sizes: tuple[int, ...]) -> Any:
    devs = devices()
    grid = np.array(devs[:math.prod(sizes)], dtype=object).reshape(sizes)
    return jax.sharding.Mesh(grid, axes)


def mesh_for(recorded: dict | None) -> Any:
    """The target's mesh for a recording's mesh node (``{"axes": [...], "sizes": [...]}``):
    its axes renamed by the target's ``axis-map``. With a configured mesh, every renamed
    axis must be one of its axes; without one, the recorded axes are kept with their
    sizes where the target has that many devices, or all of size 1 on a one-chip target.
    None for no node; PlacementError where it cannot be placed."""
    t = active()
    if t is None or not isinstance(recorded, dict) or not recorded.get("axes"):
        return None
    axes = [t.axis_map.get(str(a), str(a)) for a in recorded["axes"]]
    sizes = [int(n) for n in recorded.get("sizes") or [1] * len(axes)]
    configured = mesh()
    if configured is not None:
        missing = [a for a in axes if a not in configured.axis_names]
        if missing:
            raise PlacementError(
                f"cannot place on target `{t.label()}`: the recording's mesh axis `{missing[0]}` is not an axis of "
                f"its mesh ({', '.join(configured.axis_names)}); name it in the target's `axis-map`, e.g. "
                f"axis-map = {{ {missing[0]} = \"{configured.axis_names[0]}\" }}")
        return configured
    n = len(devices())
    if math.prod(sizes) == n:
        return _make_mesh(tuple(axes), tuple(sizes))
    if n == 1:  # the whole program on one chip
        return _make_mesh(tuple(axes), (1,) * len(axes))
    raise PlacementError(
        f"cannot place on target `{t.label()}`: the recording's mesh ({_shape(axes, sizes)}) has "
        f"{math.prod(sizes)} devices and the target {n}; give the target a `mesh` with these axes")


def _shape(axes, sizes) -> str:
    return ", ".join(f"{a}={n}" for a, n in zip(axes, sizes))


def sharding_for(node: dict | None, shape: tuple[int, ...]) -> Any:
    """The sharding of one array on the target, from its recorded placement node (see
    :func:`jaxlint.dynamic.adapter.sharding_node`): its partition spec on the target's
    mesh by axis name; an array without one is replicated (on the configured mesh, or
    on the first device)."""
    from jax.sharding import NamedSharding, PartitionSpec, SingleDeviceSharding

    t = active()
    assert t is not None
    recorded = node.get("mesh") if isinstance(node, dict) else None
    spec_entries = (node or {}).get("spec") if isinstance(node, dict) else None
    target_mesh = mesh_for(recorded) if recorded else mesh()
    named = list(dict.fromkeys(t.axis_map.get(str(a), str(a)) for e in spec_entries or () for a in (e or ())))
    if target_mesh is None and named and len(devices()) == 1:  # the whole program on one chip
        target_mesh = _make_mesh(tuple(named), (1,) * len(named))
    if target_mesh is None:
        if named:
            raise PlacementError(f"the input spec splits an array over mesh axes, but the target `{t.label()}` "
                                 "has no `mesh`: give [tool.jaxlint.targets] one, e.g. mesh = { data = 8 }")
        return SingleDeviceSharding(devices()[0])
    spec = []
    for dim, entry in enumerate(spec_entries or ()):
        names = [t.axis_map.get(str(a), str(a)) for a in (entry or ())]
        size = math.prod(int(target_mesh.shape[a]) for a in names) if names else 1
        if names and dim < len(shape) and shape[dim] % size:
            raise PlacementError(
                f"cannot place on target `{t.label()}`: dimension {dim} of a {list(shape)} array is split over "
                f"{'x'.join(names)} ({size} devices), which does not divide {shape[dim]}")
        spec.append(tuple(names) if len(names) > 1 else (names[0] if names else None))
    return NamedSharding(target_mesh, PartitionSpec(*spec))


def abstract(tree: Any) -> Any:
    """``tree`` with each array replaced by its shape, dtype, weak type and sharding (a
    program's call arguments, kept without their buffers)."""
    def leaf(x):
        if isinstance(x, jax.Array):
            return jax.ShapeDtypeStruct(x.shape, x.dtype, weak_type=bool(getattr(x, "weak_type", False)),
                                        sharding=x.sharding)
        if isinstance(x, np.ndarray):
            return jax.ShapeDtypeStruct(x.shape, x.dtype)
        return x

    return jax.tree_util.tree_map(leaf, tree)


def place(tree: Any) -> Any:
    """Every abstract array of ``tree`` on the target: one that already carries a
    sharding on the target's devices keeps it; any other is replicated there."""
    if active() is None:
        return tree
    own = set(devices())

    def leaf(x):
        if isinstance(x, (np.ndarray, jax.Array)):  # a concrete array argument is traced all the same
            x = jax.ShapeDtypeStruct(x.shape, x.dtype, weak_type=bool(getattr(x, "weak_type", False)))
        if not isinstance(x, jax.ShapeDtypeStruct):
            return x
        sharding = getattr(x, "sharding", None)
        if sharding is not None and set(getattr(sharding, "device_set", ())) <= own:
            return x
        # a sharding on other devices (the program's own mesh): its spec, by axis name
        node = adapter.sharding_node(sharding, True) if sharding is not None else None
        return jax.ShapeDtypeStruct(x.shape, x.dtype, weak_type=bool(getattr(x, "weak_type", False)),
                                    sharding=sharding_for(node if node and "mesh" in node else None,
                                                          tuple(x.shape)))

    return jax.tree_util.tree_map(leaf, tree)


@contextlib.contextmanager
def within(recorded: dict | None) -> Iterator[None]:
    """Run the block under the target's mesh for a recording's context mesh node (the
    mesh the program called the function under), entered as the program entered it."""
    m = mesh_for(recorded) if recorded else mesh()
    if m is None:
        yield
    elif (recorded or {}).get("context") == "set_mesh" and hasattr(jax, "set_mesh"):
        with jax.set_mesh(m):
            yield
    else:
        with m:
            yield
