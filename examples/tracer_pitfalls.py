"""Common tracing mistakes in one small module."""
import time

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def normalize(x):
    if x.sum() > 0:  # JAX105: Python `if` on a traced value
        x = x / x.sum()
    total = np.linalg.norm(x)  # JAX104: numpy on a tracer
    print("normalizing", total)  # JAX106: runs once, at trace time
    return x


@jax.jit
def update(x, i, v):
    x.at[i].set(v)  # JAX110: the updated array is thrown away
    return x


@jax.jit
def positives(x):
    return x[x > 0]  # JAX111: the output shape depends on the data


def train(batches):
    out = []
    for b in batches:
        out.append(jax.jit(lambda z: z * 2)(b))  # JAX103: a new jit wrapper per iteration
    return out


@jax.jit
def noisy(key, x):
    a = jax.random.normal(key, x.shape)
    b = jax.random.normal(key, x.shape)  # JAX114: the same key used twice
    return x + a + b


@jax.jit
def precise(x):
    t0 = time.time()  # JAX106: a trace-time constant
    return x.astype(jnp.float64) + t0  # JAX112: float64
