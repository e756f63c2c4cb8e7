"""Targets: what the dynamic phase traces and compiles a program for.

A target is a backend and, for a TPU, a topology (``"v5e:2x4"``: the chip generation and
the slice's chips per dimension) with the mesh the program uses there (axis names and
sizes). jaxlint compiles for a TPU target *deviceless*: the workers run jax on the CPU
and ask libtpu for the topology's devices, place the arguments on them and lower for
``tpu``; XLA then builds the program the chips would run, on any machine, and its memory
and cost figures are the chip's own (docs/targets.md). On a TPU host the same holds, so
jaxlint's processes never contend for the chips a program may be using.

This module never imports jax: the config validates targets with it and the parent
process detects a local TPU with it.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


#: backends a target may name (``gpu`` is CUDA or ROCm, whichever jax finds)
TARGET_BACKENDS = ("cpu", "gpu", "cuda", "rocm", "tpu")
#: keys of one ``[tool.jaxlint.targets.NAME]`` table
TARGET_KEYS = ("backend", "topology", "mesh", "axis-map", "devices", "hbm-gib", "budgets")
_TOPOLOGY = re.compile(r"^\s*([A-Za-z0-9]+)\s*:\s*(\d+(?:\s*x\s*\d+)*)\s*$")
#: an axis name as jax meshes take them (a Python identifier)
_AXIS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: the most chips a topology may have here (a v5p's largest slice has 8,960)
MAX_CHIPS = 16384


# ---------------------------------------------------------------------------- chips
# The TPU generations jaxlint knows: the name a topology gives, the ``device_kind`` jax
# reports, and the high-bandwidth memory of one chip (one jax device on these
# generations), as published. A target's ``hbm-gib`` or a rule option overrides it.
GIB = 1 << 30


@dataclass(frozen=True)
class Chip:
    #: the generation as a topology names it: ``"v5e"`` in ``"v5e:2x4"``
    name: str
    #: what ``jax.Device.device_kind`` reports for it
    device_kind: str
    #: high-bandwidth memory of one chip (one jax device), bytes
    hbm_bytes: int
    #: dimensions of its topologies: 2 (``v5e:2x4``) or 3 (``v4:2x2x1``)
    dims: int


CHIPS: tuple[Chip, ...] = (
    Chip("v4", "TPU v4", 32 * GIB, 3),
    Chip("v5e", "TPU v5 lite", 16 * GIB, 2),
    Chip("v5p", "TPU v5", 95 * GIB, 3),
    Chip("v6e", "TPU v6 lite", 32 * GIB, 2),
)
_BY_NAME = {c.name: c for c in CHIPS}
_BY_NAME.update({"v5litepod": _BY_NAME["v5e"], "v6litepod": _BY_NAME["v6e"]})
_BY_KIND = {c.device_kind.lower(): c for c in CHIPS}


def chip_by_name(name: str) -> Chip | None:
    """The chip of a generation name (``v5e``; ``v5litepod`` as Cloud TPU's accelerator
    types spell it), or None."""
    return _BY_NAME.get(name.strip().lower())


def chip_by_kind(device_kind: str) -> Chip | None:
    """The chip a ``device_kind`` names (``"TPU v5 lite"``), or None (a CPU, a GPU, a chip
    not in the table)."""
    return _BY_KIND.get(device_kind.strip().lower())


#: what a process that compiles for a TPU without holding a chip sets before libtpu
#: loads: several processes (jaxlint's workers, beside a program on this host's chips)
#: may load it at once, which libtpu's lock file would refuse; its warnings (the SPMD
#: partitioner's, JAX314) go to stderr, where the compile tier reads XLA's log
LIBTPU_ENV: dict[str, str] = {"ALLOW_MULTIPLE_LIBTPU_LOAD": "1", "TPU_STDERR_LOG_LEVEL": "1"}


class TargetError(ValueError):
    """A target that cannot be used: its message names the key and the remedy."""


@dataclass(frozen=True)
class Topology:
    chip: Chip
    #: chips per dimension (2 for v5e/v6e, 3 for v4/v5p)
    shape: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"{self.chip.name}:{'x'.join(str(d) for d in self.shape)}"

    @property
    def chips(self) -> int:
        return math.prod(self.shape)

    def host_bounds(self) -> tuple[int, int, int]:
        """``chips_per_host_bounds`` for libtpu: the chips of one host, as a 3-d box. A
        host of these generations has up to 2x2 chips (v5e and v6e also 2x4 on one host;
        2x2 hosts give the same per-chip programs); a slice smaller than that is one host."""
        dims = list(self.shape) + [1] * (3 - len(self.shape))
        return (min(dims[0], 2), min(dims[1], 2), 1)


def parse_topology(text: str) -> Topology:
    """``"v5e:2x4"`` -> :class:`Topology`; TargetError naming what is wrong otherwise."""
    m = _TOPOLOGY.match(text) if isinstance(text, str) else None
    known = ", ".join(f'"{c.name}:{"x".join(["2"] * c.dims)}"' for c in CHIPS)
    if m is None:
        raise TargetError(f"`topology` must be a chip generation and its chips per dimension, such as "
                          f"{known}; got {text!r}")
    chip = chip_by_name(m.group(1))
    if chip is None:
        raise TargetError(f"`topology` {text!r}: unknown chip generation `{m.group(1)}` "
                          f"(known: {', '.join(c.name for c in CHIPS)})")
    shape = tuple(int(d) for d in m.group(2).replace(" ", "").split("x"))
    if len(shape) != chip.dims:
        example = "x".join(["2"] * chip.dims)
        raise TargetError(f"`topology` {text!r}: a {chip.name} slice has {chip.dims} dimensions "
                          f"(\"{chip.name}:{example}\")")
    if any(d < 1 for d in shape) or math.prod(shape) > MAX_CHIPS:
        raise TargetError(f"`topology` {text!r}: each dimension must be at least 1 and the slice at most "
                          f"{MAX_CHIPS} chips")
    return Topology(chip, shape)


@dataclass(frozen=True)
class Target:
    """A resolved target (``[tool.jaxlint.targets.NAME]``, or a topology given by itself)."""

    name: str
    backend: str = "tpu"
    #: the TPU slice (None: the backend's own local devices)
    topology: str | None = None
    #: the program's mesh on the target: ((axis, size), ...) in order; () = none
    mesh: tuple[tuple[str, int], ...] = ()
    #: a recording's mesh axis -> this target's axis, where the names differ
    axis_map: Mapping[str, str] = field(default_factory=dict)
    #: devices of a CPU target (forced host devices); 0 = as configured elsewhere
    devices: int = 0
    #: the chip's memory in GiB, overriding the chip table (None: the table's)
    hbm_gib: float | None = None
    #: this target's budgets file, relative to the project root (None: the default's
    #: name with the target's: ``jaxlint-budgets.v5e-8.json``)
    budgets: str | None = None

    @property
    def deviceless(self) -> bool:
        """Compiled without the chips: a TPU target always is (workers never hold a chip)."""
        return self.backend == "tpu"

    def parsed(self) -> Topology | None:
        return parse_topology(self.topology) if self.topology else None

    def device_count(self) -> int:
        top = self.parsed()
        return top.chips if top is not None else max(self.devices, math.prod(n for _, n in self.mesh) if self.mesh else 1)

    def hbm_bytes(self) -> int | None:
        if self.hbm_gib is not None:
            return int(self.hbm_gib * (1 << 30))
        top = self.parsed()
        return top.chip.hbm_bytes if top is not None else None

    def label(self) -> str:
        """How reports name it: ``v5e-8 (v5e:2x4, mesh data=8)``."""
        what = self.topology or self.backend
        mesh = ", mesh " + " ".join(f"{a}={n}" for a, n in self.mesh) if self.mesh else ""
        return what + mesh if self.name in (self.topology, self.backend) else f"{self.name} ({what}{mesh})"

    def to_json(self) -> str:
        """What the workers are told (``JAXLINT_TARGET``) and the caches key on."""
        return json.dumps({"name": self.name, "backend": self.backend, "topology": self.topology,
                           "mesh": [list(m) for m in self.mesh], "axis_map": dict(sorted(self.axis_map.items())),
                           "devices": self.devices, "hbm_gib": self.hbm_gib, "budgets": self.budgets},
                          sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Target":
        d = json.loads(text)
        return cls(name=d["name"], backend=d["backend"], topology=d.get("topology"),
                   mesh=tuple((str(a), int(n)) for a, n in d.get("mesh") or ()),
                   axis_map=dict(d.get("axis_map") or {}), devices=int(d.get("devices") or 0),
                   hbm_gib=d.get("hbm_gib"), budgets=d.get("budgets"))


def target_from_table(name: str, table: Any) -> Target:
    """One ``[tool.jaxlint.targets.NAME]`` table, validated (TargetError names the key)."""
    if not isinstance(table, dict):
        raise TargetError(f"`targets.{name}` must be a table such as {{ topology = \"v5e:2x4\", mesh = {{ data = 8 }} }}")
    for k in table:
        if k not in TARGET_KEYS:
            raise TargetError(f"`targets.{name}`: unknown key `{k}` (known: {', '.join(TARGET_KEYS)})")
    topology = table.get("topology")
    backend = table.get("backend", "tpu" if topology is not None else None)
    if backend is None:
        raise TargetError(f"`targets.{name}` needs a `topology` (a TPU slice such as \"v5e:2x4\") or a `backend`")
    if backend not in TARGET_BACKENDS:
        raise TargetError(f"`targets.{name}.backend` must be one of {', '.join(TARGET_BACKENDS)}; got {backend!r}")
    if topology is not None:
        if backend != "tpu":
            raise TargetError(f"`targets.{name}`: a `topology` is a TPU slice; `backend` is {backend!r}")
        if not isinstance(topology, str):
            raise TargetError(f"`targets.{name}.topology` must be a string such as \"v5e:2x4\"")
        try:
            parse_topology(topology)
        except TargetError as e:
            raise TargetError(f"`targets.{name}`: {e}") from None
    mesh = _mesh(name, table.get("mesh", {}))
    axis_map = table.get("axis-map", {})
    if not isinstance(axis_map, dict) or not all(isinstance(k, str) and isinstance(v, str) and _AXIS.match(v)
                                                 for k, v in axis_map.items()):
        raise TargetError(f"`targets.{name}.axis-map` must map a recording's axis names to this target's, "
                          f"such as {{ batch = \"data\" }}")
    unknown = [v for v in axis_map.values() if mesh and v not in dict(mesh)]
    if unknown:
        raise TargetError(f"`targets.{name}.axis-map` maps to `{unknown[0]}`, which is not an axis of its `mesh` "
                          f"({', '.join(a for a, _ in mesh)})")
    devices = table.get("devices", 0)
    if isinstance(devices, bool) or not isinstance(devices, int) or not 0 <= devices <= 4096:
        raise TargetError(f"`targets.{name}.devices` must be an integer from 0 to 4096")
    if devices and backend != "cpu":
        raise TargetError(f"`targets.{name}.devices` is for a CPU target (forced host devices); "
                          f"a TPU target's devices are its `topology`'s chips")
    hbm = table.get("hbm-gib")
    if hbm is not None and (isinstance(hbm, bool) or not isinstance(hbm, (int, float))
                            or not math.isfinite(hbm) or hbm <= 0):
        raise TargetError(f"`targets.{name}.hbm-gib` must be a positive number of GiB")
    budgets = table.get("budgets")
    if budgets is not None and (not isinstance(budgets, str) or not budgets.strip()):
        raise TargetError(f"`targets.{name}.budgets` must be a file name, such as \"budgets/{name}.json\"")
    t = Target(name=name, backend=backend, topology=topology, mesh=mesh, axis_map=dict(axis_map),
               devices=devices, hbm_gib=float(hbm) if hbm is not None else None, budgets=budgets)
    if mesh:
        want, have = math.prod(n for _, n in mesh), t.device_count()
        if want != have:
            raise TargetError(f"`targets.{name}.mesh` has {want} devices ({' x '.join(str(n) for _, n in mesh)}) "
                              f"but the target has {have}: the mesh must use every device of the slice")
    return t


def _mesh(name: str, mesh: Any) -> tuple[tuple[str, int], ...]:
    if not isinstance(mesh, dict):
        raise TargetError(f"`targets.{name}.mesh` must be a table of axis = size, such as {{ data = 4, model = 2 }}")
    out = []
    for axis, size in mesh.items():
        if not _AXIS.match(str(axis)):
            raise TargetError(f"`targets.{name}.mesh`: axis name `{axis}` is not an identifier")
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_CHIPS:
            raise TargetError(f"`targets.{name}.mesh.{axis}` must be a whole number of devices (1 or more)")
        out.append((str(axis), size))
    return tuple(out)


def implicit(text: str) -> Target:
    """A target named by its topology alone (``--target v5e:1x1``): no mesh."""
    top = parse_topology(text)
    return Target(name=top.name, backend="tpu", topology=top.name)


# ---------------------------------------------------------------------------- the local TPU
#: PCI device ids of Google's TPU chips (vendor 0x1ae0), as libtpu finds them
_PCI_CHIPS = {"0x005e": "v4", "0x0062": "v5p", "0x0063": "v5e", "0x006f": "v6e"}


def local_tpu(env: Mapping[str, str] | None = None, root: str = "/") -> Target | None:
    """The TPU slice this machine has, found without opening it (a process holding a
    chip locks it from every other): the chips visible to this process (``/dev/accel*``,
    or ``/dev/vfio/<n>`` groups), their generation from the PCI ids or
    ``TPU_ACCELERATOR_TYPE``. None where there is no TPU."""
    env = os.environ if env is None else env
    base = Path(root)
    chips = tpu_chips(root)
    if not chips:
        return None
    generation = None
    for dev in sorted(base.glob("sys/bus/pci/devices/*")):
        try:
            if (dev / "vendor").read_text().strip() == "0x1ae0":
                generation = _PCI_CHIPS.get((dev / "device").read_text().strip())
        except OSError:
            continue
        if generation:
            break
    if generation is None:  # Cloud TPU's accelerator type: v5litepod-4, v4-8, v6e-8
        named = chip_by_name(env.get("TPU_ACCELERATOR_TYPE", "").split("-")[0])
        generation = named.name if named is not None else None
    chip = chip_by_name(generation or "")
    if chip is None:
        return None
    shape = _host_shape(chips, chip.dims)
    if shape is None:
        return None
    top = Topology(chip, shape)
    return Target(name=top.name, backend="tpu", topology=top.name)


def tpu_chips(root: str = "/") -> int:
    """How many TPU chips this process sees (``/dev/accel*``, or ``/dev/vfio/<n>``
    groups), found without opening one."""
    base = Path(root)
    return len(list(base.glob("dev/accel[0-9]*"))) or len([p for p in base.glob("dev/vfio/*") if p.name.isdigit()])


def _host_shape(chips: int, dims: int) -> tuple[int, ...] | None:
    """The slice shape of the chips one host sees: 1, 2 (1x2), 4 (2x2), 8 (2x4)."""
    two = {1: (1, 1), 2: (1, 2), 4: (2, 2), 8: (2, 4)}.get(chips)
    if two is None:
        return None
    return two if dims == 2 else (*two, 1)
