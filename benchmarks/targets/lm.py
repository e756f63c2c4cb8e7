"""A small language model's training step, with its Adam state (bench_targets.py)."""
import functools

import jax
import jax.numpy as jnp

VOCAB, D = 8192, 512


def loss_fn(p, tokens):
    x = p["emb"][tokens[:, :-1]]
    h = jax.nn.gelu(x @ p["w1"]) @ p["w2"]
    logits = h @ p["emb"].T
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, tokens[:, 1:, None], axis=-1).mean()


def _adam(p, m, v, g, t):
    m = jax.tree_util.tree_map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
    v = jax.tree_util.tree_map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
    p = jax.tree_util.tree_map(lambda w, a, b: w - 1e-3 * a / (jnp.sqrt(b) + 1e-8), p, m, v)
    return p, m, v


# jaxlint: args=({"emb": f32[8192,512], "w1": f32[512,2048], "w2": f32[2048,512]}, {"emb": f32[8192,512], "w1": f32[512,2048], "w2": f32[2048,512]}, {"emb": f32[8192,512], "w1": f32[512,2048], "w2": f32[2048,512]}, i32[16,129], i32[])
@jax.jit
def train_step(p, m, v, tokens, t):
    loss, g = jax.value_and_grad(loss_fn)(p, tokens)
    p, m, v = _adam(p, m, v, g, t)
    return p, m, v, loss


# jaxlint: args=({"emb": f32[8192,512], "w1": f32[512,2048], "w2": f32[2048,512]}, {"emb": f32[8192,512], "w1": f32[512,2048], "w2": f32[2048,512]}, {"emb": f32[8192,512], "w1": f32[512,2048], "w2": f32[2048,512]}, i32[16,129], i32[])
@functools.partial(jax.jit, donate_argnums=(0, 1, 2))
def train_step_donated(p, m, v, tokens, t):
    loss, g = jax.value_and_grad(loss_fn)(p, tokens)
    p, m, v = _adam(p, m, v, g, t)
    return p, m, v, loss
