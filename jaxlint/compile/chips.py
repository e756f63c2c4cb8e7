"""Accelerator chips jaxlint knows, for the compile tier's rules: the table lives with the
targets (:mod:`jaxlint.targets`, the engine's core, which the config validates with); the
compile tier and its rules read it from here.
"""
from __future__ import annotations

from jaxlint.targets import CHIPS, GIB, Chip, chip_by_kind, chip_by_name

__all__ = ["CHIPS", "GIB", "Chip", "chip_by_kind", "chip_by_name"]
