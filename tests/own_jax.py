"""pytest's own jax on a TPU host (see tests/conftest.py).

libtpu lets one process at a time open the chips. A test that runs jax in pytest's own
process (a flax check in-process, a claim proved with real jax) would open them there and
hold them for the rest of the session, and the programs later tests start (``jaxlint
record -- python prog.py``, run as a user's program is, on the chip) would fail with
"TPU initialization failed: ... Device or resource busy"."""
from __future__ import annotations

import os


def keep_own_jax_on_the_cpu(chips: int) -> bool:
    """Where this machine has TPU ``chips`` and the user set no ``JAX_PLATFORMS``: jax in
    this process runs on the CPU. It is this process's jax config, not the environment:
    the processes tests start (recorded programs, workers) see the machine as it is.
    Returns whether it did; nothing at all on a machine without a TPU."""
    if not chips or "JAX_PLATFORMS" in os.environ:
        return False
    try:
        import jax
    except ImportError:
        return False
    jax.config.update("jax_platforms", "cpu")  # read when jax first starts a backend
    return True
