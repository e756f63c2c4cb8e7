"""Observed, then leaves through os._exit (no atexit): what was observed is kept."""
import os

import jax
import jax.numpy as jnp


@jax.jit
def before_the_exit(x):
    for _ in range(13):  # JAX202
        x = jnp.log1p(x) * 0.5 + x
    return x


if __name__ == "__main__":
    before_the_exit(jnp.ones(3)).block_until_ready()
    os._exit(3)
