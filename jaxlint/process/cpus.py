"""How many CPUs this process may use, for the static pool and the dynamic workers."""
from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity (``taskset``, a container's cpuset),
    not every CPU of the machine (``os.cpu_count()``: on a 64-core host a 2-CPU container
    started a jax-importing worker per file, up to 64). A CPU quota without a cpuset
    (``docker --cpus``) is not seen."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1
