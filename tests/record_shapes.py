"""The shapes of call that took the recorder's full path every time until issue 37 (rlax's
DQN): a jitted bound method (``self.step = jax.jit(self.step)``), a dm_env-like
``TimeStep`` namedtuple with an ``IntEnum`` and ``None`` fields, a registered dataclass
pytree node (one static field). Program text, shared by ``tests/test_record_keyed_shapes.py``
(which records them and checks what is counted) and ``benchmarks/bench_record.py --per-call``
(which times them): each puts it at the top of the program it runs."""

DEFINITIONS = '''
import collections
import dataclasses
import enum
import functools
import json

import jax
import jax.numpy as jnp
import numpy as np


class StepType(enum.IntEnum):
    FIRST = 0
    MID = 1


TimeStep = collections.namedtuple("TimeStep", "step_type reward discount observation")


@functools.partial(jax.tree_util.register_dataclass, data_fields=["x", "n"], meta_fields=["mode"])
@dataclasses.dataclass
class State:
    x: jax.Array
    n: object
    mode: str


class Agent:
    def __init__(self, scale):
        self.scale = scale
        self.step = jax.jit(self.step)

    def step(self, x):
        return x * self.scale
'''
