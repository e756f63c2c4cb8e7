"""A lookup table closed over by a jitted function (JAX201) and a mask computed from
constants inside jit (JAX209, or JAX305 with --compile)."""
import jax
import jax.numpy as jnp
import numpy as np

EMBEDDINGS = np.random.randn(4096, 256).astype(np.float32)  # 4 MiB


# jaxlint: args=(i32[32],)
@jax.jit
def embed(tokens):
    return jnp.take(EMBEDDINGS, tokens, axis=0)  # JAX201 (JAX101 without --dynamic): EMBEDDINGS is baked into the program


# jaxlint: args=(f32[1024, 1024],)
@jax.jit
def masked(x):
    mask = jnp.ones((1024, 1024)).at[:, 0].set(0.0)  # JAX209 without --compile, JAX305 with it: XLA folds this
    return x * mask  # the folded mask is stored in the executable
