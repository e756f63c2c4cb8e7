"""Functions whose TPU programs bench_targets.py compiles deviceless and on a chip.

Each has its inputs in a `# jaxlint: args=` directive, so that `jaxlint check --target`
traces it without running anything, and the chip side builds the same arguments.
"""
import functools

import jax
import jax.numpy as jnp
from jax import lax


# jaxlint: args=(f32[512,1024], f32[1024,256], f32[64,512])
@jax.jit
def mlp(w1, w2, x):
    return jnp.tanh(jnp.tanh(x @ w1) @ w2).sum()


def _loss(p, x):
    return jnp.mean(jnp.tanh(x @ p["w1"]) @ p["w2"])


# jaxlint: args=({"w1": f32[1024,1024], "w2": f32[1024,256]}, f32[128,1024])
@jax.jit
def mlp_sgd(p, x):
    g = jax.grad(_loss)(p, x)
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)


# jaxlint: args=({"w1": f32[1024,1024], "w2": f32[1024,256]}, f32[128,1024])
@functools.partial(jax.jit, donate_argnums=0)
def mlp_sgd_donated(p, x):
    g = jax.grad(_loss)(p, x)
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)


# jaxlint: args=(f32[8,32,32,3], f32[3,3,3,64])
@jax.jit
def conv(x, k):
    return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


# jaxlint: args=(f32[4,256,8,64], f32[4,256,8,64], f32[4,256,8,64])
@jax.jit
def attention(q, k, v):
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8.0
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, axis=-1), v)


# jaxlint: args=(f32[256,256], f32[256,256], f32[100,32,256])
@jax.jit
def scan_rnn(wh, wx, xs):
    def cell(h, x):
        h = jnp.tanh(h @ wh + x @ wx)
        return h, h

    return lax.scan(cell, jnp.zeros((32, 256)), xs)[1]


# jaxlint: args=(f32[32000,512], i32[16,128])
@jax.jit
def embed(table, tokens):
    return table[tokens].mean(axis=1)


# jaxlint: args=(f32[1024],)
@jax.jit
def newton(x):
    def cond(c):
        return c[1] < 50

    def body(c):
        y, i = c
        return y - (y * y - x) / (2 * y), i + 1

    return lax.while_loop(cond, body, (x + 1.0, 0))[0]


# jaxlint: args=(bf16[1024,2048], bf16[2048,1024])
@jax.jit
def bf16_matmul(a, b):
    return a @ b


# jaxlint: args=(f32[64,128,768], f32[768], f32[768])
@jax.jit
def layernorm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + 1e-5) * g + b


# jaxlint: args=(f32[1100,200], f32[200,100])
@jax.jit
def odd_matmul(a, b):
    return a @ b
