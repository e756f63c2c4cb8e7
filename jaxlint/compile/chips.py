"""Accelerator chips jaxlint knows: a target's generation name, the ``device_kind`` jax
reports for it, and the high-bandwidth memory one chip has.

Figures are the chips' published HBM capacities per chip (one jax device per chip on
these generations). A rule option or a target may override them; nothing here imports jax.
"""
from __future__ import annotations

from dataclasses import dataclass

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
