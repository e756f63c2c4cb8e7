"""JAX106 side-effect-in-jit: ``.tolist()`` / ``.item()`` of a traced value shown by a
print or a log call (tests beyond the rule's VALID/INVALID examples), checked under
real jax."""
from __future__ import annotations

import textwrap

import pytest

from helpers import lines

_SRC = """
import logging
import jax
import jax.numpy as jnp

log = logging.getLogger(__name__)

@jax.jit
def f(x):
    log.warning(f"x is {x.tolist()}")
    return x + 1

@jax.jit
def g(x):
    log.warning(f"shape is {x.shape}")
    return x + 1
"""


def test_jax106_a_converted_tracer_in_a_log_call_is_flagged():
    assert lines("JAX106", _SRC) == [9]


def test_jax106_a_converted_tracer_really_fails_and_a_shape_logs():
    import jax
    import jax.numpy as jnp

    ns: dict = {"__name__": "m"}
    exec(compile(textwrap.dedent(_SRC), "m.py", "exec"), ns)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        ns["f"](jnp.ones(2))
    assert ns["g"](jnp.ones(2)).tolist() == [2.0, 2.0]
