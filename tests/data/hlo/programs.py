"""Small programs whose optimized HLO is captured as parser test data (make_hlo.py)."""
import functools

import jax
import jax.numpy as jnp
import numpy as np


def inner(v):
    return jnp.sin(v) * 3.0


def middle(v):
    return inner(v) + 1.0


def chain(x, y):
    a = jnp.tanh(x) * 2.0
    b = jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct(a.shape, a.dtype), a)
    c = jnp.exp(b) + y
    return c.sum(axis=0), jnp.sort(c, axis=1)


def nested(x):
    y = middle(x)
    z = jax.lax.fori_loop(0, 3, lambda i, c: c * 2.0 + jnp.cos(c), y)
    return jnp.where(z > 0, z, 0.0).sum()


def update(state, batch, unused, lr):
    new = {k: v - lr * batch for k, v in state.items()}
    return new, batch.sum()


def many(x):
    return tuple(x * i for i in range(7))


def transposed(x):
    return x.T * 2


C = np.arange(256 * 256, dtype=np.float32).reshape(256, 256) / 65536.0


def folded(x):
    return x @ (jnp.asarray(C) * 2 + 1)


S = jax.ShapeDtypeStruct((128, 256), jnp.float32)
T = jax.ShapeDtypeStruct((8, 4), jnp.float32)
#: name -> (function, jit keyword arguments, abstract arguments)
PROGRAMS = {
    "chain": (chain, {}, (S, S)),
    "nested": (nested, {}, (jax.ShapeDtypeStruct((64, 64), jnp.float32),)),
    "update": (update, {"donate_argnums": (0, 2)}, ({"w": T, "b": T}, T, T, 0.1)),
    "donate_transposed": (transposed, {"donate_argnums": 0}, (T,)),
    "folded": (folded, {}, (S,)),
    "many_outputs": (many, {}, (T,)),
}


def compiled(name):
    fn, kw, args = PROGRAMS[name]
    return jax.jit(fn, **kw).trace(*args).lower().compile()
